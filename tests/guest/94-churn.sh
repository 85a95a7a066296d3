#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Process churn while sampling (tests/workloads/churn.c): fork and exec
# storms, threads living a few milliseconds, executable file mappings and
# anonymous JIT code mapped and unmapped under a sampled thread. Counters
# balance, snapshots stay valid, a long-lived process's stack still
# resolves; then with a process database of 16 slots and 64 KiB of maps:
# it fills, exited processes' slots are reused (procs_recycled), what
# finds no slot is counted (unmapped_procs), and the long-lived process,
# which exited last, still resolves.
# Short 6 s per phase, long 120 s.
# timeout: 300
# timeout-long: 1800
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

SECS=$(fs_size 6 120)

# churn_phase NAME: run the churn next to chain, then check everything.
churn_phase() {
	wl_bg chain "$SECS"
	if wl churn -m all -j 2 "$SECS" >"$FS_TMP/$1.churn"; then
		ok "$1: $(cat "$FS_TMP/$1.churn")"
	else
		not_ok "$1: churn failed (status $?): $(cat "$FS_TMP/$1.churn")"
	fi
	wl_wait || not_ok "$1: chain failed"
	check "$1: balanced" fs_balanced
	if /opt/workloads/snapdump >"$FS_TMP/$1.dump"; then
		ok "$1: snapshot valid"
	else
		not_ok "$1: snapshot valid: $(head -n 1 "$FS_TMP/$1.dump")"
	fi
	fs_read "$FS_TMP/$1.folded"
	fs_symbolize <"$FS_TMP/$1.folded" >"$FS_TMP/$1.sym"
	artifact "$FS_TMP/$1.sym"
	log "$1: chain's records: $(grep ' comm=chain$' "$FS_TMP/$1.dump" | head -n 3 | tr '\n' '|') stacks: $(grep -c 'comm=chain ' "$FS_TMP/$1.dump")"
	log "$1: chain's stacks by proc: $(grep 'comm=chain ' "$FS_TMP/$1.dump" | sed -n 's/.* proc=\([0-9]*\) .*/\1/p' | sort | uniq -c | tr '\n' ' ')"
	expect_ge "$1: chain resolves (main;outer;middle;hot_leaf)" \
		"$(fs_sum "$FS_TMP/$1.sym" '^chain;(.*;)?main;outer;middle;hot_leaf$')" 20
	expect_ge "$1: churn's children resolve (churn_work)" \
		"$(fs_sum "$FS_TMP/$1.sym" '^churn;(.*;)?churn_work$')" 5
}

fs_load
churn_phase default
expect_le "procs <= procs_max" "$(fs_stat procs)" 8192
log "procs $(fs_stat procs), stacks $(fs_stat stacks), mem_used $(fs_stat mem_used) of $(fs_stat mem_total)"
check "unload" fs_unload

fs_load max_procs=16 maps_kb=64
churn_phase small
expect_le "small: process database within its 16 slots" "$(fs_stat procs)" 16
expect_ge "small: exited processes' slots reused" "$(fs_stat procs_recycled)" 1
expect_ge "small: samples without a map record counted" \
	"$(sed -n 's/.*unmapped_procs=\([0-9]*\).*/\1/p' "$FS_TMP/small.dump" | head -n 1)" 1
check "reset" fs_write reset
wl chain 1 || not_ok "chain failed"
fs_read "$FS_TMP/after.folded"
fs_symbolize <"$FS_TMP/after.folded" >"$FS_TMP/after.sym"
expect_ge "after reset: chain resolves again" \
	"$(fs_sum "$FS_TMP/after.sym" '^chain;(.*;)?main;outer;middle;hot_leaf$')" 20
check "unload" fs_unload
finish
