#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The core guest tests (load, read, chain, ABI, vhost's and io_uring's
# worker threads, hostile stacks, the sample path: throttling, irq_work
# kicks, staggered timers, isolated CPUs, short-lived processes; fuzzing,
# hotplug, off-CPU time against the truth) on the oldest
# kernel of the matrix (5.10, gcc 10), on PREEMPT_RT (6.12-rt) and on the
# newest (sid's 7.x, gcc 16), each module built W=1-clean by its own
# suite's compiler.
# `make check-kernels` runs every guest test on every kernel of the matrix
# (docs/COMPAT.md).
# shellcheck source-path=SCRIPTDIR source=../lib/common.sh
source "$(dirname "$0")/../lib/common.sh"

"$TOP/tests/kernels/run.sh" --core bullseye bookworm-6.12-rt sid
check kernels/shellcheck shellcheck -x "$TOP/tests/kernels/run.sh" "$TOP/tests/lib/suite-chroot.sh" \
	"$TOP/tests/suites/55-kernels.sh"
