#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A CLEAR snapshot that fails for want of readers' memory (reader_kb) after
# the module took the session's samples gives them back: the stats still
# count every sample, stack and nanosecond, and the next CLEAR snapshot
# holds them all (tests/clients/clearfail.c walks the readers' room up a
# snapshot at a time, so one attempt fails exactly there). Nothing is
# left held by readers after.
# timeout: 180
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

fs_load reader_kb=512
check "chain runs" wl chain 2
check "stop" fs_write stop
log "table: $(fs_stat stacks) stacks, $(fs_stat recorded) samples"
out=$("$FS_WL/clearfail" 2>&1)
rc=$?
echo "$out" | sed 's/^/#   /'
expect_eq "clearfail's exit status (1: samples lost)" "$rc" 0
refused=$(echo "$out" | sed -n 's/^refused=\([0-9]*\)$/\1/p')
expect_ge "CLEAR snapshots refused along the way" "${refused:-0}" 1
expect_eq "stacks after the CLEAR that succeeded" "$(fs_stat stacks)" 0
expect_eq "reader_mem at the end" "$(fs_stat reader_mem)" 0
check "unload" fs_unload
finish
