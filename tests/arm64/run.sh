#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make check-arm64`: the guest tests on an arm64 guest. Sets up what it
# needs (tests/arm64/setup.sh: qemu-system-aarch64, the cross-build chroot,
# the arm64 kernel), builds the module, the tool and the workloads for
# arm64 (tests/arm64/build.sh), and runs tests/guest/*.sh in
# qemu-system-aarch64 guests under TCG (tests/vm/run-tests.sh with
# FLAMESTAT_ARCH=arm64). Prints PASS/FAIL lines like a suite, labelled
# arm64-* (arm64-sid-* for sid's kernel); logs in tests/build/arm64/.
#
#   tests/arm64/run.sh [--suite SUITE] [--refresh] [TEST...]
#     --suite    bookworm (default: Debian 12's 6.1) or sid (the newest)
#     --refresh  setup.sh --refresh: the newest headers and image
#     TEST       guest tests (names or paths; default: every one)
#
# Every guest test runs whole on arm64, the 32-bit (compat) halves of
# 74-hostile and 92-fuzz included (AArch32 programs). Needs root.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
export TOP
: "${FLAMESTAT_CACHE:=/var/tmp/flamestat-cache}"
: "${BUILD:=$TOP/tests/build}"
export FLAMESTAT_CACHE BUILD
suite=bookworm refresh=()
tests=()
while [ $# -gt 0 ]; do
	case $1 in
	--suite) suite=$2; shift ;;
	--refresh) refresh=(--refresh) ;;
	-h | --help) sed -n '3,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "tests/arm64/run.sh: unknown option $1" >&2; exit 2 ;;
	*) tests+=("$1") ;;
	esac
	shift
done
case $suite in
bookworm) label=arm64 ;;
sid) label=arm64-sid ;;
*) echo "tests/arm64/run.sh: --suite bookworm or sid" >&2; exit 2 ;;
esac

[ "$(id -u)" = 0 ] || { echo "FAIL $label-setup: needs root (apt-get, debootstrap, chroot)"; exit 1; }
out=$BUILD/arm64/$suite
mkdir -p "$out"
t0=$SECONDS
if ! "$TOP/tests/arm64/setup.sh" --suite "$suite" "${refresh[@]}" >"$out/setup.out" 2>&1; then
	echo "FAIL $label-setup: $(tail -n 1 "$out/setup.out") (log: $out/setup.out)"
	exit 1
fi
echo "PASS $label-setup ($((SECONDS - t0))s)"

"$TOP/tests/arm64/build.sh" --suite "$suite" --out "$out" | sed "s/^\(PASS\|FAIL\) arm64\//\1 $label-/"
[ "${PIPESTATUS[0]}" = 0 ] || exit 1

# The unwind tables' builder (kmod/ehframe.c, built for the host) on the
# arm64 libraries the guests run and on the workloads built without
# frame pointers: every row as libdw reads the same AArch64 CFI
# (tests/unwind/ehcheck.c; tests/suites/13-unwind.sh does the host's).
# shellcheck disable=SC1090 # written by setup.sh
. "$(sed -n '$p' "$out/setup.out")"
if ! make -s -C "$TOP/tests/unwind" BUILD="$BUILD" >"$out/ehcheck.log" 2>&1; then
	echo "FAIL $label-unwind/build (log: $out/ehcheck.log)"
else
	for f in "$ARM64_TREE"/usr/lib/aarch64-linux-gnu/libc.so.6 \
		"$ARM64_TREE"/usr/lib/aarch64-linux-gnu/ld-linux-aarch64.so.1 \
		"$ARM64_TREE"/usr/lib/aarch64-linux-gnu/libm.so.6 \
		"$ARM64_TREE"/usr/lib/aarch64-linux-gnu/libgcc_s.so.1 \
		"$out"/workloads/nofp "$out"/workloads/libnofp.so; do
		if line=$("$BUILD/unwind/ehcheck" "$f" 2>&1) && [ "${line#PASS}" != "$line" ]; then
			echo "PASS $label-unwind/$(basename "$f") ($(printf '%s\n' "$line" | tr ' ' '\n' | sed -n 's/^rows=//p') rows agree with libdw)"
		else
			echo "FAIL $label-unwind/$(basename "$f"): $(printf '%s' "$line" | tail -n 3 | tr '\n' '|')"
		fi
	done
fi

rm -rf "$out/vm"
# TCG runs an arm64 guest 2-3 times slower than an x86 one in
# process-heavy tests (tests/vm/README.md).
FLAMESTAT_ARCH=arm64 FLAMESTAT_ARM64_SUITE=$suite \
	FLAMESTAT_TIMEOUT_SCALE=${FLAMESTAT_TIMEOUT_SCALE:-2} \
	"$TOP/tests/vm/run-tests.sh" --no-build --out "$out/vm" "${tests[@]}" \
	>"$out/vm.results" 2>"$out/vm.log"
rc=$?
# Results, and the detail lines under each failure (test output, console
# tail), the labels prefixed: guest/10-load -> arm64-guest/10-load.
awk -v p="$label-" '
	/^(PASS|FAIL|SKIP) / { detail = ($1 == "FAIL"); $2 = p $2; print; next }
	detail && /^    / { print }' "$out/vm.results"
grep -qE '^(PASS|FAIL) ' "$out/vm.results" ||
	echo "FAIL $label-guest: the guest tests reported nothing (log: $out/vm.log)"
exit $rc
