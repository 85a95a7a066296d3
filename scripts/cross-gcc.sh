#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Debian's aarch64 cross GCC for the symbolizer's aarch64 test files
# (tests/fixtures/symbolize/build.sh), without installing it: its driver's
# package, gcc-12-aarch64-linux-gnu, conflicts with gcc-multilib, which the
# i386 test programs need (installing either removes the other). The rest
# of the cross toolchain installs beside gcc-multilib (scripts/deps.list:
# binutils-aarch64-linux-gnu, cpp-12-aarch64-linux-gnu with cc1, the aarch64
# libc and libgcc), so only the driver's package is unpacked, into
# $FLAMESTAT_CACHE/cross/, where the driver finds the installed rest through
# symbolic links (GCC looks for its programs and libraries beside itself).
#
#   scripts/cross-gcc.sh            print the driver's path; exit 1 with a
#                                   message when it is not set up
#   scripts/cross-gcc.sh --install  set it up first if needed (root:
#                                   apt-get download of the package)
set -eu
cache=${FLAMESTAT_CACHE:-/var/tmp/flamestat-cache}/cross
triplet=aarch64-linux-gnu
major=12
die() { echo "cross-gcc: $*" >&2; exit 1; }

# The driver must be the build of the cc1 installed (the same version).
ver=$(dpkg-query -W -f='${Version}' "cpp-$major-$triplet" 2>/dev/null || true)
[ -n "$ver" ] || die "cpp-$major-$triplet is not installed (scripts/install-deps.sh installs it)"
dir=$cache/gcc-$major-$triplet-$ver
gcc=$dir/usr/bin/$triplet-gcc-$major

if [ ! -f "$dir/complete" ]; then
	[ "${1:-}" = --install ] || die "no $gcc: run scripts/install-deps.sh (as root) to set it up"
	[ "$(id -u)" = 0 ] || die "needs root to set up $dir (apt-get download)"
	echo "cross-gcc: unpacking gcc-$major-$triplet $ver into $dir" >&2
	# Another version's, if any, goes.
	rm -rf "$cache/gcc-$major-$triplet-"*
	mkdir -p "$dir/dl"
	# apt's download user cannot write into root's directories.
	chmod 0777 "$dir/dl"
	# The package lists may be old or missing: updated once if so.
	(cd "$dir/dl" && { apt-get download -q "gcc-$major-$triplet=$ver" >/dev/null 2>&1 ||
		{ apt-get update -q >/dev/null && apt-get download -q "gcc-$major-$triplet=$ver" >/dev/null; }; }) ||
		die "apt-get download gcc-$major-$triplet=$ver failed"
	dpkg-deb -x "$dir"/dl/gcc-"$major"-"$triplet"_*.deb "$dir" ||
		die "cannot unpack gcc-$major-$triplet"
	rm -rf "$dir/dl"
	# cc1, crt*.o, libgcc and the headers, from the installed packages.
	lib=/usr/lib/gcc-cross/$triplet/$major
	for f in "$lib"/*; do
		[ -e "$dir$lib/${f##*/}" ] || ln -s "$f" "$dir$lib/"
	done
	# as and ld (binutils), the C library (libc6-dev-arm64-cross).
	ln -s "/usr/$triplet" "$dir/usr/$triplet"
	printf 'int main(void) { return 0; }\n' > "$dir/t.c"
	"$gcc" -o "$dir/t" "$dir/t.c" 2> "$dir/t.log" ||
		die "the unpacked $gcc cannot link a program: $(tr '\n' ' ' < "$dir/t.log")"
	rm -f "$dir/t" "$dir/t.c" "$dir/t.log"
	touch "$dir/complete"
fi
echo "$gcc"
