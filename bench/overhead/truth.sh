#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The ground-truth boot of bench-overhead's truth phase: boots the guest
# image under -icount shift=0 with the insnprof QEMU plugin (irq=on: every
# instruction counted by address, user ones included, and where a timer
# interrupt would land; insnboot.sh), and runs each truth workload once
# with no profiler (fs.bench=groundtruth). What it executed is the truth
# the profilers are compared with (truth-report.sh).
#
#   truth.sh WORK IMAGE_DIR
#
# Leaves WORK/groundtruth/: insnprof.out, results (the guest's @@BENCH
# lines), vm/ (logs; artifacts/overhead/kallsyms).
set -u
exec "$(dirname "$0")/insnboot.sh" "$1/groundtruth" "$2" groundtruth irq=on
