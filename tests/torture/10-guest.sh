#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The long torture tests in guests on the stock Debian kernel: every guest
# test with a "# timeout-long:" header (load/unload, hotplug, concurrent
# readers, churn, hostile stacks, device fuzzer, memory), at its long size
# (FLAMESTAT_TORTURE=long). The same on the debug kernel: make torture-debug.
# shellcheck source-path=SCRIPTDIR source=../lib/common.sh
source "$(dirname "$0")/../lib/common.sh"

tests=()
for t in "$TOP"/tests/guest/[0-9]*.sh; do
	grep -q '^# timeout-long:' "$t" && tests+=("$t")
done
[ ${#tests[@]} -gt 0 ] || { fail torture/guest "no guest test has a timeout-long header"; exit 1; }
FLAMESTAT_TORTURE=long exec "$TOP/tests/vm/run-tests.sh" --out "$BUILD/vm-torture" "${tests[@]}"
