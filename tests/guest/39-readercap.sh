#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What readers make the module hold -- table copies, the snapshot each
# descriptor keeps, the text merge -- is capped for all of them together
# (module parameter reader_kb; default 4 x table_kb, at least 64 MiB): 64
# descriptors of one member snapshotting a full table get ENOBUFS past the
# cap instead of the kernel holding 64 snapshots; the memory stays within
# it while they are held (stats reader_mem, vmalloc); nothing is left
# after they close; the tool waits for such memory, then says what the
# error means.
# timeout: 240
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

FS=/usr/bin/flamestat
CAP_KB=8192

field() { echo "$1" | sed -n "s/.* $2=\([0-9-]*\).*/\1/p"; }

fs_load reader_kb=$CAP_KB
expect_eq "reader_kb in force" "$(cat /sys/module/flamestat/parameters/reader_kb)" $CAP_KB
# Enough distinct stacks that 64 snapshots need twice the cap (about
# 1,300 at 200 bytes a stack): how many a few seconds of uniq make depends
# on the CPU (an emulated arm64 made 1,150 in 5 s, x86 more), so it runs
# until there are 2,048, for 40 s at most.
rounds=0
while [ $rounds -lt 8 ] && [ "$(fs_stat stacks)" -lt 2048 ]; do
	wl uniq 5 >/dev/null || not_ok "uniq failed"
	rounds=$((rounds + 1))
done
log "uniq ran $rounds times 5 s"
check "stop" fs_write stop
log "table: $(fs_stat stacks) stacks, $(fs_stat recorded) samples"
vm0=$(fs_meminfo VmallocUsed)
out=$("$FS_WL/snapmany" 64) || not_ok "snapmany: $out"
log "$out"
line1=$(echo "$out" | sed -n 1p) line2=$(echo "$out" | sed -n 2p) line3=$(echo "$out" | sed -n 3p)
ok=$(field " $line1" ok) nobufs=$(field " $line1" enobufs) size=$(field " $line1" size)
held=$(field " $line2" reader_mem) vm=$(field " $line2" vmalloc_kb)
# The cap must bind for the test to say anything.
expect_ge "64 snapshots need more than the cap (bytes)" $((64 * size)) $((2 * CAP_KB * 1024))
expect_ge "snapshots taken within the cap" "$ok" 1
expect_ge "snapshots refused with ENOBUFS past the cap" "$nobufs" 1
expect_eq "every descriptor got a snapshot or ENOBUFS" $((ok + nobufs)) 64
expect_le "reader_mem while 64 descriptors are open (bytes)" "$held" $((CAP_KB * 1024))
log "vmalloc: $vm0 kB before, $vm kB with every descriptor open"
expect_le "vmalloc growth while held (kB; the cap plus 4 MiB)" $((vm - vm0)) $((CAP_KB + 4096))
expect_eq "reader_mem after closing them" "$(field " $line3" reader_mem)" 0

# The tool waits 10 s for readers' memory, then says what ENOBUFS means.
"$FS_WL/snapmany" 64 25 >"$FS_TMP/hold.out" &
hold=$!
sleep 4
t0=$(now_ms)
check_not "fold while another reader holds the memory fails" \
	$FS fold -o "$FS_TMP/x.folded"
t=$(($(now_ms) - t0))
cp "$FS_TMP/.check" "$FS_TMP/fold.err"
log "fold said after $t ms: $(cat "$FS_TMP/fold.err")"
check "its error names reader_kb" grep -q "reader_kb" "$FS_TMP/fold.err"
expect_ge "fold waited for readers' memory (ms)" "$t" 9000
wait "$hold"
check "fold once the memory is free" $FS fold -o "$FS_TMP/y.folded"
expect_eq "reader_mem at the end" "$(fs_stat reader_mem)" 0
check "unload" fs_unload

fs_load
expect_eq "default reader_kb (4 x table_kb)" "$(cat /sys/module/flamestat/parameters/reader_kb)" 65536
check "unload" fs_unload
finish
