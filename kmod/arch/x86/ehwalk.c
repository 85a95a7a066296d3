// SPDX-License-Identifier: GPL-2.0
/*
 * x86-64 user stacks by unwind tables (ehtab.h): code built without frame
 * pointers, as Debian's and RHEL's libraries are, keeps its callers.
 *
 * Each frame's PC is looked up in the table of the file mapped there: the
 * rule says where the caller's frame (the CFA) is, from the stack pointer,
 * the frame pointer or, in the interrupted frame, any register, and where
 * the return address and the caller's frame pointer are saved. Code with
 * no table (JIT code, files whose table is not built yet) is walked by
 * frame pointer, as fst_walk_user() does, and the stack is marked so.
 *
 * Memory is read as fst_walk_user() reads it: range-checked loads with page
 * faults disabled, in one user-access section.
 */
#include <linux/ptrace.h>

#include "../../arch.h"
#include "../../ehwalk.h"
#include "../../uapi/flamestat.h"

/* DWARF register numbers of x86-64. */
#define FST_DW_FP	6
#define FST_DW_SP	7

/* Hard-irq: the interrupted frame's register @reg (DWARF number), or 0. */
static __always_inline unsigned long fst_dw_reg(const struct pt_regs *regs, unsigned int reg)
{
	switch (reg) {
	case 0: return regs->ax;
	case 1: return regs->dx;
	case 2: return regs->cx;
	case 3: return regs->bx;
	case 4: return regs->si;
	case 5: return regs->di;
	case 6: return regs->bp;
	case 7: return regs->sp;
	case 8: return regs->r8;
	case 9: return regs->r9;
	case 10: return regs->r10;
	case 11: return regs->r11;
	case 12: return regs->r12;
	case 13: return regs->r13;
	case 14: return regs->r14;
	case 15: return regs->r15;
	default: return 0;
	}
}

/* The shape of most rules: CFA = SP + n. */
static const struct fst_eh_rule fst_eh_sp_rule = {
	.kind = FST_EH_CFA, .reg = FST_DW_SP,
};

/* The frames of one address a recursion has before the loop walks it. */
#define FST_EH_RECURSION_MIN	4

/* The walk's state between two frames. */
struct fst_eh_step {
	unsigned long look;	/* the address looked up for the last frame */
	unsigned long sp;
	unsigned long fp;
	u64 *out;		/* where the next frame goes */
};

/*
 * Hard-irq, in the user-access section: a recursion's frames. The frame
 * stored last returns to @st->look + 1 again, and the general loop just
 * walked a frame under @r, the rule of @st->look: so did the frame before,
 * and while the callers return there too each has the same rule, and a
 * step needs none of the general loop's lookups and tests. These loops
 * take the steps that are plain (the CFA above the last, within the range
 * every load of a rule may read; room for the frame) and leave the first
 * other one to the general loop, in the state it would have reached:
 * whatever it decides there (a bad CFA, a fault, a full stack) is decided
 * as before.
 * Return: 0 (@st->look is the next frame's, or the general loop takes the
 * next step), 1 (a return address of 0 ended the stack), or -EFAULT;
 * @st is the walk's state after the steps taken.
 */

/*
 * A loop's last step found @ra, not the recursion's address: the caller's
 * frame, stored at @o as the general loop would (a return address of 0
 * ends the stack). Return: as the loops'.
 */
static __always_inline int fst_eh_recursion_leave(struct fst_eh_step *st,
						  u64 *o, unsigned long ra)
{
	if (ra) {
		*o++ = ra;
		st->look = ra - 1;
	}
	st->out = o;
	return !ra;
}

/* fst_eh_recursion_fp() met a frame of another size. */
#define FST_EH_RESIZED	2

