#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The profile phase of bench-overhead: boots the guest image under -icount
# with the insnprof QEMU plugin (insnprof.c), runs the floor module and
# flamestat on the 8- and 120-frame workloads (fs.bench=profile), and
# writes WORK/profile/where.md: per kernel function, the instructions per
# sample that flamestat's run executed beyond the floor's run.
#
#   profile.sh WORK IMAGE_DIR
#
# The boot is insnboot.sh's (a QEMU with TCG plugin support).
set -u
work=$1 img=$2
here=$(cd "$(dirname "$0")" && pwd)
dir="$work/profile"
"$here/insnboot.sh" "$dir" "$img" profile || exit 1
ksyms="$dir/vm/artifacts/overhead/kallsyms"

# Windows: timeit marks before and after each run, so run i (1-based, in
# the order of the results) is mark 2i-1. Floor and flamestat alternate
# per workload.
{
	i=0
	while read -r line; do
		i=$((i + 1))
		wl=$(echo "$line" | sed -n 's/.* wl=\([^ ]*\).*/\1/p')
		prof=$(echo "$line" | sed -n 's/.* prof=\([^ ]*\).*/\1/p')
		n=$(echo "$line" | sed -n 's/.* window_samples=\([0-9]*\).*/\1/p')
		echo "$prof $wl $((2 * i - 1)) $n"
	done < <(grep '^@@BENCH ' "$dir/results")
} >"$dir/windows"
{
	echo "Instructions per sample that the flamestat run executed beyond the floor"
	echo "run, by kernel function (largest first; negative: the floor run did more)."
	echo "Counted by the insnprof QEMU plugin in the window of each timed run."
	for wl in $(awk '{ print $2 }' "$dir/windows" | uniq); do
		read -r _ _ fm fn < <(awk -v w="$wl" '$1 == "flamestat" && $2 == w' "$dir/windows")
		read -r _ _ bm _ < <(awk -v w="$wl" '$1 == "floor" && $2 == w' "$dir/windows")
		if [ -z "${fm:-}" ] || [ -z "${bm:-}" ]; then
			continue
		fi
		echo
		echo "### $wl ($fn samples)"
		echo
		echo '```'
		"$here/insnprof-report.sh" "$dir/insnprof.out" "$ksyms" "$fm" "$bm" "$fn" 25 2>&1 |
			grep -v '^mark '
		echo '```'
	done
} >"$dir/where.md"
cat "$dir/where.md"
