/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stack tables: unique stacks and their counts in a bounded, preallocated
 * arena with a hash index, plus the counters that travel with them. Each
 * CPU's two tables are written by its sampler in hard-irq; the merged table
 * by the drain under the aggregate's lock.
 */
#ifndef FLAMESTAT_TABLE_H
#define FLAMESTAT_TABLE_H

#include <linux/bitops.h>
#include <linux/build_bug.h>
#include <linux/stddef.h>
#include <linux/types.h>

#include "uapi/flamestat.h"

/*
 * One unique stack. Entries live in a table's arena, 8-byte aligned, one
 * after the other; frames[] holds nr_kernel, nr_user, then nr_waker frames
 * (an off-CPU stack's waker, kernel frames), each part leaf first.
 * Everything from tgid to the last frame is the key.
 */
struct fst_entry {
	u32 next;		/* arena word of the next entry in the bucket */
	u32 hash;
	u64 count;		/* samples */
	/*
	 * Sampling periods the samples stand for: one each, plus the periods
	 * a late timer missed and the throttled ones before its next firing.
	 * Off-CPU stacks (FLAMESTAT_STACKF_OFFCPU): the nanoseconds blocked.
	 */
	u64 periods;
	u32 tgid;
	u32 proc_id;		/* procdb id of the address space, 0: none */
	u16 cpu;		/* FLAMESTAT_CPU_ANY unless CFG_PERCPU */
	u16 nr_kernel;
	u16 nr_user;
	u16 nr_waker;
	u32 flags;		/* FLAMESTAT_STACKF_* */
	u32 pad2;
	char comm[FLAMESTAT_COMM_LEN];
	u64 frames[];
};

#define FST_ENTRY_HDR_WORDS	(sizeof(struct fst_entry) / sizeof(u64))

/*
 * Any context. @n words at @a and @b are equal: four words a step, one
 * branch per four, without memcmp()'s call and tail. Keys that differ
 * mostly differ in their first words, so the first step decides them.
 */
static __always_inline bool fst_words_same(const u64 *a, const u64 *b, u32 n)
{
	const long d = b - a;	/* one index for both: one add a step */
	const u64 *end = a + n, *end4 = a + (n & ~3U);

	for (; a != end4; a += 4)
		if ((a[0] ^ a[d]) | (a[1] ^ a[d + 1]) |
		    (a[2] ^ a[d + 2]) | (a[3] ^ a[d + 3]))
			return false;
	for (; a != end; a++)
		if (a[0] != a[d])
			return false;
	return true;
}

/*
 * The key's header as words, tgid up to the end of comm: what makes two
 * stacks with the same frames different. The pads are zero in every key
 * and entry, so they compare equal.
 */
#define FST_KEY_HDR_FIRST	offsetof(struct fst_entry, tgid)
#define FST_KEY_HDR_WORDS	((sizeof(struct fst_entry) - FST_KEY_HDR_FIRST) / \
				 sizeof(u64))

static_assert(FST_KEY_HDR_FIRST % sizeof(u64) == 0 &&
	      sizeof(struct fst_entry) % sizeof(u64) == 0);

static __always_inline const u64 *fst_key_words(const struct fst_entry *e)
{
	return (const u64 *)((const char *)e + FST_KEY_HDR_FIRST);
}

static inline u32 fst_entry_frames(const struct fst_entry *e)
{
	return e->nr_kernel + e->nr_user + e->nr_waker;
}

static inline u32 fst_entry_words(const struct fst_entry *e)
{
	return FST_ENTRY_HDR_WORDS + fst_entry_frames(e);
}

/* Any context. The same key: header words (frame counts among them), frames. */
static __always_inline bool fst_key_same(const struct fst_entry *a,
					 const struct fst_entry *b)
{
	return fst_words_same(fst_key_words(a), fst_key_words(b),
			      FST_KEY_HDR_WORDS) &&
	       fst_words_same(a->frames, b->frames, fst_entry_frames(a));
}

/* Counters that add up when tables are merged (see struct flamestat_stats). */
struct fst_counts {
	u64 samples;
	u64 recorded;
	u64 dropped[FLAMESTAT_NR_DROPS];
	u64 overruns;
	u64 kernel_truncated;
	u64 user_truncated;
	u64 user_fault;
	u64 user_compat;
	u64 idle_irq;
	u64 unmapped_procs;
	/*
	 * Recorded samples by how their user stack was walked: indexed by
	 * the stack's (flags / FLAMESTAT_STACKF_UNWIND_TABLE) & 3, so 1 by
	 * tables, 2 by frame pointers, 3 both (0: neither, no user stack).
	 */
	u64 unwind[4];
	u64 unwind_stop[FLAMESTAT_NR_UNWIND_STOPS]; /* walks, by reason */
	u64 cost_ns;
	u64 cost_max_ns;
	u64 cost_hist[FLAMESTAT_COST_BUCKETS];
	u64 probe_max;		/* longest bucket probe, entries compared */
	/* Off-CPU blocks: blocks == recorded + sum(dropped) (uapi). */
	u64 offcpu_blocks;
	u64 offcpu_recorded;
	u64 offcpu_dropped[FLAMESTAT_NR_OFFDROPS];
	u64 offcpu_ns;
};

struct fst_table {
	u32 *buckets;		/* arena word of the first entry, 0: empty */
	u64 *arena;		/* word 0 unused so that 0 means "none" */
	u32 nr_buckets;		/* power of two */
	u32 arena_words;
	u32 used;		/* arena words in use, >= 1 */
	u32 nr_entries;
	struct fst_counts counts; /* of the samples that went to this table */
};

int fst_table_init(struct fst_table *t, size_t bytes, int node);
void fst_table_free(struct fst_table *t);
void fst_table_clear(struct fst_table *t);

/*
 * Stacks are hashed with SipHash-1-3 under a key drawn at load time
 * (fst_entry_hash(), table.c), when the sampler's recent-stack cache
 * (recent.h) does not know them.
 */
#define FST_PROBE_MAX	FLAMESTAT_PROBE_MAX /* compared, then the stack is dropped */

/* SipHash's state (table.c): for a hash resumed after known frames. */
struct fst_hash {
	u64 v0, v1, v2, v3;
};

void fst_hash_init_key(void);
u32 fst_entry_hash(const struct fst_entry *key);
void fst_hash_frames(struct fst_hash *h, const u64 *frames, u32 n);
u32 fst_entry_hash_from(const struct fst_hash *from, u32 done,
			const struct fst_entry *key);
int fst_table_add(struct fst_table *t, const struct fst_entry *key, u64 count,
		  u64 periods, u32 *at);
size_t fst_table_bytes(const struct fst_table *t);
void fst_table_evict(struct fst_table *t);
void fst_counts_unrecord(struct fst_counts *c, const struct fst_entry *e,
			 enum flamestat_drop why,
			 enum flamestat_offcpu_drop off_why);
void fst_counts_add(struct fst_counts *dst, const struct fst_counts *src);
void fst_stats_fill(struct flamestat_stats *st, const struct fst_counts *c);

#define fst_table_for_each(t, e, off)					\
	for ((off) = 1;							\
	     (off) < (t)->used &&					\
	     ((e) = (struct fst_entry *)&(t)->arena[off], 1);		\
	     (off) += fst_entry_words(e))

#endif /* FLAMESTAT_TABLE_H */
