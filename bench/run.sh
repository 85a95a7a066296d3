#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make bench`: run every bench/NN-*.sh in order. Each prints its own table
# of figures; none of them passes or fails on a number.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
export TOP
export FLAMESTAT_CACHE="${FLAMESTAT_CACHE:-/var/tmp/flamestat-cache}"
export BENCH_OUT="${BENCH_OUT:-$TOP/bench/out}"
mkdir -p "$BENCH_OUT" "$FLAMESTAT_CACHE"
rc=0
for b in "$TOP"/bench/[0-9]*.sh; do
	[ -x "$b" ] || continue
	echo "=== $(basename "$b" .sh)"
	"$b" || { echo "bench $(basename "$b") failed (status $?)"; rc=1; }
done
exit $rc
