#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The sampling timer's callback never calls into a workqueue: a sample
# that needs the drain (its CPU table half full) or the process
# database's scan (a process seen for the first time) queues an irq_work,
# and that queues the work after the sampling interrupt, from one CPU at
# a time. Seen with the kernel's own tracing: a stack trace at every
# workqueue_queue_work event while uniq (a new stack at every sample,
# 16 KiB CPU tables) and a stream of short processes run. No trace may
# pass through fst_timer_fn or fst_sample, and traces through both
# irq_works must be there (this test sees both paths).
# timeout: 150
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

T=/sys/kernel/tracing
[ -d "$T/events" ] || mount -t tracefs nodev "$T" 2>/dev/null ||
	die "tracefs cannot be mounted"
EV=$T/events/workqueue/workqueue_queue_work
[ -d "$EV" ] || die "this kernel has no workqueue_queue_work event"

echo 0 >"$T/tracing_on"
echo >"$T/trace"
echo 8192 >"$T/buffer_size_kb"
echo stacktrace >"$EV/trigger" || die "the stacktrace trigger is refused"
echo 1 >"$EV/enable"
echo 1 >"$T/tracing_on"

fs_load pcpu_kb=16
wl_bg uniq -d 12 5
wl shortlived -n 300 -m 5 -j 2 || not_ok "shortlived exited with status $?"
check "uniq exits 0" wl_wait
echo 0 >"$T/tracing_on"
check "stop" fs_write stop
echo 0 >"$EV/enable"
echo '!stacktrace' >"$EV/trigger"
cp "$T/trace" "$FS_TMP/trace"
echo >"$T/trace"
artifact "$FS_TMP/trace"
log "drain kicks asked: CPU tables half full $(fs_stat dropped_cpu_table_full) dropped; $(fs_stat procs) processes recorded"

# One line per event: its work function, and the functions of its stack.
awk '/ workqueue_queue_work: / {
		if (ev != "") print ev
		ev = "?"
		for (i = 1; i <= NF; i++) if ($i ~ /^function=/) ev = substr($i, 10)
		next
	}
	/^ => / && ev != "" { ev = ev " " $2 }
	END { if (ev != "") print ev }' "$FS_TMP/trace" >"$FS_TMP/events"
ours=$(grep -c '^fst_' "$FS_TMP/events")
log "$(wc -l <"$FS_TMP/events") work items queued, $ours of them ours"
grep '^fst_' "$FS_TMP/events" | awk '{print $1}' | sort | uniq -c | sed 's/^/# /'
# Whole names: fst_sampler_swap and the like are process context.
TIMER=' (fst_timer_fn|fst_sample)( |$)'
in_timer=$(grep -cE "$TIMER" "$FS_TMP/events")
expect_eq "no work queued from the sampling timer's callback" "$in_timer" 0
grep -E "$TIMER" "$FS_TMP/events" | head -n 3 | sed 's/^/#   /'
# The irq_work callbacks end in a tail call: the irq_work code stands for
# them (irq_work_single, or irq_work_run_list where that is inlined; the
# irq_work thread on PREEMPT_RT).
IW=' (irq_work_single|irq_work_run_list|run_irq_workd)'
expect_ge "the drain was queued by its irq_work" \
	"$(grep -cE "^fst_drain_work_fn .*$IW" "$FS_TMP/events")" 1
expect_ge "the scan was queued by its irq_work" \
	"$(grep -cE "^fst_procdb_scan_work .*$IW" "$FS_TMP/events")" 1
check "unload" fs_unload
finish
