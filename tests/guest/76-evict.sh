#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# One process that records a new stack at every sample (uniq: random
# paths through 16 functions) fills the merged table; a process started
# after that, on the same CPU, must keep >= 95% of its samples: a full
# table drops its coldest stacks to make room (counted as
# dropped_evicted) instead of every later process's new stacks. One CPU
# with guest time following the instruction count, so that the victim's
# CPU time (chain -c) says how many samples it was due.
# vm: name=icount smp=1 icount=1
# timeout: 200
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

fs_load table_kb=512
wl_bg uniq -d 12 14
sleep 5
log "uniq alone: $(fs_stat stacks) stacks, $(fs_stat recorded) recorded, dropped_table_full $(fs_stat dropped_table_full), dropped_evicted $(fs_stat dropped_evicted)"
out=$(wl chain -c 6) || not_ok "chain exited with status $?"
check "uniq exits 0" wl_wait
check "stop" fs_write stop
cpu_ns=${out#cpu_ns }
fs_read "$FS_TMP/all.folded"
artifact "$FS_TMP/all.folded"
victim=$(fs_sum "$FS_TMP/all.folded" '^chain;')
want=$(awk -v ns="$cpu_ns" 'BEGIN {printf "%d", ns * 997 / 1e9}')
log "chain: $cpu_ns ns of CPU, $want samples due, $victim recorded; uniq: $(fs_sum "$FS_TMP/all.folded" '^uniq;') recorded in $(grep -c '^uniq;' "$FS_TMP/all.folded") stacks"
log "stacks $(fs_stat stacks), dropped_table_full $(fs_stat dropped_table_full), dropped_evicted $(fs_stat dropped_evicted), dropped_cpu_table_full $(fs_stat dropped_cpu_table_full)"
expect_ge "chain was due samples" "$want" 1000
expect_ge "chain kept >= 95% of its samples (x100 vs x95)" $((victim * 100)) $((want * 95))
expect_ge "the table was full: cold stacks evicted" "$(fs_stat dropped_evicted)" 1
# shellcheck disable=SC2046 # three numbers
set -- $(fs_stats_balance)
expect_eq "samples == recorded + dropped ($2 + $3)" "$1" $(($2 + $3))
check "unload" fs_unload
finish
