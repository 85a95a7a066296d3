#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make check-kernels`: the module on Debian kernels other than the host's.
# For each kernel: a debootstrap chroot of its own suite (that suite's gcc)
# gets the newest linux-headers of the flavour, builds the module at W=1
# (any warning fails), and the guest tests boot that suite's kernel image
# with the busybox initramfs (every kernel message checked as usual).
#
#   tests/kernels/run.sh [--core] [KERNEL...]
#     KERNEL  bullseye (5.10), bullseye-rt (5.10 PREEMPT_RT); default: all
#     --core  only the core guest tests (load, read, chain, ABI, hostile
#             stacks, fuzz, reload, hotplug) instead of every guest test
#
# Chroots, kernel images and package caches live in
# $FLAMESTAT_CACHE/kernels/ (built once; the headers are upgraded to the
# newest of their series on every run). Prints PASS/FAIL lines like a
# suite. Needs root.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
export TOP
FLAMESTAT_CACHE=${FLAMESTAT_CACHE:-/var/tmp/flamestat-cache}
export FLAMESTAT_CACHE
cache=$FLAMESTAT_CACHE/kernels
export ROOTFS_DEBS=$cache/debs
BUILD=${BUILD:-$TOP/tests/build}
core=0
kernels=()
for a in "$@"; do
	case $a in
	--core) core=1 ;;
	-h | --help) sed -n '3,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "tests/kernels/run.sh: unknown option $a" >&2; exit 2 ;;
	*) kernels+=("$a") ;;
	esac
