#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A fork loop cannot fill the process database for the rest of the
# session. Many more short processes than it has slots (1,000 through
# max_procs=128 here; 50,000 processes and the default 8,192 slots at the long size;
# 2,500 and 256 at the debug size, where KASAN and lockdep under TCG
# start about 4 processes a second)
# are sampled; then a known program, in the same session, must still have
# its frames mapped (>= 90% named main;outer;middle;hot_leaf), because the
# slots of exited processes are reused, oldest first (stats
# procs_recycled). A reused slot's old id names nothing any more: no
# stack shows another program's functions. Then the same with the memory
# for maps (maps_kb) running out first, and with the file records.
# timeout: 420
# timeout-long: 3600
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

N=$(fs_size 1000 50000 2500)
# shortlived's own time limit, in seconds: it must start all N.
LIMIT=$(fs_size 600 600 1500)
case $FS_TORTURE in
long) fs_load ;;
debug) fs_load max_procs=256 ;;
*) fs_load max_procs=128 ;;
esac
t0=$(now_ms)
out=$(wl shortlived -n "$N" -m 2 -j 2 "$LIMIT") || not_ok "shortlived exited with status $?"
log "shortlived: $out in $(($(now_ms) - t0)) ms; procs $(fs_stat procs), procs_recycled $(fs_stat procs_recycled), unmapped_procs $(fs_stat unmapped_procs)"
expect_eq "shortlived ran its children" "$out" "children $N"
expect_ge "the loop outran the slots: some were reused" "$(fs_stat procs_recycled)" 1

wl_bg chain 4
check "chain exits 0" wl_wait
fs_read "$FS_TMP/all.folded"
# The module names files by basename: a reused slot lending its new maps
# to an old id would show one program's file in the other's stacks.
expect_eq "no shortlived stack in chain's file" \
	"$(grep -c '^shortlived;.*chain+0x' "$FS_TMP/all.folded")" 0
expect_eq "no chain stack in shortlived's file" \
	"$(grep -c '^chain;.*shortlived+0x' "$FS_TMP/all.folded")" 0
log "shortlived: $(grep -c '^shortlived;' "$FS_TMP/all.folded") lines, $(grep -c '^shortlived;.*shortlived+0x' "$FS_TMP/all.folded") with its own frames mapped"
grep '^chain;' "$FS_TMP/all.folded" | fs_symbolize >"$FS_TMP/all.sym"
artifact "$FS_TMP/all.sym"
total=$(fs_sum "$FS_TMP/all.sym" '^chain;')
named=$(fs_sum "$FS_TMP/all.sym" '^chain;(.*;)?main;outer;middle;hot_leaf(;[^;]*_\[k\])*$')
log "chain after the loop: $total samples, $named main;outer;middle;hot_leaf; procs_recycled $(fs_stat procs_recycled)"
grep '^chain;' "$FS_TMP/all.sym" | sort -k2 -n -r -t' ' | head -n 3 | sed 's/^/#   /'
expect_ge "chain sampled after the loop" "$total" 300
expect_ge "chain after the loop: >= 90% named (x10 vs x9)" $((named * 10)) $((total * 9))
"$FS_WL/snapdump" >"$FS_TMP/snap.dump" 2>&1 || not_ok "snapdump: $(head -n 3 "$FS_TMP/snap.dump")"
# shellcheck disable=SC2046 # three numbers
set -- $(fs_stats_balance)
expect_eq "samples == recorded + dropped ($2 + $3)" "$1" $(($2 + $3))
check "unload" fs_unload

# The same with the memory for maps (maps_kb) running out before the
# slots: exited processes' slots are reused to free theirs.
N2=$(fs_size 800 8000 2000)
fs_load max_procs=4096 maps_kb=64
out=$(wl shortlived -n "$N2" -m 2 -j 2 "$LIMIT") || not_ok "shortlived exited with status $?"
log "maps_kb=64: shortlived: $out; procs $(fs_stat procs), procs_recycled $(fs_stat procs_recycled), mem_used $(fs_stat mem_used)"
expect_ge "maps_kb ran out: slots were reused" "$(fs_stat procs_recycled)" 1
chain_named "maps_kb=64"
check "unload" fs_unload

# The same with the file records (at least 1024) running out: programs
# from that many distinct files, then a known one. Records no published
# maps name any more are reclaimed when they are needed.
NF=$(fs_size 1100 3000 1100)
fs_load max_procs=64
mkdir -p "$FS_TMP/files"
i=0
while [ $i -lt "$NF" ]; do
	cp "$FS_WL/shortlived" "$FS_TMP/files/p$i"
	"$FS_TMP/files/p$i" --child 3 || not_ok "p$i failed"
	rm -f "$FS_TMP/files/p$i"
	i=$((i + 1))
done
log "$NF distinct files run: procs_recycled $(fs_stat procs_recycled), mem_used $(fs_stat mem_used)"
chain_named "after $NF files"
check "unload" fs_unload
finish
