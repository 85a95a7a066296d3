#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Builds perf with BPF skeletons (BUILD_BPF_SKEL=1: `perf record --off-cpu`,
# which Debian's perf, built without them, refuses) from the tools/perf of
# Debian's linux-source-6.1, the source of the bench guest's kernel (with
# two lines of later perfs: the task-state mask of the off-CPU program and
# the bpf_skeletons line of --build-options; see below), in a
# bookworm chroot (a cached tree of tests/vm/rootfs.sh with the build
# dependencies), once per source version and build configuration; cached
# outside the repository. bench/offcpu.sh calls it for its "perf" profiler
# and installs the result in the guest. Prints the cache directory:
#   perf                 the binary (needs the guest's /sys/kernel/btf/vmlinux)
#   runtime-packages     the Debian packages of the libraries it links
#   build-options        its `perf version --build-options`
#   source-version       the linux-source-6.1 version it was built from
#   kver                 the kernel (release, version) whose BTF made its
#                        vmlinux.h
#   build.log
#
#   bench/perf-bpf/build.sh [--jobs N] [--check]
#     --jobs N   parallel make jobs (default 2), always under nice -n 19
#     --check    build nothing: print the directory if a build is cached
#
# Cache: $FLAMESTAT_CACHE/perf-bpf/<source version>-<config hash>/; the
# hash covers this script, so a change here builds anew. Needs root
# (debootstrap, chroot). Exits 1 with the reason (and the build log's
# tail) when the build fails.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
export TOP
# shellcheck source-path=SCRIPTDIR source=../../tests/vm/lib.sh
. "$TOP/tests/vm/lib.sh"

jobs=2 check_only=0
while [ $# -gt 0 ]; do
	case "$1" in
	--jobs) jobs=$2; shift ;;
	--check) check_only=1 ;;
	-h | --help) sed -n '3,27p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) vm_die "perf-bpf: unknown argument '$1' (see --help)" ;;
	esac
	shift
done
[[ $jobs =~ ^[1-9][0-9]*$ ]] || vm_die "perf-bpf: --jobs takes a number"
msg() { echo "perf-bpf: $*" >&2; }
die() { msg "$*"; exit 1; }

# What the build needs, as bookworm has it: clang (14) compiles the BPF
# programs, llvm gives llvm-strip; perf builds its own bootstrap bpftool
# and a static libbpf from the same source. libdw (DWARF), libelf, zlib,
# zstd, lzma, libcap and libnuma are the libraries perf links; python3
# generates the PMU event tables. No perl, python, slang or gtk support:
# the bench needs none of them.
BUILD_PKGS="linux-source-6.1 xz-utils make gcc libc6-dev flex bison clang llvm libelf-dev libdw-dev zlib1g-dev libzstd-dev liblzma-dev libcap-dev libnuma-dev python3 pkg-config"
# tools/perf/Makefile.perf's switches; VMLINUX_BTF is added below.
MAKE_FLAGS="BUILD_BPF_SKEL=1 NO_LIBPERL=1 NO_LIBPYTHON=1 NO_SLANG=1 NO_GTK2=1 NO_LIBUNWIND=1 NO_LIBBABELTRACE=1 NO_LIBCRYPTO=1 NO_JVMTI=1 NO_LIBAUDIT=1 WERROR=0"
# The parts of the source tarball perf's build reads (tools/perf/MANIFEST,
# the top Makefile for its version, scripts/ for extract-vmlinux).
SRC_PARTS="tools scripts kernel/bpf Makefile"

[ "$(id -u)" = 0 ] || die "needs root (debootstrap and chroot of tests/vm/rootfs.sh)"
top=$FLAMESTAT_CACHE/perf-bpf
mkdir -p "$top"
conf=$(sha256sum <"$0" | cut -c1-12)

