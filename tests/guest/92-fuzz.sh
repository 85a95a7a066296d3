#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The device fuzzer (tests/clients/devfuzz.c) with fixed seeds: random
# ioctls, sizes, field values, bad pointers, text commands, reads with odd
# sizes and offsets, each answer checked against the ABI's model; alone
# (exact errnos), as a 32-bit program (compat ioctl), and two at once; then
# the device must still sample, read and snapshot, and unload.
# Sizes: short 10000 + 2500 + 2 x 2500 operations, long 100000 + 25000 +
# 2 x 25000.
# timeout: 600
# timeout-long: 3600
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

N=$(fs_size 10000 100000 30000)

# fuzz NAME ARGS...: run devfuzz (or devfuzz32), keep its log.
fuzz() {
	_n=$1
	shift
	if wl "$@" >"$FS_TMP/$_n.out" 2>&1; then
		ok "$_n: $(tail -n 1 "$FS_TMP/$_n.out")"
	else
		not_ok "$_n failed (status $?)"
		grep -E '^FAIL' "$FS_TMP/$_n.out" | head -n 10 | sed 's/^/#   /'
		tail -n 3 "$FS_TMP/$_n.out" | sed 's/^/#   /'
	fi
	tail -n 3 "$FS_TMP/$_n.out" | sed 's/^/# /'
	artifact "$FS_TMP/$_n.out"
}

fs_load
wl_bg chain 3600
t0=$(now_ms)
fuzz devfuzz-solo devfuzz --solo -s 1 -n "$N"
t1=$(now_ms)
log "$N operations in $(((t1 - t0) / 1000)) s"
# The 32-bit build (the compat ioctl path): i386 on an x86-64 guest,
# AArch32 on an arm64 one (tests/workloads/Makefile).
if [ -x "$FS_WL/devfuzz32" ]; then
	fuzz devfuzz32-solo devfuzz32 --solo -s 2 -n $((N / 4))
else
	not_ok "devfuzz32-solo cannot run: no 32-bit devfuzz for $(uname -m) (tests/workloads/Makefile)"
fi
# Two at once: no exact errnos, but no failure either.
"$FS_WL/devfuzz" -s 3 -n $((N / 4)) >"$FS_TMP/devfuzz-a.out" 2>&1 &
a=$!
"$FS_WL/devfuzz" -s 4 -n $((N / 4)) >"$FS_TMP/devfuzz-b.out" 2>&1 &
b=$!
wait $a
ra=$?
wait $b
rb=$?
for x in a:$ra b:$rb; do
	r=${x#*:}
	f=$FS_TMP/devfuzz-${x%%:*}.out
	expect_eq "concurrent devfuzz ${x%%:*}: $(tail -n 1 "$f")" "$r" 0
	[ "$r" = 0 ] || grep -E '^FAIL' "$f" | head -n 10 | sed 's/^/#   /'
	artifact "$f"
done
fuzz devfuzz-final devfuzz --solo -n 0
check "balanced after fuzzing" fs_balanced
check "unload" fs_unload
finish
