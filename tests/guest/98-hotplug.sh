#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# CPU hotplug while sampling (4 vCPUs): CPUs 1-3 taken offline and back in
# a loop while workloads run, two readers and a writer use the device and
# counters are checked; afterwards every CPU is sampled again (per-CPU
# stacks from cpu-0..cpu-3) and the sampled-CPU count follows the online
# CPUs. Also: load with a CPU offline, then bring it online (its tables
# are allocated then); unload with a CPU offline. The storm runs twice:
# sampling CPU time, then in wall-clock mode with the off-CPU probes (and
# waker stacks) attached. Short 10 s, long 300 s, each.
# vm: name=hotplug smp=4 mem=1024
# timeout: 300
# timeout-long: 1800
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

SECS=$(fs_size 10 300)
CPU=/sys/devices/system/cpu

online() { echo 1 >"$CPU/cpu$1/online"; }
offline() { echo 0 >"$CPU/cpu$1/online"; }
is_online() { [ "$(cat "$CPU/cpu$1/online")" = 1 ]; }
nr_online() { grep -c '^processor' /proc/cpuinfo; }

expect_eq "4 CPUs" "$(nr_online)" 4
[ -f "$CPU/cpu1/online" ] || die "no CPU hotplug"

# percpu_seen FILE: the CPUs that have stacks in FILE, e.g. "0 1 2 3".
percpu_seen() { sed -n 's/^cpu-\([0-9]*\);.*/\1/p' "$1" | sort -un | tr '\n' ' '; }

for _ in 1 2 3 4; do
	wl_bg chain 3600
done

# storm NAME PARAMS...: CPUs toggled with the module loaded so, for SECS
# and at least 10 times: how many fit in SECS depends on the host (a debug
# kernel under a loaded host did 7 in 20 s), and a count in a time is a
# benchmark's figure, not a check. A hotplug that hangs meets the timeout.
storm() {
	_name=$1
	shift
	fs_load "$@"
	"$FS_WL/devstress" -r 2 -w -t "$SECS" -s 5 >"$FS_TMP/stress.out" 2>&1 &
	stress=$!
	toggles=0 bad=0 seed=1
	t0=$(now_ms)
	t_end=$((t0 + SECS * 1000))
	while [ "$(now_ms)" -lt $t_end ] || [ $toggles -lt 10 ]; do
		seed=$(((seed * 1103515245 + 12345) % 2147483648))
		c=$((1 + seed % 3))
		if is_online $c; then offline $c; else online $c; fi || bad=$((bad + 1))
		toggles=$((toggles + 1))
		if [ $((toggles % 5)) = 0 ]; then
			fs_balanced || { not_ok "$_name: unbalanced after $toggles toggles"; break; }
		fi
	done
	wait "$stress"
	rc=$?
	for c in 1 2 3; do
		is_online $c || online $c
	done
	log "$_name: $toggles CPU online/offline toggles in $((($(now_ms) - t0) / 1000)) s ($bad refused by the kernel)"
	expect_eq "$_name: devstress: $(tail -n 1 "$FS_TMP/stress.out")" "$rc" 0
	grep '^FAIL' "$FS_TMP/stress.out" | head -n 10 | sed 's/^/#   /'
	artifact "$FS_TMP/stress.out"
	check "$_name: balanced" fs_balanced
	expect_eq "$_name: all online" "$(nr_online)" 4
	check "$_name: unload" fs_unload
}
storm cpu percpu=1
storm wall percpu=1 mode=wall waker=1

# Every CPU sampled again after the storm (a fresh, per-CPU load).
fs_load percpu=1
sleep 2
expect_eq "cpus sampled" "$(fs_stat cpus)" 4
fs_read "$FS_TMP/all.folded"
expect_eq "stacks from every CPU" "$(percpu_seen "$FS_TMP/all.folded")" "0 1 2 3 "

# Offline while loaded, back online: sampled again; count follows.
offline 2
sleep 0.5
expect_eq "cpus sampled with cpu2 offline" "$(fs_stat cpus)" 3
check "reset" fs_write reset
online 2
sleep 2
fs_read "$FS_TMP/back.folded"
expect_eq "cpu2 sampled again" "$(percpu_seen "$FS_TMP/back.folded")" "0 1 2 3 "
# Unload with a CPU offline.
offline 3
check "unload with cpu3 offline" fs_unload

# Load with cpu3 offline, then online: its tables are made then.
fs_load percpu=1
expect_eq "cpus sampled with cpu3 offline at load" "$(fs_stat cpus)" 3
online 3
sleep 2
check "reset" fs_write reset
sleep 2
fs_read "$FS_TMP/late.folded"
expect_eq "cpu3 sampled after coming online" "$(percpu_seen "$FS_TMP/late.folded")" "0 1 2 3 "
expect_eq "cpus sampled" "$(fs_stat cpus)" 4
check "balanced" fs_balanced
check "unload" fs_unload
finish
