#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Raw kernel addresses only for readers with clearance (tests/clients/
# kaddr_check.c, which drops capabilities with capset and stays uid 0):
# CAP_SYSLOG and kptr_restrict < 2 see them in snapshots; without
# CAP_SYSLOG, or with kptr_restrict=2, kernel frames are KSYM ids with
# symbol names and no address appears in snapshot or text; CAP_PERFMON
# alone may open the device, neither CAP_PERFMON nor CAP_SYS_ADMIN may
# not; the decision is taken at open(2), as for /proc/kallsyms.
# timeout: 120
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

KR=/proc/sys/kernel/kptr_restrict
kr0=$(cat "$KR")

# unwind=fp: the frame-pointer walk follows hostile's chain (the walk
# with unwind tables finds its real frames from the stack pointer).
fs_load unwind=fp
# A process whose frame-pointer chain holds kernel-looking return
# addresses (hostile -m kret) is profiled too: its user frames must not
# put such numbers in the text either.
wl_bg hostile -m kret 2
wl syscalls 2 || not_ok "syscalls exited with status $?"
wl_wait || not_ok "hostile -m kret failed"
check "stop (the same table for every reader)" fs_write stop
fs_read "$FS_TMP/kaddr.folded"
artifact "$FS_TMP/kaddr.folded"
# The process names itself hx-kret; its user frames above user space are
# part of what the hidden readers below must not see as numbers.
# (74-hostile checks how they are shown.)
expect_ge "hostile -m kret sampled, with [invalid] frames" \
	"$(fs_sum "$FS_TMP/kaddr.folded" '^hx-kret;.*\[invalid\]')" 200

# kaddr KPTR_RESTRICT EXPECT [OPTIONS...]
kaddr() {
	_kr=$1 _want=$2
	shift 2
	echo "$_kr" >"$KR" || die "cannot set kptr_restrict"
	if wl kaddr_check "$@" "$_want" >"$FS_TMP/kaddr.out" 2>&1; then
		ok "kptr_restrict=$_kr ${*:-all capabilities}: $_want"
	else
		not_ok "kptr_restrict=$_kr ${*:-all capabilities}: $_want"
		grep -v '^ok' "$FS_TMP/kaddr.out" | sed 's/^/#   /'
	fi
}

kaddr 1 visible
kaddr 0 visible
kaddr 2 hidden
kaddr 1 hidden --drop syslog
kaddr 0 hidden --drop syslog
kaddr 1 hidden --keep perfmon
kaddr 1 hidden --keep sys_admin
kaddr 1 denied --keep syslog
kaddr 1 denied --drop perfmon,sys_admin
# Clearance is checked at open: dropping CAP_SYSLOG afterwards keeps it.
kaddr 1 visible --drop-after-open syslog
echo "$kr0" >"$KR"
check "unload" fs_unload

# A member of the node's group (the udev rule's) without capabilities:
# allowed in, addresses hidden.
fs_load
check "the udev rule" fs_udev_rule
wl syscalls 1 || not_ok "syscalls exited with status $?"
if su -s /bin/sh fsuser -c "/opt/workloads/kaddr_check hidden" >"$FS_TMP/user.out" 2>&1; then
	ok "fsuser (in the node's group): addresses hidden"
else
	not_ok "fsuser (in the node's group): addresses hidden"
	sed 's/^/#   /' "$FS_TMP/user.out"
fi
check "unload" fs_unload
finish
