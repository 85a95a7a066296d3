#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Builds what an arm64 guest runs, in the cross-build chroots of
# tests/arm64/setup.sh (run it first), from this tree's committed and
# uncommitted sources: the module in SUITE's chroot (W=1 against the arm64
# kernel's headers, ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-, by the
# cross twin of the compiler that built the kernel; any warning fails),
# user/flamestat and the workloads (tests/workloads: its 32-bit programs
# hostile32 and devfuzz32 are AArch32 ones here, static, by the armhf cross
# compiler) in bookworm's, linked against its arm64 libraries.
#
#   tests/arm64/build.sh [--suite SUITE] [--out DIR]
#     --suite  the setup to build with (bookworm, default, or sid)
#     --out    where the results go (default tests/build/arm64/SUITE):
#              flamestat.ko, flamestat, workloads/, and the logs
#              module.log, tool.log, workloads.log
#
# Prints "PASS arm64/build-module (...)" or "FAIL arm64/build-...: why"
# for each. Exit status 1 when the module or the workloads did not build;
# a tool that does not build is a FAIL line but leaves the others usable
# (guest tests that need it fail on their own), as in tests/vm/run-tests.sh.
# Needs root (chroot).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
export TOP
: "${FLAMESTAT_CACHE:=/var/tmp/flamestat-cache}"
: "${BUILD:=$TOP/tests/build}"
export FLAMESTAT_CACHE BUILD
suite=bookworm out=""
while [ $# -gt 0 ]; do
	case $1 in
	--suite) suite=$2; shift ;;
	--out) out=$2; shift ;;
	-h | --help) sed -n '3,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "tests/arm64/build.sh: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done
[ -n "$out" ] || out=$BUILD/arm64/$suite
env_file=$FLAMESTAT_CACHE/arm64/$suite/env
if [ ! -f "$env_file" ]; then
	echo "FAIL arm64/build: no $env_file: run tests/arm64/setup.sh --suite $suite first"
	exit 1
fi
ARM64_TREE="" ARM64_KTREE="" ARM64_KREL="" ARM64_CROSS="" ARM64_KCC=""
# shellcheck source=/dev/null
. "$env_file"
# shellcheck source-path=SCRIPTDIR source=../lib/suite-chroot.sh
. "$TOP/tests/lib/suite-chroot.sh"
SUITE_DEBS=$FLAMESTAT_CACHE/arm64/debs
mkdir -p "$out"
version=$(cat "$TOP/VERSION")
rc=0
src=/root/flamestat-src

# copy_src TREE: the sources, copied afresh into the chroot TREE (no
# objects of another build).
copy_src() {
	rm -rf "$1$src"
	mkdir -p "$1$src/tests"
	cp -a "$TOP/Kbuild" "$TOP/VERSION" "$TOP/kmod" "$TOP/user" "$1$src/"
	cp -a "$TOP/tests/workloads" "$TOP/tests/clients" "$1$src/tests/"
	find "$1$src" \( -name '*.o' -o -name '*.ko' -o -name '.*.cmd' -o -name '*.mod' -o \
		-name '*.mod.c' -o -name '*.d' -o -name modules.order -o -name Module.symvers \) -delete
	rm -rf "$1$src/user/gen" "$1$src/user/flamestat"
}

# lock SUITE: one setup or build in SUITE's chroot at a time (setup.sh's lock).
lock() {
	[ -n "${lock_fd:-}" ] && exec {lock_fd}>&-
	exec {lock_fd}>"$FLAMESTAT_CACHE/arm64/$1.lock"
	flock "$lock_fd"
}

# chroot_make LOG ARGS...: make in the chroot, its output in LOG.
chroot_make() {
	local log=$1
	shift
	in_tree "$tree" env PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig \
		make "$@" >"$log" 2>&1
}

tree=${ARM64_KTREE:-$ARM64_TREE}
lock "$suite"
copy_src "$tree"
rm -f "$out/flamestat.ko"
if ! chroot_make "$out/module.log" -C "/lib/modules/$ARM64_KREL/build" M="$src" ARCH=arm64 \
	CROSS_COMPILE="$ARM64_CROSS" W=1 FLAMESTAT_VERSION="$version" modules; then
	echo "FAIL arm64/build-module: $ARM64_KREL: $(grep -m3 -iE 'error|can.t locate' "$out/module.log" | tr '\n' '|') (log: $out/module.log)"
	rc=1
elif grep -q 'warning:' "$out/module.log"; then
	echo "FAIL arm64/build-module: $ARM64_KREL: W=1 warnings: $(grep -m3 'warning:' "$out/module.log" | tr '\n' '|') (log: $out/module.log)"
	rc=1
else
	cp "$tree$src/kmod/flamestat.ko" "$out/flamestat.ko"
	echo "PASS arm64/build-module ($ARM64_KREL, $(in_tree "$tree" "$ARM64_CROSS$ARM64_KCC" --version | head -n 1), W=1)"
fi

rm -rf "${tree:?}$src"

# The user space: bookworm's chroot, whatever the kernel.
tree=$ARM64_TREE
lock bookworm
copy_src "$tree"
rm -f "$out/flamestat"
if chroot_make "$out/tool.log" -j2 -C "$src/user" CC="${ARM64_CROSS}gcc" VERSION="$version"; then
	cp "$tree$src/user/flamestat" "$out/flamestat"
	echo "PASS arm64/build-tool"
else
	echo "FAIL arm64/build-tool: $(grep -m3 -E 'error|Error' "$out/tool.log" | tr '\n' '|') (log: $out/tool.log)"
fi

rm -rf "$out/workloads"
if chroot_make "$out/workloads.log" -j2 -C "$src/tests/workloads" O="$src/build/workloads" \
	CC="${ARM64_CROSS}gcc" CC32=arm-linux-gnueabihf-gcc; then
	cp -a "$tree$src/build/workloads" "$out/workloads"
	echo "PASS arm64/build-workloads"
else
	echo "FAIL arm64/build-workloads: $(grep -m3 -E 'error|Error' "$out/workloads.log" | tr '\n' '|') (log: $out/workloads.log)"
	rc=1
fi
rm -rf "${tree:?}$src"
exit $rc
