// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 stack walks for the sampler.
 *
 * The kernel stack comes from the kernel's own unwinder, through the one
 * entry point modules have: stack_trace_save() (arch_stack_walk() and
 * stack_trace_save_regs() are not exported, so it cannot be started at the
 * interrupted registers). Called from the timer callback, it follows the
 * frame records through the interrupt path, from the IRQ stack to the task
 * stack, checking every record against the stacks it knows. At the
 * exception boundary it reports the interrupted PC: from the frame record
 * the entry code builds inside pt_regs ({x29, ELR}) up to 6.12, as the
 * regs' PC at a pt_regs meta record from 6.13. The frames before that PC
 * are the sampler's own (the callback, the hrtimer and irq code) and are
 * dropped, so the first frame recorded is the interrupted PC, as on
 * x86_64. What that costs: about fifteen frames of the interrupt path are
 * walked and thrown away per sample (docs/DESIGN.md).
 *
 * The user stack follows AArch64 frame records: x29 points at {previous
 * x29, x30}, the return address signed when the code uses pointer
 * authentication (Debian builds with -mbranch-protection=standard), so it
 * is stripped. Records are read as arch_stack_walk_user() and perf read
 * them: range-checked by access_ok(), page faults disabled, so never
 * faulted in; here one load per word, so a word another thread stores
 * meanwhile is read whole, old or new. AArch32 tasks are walked the same
 * way over their APCS frames and marked COMPAT.
 */
#include <linux/compat.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/stacktrace.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <asm/pointer_auth.h>

#include "../../arch.h"
#include "../../uapi/flamestat.h"

/**
 * fst_walk_kernel() - the interrupted kernel stack
 * @regs: the interrupted kernel registers
 * @frames: where the frames go, leaf first; frames[0] is regs->pc. Room
 *	for @max + FST_ARCH_KWALK_EXTRA entries: the interrupt path's frames
 *	are stored there first, then dropped
 * @max: frames to keep
 * @flags: FLAMESTAT_STACKF_KERNEL_TRUNCATED is set here when the stack goes
 *	on past @max frames, or when the unwinder never reached the
 *	interrupted PC (only that PC is stored then)
 *
 * Context: hard-irq (hrtimer): must not sleep, allocate or take sleeping
 * locks. stack_trace_save() does none of these.
 * Return: the number of frames stored.
 */
unsigned int fst_walk_kernel(struct pt_regs *regs, u64 *frames,
			     unsigned int max, u32 *flags)
{
	unsigned long *buf = (unsigned long *)frames;
	const unsigned long pc = instruction_pointer(regs);
	const unsigned int room = max + FST_ARCH_KWALK_EXTRA;
	unsigned int n, skip;

	BUILD_BUG_ON(sizeof(unsigned long) != sizeof(u64));
	if (!max)
		return 0;
	n = stack_trace_save(buf, room, 0);
	for (skip = 0; skip < n && buf[skip] != pc; skip++)
		;
	if (skip == n) {
		/*
		 * The interrupt path was deeper than the room, or the
		 * unwinder stopped before the exception boundary.
		 */
		frames[0] = pc;
		*flags |= FLAMESTAT_STACKF_KERNEL_TRUNCATED;
		return 1;
	}
	if (n - skip > max || n == room) {
		/* More frames than kept, or than the buffer held. */
		*flags |= FLAMESTAT_STACKF_KERNEL_TRUNCATED;
		n = min(n, skip + max);
	}
	n -= skip;
	if (skip)
		memmove(frames, buf + skip, n * sizeof(u64));
	return n;
}

/* Hard-irq: the frame record at @fp; 0 or -EFAULT. Page faults disabled. */
static __always_inline int fst_get_record(unsigned long fp, unsigned long *next,
					  unsigned long *lr)
{
	const unsigned long __user *p = (const unsigned long __user *)fp;

	if (!access_ok(p, 2 * sizeof(*p)))
		return -EFAULT;
	if (__get_user(*next, p) || __get_user(*lr, p + 1))
		return -EFAULT;
	*lr = fst_strip_pac(*lr);
	return 0;
}