done
[ ${#kernels[@]} -gt 0 ] || kernels=(bullseye bullseye-rt)
core_tests=(05-kernel 10-load 15-tool 20-chain 25-abi 30-commands 36-kaddr
	50-libwork 74-hostile 92-fuzz 97-reload 98-hotplug)

say() { echo "check-kernels: $*" >&2; }
[ "$(id -u)" = 0 ] || { echo "FAIL kernels/setup: needs root (debootstrap, chroot)"; exit 1; }
mkdir -p "$ROOTFS_DEBS/partial"

# in_chroot DIR CMD...: CMD in the chroot, /proc mounted (objtool reads it).
in_chroot() { "$TOP/tests/vm/rootfs.sh" chroot "$@"; }

# ensure_chroot SUITE: prints the chroot of SUITE, debootstrapped once.
ensure_chroot() {
	local suite=$1 dir=$cache/$1 mirror
	if [ ! -f "$dir/complete" ]; then
		# The host's archive serves every suite.
		mirror=$("$TOP/scripts/apt-archive.sh" main) || return 1
		say "building the $suite chroot (debootstrap minbase + gcc, make, kmod)"
		rm -rf "$dir"
		mkdir -p "$dir"
		debootstrap --variant=minbase --include=make,gcc,libc6-dev,kmod \
			--cache-dir="$ROOTFS_DEBS" "$suite" "$dir/tree" "$mirror" \
			>"$dir/debootstrap.log" 2>&1 || { tail -n 5 "$dir/debootstrap.log" >&2; return 1; }
		"$TOP/scripts/apt-archive.sh" sources "$suite" >"$dir/tree/etc/apt/sources.list" ||
			return 1
		touch "$dir/complete"
	fi
	echo "$dir"
}

# check_kernel NAME: build the module for it and run the guest tests.
check_kernel() {
	local name=$1 suite flavour dir tree krel img src log out
	case $name in
	bullseye) suite=bullseye flavour=amd64 ;;
	bullseye-rt) suite=bullseye flavour=rt-amd64 ;;
	*) echo "FAIL kernels/$name: unknown kernel (bullseye, bullseye-rt)"; return ;;
	esac
	if ! dir=$(ensure_chroot "$suite"); then
		echo "FAIL kernels/$name-chroot: debootstrap of $suite failed"
		return
	fi
	tree=$dir/tree
	log=$dir/$name.log
	# The newest headers of the series, and the image that matches them.
	# A mirror may list a version whose files it lacks (seen: bullseye-
	# security's rt headers): then the next newest version is taken.
	if ! in_chroot "$tree" sh -c "apt-get update -q &&
		for v in \$(apt-cache madison linux-headers-$flavour | awk '{print \$3}'); do
			apt-get install -y -q --no-install-recommends linux-headers-$flavour=\$v && exit 0
			echo \"version \$v cannot be installed; trying an older one\"
		done; exit 1" >"$log" 2>&1; then
		echo "FAIL kernels/$name-headers: no version of linux-headers-$flavour installs (log: $log)"
		return
	fi
	# shellcheck disable=SC2016 # dpkg-query's own ${Depends}
	krel=$(in_chroot "$tree" dpkg-query -W -f='${Depends}' "linux-headers-$flavour" |
		sed -n 's/^linux-headers-\([^ ,]*\).*/\1/p')
	[ -n "$krel" ] || { echo "FAIL kernels/$name-headers: no kernel release behind linux-headers-$flavour"; return; }
	img=$dir/image-$krel
	if [ ! -f "$img/boot/vmlinuz-$krel" ]; then
		rm -rf "$img" "$tree"/root/linux-image-*.deb
		if ! in_chroot "$tree" sh -ec "cd /root && apt-get download -q linux-image-$krel" >>"$log" 2>&1 ||
			! dpkg-deb -x "$tree/root/linux-image-${krel}_"*.deb "$img"; then
			echo "FAIL kernels/$name-image: cannot fetch linux-image-$krel (log: $log)"
			return
		fi
		rm -f "$tree"/root/linux-image-*.deb
	fi

	# The module, from this tree's committed and uncommitted sources.
	src=$tree/root/flamestat
	rm -rf "$src"
	mkdir -p "$src"
	cp -r "$TOP/Kbuild" "$TOP/kmod" "$src/"
	find "$src/kmod" \( -name '*.o' -o -name '*.ko' -o -name '.*.cmd' -o -name '*.mod*' \) -delete
	if ! in_chroot "$tree" make -C "/lib/modules/$krel/build" M=/root/flamestat W=1 \
		FLAMESTAT_VERSION=test modules >"$dir/$name-build.log" 2>&1; then
		echo "FAIL kernels/$name-build: $krel: $(grep -m3 -E 'error|ERROR' "$dir/$name-build.log" | tr '\n' '|')"
		return
	fi
	if grep -q 'warning:' "$dir/$name-build.log"; then
		echo "FAIL kernels/$name-build: $krel: W=1 warnings: $(grep -m3 'warning:' "$dir/$name-build.log" | tr '\n' '|')"
		return
	fi
	echo "PASS kernels/$name-build ($krel, $(in_chroot "$tree" gcc -dumpfullversion))"

	out=$BUILD/kernels/$name
	local -a tests=()
	[ $core = 1 ] && tests=("${core_tests[@]}")
	rm -rf "$out"
	FLAMESTAT_KERNEL=$img/boot/vmlinuz-$krel FLAMESTAT_KO=$src/kmod/flamestat.ko \
		FLAMESTAT_MODULES=$img/lib/modules/$krel \
		"$TOP/tests/vm/run-tests.sh" --no-build --out "$out" "${tests[@]}" \
		>"$out.results" 2>"$out.log"
	sed -nE "s#^(PASS|FAIL|SKIP) #\1 kernels/$name:#p" "$out.results"
	grep -qE '^(PASS|FAIL) ' "$out.results" ||
		echo "FAIL kernels/$name-guest: the guest tests reported nothing (log: $out.log)"
}

if ! make -s -C "$TOP" tool >/dev/null ||
	! make -s -j2 -C "$TOP/tests/workloads" O="$BUILD/workloads" >/dev/null; then
	echo "FAIL kernels/setup: the tool or the workloads do not build"
	exit 1
fi
mkdir -p "$BUILD/kernels"
for k in "${kernels[@]}"; do
	check_kernel "$k"
done
