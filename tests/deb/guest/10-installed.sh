#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What apt and DKMS installed (tests/deb/prepare.sh, in a chroot): the
# module for the guest kernel at VERSION, signed with DKMS's own key, found
# by modprobe; the tool, its man pages, completion and documentation.
# vm: name=deb rootfs="dkms openssl linux-image-6.12-amd64 linux-headers-6.12-amd64" prepare=tests/deb/prepare.sh bare=1
# timeout: 120
# shellcheck source-path=SCRIPTDIR source=../../guest/lib.sh
. /tests/lib.sh
# shellcheck disable=SC1091 # written by tests/deb/prepare.sh
. /etc/flamestat/deb.env

V=$FS_DEB_VERSION
K=$(uname -r)
check "not loaded at boot" sh -c '! [ -d /sys/module/flamestat ]'
check "dkms: flamestat/$V installed for $K" sh -c \
	"dkms status 2>/dev/null | grep -qx 'flamestat/$V, $K, x86_64: installed'"
f=/lib/modules/$K/updates/dkms/flamestat.ko
expect_eq "vermagic" "$(modinfo -F vermagic "$f" | cut -d' ' -f1)" "$K"
expect_eq "MODULE_VERSION" "$(modinfo -F version "$f")" "$V"
expect_eq "signed by DKMS's key" "$(modinfo -F signer "$f")" "DKMS module signing key"
expect_eq "modprobe finds it" "$(modinfo -F filename flamestat)" "/lib/modules/$K/updates/dkms/flamestat.ko"
check "sources in /usr/src/flamestat-$V" test -f "/usr/src/flamestat-$V/dkms.conf"
expect_eq "DKMS's private key is root's alone" "$(stat -c '%a %U' /var/lib/dkms/mok.key)" "600 root"
check "DKMS's certificate" test -s /var/lib/dkms/mok.pub

ver=$(flamestat --version 2>&1 | head -n 1)
case "$ver" in
"flamestat $V "*) ok "flamestat --version: $ver" ;;
*) not_ok "flamestat --version: got '$ver', want flamestat $V" ;;
esac
for f in /usr/share/man/man1/flamestat.1.gz /usr/share/man/man1/flamestat-record.1.gz \
	/usr/share/man/man4/flamestat.4.gz /usr/share/bash-completion/completions/flamestat \
	/usr/share/doc/flamestat/SECURE-BOOT.md.gz /usr/share/doc/flamestat/copyright; do
	check "$f" test -s "$f"
done
finish
