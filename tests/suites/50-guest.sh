#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Guest tests: builds the module, the tool and the workloads, boots one
# QEMU guest per boot configuration and runs tests/guest/NN-*.sh there
# (see tests/vm/run-tests.sh); one PASS/FAIL line per guest test. It also
# runs shellcheck on the harness and the guest tests.
# shellcheck source-path=SCRIPTDIR source=../lib/common.sh
source "$(dirname "$0")/../lib/common.sh"

if command -v shellcheck >/dev/null; then
	check guest/shellcheck-host shellcheck -x "$TOP"/tests/vm/*.sh "$TOP"/tests/suites/50-guest.sh \
		"$TOP"/tests/arm64/*.sh
	check guest/shellcheck-guest shellcheck -s sh -x "$TOP"/tests/vm/guest-init.sh \
		"$TOP"/tests/vm/demo-guest.sh "$TOP"/tests/vm/selftest/*.sh "$TOP"/tests/guest/*.sh
else
	fail guest/shellcheck "shellcheck not installed (scripts/deps.list)"
fi
"$TOP/tests/vm/run-tests.sh" "$@"
rc=$?

# The harness itself: failures, timeouts, panics and hangs are reported.
if out=$("$TOP/tests/vm/selftest.sh" 2>&1); then
	pass guest/harness-selftest
else
	fail guest/harness-selftest "$(head -n 3 <<<"$out" | tr '\n' '|')"
	printf '%s\n' "$out" | sed 's/^/    /'
fi

# make demo's script, end to end, in a scratch directory.
demo_dir="$BUILD/demo-check"
rm -rf "$demo_dir"
mkdir -p "$demo_dir"
if (cd "$demo_dir" && "$TOP/tests/vm/demo.sh" --secs 3) >"$BUILD/demo-check.log" 2>&1 &&
	[ -s "$demo_dir/flamestat-demo.svg" ] &&
	grep -q 'main;outer;middle;hot_leaf' "$demo_dir/flamestat-demo.folded" &&
	grep -q 'hot_leaf' "$demo_dir/flamestat-demo.svg"; then
	pass guest/demo
else
	fail guest/demo "tests/vm/demo.sh gave no SVG with main;outer;middle;hot_leaf (log: $BUILD/demo-check.log)"
	tail -n 20 "$BUILD/demo-check.log" | sed 's/^/    /'
fi
exit $rc
