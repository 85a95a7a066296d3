#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lockdown=confidentiality on the kernel command line. An unsigned module
# (the stock Debian kernel with our build) must be refused (EPERM). A
# module signed with the kernel's key (the debug kernel: tests/debug-kernel
# signs it) loads, and then withholds every kernel frame from the start:
# text shows only [withheld]_[k], snapshots carry LOCKDOWN and
# KADDR_HIDDEN with at most one (opaque) kernel frame per stack, and a
# kernel-only configuration (user_stacks=0) loads stopped and refuses to
# start (EPERM).
# vm: name=lockdown-boot append="lockdown=confidentiality"
# timeout: 120
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

LD=/sys/kernel/security/lockdown
grep -q " /sys/kernel/security " /proc/mounts || mount -t securityfs securityfs /sys/kernel/security
[ -f "$LD" ] || die "no $LD (kernel without the lockdown LSM)"
expect_eq "booted locked down" "$(sed 's/.*\[\(.*\)\].*/\1/' "$LD")" confidentiality

if [ "$(tail -c 28 "$FS_KO")" != "~Module signature appended~" ]; then
	# busybox insmod prints the errno text.
	out=$(insmod "$FS_KO" 2>&1)
	rc=$?
	log "unsigned module: $out"
	expect_eq "unsigned module refused" "$rc" 1
	case "$out" in
	*"not permitted"*) ok "refused with EPERM" ;;
	*) not_ok "refused with EPERM: got '$out'" ;;
	esac
	check "not loaded" sh -c '! [ -d /sys/module/flamestat ]'
	finish
fi

log "signed module: must load and withhold kernel stacks"
fs_load
expect_eq "stats: lockdown 1" "$(fs_stat lockdown)" 1
expect_eq "sampling" "$(fs_stat running)" 1
wl syscalls 2 || not_ok "syscalls exited with status $?"
fs_read "$FS_TMP/locked.folded"
artifact "$FS_TMP/locked.folded"
expect_ge "samples recorded" "$(fs_sum "$FS_TMP/locked.folded")" 100
expect_eq "no kernel frame but [withheld]_[k]" "$(awk '{s = $0
	gsub(/\[withheld\]_\[k\]/, "", s)} s ~ /_\[k\]/ {n += $NF} END {print n + 0}' \
	"$FS_TMP/locked.folded")" 0
expect_ge "kernel time still marked [withheld]_[k]" \
	"$(fs_sum "$FS_TMP/locked.folded" '^syscalls;.*\[withheld\]_\[k\]$')" 50
expect_eq "no kernel address in the text" \
	"$(fs_sum "$FS_TMP/locked.folded" 'ffffffff[0-9a-f]{8}')" 0
if /opt/workloads/snapdump >"$FS_TMP/locked.dump"; then
	ok "snapshot valid (at most one kernel frame per stack under lockdown)"
else
	not_ok "snapshot valid: $(head -n 1 "$FS_TMP/locked.dump")"
fi
expect_eq "snapshot flags LOCKDOWN|KADDR_HIDDEN" \
	"$(awk '$1 == "header" {print $2}' "$FS_TMP/locked.dump")" "flags=0x3"
expect_eq "only the withheld KSYM" \
	"$(awk '$1 == "ksym" {print $2, $3}' "$FS_TMP/locked.dump" | sort -u | tr '\n' ' ')" \
	"value=0x1 name=[withheld] "
check "root with all capabilities: addresses hidden" wl kaddr_check hidden

# Kernel-only sampling is refused under lockdown.
check "stop, reset, freq=499 allowed" fs_write "stop
reset
freq=499"
check "unload" fs_unload
if insmod "$FS_KO" user_stacks=0 2>/dev/null; then
	expect_eq "user_stacks=0: loads but does not start" "$(fs_stat running)" 0
	check_not "start refused" fs_write start
	expect_eq "start refused with EPERM" "$FS_WRITE_ERR" "Operation not permitted"
	check "unload" fs_unload
else
	not_ok "insmod user_stacks=0 (should load stopped)"
fi
finish