# The build chroot: the cached bookworm tree with BUILD_PKGS (its kernel
# is the guest's, tests/vm/rootfs.sh's default: the module's vermagic).
if [ $check_only = 1 ]; then
	for d in "$top"/*-"$conf"; do
		[ -f "$d/complete" ] && { echo "$d"; exit 0; }
	done
	die "no perf with BPF skeletons built by this version of $0 in $top"
fi
msg "the bookworm build tree (cached; its first build takes minutes)"
tree=$("$TOP/tests/vm/rootfs.sh" tree -p "$BUILD_PKGS") || die "no build tree (tests/vm/rootfs.sh tree failed, see above)"
kver=$(cat "$(dirname "$tree")/kver")
# shellcheck disable=SC2016 # dpkg-query's own ${Version}
srcver=$("$TOP/tests/vm/rootfs.sh" chroot "$tree" dpkg-query -W -f='${Version}' linux-source-6.1) ||
	die "no linux-source-6.1 in the build tree $tree"
# The guest kernel's own version: the same upload as the source, unless
# the archive moved on between the two (then said, not fatal: perf's
# off-CPU program reads the kernel through BTF, CO-RE).
# shellcheck disable=SC2016 # dpkg-query's own ${Version}
imgver=$("$TOP/tests/vm/rootfs.sh" chroot "$tree" dpkg-query -W -f='${Version}' "linux-image-$kver") ||
	die "no linux-image-$kver in the build tree $tree"
[ "$imgver" = "$srcver" ] ||
	msg "note: linux-source-6.1 is $srcver, the guest kernel linux-image-$kver is $imgver"
dir=$top/$srcver-$conf
if [ -f "$dir/complete" ]; then
	echo "$dir"
	exit 0
fi

exec 9>"$top/build.lock"
flock 9
if [ -f "$dir/complete" ]; then
	echo "$dir"
	exit 0
fi
rm -rf "$dir"
mkdir -p "$dir"
log=$dir/build.log
root=$dir/root
# The tree is shared and read-only: build in a copy, removed afterwards.
cleanup() { rm -rf "$root"; }
trap cleanup EXIT
fail() {
	[ -f "$log" ] && tail -n 25 "$log" >&2
	msg "$* (log: $log)"
	echo "failed: $*" >"$dir/failed"
	exit 1
}
msg "building perf $srcver with BUILD_BPF_SKEL=1 in a copy of $tree (log: $log)"
t0=$SECONDS
cp -a --reflink=auto "$tree" "$root" || fail "cannot copy the build tree $tree"
in_root() { "$TOP/tests/vm/rootfs.sh" chroot "$root" "$@"; }
parts=""
for p in $SRC_PARTS; do parts="$parts linux-source-6.1/$p"; done
# shellcheck disable=SC2086 # $parts: one tar argument a part
in_root tar -C /tmp -xf /usr/src/linux-source-6.1.tar.xz $parts >>"$log" 2>&1 ||
	fail "cannot extract$parts from linux-source-6.1.tar.xz"
src=$root/tmp/linux-source-6.1
# Its version, which perf takes from the top Makefile's kernelversion
# target in a git tree (not this one) or else from PERF-VERSION-FILE.
v=$(awk '$2 == "=" && $1 == "VERSION" { a = $3 } $2 == "=" && $1 == "PATCHLEVEL" { b = $3 }
	$2 == "=" && $1 == "SUBLEVEL" { c = $3 } END { if (a != "") print a "." b "." c }' "$src/Makefile")
[ -n "$v" ] || fail "no VERSION, PATCHLEVEL and SUBLEVEL in the source's Makefile"
echo "#define PERF_VERSION \"$v\"" >"$src/PERF-VERSION-FILE"
# `perf version --build-options` of 6.1 has no line for the skeletons;
# later perfs print "bpf_skeletons: [ on ]": the same line, backported.
sed -i 's/^\(\t*\)STATUS(HAVE_LIBPFM, libpfm4);$/&\n\1STATUS(HAVE_BPF_SKEL, bpf_skeletons);/' "$src/tools/perf/builtin-version.c"
grep -q 'STATUS(HAVE_BPF_SKEL, bpf_skeletons)' "$src/tools/perf/builtin-version.c" ||
	grep -q 'bpf_skeletons' "$src/tools/perf/builtin-version.c" ||
	fail "cannot add the bpf_skeletons line to tools/perf/builtin-version.c"
# The off-CPU program of 6.1 keeps a switch-out only when prev_state is
# exactly TASK_INTERRUPTIBLE or TASK_UNINTERRUPTIBLE, but since 6.1 the
# kernel adds TASK_FREEZABLE (0x2000) to the state of nanosleep and futex
# waits: perf 6.1 --off-cpu on its own kernel sees none of them (checked:
# of tests/workloads/offcpu only the pipe reads came out). Later perfs
# (7.2's off_cpu.bpf.c) pass prev_state & 0xff: backported.
bpfc=$src/tools/perf/util/bpf_skel/off_cpu.bpf.c
if ! grep -q 'prev_state & 0xff' "$bpfc"; then
	sed -i 's/^\(\t*return off_cpu_stat(ctx, prev, next, prev_state\));$/\1 \& 0xff);/' "$bpfc"
	grep -q 'prev_state & 0xff);' "$bpfc" || fail "cannot mask prev_state in $bpfc (the state fix of later perfs)"
fi
# vmlinux.h from the BTF of the guest's kernel (the uncompressed image in
# its vmlinuz keeps the .BTF section), not of whatever kernel runs the
# build (perf's default, /sys/kernel/btf/vmlinux).
in_root sh -c "/tmp/linux-source-6.1/scripts/extract-vmlinux /boot/vmlinuz-$kver >/tmp/vmlinux" >>"$log" 2>&1 ||
	fail "cannot extract vmlinux from /boot/vmlinuz-$kver"
in_root sh -c "readelf -S /tmp/vmlinux | grep -q ' \\.BTF '" ||
	fail "the vmlinux of $kver has no .BTF section (no CONFIG_DEBUG_INFO_BTF?): perf's BPF skeletons need the kernel's BTF"
mkdir -p "$root/tmp/perf-out"
# shellcheck disable=SC2086 # $MAKE_FLAGS: one make argument a word
if ! in_root nice -n 19 make -C /tmp/linux-source-6.1/tools/perf -j"$jobs" O=/tmp/perf-out \
	$MAKE_FLAGS VMLINUX_BTF=/tmp/vmlinux >>"$log" 2>&1; then
	fail "make of tools/perf with BUILD_BPF_SKEL=1 failed"
fi
[ -x "$root/tmp/perf-out/perf" ] || fail "the build made no perf binary"
in_root /tmp/perf-out/perf version --build-options >"$dir/build-options" 2>&1 ||
	fail "the built perf does not run: $(head -c 300 "$dir/build-options")"
grep -Eq 'bpf_skeletons: +\[ on' "$dir/build-options" ||
	fail "the built perf has no BPF skeletons: $(grep bpf_skeletons "$dir/build-options")"
# The packages of the shared libraries it links, for the guest's package list.
# shellcheck disable=SC2016 # expanded by the chroot's shell
in_root sh -c 'ldd /tmp/perf-out/perf | awk "/=> \\// { print \$3 }" | xargs -r readlink -f |
	while read -r f; do dpkg -S "$f" 2>/dev/null || dpkg -S "/usr$f" 2>/dev/null || dpkg -S "${f#/usr}"; done' \
	>"$dir/runtime-files" 2>>"$log" || fail "cannot tell the packages of perf's libraries"
cut -d: -f1 "$dir/runtime-files" | sed 's/:.*//' | sort -u >"$dir/runtime-packages"
[ -s "$dir/runtime-packages" ] || fail "no packages for perf's libraries (ldd found none?)"
cp "$root/tmp/perf-out/perf" "$dir/perf"
echo "$srcver" >"$dir/source-version"
echo "$kver $imgver" >"$dir/kver"
echo "$((SECONDS - t0))" >"$dir/build-secs"
date -u +%FT%TZ >"$dir/complete"
msg "perf $srcver with BPF skeletons built in $((SECONDS - t0)) s: $dir"
echo "$dir"
