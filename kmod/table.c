// SPDX-License-Identifier: GPL-2.0
/*
 * Stack tables: a preallocated arena of variable-size entries with a
 * chained hash index. The same code serves each CPU's tables (written in
 * hard-irq) and the merged table (written by the drain, under its lock),
 * so adding never allocates; a full table says so and the caller counts
 * the drop.
 */
#include <linux/log2.h>
#include <linux/random.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "table.h"

/* An average entry (header and ~20 frames) per bucket keeps chains short. */
#define FST_BYTES_PER_BUCKET	256

/**
 * fst_table_init() - allocate an empty table
 * @t: the table to set up
 * @bytes: arena size in bytes (at least 8 KiB are used)
 * @node: NUMA node for the memory, or NUMA_NO_NODE
 *
 * Context: process context; may sleep.
 * Return: 0, or -ENOMEM with @t left empty.
 */
int fst_table_init(struct fst_table *t, size_t bytes, int node)
{
	size_t words = bytes / sizeof(u64);
	u32 nb;

	memset(t, 0, sizeof(*t));
	if (words < 1024)
		words = 1024;
	if (words > U32_MAX)
		words = U32_MAX;
	nb = rounddown_pow_of_two(max_t(size_t, bytes / FST_BYTES_PER_BUCKET,
					64));
	t->arena = vmalloc_node(words * sizeof(u64), node);
	t->buckets = vzalloc_node(nb * sizeof(u32), node);
	if (!t->arena || !t->buckets) {
		fst_table_free(t);
		return -ENOMEM;
	}
	t->arena_words = words;
	t->nr_buckets = nb;
	t->used = 1;
	return 0;
}

/**
 * fst_table_free() - free a table's memory
 * @t: the table, set up or empty; left zeroed
 *
 * Context: process context, no writer left on @t.
 */
void fst_table_free(struct fst_table *t)
{
	vfree(t->arena);
	vfree(t->buckets);
	memset(t, 0, sizeof(*t));
}

/**
 * fst_table_clear() - forget every entry and counter of a table
 * @t: the table
 *
 * A table with few entries (a CPU's, drained every second) has its used
 * buckets emptied one by one rather than all of them rewritten.
 *
 * Context: process context, with no writer left on @t.
 */
void fst_table_clear(struct fst_table *t)
{
	struct fst_entry *e;
	u32 off;

	if (t->nr_entries < t->nr_buckets / 16) {
		fst_table_for_each(t, e, off)
			t->buckets[e->hash & (t->nr_buckets - 1)] = 0;
	} else {
		memset(t->buckets, 0, t->nr_buckets * sizeof(u32));
	}
	t->used = 1;
	t->nr_entries = 0;
	memset(&t->counts, 0, sizeof(t->counts));
}

/**
 * fst_table_bytes() - memory a table holds
 * @t: the table
 *
 * Context: any.
 * Return: bytes of its arena and buckets.
 */
size_t fst_table_bytes(const struct fst_table *t)
{
	return (size_t)t->arena_words * sizeof(u64) +
	       (size_t)t->nr_buckets * sizeof(u32);
}

/*
 * Stacks are hashed with SipHash-1-3 (what the kernel's hsiphash() is on
 * 64-bit) under a key drawn at load time. The
 * frames are the sampled program's choice: with an unkeyed hash a process
 * could build stacks that all land in one bucket and make the probe, in
 * hard-irq, as long as it likes. Keyed, it cannot aim; and a probe is
 * bounded anyway (FST_PROBE_MAX). Per frame: one compression round.
 */
static struct fst_hash fst_hash_seed __read_mostly; /* the key's initial state */

static __always_inline void fst_sipround(struct fst_hash *h)
{
	h->v0 += h->v1;
	h->v1 = rol64(h->v1, 13);
	h->v1 ^= h->v0;
	h->v0 = rol64(h->v0, 32);
	h->v2 += h->v3;
	h->v3 = rol64(h->v3, 16);
	h->v3 ^= h->v2;
	h->v0 += h->v3;
	h->v3 = rol64(h->v3, 21);
	h->v3 ^= h->v0;
	h->v2 += h->v1;
	h->v1 = rol64(h->v1, 17);
	h->v1 ^= h->v2;
	h->v2 = rol64(h->v2, 32);
}

