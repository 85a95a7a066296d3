// SPDX-License-Identifier: GPL-2.0
/*
 * x86 stack walks for the sampler: the interrupted kernel stack through the
 * kernel's own unwinder (ORC or frame pointers, as perf_callchain_kernel
 * does) and the user stack by following frame pointers with NMI-safe user
 * copies (as perf_callchain_user does), 32-bit compat tasks included.
 */
#include <linux/compat.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/uaccess.h>
#include <asm/unwind.h>

#include "flamestat.h"

/*
 * Hard-irq (hrtimer): must not sleep, allocate or take sleeping locks.
 * @regs are the interrupted kernel registers; the walk starts there, so the
 * sampler's own interrupt frames never appear. frames[0] is regs->ip.
 */
unsigned int fs_walk_kernel(struct pt_regs *regs, u64 *frames,
			    unsigned int max, u32 *flags)
{
	struct unwind_state state;
	unsigned int n = 0;
	unsigned long addr;

	if (!max)
		return 0;
	frames[n++] = regs->ip;
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
	}
	return n;
}

bool fs_user_regs_compat(struct pt_regs *regs)
{
	return !user_64bit_mode(regs);
}

#ifdef CONFIG_COMPAT
/* Hard-irq: a 32-bit task's frames are {u32 next_fp, u32 return address}. */
static unsigned int fs_walk_user32(struct pt_regs *regs, u64 *frames,
				   unsigned int max, u32 *flags)
{
	struct { u32 next; u32 ret; } frame;
	unsigned int n = 0;
	u32 fp = regs->bp;

	frames[n++] = (u32)regs->ip;
	while (fp) {
		if (copy_from_user_nmi(&frame, compat_ptr(fp), sizeof(frame))) {
			*flags |= FLAMESTAT_STACKF_USER_FAULT;
			break;
		}
		if (!frame.ret)
			break;
		if (n == max) {
			*flags |= FLAMESTAT_STACKF_USER_TRUNCATED;
			break;
		}
		frames[n++] = frame.ret;
		if (frame.next <= fp)
			break;
		fp = frame.next;
	}
	return n;
}
#endif

/*
 * Hard-irq (hrtimer): must not sleep, allocate or take sleeping locks.
 * @regs are the task's user registers. The walk stops at a zero return
 * address or frame pointer (the end of the chain), at a frame pointer that
 * does not increase (a loop, or code built without frame pointers), at an
 * unreadable frame (marked USER_FAULT) or at @max frames (marked
 * USER_TRUNCATED only when the chain goes on). copy_from_user_nmi() checks
 * the range and never faults pages in.
 */
unsigned int fs_walk_user(struct pt_regs *regs, u64 *frames,
			  unsigned int max, u32 *flags)
{
	struct { unsigned long next; unsigned long ret; } frame;
	unsigned long fp = regs->bp;
	unsigned int n = 0;

	if (!max)
		return 0;
	if (!user_64bit_mode(regs)) {
		*flags |= FLAMESTAT_STACKF_COMPAT;
#ifdef CONFIG_COMPAT
		return fs_walk_user32(regs, frames, max, flags);
#else
		frames[0] = (u32)regs->ip;
		return 1;
#endif
	}
	frames[n++] = regs->ip;
	while (fp) {
		if (copy_from_user_nmi(&frame, (void __user *)fp,
				       sizeof(frame))) {
			*flags |= FLAMESTAT_STACKF_USER_FAULT;
			break;
		}
		if (!frame.ret)
			break;
		if (n == max) {
			*flags |= FLAMESTAT_STACKF_USER_TRUNCATED;
			break;
		}
		frames[n++] = frame.ret;
		if (frame.next <= fp)
			break;
		fp = frame.next;
	}
	return n;
}
