#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Every frame of a short-lived process is named, libraries included. 300
# children of 10 ms each (shortlived -l: a third in their own code, a
# third in libc's memcpy, a third in libfsbusy.so, which they dlopen()
# after exec): no user frame of their stacks may be a bare address (a
# frame outside every recorded mapping of its process), and each of the
# three parts is named: main;child_libs_main;child_work;child_leaf, a leaf
# in libc.so.6+0x..., and lib_hot;lib_inner in libfsbusy.so. The process
# is first seen while ld.so runs, before libc and the plugin are mapped;
# the maps it ends with must be the ones recorded.
# timeout: 240
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

fs_load
# SECONDS bounds the spawning: the debug kernel forks and execs several
# times slower under TCG.
limit=90
fs_debug_kernel && limit=400
out=$(wl shortlived -l -n 300 -m 10 -j 2 "$limit") || not_ok "shortlived -l exited with status $?"
expect_eq "shortlived ran its children" "$out" "children 300"
check "stop" fs_write stop
fs_read "$FS_TMP/libs.folded"
artifact "$FS_TMP/libs.folded"
grep '^shortlived;' "$FS_TMP/libs.folded" | fs_symbolize >"$FS_TMP/libs.sym"
artifact "$FS_TMP/libs.sym"
# Their work, under main: ld.so's and libc's start-up code keeps no frame
# pointers, and walks through it end in values that are no address (the
# unwinding issue), so stacks outside main are not judged here.
work='^shortlived;(.*;)?main;child_libs_main(;|$)'
total=$(fs_sum "$FS_TMP/libs.sym" "$work")
# A bare address: a user frame (not _[k]) that is only 0x...
grep -E 'main;child_libs_main(;| )' "$FS_TMP/libs.sym" | grep -E ';0x[0-9a-f]+(;| )' >"$FS_TMP/raw.sym"
raw=$(fs_sum "$FS_TMP/raw.sym")
own=$(fs_sum "$FS_TMP/libs.sym" '^shortlived;(.*;)?main;child_libs_main;child_work;child_leaf(;[^;]*_\[k\])*$')
libc=$(fs_sum "$FS_TMP/libs.sym" '^shortlived;(.*;)?main;child_libs_main;(.*;)?libc\.so\.6\+0x[0-9a-f]+(;[^;]*_\[k\])*$')
dl=$(fs_sum "$FS_TMP/libs.sym" '^shortlived;(.*;)?main;child_libs_main;child_dl;lib_hot;lib_inner(;[^;]*_\[k\])*$')
log "$total samples under main: $raw with a bare address, $own in child_leaf, $libc with a libc leaf, $dl in lib_hot;lib_inner"
sort -t' ' -k2 -n -r "$FS_TMP/raw.sym" | head -n 5 | sed 's/^/#   /'
# 300 x 10 ms of CPU at 997 Hz: about 3000 samples, 1000 per part; part of
# each part is the clock_gettime() system calls that time it, more so on a
# debug kernel, so each is asked for a tenth.
expect_ge "children sampled under main" "$total" 1000
expect_eq "no bare address in their stacks" "$raw" 0
expect_ge "their own code named (>= 10%, x10)" $((own * 10)) "$total"
expect_ge "libc's memcpy named as libc.so.6+0x... (>= 10%, x10)" $((libc * 10)) "$total"
expect_ge "the dlopen()ed library named lib_hot;lib_inner (>= 10%, x10)" $((dl * 10)) "$total"
check "unload" fs_unload
finish
