#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make deb`: builds flamestat_VERSION_ARCH.deb (ARCH: this machine's,
# amd64 or arm64) and flamestat-dkms_VERSION_all.deb (and the source
# package) with dpkg-buildpackage from a clean copy of this tree (tracked
# and new files; nothing .gitignore excludes, so no build products), then
# runs lintian on all of them.
#
#   scripts/build-deb.sh [-o OUTDIR] [--no-lintian] [--arch ARCH]
#     -o OUTDIR      where the .debs go (default: the top of the tree)
#     --no-lintian   skip lintian
#     --arch ARCH    cross-build the tool for Debian architecture ARCH
#                    (dpkg-buildpackage -a ARCH; e.g. arm64 on amd64, with
#                    the cross compiler and the ARCH -dev packages
#                    installed: tests/deb/run.sh --arch arm64 does it in
#                    tests/arm64/setup.sh's chroot)
#
# The copy and dpkg-buildpackage's by-products (the source package,
# .buildinfo, .changes, the build log, lintian's output) stay in $BUILD/deb
# (tests/build/deb).
# Exit status: 0 built (and lintian clean), 1 otherwise.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$TOP/tests/build}
out=$TOP lintian=1 host_arch=""
while [ $# -gt 0 ]; do
	case "$1" in
	-o) out=$2; shift ;;
	--no-lintian) lintian=0 ;;
	--arch) host_arch=$2; shift ;;
	-h | --help) sed -n '3,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "build-deb: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
	shift
done
msg() { echo "flamestat-deb: $*" >&2; }
die() { msg "$*"; exit 1; }

version=$(cat "$TOP/VERSION")
work="$BUILD/deb"
src="$work/flamestat-$version"
rm -rf "$work"
mkdir -p "$src" "$out"
out=$(cd "$out" && pwd)

# A clean copy: what a fresh checkout (plus uncommitted work) holds.
"$TOP/scripts/copy-tree.sh" "$TOP" "$src" || die "cannot copy the tree to $src"

cd "$src" || exit 1
cross=()
[ -z "$host_arch" ] || [ "$host_arch" = "$(dpkg --print-architecture)" ] || cross=(-a "$host_arch")
dpkg-checkbuilddeps "${cross[@]}" ||
	die "missing build dependencies (scripts/install-deps.sh installs them)"
msg "building the packages of flamestat $version${cross[*]:+ for $host_arch} in $src (log: $work/build.log)"
if ! dpkg-buildpackage -us -uc -j2 "${cross[@]}" >"$work/build.log" 2>&1; then
	tail -n 30 "$work/build.log" >&2
	die "dpkg-buildpackage failed (log: $work/build.log)"
fi
arch=$(dpkg-architecture "${cross[@]}" -qDEB_HOST_ARCH 2>/dev/null)
debs=("$work/flamestat_${version}_$arch.deb" "$work/flamestat-dkms_${version}_all.deb")
for d in "${debs[@]}"; do
	[ -f "$d" ] || die "dpkg-buildpackage made no $(basename "$d")"
	cp "$d" "$out/"
	msg "$out/$(basename "$d")"
done

[ $lintian = 1 ] || exit 0
# Every tag lintian can show counts (pedantic and experimental too). None
# is overridden; an override added to debian/*.lintian-overrides must say
# why in a comment.
if lintian --display-info --pedantic --display-experimental \
	--fail-on error,warning,info,pedantic,experimental \
	"$work/flamestat_${version}_${arch}.changes" >"$work/lintian.log" 2>&1; then
	msg "lintian: clean"
else
	cat "$work/lintian.log" >&2
	die "lintian found problems (log: $work/lintian.log)"
fi
