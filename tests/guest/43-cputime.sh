#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A sample stands for the time that passed, not for one period: every
# stack carries the periods its samples stand for (one each, plus the
# periods its CPU's timer missed by firing late and those it skipped while
# throttled), so periods x the period is the CPU time the stack had. chain
# spins for 4 s of CPU at 4999 Hz on a TCG guest, where the host makes the
# timers fire late (overruns): its periods in a snapshot (snapdump) x the
# period must match the CPU time it measured itself
# (CLOCK_THREAD_CPUTIME_ID) within 2%; its samples alone fall short by the
# share of periods missed (logged). The tool's folded output counts the
# same periods (and the samples with --count samples).
# timeout: 150
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

HZ=4999
fs_load freq=$HZ
out=$(wl chain -c 4) || not_ok "chain exited with status $?"
check "stop" fs_write stop
cpu_ns=${out#cpu_ns }
check "snapshot" sh -c "/opt/workloads/snapdump >$FS_TMP/dump"
artifact "$FS_TMP/dump"
# shellcheck disable=SC2046 # two numbers
set -- $(awk "$FS_AWK_FIELDS"'
	$1 == "stack" { fields(f); if (f["comm"] != "chain") next
		c += f["count"]; p += f["periods"] }
	END { printf "%d %d\n", c, p }' "$FS_TMP/dump")
count=$1 periods=$2
period=$(awk -v h=$HZ 'BEGIN {printf "%d", int((1e9 + int(h / 2)) / h)}')
by_periods=$(awk -v p="$periods" -v d="$period" 'BEGIN {printf "%.0f", p * d}')
by_count=$(awk -v c="$count" -v d="$period" 'BEGIN {printf "%.0f", c * d}')
log "chain: $cpu_ns ns of CPU; $count samples ($by_count ns), $periods periods ($by_periods ns); overruns $(fs_stat overruns) of $(($(fs_stat samples) + $(fs_stat overruns))) periods"
expect_ge "chain was sampled" "$count" 2000
expect_ge "periods >= samples" "$periods" "$count"
# |periods x period - cpu| <= 2% of cpu, in integers (x50).
diff=$((by_periods - cpu_ns))
[ "$diff" -lt 0 ] && diff=$((-diff))
expect_le "periods x period is chain's CPU time within 2% (x50)" $((diff * 50)) "$cpu_ns"

# What the tool reports from the same session: folded counts (periods by
# default) and the report's CPU time for chain.
check "flamestat fold" sh -c "flamestat fold >$FS_TMP/tool.folded"
artifact "$FS_TMP/tool.folded"
tool=$(fs_sum "$FS_TMP/tool.folded" '^chain;')
expect_eq "flamestat fold counts chain's periods" "$tool" "$periods"
check "flamestat report" sh -c "flamestat report --count periods >$FS_TMP/report.txt 2>&1"
artifact "$FS_TMP/report.txt"
log "report: $(grep -m1 'CPU time' "$FS_TMP/report.txt")"
check "flamestat fold --count samples" sh -c "flamestat fold --count samples >$FS_TMP/samples.folded"
expect_eq "flamestat fold --count samples counts chain's samples" \
	"$(fs_sum "$FS_TMP/samples.folded" '^chain;')" "$count"
check "unload" fs_unload
finish
