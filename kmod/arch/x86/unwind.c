// SPDX-License-Identifier: GPL-2.0
/*
 * x86 stack walks for the sampler: the interrupted kernel stack through the
 * kernel's own unwinder (ORC or frame pointers, as perf_callchain_kernel
 * does) and the user stack by following frame pointers with range-checked
 * user loads, page faults disabled (as perf_callchain_user does), tasks in
 * 32-bit mode included.
 */
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/uaccess.h>
#include <asm/unwind.h>

#include "../../arch.h"
#include "../../uapi/flamestat.h"

#ifdef CONFIG_UNWINDER_FRAME_POINTER
/*
 * Hard-irq. Would the frame-pointer unwinder, started at @regs, report a
 * bad stack (a kernel warning, "has bad 'bp' value") where the stack simply
 * ends? It starts from regs->bp, and a zero one is "bad": code that runs
 * before its frame is set up. A new kernel thread's ret_from_fork runs with
 * bp = its copy_thread() regs, encoded (low bit set), whose own bp is zero:
 * met that way (seen on 6.1 during CPU hotplug) the unwinder warns, where it
 * ends quietly at the same regs met as the last frame. In both cases only
 * the interrupted PC is known. ORC, which distribution kernels use, needs
 * no frame pointer.
 */
static bool fst_fp_no_frames(struct pt_regs *regs)
{
	struct pt_regs *top = task_pt_regs(current);

	if (!regs->bp)
		return true;
	return regs->bp == ((unsigned long)top | 1) && !user_mode(top) &&
	       !top->bp;
}

/*
 * Hard-irq. The same at a register frame met further up: a kernel one
 * without a frame pointer has nothing beyond it, and the next step would
 * report it as a bad stack.
 */
static bool fst_fp_regs_end(struct unwind_state *state)
{
	struct pt_regs *r = unwind_get_entry_regs(state, NULL);

	return r && !user_mode(r) && !r->bp;
}
#else
static bool fst_fp_no_frames(struct pt_regs *regs) { return false; }
static bool fst_fp_regs_end(struct unwind_state *state) { return false; }
#endif

/**
 * fst_walk_kernel() - the interrupted kernel stack
 * @regs: the interrupted kernel registers; the walk starts there, so the
 *	sampler's own interrupt frames never appear
 * @frames: where the frames go, leaf first; frames[0] is regs->ip
 * @max: room in @frames
 * @flags: FLAMESTAT_STACKF_KERNEL_TRUNCATED is set here when the stack goes
 *	on past @max frames
 *
 * Context: hard-irq (hrtimer): must not sleep, allocate or take sleeping
 * locks.
 * Return: the number of frames stored.
 */
unsigned int fst_walk_kernel(struct pt_regs *regs, u64 *frames,
			     unsigned int max, u32 *flags)
{
	struct unwind_state state;
	unsigned int n = 0;
	unsigned long addr;

	if (!max)
		return 0;
	frames[n++] = regs->ip;
	if (fst_fp_no_frames(regs))
		return n;
	for (unwind_start(&state, current, regs, NULL); !unwind_done(&state);
	     unwind_next_frame(&state)) {
		addr = unwind_get_return_address(&state);
		if (!addr)
			break;
		if (n == max) {
			*flags |= FLAMESTAT_STACKF_KERNEL_TRUNCATED;
			break;
		}
		frames[n++] = addr;
		if (fst_fp_regs_end(&state))
			break;
	}
	return n;
}

#ifdef CONFIG_UNWINDER_ORC
/**
 * fst_walk_kernel_slots() - the current kernel stack, or the interrupted
 *	one, and where on it each return address is kept
 * @regs: NULL: the stack of this function's caller; else the interrupted
 *	kernel registers, on the task's stack
 * @frames: where the frames go: the caller of this function first; with
 *	@regs, the caller of the interrupted function first (regs->ip, the
 *	first frame fst_walk_kernel() stores, is not stored here)
 * @slots: for each frame, the address its return address was read from;
 *	0 when it does not hold that return address (put back by the unwinder
 *	in place of a trampoline's) or is not on the task's stack, when it
 *	was read from a register frame, and, with @regs, slots[0] after an
 *	unwinder error (such stacks are not kept: see below)
 * @max: room in @frames and @slots
 * @complete: set when the stack ended within @max frames
 *
 * The walk of stack_trace_save() (arch_stack_walk(): ORC), kept with the
 * place each return address was read from, as the kernel's own
 * unwind_get_return_address_ptr() (not exported) finds it: the frame's
 * pt_regs for a register frame, else the word below the caller's stack
 * pointer. With the places, kstack_cache.c can tell that a later stack is
 * the same without walking it.
 *
 * Context: the scheduler (interrupts off), or hard-irq (the sampling
 * timer, with @regs): must not sleep, allocate or take sleeping locks.
 * Return: the number of frames stored.
 */
