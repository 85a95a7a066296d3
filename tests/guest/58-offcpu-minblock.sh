#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# min_block_us (issue 14), the module alone (mode=offcpu min_block_us=2000):
# blocks shorter than 2 ms are counted as dropped (offcpu_dropped_short),
# not recorded. The offcpu workload's short_sleep (100 us nanosleeps, every
# 8th one 3 ms: long blocks by construction, where a fast guest stretched
# too few of the 100 us ones past 2.2 ms for a sum to mean anything, 13
# calls in one arm64 run) says which of its calls were surely shorter
# (under 1.8 ms: they must be dropped), surely longer (over 2.2 ms: kept)
# and near the threshold;
# sleep_10ms and sleep_30ms are kept whole.
# timeout: 150
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

fs_load_offcpu mode=offcpu min_block_us=2000
out="$FS_TMP/truth"
check "offcpu -p sleep,short runs" sh -c "$FS_WL/offcpu -p sleep,short -t 2000 -s 100 -L 3000 3 >$out"
sed 's/^/#   /' "$out"
check "stop" fs_write stop
fs_read "$FS_TMP/off.folded"
cp "$FS_STATS" "$FS_TMP/stats"
artifact "$FS_TMP/off.folded"
artifact "$FS_TMP/stats"
artifact "$out"
grep -v '^#' "$FS_TMP/off.folded" | fs_symbolize >"$FS_TMP/off.sym"
artifact "$FS_TMP/off.sym"

for fn in sleep_10ms sleep_30ms; do
	truth=$(fs_truth "$out" "$fn" off_ns)
	got=$(fs_off_ns "$FS_TMP/off.sym" off-sleep "$fn")
	log "$fn: truth $truth ns, flamestat $got ns"
	expect_within "$fn: longer than min_block_us, kept whole" "$got" "$truth" 5
done

under=$(fs_truth "$out" short_sleep under)
near_ns=$(fs_truth "$out" short_sleep near_ns)
over_ns=$(fs_truth "$out" short_sleep over_ns)
calls=$(fs_truth "$out" short_sleep calls)
got=$(fs_off_ns "$FS_TMP/off.sym" off-short short_sleep)
short=$(fs_stat offcpu_dropped_short)
log "short_sleep: $calls calls, $under under 1.8 ms, ${near_ns} ns near 2 ms, ${over_ns} ns over 2.2 ms; flamestat kept $got ns; offcpu_dropped_short $short"
# Enough short calls for the test to mean something (100 us sleeps; the
# guest's clock follows the host's, a loaded host stretches some).
expect_ge "short_sleep: calls surely under min_block_us" "$under" 100
# A 100 us sleep whose timer fires before the thread is off the CPU (TCG
# on a loaded host) never blocks: >= 90% of the surely short calls.
expect_ge "short blocks dropped as SHORT (>= 90% of the calls surely short, x10 vs x9)" \
	$((short * 10)) $((under * 9))
# Kept, in the sleeping state: no more than the wall time of the calls
# that lasted 90% of the threshold or more (+2%: each kept block lies in
# one of them, by the same monotonic clock; the off time of the near and
# over calls is no bound: under a loaded host it read 5.5% less than what
# was kept); runqueue waits (R) of the busy thread between its calls are
# off-CPU time in short_sleep too, but outside the calls the workload
# times. No less than 90% of the surely long ones, in any state.
long_wall=$(fs_truth "$out" short_sleep long_wall_ns)
got_s=$(fs_off_ns "$FS_TMP/off.sym" off-short short_sleep S)
log "short_sleep: $got_s ns of it sleeping (S); $(fs_truth "$out" short_sleep long) calls of >= 1.8 ms wall, $long_wall ns"
expect_le "short_sleep: no short block kept (S, x100 vs x102 of the long calls' wall)" \
	$((got_s * 100)) $((long_wall * 102))
expect_ge "short_sleep: its long blocks kept (x100 vs x90)" $((got * 100)) $((over_ns * 90))
expect_offcpu_balanced "min_block_us"
check "unload" fs_unload
finish
