#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Compares flamestat's and perf's profiles of the same workloads, as kept
# by bench/overhead/guest.sh (artifacts flamestat-WL.folded and
# perf-WL.folded): for each workload, the share of the top 10 leaf
# functions (of either profiler) among the workload's own samples, and the
# difference in percentage points (target: within 3). Then flamestat's
# sampling rate in samples per CPU-second (target: within 1% of FREQ).
#
#   accuracy.sh PHASE_DIR [FREQ]
#
# PHASE_DIR has vm/artifacts/overhead/ and results (@@BENCH lines). Prints
# Markdown. Never fails on a number; exits 1 when there is nothing to
# compare.
set -u
dir=$1 freq=${2:-997}
here=$(cd "$(dirname "$0")" && pwd)
art="$dir/vm/artifacts/overhead"
[ -d "$art" ] || { echo "accuracy: no artifacts in $art" >&2; exit 1; }

# Kernel symbols that share an address are one function with several
# names, and the two profilers may pick different ones (perf prefers a
# global symbol with fewer leading underscores, kallsyms the first in its
# table): with the guest's kallsyms (artifact), every name of such a group
# is counted under one of them.
aliases="$dir/aliases"
: >"$aliases"
if [ -s "$art/kallsyms" ]; then
	awk '$2 ~ /^[tT]$/ { n[$1]++; names[$1] = names[$1] " " $3 }
		END { for (a in n) if (n[a] > 1) print substr(names[a], 2) }' "$art/kallsyms" |
		awk '{ for (i = 1; i <= NF; i++) print $i, $1 }' >"$aliases"
fi

# leaves FILE COMM: "leaf count" of the stacks whose root is COMM
# (leaves.awk).
leaves() {
	awk -v comm="$2" -v aliases="$aliases" -f "$here/leaves.awk" "$1"
}

# comm of a workload: the program name of its command.
comm_of() {
	sed -n "s/.*[|']$1=\/opt\/workloads\/\([a-z_]*\).*/\1/p" "$dir/../overhead.sh" | head -n 1
}

found=0
worst_all=0
for fs in "$art"/flamestat-*.folded; do
	[ -f "$fs" ] || continue
	wl=$(basename "$fs" .folded)
	wl=${wl#flamestat-}
	pf="$art/perf-$wl.folded"
	[ -f "$pf" ] || continue
	comm=$(comm_of "$wl")
	[ -n "$comm" ] || continue
	found=1
	leaves "$fs" "$comm" >"$dir/leaves-fs-$wl"
	leaves "$pf" "$comm" >"$dir/leaves-perf-$wl"
	echo
	echo "### $wl ($comm): top 10 leaf functions"
	echo
	awk '
		FNR == 1 { file++ }
		file == 1 { a[$1] = $2; ta += $2; all[$1] = 1 }
		file == 2 { b[$1] = $2; tb += $2; all[$1] = 1 }
		END {
			for (l in all) {
				sa = ta ? 100 * a[l] / ta : 0
				sb = tb ? 100 * b[l] / tb : 0
				print (sa > sb ? sa : sb), l, sa, sb
			}
			print "TOTAL", ta, tb > "/dev/stderr"
		}' "$dir/leaves-fs-$wl" "$dir/leaves-perf-$wl" 2>"$dir/totals-$wl" |
		sort -rn | head -n 10 >"$dir/top-$wl"
	read -r _ ta tb <"$dir/totals-$wl"
	echo "| leaf | flamestat | perf | difference |"
	echo "|---|---|---|---|"
	awk '{ d = $3 - $4; printf "| %s | %.2f%% | %.2f%% | %+.2f pp |\n", $2, $3, $4, d }' "$dir/top-$wl"
	worst=$(awk '{ d = $3 - $4; if (d < 0) d = -d; if (d > w) w = d } END { printf "%.2f", w + 0 }' "$dir/top-$wl")
	echo
	# perf's folded stacks are weighted by period (cpu-clock: nanoseconds).
	echo "$ta flamestat samples, perf weight $tb (its samples weighted by period) of $comm; largest difference $worst pp (target <= 3): $(awk -v w="$worst" 'BEGIN { print (w <= 3 ? "met" : "MISSED") }')."
	[ -s "$aliases" ] || echo "(No kallsyms artifact: kernel functions with several names may show under different names.)"
	worst_all=$(awk -v a="$worst_all" -v b="$worst" 'BEGIN { print (b > a ? b : a) }')
done
[ $found = 1 ] || { echo "accuracy: no pair of flamestat and perf profiles in $art" >&2; exit 1; }
echo
echo "Largest leaf-share difference over all workloads: $worst_all percentage points."

awk -v freq="$freq" '
$1 == "@@BENCH-RATE" {
	delete f
	for (i = 2; i <= NF; i++) { p = index($i, "="); if (p) f[substr($i, 1, p - 1)] = substr($i, p + 1) }
	if (f["duration_ns"] <= 0 || f["cpus"] <= 0) next
	r = f["samples"] / (f["duration_ns"] / 1e9) / f["cpus"]
	e = (r - freq) / freq * 100
	ro = (f["samples"] + f["overruns"]) / (f["duration_ns"] / 1e9) / f["cpus"]
	eo = (ro - freq) / freq * 100
	printf "%s| %s | %d | %d | %d | %.3f s | %.2f (%+.3f%%) | %.2f (%+.3f%%) |\n", \
		n++ ? "" : "\n### Sampling rate (whole sessions; overruns are periods a late timer skipped)\n\n| workload | CPUs | samples | overruns | running | samples per CPU-second | with overruns |\n|---|---|---|---|---|---|---|\n", \
		f["wl"], f["cpus"], f["samples"], f["overruns"], f["duration_ns"] / 1e9, r, e, ro, eo
}' "$dir/results"
