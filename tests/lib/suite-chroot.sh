# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Build chroots of other Debian suites (sourced by tests/kernels/run.sh and
# tests/deb/run.sh): a suite's compiler and libraries without installing
# anything of that suite on the host. One chroot per suite in
# $FLAMESTAT_CACHE/kernels/SUITE/tree, debootstrapped once and shared;
# whoever uses one holds its lock (suite_lock) from its apt run to the end
# of its build, so that make check's suites and make check-kernels can run
# at once.
#
#   suite_lock SUITE; tree=$(suite_chroot SUITE); in_tree "$tree" CMD...; suite_unlock

: "${TOP:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
: "${FLAMESTAT_CACHE:=/var/tmp/flamestat-cache}"
SUITE_CACHE=$FLAMESTAT_CACHE/kernels
# The .debs the suite chroots download (apt names each suite's files
# apart); a cache of their own, so that their apt runs never wait for the
# lock of the rootfs trees' cache (tests/vm/rootfs.sh).
SUITE_DEBS=$SUITE_CACHE/debs
# shellcheck source=/dev/null
SUITE_HOST=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
mkdir -p "$SUITE_DEBS/partial"

# suite_lock SUITE: waits for and takes SUITE's lock; suite_unlock drops it.
suite_lock() {
	exec {suite_lock_fd}>"$SUITE_CACHE/$1.lock"
	flock "$suite_lock_fd"
}
suite_unlock() {
	flock -u "$suite_lock_fd"
	exec {suite_lock_fd}>&-
}

# in_tree TREE CMD...: CMD in the chroot TREE (/proc mounted: objtool
# reads it), or on the host when TREE is /.
in_tree() {
	local tree=$1
	shift
	if [ "$tree" = / ]; then
		DEBIAN_FRONTEND=noninteractive "$@"
	else
		ROOTFS_DEBS=$SUITE_DEBS "$TOP/tests/vm/rootfs.sh" chroot "$tree" "$@"
	fi
}

# suite_chroot SUITE: prints the tree that builds for SUITE: / for the
# host's own suite, else a chroot debootstrapped once (minbase with gcc,
# make, kmod and perl). Call it holding SUITE's lock.
suite_chroot() {
	local suite=$1 dir=$SUITE_CACHE/$1 mirror
	if [ "$suite" = "$SUITE_HOST" ]; then
		echo /
		return
	fi
	if [ ! -f "$dir/complete" ]; then
		# The host's archive serves every suite.
		mirror=$("$TOP/scripts/apt-archive.sh" main) || return 1
		echo "suite-chroot: building the $suite chroot (debootstrap minbase + gcc, make, kmod, perl)" >&2
		rm -rf "$dir"
		mkdir -p "$dir"
		# perl: W=1 runs the kernel's kernel-doc, a Perl script before 6.13
		# that needs more than minbase's perl-base.
		debootstrap --variant=minbase --include=make,gcc,libc6-dev,kmod,perl \
			--cache-dir="$SUITE_DEBS" "$suite" "$dir/tree" "$mirror" \
			>"$dir/debootstrap.log" 2>&1 || { tail -n 5 "$dir/debootstrap.log" >&2; return 1; }
		"$TOP/scripts/apt-archive.sh" sources "$suite" >"$dir/tree/etc/apt/sources.list" ||
			return 1
		touch "$dir/complete"
	fi
	echo "$dir/tree"
}

# suite_fetch_image TREE KREL DIR [ARCH]: the kernel and its modules,
# unpacked into DIR (nothing installed), downloaded by the apt of TREE (/:
# the host's); ARCH: a foreign architecture of TREE (arm64) to take them
# from. Signed kernels of newer suites keep the vmlinuz in
# linux-binary-KREL and the modules in linux-modules-KREL, and
# linux-image-KREL only depends on them. DIR/.fetched marks a complete one.
suite_fetch_image() {
	local tree=$1 krel=$2 img=$3 arch=${4:-} dl pkg deb
	dl=$(dirname "$img")/.download
	rm -rf "$img" "$dl"
	mkdir -p "$dl"
	for pkg in "linux-image-$krel" "linux-binary-$krel" "linux-modules-$krel"; do
		pkg=$pkg${arch:+:$arch}
		in_tree "$tree" apt-cache show "$pkg" >/dev/null 2>&1 || continue
		if [ "$tree" = / ]; then
			(cd "$dl" && apt-get -o APT::Sandbox::User=root download -q "$pkg") || return 1
		else
			rm -rf "$tree/root/dl"
			mkdir -p "$tree/root/dl"
			in_tree "$tree" sh -ec "cd /root/dl && apt-get -o APT::Sandbox::User=root download -q $pkg" ||
				return 1
			mv "$tree"/root/dl/*.deb "$dl/"
			rm -rf "$tree/root/dl"
		fi
	done
	for deb in "$dl"/*.deb; do
		dpkg-deb -x "$deb" "$img" || return 1
	done
	rm -rf "$dl"
	# Merged-/usr packages (sid) put the kernel at
	# usr/lib/modules/KREL/vmlinuz and the modules beside it.
	if [ ! -e "$img/boot/vmlinuz-$krel" ] && [ -f "$img/usr/lib/modules/$krel/vmlinuz" ]; then
		mkdir -p "$img/boot" "$img/lib/modules"
		ln -s "../usr/lib/modules/$krel/vmlinuz" "$img/boot/vmlinuz-$krel"
		ln -s "../../usr/lib/modules/$krel" "$img/lib/modules/$krel"
	fi
	[ -f "$img/boot/vmlinuz-$krel" ] || { echo "no boot/vmlinuz-$krel in the packages"; return 1; }
	touch "$img/.fetched"
}
