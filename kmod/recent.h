/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A CPU's recent stacks: the sampler's shortcut past hashing and the table.
 *
 * A CPU-bound thread is sampled in the same callers again and again, with
 * the leaf PC moving among a few instructions of its loop. The cache holds
 * one chain (an entry of the CPU's active table whose header and callers,
 * frames[1..], it stands for) and, by leaf PC, the entries of that table
 * with that chain and that leaf. A sample whose header and callers equal
 * the chain's, and whose leaf has a slot, is that slot's stack: it is
 * counted there, without the keyed hash of every frame and the bucket
 * probe. Everything else takes the table's path and then becomes the
 * cache's chain or one of its leaves.
 *
 * Costs on a hit: one compare of the header and callers against the chain
 * entry, and one slot. On a miss, a compare that mostly fails on its
 * first words. Bounded either way by the stack's own length, like the
 * table's own compare.
 *
 * Offsets are into the active table, which only grows while it is active;
 * the cache is emptied whenever that table changes (the swap's IPI and the
 * start of a run, both on this CPU with interrupts off), and checks which
 * table it was filled from besides.
 */
#ifndef FLAMESTAT_RECENT_H
#define FLAMESTAT_RECENT_H

#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/types.h>

#include "arch.h"
#include "table.h"

/*
 * Leaves of one chain, direct-mapped by the low bits of the PC: a loop of
 * up to 16 bytes of code never has two of its PCs share a slot.
 */
#define FST_RECENT_SLOTS	16

/* The shortest run of one word compared by its first (see below). */
#define FST_RECENT_RUN_MIN	8

/* Off-CPU stacks kept (most recently counted first). */
#define FST_RECENT_OFF		4

/*
 * A slot is the chain's when its gen is: a new chain bumps gen rather than
 * clearing every slot. gen would have to wrap (2^32 chains) between two
 * swaps of the table, which come every second, for an old slot to pass.
 */
struct fst_recent {
	const struct fst_table *tab;	/* offsets are into it; NULL: empty */
	u32 chain;			/* the chain's entry */
	u32 gen;			/* the chain's generation */
	/*
	 * The chain's user frames [run_at, run_at + run_len) are one word, a
	 * recursion's (the walk said so: struct fst_walk_info).
	 */
	u16 run_at;
	u16 run_len;
	struct {
		u64 leaf;
		u32 off;
		u32 gen;
	} slot[FST_RECENT_SLOTS];
	/*
	 * The off-CPU probes' (offcpu.c): the entries the last blocks that
	 * ended on this CPU were counted in, the latest first (0: none),
	 * while off_tab is the table they are in. In a ping-pong, or any
	 * steady blocking, the same few stacks (each task's sleep, and its
	 * preemption by the task it woke) end their blocks on a CPU in turn:
	 * a compare, which another task's stack fails at its first word,
	 * instead of the keyed hash and the table's probe.
	 */
	const struct fst_table *off_tab;
	u32 off[FST_RECENT_OFF];
};

/* Hard-irq or the IPIs that change a CPU's active table: forget it all. */
static inline void fst_recent_reset(struct fst_recent *r)
{
	r->tab = NULL;
	r->off_tab = NULL;
}

static __always_inline u32 fst_recent_index(u64 leaf)
{
	return (u32)leaf & (FST_RECENT_SLOTS - 1);
}

/*
 * Hard-irq. Are @key's header and callers those of the cached chain? @wi:
 * what the user walk said of @key's user frames, a run of them that are
 * one word (struct fst_walk_info). Where the chain has its run at the same
 * place, the two runs are the same if their first words are, and the rest
 * is compared: deep recursions are most of their stacks' words.
 */
