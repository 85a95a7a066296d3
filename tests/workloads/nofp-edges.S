/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hand-written x86-64 functions for nofp -m edges, with the call frame
 * information a compiler emits for them: samples in a prologue, on a
 * function's first instruction, in an epilogue, in a leaf whose CFA is in
 * another register (OpenSSL's assembly), after a tail call, and under a
 * recursion that saves rbp and uses it for something else.
 *
 * Each step of a prologue or epilogue gets its own symbol and ends with a
 * jump. QEMU's TCG takes an interrupt only where a translation block
 * starts, that is after a jump or at a call's target, and the longer the
 * block before, the more often: each step does some straight-line work
 * (FILL) before its jump, so that samples land on every step, and the step
 * a sample landed on is its leaf's name. On real CPUs and KVM, samples land
 * anywhere anyway (within a step, the CFA is the step's).
 */
#ifdef __x86_64__
	/* Real work: QEMU translates a nop into nothing. r11 is scratch. */
	.macro FILL
	.rept 48
	lea	1(%r11), %r11
	.endr
	.endm

	.text

/*
 * unsigned long nf_edge(unsigned long x): two registers saved and
 * restored around a short loop. The CFA is rsp + 8 at nf_edge (the first
 * instruction), + 16 at nf_edge_push1, + 24 in nf_edge_body, + 16 at
 * nf_edge_pop1 and + 8 at nf_edge_ret (the epilogue's ret).
 */
	.globl	nf_edge
	.type	nf_edge, @function
	.p2align 4
nf_edge:
	.cfi_startproc
	push	%rbx
	.cfi_def_cfa_offset 16
	.cfi_offset %rbx, -16
	FILL
	jmp	nf_edge_push1
	.size	nf_edge, . - nf_edge

	.type	nf_edge_push1, @function
nf_edge_push1:
	push	%r12
	.cfi_def_cfa_offset 24
	.cfi_offset %r12, -24
	FILL
	jmp	nf_edge_body
	.size	nf_edge_push1, . - nf_edge_push1

	.type	nf_edge_body, @function
nf_edge_body:
	mov	%rdi, %rbx
	mov	$8, %r12d
1:	lea	1(%rbx,%rbx,2), %rbx
	dec	%r12d
	jnz	1b
	mov	%rbx, %rax
	pop	%r12
	.cfi_def_cfa_offset 16
	.cfi_restore %r12
	FILL
	jmp	nf_edge_pop1
	.size	nf_edge_body, . - nf_edge_body

	.type	nf_edge_pop1, @function
nf_edge_pop1:
	pop	%rbx
	.cfi_def_cfa_offset 8
	.cfi_restore %rbx
	FILL
	jmp	nf_edge_ret
	.size	nf_edge_pop1, . - nf_edge_pop1

	.type	nf_edge_ret, @function
nf_edge_ret:
	ret
	.cfi_endproc
	.size	nf_edge_ret, . - nf_edge_ret

/*
 * void nf_realign(unsigned long n): as OpenSSL's block functions begin
 * (sha256_block_data_order and others): the stack pointer saved in rax,
 * the CFA defined on rax, the stack realigned to 64 bytes. Only a leaf
 * can do this: rax is read from the interrupted registers.
 */
	.globl	nf_realign
	.type	nf_realign, @function
	.p2align 4
nf_realign:
	.cfi_startproc
	mov	%rsp, %rax
	.cfi_def_cfa_register %rax
	sub	$128, %rsp
	and	$-64, %rsp
	FILL
	jmp	nf_realign_body
	.size	nf_realign, . - nf_realign

	.type	nf_realign_body, @function
nf_realign_body:
	mov	%rdi, %rcx
1:	mov	%rcx, (%rsp)
	dec	%rcx
	jnz	1b
	mov	%rax, %rsp
	.cfi_def_cfa_register %rsp
	ret
	.cfi_endproc
	.size	nf_realign_body, . - nf_realign_body

/*
 * unsigned long nf_tail_mid(unsigned long x): a tail call, as -O2 emits
 * one: nf_tail_leaf returns straight to nf_tail_mid's caller, and no walk
 * can see nf_tail_mid (perf's neither).
 */
	.globl	nf_tail_mid
	.type	nf_tail_mid, @function
	.p2align 4
nf_tail_mid:
	.cfi_startproc
	add	$1, %rdi
	jmp	nf_tail_leaf
	.cfi_endproc
	.size	nf_tail_mid, . - nf_tail_mid

/*
 * unsigned long nf_rec_top(unsigned long n): a frame on rbp (CFA = rbp +
 * 16) around a recursion whose frames keep rbp as a callee-saved register
 * and use it for a number (CFA = rsp + 16, the caller's rbp at CFA - 16):
 * to find nf_rec_top's CFA, a walk must restore rbp from the slot of the
 * outermost nf_rec frame, through all of them. nf_rec(n) recurses n times,
 * then calls nf_rec_leaf.
 */
	.globl	nf_rec_top
	.type	nf_rec_top, @function
	.p2align 4
nf_rec_top:
	.cfi_startproc
	push	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	mov	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	/* Room below the frame record: its CFA is not rsp + 16. */
	sub	$32, %rsp
	call	nf_rec
	leave
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	nf_rec_top, . - nf_rec_top

	.type	nf_rec, @function
	.p2align 4
nf_rec:
	.cfi_startproc
	push	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	/* rbp holds a number, not a frame's address. */
	lea	0x5a5a(%rdi), %rbp
	test	%rdi, %rdi
	jz	1f
	dec	%rdi
	call	nf_rec
	jmp	2f
1:	call	nf_rec_leaf
2:	add	%rbp, %rax
	pop	%rbp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	nf_rec, . - nf_rec

	.type	nf_rec_leaf, @function
	.p2align 4
nf_rec_leaf:
	.cfi_startproc
	mov	%rdi, %rax
	mov	$2, %ecx
1:	FILL
	dec	%ecx
	jnz	1b
	ret
	.cfi_endproc
	.size	nf_rec_leaf, . - nf_rec_leaf
#endif

	.section .note.GNU-stack, "", @progbits
