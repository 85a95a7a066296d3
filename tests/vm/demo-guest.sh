#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The demo's guest side: profile the chain and syscalls workloads with the
# module and save the folded stacks (raw, and with the workloads' frames
# named) as artifacts.
# timeout: 120
# shellcheck source-path=SCRIPTDIR source=../guest/lib.sh
. /tests/lib.sh

SECS=${FS_DEMO_SECS:-5}
# shellcheck disable=SC2119 # no module parameters
fs_load
log "profiling chain and syscalls for ${SECS}s"
wl_bg chain "$SECS"
wl_bg syscalls "$SECS"
wl_wait || die "a workload failed"
fs_write stop || die "stop: $FS_WRITE_ERR"
fs_read "$FS_TMP/raw.folded" || die "cat $FS_DEV failed"
fs_symbolize <"$FS_TMP/raw.folded" >"$FS_TMP/named.folded"
sed 's/^/# stats: /' "$FS_STATS"
[ -s "$FS_TMP/raw.folded" ] || die "no stacks recorded"
artifact "$FS_TMP/raw.folded"
artifact "$FS_TMP/named.folded"
fs_unload || die "rmmod failed"
log "$(wc -l <"$FS_TMP/raw.folded") stacks, $(fs_sum "$FS_TMP/raw.folded") samples"
finish
