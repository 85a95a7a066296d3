#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What arm64 guests need (make check-arm64, tests/arm64/run.sh), installed
# by the project itself, as root: qemu-system-aarch64 on the host, and in
# $FLAMESTAT_CACHE/arm64/SUITE/ a cross-build chroot: a debootstrap'd
# amd64 tree of SUITE with arm64 added as a foreign architecture
# (multiarch), holding the aarch64 cross compiler, the armhf one (the
# AArch32 test programs, static), the arm64 -dev packages
# the tool and the workloads link against, and the headers of SUITE's
# arm64 kernel with the amd64 linux-kbuild of the same version (the arm64
# one ships arm64 programs in scripts/). Beside it, the kernel image and
# its modules (images/KREL) and busybox-static for arm64 (SUITE/busybox).
# The guests' user space (the tool, the workloads, busybox and their
# libraries) is bookworm's whatever the kernel, as the x86 guests' is the
# host's for every kernel of tests/kernels: --suite sid makes the bookworm
# setup too, and its chroot has only the cross compiler and the kernel's
# headers (sid's gcc-16 for sid's kernel).
#
#   tests/arm64/setup.sh [--suite SUITE] [--refresh]
#     --suite    bookworm (default: 6.1, the release linux-image-arm64
#                depends on) or sid (the newest arm64 kernel)
#     --refresh  apt-get update in the chroot and take the newest headers,
#                image and packages again (otherwise a complete setup is
#                reused as it is)
#
# Prints the path of SUITE/env, the variables the harness reads
# (tests/vm/lib.sh with FLAMESTAT_ARCH=arm64): ARM64_SUITE, ARM64_TREE
# (bookworm's chroot: the tool and the workloads are built there and the
# guest's libraries come from it), ARM64_KTREE (SUITE's chroot, where the
# module is built), ARM64_KREL, ARM64_KERNEL, ARM64_MODULES, ARM64_BUSYBOX,
# ARM64_CROSS (the compiler prefix) and ARM64_KCC (the compiler the kernel
# was built with).
#
# Why a chroot and not the cross compiler on the host: Debian's
# gcc-12-aarch64-linux-gnu conflicts with gcc-multilib, which the i386
# test programs need (installing it removes gcc-multilib, and hostile32
# then fails on asm/types.h). Nothing here runs arm64 code on the host:
# no qemu-user, no binfmt_misc.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
export TOP
: "${FLAMESTAT_CACHE:=/var/tmp/flamestat-cache}"
export FLAMESTAT_CACHE
ARM64_CACHE=$FLAMESTAT_CACHE/arm64
suite=bookworm refresh=0 refresh_arg=()
while [ $# -gt 0 ]; do
	case $1 in
	--suite) suite=$2; shift ;;
	--refresh) refresh=1 refresh_arg=(--refresh) ;;
	-h | --help) sed -n '3,37p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "tests/arm64/setup.sh: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done
