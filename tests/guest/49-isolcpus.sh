#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# CPU isolation: on a guest booted with nohz_full=1 isolcpus=1, the module
# samples the housekeeping CPU only unless told otherwise. With sampling
# on, CPU 1's local timer interrupts (LOC in /proc/interrupts) do not
# grow with the sampling rate and it gets no function-call IPIs (CAL)
# from the module's drains; a busy loop pinned there is not sampled.
# Loaded with cpus=0-1, CPU 1 is sampled (per-CPU stacks from cpu-1).
# 5.10's Debian kernel has no NO_HZ_FULL: isolcpus= alone isolates it.
# vm: name=isolated smp=2 append="nohz_full=1 isolcpus=1"
# timeout: 150
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

SYS=/sys/devices/system/cpu
log "isolated: '$(cat "$SYS/isolated")', nohz_full: '$(cat "$SYS/nohz_full" 2>/dev/null)'"
[ "$(cat "$SYS/isolated")" = 1 ] || die "CPU 1 is not isolated (isolcpus=1 on the command line)"
command -v taskset >/dev/null || die "no taskset in the guest"

# irqs NAME CPU: that CPU's count on the /proc/interrupts line NAME.
irqs() { awk -v n="$1:" -v c="$2" '$1 == n {print $(c + 2)}' /proc/interrupts; }

# spin CPU: a busy loop pinned to CPU, in the background, one process
# that forks nothing (so nohz_full can stop the tick under it); unspin
# ends it.
spin() {
	taskset -c "$1" sh -c 'while :; do :; done' &
	SPIN=$!
}
# shellcheck disable=SC2317 # called through check
unspin() {
	kill "$SPIN" && wait "$SPIN"
	[ $? -eq 143 ]
}

fs_load percpu=1
expect_eq "default: one CPU sampled (the housekeeping one)" "$(fs_stat cpus)" 1
spin 1
sleep 1
loc0=$(irqs LOC 1)
cal0=$(irqs CAL 1)
s0=$(fs_stat samples)
sleep 2
loc1=$(irqs LOC 1)
cal1=$(irqs CAL 1)
s1=$(fs_stat samples)
check "the pinned loop ends on SIGTERM" unspin
log "2 s on CPU 1: LOC +$((loc1 - loc0)), CAL +$((cal1 - cal0)); samples +$((s1 - s0)) (CPU 0)"
expect_ge "CPU 0 sampled (>= 1000 samples in 2 s at 997 Hz)" $((s1 - s0)) 1000
# The tick may run under the loop (HZ 250: +500), sampling would add
# about 2,000 more.
expect_le "CPU 1: no sampling timer (LOC +< 1000 in 2 s, 997 Hz would add ~2000)" $((loc1 - loc0)) 999
expect_le "CPU 1: no drain IPIs (CAL +<= 1)" $((cal1 - cal0)) 1
check "stop" fs_write stop
fs_read "$FS_TMP/default.folded"
artifact "$FS_TMP/default.folded"
expect_eq "default: no stack from CPU 1" "$(grep -c '^cpu-1;' "$FS_TMP/default.folded")" 0
check "unload" fs_unload

fs_load percpu=1 cpus=0-1
expect_eq "cpus=0-1: both CPUs sampled" "$(fs_stat cpus)" 2
spin 1
loc0=$(irqs LOC 1)
sleep 2
loc1=$(irqs LOC 1)
check "the pinned loop ends on SIGTERM" unspin
check "stop" fs_write stop
log "cpus=0-1, 2 s on CPU 1: LOC +$((loc1 - loc0))"
expect_ge "cpus=0-1: CPU 1's sampling timer fires (LOC +>= 1000 in 2 s)" $((loc1 - loc0)) 1000
fs_read "$FS_TMP/asked.folded"
artifact "$FS_TMP/asked.folded"
expect_ge "cpus=0-1: the loop pinned to CPU 1 is sampled there" \
	"$(fs_sum "$FS_TMP/asked.folded" '^cpu-1;sh;')" 500
check "unload" fs_unload
finish
