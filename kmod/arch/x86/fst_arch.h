/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86's inline part of the architecture interface (see kmod/arch.h): the
 * sampler's cost clock. The TSC is read in a few instructions, where
 * sched_clock()'s scaling costs more than the rest of the accounting.
 */
#ifndef FLAMESTAT_X86_FST_ARCH_H
#define FLAMESTAT_X86_FST_ARCH_H

#include <linux/math64.h>
#include <linux/sched/clock.h>
#include <asm/msr.h>
#include <asm/ptrace.h>

/* The kernel walk starts at the interrupted registers: no extra room. */
#define FST_ARCH_KWALK_EXTRA	0

/*
 * fst_walk_kernel_slots() (kmod/arch.h) exists where the kernel's unwinder
 * is ORC, whose state says where each return address was read from.
 */
#ifdef CONFIG_UNWINDER_ORC
#define FST_ARCH_HAVE_KSLOTS	1
#endif

/*
 * 64-bit user stacks can be walked by unwind tables too (ehwalk.c), built
 * from the .eh_frame of files of this ELF machine, read as this CFI.
 */
#define FST_ARCH_HAVE_EHWALK	1
#define FST_ARCH_EH_MACHINE	EM_X86_64
#define FST_ARCH_EH_CFI		fst_eh_x86_64

/* Any context: are these user registers of a task in 32-bit mode? */
static __always_inline bool fst_arch_user_compat(struct pt_regs *regs)
{
	return !user_64bit_mode(regs);
}

/* TSC cycles to ns (<< 24); 0: the TSC is not usable, use sched_clock(). */
extern u32 fst_tsc_mult;

static __always_inline u64 fst_clock(void)
{
	return fst_tsc_mult ? rdtsc() : sched_clock();
}

static __always_inline u64 fst_clock_ns(u64 delta)
{
	return fst_tsc_mult ? mul_u64_u32_shr(delta, fst_tsc_mult, 24) : delta;
}

#endif /* FLAMESTAT_X86_FST_ARCH_H */
