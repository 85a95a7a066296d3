#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The demo's guest side: `flamestat record` (which loads the module) of the
# chain, shared-library and syscalls workloads, saved as named folded stacks
# with the recording's totals in a header, a report and the raw recording;
# then the same workloads read the insmod-and-cat way.
# timeout: 150
# shellcheck source-path=SCRIPTDIR source=../guest/lib.sh
. /tests/lib.sh

SECS=${FS_DEMO_SECS:-5}
log "flamestat record of chain, libwork and syscalls for ${SECS}s"
flamestat record -q --header --raw "$FS_TMP/demo.fstat" -o "$FS_TMP/named.folded" \
	-- sh -c "$FS_WL/chain $SECS & $FS_WL/libwork $SECS & $FS_WL/syscalls $SECS; wait" ||
	die "flamestat record failed (status $?)"
[ -s "$FS_TMP/named.folded" ] || die "no stacks recorded"
flamestat report --limit 15 "$FS_TMP/demo.fstat" >"$FS_TMP/report.txt" || die "flamestat report failed"
flamestat status | sed 's/^/# /'
sed 's/^/# /' "$FS_TMP/report.txt"
artifact "$FS_TMP/named.folded"
artifact "$FS_TMP/report.txt"
artifact "$FS_TMP/demo.fstat"
fs_loaded && { rmmod flamestat || die "rmmod failed"; }

# Without the tool: insmod, cat.
# shellcheck disable=SC2119 # fs_load takes optional module parameters
fs_load
wl_bg chain 2
wl_bg syscalls 2
wl_wait || die "a workload failed"
fs_write stop || die "stop: $FS_WRITE_ERR"
fs_read "$FS_TMP/raw.folded" || die "cat $FS_DEV failed"
[ -s "$FS_TMP/raw.folded" ] || die "cat $FS_DEV gave no stacks"
artifact "$FS_TMP/raw.folded"
fs_unload || die "rmmod failed"
log "$(grep -vc '^#' "$FS_TMP/named.folded") stacks recorded; cat gave $(wc -l <"$FS_TMP/raw.folded")"
finish
