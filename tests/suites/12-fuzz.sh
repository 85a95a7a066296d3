#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The tool's parsers under libFuzzer (tests/fuzz/run.sh): binary snapshots,
# folded stacks and ELF images, a fixed number of runs each with a fixed
# seed (the long version is in make torture). Also shellcheck of the
# reliability scripts (fuzz, torture, debug kernel) and of the benchmarks'
# scripts (bench/: the host's in bash, the guests' in sh).
# shellcheck source-path=SCRIPTDIR source=../lib/common.sh
source "$(dirname "$0")/../lib/common.sh"

if command -v shellcheck >/dev/null; then
	check reliability/shellcheck shellcheck -x "$TOP"/tests/fuzz/run.sh \
		"$TOP"/tests/torture/*.sh "$TOP"/tests/debug-kernel/*.sh "$0"
	mapfile -t bench_host < <(find "$TOP/bench" -name '*.sh' ! -name guest.sh | sort)
	check bench/shellcheck-host shellcheck -x "${bench_host[@]}"
	check bench/shellcheck-guest shellcheck -s sh -x "$TOP"/bench/*/guest.sh
else
	fail reliability/shellcheck "shellcheck not installed (scripts/deps.list)"
fi
"$TOP/tests/fuzz/run.sh"
