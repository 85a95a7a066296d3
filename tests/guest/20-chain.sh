#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Stacks of the chain workload, read while sampling and after: user frames
# resolve to main;outer;middle;hot_leaf in that order, with plausible counts.
# On arm64, chain is built with -mbranch-protection=standard and the guest
# CPU has pointer authentication: its saved return addresses are signed
# (checked first), so these stacks are named only if the module strips the
# PAC from every return address it reads.
# timeout: 120
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

SECS=4
if [ "$(uname -m)" = aarch64 ]; then
	pac=$(wl chain -p -l 1) || not_ok "chain -p exited with status $?"
	log "chain -p: $pac (hwcap paca: $(grep -c -w paca /proc/cpuinfo) CPUs)"
	# "pac saved=0x.. stripped=0x..": signed when the two differ.
	expect_eq "chain's saved return addresses are signed (PAC)" \
		"$(echo "$pac" | awk '$1 == "pac" {
			s = $2; t = $3; sub(/^saved=/, "", s); sub(/^stripped=/, "", t)
			print (s != t && t != "0") ? "signed" : "not signed"
		}')" signed
fi
fs_load
t0=$(now_ms)
wl_bg chain $SECS
sleep 2
check "read while sampling" fs_read "$FS_TMP/during.folded"
check "chain exits 0" wl_wait
t1=$(now_ms)
check "stop" fs_write stop
check "read after stop" fs_read "$FS_TMP/after.folded"

for f in during after; do
	fs_symbolize <"$FS_TMP/$f.folded" >"$FS_TMP/$f.sym"
	artifact "$FS_TMP/$f.folded"
	artifact "$FS_TMP/$f.sym"
	total=$(fs_sum "$FS_TMP/$f.sym" '^chain;')
	# Past ld.so's start-up: the samples with main on the stack. Start-up
	# (page faults, mmap, TLB-flush IPIs that wait for the other vCPU)
	# takes a share of the run that grows when the host is busy.
	in_main=$(fs_sum "$FS_TMP/$f.sym" '^chain;(.*;)?main(;.*)?$')
	# The user chain is what is checked: a sample that hit hot_leaf's
	# interrupt or exit path carries kernel frames after it (more of them
	# on the debug kernel, whose interrupt paths are slow).
	chain=$(fs_sum "$FS_TMP/$f.sym" '^chain;(.*;)?main;outer;middle;hot_leaf(;[^;]*_\[k\])*$')
	log "$f: $total samples of chain, $in_main under main, $chain in main;outer;middle;hot_leaf"
	grep '^chain;' "$FS_TMP/$f.sym" | sort -k2 -n -r -t' ' | head -n 5 | sed 's/^/#   /'
	expect_ge "$f: chain sampled" "$total" 100
	# And main is on most of them (98% here, x86 and arm64): without it
	# the ratio below would hold for stacks with no name at all (0 >= 0;
	# an arm64 module without PAC stripping left 28 of 2909 under main).
	expect_ge "$f: most of chain's samples are under main (x2 vs all)" $((in_main * 2)) "$total"
	# Samples on a function's first instructions, before its frame
	# exists, skip its caller: a few per cent, not more.
	expect_ge "$f: >= 90% of chain's samples under main are main;outer;middle;hot_leaf (x10 vs x9)" \
		$((chain * 10)) $((in_main * 9))
done

# One thread on one CPU for the workload's run time: at most one sample
# per tick (997 Hz). How many ticks a TCG guest gets depends on the host;
# what does not is that the busy chain has most of the samples taken (idle
# is not recorded; the rest is the test's own shell and the kernel
# threads: 95% here, 79% on 6.1-rt with the host's two CPUs oversubscribed).
ms=$((t1 - t0))
max=$((997 * ms / 1000 + 50))
expect_le "no more samples than ticks in ${ms} ms" "$total" "$max"
all=$(fs_sum "$FS_TMP/after.sym")
if fs_debug_kernel; then
	# Under KASAN the test's own reads of the text while sampling (cat:
	# 3,107 samples of 8,928) and the kernel's threads take more than
	# chain (2,052): what holds there is that chain has the largest
	# share of any process but the reader's.
	top=$(awk '{ n = split($0, a, ";"); c = a[1]; t[c] += $NF }
		END { for (k in t) if (k != "chain" && k != "cat" && t[k] > m) m = t[k]; print m + 0 }' "$FS_TMP/after.sym")
	expect_ge "debug kernel: chain has more samples than any other process but cat" "$total" "$top"
else
	expect_ge "chain has most of the samples recorded" $((total * 2)) "$all"
fi
check "unload" fs_unload
finish
