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
 * The highest frame pointer whose 16-byte frame access_ok() accepts on
 * every kernel we build for: below TASK_SIZE_MAX (6.12's USER_PTR_MAX is
 * not lower), so kernel and non-canonical addresses are never touched.
 */
#define FS_UFRAME_MAX	(TASK_SIZE_MAX - 2 * sizeof(unsigned long))

/*
 * Hard-irq (hrtimer): must not sleep, allocate or take sleeping locks.
 * @regs are the task's user registers; @interrupted when they are the
 * interrupted registers (the sample hit user mode). The walk stops at a
 * zero return address or frame pointer (the end of the chain), at a frame
 * pointer that does not increase (a loop, or code built without frame
 * pointers), at an unreadable frame (marked USER_FAULT) or at @max frames
 * (marked USER_TRUNCATED only when the chain goes on). Each frame is also
 * hashed into *@hash (fs_hash_frame()), while it is in a register.
 *
 * Frames are read as perf_callchain_user() reads them: range-checked,
 * with page faults disabled, so never faulted in - but inside a single
 * user-access section for the whole chain, with inline loads, not a call
 * and a copy routine per frame. User memory may be read this way only
 * while this CPU's page tables are the task's (nmi_uaccess_okay(), which
 * modules cannot call). When the sample hit user mode they are: that code
 * ran on them, and switching them happens in the kernel with interrupts
 * off. In the kernel (a system call, a page fault) the first frame is
 * read with copy_from_user_nmi(), which checks; nothing can change the
 * answer before this interrupt returns.
 */
unsigned int fs_walk_user(struct pt_regs *regs, bool interrupted, u64 *frames,
			  unsigned int max, u32 *flags, u64 *hash)
{
	struct { unsigned long next; unsigned long ret; } frame;
	unsigned long fp = regs->bp, next = 0, ret = 0;
	/* Read once: TASK_SIZE_MAX is not a constant (5-level paging). */
	const unsigned long fp_max = FS_UFRAME_MAX;
	const unsigned long __user *p;
	unsigned int n = 0;
	u64 h = *hash;

	if (!max)
		return 0;
	if (!user_64bit_mode(regs)) {
		*flags |= FLAMESTAT_STACKF_COMPAT;
#ifdef CONFIG_COMPAT
		n = fs_walk_user32(regs, frames, max, flags);
#else
		frames[0] = (u32)regs->ip;
		n = 1;
#endif
		*hash = fs_hash_frames(h, frames, n);
		return n;
	}
	frames[n++] = regs->ip;
	h = fs_hash_frame(h, regs->ip);
	if (!fp)
		goto out;
	if (!interrupted) {
		if (copy_from_user_nmi(&frame, (void __user *)fp,
				       sizeof(frame)))
			goto fault;
		next = frame.next;
		ret = frame.ret;
	}
	p = (const unsigned long __user *)fp;
	pagefault_disable();
	if (!user_access_begin(p, 2 * sizeof(*p))) {
		pagefault_enable();
		goto fault;
	}
	if (interrupted) {
		unsafe_get_user(next, p, efault);
		unsafe_get_user(ret, p + 1, efault);
	}
	/* No calls from here to user_access_end(): objtool checks. */
	for (;;) {
		if (!ret)
			break;
		if (n == max) {
			*flags |= FLAMESTAT_STACKF_USER_TRUNCATED;
			break;
		}
		frames[n++] = ret;
		h = fs_hash_frame(h, ret);
		if (next <= fp)
			break;
		fp = next;
		if (unlikely(fp > fp_max))
			goto efault;
		p = (const unsigned long __user *)fp;
		unsafe_get_user(next, p, efault);
		unsafe_get_user(ret, p + 1, efault);
	}
	user_access_end();
	pagefault_enable();
out:
	*hash = h;
	return n;

efault:
	user_access_end();
	pagefault_enable();
fault:
	*flags |= FLAMESTAT_STACKF_USER_FAULT;
	goto out;
}
