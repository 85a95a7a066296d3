#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs guest tests on the debug kernel (tests/debug-kernel/build.sh): builds
# the module against its tree (W=1, in a private copy of kmod/), signs it
# with the kernel's own key (so lockdown=confidentiality at boot lets it
# load), builds the tool and the workloads, and runs tests/vm/run-tests.sh
# with FLAMESTAT_KERNEL and FLAMESTAT_KO pointing at them. Prints PASS/FAIL
# lines labelled debug-* (6.1) or debug-7.2-* (7.2).
#
#   tests/debug-kernel/check.sh [--series 6.1|7.2] [--torture short|long|debug] [--scale N] [TEST...]
#     --series      which debug kernel (build.sh --series; default 6.1)
#     --torture     size of the torture tests (default short); long and
#                   debug run only the torture tests (those with
#                   "# timeout-long:"); debug is the size make torture-debug
#                   runs (docs/RELIABILITY.md: the long sizes cut where
#                   they would take hours under KASAN and TCG)
#     --scale N     test timeouts times N (default 4: the debug kernel is
#                   slower under TCG)
#     TEST          guest tests (default: every tests/guest/[0-9]*.sh)
#
# Logs in tests/build/vm-debug/ (7.2: vm-debug-7.2/). Fails when the debug
# kernel is not built (make debug-kernel [DEBUG_SERIES=7.2]).
set -u
here=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$here/../.." && pwd)
: "${BUILD:=$TOP/tests/build}"
export TOP BUILD
series=6.1 torture=short scale=4
tests=()
while [ $# -gt 0 ]; do
	case "$1" in
	--series) series=$2; shift ;;
	--torture) torture=$2; shift ;;
	--scale) scale=$2; shift ;;
	-h | --help) sed -n '3,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) tests+=("$1") ;;
	esac
	shift
done

# 6.1 keeps the names it always had; another series is in every name.
case $series in
6.1) sfx= ;;
*) sfx=-$series ;;
esac
if ! kdir=$("$here/build.sh" --series "$series" --check); then
	echo "FAIL debug$sfx-kernel/built: not built yet (make debug-kernel DEBUG_SERIES=$series)"
	exit 1
fi
rel=$(cat "$kdir/../release")
out=$BUILD/vm-debug$sfx
mkdir -p "$out"

# The module, W=1, in a copy (kbuild writes next to the sources), with the
# compiler that built the kernel: the host's (build.sh).
mdir=$BUILD/kmod-debug$sfx
rm -rf "$mdir" && mkdir -p "$mdir"
cp -r "$TOP/Kbuild" "$TOP/kmod" "$mdir/"
find "$mdir/kmod" \( -name '*.o' -o -name '*.ko' -o -name '.*.cmd' -o -name '*.mod*' \) -delete
if ! make -C "$kdir" M="$mdir" W=1 FLAMESTAT_VERSION="$(cat "$TOP/VERSION")" modules >"$out/build-module.log" 2>&1; then
	echo "FAIL debug$sfx-kernel/kbuild: module build failed (log: $out/build-module.log)"
	tail -n 20 "$out/build-module.log" | sed 's/^/    /'
	exit 1
fi
if grep -q 'warning:' "$out/build-module.log"; then
	echo "FAIL debug$sfx-kernel/kbuild: W=1 warnings against $rel: $(grep -m3 'warning:' "$out/build-module.log" | tr '\n' '|')"
else
	echo "PASS debug$sfx-kernel/kbuild ($rel, W=1)"
fi
ko=$mdir/kmod/flamestat.ko
if "$kdir/scripts/sign-file" sha256 "$kdir/certs/signing_key.pem" \
	"$kdir/certs/signing_key.x509" "$ko" 2>"$out/sign.log" &&
	[ "$(tail -c 28 "$ko")" = "~Module signature appended~" ]; then
	echo "PASS debug$sfx-kernel/sign"
else
	echo "FAIL debug$sfx-kernel/sign: $(head -n 1 "$out/sign.log")"
fi

make -C "$TOP" tool >"$out/build-tool.log" 2>&1 ||
	echo "flamestat-vm: user/flamestat did not build (log: $out/build-tool.log)" >&2
if ! make -j2 -C "$TOP/tests/workloads" O="$BUILD/workloads" >"$out/build-workloads.log" 2>&1; then
	echo "FAIL debug$sfx-kernel/workloads: build failed (log: $out/build-workloads.log)"
	exit 1
fi

case $torture in
short | long | debug) ;;
*) echo "check.sh: --torture must be short, long or debug" >&2; exit 2 ;;
esac
if [ "$torture" != short ] && [ ${#tests[@]} -eq 0 ]; then
	for t in "$TOP"/tests/guest/[0-9]*.sh; do
		grep -q '^# timeout-long:' "$t" && tests+=("$t")
	done
fi

# Label the results debug-* (debug-7.2-*), so they never read as the stock
# kernel's or as the other debug kernel's.
t0=$(date +%s)
FLAMESTAT_KERNEL=$kdir/arch/x86/boot/bzImage FLAMESTAT_KO=$ko \
	FLAMESTAT_TIMEOUT_SCALE=$scale FLAMESTAT_TORTURE=$torture \
	"$TOP/tests/vm/run-tests.sh" --no-build --out "$out" "${tests[@]}" |
	sed -u "s/^\\(PASS\\|FAIL\\) /\\1 debug$sfx-/" | tee "$out/report"
rc=${PIPESTATUS[0]}
echo "debug kernel $rel: $(grep -c '^PASS' "$out/report") passed, $(grep -c '^FAIL' "$out/report") failed ($(($(date +%s) - t0)) s)"
exit "$rc"
