#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# flamestat record --off-cpu / --wall / --min-block / --waker (issue 14)
# on the offcpu workload, checked by function names from the tool's own
# symbolization: each blocking function's off-CPU time within 5% of the
# workload's truth (state S for the sleeps, pipe and mutex), --min-block
# drops the short sleeps, --waker adds pipe_write_[w] to the ping-pong,
# --wall gives each thread its lifetime.
# timeout: 240
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

FS=flamestat
command -v $FS >/dev/null || die "no flamestat tool in the guest"
$FS record --help 2>&1 | grep -q -- '--off-cpu' || die "the tool has no record --off-cpu"
fs_loaded && rmmod flamestat

# --off-cpu -- command
out="$FS_TMP/truth"
check "record --off-cpu -- offcpu" sh -c "$FS record --off-cpu -q -o $FS_TMP/off.folded -- $FS_WL/offcpu -p sleep,pipe,mutex 4 >$out"
artifact "$FS_TMP/off.folded"
artifact "$out"
check "the folded text says mode offcpu, values in ns" \
	sh -c "head -n 1 $FS_TMP/off.folded | grep -q '^# flamestat: mode offcpu, values in ns'"
for f in sleep_10ms:off-sleep sleep_30ms:off-sleep ping_read:off-ping \
	pong_read:off-pong mutex_wait:off-mwaiter; do
	fn=${f%%:*} comm=${f#*:}
	truth=$(fs_truth "$out" "$fn" off_ns)
	got=$(fs_off_ns "$FS_TMP/off.folded" "$comm" "$fn")
	s=$(fs_off_ns "$FS_TMP/off.folded" "$comm" "$fn" S)
	log "$fn ($comm): truth $truth ns, record --off-cpu $got ns ($s in S)"
	expect_within "record --off-cpu: $fn is the workload's own" "$got" "$truth" 5
	expect_ge "record --off-cpu: $fn >= 95% in S (x100 vs x95)" $((s * 100)) $((got * 95))
done

# --min-block 2ms
check "record --off-cpu --min-block 2ms" sh -c "$FS record --off-cpu --min-block 2ms -q -o $FS_TMP/mb.folded -- $FS_WL/offcpu -p sleep,short -t 2000 3 >$FS_TMP/mb.truth"
artifact "$FS_TMP/mb.folded"
got=$(fs_off_ns "$FS_TMP/mb.folded" off-short short_sleep S)
over=$(fs_truth "$FS_TMP/mb.truth" short_sleep over_ns)
long_wall=$(fs_truth "$FS_TMP/mb.truth" short_sleep long_wall_ns)
# Sleeping (S) only: the busy thread's runqueue waits between its calls
# are off-CPU time in short_sleep too, outside the calls the workload times.
# The bound is the wall time of the calls of >= 1.8 ms, as in 58.
log "--min-block 2ms: short_sleep kept $got ns sleeping (S); truth over 2.2 ms $over ns, calls of >= 1.8 ms $long_wall ns wall"
expect_le "--min-block: short blocks not kept (x100 vs x102 of the long calls' wall)" \
	$((got * 100)) $((long_wall * 102))
expect_within "--min-block: sleep_30ms kept" "$(fs_off_ns "$FS_TMP/mb.folded" off-sleep sleep_30ms)" \
	"$(fs_truth "$FS_TMP/mb.truth" sleep_30ms off_ns)" 5

# --waker
check "record --off-cpu --waker" sh -c "$FS record --off-cpu --waker -q -o $FS_TMP/wk.folded -- $FS_WL/offcpu -p pipe 3 >/dev/null"
artifact "$FS_TMP/wk.folded"
pw=$(awk '$0 ~ /^off-ping;.*;ping_read;.*;--;(.*;)?(anon_)?pipe_write_\[w\]/ {t += $NF} END {printf "%.0f\n", t}' "$FS_TMP/wk.folded")
all=$(fs_off_ns "$FS_TMP/wk.folded" off-ping ping_read)
log "--waker: ping_read $all ns, $pw ns woken by pipe_write"
expect_ge "--waker: ping_read blocked" "$all" 100000000
expect_ge "--waker: >= 95% of ping_read woken by pipe_write (x100 vs x95)" $((pw * 100)) $((all * 95))

# --wall
check "record --wall" sh -c "$FS record --wall -F 4999 -q -o $FS_TMP/wall.folded -- $FS_WL/offcpu -p spin,sleep 3 >$FS_TMP/wall.truth"
artifact "$FS_TMP/wall.folded"
for comm in off-spin off-sleep; do
	life=$(fs_truth "$FS_TMP/wall.truth" "$comm" life_ns)
	sum=$(fs_sum "$FS_TMP/wall.folded" "^$comm;")
	log "--wall: $comm lifetime $life ns, on + off-CPU $sum ns"
	expect_within "--wall: $comm on + off-CPU is its lifetime" "$sum" "$life" 5
done
check "unload" fs_unload
finish
