// SPDX-License-Identifier: GPL-2.0
/*
 * AArch64 user stacks by unwind tables (ehtab.h): code built without frame
 * records, as GCC builds at -O2 and Debian's libraries are, keeps its
 * callers.
 *
 * As on x86-64 (kmod/arch/x86/ehwalk.c), each frame's PC is looked up in
 * the table of the file mapped there, and code with no table is walked by
 * frame record. What differs here:
 * - The return address of a leaf, or of a function still in its
 *   prologue, is in the link register (a rule's ra_off 0): only the
 *   interrupted frame's LR is known, so only that frame can use it.
 * - A frame record ({x29, x30}) sits at the bottom of its frame, not at
 *   the CFA: after a step by frame record the caller's SP is unknown, and
 *   a rule that needs it is followed by frame record again.
 * - Return addresses may carry a pointer-authentication code (the
 *   libraries' -mbranch-protection): it is stripped from each.
 * - The signal trampoline (the vDSO's __kernel_rt_sigreturn, or a libc's
 *   restorer: the same two instructions) is recognised by its
 *   instructions, and the interrupted registers are read from the signal
 *   frame at SP, as libgcc's unwinder does: the vDSO's CFI for it gives
 *   only the interrupted LR.
 */
#include <linux/ptrace.h>
#include <linux/signal.h>
#include <linux/stddef.h>
#include <linux/unistd.h>
#include <asm/ucontext.h>

#include "../../arch.h"
#include "../../ehwalk.h"
#include "../../uapi/flamestat.h"

/* DWARF register numbers of AArch64. */
#define FST_DW_FP	29
#define FST_DW_LR	30
#define FST_DW_SP	31

/* mov x8, #__NR_rt_sigreturn; svc #0, as one little-endian load. */
#define FST_SIGTRAMP	0xd4000001d2801168ULL
static_assert(__NR_rt_sigreturn == 139);

/* The interrupted registers in the frame at the trampoline's SP. */
#define FST_SIGREG(f)	(sizeof(siginfo_t) + \
			 offsetof(struct ucontext, uc_mcontext.f))

/* The shape of most rules: CFA = SP + n. */
static const struct fst_eh_rule fst_eh_sp_rule = {
	.kind = FST_EH_CFA, .reg = FST_DW_SP,
};

/* Hard-irq: is @pc the signal trampoline? Its code read, faults disabled. */
static __always_inline bool fst_sigtramp(unsigned long pc)
{
	u64 insns;

	if ((pc & 3) || pc > FST_EH_UADDR_MAX)
		return false;
	return !__get_user(insns, (const u64 __user *)pc) &&
	       insns == FST_SIGTRAMP;
}

/**
 * fst_walk_user_eh() - a 64-bit task's user stack, by unwind tables
 * @regs: the task's user registers
 * @interrupted: @regs are the interrupted registers (the sample hit user
 *	mode); not needed on arm64 (see fst_walk_user())
 * @frames: where the frames go, leaf first; frames[0] is the user PC
 * @max: room in @frames
 * @flags: FLAMESTAT_STACKF_UNWIND_* , _USER_FAULT and _USER_TRUNCATED are set here
 * @db: the process database
 * @id: the task's address space in @db
 * @tables_only: code without a table ends the stack (no frame record walk)
 * @rc: this CPU's rule cache, or NULL
 * @wi: set to why the walk stopped early (-1: it did not) and the longest
 *	run of one return address it stored (x86-64: a recursion loop's)
 *
 * Context: hard-irq (hrtimer): must not sleep, allocate or take sleeping
 * locks (RCU read side only).
 * Return: the number of frames stored.
 */
unsigned int fst_walk_user_eh(struct pt_regs *regs, bool interrupted,
			      u64 *frames, unsigned int max, u32 *flags,
			      struct fst_procdb *db, u32 id, bool tables_only,
			      struct fst_eh_rcache *rc,
			      struct fst_walk_info *wi)
{
	unsigned long pc = instruction_pointer(regs), sp = regs->sp;
	unsigned long fp = regs->regs[FST_DW_FP], lr = regs->regs[FST_DW_LR];
	/* As on x86-64: pc where it is exact, else the call before it. */
	unsigned long look = pc;
	/* The address r is the rule of (a recursion's: no search); no PC is ~0UL. */
	unsigned long r_look = ~0UL;
	unsigned long cfa, ra, nfp;
	const struct fst_eh_rule *r = &fst_eh_no_rule;
	struct fst_eh_cursor cur = { };
	const struct fst_maps *maps;
	u64 seq;
	/* Which registers of the current frame are known. */
	bool fp_ok = true, sp_ok = true, lr_ok = true;
	bool by_table = false, by_fp = false;
	unsigned int n = 0;