unsigned int fst_walk_kernel_slots(struct pt_regs *regs, u64 *frames,
				   unsigned long *slots, unsigned int max,
				   bool *complete)
{
	unsigned long stack = (unsigned long)task_stack_page(current);
	unsigned long top = stack + THREAD_SIZE, addr, p;
	struct unwind_state state;
	unsigned int n = 0;

	*complete = false;
	/* From @regs, unwind_start() steps past the interrupted frame itself. */
	for (unwind_start(&state, current, regs, NULL); !unwind_done(&state);
	     unwind_next_frame(&state)) {
		addr = unwind_get_return_address(&state);
		if (!addr)
			break;
		if (n == max)
			return n;
		p = state.regs ? (unsigned long)&state.regs->ip : state.sp ?
		    state.sp - sizeof(long) : 0;
		/*
		 * Past a register frame in the stack (an exception or an
		 * interrupt taken in the kernel) the walk goes on from the SP
		 * and FP saved in it, words the cache does not compare: the
		 * frame lies 8 bytes lower or not with the alignment of the
		 * SP it interrupted, and the interrupted frames' places with
		 * it. Not kept.
		 */
		if (state.regs)
			p = 0;
		frames[n] = addr;
		slots[n] = p >= stack && p + sizeof(long) <= top &&
			   READ_ONCE_NOCHECK(*(unsigned long *)p) == addr ? p : 0;
		n++;
	}
	/*
	 * A walk the unwinder went on with after an error (no ORC for an
	 * address: it guesses from the frame pointer, which the cache does
	 * not compare either) is not kept.
	 */
	if (regs && n && unwind_error(&state))
		slots[0] = 0;
	*complete = true;
	return n;
}
#endif

/*
 * The highest frame pointer whose 16-byte frame access_ok() accepts on
 * every kernel we build for: below TASK_SIZE_MAX (6.12's USER_PTR_MAX is
 * not lower), so kernel and non-canonical addresses are never touched.
 * A 32-bit task's frames lie below 4 GiB and need no such check.
 */
#define FST_UFRAME_MAX	(TASK_SIZE_MAX - 2 * sizeof(unsigned long))

/*
 * fst_get_frame: the frame at @fp, {next frame pointer, return address}, as
 * two longs or, for a 32-bit task, two u32s. One load per word, so a word
 * another thread stores meanwhile is read whole, old or new (a byte copy
 * could mix the two). Only inside a user-access section; a fault jumps to
 * @err.
 */
#define fst_get_frame(compat, fp, next, ret, err)			\
do {									\
	if (compat) {							\
		const u32 __user *p32 = (const u32 __user *)(fp);	\
		u32 v;							\
									\
		unsafe_get_user(v, p32, err);				\
		(next) = v;						\
		unsafe_get_user(v, p32 + 1, err);			\
		(ret) = v;						\
	} else {							\
		const unsigned long __user *p =				\
			(const unsigned long __user *)(fp);		\
									\
		unsafe_get_user(next, p, err);				\
		unsafe_get_user(ret, p + 1, err);			\
	}								\
} while (0)

/* Hard-irq: the frame at @fp through copy_from_user_nmi(); 0 or -EFAULT. */
static int fst_copy_frame_nmi(unsigned long fp, bool compat,
			      unsigned long *next, unsigned long *ret)
{
	struct { u32 next; u32 ret; } f32;
	struct { unsigned long next; unsigned long ret; } f64;

	if (compat) {
		if (copy_from_user_nmi(&f32, (void __user *)fp, sizeof(f32)))
			return -EFAULT;
		*next = f32.next;
		*ret = f32.ret;
	} else {
		if (copy_from_user_nmi(&f64, (void __user *)fp, sizeof(f64)))
			return -EFAULT;
		*next = f64.next;
		*ret = f64.ret;
	}
	return 0;
}

