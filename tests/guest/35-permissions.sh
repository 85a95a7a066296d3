#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Who may open /dev/flamestat: root only by default (0600); with group=GID
# the node is root:GID 0660 and members of GID may read it, others not.
# timeout: 120
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

# as USER CMD: run CMD (a shell command) as USER, with USER's groups
as() { su -s /bin/sh "$1" -c "$2"; }

# denied USER FILE: USER's open of FILE fails with EACCES or EPERM.
denied() {
	_out=$(as "$1" "cat $2" 2>&1 >/dev/null)
	case "$_out" in
	*"can't open '$2': Permission denied"* | *"can't open '$2': Operation not permitted"*)
		ok "$1 cannot read $2" ;;
	*) not_ok "$1 cannot read $2: got '$_out'" ;;
	esac
}

check "fsuser can run commands" as fsuser true
expect_eq "fsuser's groups" "$(as fsuser 'id -G')" "1000 1001"

fs_load
expect_eq "default owner:group mode" "$(stat -c '%u:%g %a' "$FS_DEV")" "0:0 600"
denied fsuser "$FS_DEV"
check "fs_unload" fs_unload

fs_load group=1001
expect_eq "group=1001 owner:group mode" "$(stat -c '%u:%g %a' "$FS_DEV")" "0:1001 660"
check "fsuser (in fsgroup) can read" as fsuser "cat $FS_DEV >/dev/null"
check "fsuser (in fsgroup) can stop and start" as fsuser "echo stop >$FS_DEV && echo start >$FS_DEV"
denied nobody "$FS_DEV"
denied fsuser "$FS_STATS"
check "fs_unload" fs_unload

# A negative group= means no group: the device stays root-only.
fs_load group=-5
expect_eq "group=-5: stays root-only" "$(stat -c '%u:%g %a' "$FS_DEV")" "0:0 600"
check "fs_unload" fs_unload
finish
