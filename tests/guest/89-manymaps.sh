#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A process with 10,000 executable mappings (tests/workloads/manymaps): the
# process database records the first 4096 of each scan and counts the scan
# as cut (maps_truncated) rather than losing the rest silently; its own
# code, mapped before them, still resolves; rescans merge in linear time
# (the time a read takes is logged, for comparison, not judged). Snapshots
# carry only the mappings samples fell in, so the 4096 are not counted
# here.
# timeout: 180
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

fs_load
wl_bg manymaps 10000 8
sleep 4
t0=$(now_ms)
check "read while it runs" fs_read "$FS_TMP/many.folded"
log "reading the device took $(($(now_ms) - t0)) ms (a rescan of 4096 mappings merged with 4096)"
wl_wait || not_ok "manymaps failed"
artifact "$FS_TMP/many.folded"
expect_ge "scans cut at the cap are counted" "$(fs_stat maps_truncated)" 1
fs_symbolize <"$FS_TMP/many.folded" >"$FS_TMP/many.sym"
artifact "$FS_TMP/many.sym"
named=$(fs_sum "$FS_TMP/many.sym" '^manymaps;(.*;)?main;manymaps_leaf(;[^;]*_\[k\])*$')
in_main=$(fs_sum "$FS_TMP/many.sym" '^manymaps;(.*;)?main(;.*)?$')
log "manymaps: $named of the $in_main samples under main are main;manymaps_leaf"
expect_ge "manymaps sampled under main" "$in_main" 100
expect_ge "its own code resolves (>= 90% main;manymaps_leaf, x10 vs x9)" $((named * 10)) $((in_main * 9))
check "unload" fs_unload
finish