/* Any context, hard-irq included: no memory but @h is touched. */
static __always_inline void fst_hash_frame(struct fst_hash *h, u64 frame)
{
	h->v3 ^= frame;
	fst_sipround(h);
	h->v0 ^= frame;
}

/**
 * fst_hash_init_key() - draw the stack hash's key
 *
 * Once, at load, before any sampler runs: every table of the module's life
 * hashes with it (the merged table reuses the CPUs' hashes).
 *
 * Context: process context.
 */
void fst_hash_init_key(void)
{
	u64 k[2];

	get_random_bytes(k, sizeof(k));
	/* SipHash's initialization, as in lib/siphash.c. */
	fst_hash_seed = (struct fst_hash) {
		.v0 = 0x736f6d6570736575ULL ^ k[0],
		.v1 = 0x646f72616e646f6dULL ^ k[1],
		.v2 = 0x6c7967656e657261ULL ^ k[0],
		.v3 = 0x7465646279746573ULL ^ k[1],
	};
	memzero_explicit(k, sizeof(k));
}

/*
 * Any context, hard-irq included: fst_entry_hash() from @h, the state after
 * @key's first @done frames.
 */
static __always_inline u32 fst_hash_rest(const struct fst_hash *from,
					 u32 done,
					 const struct fst_entry *key)
{
	const u64 *comm = (const u64 *)key->comm;
	u32 n = fst_entry_frames(key), i;
	struct fst_hash h = *from;
	u64 words = n + 5;

	for (i = done; i < n; i++)
		fst_hash_frame(&h, key->frames[i]);
	fst_hash_frame(&h, ((u64)key->tgid << 32) | key->proc_id);
	fst_hash_frame(&h, ((u64)key->cpu << 48) |
			   ((u64)key->nr_kernel << 32) |
			   ((u64)key->nr_user << 16) | key->nr_waker);
	fst_hash_frame(&h, key->flags);
	fst_hash_frame(&h, comm[0]);
	fst_hash_frame(&h, comm[1]);
	fst_hash_frame(&h, words << 59);
	h.v2 ^= 0xff;
	fst_sipround(&h);
	fst_sipround(&h);
	fst_sipround(&h);
	return (u32)((h.v0 ^ h.v1 ^ h.v2 ^ h.v3) >> 32) ^
	       (u32)(h.v0 ^ h.v1 ^ h.v2 ^ h.v3);
}

/**
 * fst_entry_hash() - the hash of a stack entry's whole key
 * @key: the entry
 *
 * SipHash-1-3 under the load-time key: every frame, kernel then user, then
 * every key field, then the number of words, as SipHash ends a message,
 * and its finalization.
 *
 * Context: any, hard-irq included.
 * Return: the value for @key->hash.
 */
u32 fst_entry_hash(const struct fst_entry *key)
{
	return fst_hash_rest(&fst_hash_seed, 0, key);
}

/**
 * fst_hash_frames() - the state of fst_entry_hash() after a key's first
 *	frames
 * @h: where it goes
 * @frames: the frames
 * @n: how many
 *
 * For a caller that meets the same first frames again (kstack_cache.c):
 * fst_entry_hash_from() goes on from @h.
 *
 * Context: any, hard-irq included.
 */
void fst_hash_frames(struct fst_hash *h, const u64 *frames, u32 n)
{
	u32 i;

	*h = fst_hash_seed;
	for (i = 0; i < n; i++)
		fst_hash_frame(h, frames[i]);
}

/**
 * fst_entry_hash_from() - fst_entry_hash(), its first frames already hashed
 * @from: fst_hash_frames() of @key's first @done frames
 * @done: how many
 * @key: the entry
 *
 * Context: any, hard-irq included.
 * Return: fst_entry_hash(@key).
 */
u32 fst_entry_hash_from(const struct fst_hash *from, u32 done,
			const struct fst_entry *key)
{
	return fst_hash_rest(from, done, key);
}

/* The same stack: hash, header words (the frame counts among them), frames. */
static bool fst_entry_same(const struct fst_entry *a, const struct fst_entry *b)
{
	return a->hash == b->hash && fst_key_same(a, b);
}

/*
 * The rare path of fst_table_add(): @key is new, append it and link it
 * in bucket @b. Out of line, so that counting a known stack saves and
 * restores fewer registers.
 */