/*
 * CFA = FP + n as fst_eh_recursion_fp(), once a frame of another size
 * (alloca(), variable-length arrays) ended its loop: @st holds the frame
 * last stored (its CFA in SP) and its caller's FP. Here a step also tests
 * that FP, above the last and in range; the general loop decides any
 * other. So a recursion through alloca() is walked here to its end, not
 * by the general loop calling the loops again at every frame. Apart from
 * fst_eh_recursion_fp(), whose loop kept two more registers with it.
 * Return: as the loops'.
 */
static __always_inline int fst_eh_recursion_resized(const struct fst_eh_rule *r,
						    struct fst_eh_step *st,
						    u64 *end)
{
	const long cfa_off = r->cfa_off;
	const long ra_at = cfa_off + r->ra_off, fp_at = cfa_off + r->fp_off;
	const unsigned long fmax = FST_EH_UADDR_MAX - FST_EH_OFF_SPAN - cfa_off;
	const unsigned long again = st->look + 1;
	unsigned long f = st->sp - cfa_off, nf = st->fp, ra;
	u64 *o = st->out;

	while (o != end && nf > f && nf <= fmax) {
		f = nf;
		unsafe_get_user(ra, (const unsigned long __user *)(f + ra_at),
				efault);
		unsafe_get_user(nf, (const unsigned long __user *)(f + fp_at),
				efault);
		if (ra != again) {
			/* The frame at f returns elsewhere: the caller. */
			st->sp = f + cfa_off;
			st->fp = nf;
			return fst_eh_recursion_leave(st, o, ra);
		}
		*o++ = ra;
	}
	st->sp = f + cfa_off;
	st->fp = nf;
	st->out = o;
	return 0;
efault:
	st->out = o;
	return -EFAULT;
}

/*
 * CFA = FP + n, n > 0, with FP restored from its slot in every frame
 * (fst_eh_recursion_ok()). The general loop's last step took the same
 * rule: the CFA it left in SP is its FP + n, and the frame's size d is
 * from that FP to the one it restored. The loop's steps are those whose
 * caller's FP is d above again (a recursion's frames are of one size,
 * short of alloca() and variable-length arrays), so that the FPs it reads
 * from stay below fmax (the CFA in range) for as many steps as the
 * division at the start allows: a step tests the return address, the
 * next FP and the room, and nothing else. A frame of another size ends
 * it with FST_EH_RESIZED, for fst_eh_recursion_resized().
 */
static __always_inline int fst_eh_recursion_fp(const struct fst_eh_rule *r,
					       struct fst_eh_step *st,
					       u64 *end)
{
	const long cfa_off = r->cfa_off;
	const long ra_at = cfa_off + r->ra_off, fp_at = cfa_off + r->fp_off;
	const unsigned long fmax = FST_EH_UADDR_MAX - FST_EH_OFF_SPAN - cfa_off;
	const unsigned long again = st->look + 1;
	unsigned long f = st->fp, nf, ra, d;
	u64 *o = st->out, *stop;

	/* The general loop decides a CFA not above the last, or out of range. */
	if (f > fmax || f + cfa_off <= st->sp)
		return 0;
	d = f + cfa_off - st->sp;
	/* Steps: while there is room, and at most to the last FP <= fmax. */
	stop = o + min_t(unsigned long, end - o, (fmax - f) / d + 1);
	while (o != stop) {
		unsafe_get_user(ra, (const unsigned long __user *)(f + ra_at),
				efault);
		unsafe_get_user(nf, (const unsigned long __user *)(f + fp_at),
				efault);
		if (ra != again)
			goto caller;
		*o++ = ra;
		f += d;
		if (nf != f) {
			/* The frame at f - d stored: its caller's is nf. */
			f -= d;
			st->sp = f + cfa_off;
			st->fp = nf;
			st->out = o;
			return FST_EH_RESIZED;
		}
	}
	/* Steps all taken (or none): the frame at f - d the last stored. */
	st->sp = f - d + cfa_off;
	st->fp = f;
	st->out = o;
	return 0;
caller:
	/* The frame at f returns elsewhere: the recursion's caller. */
	st->sp = f + cfa_off;
	st->fp = nf;
	return fst_eh_recursion_leave(st, o, ra);
efault:
	st->out = o;
	return -EFAULT;
}