/*
 * An AArch32 APCS frame's last three words, {fp, sp, lr}; the frame
 * pointer points just past them (as arch_stack_walk_user() reads them).
 */
struct fst_compat_tail {
	u32 fp;
	u32 sp;
	u32 lr;
};

#ifdef CONFIG_COMPAT

/* Hard-irq: the AArch32 frame below @fp; 0 or -EFAULT. Faults disabled. */
static __always_inline int fst_get_record32(unsigned long fp,
					    unsigned long *next,
					    unsigned long *lr)
{
	const struct fst_compat_tail __user *t;
	u32 n, l;

	t = (const struct fst_compat_tail __user *)compat_ptr(fp - sizeof(*t));
	if (!access_ok(t, sizeof(*t)) || __get_user(n, &t->fp) ||
	    __get_user(l, &t->lr))
		return -EFAULT;
	*next = n;
	*lr = l;
	return 0;
}
#else
static __always_inline int fst_get_record32(unsigned long fp,
					    unsigned long *next,
					    unsigned long *lr)
{
	return -EFAULT;
}
#endif

/*
 * Hard-irq: the chain from @fp, stored after frames[0] (the PC): AArch64
 * frame records, or with @compat AArch32 APCS frames. Ends at a zero
 * frame pointer or return address, at a frame pointer that is not above
 * the last one or not aligned (8 bytes; AArch32: 4, and room for the frame
 * below it): what code without frame pointers leaves there, so the walk
 * ends quietly. An unreadable record ends it marked USER_FAULT, @max frames
 * marked USER_TRUNCATED when the chain goes on. Always inlined with a
 * constant @compat, so the 64-bit walk carries no test for 32-bit frames.
 */
static __always_inline unsigned int
fst_walk_chain(unsigned long fp, const bool compat, u64 *frames,
	       unsigned int max, u32 *flags)
{
	unsigned long next, lr;
	unsigned int n = 1;
	int err;

	pagefault_disable();
	while (compat ? fp >= sizeof(struct fst_compat_tail) && !(fp & 3) :
			fp && !(fp & 7)) {
		err = compat ? fst_get_record32(fp, &next, &lr) :
			       fst_get_record(fp, &next, &lr);
		if (err) {
			*flags |= FLAMESTAT_STACKF_USER_FAULT;
			break;
		}
		if (!lr)
			break;
		if (n == max) {
			*flags |= FLAMESTAT_STACKF_USER_TRUNCATED;
			break;
		}
		frames[n++] = lr;
		if (next <= fp)
			break;
		fp = next;
	}
	pagefault_enable();
	return n;
}

/**
 * fst_walk_user() - the user stack, by its frame records
 * @regs: the task's user registers
 * @interrupted: @regs are the interrupted registers (the sample hit user
 *	mode). Not needed on arm64: the task's user page tables are the ones
 *	in use whenever the task runs in the kernel, so its memory is read the
 *	same way from a kernel-mode sample.
 * @frames: where the frames go, leaf first; frames[0] is the user PC
 * @max: room in @frames
 * @flags: FLAMESTAT_STACKF_USER_FAULT, _USER_TRUNCATED and _COMPAT are set
 *	here
 *
 * The PC is recorded, then the return address of every frame record from
 * x29 (AArch32: r11) up. As with every frame-pointer walk, a sample in a
 * function that has not set up its frame record (a leaf built with GCC's
 * default -momit-leaf-frame-pointer, or a prologue) misses that function's
 * caller, whose return address is still in the link register: nothing
 * tells whether it is.
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
#ifdef CONFIG_COMPAT
	if (unlikely(compat_user_mode(regs))) {
		*flags |= FLAMESTAT_STACKF_COMPAT;
		frames[0] = (u32)instruction_pointer(regs);
		return fst_walk_chain((u32)regs->compat_fp, true, frames, max,
				      flags);
	}
#endif
	frames[0] = instruction_pointer(regs);
	return fst_walk_chain(regs->regs[29], false, frames, max, flags);
}
