/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arm64's inline part of the architecture interface (see kmod/arch.h).
 *
 * The cost clock is sched_clock(): on arm64 it is the architected counter,
 * read and scaled to ns by the generic sched_clock code, which also takes
 * care of the counter's errata. There is no cheaper raw counter a module
 * can read safely on every implementation.
 *
 * The kernel stack is taken by stack_trace_save() from the timer callback
 * (kmod/arch/arm64/unwind.c), which records the interrupt path before the
 * interrupted frames: FST_ARCH_KWALK_EXTRA more entries than the walk's
 * depth are room for those.
 */
#ifndef FLAMESTAT_ARM64_FST_ARCH_H
#define FLAMESTAT_ARM64_FST_ARCH_H

#include <linux/sched/clock.h>
#include <asm/pointer_auth.h>
#include <asm/ptrace.h>

#define FST_ARCH_KWALK_EXTRA	32

/*
 * 64-bit user stacks can be walked by unwind tables too (ehwalk.c), built
 * from the .eh_frame of files of this ELF machine, read as this CFI.
 */
#define FST_ARCH_HAVE_EHWALK	1
#define FST_ARCH_EH_MACHINE	EM_AARCH64
#define FST_ARCH_EH_CFI		fst_eh_arm64
/* The vDSO has no CFI; vdso_leaf.c proves its functions frameless leaves. */
#define FST_ARCH_HAVE_VDSO_LEAF	1

/*
 * A return address read from user memory or the link register, its
 * pointer-authentication code stripped (an address without one is
 * unchanged). 6.5 renamed the helper.
 */
#ifdef ptrauth_strip_user_insn_pac
#define fst_strip_pac(lr)	ptrauth_strip_user_insn_pac(lr)
#else
#define fst_strip_pac(lr)	ptrauth_strip_insn_pac(lr)
#endif

/* Any context: are these user registers of a task in AArch32 mode? */
static __always_inline bool fst_arch_user_compat(struct pt_regs *regs)
{
	return compat_user_mode(regs);
}

static __always_inline u64 fst_clock(void)
{
	return sched_clock();
}

static __always_inline u64 fst_clock_ns(u64 delta)
{
	return delta;
}

#endif /* FLAMESTAT_ARM64_FST_ARCH_H */
