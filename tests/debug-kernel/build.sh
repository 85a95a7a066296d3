#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Builds the flamestat debug guest kernel (KASAN, lockdep, atomic-sleep
# checks, kmemleak, debug objects, frame-pointer unwinder, lockdown LSM,
# module signing) from Debian's linux-source of a series, once per source
# version and configuration, cached outside the repository. Prints the
# build tree (the KDIR to build the module against) on stdout.
#
#   tests/debug-kernel/build.sh [--series 6.1|7.2] [--jobs N] [--check] [--refresh]
#     --series S  6.1 (default): the host's linux-source-6.1 (Debian 12);
#                 7.2: linux-source-7.2 of Debian sid, the newest kernel
#                 of the matrix, downloaded in the sid chroot
#     --jobs N    parallel make jobs (default 2), always under nice -n 19
#     --check     build nothing: print the tree if it is built, else fail
#     --refresh   7.2: ask sid for its newest linux-source-7.2 even when
#                 one is cached (a new version builds a new kernel)
#
# Cache: $FLAMESTAT_CACHE/debug-kernel/<source version>-<config hash>/
# (build/ the O= tree with arch/x86/boot/bzImage and certs/signing_key.pem,
# build.log, build-secs, release). The hash covers debug.config, the
# series' overlay debug-SERIES.config if there is one, and
# FS_DEBUG_KERNEL_REV (bump it when a change here changes the kernel), so
# a new configuration builds a new kernel next to the old one.
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${FLAMESTAT_CACHE:=/var/tmp/flamestat-cache}"
series=6.1 jobs=2 check_only=0 refresh=0
while [ $# -gt 0 ]; do
	case "$1" in
	--series) series=$2; shift ;;
	--jobs) jobs=$2; shift ;;
	--check) check_only=1 ;;
	--refresh) refresh=1 ;;
	-h | --help) sed -n '3,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "debug-kernel: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done
msg() { echo "debug-kernel: $*" >&2; }
die() { msg "$*"; exit 1; }
top=$FLAMESTAT_CACHE/debug-kernel

