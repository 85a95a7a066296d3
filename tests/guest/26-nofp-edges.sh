#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The places of a function where a walk by unwind tables is easiest to get
# wrong (issue 24), as a bare insmod gives them in /dev/flamestat, from
# nofp -m edges (tests/workloads/nofp-edges.S: hand-written x86-64 with
# the CFI a compiler emits): a sample on a function's first instruction,
# in each step of its prologue and epilogue (the CFA 8, 16, 24, 16 and 8
# bytes above the stack pointer), in a leaf whose CFA is in rax after the
# stack was realigned (OpenSSL's assembly), after a tail call, in a
# PLT stub and the library function behind it, and under a recursion that
# keeps a number in the frame pointer's register (its own loop in the
# walker) below a frame whose CFA is that register. Every step is a symbol of
# its own that QEMU can deliver an interrupt on (see the .S file): each
# must be sampled, and >= 99% of its samples must carry the whole chain
# under main, down to _start. As in 26-nofp, a warm-up run first, and
# the measured process counted from its second second on.
# In a guest under -icount (one vCPU): QEMU's plain TCG takes a timer
# interrupt only where a translation block starts, and how the samples
# spread over the steps then depends on the host's timing (one full CI
# run gave pop1 3,065 samples and the ret none, where this machine's runs
# give every step 50 to 1,300); under -icount the interrupt comes at an
# exact instruction count, wherever that falls (every step 21 or more).
# timeout: 200
# vm: name=icount smp=1 icount=1
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

[ "$(uname -m)" = x86_64 ] ||
	die "nofp -m edges is hand-written x86-64 code; the module walks by unwind tables on x86-64 only (issue 24)"
SECS=8

fs_load
check "warm-up: nofp -m edges" wl nofp -m edges 1
wl_bg nofp -m edges $((SECS + 1))
sleep 1
fs_read "$FS_TMP/before"
check "nofp -m edges" wl_wait
fs_read "$FS_TMP/after"
fs_delta "$FS_TMP/before" "$FS_TMP/after" | grep '^nofp;' | fs_symbolize >"$FS_TMP/edges.sym"
artifact "$FS_TMP/edges.sym"
sort -t' ' -k2 -n -r "$FS_TMP/edges.sym" | head -n 16 | sed 's/^/#   /'

# leaf CALLERS LEAF [MIN]: of the samples whose user leaf is LEAF (kernel
# frames after it allowed), >= MIN (default 3; the ret, one instruction,
# gets the fewest: 21 in 8 s on 6.1) taken, and >= 99% with _start,
# libc's start-up, main and CALLERS under it.
K='(;[^;]*_\[k\])*$'
START='_start;libc\.so\.6\+0x[0-9a-f]+;(libc\.so\.6\+0x[0-9a-f]+;)?main'
leaf() {
	_all=$(fs_sum "$FS_TMP/edges.sym" "^nofp;(.*;)?$2$K")
	_good=$(fs_sum "$FS_TMP/edges.sym" "^nofp;$START;$1;$2$K")
	log "$2: $_all samples, $_good whole from _start"
	expect_ge "$2: sampled" "$_all" "${3:-3}"
	expect_ge "$2: >= 99% whole from _start (x100 vs x99)" $((_good * 100)) $((_all * 99))
}

# The first instruction (CFA = rsp + 8), one and two registers pushed
# (+ 16, + 24; the body), one popped (+ 16), the ret (+ 8).
for s in nf_edge nf_edge_push1 nf_edge_body nf_edge_pop1 nf_edge_ret; do
	leaf nf_edges "$s"
done
# The CFA in rax, the stack realigned to 64 bytes.
leaf nf_aligned nf_realign
leaf nf_aligned nf_realign_body
# nf_tail_mid jumped to nf_tail_leaf: its caller's frame is next.
leaf nf_tail_top nf_tail_leaf
expect_eq "no nf_tail_mid under nf_tail_leaf" \
	"$(fs_sum "$FS_TMP/edges.sym" "nf_tail_mid;nf_tail_leaf$K")" 0
# A recursion whose frames keep a number in rbp (CFA = rsp + 16, rbp
# saved), under a frame whose CFA is rbp + 16: rbp restored through all
# nine frames, or nf_rec_top's caller is lost.
leaf 'nf_recursion;nf_rec_top;nf_rec(;nf_rec){8}' nf_rec_leaf
# The PLT stub (the PLT's own rule), then the library function.
leaf nf_plt 'nf_lib_nop@plt'
leaf nf_plt nf_lib_nop

# (A walk that stops on a register it cannot read is honest, and happens:
# ld.so's lazy binding keeps its CFA in rbx, which a caller's frame does
# not restore. Logged, not asserted; the chains above are.)
for s in unwind_table unwind_mixed unwind_fp unwind_stop_no_table unwind_stop_unsupported unwind_stop_register unwind_stop_bad; do
	log "stats: $s $(fs_stat $s)"
done
check "unload" fs_unload
finish
