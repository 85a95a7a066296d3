#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Off-CPU time in uninterruptible waits (issue 14), the module alone
# (mode=offcpu): the offcpu workload writing a loop device (its backing
# file in tmpfs, so the I/O is the loop worker's), buffered writes then
# fsync (disk_fsync: waits for writeback) and O_DIRECT writes
# (direct_write: waits for the bio). Their off-CPU time must lie between
# the workload's two measures of it, 5% allowed on each side: its wall
# minus CPU time in the calls (the off-CPU time, as in the other tests)
# and its wall time in them (an upper bound); and mostly in state D.
# (Both: the thread's CPU clock and a profiler's switch times differ by a
# few microseconds at every switch under TCG, the same for every profiler
# (bench-offcpu measures it per switch: under 1 us where the CPU goes to
# another task, 2 to 3 us where it idles between). Calls that block for a
# few microseconds at a time, as buffered writes and fsync on a fast disk
# do, make that a large share of a small truth. On this guest's loop
# device fsync's calls are 93% off-CPU: the bounds are close.)
# timeout: 180
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

modprobe loop 2>/dev/null
dd if=/dev/zero of="$FS_TMP/disk.img" bs=1M count=16 2>/dev/null
[ -b /dev/loop0 ] || mknod /dev/loop0 b 7 0
losetup /dev/loop0 "$FS_TMP/disk.img" || die "losetup /dev/loop0 (loop module: $(grep -c '^loop ' /proc/modules))"
dev=/dev/loop0
cleanup_loop() { losetup -d "$dev" 2>/dev/null; }

fs_load_offcpu mode=offcpu
out="$FS_TMP/truth"
check "offcpu -p disk,direct runs" sh -c "$FS_WL/offcpu -p disk,direct -f $dev 4 >$out"
sed 's/^/#   /' "$out"
check "stop" fs_write stop
fs_read "$FS_TMP/off.folded"
cp "$FS_STATS" "$FS_TMP/stats"
cleanup_loop
artifact "$FS_TMP/off.folded"
artifact "$FS_TMP/stats"
artifact "$out"
grep -v '^#' "$FS_TMP/off.folded" | fs_symbolize >"$FS_TMP/off.sym"
artifact "$FS_TMP/off.sym"
grep '^off-' "$FS_TMP/off.sym" | sort -t' ' -k2 -n -r | head -n 10 | sed 's/^/#   /'

for f in disk_fsync:off-disk direct_write:off-direct; do
	fn=${f%%:*} comm=${f#*:}
	truth=$(fs_truth "$out" "$fn" off_ns)
	calls=$(fs_truth "$out" "$fn" calls)
	got=$(fs_off_ns "$FS_TMP/off.sym" "$comm" "$fn")
	d=$(fs_off_ns "$FS_TMP/off.sym" "$comm" "$fn" D)
	r=$(fs_off_ns "$FS_TMP/off.sym" "$comm" "$fn" R)
	log "$fn ($comm): $calls calls, truth $truth ns off-CPU, flamestat $got ns ($d ns in D, $r ns preempted)"
	# (a loop worker's copy of 256 KiB takes tens of microseconds at least)
	expect_ge "$fn: the workload waited for the device" "$truth" 20000000
	wall=$(fs_truth "$out" "$fn" wall_ns)
	log "$fn: between $truth (wall - CPU) and $wall (wall) ns"
	expect_ge "$fn: off-CPU time >= 95% of wall minus CPU (x100 vs x95)" $((got * 100)) $((truth * 95))
	expect_le "$fn: off-CPU time <= 105% of the wall time in the calls (x100 vs x105)" $((got * 100)) $((wall * 105))
	# Preempted time (R: a cond_resched in writeback, waiting for a CPU
	# the other guest threads hold) is not waiting for the device and
	# grows with the load; of the time the thread was blocked, the
	# device's share is what must be D.
	expect_ge "$fn: >= 90% of the blocked (not preempted) time in state D (x100 vs x90)" $((d * 100)) $(((got - r) * 90))
done
# Buffered writes to the page cache seldom block; whatever they did is
# accounted too (no percentage on a few milliseconds).
log "disk_write: truth $(fs_truth "$out" disk_write off_ns) ns, flamestat $(fs_off_ns "$FS_TMP/off.sym" off-disk disk_write) ns"
expect_offcpu_balanced "disk"
check "unload" fs_unload
finish
