#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Wall-clock time (issue 14), the module alone (mode=wall freq=4999): on-CPU
# samples weighted by the period and off-CPU blocks, both in ns. For each
# thread of the offcpu workload (off-spin: 5 ms of CPU then 10 ms of sleep
# in turn; off-sleep: asleep nearly all along; the ping-pong) the sum of its
# on- and off-CPU ns must be its lifetime within 5%, its on-CPU part its CPU
# time within 5% (of the lifetime), its sleeps their truth within 5%.
# timeout: 180
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

fs_load_offcpu mode=wall freq=4999
out="$FS_TMP/truth"
check "offcpu -p spin,sleep,pipe runs" sh -c "$FS_WL/offcpu -p spin,sleep,pipe 4 >$out"
sed 's/^/#   /' "$out"
check "stop" fs_write stop
fs_read "$FS_TMP/wall.folded"
cp "$FS_STATS" "$FS_TMP/stats"
artifact "$FS_TMP/wall.folded"
artifact "$FS_TMP/stats"
artifact "$out"
check "the text says mode wall, values in ns" \
	sh -c "head -n 1 $FS_TMP/wall.folded | grep -q '^# flamestat: mode wall, values in ns'"
grep -v '^#' "$FS_TMP/wall.folded" | fs_symbolize >"$FS_TMP/wall.sym"
artifact "$FS_TMP/wall.sym"

# on_off FILE COMM: "ON OFF" ns of COMM's lines (off: with a state frame).
on_off() {
	awk -v c="$2" '{ v = $NF; s = $0; sub(/ [0-9]+$/, "", s); sub(/;--;.*/, "", s)
		if (substr(s, 1, length(c) + 1) != c ";") next
		if (s ~ /;\[off-cpu[ :][SDR]\]$/) off += v; else on += v }
		END { printf "%.0f %.0f\n", on, off }' "$1"
}

for comm in off-spin off-sleep off-ping off-pong; do
	life=$(fs_truth "$out" "$comm" life_ns)
	cpu=$(fs_truth "$out" "$comm" cpu_ns)
	# shellcheck disable=SC2046 # two numbers
	set -- $(on_off "$FS_TMP/wall.sym" "$comm")
	log "$comm: lifetime $life ns, CPU $cpu ns; flamestat on-CPU $1 ns + off-CPU $2 ns = $(($1 + $2)) ns"
	expect_within "$comm: on + off-CPU is its lifetime" $(($1 + $2)) "$life" 5
	# |on - cpu| <= 5% of the lifetime
	d=$(($1 - cpu))
	[ $d -lt 0 ] && d=$((-d))
	expect_le "$comm: on-CPU time is its CPU time within 5% of its life (x100 vs x5)" $((d * 100)) $((life * 5))
done
spin_cpu=$(fs_truth "$out" off-spin cpu_ns)
expect_ge "off-spin ran on a CPU (>= 0.5 s)" "$spin_cpu" 500000000
for f in spin_sleep:off-spin sleep_10ms:off-sleep sleep_30ms:off-sleep; do
	fn=${f%%:*} comm=${f#*:}
	truth=$(fs_truth "$out" "$fn" off_ns)
	got=$(fs_off_ns "$FS_TMP/wall.sym" "$comm" "$fn")
	expect_within "$fn: off-CPU time in wall mode is the workload's own" "$got" "$truth" 5
done
spin=$(fs_sum "$FS_TMP/wall.sym" '^off-spin;(.*;)?spin_work(;[^;]*_\[k\])*$')
expect_ge "spin_work sampled on-CPU (ns)" "$spin" 100000000
expect_offcpu_balanced "wall"
check "timer samples balanced too" fs_balanced
check "unload" fs_unload
finish
