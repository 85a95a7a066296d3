#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Kernel lockdown (confidentiality), raised at run time: kernel frames are
# withheld ("[withheld]_[k]", time in the kernel still marked as such), user
# frames still resolve, and the stats say lockdown 1. Own boot: lockdown cannot be lowered again, and
# lockdown=confidentiality on the command line refuses the unsigned module.
# vm: name=lockdown
# timeout: 120
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

LD=/sys/kernel/security/lockdown
grep -q " /sys/kernel/security " /proc/mounts || mount -t securityfs securityfs /sys/kernel/security
[ -f "$LD" ] || die "no $LD (kernel without the lockdown LSM)"
expect_eq "lockdown before" "$(sed 's/.*\[\(.*\)\].*/\1/' "$LD")" none

fs_load
wl syscalls 1 || not_ok "syscalls exited with status $?"
fs_read "$FS_TMP/before.folded"
expect_ge "before lockdown: kernel frames named" \
	"$(fs_sum "$FS_TMP/before.folded" '^syscalls;.*;vfs_read_\[k\]')" 100
expect_eq "stats: lockdown 0" "$(fs_stat lockdown)" 0

# withheld PHASE: kernel time is marked, never named, in the last read.
withheld() {
	fs_symbolize <"$FS_TMP/$1.folded" >"$FS_TMP/$1.sym"
	artifact "$FS_TMP/$1.folded"
	sort -t' ' -k2 -n -r "$FS_TMP/$1.sym" | head -n 4 | sed 's/^/#   /'
	expect_eq "$1: no kernel frame but [withheld]_[k]" "$(awk '{s = $0
		gsub(/\[withheld\]_\[k\]/, "", s)} s ~ /_\[k\]/ {n += $NF} END {print n + 0}' \
		"$FS_TMP/$1.folded")" 0
	expect_eq "$1: no kernel address in the text" \
		"$(fs_sum "$FS_TMP/$1.folded" 'ffffffff[0-9a-f]{8}')" 0
	# syscalls spends its time in read(2): that time must stay marked as
	# kernel time, not be folded into the user leaf raw_read.
	expect_ge "$1: main;syscall_loop;raw_read;[withheld]_[k] (x2 > all syscalls)" \
		"$(($(fs_sum "$FS_TMP/$1.sym" '^syscalls;(.*;)?main;syscall_loop;raw_read;\[withheld\]_\[k\]$') * 2))" \
		"$(fs_sum "$FS_TMP/$1.sym" '^syscalls;')"
}

# 1: lockdown raised while sampling
check "reset" fs_write reset
echo confidentiality >"$LD" || die "cannot raise lockdown"
expect_eq "lockdown raised" "$(sed 's/.*\[\(.*\)\].*/\1/' "$LD")" confidentiality
wl syscalls 2 || not_ok "syscalls exited with status $?"
check "stop" fs_write stop
expect_eq "stats: lockdown 1" "$(fs_stat lockdown)" 1
fs_read "$FS_TMP/raised.folded"
withheld raised

# 2: sampling restarted under lockdown
check "reset, start" fs_write "reset
start"
wl syscalls 2 || not_ok "syscalls exited with status $?"
check "stop" fs_write stop
fs_read "$FS_TMP/restarted.folded"
withheld restarted
check "unload" fs_unload
finish