static noinline int fst_table_insert(struct fst_table *t,
				     const struct fst_entry *key, u64 count,
				     u64 periods, u32 b, u32 *at)
{
	struct fst_entry *e;
	u32 off, words;

	words = fst_entry_words(key);
	if (words > t->arena_words - t->used)
		return -ENOSPC;
	off = t->used;
	e = (struct fst_entry *)&t->arena[off];
	memcpy(e, key, words * sizeof(u64));
	e->count = count;
	e->periods = periods;
	e->next = t->buckets[b];
	t->buckets[b] = off;
	t->used += words;
	t->nr_entries++;
	*at = off;
	return 1;
}

/**
 * fst_table_add() - count samples of a stack
 * @t: the table
 * @key: the stack, with ->hash set
 * @count: samples to add
 * @periods: the sampling periods they stand for
 * @at: set to the arena word of the stack's entry, unless an error is
 *	returned
 *
 * Context: hard-irq (hrtimer) on the owning CPU's table: must not sleep,
 * allocate or take locks; the caller guarantees a single writer. Also the
 * drain, under the aggregate's lock, for the merged table.
 * Return: 0 when the stack was there, 1 when it is new, -ENOSPC when a
 * new entry does not fit, or -E2BIG when its bucket holds more than
 * FST_PROBE_MAX other stacks.
 */
int fst_table_add(struct fst_table *t, const struct fst_entry *key, u64 count,
		  u64 periods, u32 *at)
{
	u32 b = key->hash & (t->nr_buckets - 1);
	u32 off = t->buckets[b], probe = 0;
	struct fst_entry *e;

	while (off) {
		e = (struct fst_entry *)&t->arena[off];
		if (fst_entry_same(e, key)) {
			e->count += count;
			e->periods += periods;
			*at = off;
			return 0;
		}
		off = e->next;
		/* Bounded in hard-irq, whatever the stacks (see table.h). */
		if (unlikely(++probe > t->counts.probe_max)) {
			if (probe > FST_PROBE_MAX)
				return -E2BIG;
			t->counts.probe_max = probe;
		}
	}
	return fst_table_insert(t, key, count, periods, b, at);
}

/**
 * fst_table_evict() - make room in a full table: drop its coldest stacks
 * @t: the table; the merged one, under the aggregate's lock
 *
 * One process recording a new stack at every sample (random stacks, on
 * purpose or not) would otherwise fill the table for everyone: every other
 * process's new stacks then dropped for the rest of the session. Stacks
 * are dropped by count, coldest first, in classes of powers of two (and
 * within a class the oldest first), until a quarter of the arena is free:
 * a steady process's hot stacks stay, the one-sample stacks of the one
 * filling the table go. The
 * survivors are packed to the front of the arena, in their order, and the
 * buckets rebuilt.
 *
 * Context: process context, with no writer left on @t but the caller.
 * Every stack dropped is counted in @t's counters (DROP_EVICTED,
 * OFFDROP_EVICTED).
 */
void fst_table_evict(struct fst_table *t)
{
	u64 words[65] = { 0 }, want = t->arena_words / 4, sum = 0;
	struct fst_entry *e;
	u32 off, to = 1, n;
	int cls, last;

	/* Words held by the stacks of each count class: fls64(count). */
	fst_table_for_each(t, e, off)
		words[fls64(e->count)] += fst_entry_words(e);
	/* Classes below @last go whole; of @last, the oldest up to @want. */
	for (last = 0; last < 64 && sum + words[last] < want; last++)
		sum += words[last];
	want -= sum;

	memset(t->buckets, 0, t->nr_buckets * sizeof(u32));
	t->nr_entries = 0;
	for (off = 1; off < t->used; off += n) {
		e = (struct fst_entry *)&t->arena[off];
		n = fst_entry_words(e);
		cls = fls64(e->count);
		if (cls < last || (cls == last && want)) {
			if (cls == last)
				want -= min_t(u64, want, n);
			fst_counts_unrecord(&t->counts, e, FLAMESTAT_DROP_EVICTED,
					    FLAMESTAT_OFFDROP_EVICTED);
			continue;
		}
		if (to != off)
			memmove(&t->arena[to], e, n * sizeof(u64));
		e = (struct fst_entry *)&t->arena[to];
		e->next = t->buckets[e->hash & (t->nr_buckets - 1)];
		t->buckets[e->hash & (t->nr_buckets - 1)] = to;
		t->nr_entries++;
		to += n;
	}
	t->used = to;
}

