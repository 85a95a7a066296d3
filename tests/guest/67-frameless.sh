#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What a library without frame pointers (Debian's libc) does to a stack
# walked by frame pointers (--unwind fp), and that flamestat says so; and
# that the default walk, with unwind tables, loses nothing there.
# memcopy -c: main -> work -> copy_block -> memcmp and main -> work ->
# checksum. libc's memcmp sets up no frame pointer, so by frame pointers
# its samples show it under work, copy_block missing (the walk goes on
# from copy_block's frame record); with tables the tower is whole; with
# -f, copy_block copies with a loop of ours built with frame pointers and
# the tower is whole either way. memcmp,
# not the guide's memcpy: on arm64 with FEAT_MOPS (7.x guests) glibc's
# memcpy is one instruction that QEMU runs as the host's memcpy and takes
# no time to sample (6 of 3,918 samples); memcmp costs its time on every
# ISA. record's summary and report give the share of samples whose leaf
# keeps no frame pointer and name memcmp; it covers the samples with a
# leaf in libc. Then shortlived -l (a third of each child in memcpy), for
# its share.
# timeout: 300
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

FS=flamestat
command -v $FS >/dev/null || die "no flamestat tool in the guest"
# The tool loads the module itself (autostart=0).
fs_loaded && rmmod flamestat

# meta FILE KEY: a number of FILE's '# flamestat:' header.
meta() { sed -n "1s/.* $2=\([0-9]*\).*/\1/p" "$1"; }

# Counts of samples throughout (--count samples): the header's frameless
# figures are samples, and folded output counts periods by default.

# --- libc's memcmp by frame pointers: copy_block missing above it ---
check "record --unwind fp -- memcopy -c" sh -c "$FS record --unwind fp --count samples -U --header -o $FS_TMP/memcmp-libc.folded --raw $FS_TMP/memcmp-libc.fstat -- $FS_WL/memcopy -c 4 2>$FS_TMP/libc.err"
sed 's/^/#   stderr: /' "$FS_TMP/libc.err"
artifact "$FS_TMP/memcmp-libc.folded"
artifact "$FS_TMP/libc.err" memcmp-libc.err
f=$FS_TMP/memcmp-libc.folded
total=$(fs_sum "$f" '^memcopy;')
skipped=$(fs_sum "$f" '^memcopy;(.*;)?main;work;[^;]*memcmp[^;]*$')
whole=$(fs_sum "$f" '^memcopy;(.*;)?main;work;copy_block;[^;]*memcmp[^;]*$')
sums=$(fs_sum "$f" '^memcopy;(.*;)?main;work;checksum$')
log "libc: $total samples; memcmp under work (copy_block missing) $skipped, under copy_block $whole; checksum $sums"
expect_ge "memcopy sampled" "$total" 1000
expect_ge "memcmp's samples show it under work, copy_block missing (>= 20%, x5)" $((skipped * 5)) "$total"
expect_le "none show it under copy_block (<= 1%, x100)" $((whole * 100)) "$total"
expect_ge "checksum, a leaf with its frame pointer, under work (>= 5%, x20)" $((sums * 20)) "$total"

# What the tool says: the share, in the header, the summary and the report.
user=$(meta "$f" user_samples)
frameless=$(meta "$f" frameless)
# The samples whose leaf is in libc (by address: file+offset frames).
$FS fold --count samples --addresses "$FS_TMP/memcmp-libc.fstat" >"$FS_TMP/memcmp-libc.addr" 2>/dev/null
inlibc=$(awk '{c = $NF; s = $0; sub(/ [0-9]+$/, "", s); n = split(s, a, ";")
	if (a[n] ~ /^libc\.so\.6\+0x/) t += c} END {print t + 0}' "$FS_TMP/memcmp-libc.addr")
log "libc: header user_samples=$user frameless=$frameless; leaves in libc.so.6: $inlibc"
log "libc: $(grep -o 'have their leaf in code without a frame pointer ([^)]*)' "$FS_TMP/libc.err")"
expect_ge "header: user samples counted" "${user:-0}" "$total"
expect_ge "frameless leaves: every leaf in libc (>= 95% of them, x100)" $((${frameless:-0} * 100)) $((inlibc * 95))
expect_le "frameless leaves: few more than libc's (<= libc's + 5% of the user samples, x100)" \
	$((${frameless:-0} * 100)) $((inlibc * 100 + ${user:-0} * 5))
check "record's summary: the share, memcmp named" \
	grep -Eq '^flamestat record: warning: [0-9.]+% of the samples with a user stack have their leaf in code without a frame pointer \(libc\.so\.6 [^ ]*memcmp' "$FS_TMP/libc.err"
