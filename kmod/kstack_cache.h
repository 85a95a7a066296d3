/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel stacks the off-CPU probes, or the sampling timer, met last on
 * a CPU, each with the places on the task's stack where its return
 * addresses lie, so that the same stack met again is recognised by reading
 * those words instead of being unwound (kstack_cache.c says why that is
 * sound).
 */
#ifndef FLAMESTAT_KSTACK_CACHE_H
#define FLAMESTAT_KSTACK_CACHE_H

#include <linux/percpu.h>
#include <linux/types.h>

struct pt_regs;

#include "table.h"

/* Stacks of up to this many frames are kept; deeper ones are walked. */
#define FST_KCACHE_FRAMES	48
/* Stacks kept per CPU. */
#define FST_KCACHE_WAYS		8
/* A walk's room: the frames kept, and the probes' own above them. */
#define FST_KCACHE_WALK		(FST_KCACHE_FRAMES + 16)

/*
 * Where a return address lies: the bytes below the top of the task's
 * stack (the system call's entry, above the random offset the kernel may
 * put below it), else the bytes above the probe's anchor; fewer than
 * FST_KCACHE_TOP either way.
 */
#define FST_KCACHE_TOP		0x8000

struct fst_kcache_way {
	u32 kind;		/* the probe's (fst_kcache_lookup()); 0: empty */
	/* FST_KCACHE_SAMPLE: the interrupted PC, where the walk started */
	unsigned long pc;
	u16 nr;			/* frames */
	/*
	 * Bytes above the anchor the places reach: a stack shallower than
	 * that (a 32-bit system call's) is another one, and reading there
	 * would go past the top of its stack.
	 */
	u16 span;
	/*
	 * The first nr_low places are bytes above the anchor, the others
	 * bytes below the top of the stack (a stack's return addresses lie
	 * higher with every caller): no test of which a place is.
	 */
	u16 nr_low;
	/*
	 * Bytes from the anchor to the top of the stack where it was walked:
	 * a stack met at another depth is another one, unless the way is a
	 * system call's (@gap), whose entry frame lies above a random gap.
	 */
	u32 depth;
	bool gap;
	u64 frames[FST_KCACHE_FRAMES];
	u16 slots[FST_KCACHE_FRAMES];
	/*
	 * The probes' ways: fst_hash_frames() of the frames, which a key's
	 * hash goes on from
	 */
	struct fst_hash hash;
};

/*
 * One CPU's: only its own probes use it, with interrupts off, or only its
 * own sampling timer (a cache of its own, in struct fst_cpu).
 */
struct fst_kcache {
	struct fst_kcache_way way[FST_KCACHE_WAYS];
	/*
	 * The ways, the one met last first (fst_kcache_init() sets it): a
	 * lookup tries them in this order, a store replaces the last. Tried
	 * in a fixed order, a steady stream of the same few stacks found
	 * them wherever the stores had happened to put them: a ping-pong's
	 * lookup tried 1.8 ways in one run and 7.6 in the next.
	 */
	u8 order[FST_KCACHE_WAYS];
	/* fst_walk_kernel_slots()'s places, for fst_kcache_store() */
	unsigned long walk_slots[FST_KCACHE_WALK];
};

/* What kstack_cache= asks for (module parameter). */
enum fst_kcache_mode {
	FST_KCACHE_OFF,
	FST_KCACHE_ON,
	FST_KCACHE_CHECK,	/* on, and every hit walked too and compared */
};

/* kstack_cache=, set once at load (fst_kcache_set_mode()) */
extern enum fst_kcache_mode fst_kcache_mode;

/* Who looks stacks up: counted apart (the kind of a way, too). */
enum fst_kcache_src {
	FST_KCACHE_SWITCH,	/* the off-CPU probes (sched_switch, waking) */
	FST_KCACHE_SAMPLE,	/* the sampling timer, at an interrupted PC */
	FST_KCACHE_NR_SRC,
};

/* The kind of the timer's stacks; the probes' are 1 and 2. */
#define FST_KCACHE_KIND_SAMPLE	3

struct fst_kcache_counts {
	u64 hits;		/* stacks recognised, not walked */
	u64 walks;		/* stacks walked, while the cache was on */
	u64 wrong;		/* CHECK: a hit that the walk contradicted */
};

void fst_kcache_set_mode(enum fst_kcache_mode mode);
void fst_kcache_learn_entry(void);
unsigned long fst_kcache_anchor(void);
unsigned long fst_kcache_regs_anchor(struct pt_regs *regs);
int fst_kcache_lookup(struct fst_kcache *kc, u32 kind, unsigned long pc,
		      unsigned long anchor, u64 *frames, unsigned int max,
		      const struct fst_hash **hash);
struct fst_kcache_way *fst_kcache_store(struct fst_kcache *kc, u32 kind,
					unsigned long pc,
					unsigned long anchor,
					const u64 *frames,
					const unsigned long *slots,
					unsigned int n);
void fst_kcache_init(struct fst_kcache *kc);
void fst_kcache_count(enum fst_kcache_src src, unsigned int hits,
		      unsigned int walks, unsigned int wrong);
void fst_kcache_counts(enum fst_kcache_src src, struct fst_kcache_counts *sum);

#endif /* FLAMESTAT_KSTACK_CACHE_H */
