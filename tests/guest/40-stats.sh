#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /sys/class/misc/flamestat/stats: every counter present, samples ==
# recorded + sum(dropped_*) while sampling and after, and the folded text
# holds exactly the recorded samples.
# timeout: 120
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

fs_load
for k in running samples recorded dropped_idle dropped_filtered dropped_mode \
	dropped_no_regs dropped_cpu_table_full dropped_table_full dropped_probe dropped_evicted dropped_throttled overruns \
	kernel_truncated user_truncated user_fault user_compat idle_irq \
	unmapped_procs stacks procs mem_used mem_total cost_ns cost_max_ns \
	running_ns cpus lockdown buildid_uncached maps_busy maps_truncated probe_max reader_mem procs_recycled throttled_now; do
	v=$(fs_stat "$k") || { not_ok "counter $k missing"; continue; }
	case "$v" in
	'' | *[!0-9]*) not_ok "counter $k is not a number: '$v'" ;;
	esac
done
ok "counters checked"
sed 's/^/#   /' "$FS_STATS"

wl_bg chain 3
for i in 1 2 3; do
	sleep 0.7
	# shellcheck disable=SC2046 # three numbers
	set -- $(fs_stats_balance)
	expect_eq "sampling, read $i: samples == recorded + dropped ($2 + $3)" "$1" $(($2 + $3))
done
expect_eq "cpus while sampling" "$(fs_stat cpus)" "$(nproc)"
check "chain exits 0" wl_wait
check "stop" fs_write stop

# shellcheck disable=SC2046
set -- $(fs_stats_balance)
samples=$1 recorded=$2
expect_eq "stopped: samples == recorded + dropped ($2 + $3)" "$1" $(($2 + $3))
expect_ge "samples" "$samples" 100
expect_ge "recorded" "$recorded" 100
# One of the two CPUs had nothing to run most of the time.
expect_ge "dropped_idle (an idle CPU)" "$(fs_stat dropped_idle)" 1
expect_ge "running_ns" "$(fs_stat running_ns)" 1000000000

fs_read "$FS_TMP/all.folded"
artifact "$FS_TMP/all.folded"
expect_eq "folded counts add up to recorded" "$(fs_sum "$FS_TMP/all.folded")" "$recorded"
# Stacks that print alike (two processes, or kernel PCs in the same
# functions) are one line: at most one line per stack, each line once.
expect_le "at most one folded line per stack" "$(wc -l <"$FS_TMP/all.folded")" "$(fs_stat stacks)"
expect_eq "no line twice" "$(awk '{ sub(/ [0-9]+$/, ""); print }' "$FS_TMP/all.folded" | sort | uniq -d | wc -l)" 0
check "unload" fs_unload
finish
