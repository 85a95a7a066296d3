#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Under lockdown (what Debian turns on with Secure Boot) and then with
# enforced signatures (module.sig_enforce) the kernel refuses DKMS's module,
# whose key is not enrolled (this guest has no UEFI, so no MOK), or which
# DKMS 2 did not sign: modprobe fails, and flamestat status and record say
# why and what to do. Both
# switches only go one way: this test runs after the ones that load.
# vm: name=deb rootfs="dkms openssl" prepare=tests/deb/prepare.sh bare=1
# timeout: 120
# shellcheck source-path=SCRIPTDIR source=../../guest/lib.sh
. /tests/lib.sh
# shellcheck disable=SC1091 # written by tests/deb/prepare.sh
. /etc/flamestat/deb.env

# (.ko, or compressed by DKMS 3.1 and later: 10-installed checks where)
ko=$(modinfo -F filename flamestat)
LD=/sys/kernel/security/lockdown
grep -q " /sys/kernel/security " /proc/mounts || mount -t securityfs securityfs /sys/kernel/security
# What the refusal is about: DKMS 3's signature by a key the kernel does
# not have, or DKMS 2's unsigned module (tests/deb/prepare.sh says which).
if [ "$FS_DEB_DKMS_SIGNS" = 1 ]; then
	signer='signed by "DKMS module signing key")'
	whose="$ko is signed by \"DKMS module signing key\", a key the kernel does not have"
	todo="mokutil --import /var/lib/dkms/mok.pub"
	rejected="Loading of module with unavailable key is rejected"
else
	signer="not signed)"
	# (the tool names the version 'dkms --version' gives: "2.8" for 2.8.4)
	whose="$ko is not signed: DKMS ${FS_DEB_DKMS_VERSION%%.*}."
	todo="does not sign modules (DKMS 3 does): sign it with the kernel's sign-file and a key you enroll with 'mokutil --import', or give DKMS a sign_tool"
	rejected="Loading of unsigned module is rejected"
fi

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
status_has "signer" "$signer"
status_has "no Secure Boot without UEFI" "secure boot: off (not booted with UEFI)"
status_has "lockdown none" "lockdown:   none"
status_has "not enforced" "signatures: not enforced"
if [ "$FS_DEB_DKMS_SIGNS" = 1 ]; then
	status_has "DKMS's key is not loaded" "signer key: not loaded in the kernel (not enrolled)"
else
	check "status: no signer key line for an unsigned module" sh -c "! grep -q '^signer key:' '$FS_TMP/status'"
fi
status_has "can be loaded" "verdict:    it can be loaded"
log "asymmetric keys the kernel has: $(grep asymmetri /proc/keys | sed 's/.*asymmetri //' | tr '\n' ';')"

# Lockdown first, as Debian sets it under Secure Boot: the module's
# signature does not verify (key not enrolled) or it has none, so EPERM.
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
status_has "lockdown verdict" "verdict:    the kernel will refuse the module: kernel lockdown (integrity) admits only signed modules and $whose"
flamestat record -d 1 -o "$FS_TMP/x.folded" >"$FS_TMP/record" 2>&1
expect_eq "lockdown: record exit 4 (no module)" "$?" 4
sed 's/^/#   /' "$FS_TMP/record"
check "lockdown: record says why" grep -qF \
	"the kernel refused the module: kernel lockdown (integrity) admits only signed modules and $whose" \
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
check "kernel: rejected" sh -c "dmesg | grep -q '$rejected'"
check "not loaded" sh -c '! [ -d /sys/module/flamestat ]'

flamestat status >"$FS_TMP/status" 2>&1
expect_eq "status: exit 4" "$?" 4
sed 's/^/#   /' "$FS_TMP/status"
status_has "enforced" "signatures: enforced"
status_has "verdict" "verdict:    the kernel will refuse the module: module signatures are enforced (module.sig_enforce) and $whose"
status_has "what to do" "$todo"

flamestat record -d 1 -o "$FS_TMP/x.folded" >"$FS_TMP/record" 2>&1
expect_eq "record: exit 4 (no module)" "$?" 4
sed 's/^/#   /' "$FS_TMP/record"
check "record: the kernel refused, and why" grep -qF \
	"the kernel refused the module: module signatures are enforced (module.sig_enforce) and $whose" \
	"$FS_TMP/record"
check "record: what to do" grep -qF "$todo" "$FS_TMP/record"

finish
