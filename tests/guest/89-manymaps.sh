#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A process with 10,000 executable mappings (tests/workloads/manymaps): the
# process database records the first 4096 of each scan and counts the scan
# as cut (maps_truncated) rather than losing the rest silently; its own
# code, mapped before them, still resolves; rescans merge in linear time
# (the time a read takes is logged, for comparison, not judged). Snapshots
# carry only the mappings samples fell in, so the 4096 are not counted
# here.
# Then file records: with max_procs=128 the module keeps 1024. A process
# that maps 1100 distinct files takes them all while it lives (the scan
# that finds no record left is counted, maps_truncated); once it exited,
# a new program whose file found no record gets one at its next rescan
# (the exited process's records are reclaimed on demand, as when maps_kb
# runs out) and is named.
# timeout: 240
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

# mapped FILE: wait (up to 120 s) until manymaps says it has mapped all,
# which takes a debug kernel (kmemleak, KASAN) most of a minute.
# shellcheck disable=SC2317 # called through check
mapped() {
	_i=0
	until grep -q '^mapped' "$1" 2>/dev/null || [ "$_i" -ge 1200 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	grep -q '^mapped' "$1"
}

fs_load
wl_bg manymaps 10000 6 >"$FS_TMP/many.out"
check "manymaps mapped its 10,000 regions" mapped "$FS_TMP/many.out"
sleep 2
t0=$(now_ms)
check "read while it runs" fs_read "$FS_TMP/many.folded"
log "reading the device took $(($(now_ms) - t0)) ms (a rescan of 4096 mappings merged with 4096)"
wl_wait || not_ok "manymaps failed"
artifact "$FS_TMP/many.folded"
expect_ge "scans cut at the cap are counted" "$(fs_stat maps_truncated)" 1
fs_symbolize <"$FS_TMP/many.folded" >"$FS_TMP/many.sym"
artifact "$FS_TMP/many.sym"
# Samples under main in libc are its mmap(2) calls setting up the regions:
# libc's unwind table walks them up to main. The rest are in its own code.
named=$(fs_sum "$FS_TMP/many.sym" '^manymaps;(.*;)?main;manymaps_leaf(;[^;]*_\[k\])*$')
in_main=$(fs_sum "$FS_TMP/many.sym" '^manymaps;(.*;)?main(;.*)?$')
in_libc=$(fs_sum "$FS_TMP/many.sym" '^manymaps;(.*;)?main;libc[.-][^;]*(;.*)?$')
own=$((in_main - in_libc))
log "manymaps: $named of the $own samples in its own code under main are main;manymaps_leaf ($in_libc more in libc, mapping)"
expect_ge "manymaps sampled in its own code under main" "$own" 100
expect_ge "its own code resolves (>= 90% main;manymaps_leaf, x10 vs x9)" $((named * 10)) $((own * 9))
check "unload" fs_unload

fs_load max_procs=128
wl_bg manymaps -f /tmp 1100 4 >"$FS_TMP/files.out"
check "manymaps -f mapped its 1100 files" mapped "$FS_TMP/files.out"
sleep 1
check "read while 1100 files are mapped" fs_read "$FS_TMP/files.folded"
wl_wait || not_ok "manymaps -f failed"
log "1100 files: maps_truncated $(fs_stat maps_truncated), procs $(fs_stat procs)"
expect_ge "a scan that found no file record left is counted" "$(fs_stat maps_truncated)" 1
chain_named "after the 1100 files (records came back)"
log "procs_recycled $(fs_stat procs_recycled)"
check "unload" fs_unload
finish
