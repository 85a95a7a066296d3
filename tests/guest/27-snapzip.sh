#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Compressed snapshots (FLAMESTAT_SNAP_DEFLATE): where the kernel has zlib
# built in (Debian's kernels; a kernel with /proc/config.gz says whether),
# a reader that asks gets a zlib stream of the same snapshot, at most half
# its size, which the tool reads back to the same stacks; the stats count
# what was sent (snapshot_read_bytes). The tool asks by itself, and saves
# .fstat files gzip'd (zcat gives the module's format). Where the
# compression cannot be afforded (reader_kb below zlib's workspace) the
# reader gets the snapshot plain, CLEAR included: nothing is lost.
# timeout: 180
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

FS=/usr/bin/flamestat
zlib=1
if [ -r /proc/config.gz ] &&
   ! zcat /proc/config.gz | grep -qx 'CONFIG_ZLIB_DEFLATE=y'; then
	zlib=0
fi
log "zlib built into this kernel: $zlib"

fs_load
check "chain runs" wl chain 2
check "stop" fs_write stop
check "a plain snapshot" sh -c "$FS_WL/snapdump -o $FS_TMP/plain.raw >$FS_TMP/plain.dump"
b0=$(fs_stat snapshot_read_bytes)
out=$("$FS_WL/snapdump" -z -o "$FS_TMP/z.raw") || not_ok "snapdump -z: $out"
b1=$(fs_stat snapshot_read_bytes)
plain=$(wc -c <"$FS_TMP/plain.raw")
z=$(wc -c <"$FS_TMP/z.raw")
log "plain: $plain bytes; asked compressed: $out"
expect_eq "snapshot_read_bytes counts what was sent" $((b1 - b0)) "$z"
if [ $zlib = 1 ]; then
	expect_eq "compressed when asked" "$out" "deflated $z"
	expect_le "at most half the bytes (x2 vs plain)" $((z * 2)) "$plain"
	check "the tool reads the plain one" $FS fold -o "$FS_TMP/plain.folded" "$FS_TMP/plain.raw"
	check "the tool reads the compressed one" $FS fold -o "$FS_TMP/z.folded" "$FS_TMP/z.raw"
	check "chain's stacks in it" grep -q '^chain;.*hot_leaf' "$FS_TMP/z.folded"
	check "the same stacks from both" cmp "$FS_TMP/plain.folded" "$FS_TMP/z.folded"
else
	expect_eq "plain where the kernel has no zlib" "$out" "plain $z"
fi

# record asks for it compressed, and saves the recording gzip'd.
b0=$(fs_stat snapshot_read_bytes)
check "record --raw" $FS record -q --raw "$FS_TMP/run.fstat" -o "$FS_TMP/run.folded" -- "$FS_WL/chain" 1
b1=$(fs_stat snapshot_read_bytes)
log "record read $((b1 - b0)) bytes from the module; run.fstat is $(wc -c <"$FS_TMP/run.fstat") bytes"
expect_eq "run.fstat is gzip'd" "$(od -An -tx1 -N2 "$FS_TMP/run.fstat" | tr -d ' \n')" 1f8b
expect_eq "zcat gives the module's format" "$(zcat "$FS_TMP/run.fstat" | head -c 4)" FSNP
check "fold run.fstat gives the same stacks" sh -c "$FS fold $FS_TMP/run.fstat | cmp - $FS_TMP/run.folded"
zcat "$FS_TMP/run.fstat" >"$FS_TMP/run-plain.fstat"
check "a plain .fstat still reads" sh -c "$FS fold $FS_TMP/run-plain.fstat | cmp - $FS_TMP/run.folded"
head -c $(($(wc -c <"$FS_TMP/run.fstat") / 2)) "$FS_TMP/run.fstat" >"$FS_TMP/cut.fstat"
check_not "a truncated .fstat is refused" $FS fold "$FS_TMP/cut.fstat"
cp "$FS_TMP/.check" "$FS_TMP/cut.err"
log "fold said: $(cat "$FS_TMP/cut.err")"
check "with the reason" grep -q 'truncated' "$FS_TMP/cut.err"
check "unload" fs_unload

# zlib's workspace (about 256 KiB) does not fit in reader_kb=128: the
# snapshot comes plain, and CLEAR has not thrown its samples away. User
# stacks only, so that the plain snapshot itself fits (the debug kernel's
# kernel stacks made one of 247 KB in 2 s).
fs_load reader_kb=128 kernel_stacks=0
check "chain runs" wl chain 1
check "stop" fs_write stop
out=$("$FS_WL/snapdump" -z -c -o "$FS_TMP/small.raw") || not_ok "snapdump -z -c: $out"
log "reader_kb=128, asked compressed: $out"
expect_eq "plain when compressing does not fit" "$out" "plain $(wc -c <"$FS_TMP/small.raw")"
check "its stacks read" $FS fold -o "$FS_TMP/small.folded" "$FS_TMP/small.raw"
check "chain's stacks kept" grep -q '^chain;.*hot_leaf' "$FS_TMP/small.folded"
"$FS_WL/snapdump" >"$FS_TMP/after.dump"
expect_eq "CLEAR emptied the table" "$(awk '/^header/ { for (i = 2; i <= NF; i++) if ($i ~ /^stacks=/) print substr($i, 8) }' "$FS_TMP/after.dump")" 0
expect_eq "no reader memory left" "$(fs_stat reader_mem)" 0
check "unload" fs_unload
finish
