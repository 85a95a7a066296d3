#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Under lockdown (what Debian turns on with Secure Boot) and then with
# enforced signatures (module.sig_enforce) the kernel refuses DKMS's module,
# whose key is not enrolled (this guest has no UEFI, so no MOK): modprobe
# fails, and flamestat status and record say why and what to do. Both
# switches only go one way: this test runs after the ones that load.
# vm: name=deb rootfs="dkms openssl linux-image-6.12-amd64 linux-headers-6.12-amd64" prepare=tests/deb/prepare.sh bare=1
# timeout: 120
# shellcheck source-path=SCRIPTDIR source=../../guest/lib.sh
. /tests/lib.sh

K=$(uname -r)
ko=/lib/modules/$K/updates/dkms/flamestat.ko
LD=/sys/kernel/security/lockdown
grep -q " /sys/kernel/security " /proc/mounts || mount -t securityfs securityfs /sys/kernel/security

# status_has WHAT TEXT: flamestat status (module not loaded) prints TEXT.
status_has() {
	if grep -qF -- "$2" "$FS_TMP/status"; then
		ok "status: $1"
	else
		not_ok "status: $1: no '$2' in:"
		sed 's/^/#   /' "$FS_TMP/status"
	fi
}

flamestat status >"$FS_TMP/status" 2>&1
expect_eq "status without the module: exit 4" "$?" 4
sed 's/^/#   /' "$FS_TMP/status"
status_has "installed module and signer" "installed:  $ko (version"
status_has "signer" 'signed by "DKMS module signing key")'
status_has "no Secure Boot without UEFI" "secure boot: off (not booted with UEFI)"
status_has "lockdown none" "lockdown:   none"
status_has "not enforced" "signatures: not enforced"
status_has "DKMS's key is not loaded" "signer key: not loaded in the kernel (not enrolled)"
status_has "can be loaded" "verdict:    it can be loaded"
log "asymmetric keys the kernel has: $(grep asymmetri /proc/keys | sed 's/.*asymmetri //' | tr '\n' ';')"

# Lockdown first, as Debian sets it under Secure Boot: the module's
# signature does not verify (key not enrolled), so EPERM.
check "lockdown=integrity" sh -c "echo integrity >$LD"
out=$(modprobe flamestat 2>&1)
expect_eq "lockdown: modprobe refused" "$?" 1
log "modprobe: $out"
case "$out" in
*"Operation not permitted"*) ok "lockdown: EPERM" ;;
*) not_ok "lockdown: EPERM: got '$out'" ;;
esac
check "kernel: lockdown restricts it" sh -c 'dmesg | grep -q "Lockdown: modprobe: unsigned module loading is restricted"'
check "not loaded" sh -c '! [ -d /sys/module/flamestat ]'
flamestat status >"$FS_TMP/status" 2>&1
expect_eq "lockdown: status exit 4" "$?" 4
sed 's/^/#   /' "$FS_TMP/status"
status_has "lockdown integrity" "lockdown:   integrity (only signed modules load)"
status_has "checked because of lockdown" "signatures: checked because of lockdown"
status_has "lockdown verdict" "verdict:    the kernel will refuse the module: kernel lockdown (integrity) admits only signed modules and $ko is signed by \"DKMS module signing key\", a key the kernel does not have"
flamestat record -d 1 -o "$FS_TMP/x.folded" >"$FS_TMP/record" 2>&1
expect_eq "lockdown: record exit 4 (no module)" "$?" 4
sed 's/^/#   /' "$FS_TMP/record"
check "lockdown: record says why" grep -qF \
	"the kernel refused the module: kernel lockdown (integrity) admits only signed modules and $ko is signed by \"DKMS module signing key\"" \
	"$FS_TMP/record"

# Then enforced signatures (module.sig_enforce): EKEYREJECTED.
check "enforce module signatures" sh -c 'echo 1 >/sys/module/module/parameters/sig_enforce'
out=$(modprobe flamestat 2>&1)
expect_eq "modprobe refused" "$?" 1
log "modprobe: $out"
case "$out" in
*"Key was rejected by service"*) ok "EKEYREJECTED" ;;
*) not_ok "EKEYREJECTED: got '$out'" ;;
esac
check "kernel: rejected" sh -c 'dmesg | grep -q "Loading of module with unavailable key is rejected"'
check "not loaded" sh -c '! [ -d /sys/module/flamestat ]'

flamestat status >"$FS_TMP/status" 2>&1
expect_eq "status: exit 4" "$?" 4
sed 's/^/#   /' "$FS_TMP/status"
status_has "enforced" "signatures: enforced"
status_has "verdict" "verdict:    the kernel will refuse the module: module signatures are enforced (module.sig_enforce) and $ko is signed by \"DKMS module signing key\", a key the kernel does not have: enroll it (DKMS's: 'mokutil --import /var/lib/dkms/mok.pub'"

flamestat record -d 1 -o "$FS_TMP/x.folded" >"$FS_TMP/record" 2>&1
expect_eq "record: exit 4 (no module)" "$?" 4
sed 's/^/#   /' "$FS_TMP/record"
check "record: the kernel refused, and why" grep -qF \
	"the kernel refused the module: module signatures are enforced (module.sig_enforce) and $ko is signed by \"DKMS module signing key\", a key the kernel does not have" \
	"$FS_TMP/record"
check "record: what to do" grep -qF "mokutil --import /var/lib/dkms/mok.pub" "$FS_TMP/record"

finish
