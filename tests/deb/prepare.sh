#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host side of `make check-deb`, run by rootfs.sh on a copy of the guest's
# tree, which has a second kernel (image and headers) besides the guest's:
#   1. apt installs the two packages in a chroot; DKMS builds and installs
#      the module there for both kernels;
#   2. the kernel hook a kernel upgrade runs (/etc/kernel/postinst.d/dkms)
#      builds it again for the second kernel after it was removed there;
#   3. purging the second kernel (its prerm hook) takes the module out of it,
#      so the guest has the guest kernel only, as a machine after an upgrade
#      and a clean-up would.
#
#   FLAMESTAT_DEBS=DIR tests/deb/prepare.sh ROOT
#     DIR holds flamestat_VERSION_ARCH.deb (ARCH: the tree's, amd64 or
#     arm64) and flamestat-dkms_VERSION_all.deb.
#   FLAMESTAT_DEB_ONE_KERNEL=1: the tree has the guest's kernel alone, and
#     steps 2 and 3 are left out (tests/deb/run.sh --arch arm64: each DKMS
#     build there runs under qemu-user emulation and takes minutes).
#
# Writes /etc/flamestat/deb.env in ROOT for the guest tests (tests/deb/guest).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
root=${1:?usage: prepare.sh ROOT}
debs=${FLAMESTAT_DEBS:?FLAMESTAT_DEBS: the directory of the .debs}
kver=${FLAMESTAT_ROOTFS_KVER:?FLAMESTAT_ROOTFS_KVER: the guest kernel}
version=$(cat "$TOP/VERSION")
in_root() { "$TOP/tests/vm/rootfs.sh" chroot "$root" "$@"; }
# The tree's architecture, and the machine DKMS names in its status.
arch=$(in_root dpkg --print-architecture) || { echo "prepare: no dpkg in $root" >&2; exit 1; }
case $arch in
arm64) machine=aarch64 ;;
*) machine=x86_64 ;;
esac
one_kernel=${FLAMESTAT_DEB_ONE_KERNEL:-0}
step() { echo "== [${SECONDS}s] $*"; }
die() { echo "prepare: $*" >&2; exit 1; }
# dkms_has KVER: DKMS reports flamestat VERSION installed for KVER
# ("flamestat/V, KVER, x86_64: installed", aarch64 on arm64; DKMS 2:
# "flamestat, V, ...").
dkms_has() {
	local status
	status=$(in_root dkms status 2>/dev/null)
	echo "$status"
	grep -qxF -e "flamestat/$version, $1, $machine: installed" \
		-e "flamestat, $version, $1, $machine: installed" <<<"$status"
}

other=$(find "$root/lib/modules" -mindepth 1 -maxdepth 1 -printf '%f\n' | grep -vx "$kver" | sort -V | tail -n 1)
# (build is an absolute link on older suites: look from inside)
if [ "$one_kernel" = 1 ]; then
	[ -z "$other" ] || die "FLAMESTAT_DEB_ONE_KERNEL=1, but the tree also has $other"
elif [ -z "$other" ] || ! in_root test -f "/lib/modules/$other/build/Makefile"; then
	die "the tree has no second kernel with headers besides $kver (see the vm line)"
fi
mkdir -p "$root/var/tmp/debs"
cp "$debs/flamestat_${version}_$arch.deb" "$debs/flamestat-dkms_${version}_all.deb" \
	"$root/var/tmp/debs/" || die "no packages of version $version in $debs"
step "apt-get install ./flamestat_${version}_$arch.deb ./flamestat-dkms_${version}_all.deb"
in_root apt-get install -y "/var/tmp/debs/flamestat_${version}_$arch.deb" \
	"/var/tmp/debs/flamestat-dkms_${version}_all.deb" || die "apt-get install failed"
rm -rf "$root/var/tmp/debs"
for k in "$kver" $other; do
	step "dkms status: installed for $k?"
	dkms_has "$k" || die "installing flamestat-dkms did not make DKMS install flamestat $version for $k"
done

if [ "$one_kernel" = 1 ]; then
	step "one kernel (FLAMESTAT_DEB_ONE_KERNEL=1): no kernel upgrade or removal"
else
	# Its packages are named after it: linux-image-, linux-headers- (and on
	# merged-/usr suites linux-binary-) RELEASE, with the flavour's
	# metapackages that depend on them: purged with them, or apt would rather
	# upgrade a metapackage (to a version the mirror may lack) than remove it.
	# shellcheck disable=SC2016 # dpkg-query's own ${Package} and ${Depends}
	other_pkgs=$(in_root dpkg-query -W -f='${Package}\t${Depends}\n' | awk -F '\t' -v s="-$other" '
		function mine(p) { return p ~ /^linux-[a-z]+-/ && substr(p, length(p) - length(s) + 1) == s }
		{ n = split($2, d, /[,|] */); meta = 0
		  for (i = 1; i <= n; i++) { sub(/ .*/, "", d[i]); if (mine(d[i])) meta = 1 } }
		mine($1) || (meta && $1 ~ /^linux-(image|headers)-[a-z]/) { print $1 }' | tr '\n' ' ')
	other_img=/boot/vmlinuz-$other
	[ -e "$root$other_img" ] || other_img=/usr/lib/modules/$other/vmlinuz

	step "kernel upgrade: dkms remove -k $other, then /etc/kernel/postinst.d/dkms $other"
	in_root dkms remove "flamestat/$version" -k "$other" || die "dkms remove -k $other failed"
	dkms_has "$other" && die "dkms remove -k $other left the module installed"
	in_root /etc/kernel/postinst.d/dkms "$other" "$other_img" ||
		die "the kernel's dkms hook failed for $other"
	dkms_has "$other" || die "the kernel's dkms hook did not install flamestat $version for $other"

	step "kernel removal: apt-get purge $other_pkgs"
	# shellcheck disable=SC2086 # a list of packages
	in_root apt-get purge -y $other_pkgs || die "purging the $other kernel failed"
	dkms_has "$kver" || die "purging $other took the module from $kver too"
	in_root dkms status 2>/dev/null | grep -q ", $other," && die "purging $other left DKMS's build for it"
	find "$root/lib/modules/$other" -name 'flamestat.ko*' 2>/dev/null | grep -q . &&
		die "purging $other left flamestat.ko in /lib/modules/$other"
fi

# What the guest tests expect of DKMS: from version 3 it signs what it
# builds (openssl is installed), before that it does not.
# shellcheck disable=SC2016 # dpkg-query's own ${Version}
dkms_version=$(in_root dpkg-query -W -f='${Version}' dkms)
dkms_signs=0
[ "${dkms_version%%.*}" -ge 3 ] 2>/dev/null && dkms_signs=1
mkdir -p "$root/etc/flamestat"
printf 'FS_DEB_VERSION=%s\nFS_DEB_DKMS_VERSION=%s\nFS_DEB_DKMS_SIGNS=%s\n' \
	"$version" "$dkms_version" "$dkms_signs" >"$root/etc/flamestat/deb.env"
step "done"
