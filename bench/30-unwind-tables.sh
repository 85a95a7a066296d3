#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Unwind tables (kmod/ehframe.c, issue 24): how big the table compiled from
# a library's .eh_frame is against the library's code, and how long the
# builder takes, for glibc, libstdc++ and the largest C++ library this
# machine has (LLVM's or clang's, when installed), and arm64's glibc where
# make check-arm64 has set up its chroot. The builder compiled for
# user space with -O2 (tests/unwind/ehcheck.c --build: the fastest of five
# builds, from bytes already in memory; the module's worker also copies
# them from the page cache). Never fails on a number.
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
BUILD=${BUILD:-$TOP/tests/build}
make -s -C "$TOP/tests/unwind" OUT="$BUILD/unwind-bench" SAN=
EH=$BUILD/unwind-bench/ehcheck

LIBDIR=/usr/lib/x86_64-linux-gnu
files=("$LIBDIR/libc.so.6" "$(readlink -f "$LIBDIR/libstdc++.so.6")")
big=$(find "$LIBDIR" /usr/lib/llvm-*/lib -maxdepth 1 -type f \
	\( -name 'libLLVM-*.so*' -o -name 'libclang-cpp.so*' \) -printf '%s %p\n' 2>/dev/null |
	sort -rn | head -n 1 | cut -d' ' -f2-)
[ -n "$big" ] && files+=("$big")
# arm64's glibc, where make check-arm64's chroot is (its AArch64 CFI).
a64=${FLAMESTAT_CACHE:-/var/tmp/flamestat-cache}/arm64/bookworm/tree/usr/lib/aarch64-linux-gnu/libc.so.6
[ -f "$a64" ] && files+=("$a64")

echo "| file | FDEs | rows | rules | table | code (executable segments) | table per MiB of code | build |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
"$EH" --build "${files[@]}" | awk '{
	for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	printf "| %s | %d | %d | %d | %.1f KiB | %.1f MiB | %.1f KiB | %.2f ms |\n", $1,
		v["fdes"], v["rows"], v["rules"], v["bytes"] / 1024, v["text"] / 1048576,
		v["per_mib"] / 1024, v["build_ms"]
}'
