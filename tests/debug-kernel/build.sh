#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Builds the flamestat debug guest kernel (KASAN, lockdep, atomic-sleep
# checks, kmemleak, debug objects, frame-pointer unwinder, lockdown LSM,
# module signing) from Debian's linux-source-6.1, once per source version
# and configuration, cached outside the repository. Prints the build tree
# (the KDIR to build the module against) on stdout.
#
#   tests/debug-kernel/build.sh [--jobs N] [--check]
#     --jobs N   parallel make jobs (default 2), always under nice -n 19
#     --check    build nothing: print the tree if it is built, else fail
#
# Cache: $FLAMESTAT_CACHE/debug-kernel/<source version>-<config hash>/
# (build/ the O= tree with arch/x86/boot/bzImage and certs/signing_key.pem,
# build.log, build-secs, release). The hash covers debug.config and
# FS_DEBUG_KERNEL_REV (bump it when a change here changes the kernel), so a
# new configuration builds a new kernel next to the old one.
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${FLAMESTAT_CACHE:=/var/tmp/flamestat-cache}"
jobs=2 check_only=0
while [ $# -gt 0 ]; do
	case "$1" in
	--jobs) jobs=$2; shift ;;
	--check) check_only=1 ;;
	-h | --help) sed -n '3,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "debug-kernel: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done
msg() { echo "debug-kernel: $*" >&2; }
die() { msg "$*"; exit 1; }

tarball=/usr/src/linux-source-6.1.tar.xz
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null)
if [ -z "$srcver" ] || [ ! -f "$tarball" ]; then
	die "no $tarball: apt-get install linux-source-6.1 (scripts/deps.list)"
fi
FS_DEBUG_KERNEL_REV=1
hash=$({ cat "$here/debug.config"; echo "rev $FS_DEBUG_KERNEL_REV"; } | sha256sum | cut -c1-12)
top=$FLAMESTAT_CACHE/debug-kernel
dir=$top/$srcver-$hash
obj=$dir/build
src=$top/src-$srcver

if [ -f "$dir/ok" ] && [ -f "$obj/arch/x86/boot/bzImage" ]; then
	echo "$obj"
	exit 0
fi
[ $check_only = 1 ] && die "not built yet: tests/debug-kernel/build.sh (or make debug-kernel)"
for t in flex bison bc openssl perl; do
	command -v "$t" >/dev/null || die "$t missing: scripts/install-deps.sh"
done

mkdir -p "$top"
if [ ! -f "$src/Makefile" ]; then
	msg "extracting $tarball into $src"
	rm -rf "$src.tmp"
	mkdir -p "$src.tmp"
	tar -xJf "$tarball" -C "$src.tmp" --strip-components=1 || die "cannot extract $tarball"
	mv "$src.tmp" "$src"
fi

mkdir -p "$obj"
log=$dir/build.log
: >"$log"
msg "configuring in $obj (log: $log)"
{
	make -C "$src" O="$obj" x86_64_defconfig &&
	(cd "$src" && scripts/kconfig/merge_config.sh -m -O "$obj" "$obj/.config" "$here/debug.config") &&
	make -C "$src" O="$obj" olddefconfig
} >>"$log" 2>&1 || die "configuration failed; see $log"

# Every line of debug.config must have survived olddefconfig.
bad=0
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=*)
		grep -qxF -- "$line" "$obj/.config" || {
			msg "not in .config: $line (got: $(grep "^${line%%=*}=" "$obj/.config" || echo unset))"
			bad=1
		} ;;
	"# CONFIG_"*" is not set")
		opt=${line#\# }
		opt=${opt%% *}
		if grep -q "^$opt=[ym]" "$obj/.config"; then
			msg "still set: $(grep "^$opt=" "$obj/.config")"
			bad=1
		fi ;;
	esac
done <"$here/debug.config"
[ $bad = 0 ] || die "debug.config does not apply cleanly to x86_64_defconfig"

msg "building with -j$jobs under nice -n 19 (log: $log)"
t0=$(date +%s)
nice -n 19 make -C "$src" O="$obj" -j"$jobs" >>"$log" 2>&1 ||
	die "build failed; last lines of $log:$(echo; tail -n 20 "$log")"
secs=$(($(date +%s) - t0))
echo "$secs" >"$dir/build-secs"
make -s -C "$src" O="$obj" kernelrelease >"$dir/release" 2>/dev/null
[ -f "$obj/arch/x86/boot/bzImage" ] || die "no bzImage after the build"
[ -f "$obj/certs/signing_key.pem" ] || die "no certs/signing_key.pem after the build"
touch "$dir/ok"
msg "built $(cat "$dir/release") in ${secs}s"
echo "$obj"
