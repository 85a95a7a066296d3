/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What each architecture provides to the sampler, in kmod/arch/<arch>/
 * (Kbuild picks the folder by $(SRCARCH)): the two stack walks, and a cheap
 * clock for the sampler's own cost. The clock is inline, in that folder's
 * fst_arch.h, because the timer reads it twice per sample:
 *
 *	u64 fst_clock(void);		a timestamp, any unit
 *	u64 fst_clock_ns(u64 delta);	a difference of two of them, in ns
 *
 * fst_arch.h also defines FST_ARCH_KWALK_EXTRA: how many entries beyond its
 * @max fst_walk_kernel() may use in @frames as scratch (0 where the walk
 * starts at the interrupted registers).
 *
 * Where fst_arch.h defines FST_ARCH_HAVE_KSLOTS, there is also
 * fst_walk_kernel_slots(): the current kernel stack, or an interrupted
 * one, with the place of each return address on it, for kstack_cache.c.
 */
#ifndef FLAMESTAT_ARCH_H
#define FLAMESTAT_ARCH_H

#include <linux/types.h>

struct pt_regs;
struct fst_procdb;
struct fst_eh_rcache;

unsigned int fst_walk_kernel(struct pt_regs *regs, u64 *frames,
			     unsigned int max, u32 *flags);
unsigned int fst_walk_user(struct pt_regs *regs, bool interrupted,
			   u64 *frames, unsigned int max, u32 *flags);
void fst_clock_init(void);
/*
 * Where fst_arch.h defines FST_ARCH_HAVE_EHWALK, the user stack of a task
 * in 64-bit mode can also be walked by the unwind tables of its files
 * (ehtab.h); fst_arch_user_compat() says whether a task's user registers
 * are 32-bit (walked by frame pointer, by fst_walk_user(), only).
 */
struct fst_walk_info {
	int stop;	/* an enum flamestat_unwind_stop, or -1: not early */
	/*
	 * frames[run_at..run_at + run_len) are one return address, a
	 * recursion's (run_len 0: none known, run_at then unset): the
	 * recent-stack cache (recent.h) compares such a run by its first
	 * word, and the words around it.
	 */
	u16 run_at;
	u16 run_len;
};

unsigned int fst_walk_user_eh(struct pt_regs *regs, bool interrupted,
			      u64 *frames, unsigned int max, u32 *flags,
			      struct fst_procdb *db, u32 id, bool tables_only,
			      struct fst_eh_rcache *rc,
			      struct fst_walk_info *wi);
/*
 * Where fst_arch.h defines FST_ARCH_HAVE_VDSO_LEAF: whether a function of
 * a vDSO without unwind information is a leaf without a frame, in which
 * the caller is found from SP and the link register alone.
 */
bool fst_arch_vdso_leaf(const u8 *text, size_t len);
unsigned int fst_walk_kernel_slots(struct pt_regs *regs, u64 *frames,
				   unsigned long *slots, unsigned int max,
				   bool *complete);

#include "fst_arch.h"

#endif /* FLAMESTAT_ARCH_H */