/*
 * Hard-irq: the frame-pointer chain from @fp after frames[0] (the IP), for
 * fst_walk_user(). Always inlined with a constant @compat, so the 64-bit
 * walk carries no test for 32-bit frames.
 */
static __always_inline unsigned int
fst_walk_chain(unsigned long fp, bool interrupted, const bool compat,
	       u64 *frames, unsigned int max, u32 *flags)
{
	/* Read once: TASK_SIZE_MAX is not a constant (5-level paging). */
	const unsigned long fp_max = FST_UFRAME_MAX;
	const size_t size = compat ? 2 * sizeof(u32) : 2 * sizeof(long);
	unsigned long next = 0, ret = 0;
	u64 *dst = frames + 1, *const end = frames + max;

	if (!fp)
		goto out;
	if (!interrupted && fst_copy_frame_nmi(fp, compat, &next, &ret))
		goto fault;
	pagefault_disable();
	if (!user_access_begin((const void __user *)fp, size)) {
		pagefault_enable();
		goto fault;
	}
	if (interrupted)
		fst_get_frame(compat, fp, next, ret, efault);
	/* No calls from here to user_access_end(): objtool checks. */
	for (;;) {
		if (!ret)
			break;
		if (dst == end) {
			*flags |= FLAMESTAT_STACKF_USER_TRUNCATED;
			break;
		}
		*dst++ = ret;
		if (next <= fp)
			break;
		fp = next;
		if (!compat && unlikely(fp > fp_max))
			goto efault;
		fst_get_frame(compat, fp, next, ret, efault);
	}
	user_access_end();
	pagefault_enable();
out:
	return dst - frames;

efault:
	user_access_end();
	pagefault_enable();
fault:
	*flags |= FLAMESTAT_STACKF_USER_FAULT;
	goto out;
}

/**
 * fst_walk_user() - the user stack, by its frame pointers
 * @regs: the task's user registers
 * @interrupted: @regs are the interrupted registers (the sample hit user mode)
 * @frames: where the frames go, leaf first; frames[0] is the user IP
 * @max: room in @frames
 * @flags: FLAMESTAT_STACKF_USER_FAULT, _USER_TRUNCATED and _COMPAT are set here
 *
 * The walk stops at a zero return address or frame pointer (the end of the
 * chain), at a frame pointer that does not increase (a loop, or code built
 * without frame pointers), at an unreadable frame (marked USER_FAULT) or at
 * @max frames (marked USER_TRUNCATED only when the chain goes on). A task in
 * 32-bit mode (compat, or a 32-bit code segment of its own) has 32-bit
 * frames: {u32 next, u32 return address}, and is marked COMPAT.
 *
 * Frames are read as perf_callchain_user() reads them: range-checked, with
 * page faults disabled, so never faulted in - but inside a single
 * user-access section for the whole chain, with inline loads, not a call and
 * a copy routine per frame. User memory may be read this way only while this
 * CPU's page tables are the task's (nmi_uaccess_okay(), which modules cannot
 * call). When the sample hit user mode they are: that code ran on them, and
 * switching them happens in the kernel with interrupts off. In the kernel (a
 * system call, a page fault) the first frame is read with
 * copy_from_user_nmi(), which checks; nothing can change the answer before
 * this interrupt returns.
 *
 * Context: hard-irq (hrtimer): must not sleep, allocate or take sleeping
 * locks.
 * Return: the number of frames stored.
 */
unsigned int fst_walk_user(struct pt_regs *regs, bool interrupted, u64 *frames,
			   unsigned int max, u32 *flags)
{
	if (!max)
		return 0;
	if (likely(user_64bit_mode(regs))) {
		frames[0] = regs->ip;
		return fst_walk_chain(regs->bp, interrupted, false, frames, max,
				     flags);
	}
	*flags |= FLAMESTAT_STACKF_COMPAT;
	frames[0] = (u32)regs->ip;
	return fst_walk_chain((u32)regs->bp, interrupted, true, frames, max,
			     flags);
}
