#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Symbolizer benchmark: 100,000 unique stacks of 20 user frames (functions
# of the test fixtures, libc and libstdc++) turned into folded lines; then
# with 8 kernel frames more (2000 functions of this machine's
# /proc/kallsyms, when readable); then with kernel frames spread over
# every kernel function, the cache-hostile worst case. Prints times and peak RSS; the
# target is well under a second. Never fails on a number.
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
BUILD=${BUILD:-$TOP/tests/build}
OUT=${BENCH_OUT:-$TOP/bench/out}
STACKS=${STACKS:-100000}
mkdir -p "$OUT"

"$TOP/tests/fixtures/symbolize/build.sh" "$BUILD/symbolize"
make -s -C "$TOP/tests/unit" BUILD="$BUILD" -j2 "$BUILD/unit/symbench"

# frames FILE [nm options]: "FILE OFFSET" for the middle of each function
# with a size, the offset mapped from its address through the PT_LOAD
# headers.
frames() {
	local file=$1
	shift
	{
		readelf -lW "$file" | awk '$1 == "LOAD" { print "L", $2, $3, $5 }'
		nm -S --defined-only "$@" "$file" 2>/dev/null |
			awk 'NF == 4 && $3 ~ /^[TtWwi]$/ { print "S", $1, $2 }'
	} | awk -v f="$file" '
		function hex(s,   i, c, v) {
			sub(/^0x/, "", s)
			v = 0
			for (i = 1; i <= length(s); i++) {
				c = index("0123456789abcdef", substr(s, i, 1)) - 1
				v = v * 16 + c
			}
			return v
		}
		$1 == "L" { n++; lo[n] = hex($2); va[n] = hex($3); sz[n] = hex($4) }
		$1 == "S" {
			a = hex($2) + int(hex($3) / 2)
			for (i = 1; i <= n; i++)
				if (a >= va[i] && a < va[i] + sz[i]) {
					printf "%s %x\n", f, a - va[i] + lo[i]
					break
				}
		}'
}

F=$OUT/symbolize-frames.txt
{
	for f in fx_pie fx_nopie libfx.so fx_cxx; do
		frames "$BUILD/symbolize/$f"
	done
	for lib in /usr/lib/x86_64-linux-gnu/libc.so.6 \
		   /usr/lib/x86_64-linux-gnu/libstdc++.so.6; do
		[ -f "$lib" ] && frames "$lib" -D
	done
} > "$F"

k=8
ks=/proc/kallsyms
if ! awk '$1 !~ /^0+$/ { found = 1; exit } END { exit !found }' "$ks" 2>/dev/null; then
	echo "(kernel addresses hidden or no kallsyms: user frames only)"
	k=0
	ks=
fi
echo "--- $STACKS stacks of 20 user frames ($(wc -l < "$F") candidates)"
"$BUILD/unit/symbench" -n "$STACKS" -d 20 -k 0 "$F"
if [ $k -gt 0 ]; then
	echo "--- the same plus $k kernel frames from 2000 kernel functions"
	"$BUILD/unit/symbench" -n "$STACKS" -d 20 -k $k --kallsyms "$ks" "$F"
	echo "--- worst case: kernel frames from every kernel function"
	"$BUILD/unit/symbench" -n "$STACKS" -d 20 -k $k -K 0 --kallsyms "$ks" "$F"
fi
