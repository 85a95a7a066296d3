#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Names where the instructions counted by the insnprof plugin went: per
# kernel function, the instructions of one window (a mark of its output),
# or of one window minus another, divided by a number of samples.
#
#   insnprof-report.sh PROFILE KALLSYMS MARK [BASE_MARK] [SAMPLES] [TOP]
#
# Prints "instructions-per-sample  function [module]" (TOP lines, default
# 40, largest first) and the totals of user and kernel instructions.
set -u
prof=$1 ksyms=$2 mark=$3 base=${4:-} samples=${5:-1} top=${6:-40}

# window MARK: "PC COUNT" lines of that window, PC as 16 hex digits.
window() {
	awk -v m="$1" '$1 == "mark" { on = ($2 == m); next }
		on { printf "%016s P %s\n", $1, $2 }' "$prof" | tr ' ' '0' |
		sed 's/^\(................\)0P0/\1 P /'
}

{
	awk '{ printf "%016s S %s%s\n", $1, $3, ($4 != "" ? " " $4 : "") }' "$ksyms" |
		sed 's/^ */&/' | awk '{ a = $1; gsub(/ /, "0", a); $1 = a; print }'
	window "$mark" | awk '{ print $1, "P", $3 }'
	if [ -n "$base" ]; then
		window "$base" | awk '{ print $1, "P", -$3 }'
	fi
} | LC_ALL=C sort -k1,1 -s |
awk -v n="$samples" -v top="$top" '
	$2 == "S" { sym = $3 (NF > 3 ? " " $4 : ""); next }
	$2 == "P" { c[sym == "" ? "?" : sym] += $3; t += $3 }
	END {
		for (s in c) if (c[s] != 0) printf "%12.1f  %s\n", c[s] / n, s
		printf "%12.1f  TOTAL kernel\n", t / n > "/dev/stderr"
	}' | sort -rn -k1,1 | head -n "$top"
for m in "$mark" $base; do
	grep "^mark $m " "$prof"
done