/*
 * CFA = SP + n, n > 0: the CFA grows by n a frame, so that the division at
 * the start says how many steps keep it in range. With @fp_saved, FP is
 * restored in every frame; without, it stays what it is.
 */
static __always_inline int fst_eh_recursion_sp(const struct fst_eh_rule *r,
					       bool fp_saved,
					       struct fst_eh_step *st,
					       u64 *end)
{
	const long cfa_off = r->cfa_off;
	const long ra_at = cfa_off + r->ra_off, fp_at = cfa_off + r->fp_off;
	const unsigned long smax = FST_EH_UADDR_MAX - FST_EH_OFF_SPAN - cfa_off;
	const unsigned long again = st->look + 1;
	unsigned long s = st->sp, f = st->fp, ra;
	u64 *o = st->out, *stop;

	if (s > smax)
		return 0;
	/* Steps: while there is room, and at most to the last SP <= smax. */
	stop = o + min_t(unsigned long, end - o, (smax - s) / cfa_off + 1);
	while (o != stop) {
		unsafe_get_user(ra, (const unsigned long __user *)(s + ra_at),
				efault);
		if (fp_saved)
			unsafe_get_user(f, (const unsigned long __user *)
					(s + fp_at), efault);
		s += cfa_off;
		if (ra != again)
			goto caller;
		*o++ = ra;
	}
	st->out = o;
	st->sp = s;
	st->fp = f;
	return 0;
caller:
	st->sp = s;
	st->fp = f;
	return fst_eh_recursion_leave(st, o, ra);
efault:
	st->out = o;
	return -EFAULT;
}

/*
 * Hard-irq, outside the user-access section: a recursion's frames, by the
 * loop for rule @r, in a user-access section of its own (objtool allows
 * no call inside one). Out of line because, inlined in fst_walk_user_eh(),
 * whose state takes most registers, the loops' variables were kept in
 * memory. The call, its saves and the loop's setup cost about 100
 * instructions, once a recursion. The longest run of frames a loop stored, all of one return
 * address, goes to @wi.
 * Return: as the loops'.
 */
static noinline int fst_eh_recursion(const struct fst_eh_rule *r,
				     struct fst_eh_step *st, u64 *end,
				     const u64 *frames,
				     struct fst_walk_info *wi)
{
	const unsigned long again = st->look + 1;
	u64 *from = st->out;
	unsigned int run;
	int ret;

	if (!user_access_begin((const void __user *)0, FST_EH_UADDR_MAX))
		return -EFAULT;
	/* Constant arguments: three loops, none testing them. */
	if (r->reg == FST_DW_FP) {
		ret = fst_eh_recursion_fp(r, st, end);
		/*
		 * The barrier: the second loop starts from *st in memory, so
		 * that the first keeps no copies of its registers for it.
		 */
		barrier();
		if (ret == FST_EH_RESIZED)
			ret = fst_eh_recursion_resized(r, st, end);
	} else if (!fst_eh_fp_saved(r)) {
		ret = fst_eh_recursion_sp(r, false, st, end);
	} else {
		ret = fst_eh_recursion_sp(r, true, st, end);
	}
	user_access_end();
	/* The frames stored but the last, if it is the recursion's caller. */
	run = st->out - from;
	if (run && st->out[-1] != again)
		run--;
	if (run > wi->run_len) {
		wi->run_at = from - frames;
		wi->run_len = run;
	}
	return ret;
}

/*
 * Whether a walk that just took rule @r may go on by fst_eh_recursion():
 * CFA = SP + n, or FP + n where FP is known and restored in every frame.
 */
static __always_inline bool fst_eh_recursion_ok(const struct fst_eh_rule *r,
						bool fp_ok)
{
	if (r->kind != FST_EH_CFA || r->cfa_off <= 0)
		return false;
	return r->reg == FST_DW_SP ||
	       (r->reg == FST_DW_FP && fp_ok && fst_eh_fp_saved(r));
}

