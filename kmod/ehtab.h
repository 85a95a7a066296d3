/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A mapped file's unwind table (ehframe.h), built in process context from
 * the file's page cache and shared by every process that maps the file;
 * the sampler reads it lock-free (ehwalk.c).
 */
#ifndef FLAMESTAT_EHTAB_H
#define FLAMESTAT_EHTAB_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/minmax.h>
#include <linux/rcupdate.h>
#include <linux/types.h>

#include "ehframe.h"

struct file;

/* Executable segments whose file offsets a table maps to addresses. */
#define FST_EHTAB_SEGS	4

/* File offsets [off, end) are at file address offset + delta. */
struct fst_ehtab_seg {
	u64 off;
	u64 end;
	s64 delta;
};

struct fst_ehtab {
	struct fst_eh_table t;
	/* The file as it was read: a table is kept only while it matches. */
	u64 size;
	s64 ctime_sec;
	u32 ctime_nsec;
	u32 nr_segs;
	struct fst_ehtab_seg seg[FST_EHTAB_SEGS];
	size_t bytes;		/* this allocation, charged to unwind_kb */
	struct rcu_head rcu;	/* freed after a grace period (kvfree_rcu()) */
	/* Kept after its record went (procdb_eh.c): the file, and the list */
	u64 kept_dev;
	u64 kept_ino;
	struct list_head kept;
	/* start[], rule[], then rules[] follow */
};

/*
 * Any context, the sampler included: the executable segment of @et that
 * holds file offset @off (its file address, ELF p_vaddr, is off + delta),
 * or NULL. Walked by pointer, not by index: a kernel built with
 * UBSAN_BOUNDS checks array subscripts with a call, which the walk's
 * user-access section must not make (objtool), and gcc 16 keeps the check
 * even in a loop bounded by the array's size.
 */
static __always_inline const struct fst_ehtab_seg *
fst_ehtab_seg_of(const struct fst_ehtab *et, u64 off)
{
	const struct fst_ehtab_seg *s = et->seg;
	const struct fst_ehtab_seg *end = s + min_t(u32, et->nr_segs,
						    FST_EHTAB_SEGS);

	for (; s < end; s++) {
		if (off >= s->off && off < s->end)
			return s;
	}
	return NULL;
}

/*
 * A CPU's cache of the rules its walks found last, by address space and
 * address: the same return addresses come back sample after sample, and
 * a hit costs a hash and a compare instead of finding the mapping, its
 * table and the rule. The key is the address looked up and the seq of the
 * maps it was found through, which names one publication of one process's
 * maps and is never reused: new maps, new keys. The rule is copied (its
 * table may be freed after). A table dropped while maps that name its
 * file stay published (a rewritten file, unwind_kb) must not go on being
 * read through copies: fst_eh_gen grows when a published table is dropped,
 * and a walk that finds it changed empties the cache first (a rare
 * event, so that a hit compares two words, not three).
 * Two ways: a stack's dozen addresses must not evict each other. Used by
 * the timer and the sched_switch probe of its CPU, both with interrupts
 * off.
 */
#define FST_EH_RCACHE_BITS	8
#define FST_EH_RCACHE_WAYS	2

struct fst_eh_rcache {
	u32 gen;		/* the fst_eh_gen the entries were filled under */
	struct fst_eh_rcache_ent {
		u64 look;	/* a PC, or a return address - 1 */
		u64 maps_seq;	/* struct fst_maps.seq, 0: empty */
		struct fst_eh_rule r;
	} e[1 << FST_EH_RCACHE_BITS];
};

extern atomic_t fst_eh_gen;
/* The vDSO's table, or NULL (procdb_eh.c); RCU. */
extern struct fst_ehtab __rcu *fst_eh_vdso;

/* Process context: a published table was dropped (see fst_eh_rcache). */
static inline void fst_eh_gen_bump(void)
{
	/* Ordered after the unpublishing store: the walk reads gen first. */
	smp_mb__before_atomic();
	atomic_inc(&fst_eh_gen);
}

/*
 * What a table may take (fst_ehtab_build()): reserve() is asked for its
 * bytes once they are known, before the allocation, and may say no;
 * release() gives back a reservation whose build then failed.
 */
struct fst_ehtab_budget {
	bool (*reserve)(struct fst_ehtab_budget *b, size_t bytes);
	void (*release)(struct fst_ehtab_budget *b, size_t bytes);
};

int fst_ehtab_build(struct file *file, struct fst_ehtab_budget *budget,
		    struct fst_ehtab **out, int *eh_err);
int fst_ehtab_build_vdso(struct fst_ehtab_budget *budget,
			 struct fst_ehtab **out, int *eh_err);
bool fst_ehtab_current(const struct fst_ehtab *et, struct file *file);
void fst_ehtab_free(struct fst_ehtab *et);

#endif /* FLAMESTAT_EHTAB_H */