case $suite in
bookworm | sid) ;;
*) echo "tests/arm64/setup.sh: --suite bookworm or sid" >&2; exit 2 ;;
esac
say() { echo "arm64-setup: $*" >&2; }
die() { say "$*"; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (apt-get, debootstrap, chroot)"
[ "$(dpkg --print-architecture)" = amd64 ] || die "the host must be amd64 (the chroot is)"

# The host: qemu-system-aarch64 and what the harness uses anyway.
"$TOP/scripts/install-deps.sh" --only "$TOP/tests/arm64/deps.list" >&2 ||
	die "cannot install the host packages (scripts/install-deps.sh --only tests/arm64/deps.list)"

# The user space's setup first (under its own lock).
USER_SUITE=bookworm
if [ "$suite" != $USER_SUITE ]; then
	user_env=$("$0" --suite $USER_SUITE "${refresh_arg[@]}") || die "the $USER_SUITE setup failed"
fi

# shellcheck source-path=SCRIPTDIR source=../lib/suite-chroot.sh
. "$TOP/tests/lib/suite-chroot.sh"
# shellcheck source-path=SCRIPTDIR source=../vm/lib.sh
. "$TOP/tests/vm/lib.sh"
# The chroot's downloads: a cache of their own (in_tree's apt).
SUITE_DEBS=$ARM64_CACHE/debs
dir=$ARM64_CACHE/$suite
tree=$dir/tree
log=$dir/setup.log
mkdir -p "$dir" "$SUITE_DEBS/partial"
# One setup or build (tests/arm64/build.sh) in the chroot at a time.
exec {lock_fd}>"$ARM64_CACHE/$suite.lock"
flock "$lock_fd"

# The arm64 -dev packages: what user/Makefile's LDLIBS name (libdw, libelf,
# liblzma, libiberty, zlib, libprotobuf-c), the debuginfod header, libfuse3
# (the workload fsfuse), and glibc's debug files for the guests' tools.
ARM64_PKGS="libc6-dev libelf-dev libdw-dev liblzma-dev libiberty-dev zlib1g-dev
	libprotobuf-c-dev libdebuginfod-dev libfuse3-dev libc6-dbg"
# The native (amd64) side: the cross compilers (AArch64, and armhf for
# the AArch32 programs hostile32 and devfuzz32, static with its libc.a),
# protoc-c, pkg-config.
# (One line: it goes into a shell command line as it is.)
NATIVE_PKGS="gcc-aarch64-linux-gnu gcc-arm-linux-gnueabihf libc6-dev-armhf-cross protobuf-c-compiler pkg-config"
# A kernel's chroot (not the user space's): the cross compiler alone.
[ "$suite" = $USER_SUITE ] || ARM64_PKGS="" NATIVE_PKGS=gcc-aarch64-linux-gnu
# What packages.complete records: a setup made with another list is
# brought up to date (as by --refresh).
want_pkgs="$NATIVE_PKGS $ARM64_PKGS"

if [ ! -f "$dir/tree.complete" ]; then
	mirror=$("$TOP/scripts/apt-archive.sh" main) || die "no Debian archive in the host's apt sources"
	say "building the $suite cross-build chroot in $tree (log: $log)"
	rm -rf "$tree" "$dir/packages.complete"
	: >"$log"
	# perl: W=1 runs the kernel's kernel-doc (a Perl script before 6.13).
	debootstrap --variant=minbase --include=make,gcc,libc6-dev,kmod,perl,xz-utils \
		--cache-dir="$SUITE_DEBS" "$suite" "$tree" "$mirror" >>"$log" 2>&1 ||
		{ tail -n 5 "$log" >&2; die "debootstrap of $suite failed (log: $log)"; }
	"$TOP/scripts/apt-archive.sh" sources "$suite" >"$tree/etc/apt/sources.list" ||
		die "no sources.list for $suite"
	in_tree "$tree" dpkg --add-architecture arm64 || die "dpkg --add-architecture arm64 failed"
	touch "$dir/tree.complete"
fi

if [ $refresh = 1 ] || [ "$(cat "$dir/packages.complete" 2>/dev/null)" != "$want_pkgs" ]; then
	rm -f "$dir/packages.complete"
	say "installing the cross compiler, the arm64 libraries and the kernel headers (log: $log)"
	arm64=()
	for p in $ARM64_PKGS; do
		arm64+=("$p:arm64")
	done
	# shellcheck disable=SC2086 # package lists
	in_tree "$tree" sh -ec "apt-get -o DPkg::Lock::Timeout=600 update -q
		apt-get install -o DPkg::Lock::Timeout=600 -y -q --no-install-recommends $NATIVE_PKGS ${arm64[*]}" \
		>>"$log" 2>&1 || { tail -n 10 "$log" >&2; die "apt-get in the chroot failed (log: $log)"; }

	# The kernel release behind linux-headers-arm64, and its headers:
	# linux-headers-KREL (arm64) unpacked as it is, what it depends on of
	# the same source (linux-headers-...-common, all; linux-kbuild-...,
	# versioned or not) installed for amd64 as the headers ask, so that
	# scripts/ runs here: pinned where they ask for "= VERSION", else the
	# candidate (a security upload can rebuild linux-kbuild alone, one
	# revision past the headers that want ">= VERSION").
	krel=$(in_tree "$tree" apt-cache show --no-all-versions linux-headers-arm64:arm64 |
		sed -n 's/^Depends: //p' | vm_headers_release)
	[ -n "$krel" ] || die "no kernel release behind $suite's linux-headers-arm64"
	hpkg=linux-headers-$krel:arm64
	hinfo=$(in_tree "$tree" apt-cache show --no-all-versions "$hpkg")
	deps=$(sed -n 's/^Depends: //p' <<<"$hinfo" | tr ',' '\n' | awk '
		{ sub(/\|.*/, ""); name = $1; sub(/:.*/, "", name) }
		name !~ /^linux-(headers|kbuild)-/ { next }
		$2 == "(=" { v = $3; sub(/\)$/, "", v); printf "%s=%s ", name, v; next }
		{ printf "%s ", name }')
	case $deps in *linux-kbuild-*) ;; *) die "no linux-kbuild among the dependencies of $hpkg" ;; esac
	dl=$hpkg
	[ "$suite" = $USER_SUITE ] && dl="$dl busybox-static:arm64"
	in_tree "$tree" sh -ec "apt-get install -o DPkg::Lock::Timeout=600 -y -q --no-install-recommends $deps
		rm -rf /root/dl && mkdir -p /root/dl && cd /root/dl
		apt-get -o APT::Sandbox::User=root download -q $dl" \
		>>"$log" 2>&1 || { tail -n 10 "$log" >&2; die "cannot install the headers of $krel (log: $log)"; }
	# Unpacked, not installed: dpkg would want the arm64 linux-kbuild.
	# Through the tree's /lib -> usr/lib (merged /usr), which a plain
	# dpkg-deb -x would replace by a directory.
	dpkg-deb --fsys-tarfile "$tree"/root/dl/linux-headers-"$krel"_*.deb |
		tar -x --keep-directory-symlink --no-overwrite-dir -C "$tree" ||
		die "cannot unpack $hpkg"
	if [ "$suite" = $USER_SUITE ]; then
		rm -rf "$dir/busybox"
		dpkg-deb -x "$tree"/root/dl/busybox-static_*.deb "$dir/busybox" ||
			die "cannot unpack busybox-static:arm64"
	fi
	rm -rf "$tree/root/dl"
	hdr=$tree/usr/src/linux-headers-$krel
	[ -f "$hdr/Makefile" ] || die "no $hdr/Makefile"
	# The compiler the kernel was built with ("CC = ... $(CROSS_COMPILE)gcc-12"),
	# for modules built by that compiler's cross twin.
	kcc=$(sed -n 's/^CC = .*(CROSS_COMPILE)\([a-z]*-[0-9][0-9]*\).*/\1/p' "$hdr/.kernelvariables")
	[ -n "$kcc" ] || die "cannot tell the kernel's compiler from $hdr/.kernelvariables"
	in_tree "$tree" sh -ec "command -v aarch64-linux-gnu-$kcc >/dev/null ||
		apt-get install -o DPkg::Lock::Timeout=600 -y -q --no-install-recommends $kcc-aarch64-linux-gnu" \
		>>"$log" 2>&1 || die "no aarch64-linux-gnu-$kcc for $krel (log: $log)"

	img=$ARM64_CACHE/images/$krel
	if [ ! -f "$img/.fetched" ]; then
		say "fetching linux-image-$krel (arm64)"
		suite_fetch_image "$tree" "$krel" "$img" arm64 >>"$log" 2>&1 ||
			die "cannot fetch linux-image-$krel (log: $log)"
	fi
	utree=$tree ubusybox=$dir/busybox/bin/busybox
	if [ "$suite" != $USER_SUITE ]; then
		utree=$(sed -n 's/^ARM64_TREE=//p' "$user_env")
		ubusybox=$(sed -n 's/^ARM64_BUSYBOX=//p' "$user_env")
	fi
	{
		echo "ARM64_SUITE=$suite"
		echo "ARM64_TREE=$utree"
		echo "ARM64_KTREE=$tree"
		echo "ARM64_KREL=$krel"
		echo "ARM64_KERNEL=$img/boot/vmlinuz-$krel"
		echo "ARM64_MODULES=$img/lib/modules/$krel"
		echo "ARM64_BUSYBOX=$ubusybox"
		echo "ARM64_CROSS=aarch64-linux-gnu-"
		echo "ARM64_KCC=$kcc"
	} >"$dir/env"
	echo "$want_pkgs" >"$dir/packages.complete"
fi
[ -f "$dir/env" ] || die "no $dir/env: run $0 --refresh"
echo "$dir/env"