/**
 * fst_counts_unrecord() - count a recorded stack as dropped after all
 * @c: the counters of the table it was in
 * @e: the stack, on-CPU samples or off-CPU blocks
 * @why: the reason for samples
 * @off_why: the reason for blocks
 *
 * Context: any; the caller owns @c.
 */
void fst_counts_unrecord(struct fst_counts *c, const struct fst_entry *e,
			 enum flamestat_drop why,
			 enum flamestat_offcpu_drop off_why)
{
	if (e->flags & FLAMESTAT_STACKF_OFFCPU) {
		c->offcpu_recorded -= e->count;
		c->offcpu_dropped[off_why] += e->count;
		c->offcpu_ns -= e->periods;
	} else {
		c->recorded -= e->count;
		c->dropped[why] += e->count;
	}
}

/**
 * fst_counts_add() - add one table's counters to another's
 * @dst: counters added to
 * @src: counters added
 *
 * Context: any; the caller owns both.
 */
void fst_counts_add(struct fst_counts *dst, const struct fst_counts *src)
{
	int i;

	dst->samples += src->samples;
	dst->recorded += src->recorded;
	for (i = 0; i < FLAMESTAT_NR_DROPS; i++)
		dst->dropped[i] += src->dropped[i];
	dst->overruns += src->overruns;
	dst->kernel_truncated += src->kernel_truncated;
	dst->user_truncated += src->user_truncated;
	dst->user_fault += src->user_fault;
	dst->user_compat += src->user_compat;
	dst->idle_irq += src->idle_irq;
	dst->unmapped_procs += src->unmapped_procs;
	for (i = 0; i < ARRAY_SIZE(dst->unwind); i++)
		dst->unwind[i] += src->unwind[i];
	for (i = 0; i < FLAMESTAT_NR_UNWIND_STOPS; i++)
		dst->unwind_stop[i] += src->unwind_stop[i];
	dst->cost_ns += src->cost_ns;
	dst->cost_max_ns = max(dst->cost_max_ns, src->cost_max_ns);
	dst->probe_max = max(dst->probe_max, src->probe_max);
	for (i = 0; i < FLAMESTAT_COST_BUCKETS; i++)
		dst->cost_hist[i] += src->cost_hist[i];
	dst->offcpu_blocks += src->offcpu_blocks;
	dst->offcpu_recorded += src->offcpu_recorded;
	for (i = 0; i < FLAMESTAT_NR_OFFDROPS; i++)
		dst->offcpu_dropped[i] += src->offcpu_dropped[i];
	dst->offcpu_ns += src->offcpu_ns;
}

/**
 * fst_stats_fill() - counters in the ABI's form
 * @st: the statistics whose counter fields are set
 * @c: the counters
 *
 * Context: any.
 */
void fst_stats_fill(struct flamestat_stats *st, const struct fst_counts *c)
{
	int i;

	st->samples = c->samples;
	st->recorded = c->recorded;
	for (i = 0; i < FLAMESTAT_NR_DROPS; i++)
		st->dropped[i] = c->dropped[i];
	st->overruns = c->overruns;
	st->kernel_truncated = c->kernel_truncated;
	st->user_truncated = c->user_truncated;
	st->user_fault = c->user_fault;
	st->user_compat = c->user_compat;
	st->idle_irq = c->idle_irq;
	st->unmapped_procs = c->unmapped_procs;
	st->unwind_table = c->unwind[1];
	st->unwind_fp = c->unwind[2];
	st->unwind_mixed = c->unwind[3];
	for (i = 0; i < FLAMESTAT_NR_UNWIND_STOPS; i++)
		st->unwind_stop[i] = c->unwind_stop[i];
	st->cost_ns = c->cost_ns;
	st->cost_max_ns = c->cost_max_ns;
	st->probe_max = c->probe_max;
	for (i = 0; i < FLAMESTAT_COST_BUCKETS; i++)
		st->cost_hist[i] = c->cost_hist[i];
	st->offcpu_blocks = c->offcpu_blocks;
	st->offcpu_recorded = c->offcpu_recorded;
	for (i = 0; i < FLAMESTAT_NR_OFFDROPS; i++)
		st->offcpu_dropped[i] = c->offcpu_dropped[i];
	st->offcpu_ns = c->offcpu_ns;
}
