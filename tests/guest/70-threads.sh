#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Threads: each thread's samples carry its own name and chain
# (worker_a: thread_worker_a;spin_a, worker_b: thread_worker_b;spin_b), and
# both CPUs are sampled.
# timeout: 120
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

fs_load
t0=$(now_ms)
wl threads -n 2 3 || not_ok "threads exited with status $?"
t1=$(now_ms)
check "stop" fs_write stop
fs_read "$FS_TMP/threads.folded"
fs_symbolize <"$FS_TMP/threads.folded" >"$FS_TMP/threads.sym"
artifact "$FS_TMP/threads.folded"
a=$(fs_sum "$FS_TMP/threads.sym" '^worker_a;(.*;)?thread_worker_a;spin_a$')
b=$(fs_sum "$FS_TMP/threads.sym" '^worker_b;(.*;)?thread_worker_b;spin_b$')
wrong=$(fs_sum "$FS_TMP/threads.sym" '^worker_a;.*spin_b|^worker_b;.*spin_a')
all=$(fs_sum "$FS_TMP/threads.sym" '^worker_[ab];')
log "worker_a $a, worker_b $b, crossed $wrong, all worker samples $all in $((t1 - t0)) ms"
sort -t' ' -k2 -n -r "$FS_TMP/threads.sym" | head -n 6 | sed 's/^/#   /'
expect_ge "worker_a in thread_worker_a;spin_a" "$a" 300
expect_ge "worker_b in thread_worker_b;spin_b" "$b" 300
expect_eq "no thread with the other's chain" "$wrong" 0
# Two busy threads on two CPUs: up to two samples per tick.
expect_le "no more samples than 2 CPUs x ticks" "$all" $((2 * 997 * (t1 - t0) / 1000 + 50))
check "unload" fs_unload
finish
