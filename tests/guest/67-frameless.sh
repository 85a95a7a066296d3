#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What a library without frame pointers (Debian's libc) does to a stack,
# and that flamestat says so. memcopy: main -> work -> copy_block -> memcpy
# and main -> work -> checksum. With libc's memcpy the samples in memcpy
# show it under work, copy_block missing (memcpy sets up no frame pointer,
# so the walk goes on from copy_block's frame record); with -f, copy_block
# copies with a loop of ours built with frame pointers and the tower is
# whole. record's summary and report give the share of samples whose leaf
# keeps no frame pointer and name memcpy; it covers the samples with a
# leaf in libc. Then shortlived -l (a third of each child in memcpy), for
# its share. The folded files are the guide's pair of graphs
# (docs/GUIDE.md, "Code without frame pointers").
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

# --- libc's memcpy: copy_block missing above it ---
check "record -- memcopy" sh -c "$FS record --count samples -U --header -o $FS_TMP/memcpy-libc.folded --raw $FS_TMP/memcpy-libc.fstat -- $FS_WL/memcopy 4 2>$FS_TMP/libc.err"
sed 's/^/#   stderr: /' "$FS_TMP/libc.err"
artifact "$FS_TMP/memcpy-libc.folded"
artifact "$FS_TMP/libc.err" memcpy-libc.err
f=$FS_TMP/memcpy-libc.folded
total=$(fs_sum "$f" '^memcopy;')
skipped=$(fs_sum "$f" '^memcopy;(.*;)?main;work;[^;]*mem(cpy|move)[^;]*$')
whole=$(fs_sum "$f" '^memcopy;(.*;)?main;work;copy_block;[^;]*mem(cpy|move)[^;]*$')
sums=$(fs_sum "$f" '^memcopy;(.*;)?main;work;checksum$')
log "libc: $total samples; memcpy under work (copy_block missing) $skipped, under copy_block $whole; checksum $sums"
expect_ge "memcopy sampled" "$total" 1000
expect_ge "memcpy's samples show it under work, copy_block missing (>= 20%, x5)" $((skipped * 5)) "$total"
expect_le "none show it under copy_block (<= 1%, x100)" $((whole * 100)) "$total"
# (checksum takes 10 to 11.5% of memcopy's time in these runs.)
expect_ge "checksum, a leaf with its frame pointer, under work (>= 5%, x20)" $((sums * 20)) "$total"

# What the tool says: the share, in the header, the summary and the report.
user=$(meta "$f" user_samples)
frameless=$(meta "$f" frameless)
# The samples whose leaf is in libc (by address: file+offset frames).
$FS fold --count samples --addresses "$FS_TMP/memcpy-libc.fstat" >"$FS_TMP/memcpy-libc.addr" 2>/dev/null
inlibc=$(awk '{c = $NF; s = $0; sub(/ [0-9]+$/, "", s); n = split(s, a, ";")
	if (a[n] ~ /^libc\.so\.6\+0x/) t += c} END {print t + 0}' "$FS_TMP/memcpy-libc.addr")
log "libc: header user_samples=$user frameless=$frameless; leaves in libc.so.6: $inlibc"
log "libc: $(grep -o 'have their leaf in code without a frame pointer ([^)]*)' "$FS_TMP/libc.err")"
expect_ge "header: user samples counted" "${user:-0}" "$total"
expect_ge "frameless leaves: every leaf in libc (>= 95% of them, x100)" $((${frameless:-0} * 100)) $((inlibc * 95))
expect_le "frameless leaves: few more than libc's (<= libc's + 5% of the user samples, x100)" \
	$((${frameless:-0} * 100)) $((inlibc * 100 + ${user:-0} * 5))
check "record's summary: the share, memcpy named" \
	grep -Eq '^flamestat record: warning: [0-9.]+% of the samples with a user stack have their leaf in code without a frame pointer \(libc\.so\.6 [^ ]*mem(cpy|move)' "$FS_TMP/libc.err"
check "record's summary: what it means" grep -q "the caller of such a function is missing from its stack and its time shows in the caller's caller" "$FS_TMP/libc.err"
t0=$(now_ms)
$FS report "$FS_TMP/memcpy-libc.fstat" >"$FS_TMP/memcpy-libc.report" 2>&1
t1=$(now_ms)
artifact "$FS_TMP/memcpy-libc.report"
log "report of the recording: $((t1 - t0)) ms"
check "report: the note, memcpy named" \
	grep -Eq '^# note: [0-9.]+% of the samples with a user stack have their leaf in code without a frame pointer \(libc\.so\.6 [^ ]*mem(cpy|move)' "$FS_TMP/memcpy-libc.report"

# --- our own copy loop, with its frame pointer: the whole tower ---
check "record -- memcopy -f" sh -c "$FS record --count samples -U --header -o $FS_TMP/memcpy-fp.folded -- $FS_WL/memcopy -f 4 2>$FS_TMP/fp.err"
sed 's/^/#   stderr: /' "$FS_TMP/fp.err"
artifact "$FS_TMP/memcpy-fp.folded"
f=$FS_TMP/memcpy-fp.folded
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
check "record -- shortlived -l" sh -c "$FS record --count samples -U --header -o $FS_TMP/short.folded -- $FS_WL/shortlived -l -n 100 -m 10 $limit 2>$FS_TMP/short.err"
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
