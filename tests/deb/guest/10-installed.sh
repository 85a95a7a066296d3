#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What apt and DKMS installed (tests/deb/prepare.sh, in a chroot): the
# module for the guest kernel at VERSION, signed with DKMS's own key (DKMS
# 3; DKMS 2, bullseye's, does not sign), found by modprobe; the tool, its
# man pages, completion and documentation.
# vm: name=deb rootfs="dkms openssl" prepare=tests/deb/prepare.sh bare=1
# timeout: 120
# shellcheck source-path=SCRIPTDIR source=../../guest/lib.sh
. /tests/lib.sh
# shellcheck disable=SC1091 # written by tests/deb/prepare.sh
. /etc/flamestat/deb.env

V=$FS_DEB_VERSION
K=$(uname -r)
M=$(uname -m)
check "not loaded at boot" sh -c '! [ -d /sys/module/flamestat ]'
# DKMS 2 says "flamestat, V, KVER, ...", DKMS 3 "flamestat/V, KVER, ...";
# then the machine: x86_64 or aarch64.
check "dkms: flamestat/$V installed for $K ($M)" sh -c \
	"dkms status 2>/dev/null | grep -qxF -e 'flamestat/$V, $K, $M: installed' -e 'flamestat, $V, $K, $M: installed'"
# DKMS 3.1 and later compress it as the kernel's modules are (sid: .ko.xz).
f=$(modinfo -F filename flamestat)
case "$f" in
"/lib/modules/$K/updates/dkms/flamestat.ko" | "/lib/modules/$K/updates/dkms/flamestat.ko."[gxz]*)
	ok "modprobe finds it: $f" ;;
*) not_ok "modprobe finds it: got '$f', want /lib/modules/$K/updates/dkms/flamestat.ko[.gz|.xz|.zst]" ;;
esac
expect_eq "vermagic" "$(modinfo -F vermagic "$f" | cut -d' ' -f1)" "$K"
expect_eq "MODULE_VERSION" "$(modinfo -F version "$f")" "$V"
check "sources in /usr/src/flamestat-$V" test -f "/usr/src/flamestat-$V/dkms.conf"
if [ "$FS_DEB_DKMS_SIGNS" = 1 ]; then
	expect_eq "signed by DKMS's key" "$(modinfo -F signer "$f")" "DKMS module signing key"
	expect_eq "DKMS's private key is root's alone" "$(stat -c '%a %U' /var/lib/dkms/mok.key)" "600 root"
	check "DKMS's certificate" test -s /var/lib/dkms/mok.pub
else
	expect_eq "not signed (DKMS $FS_DEB_DKMS_VERSION does not sign)" "$(modinfo -F signer "$f")" ""
fi

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
