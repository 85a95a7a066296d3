#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The device ABI with good and bad requests (tests/clients/abi_check.c):
# every invalid ioctl argument gets its errno and changes nothing, unknown
# ioctls get ENOTTY, text commands are all checked before any is applied,
# exclusive control, identical text for any read size and after lseek(0),
# samples == recorded + dropped, unprivileged open refused.
# timeout: 120
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

fs_load
if wl abi_check >"$FS_TMP/abi.out" 2>&1; then
	ok "abi_check: $(grep -c '^ok' "$FS_TMP/abi.out") checks passed"
else
	not_ok "abi_check failed"
	grep -v '^ok' "$FS_TMP/abi.out" | sed 's/^/#   /'
fi
artifact "$FS_TMP/abi.out"
expect_ge "abi_check ran its checks" "$(grep -c '^ok' "$FS_TMP/abi.out")" 120
check "unload" fs_unload
finish
