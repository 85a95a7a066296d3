#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The module's unwind-table builder (kmod/ehframe.c, issue 24) on the host,
# compiled for user space with ASan and UBSan (tests/unwind/ehcheck.c):
# the tables of the system's own libraries and of code built here without
# frame pointers, every row checked against libdw's reading of the same
# .eh_frame, and the shapes each kind of code gives (CFA on the stack
# pointer, on the frame pointer after alloca, read through a saved pointer
# in a realigned stack, PLT entries, glibc's signal frame, the outermost
# frame). Hostile input is the fuzzer's (12-fuzz, fuzz_ehframe).
set -u
# shellcheck source-path=SCRIPTDIR source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"

OUT=$BUILD/unwind
if ! log=$(make -s -C "$TOP/tests/unwind" BUILD="$BUILD" 2>&1); then
	fail unwind/build "$(printf '%s' "$log" | tail -n 5 | tr '\n' '|')"
	exit 1
fi
pass unwind/build
EH=$OUT/ehcheck

# ehfield LINE NAME: the value of NAME=... in an ehcheck PASS line.
ehfield() { printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

# ehcheck_file NAME FILE [FIELD>=MIN ...]: every row agrees with libdw, and
# each named count is at least MIN.
ehcheck_file() {
	local name=$1 file=$2 line cond f min v bad=""
	shift 2
	if ! line=$("$EH" "$file" 2>&1) || [ "${line#PASS}" = "$line" ]; then
		fail "unwind/$name" "$(printf '%s' "$line" | tail -n 4 | tr '\n' '|')"
		return
	fi
	for cond in "$@"; do
		f=${cond%%>=*} min=${cond#*>=}
		v=$(ehfield "$line" "$f")
		[ -n "$v" ] && [ "$v" -ge "$min" ] || bad="$bad $f=${v:-?} (want >= $min)"
	done
	if [ -n "$bad" ]; then
		fail "unwind/$name" "$file:$bad"
	else
		pass "unwind/$name ($(ehfield "$line" rows) rows, $(ehfield "$line" bytes) bytes for $(ehfield "$line" text) bytes of code)"
	fi
}

# The system's libraries: every FDE read, every row as libdw reads it.
# glibc's have its signal trampoline and the PLT's expression.
LIBDIR=/usr/lib/x86_64-linux-gnu
ehcheck_file libc "$LIBDIR/libc.so.6" signal\>=1 plt\>=1 cfa\>=10000
ehcheck_file ld.so "$LIBDIR/ld-linux-x86-64.so.2" cfa\>=1000
ehcheck_file libstdc++ "$(readlink -f "$LIBDIR/libstdc++.so.6")" cfa\>=10000
for lib in libm.so.6 libgcc_s.so.1 libz.so.1 libelf.so.1 libdw.so.1 \
	libcrypto.so.3 libgcrypt.so.20; do
	# The first five come with the build's own dependencies; the
	# crypto libraries (hand-written assembly) where Debian has them.
	if [ -e "$LIBDIR/$lib" ]; then
		ehcheck_file "$lib" "$(readlink -f "$LIBDIR/$lib")"
	else
		case $lib in
		libcrypto* | libgcrypt*) skip "unwind/$lib" "not installed here" ;;
		*) fail "unwind/$lib" "$LIBDIR/$lib is missing (scripts/deps.list)" ;;
		esac
	fi
done

# Code built here as Debian builds it (-O2, no frame pointer), and with
# the incoming stack aligned to 8 only (gcc then realigns through DRAP).
TMP=$(mktemp -d "$BUILD/unwind-tmp.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
if gcc -O2 -fomit-frame-pointer -o "$TMP/shapes" "$TOP/tests/unwind/shapes.c" &&
	gcc -O2 -fomit-frame-pointer -mincoming-stack-boundary=3 \
		-o "$TMP/shapes-drap" "$TOP/tests/unwind/shapes.c"; then
	ehcheck_file shapes "$TMP/shapes" cfa_on_fp\>=2 stop\>=1 plt\>=1
	ehcheck_file shapes-drap "$TMP/shapes-drap" deref\>=1
else
	fail unwind/shapes "cannot build tests/unwind/shapes.c"
fi

# A file with no .eh_frame_hdr is reported as such, not crashed on.
printf 'not an ELF file' >"$TMP/notelf"
if "$EH" "$TMP/notelf" >"$TMP/notelf.out" 2>&1; then
	fail unwind/not-elf "ehcheck accepted a text file"
else
	check unwind/not-elf grep -q 'cannot read its unwind information' "$TMP/notelf.out"
fi
