/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel stacks the off-CPU probes met last on a CPU, each with the
 * places on the task's stack where its return addresses lie, so that the
 * same stack met again is recognised by reading those words instead of
 * being unwound (kstack_cache.c says why that is sound).
 */
#ifndef FLAMESTAT_KSTACK_CACHE_H
#define FLAMESTAT_KSTACK_CACHE_H

#include <linux/percpu.h>
#include <linux/types.h>

#include "table.h"

/* Stacks of up to this many frames are kept; deeper ones are walked. */
#define FST_KCACHE_FRAMES	48
/* Stacks kept per CPU. */
#define FST_KCACHE_WAYS		8
/* A walk's room: the frames kept, and the probes' own above them. */
#define FST_KCACHE_WALK		(FST_KCACHE_FRAMES + 16)

/*
 * Where a return address lies: FST_KCACHE_TOP and the bytes below the top
 * of the task's stack (the system call's entry, above the random offset
 * the kernel may put below it), else the bytes above the probe's anchor.
 */
#define FST_KCACHE_TOP		0x8000

struct fst_kcache_way {
	u32 kind;		/* the probe's (fst_kcache_lookup()); 0: empty */
	u16 nr;			/* frames */
	/*
	 * Bytes above the anchor the places reach: a stack shallower than
	 * that (a 32-bit system call's) is another one, and reading there
	 * would go past the top of its stack.
	 */
	u16 span;
	u64 frames[FST_KCACHE_FRAMES];
	u16 slots[FST_KCACHE_FRAMES];
	/* fst_hash_frames() of the frames: a key's hash goes on from it */
	struct fst_hash hash;
};

/* One CPU's: only its own probes use it, with interrupts off. */
struct fst_kcache {
	struct fst_kcache_way way[FST_KCACHE_WAYS];
	u32 victim;		/* the way replaced next */
	/* fst_walk_kernel_slots()'s places, for fst_kcache_store() */
	unsigned long walk_slots[FST_KCACHE_WALK];
};

/* What kstack_cache= asks for (module parameter). */
enum fst_kcache_mode {
	FST_KCACHE_OFF,
	FST_KCACHE_ON,
	FST_KCACHE_CHECK,	/* on, and every hit walked too and compared */
};

struct fst_kcache_counts {
	u64 hits;		/* stacks recognised, not walked */
	u64 walks;		/* stacks walked, while the cache was on */
	u64 wrong;		/* CHECK: a hit that the walk contradicted */
};

unsigned long fst_kcache_anchor(void);
int fst_kcache_lookup(struct fst_kcache *kc, u32 kind, unsigned long anchor,
		      u64 *frames, unsigned int max,
		      const struct fst_hash **hash);
const struct fst_hash *fst_kcache_store(struct fst_kcache *kc, u32 kind,
					unsigned long anchor,
					const u64 *frames,
					const unsigned long *slots,
					unsigned int n);
void fst_kcache_count(unsigned int hits, unsigned int walks,
		      unsigned int wrong);
void fst_kcache_counts(struct fst_kcache_counts *sum);

#endif /* FLAMESTAT_KSTACK_CACHE_H */