static __always_inline bool fst_recent_same_chain(const struct fst_recent *r,
						  const struct fst_table *t,
						  const struct fst_entry *key,
						  const struct fst_walk_info *wi)
{
	u32 n = key->nr_kernel + key->nr_user; /* the sampler's: no waker */
	const struct fst_entry *chain;
	u32 at;

	if (r->tab != t || !n)
		return false;
	chain = (const struct fst_entry *)&t->arena[r->chain];
	/* The header's words (nr_kernel and nr_user among them, pads 0). */
	if (!fst_words_same(fst_key_words(key), fst_key_words(chain),
			    FST_KEY_HDR_WORDS))
		return false;
	/*
	 * Same header, same n: a run within @key is within the chain. The
	 * walk stores four frames of the address before the loop that makes
	 * a run: the words before a run compared hold the run's own too.
	 * Short runs are compared with the rest: two compares cost more.
	 */
	/* run_at is set only where run_len is not 0: lengths first. */
	if (wi->run_len >= FST_RECENT_RUN_MIN && wi->run_len == r->run_len &&
	    wi->run_at == r->run_at) {
		at = key->nr_kernel + wi->run_at;
		if (key->frames[at] == chain->frames[at])
			return fst_words_same(key->frames + 1,
					      chain->frames + 1, at - 1) &&
			       fst_words_same(key->frames + at + wi->run_len,
					      chain->frames + at + wi->run_len,
					      n - at - wi->run_len);
	}
	return fst_words_same(key->frames + 1, chain->frames + 1, n - 1);
}

/*
 * Hard-irq. The entry that counts @key, whose header and callers are the
 * chain's (fst_recent_same_chain()): its leaf's slot, or NULL.
 */
static __always_inline struct fst_entry *
fst_recent_lookup(const struct fst_recent *r, struct fst_table *t,
		  const struct fst_entry *key)
{
	u32 s = fst_recent_index(key->frames[0]);

	if (r->slot[s].leaf != key->frames[0] || r->slot[s].gen != r->gen)
		return NULL;
	return (struct fst_entry *)&t->arena[r->slot[s].off];
}

/*
 * Hard-irq. @key was just counted at arena word @off of table @t: keep it
 * as a leaf of the chain, or start a new chain with it. @same_chain: what
 * fst_recent_same_chain() said of it, given @wi.
 */
static __always_inline void fst_recent_note(struct fst_recent *r,
					    const struct fst_table *t,
					    const struct fst_entry *key,
					    u32 off, bool same_chain,
					    const struct fst_walk_info *wi)
{
	u32 s;

	if (!(key->nr_kernel + key->nr_user))
		return;
	if (!same_chain) {
		r->gen++;
		r->tab = t;
		r->chain = off;
		r->run_at = wi->run_at;
		r->run_len = wi->run_len;
	}
	s = fst_recent_index(key->frames[0]);
	r->slot[s].leaf = key->frames[0];
	r->slot[s].off = off;
	r->slot[s].gen = r->gen;
}

/*
 * The sched_switch probe, interrupts off: the entry of table @t that
 * counts off-CPU @key, if it is one of the last FST_RECENT_OFF counted;
 * or NULL.
 */
static __always_inline struct fst_entry *
fst_recent_off_lookup(struct fst_recent *r, struct fst_table *t,
		      const struct fst_entry *key)
{
	struct fst_entry *e;
	u32 i, off;

	if (r->off_tab != t)
		return NULL;
	for (i = 0; i < ARRAY_SIZE(r->off); i++) {
		off = r->off[i];
		if (!off)
			break;
		e = (struct fst_entry *)&t->arena[off];
		if (fst_key_same(e, key)) {
			/* The latest first. */
			for (; i > 0; i--)
				r->off[i] = r->off[i - 1];
			r->off[0] = off;
			return e;
		}
	}
	return NULL;
}

/*
 * The sched_switch probe, interrupts off: an off-CPU block was just
 * counted at arena word @off of table @t (not found by
 * fst_recent_off_lookup()).
 */
static __always_inline void fst_recent_off_note(struct fst_recent *r,
						const struct fst_table *t,
						u32 off)
{
	u32 i;

	if (r->off_tab != t) {
		r->off_tab = t;
		memset(r->off, 0, sizeof(r->off));
	} else {
		for (i = FST_RECENT_OFF - 1; i > 0; i--)
			r->off[i] = r->off[i - 1];
	}
	r->off[0] = off;
}

#endif /* FLAMESTAT_RECENT_H */
