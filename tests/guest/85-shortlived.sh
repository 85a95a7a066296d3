#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Processes that exit before the read: their stacks stay, their user frames
# still resolve to main;child_main;child_work;child_leaf.
# timeout: 150
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

fs_load
# SECONDS bounds the spawning: the debug kernel (KASAN, kmemleak) forks
# and execs several times slower under TCG.
limit=20
fs_debug_kernel && limit=120
out=$(wl shortlived -n 100 -m 20 "$limit") || not_ok "shortlived exited with status $?"
log "shortlived: $out"
expect_eq "shortlived ran its children" "$out" "children 100"
check "stop" fs_write stop
fs_read "$FS_TMP/short.folded"
fs_symbolize <"$FS_TMP/short.folded" >"$FS_TMP/short.sym"
artifact "$FS_TMP/short.folded"
total=$(fs_sum "$FS_TMP/short.sym" '^shortlived;.*child')
chain=$(fs_sum "$FS_TMP/short.sym" '^shortlived;(.*;)?main;child_main;child_work;child_leaf$')
raw=$(fs_sum "$FS_TMP/short.folded" '^shortlived;.*;0x[0-9a-f]+$')
log "children's samples $total, $chain named main;child_main;child_work;child_leaf, $raw with a bare address leaf"
sort -t' ' -k2 -n -r "$FS_TMP/short.sym" | grep '^shortlived;' | head -n 5 | sed 's/^/#   /'
# 100 children x 20 ms of CPU at 997 Hz: about 2000 samples.
expect_ge "children sampled" "$total" 500
expect_ge "most child stacks named after exit (x2)" $((chain * 2)) "$total"
check "unload" fs_unload
finish
