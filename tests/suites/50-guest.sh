#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Guest tests: builds the module, the tool and the workloads, boots one
# QEMU guest per boot configuration and runs tests/guest/NN-*.sh there
# (see tests/vm/run-tests.sh); one PASS/FAIL line per guest test. It also
# runs shellcheck on the harness and the guest tests.
# shellcheck source-path=SCRIPTDIR source=../lib/common.sh
source "$(dirname "$0")/../lib/common.sh"

if command -v shellcheck >/dev/null; then
	check guest/shellcheck-host shellcheck -x "$TOP"/tests/vm/*.sh "$TOP"/tests/suites/50-guest.sh
	check guest/shellcheck-guest shellcheck -s sh -x "$TOP"/tests/vm/guest-init.sh "$TOP"/tests/guest/*.sh
else
	fail guest/shellcheck "shellcheck not installed (scripts/deps.list)"
fi
"$TOP/tests/vm/run-tests.sh" "$@"
