#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# CPU isolation: on a guest booted with nohz_full=1 isolcpus=1, the module
# samples the housekeeping CPU only unless told otherwise. With sampling
# on, CPU 1's local timer interrupts (LOC in /proc/interrupts) do not
# grow with the sampling rate, none of the module's IPI handlers (start,
# table swap, stop; traced) runs there, and a busy loop pinned there is
# not sampled.
# Loaded with cpus=0-1, CPU 1 is sampled (per-CPU stacks from cpu-1).
# flamestat status says which CPUs: "all but 1", then "0,1".
# 5.10's Debian kernel has no NO_HZ_FULL: isolcpus= alone isolates it.
# vm: name=isolated smp=2 append="nohz_full=1 isolcpus=1"
# timeout: 150
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

SYS=/sys/devices/system/cpu
log "isolated: '$(cat "$SYS/isolated")', nohz_full: '$(cat "$SYS/nohz_full" 2>/dev/null)'"
[ "$(cat "$SYS/isolated")" = 1 ] || die "CPU 1 is not isolated (isolcpus=1 on the command line)"
command -v taskset >/dev/null || die "no taskset in the guest"

# irqs NAME CPU: that CPU's count on the /proc/interrupts line NAME (LOC,
# the local timer's interrupts, is the arch_timer line on arm64).
irqs() {
	awk -v n="$1:" -v c="$2" '$1 == n || (n == "LOC:" && $NF == "arch_timer") {print $(c + 2)}' \
		/proc/interrupts
}

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

# The module's IPI handlers (start, table swap, stop) are traced with the
# function tracer: CAL counts on an isolated CPU also include the kernel's
# own remote wakeups of its per-CPU workers (2 in 2 s on 6.12-rt).
T=/sys/kernel/tracing
[ -d "$T/events" ] || mount -t tracefs nodev "$T" 2>/dev/null ||
	die "tracefs cannot be mounted"
fs_load percpu=1 autostart=0
echo 0 >"$T/tracing_on"
echo >"$T/trace"
echo 'fst_cpu_start_timer fst_cpu_swap fst_cpu_count_unsampled' >"$T/set_ftrace_filter" ||
	die "the module's IPI handlers cannot be traced"
echo function >"$T/current_tracer"
echo 1 >"$T/tracing_on"
check "start" fs_write start
expect_eq "default: one CPU sampled (the housekeeping one)" "$(fs_stat cpus)" 1
spin 1
sleep 1
loc0=$(irqs LOC 1)
s0=$(fs_stat samples)
sleep 2
loc1=$(irqs LOC 1)
s1=$(fs_stat samples)
check "the pinned loop ends on SIGTERM" unspin
log "2 s on CPU 1: LOC +$((loc1 - loc0)); samples +$((s1 - s0)) (CPU 0)"
expect_ge "CPU 0 sampled (>= 1000 samples in 2 s at 997 Hz)" $((s1 - s0)) 1000
# The tick may run under the loop (HZ 250: +500), sampling would add
# about 2,000 more.
expect_le "CPU 1: no sampling timer (LOC +< 1000 in 2 s, 997 Hz would add ~2000)" $((loc1 - loc0)) 999
check "stop" fs_write stop
echo 0 >"$T/tracing_on"
cp "$T/trace" "$FS_TMP/ipi.trace"
echo nop >"$T/current_tracer"
echo >"$T/set_ftrace_filter"
artifact "$FS_TMP/ipi.trace"
on0=$(grep -cE '\[000\].* fst_cpu_(start_timer|swap|count_unsampled)' "$FS_TMP/ipi.trace")
on1=$(grep -cE '\[001\].* fst_cpu_(start_timer|swap|count_unsampled)' "$FS_TMP/ipi.trace")
log "the module's IPI handlers ran $on0 times on CPU 0, $on1 on CPU 1"
expect_ge "CPU 0 got the module's IPIs (start, swaps, stop)" "$on0" 3
expect_eq "CPU 1 got none of them" "$on1" 0
fs_read "$FS_TMP/default.folded"
artifact "$FS_TMP/default.folded"
expect_eq "default: no stack from CPU 1" "$(grep -c '^cpu-1;' "$FS_TMP/default.folded")" 0
flamestat status >"$FS_TMP/status.txt" 2>&1
log "status: $(grep '^cpus:' "$FS_TMP/status.txt")"
check "status: cpus all but the isolated CPU 1" grep -q '^cpus: *all but 1 ' "$FS_TMP/status.txt"
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
flamestat status >"$FS_TMP/status2.txt" 2>&1
check "status: cpus 0,1 as asked" grep -q '^cpus: *0,1' "$FS_TMP/status2.txt"
check "unload" fs_unload
finish