# fetch_sid_source PKG: the newest PKG (a linux-source-X.Y) of Debian sid,
# downloaded with apt-get download in the project's sid chroot
# (tests/lib/suite-chroot.sh, whose apt sources are the machine's own) and
# its tarball extracted into $top/src-VERSION. Sets srcver.
fetch_sid_source() {
	local pkg=$1 tree ver dl=$top/dl-$1 flog=$top/fetch-$1.log deb
	[ "$(id -u)" = 0 ] || die "$pkg comes from the sid chroot: needs root (debootstrap, chroot)"
	TOP=$(cd "$here/../.." && pwd)
	# shellcheck source-path=SCRIPTDIR source=../lib/suite-chroot.sh
	. "$here/../lib/suite-chroot.sh"
	: >"$flog"
	suite_lock sid
	if ! tree=$(suite_chroot sid 2>>"$flog"); then
		suite_unlock
		die "cannot make the sid chroot (log: $flog)"
	fi
	if ! in_tree "$tree" apt-get -o DPkg::Lock::Timeout=600 update -q >>"$flog" 2>&1; then
		suite_unlock
		die "apt-get update failed in $tree (log: $flog)"
	fi
	ver=$(in_tree "$tree" apt-cache show --no-all-versions "$pkg" 2>>"$flog" | sed -n 's/^Version: //p')
	if [ -z "$ver" ]; then
		suite_unlock
		die "sid has no $pkg (log: $flog)"
	fi
	if [ ! -f "$top/src-$ver/Makefile" ]; then
		msg "downloading $pkg $ver in the sid chroot"
		rm -rf "$dl"
		mkdir -p "$dl"
		if [ "$tree" = / ]; then
			(cd "$dl" && apt-get -o APT::Sandbox::User=root download -q "$pkg=$ver") >>"$flog" 2>&1
		else
			rm -rf "$tree/root/dl-debug-kernel"
			mkdir -p "$tree/root/dl-debug-kernel"
			in_tree "$tree" sh -ec "cd /root/dl-debug-kernel &&
				apt-get -o APT::Sandbox::User=root download -q $pkg=$ver" >>"$flog" 2>&1 &&
				mv "$tree"/root/dl-debug-kernel/*.deb "$dl/"
			rm -rf "$tree/root/dl-debug-kernel"
		fi
	fi
	suite_unlock
	if [ ! -f "$top/src-$ver/Makefile" ]; then
		deb=$(find "$dl" -maxdepth 1 -name "${pkg}_*.deb" | head -n 1)
		[ -n "$deb" ] || die "apt-get download $pkg=$ver failed (log: $flog)"
		msg "extracting $(basename "$deb") into $top/src-$ver"
		rm -rf "$top/src-$ver.tmp" "$dl/x"
		mkdir -p "$top/src-$ver.tmp"
		if ! dpkg-deb -x "$deb" "$dl/x" ||
			! tar -xJf "$dl/x/usr/src/$pkg.tar.xz" -C "$top/src-$ver.tmp" --strip-components=1; then
			die "cannot extract usr/src/$pkg.tar.xz from $deb"
		fi
		mv "$top/src-$ver.tmp" "$top/src-$ver"
	fi
	rm -rf "$dl"
	echo "$ver" >"$top/$pkg.version"
	srcver=$ver
}

# The source: the version it is known by, and where it is extracted.
mkdir -p "$top"
tarball=
case $series in
6.1)
	tarball=/usr/src/linux-source-6.1.tar.xz
	srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null)
	if [ -z "$srcver" ] || [ ! -f "$tarball" ]; then
		die "no $tarball: apt-get install linux-source-6.1 (scripts/deps.list)"
	fi ;;
7.2)
	# The version fetched last ($top/linux-source-7.2.version) until
	# --refresh: sid moves every few days, and each new version is a new
	# build of most of an hour.
	srcver=$(cat "$top/linux-source-$series.version" 2>/dev/null)
	if [ -z "$srcver" ] || [ ! -f "$top/src-$srcver/Makefile" ] ||
		{ [ $refresh = 1 ] && [ $check_only = 0 ]; }; then
		[ $check_only = 1 ] &&
			die "not built yet: tests/debug-kernel/build.sh --series $series (or make debug-kernel DEBUG_SERIES=$series)"
		fetch_sid_source "linux-source-$series"
	fi ;;
*) die "unknown series $series (6.1 or 7.2)" ;;
esac
# What a series' source cannot take as debug.config says (options gone or
# no longer optional): its lines replace debug.config's for the same
# options, in the merge and in the check below. 6.1 has none.
overlay=$here/debug-$series.config
[ -f "$overlay" ] || overlay=
FS_DEBUG_KERNEL_REV=1
hash=$({ cat "$here/debug.config" ${overlay:+"$overlay"}; echo "rev $FS_DEBUG_KERNEL_REV"; } |
	sha256sum | cut -c1-12)
dir=$top/$srcver-$hash
obj=$dir/build
src=$top/src-$srcver

if [ -f "$dir/ok" ] && [ -f "$obj/arch/x86/boot/bzImage" ]; then
	echo "$obj"
	exit 0
fi
[ $check_only = 1 ] &&
	die "not built yet: tests/debug-kernel/build.sh --series $series (or make debug-kernel DEBUG_SERIES=$series)"
for t in flex bison bc openssl perl; do
	command -v "$t" >/dev/null || die "$t missing: scripts/install-deps.sh"
done

# One build of a tree at a time: a second make check-debug waits for the
# first one's kernel instead of building into the same directory.
exec {lock_fd}>"$dir.lock"
flock "$lock_fd"
if [ -f "$dir/ok" ] && [ -f "$obj/arch/x86/boot/bzImage" ]; then
	echo "$obj"
	exit 0
fi

if [ ! -f "$src/Makefile" ]; then
	[ -n "$tarball" ] || die "no source in $src"
	msg "extracting $tarball into $src"
	rm -rf "$src.tmp"
	mkdir -p "$src.tmp"
	tar -xJf "$tarball" -C "$src.tmp" --strip-components=1 || die "cannot extract $tarball"
	mv "$src.tmp" "$src"
fi

mkdir -p "$obj"
log=$dir/build.log
: >"$log"
# The fragment merged: debug.config without the options that the overlay
# names, then the overlay. "# gone: CONFIG_X" in an overlay: X is not in
# this source's Kconfig any more (checked below).
frag=$dir/debug.config
if [ -n "$overlay" ]; then
	{ awk 'NR == FNR {
			if (match($0, /^(# gone: |# )?CONFIG_[A-Za-z0-9_]+/)) {
				s = substr($0, RSTART, RLENGTH); sub(/^# (gone: )?/, "", s); over[s] = 1
			}
			next
		}
		match($0, /^(# )?CONFIG_[A-Za-z0-9_]+/) {
			s = substr($0, RSTART, RLENGTH); sub(/^# /, "", s)
			if (s in over) next
		}
		{ print }' "$overlay" "$here/debug.config" && cat "$overlay"; } >"$frag" ||
		die "cannot write $frag"
else
	cp "$here/debug.config" "$frag" || die "cannot write $frag"
fi
msg "configuring in $obj (log: $log)"
{
	make -C "$src" O="$obj" x86_64_defconfig &&
	(cd "$src" && scripts/kconfig/merge_config.sh -m -O "$obj" "$obj/.config" "$frag") &&
	make -C "$src" O="$obj" olddefconfig
} >>"$log" 2>&1 || die "configuration failed; see $log"

# Every line of the fragment must have survived olddefconfig.
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
	"# gone: CONFIG_"*)
		opt=${line#\# gone: CONFIG_}
		if grep -rqsE --include='Kconfig*' --exclude-dir=tools --exclude-dir=Documentation \
			"^[[:space:]]*(menu)?config[[:space:]]+${opt}[[:space:]]*\$" "$src"; then
			msg "not gone: $src still has config $opt (${overlay##*/})"
			bad=1
		fi ;;
	esac
done <"$frag"
[ $bad = 0 ] || die "debug.config${overlay:+ with ${overlay##*/}} does not apply cleanly to x86_64_defconfig"

# The host's compiler for every series, gcc 12 and binutils 2.40 of
# Debian 12 (7.2 asks for gcc 8.1 and binutils 2.30 at least), not the sid
# chroot's gcc 16: check.sh builds the module against this tree with the
# compiler that built it (kbuild takes the compiler's flags from the
# tree's .config, and gcc 12 refuses some of gcc 16's), and the host's
# stays the same for the tree's lifetime, where make check-kernels
# upgrades the shared sid chroot's on every run. W=1 with gcc 16 against
# 7.2 is make check-kernels' sid build.
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
