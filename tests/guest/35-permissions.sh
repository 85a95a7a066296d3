#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Who may open /dev/flamestat. The module makes the node root:root 0600
# and never changes it, group= included; the udev rule flamestat ships
# (GROUP and MODE read from it, applied as udev would: this guest runs no
# udev) gives it to its group, whose members may then read it and
# control the profiler, others not. Behind the VFS the module checks
# again: the group= gid, or the node's group when the node grants it read
# and write; nobody else (EPERM), whatever the mode.
# timeout: 120
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

# as USER CMD: run CMD (a shell command) as USER, with USER's groups
as() { su -s /bin/sh "$1" -c "$2"; }

# denied USER FILE [WHY]: USER's open of FILE fails with EACCES or EPERM
# (WHY: "vfs" wants EACCES, the mode's answer; "module" wants EPERM).
denied() {
	_out=$(as "$1" "cat $2" 2>&1 >/dev/null)
	case "${3:-any}:$_out" in
	vfs:*"can't open '$2': Permission denied"* | \
	module:*"can't open '$2': Operation not permitted"* | \
	any:*"can't open '$2': Permission denied"* | any:*"can't open '$2': Operation not permitted"*)
		ok "$1 cannot read $2${3:+ (refused by the $3)}" ;;
	*) not_ok "$1 cannot read $2${3:+ (refused by the $3)}: got '$_out'" ;;
	esac
}

# node [%g|%G]: uid:gid (or uid:group name) and mode of the device node
node() { stat -c "%u:${1:-%g} %a" "$FS_DEV"; }

grp=$(fs_rule_key GROUP)
mode=$(fs_rule_key MODE)
log "the rule ($(fs_rule_file)): GROUP=$grp MODE=$mode"
{ [ -n "$grp" ] && [ -n "$mode" ]; } || die "no GROUP and MODE in the udev rule"
gid=$(awk -F: -v g="$grp" '$1 == g {print $3}' /etc/group)
[ -n "$gid" ] || die "no group $grp in /etc/group"
# what stat prints for the rule's mode (0660: 660)
rmode=$(printf '%o' $((mode)))
check "fsuser can run commands" as fsuser true
expect_eq "fsuser's groups (fsgroup and $grp)" "$(as fsuser 'id -G')" "1000 1001 $gid"

# The default: root only, and the rule alone lets the group in.
fs_load
expect_eq "default owner:group mode" "$(node)" "0:0 600"
denied fsuser "$FS_DEV" vfs
check "the udev rule" fs_udev_rule
expect_eq "with the rule: owner:group mode" "$(node %G)" "0:$grp $rmode"
check "fsuser (in $grp) can read" as fsuser "cat $FS_DEV >/dev/null"
check "fsuser (in $grp) can stop and start" as fsuser "echo stop >$FS_DEV && echo start >$FS_DEV"
expect_eq "running again" "$(fs_stat running)" 1
denied nobody "$FS_DEV" vfs
denied fsuser "$FS_STATS"
check "fs_unload" fs_unload

# group=GID loads (existing modprobe.d lines), silently, and leaves the
# node alone: no chown, no chmod. The rule gives it to its group.
fs_load group=1001
expect_eq "group=1001: node unchanged" "$(node)" "0:0 600"
denied fsuser "$FS_DEV" vfs
check "the udev rule" fs_udev_rule
check "fsuser (in $grp) can read" as fsuser "cat $FS_DEV >/dev/null"
check "fsuser (in $grp) can stop and start" as fsuser "echo stop >$FS_DEV && echo start >$FS_DEV"
denied nobody "$FS_DEV" vfs
check "fs_unload" fs_unload

# The module's own check, behind a node opened to all (0666): a group=
# member gets in; a user in no group it knows is refused.
fs_load group=1001
check "chmod 0666" chmod 0666 "$FS_DEV"
check "fsuser (in group=1001) can read" as fsuser "cat $FS_DEV >/dev/null"
denied nobody "$FS_DEV" module
check "fs_unload" fs_unload
fs_load
check "chmod 0666" chmod 0666 "$FS_DEV"
denied fsuser "$FS_DEV" module
# The node's group counts only when the node grants it read and write.
check "chgrp $grp, chmod 0640" sh -c "chgrp $grp $FS_DEV && chmod 0640 $FS_DEV"
denied fsuser "$FS_DEV" module
check "fs_unload" fs_unload

# A negative group= means no group: the node stays root-only, and even
# opened to all the module lets no one in.
fs_load group=-5
expect_eq "group=-5: stays root-only" "$(node)" "0:0 600"
check "chmod 0666" chmod 0666 "$FS_DEV"
denied fsuser "$FS_DEV" module
check "fs_unload" fs_unload
finish