/**
 * fst_walk_user_eh() - a 64-bit task's user stack, by unwind tables
 * @regs: the task's user registers
 * @interrupted: @regs are the interrupted registers (the sample hit user mode)
 * @frames: where the frames go, leaf first; frames[0] is the user IP
 * @max: room in @frames
 * @flags: FLAMESTAT_STACKF_UNWIND_* , _USER_FAULT and _USER_TRUNCATED are set here
 * @db: the process database
 * @id: the task's address space in @db
 * @tables_only: code without a table ends the stack (no frame pointer walk)
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
	unsigned long sp = regs->sp, fp = regs->bp, probe;
	/*
	 * The address looked up for the frame's PC (the last one stored):
	 * the PC itself where it is the sample's own or the one a signal
	 * interrupted, else PC - 1 (a return address, and the call before
	 * it may be its function's last instruction).
	 */
	unsigned long look = regs->ip;
	/*
	 * The address r is the rule of: a recursion's frames look up the
	 * same return address, and take the rule again without a search.
	 * No PC is ~0UL.
	 */
	unsigned long r_look = ~0UL;
	unsigned long cfa, base, ra, nfp;
	const struct fst_eh_rule *r = &fst_eh_no_rule;
	struct fst_eh_cursor cur = { };
	const struct fst_maps *maps;
	u64 *out = frames, *end = frames + max;
	u64 seq;
	bool fp_ok = true;
	bool by_table = false, by_fp = false;

	wi->stop = -1;
	wi->run_len = 0;
	if (!max)
		return 0;
	*out++ = regs->ip;
	/* Not in user mode, the page tables must be checked once: see unwind.c. */
	if (!interrupted &&
	    copy_from_user_nmi(&probe, (void __user *)sp, sizeof(probe))) {
		*flags |= FLAMESTAT_STACKF_USER_FAULT;
		return 1;
	}
	/* Before any table is read: see struct fst_eh_rcache. */
	maps = fst_eh_walk_begin(db, id, rc);
	seq = maps->seq;
	if (!user_access_begin((const void __user *)0, FST_EH_UADDR_MAX))
		goto out_nouser;
	/* No calls from here to user_access_end() but inlined ones. */
	while (out < end) {
		if (look != r_look) {
			r = fst_eh_rule_at(db, maps, seq, &cur, rc, look);
			r_look = look;
		}
		/* Most frames: CFA = SP + n. Kind and register: one compare. */
		if (likely(fst_eh_kind_reg(r) ==
			   fst_eh_kind_reg(&fst_eh_sp_rule))) {
			cfa = sp + r->cfa_off;
			goto have_cfa;
		}
		/* Or FP + n. */
		if (r->kind == FST_EH_CFA && r->reg == FST_DW_FP && fp_ok) {
			cfa = fp + r->cfa_off;
			goto have_cfa;
		}
		if (r->kind == FST_EH_NONE ||
		    (r->kind == FST_EH_UNSUP && !tables_only)) {
			if (tables_only || !fp_ok) {
				wi->stop = r->kind == FST_EH_UNSUP ?
					FLAMESTAT_UNWIND_STOP_UNSUP :
					FLAMESTAT_UNWIND_STOP_NO_TABLE;
				break;
			}
			/* The frame record at FP: {caller's FP, return address}. */
			if (fp < sp || fp > FST_EH_UADDR_MAX - sizeof(long))
				break;
			unsafe_get_user(nfp, fst_uword(fp), efault);
			unsafe_get_user(ra, fst_uword(fp + sizeof(long)), efault);
			by_fp = true;
			if (!ra)
				break;
			*out++ = ra;
			if (nfp <= fp)
				break;
			sp = fp + 2 * sizeof(long);
			fp = nfp;
			look = ra - 1;
			continue;
		}
		if (r->kind == FST_EH_STOP)
			break;
		if (r->kind == FST_EH_UNSUP) {
			wi->stop = FLAMESTAT_UNWIND_STOP_UNSUP;
			break;
		}
		if (r->kind == FST_EH_SIGNAL) {
			/* The interrupted context, in the ucontext at SP. */
			unsafe_get_user(cfa, fst_uword(sp + r->cfa_off), efault);
			unsafe_get_user(ra, fst_uword(sp + r->ra_off), efault);
			if (r->fp_off != FST_EH_FP_LOST)
				unsafe_get_user(fp, fst_uword(sp + r->fp_off), efault);
			fp_ok = r->fp_off != FST_EH_FP_LOST;
			by_table = true;
			if (!ra)
				break;
			*out++ = ra;
			sp = cfa;
			/* The interrupted PC is exact, not after a call. */
			look = ra;
			continue;
		}
		if (r->kind == FST_EH_PLT) {
			/* The frame's PC: the last one stored. */
			cfa = sp + r->cfa_off + ((out[-1] & 15) >= r->reg ? 8 : 0);
		} else {
			if (r->reg == FST_DW_SP) {
				base = sp;
			} else if (r->reg == FST_DW_FP && fp_ok) {
				base = fp;
			} else if (out == frames + 1 && r->reg != FST_DW_FP) {
				base = fst_dw_reg(regs, r->reg);
			} else {
				wi->stop = FLAMESTAT_UNWIND_STOP_REG;
				break;
			}
			cfa = base + r->cfa_off;
			if (r->kind == FST_EH_DEREF) {
				unsafe_get_user(base, fst_uword(cfa), efault);
				cfa = base + r->add;
			}
		}
have_cfa:
		/* The caller's frame lies above this one: the stack grows down. */
		if (cfa <= sp) {
			wi->stop = FLAMESTAT_UNWIND_STOP_BAD;
			break;
		}
		/* Near either end, a load could leave user space: a fault. */
		if (cfa - FST_EH_OFF_SPAN > FST_EH_UADDR_MAX - 2 * FST_EH_OFF_SPAN)
			goto efault;
		unsafe_get_user(ra, (const unsigned long __user *)(cfa + r->ra_off),
				efault);
		if (fst_eh_restore_fp(r, cfa, &fp, &fp_ok))
			goto efault;
		by_table = true;
		if (!ra)
			break;
		*out++ = ra;
		sp = cfa;
		look = ra - 1;
		/*
		 * A recursion (the same return address again: its rule)
		 * whose last FST_EH_RECURSION_MIN frames are one address:
		 * a deep one, likely, worth the loop's call.
		 */
		if (unlikely(look == r_look) &&
		    out - frames >= FST_EH_RECURSION_MIN &&
		    out[-FST_EH_RECURSION_MIN] == out[-1] &&
		    out[-FST_EH_RECURSION_MIN + 1] == out[-1] &&
		    fst_eh_recursion_ok(r, fp_ok)) {
			struct fst_eh_step st = {
				.look = look, .sp = sp, .fp = fp, .out = out,
			};
			int ret;

			user_access_end();
			ret = fst_eh_recursion(r, &st, end, frames, wi);
			look = st.look;
			sp = st.sp;
			fp = st.fp;
			out = st.out;
			if (!user_access_begin((const void __user *)0,
					       FST_EH_UADDR_MAX)) {
				*flags |= FLAMESTAT_STACKF_USER_FAULT;
				goto out_nouser;
			}
			if (ret < 0)
				goto efault;
			if (ret)
				break;
		}
	}
	if (out == end && wi->stop < 0)
		*flags |= FLAMESTAT_STACKF_USER_TRUNCATED;
	goto out;
efault:
	*flags |= FLAMESTAT_STACKF_USER_FAULT;
out:
	user_access_end();
out_nouser:
	fst_eh_walk_end(flags, by_table, by_fp, tables_only, wi->stop);
	return out - frames;
}