	wi->stop = -1;
	wi->run_len = 0;
	if (!max)
		return 0;
	frames[n++] = pc;
	maps = fst_eh_walk_begin(db, id, rc);
	seq = maps->seq;
	if (!user_access_begin((const void __user *)0, FST_EH_UADDR_MAX))
		goto out_nouser;
	while (n < max) {
		if (look != r_look) {
			r = fst_eh_rule_at(db, maps, seq, &cur, rc, look);
			r_look = look;
		}
		/*
		 * The signal trampoline first. Its rule, if any, is the
		 * vDSO's: the leaf rule (ra_off 0), or where the vDSO has
		 * CFI, the frame record the kernel put in the signal frame,
		 * on x29, which holds the interrupted LR and not its PC. No
		 * table (NONE, ra_off 0): a libc's restorer, say.
		 */
		if (unlikely(!r->ra_off || r->reg == FST_DW_FP) && sp_ok &&
		    fst_sigtramp(pc)) {
			/* The interrupted context, in the signal frame at SP. */
			unsafe_get_user(cfa, fst_uword(sp + FST_SIGREG(sp)),
					efault);
			unsafe_get_user(ra, fst_uword(sp + FST_SIGREG(pc)),
					efault);
			unsafe_get_user(fp, fst_uword(sp + FST_SIGREG(regs[29])),
					efault);
			unsafe_get_user(lr, fst_uword(sp + FST_SIGREG(regs[30])),
					efault);
			fp_ok = true;
			lr_ok = true;
			by_table = true;
			if (!ra)
				break;
			frames[n++] = ra;
			sp = cfa;
			pc = ra;
			/* The interrupted PC is exact, not after a call. */
			look = ra;
			continue;
		}
		if (likely(fst_eh_kind_reg(r) ==
			   fst_eh_kind_reg(&fst_eh_sp_rule)) && sp_ok) {
			cfa = sp + r->cfa_off;
			goto have_cfa;
		}
		if (r->kind == FST_EH_CFA && r->reg == FST_DW_FP && fp_ok) {
			cfa = fp + r->cfa_off;
			goto have_cfa;
		}
		if (r->kind == FST_EH_STOP)
			break;
		if (r->kind == FST_EH_UNSUP && tables_only) {
			wi->stop = FLAMESTAT_UNWIND_STOP_UNSUP;
			break;
		}
		/*
		 * Here: no table; a rule the walker cannot follow; or one
		 * that needs a register this frame no longer knows. The frame
		 * record at FP, {caller's FP, return address}, unless only
		 * tables may be used.
		 */
		if (tables_only || !fp_ok) {
			wi->stop = r->kind == FST_EH_UNSUP ?
				FLAMESTAT_UNWIND_STOP_UNSUP :
				r->kind == FST_EH_NONE ?
				FLAMESTAT_UNWIND_STOP_NO_TABLE :
				FLAMESTAT_UNWIND_STOP_REG;
			break;
		}
		if ((fp & 7) || (sp_ok && fp < sp) ||
		    fp > FST_EH_UADDR_MAX - sizeof(long))
			break;
		unsafe_get_user(nfp, fst_uword(fp), efault);
		unsafe_get_user(ra, fst_uword(fp + sizeof(long)), efault);
		by_fp = true;
		ra = fst_strip_pac(ra);
		if (!ra)
			break;
		frames[n++] = ra;
		if (nfp <= fp)
			break;
		/*
		 * The record is at the bottom of its frame: the caller's SP is
		 * above it (a bound, for the checks), where exactly is unknown.
		 */
		sp = fp + 2 * sizeof(long);
		fp = nfp;
		sp_ok = false;
		lr_ok = false;
		pc = ra;
		look = ra - 1;
		continue;
have_cfa:
		/*
		 * The caller's frame lies above this one: the stack grows
		 * down. A frameless leaf's CFA is its SP (the return address
		 * is in LR); any other frame's is higher.
		 */
		if (cfa < sp || (cfa == sp && r->ra_off)) {
			wi->stop = FLAMESTAT_UNWIND_STOP_BAD;
			break;
		}
		/* Near either end, a load could leave user space: a fault. */
		if (cfa - FST_EH_OFF_SPAN > FST_EH_UADDR_MAX - 2 * FST_EH_OFF_SPAN)
			goto efault;
		if (!r->ra_off) {
			/* In LR: known in the interrupted frame only. */
			if (!lr_ok) {
				wi->stop = FLAMESTAT_UNWIND_STOP_REG;
				break;
			}
			ra = lr;
		} else {
			unsafe_get_user(ra, (const unsigned long __user *)
					(cfa + r->ra_off), efault);
		}
		if (fst_eh_restore_fp(r, cfa, &fp, &fp_ok))
			goto efault;
		lr_ok = false;
		by_table = true;
		ra = fst_strip_pac(ra);
		if (!ra)
			break;
		frames[n++] = ra;
		/* The CFA is the caller's SP: known again after a record step. */
		sp = cfa;
		sp_ok = true;
		pc = ra;
		look = ra - 1;
	}
	if (n == max && wi->stop < 0)
		*flags |= FLAMESTAT_STACKF_USER_TRUNCATED;
	goto out;
efault:
	*flags |= FLAMESTAT_STACKF_USER_FAULT;
out:
	user_access_end();
out_nouser:
	fst_eh_walk_end(flags, by_table, by_fp, tables_only, wi->stop);
	return n;
}
