// SPDX-License-Identifier: GPL-2.0
/*
 * Stack tables: a preallocated arena of variable-size entries with a
 * chained hash index. The same code serves each CPU's tables (written in
 * hard-irq) and the merged table (written under fs.agg_lock), so adding
 * never allocates; a full table says so and the caller counts the drop.
 */
#include <linux/log2.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "flamestat.h"

/* An average entry (header and ~20 frames) per bucket keeps chains short. */
#define FST_BYTES_PER_BUCKET	256

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

void fst_table_free(struct fst_table *t)
{
	vfree(t->arena);
	vfree(t->buckets);
	memset(t, 0, sizeof(*t));
}

/*
 * Process context, with no writer left on @t. A table with few entries
 * (a CPU's, drained every second) has its used buckets emptied one by
 * one rather than all of them rewritten.
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

size_t fst_table_bytes(const struct fst_table *t)
{
	return (size_t)t->arena_words * sizeof(u64) +
	       (size_t)t->nr_buckets * sizeof(u32);
}

/* Hard-irq safe. Continues @h over @n frames (fst_hash_frame() each). */
u64 fst_hash_frames(u64 h, const u64 *frames, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		h = fst_hash_frame(h, frames[i]);
	return h;
}

/*
 * Hard-irq safe. The hash of @key whose frames hash to @frames_hash
 * (fst_hash_frames() from FST_HASH_SEED over every frame, kernel then user,
 * which the sampler computes while walking): every key field counts. A
 * step is one xor and one multiply, which carries every bit of a word
 * into the bits above it; the final mix folds the high bits, which every
 * word has reached, back into the low ones that pick the bucket.
 */
u32 fst_entry_hash_with(const struct fst_entry *key, u64 frames_hash)
{
	const u64 *comm = (const u64 *)key->comm;
	u64 h = frames_hash;

	h = fst_hash_frame(h, ((u64)key->tgid << 32) | key->proc_id);
	h = fst_hash_frame(h, ((u64)key->cpu << 48) |
			  ((u64)key->nr_kernel << 32) |
			  ((u64)key->nr_user << 16));
	h = fst_hash_frame(h, key->flags);
	h = fst_hash_frame(h, comm[0]);
	h = fst_hash_frame(h, comm[1]);
	h ^= h >> 29;
	h *= FST_HASH_MUL;
	return (u32)(h ^ (h >> 32));
}

/*
 * Every frame of two stacks of @n frames is equal. Frames are words: a
 * word loop, two words a step, without memcmp()'s call and tail.
 */
static inline bool fst_frames_same(const u64 *a, const u64 *b, u32 n)
{
	u32 i;

	for (i = 0; i + 1 < n; i += 2)
		if ((a[i] ^ b[i]) | (a[i + 1] ^ b[i + 1]))
			return false;
	return i == n || a[i] == b[i];
}

static bool fst_entry_same(const struct fst_entry *a, const struct fst_entry *b)
{
	const u64 *ca = (const u64 *)a->comm, *cb = (const u64 *)b->comm;

	return a->hash == b->hash && a->tgid == b->tgid &&
	       a->proc_id == b->proc_id && a->cpu == b->cpu &&
	       a->nr_kernel == b->nr_kernel && a->nr_user == b->nr_user &&
	       a->flags == b->flags && ca[0] == cb[0] && ca[1] == cb[1] &&
	       fst_frames_same(a->frames, b->frames,
			      a->nr_kernel + a->nr_user);
}

/*
 * The rare path of fst_table_add(): @key is new, append it and link it
 * in bucket @b. Out of line, so that counting a known stack saves and
 * restores fewer registers.
 */
static noinline int fst_table_insert(struct fst_table *t,
				    const struct fst_entry *key, u64 count,
				    u32 b)
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
	e->next = t->buckets[b];
	t->buckets[b] = off;
	t->used += words;
	t->nr_entries++;
	return 1;
}

/*
 * Count @count samples of the stack @key (whose ->hash is set) in @t.
 * Returns 0 when the stack was there, 1 when it is new, or -ENOSPC when a
 * new entry does not fit.
 *
 * Called in hard-irq (hrtimer) on the owning CPU's table: must not sleep,
 * allocate or take locks; the caller guarantees a single writer.
 */
int fst_table_add(struct fst_table *t, const struct fst_entry *key, u64 count)
{
	u32 b = key->hash & (t->nr_buckets - 1);
	u32 off = t->buckets[b];
	struct fst_entry *e;

	while (off) {
		e = (struct fst_entry *)&t->arena[off];
		if (fst_entry_same(e, key)) {
			e->count += count;
			return 0;
		}
		off = e->next;
	}
	return fst_table_insert(t, key, count, b);
}

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
	dst->cost_ns += src->cost_ns;
	dst->cost_max_ns = max(dst->cost_max_ns, src->cost_max_ns);
	for (i = 0; i < FLAMESTAT_COST_BUCKETS; i++)
		dst->cost_hist[i] += src->cost_hist[i];
}
