#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# User stacks of code built without frame pointers (issue 24), as a bare
# insmod gives them in /dev/flamestat: the module builds each mapped file's
# unwind table from its .eh_frame and walks with it. tests/workloads/nofp
# is built as Debian builds (-O2, no frame pointer), and runs on the
# host's Debian libc, which has none either. Each mode's samples in its
# leaf must carry the whole chain under main (>= 99%): a plain chain,
# qsort's callbacks through libc, a memcpy leaf in libc, callbacks from a
# frameless shared library, alloca (the CFA on the frame pointer), a
# signal handler (the trampoline, then the interrupted code), and a leaf
# in the vDSO (clock_gettime). The
# tables are built after the first samples that meet a file, which walk
# by frame pointer meanwhile, and a new process's maps are read in the
# module's worker after its first samples: a warm-up run comes first, and
# each measured process is counted from its second second on (what a
# profile of a running program sees). Then unwind=fp: the old, broken,
# stacks.
# timeout: 300
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

SECS=3

fs_load
# Warm-up: the tables of nofp, libnofp.so and libc get built.
check "warm-up: nofp -m qsort" wl nofp -m qsort 1
check "warm-up: nofp -m lib" wl nofp -m lib 1
for s in unwind_tables unwind_bytes unwind_uncached unwind_failed_none unwind_failed_bad unwind_failed_big unwind_failed_memory; do
	log "stats: $s $(fs_stat $s)"
done
expect_ge "tables built (nofp, libnofp.so, libc, ld.so)" "$(fs_stat unwind_tables)" 4
expect_eq "no table failed for lack of memory" "$(fs_stat unwind_failed_memory)" 0

# mode NAME RE LEAF: nofp -m NAME for SECS seconds; of its samples whose
# user leaf is LEAF (kernel frames after it allowed), >= 99% must match
# RE from main on.
mode() {
	wl_bg nofp -m "$1" $((SECS + 1))
	sleep 1
	sample_window "$1" nofp "nofp -m $1" wl_wait
	whole_count "$1" "$3" "$2"
	expect_whole "$1" "$3" 200
}

LIBC='libc\.so\.6\+0x[0-9a-f]+'
mode chain 'nf_a;nf_b;nf_c;nf_leaf' nf_leaf
mode qsort "nf_sort;($LIBC;)+nf_cmp" nf_cmp
mode memcpy "nf_copy;$LIBC" "$LIBC"
mode lib 'nf_via_lib;nf_lib_apply;nf_cb' nf_cb
mode alloca 'nf_alloca;nf_leaf' nf_leaf
# The handler's frame, then the signal trampoline, then the interrupted
# code: the walk goes through the signal frame. The trampoline is glibc's
# __restore_rt on x86-64, the vDSO's __kernel_rt_sigreturn on arm64. The
# interrupted code is nf_spin, or now and then main itself or its
# clock_gettime() (in libc, then the vDSO) between two rounds.
VDSO='\[vdso\]\+0x[0-9a-f]+'
case $(uname -m) in
aarch64) TRAMP=$VDSO ;;
*) TRAMP=$LIBC ;;
esac
mode signal "(nf_spin;|($LIBC;)?($VDSO;)*)$TRAMP;nf_handler;nf_leaf" nf_leaf
spin=$(fs_sum "$FS_TMP/signal.sym" "^nofp;(.*;)?main;nf_spin;$TRAMP;nf_handler;nf_leaf$_k")
expect_ge "signal: >= 90% of them interrupted nf_spin (x10 vs x9)" \
	$((spin * 10)) $((all * 9))
# The vDSO has no file: its table is built from the module loader's
# mapping of it (x86-64: from its CFI; arm64, whose vDSO has none: one
# rule, once its code is proven frameless leaves). A leaf in it keeps
# glibc's clock_gettime and nf_clock.
log "stats: unwind_vdso_bytes $(fs_stat unwind_vdso_bytes)"
expect_ge "the vDSO's table was built" "$(fs_stat unwind_vdso_bytes)" 1
mode clock "nf_clock;$LIBC;($VDSO;)*$VDSO" "$VDSO"

for s in unwind_table unwind_mixed unwind_fp unwind_stop_no_table unwind_stop_unsupported unwind_stop_register unwind_stop_bad; do
	log "stats: $s $(fs_stat $s)"
done
expect_ge "samples walked by table" "$(fs_stat unwind_table)" 1000
check "unload" fs_unload

# unwind=fp: frame pointers only, as before tables: nf_b has no frame
# record, so the chain breaks.
fs_load unwind=fp
check "unwind=fp: nofp -m chain" wl nofp -m chain $SECS
fs_read "$FS_TMP/fp.folded"
grep '^nofp;' "$FS_TMP/fp.folded" | fs_symbolize >"$FS_TMP/fp.sym"
artifact "$FS_TMP/fp.sym"
all=$(fs_sum "$FS_TMP/fp.sym" '^nofp;(.*;)?nf_leaf(;[^;]*_\[k\])*$')
good=$(fs_sum "$FS_TMP/fp.sym" '^nofp;(.*;)?main;nf_a;nf_b;nf_c;nf_leaf(;[^;]*_\[k\])*$')
log "unwind=fp: $all samples in nf_leaf, $good whole"
expect_ge "unwind=fp: sampled in nf_leaf" "$all" 200
expect_le "unwind=fp: the chain is broken (<= 5% whole, x20)" $((good * 20)) "$all"
expect_eq "unwind=fp: no sample walked by table" "$(fs_stat unwind_table)" 0
check "unload" fs_unload
finish
