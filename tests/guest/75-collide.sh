#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Stacks crafted to collide under an unkeyed hash (tests/workloads/
# collide.c: thousands of distinct stacks whose frame hash, as the module
# computed it before, was one value) fell into one bucket of the module's
# tables, and every sample probed that bucket in hard-irq. The stack hash
# is now keyed (SipHash, a key drawn at load) and a probe bounded
# (FLAMESTAT_PROBE_MAX, 32): the crafted stacks spread, none is dropped
# for a long probe, and the longest probe is reported (probe_max). The
# stacks are crafted as frame-pointer chains: the module walks with
# unwind=fp here (with unwind tables, collide's own code has .eh_frame and
# its real stack is one stack).
# timeout: 120
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

fs_load unwind=fp
out=$(wl collide -n 8192 5) || not_ok "collide exited with status $?"
log "collide: $out"
fs_read "$FS_TMP/all.folded"
artifact "$FS_TMP/all.folded"
probe=$(fs_stat probe_max) || not_ok "counter probe_max missing"
drops=$(fs_stat dropped_probe) || not_ok "counter dropped_probe missing"
stacks=$(grep -c '^collide;' "$FS_TMP/all.folded")
samples=$(fs_sum "$FS_TMP/all.folded" '^collide;')
log "collide: $samples samples in $stacks stacks; probe_max ${probe:-none}, dropped_probe ${drops:-none}, stacks $(fs_stat stacks)"
log "sampler cost: $(($(fs_stat cost_ns) / $(fs_stat samples))) ns per sample on average, $(fs_stat cost_max_ns) ns at most"
expect_ge "collide's crafted stacks recorded as distinct stacks" "$stacks" 500
expect_le "probe_max within FLAMESTAT_PROBE_MAX" "${probe:-999}" 32
expect_eq "no stack dropped for a long probe" "${drops:-none}" 0
# shellcheck disable=SC2046 # three numbers
set -- $(fs_stats_balance)
expect_eq "samples == recorded + dropped ($2 + $3)" "$1" $(($2 + $3))
check "unload" fs_unload
finish