check "record's summary: what it means" grep -q "the caller of such a function is missing from its stack and its time shows in the caller's caller" "$FS_TMP/libc.err"
t0=$(now_ms)
$FS report "$FS_TMP/memcmp-libc.fstat" >"$FS_TMP/memcmp-libc.report" 2>&1
t1=$(now_ms)
artifact "$FS_TMP/memcmp-libc.report"
log "report of the recording: $((t1 - t0)) ms"
check "report: the note, memcmp named" \
	grep -Eq '^# note: [0-9.]+% of the samples with a user stack have their leaf in code without a frame pointer \(libc\.so\.6 [^ ]*memcmp' "$FS_TMP/memcmp-libc.report"

# --- the default walk, with unwind tables: libc's memcmp under copy_block ---
check "record -- memcopy -c" sh -c "$FS record --count samples -U --header -o $FS_TMP/memcmp-tables.folded -- $FS_WL/memcopy -c 4 2>$FS_TMP/tables.err"
sed 's/^/#   stderr: /' "$FS_TMP/tables.err"
artifact "$FS_TMP/memcmp-tables.folded"
f=$FS_TMP/memcmp-tables.folded
in_memcmp=$(fs_sum "$f" '^memcopy;(.*;)?main;work;([^;]*;)?[^;]*memcmp[^;]*$')
whole=$(fs_sum "$f" '^memcopy;(.*;)?main;work;copy_block;[^;]*memcmp[^;]*$')
frameless=$(meta "$f" frameless)
log "tables: memcmp's samples $in_memcmp, under copy_block $whole; header frameless=$frameless"
expect_ge "tables: memcmp sampled" "$in_memcmp" 200
expect_ge "tables: >= 95% of memcmp's samples under copy_block (x100 vs x95)" \
	$((whole * 100)) $((in_memcmp * 95))
check "tables: the summary says how the stacks were walked" \
	grep -Eq '^flamestat record: user stacks: [<>]?[0-9.]+% by unwind tables' "$FS_TMP/tables.err"
check_not "tables: no frameless-leaf warning" \
	grep -q 'have their leaf in code without a frame pointer' "$FS_TMP/tables.err"

# --- our own copy loop, with its frame pointer: the whole tower ---
check "record -- memcopy -f" sh -c "$FS record --count samples -U --header -o $FS_TMP/copy-fp.folded -- $FS_WL/memcopy -f 4 2>$FS_TMP/fp.err"
sed 's/^/#   stderr: /' "$FS_TMP/fp.err"
artifact "$FS_TMP/copy-fp.folded"
f=$FS_TMP/copy-fp.folded
total=$(fs_sum "$f" '^memcopy;')
whole=$(fs_sum "$f" '^memcopy;(.*;)?main;work;copy_block;copy_words$')
skipped=$(fs_sum "$f" '^memcopy;(.*;)?main;work;copy_words$')
user=$(meta "$f" user_samples)
frameless=$(meta "$f" frameless)
log "frame pointers: $total samples; copy_words under copy_block $whole, under work $skipped; header user_samples=$user frameless=$frameless"
expect_ge "memcopy -f sampled" "$total" 1000
expect_ge "copy_words under copy_block: the whole tower (>= 20%, x5)" $((whole * 5)) "$total"
# (its first instructions, before its frame is set up: the walk skips
# copy_block there too)
expect_le "copy_words under work: its prologue only (<= 2%, x50)" $((skipped * 50)) "$total"
expect_le "frameless leaves: start-up and prologues only (<= 5%, x20)" $((${frameless:-0} * 20)) "${user:-0}"

# --- shortlived -l: a third of each child's work in memcpy ---
limit=60
fs_debug_kernel && limit=300
check "record --unwind fp -- shortlived -l" sh -c "$FS record --unwind fp --count samples -U --header -o $FS_TMP/short.folded -- $FS_WL/shortlived -l -n 100 -m 10 $limit 2>$FS_TMP/short.err"
sed 's/^/#   stderr: /' "$FS_TMP/short.err"
artifact "$FS_TMP/short.folded"
f=$FS_TMP/short.folded
user=$(meta "$f" user_samples)
frameless=$(meta "$f" frameless)
work=$(fs_sum "$f" '^shortlived;(.*;)?main;child_libs_main(;|$)')
libc=$(fs_sum "$f" '^shortlived;(.*;)?main;child_libs_main;[^;]*mem(cpy|move)[^;]*$')
log "shortlived -l: header user_samples=$user frameless=$frameless; under child_libs_main $work, memcpy directly under it (child_libc missing) $libc"
expect_ge "shortlived -l: children sampled" "${user:-0}" 500
check "shortlived -l: the summary tells the share" \
	grep -q 'have their leaf in code without a frame pointer' "$FS_TMP/short.err"
expect_ge "shortlived -l: frameless leaves cover memcpy's samples" "${frameless:-0}" "$libc"

check "unload" fs_unload
finish
