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
#define FS_BYTES_PER_BUCKET	256

int fs_table_init(struct fs_table *t, size_t bytes, int node)
{
	size_t words = bytes / sizeof(u64);
	u32 nb;

	memset(t, 0, sizeof(*t));
	if (words < 1024)
		words = 1024;
	if (words > U32_MAX)
		words = U32_MAX;
	nb = rounddown_pow_of_two(max_t(size_t, bytes / FS_BYTES_PER_BUCKET,
					64));
	t->arena = vmalloc_node(words * sizeof(u64), node);
	t->buckets = vzalloc_node(nb * sizeof(u32), node);
	if (!t->arena || !t->buckets) {
		fs_table_free(t);
		return -ENOMEM;
	}
	t->arena_words = words;
	t->nr_buckets = nb;
	t->used = 1;
	return 0;
}

void fs_table_free(struct fs_table *t)
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
void fs_table_clear(struct fs_table *t)
{
	struct fs_entry *e;
	u32 off;

	if (t->nr_entries < t->nr_buckets / 16) {
		fs_table_for_each(t, e, off)
			t->buckets[e->hash & (t->nr_buckets - 1)] = 0;
	} else {
		memset(t->buckets, 0, t->nr_buckets * sizeof(u32));
	}
	t->used = 1;
	t->nr_entries = 0;
	memset(&t->counts, 0, sizeof(t->counts));
}

size_t fs_table_bytes(const struct fs_table *t)
{
	return (size_t)t->arena_words * sizeof(u64) +
	       (size_t)t->nr_buckets * sizeof(u32);
}

/* Hard-irq safe. Continues @h over @n frames (fs_hash_frame() each). */
u64 fs_hash_frames(u64 h, const u64 *frames, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		h = fs_hash_frame(h, frames[i]);
	return h;
}

/*
 * Hard-irq safe. The hash of @key whose frames hash to @frames_hash
 * (fs_hash_frames() from FS_HASH_SEED over every frame, kernel then user,
 * which the sampler computes while walking): every key field counts. A
 * step is one xor and one multiply, which carries every bit of a word
 * into the bits above it; the final mix folds the high bits, which every
 * word has reached, back into the low ones that pick the bucket.
 */
u32 fs_entry_hash_with(const struct fs_entry *key, u64 frames_hash)
{
	const u64 *comm = (const u64 *)key->comm;
	u64 h = frames_hash;

	h = fs_hash_frame(h, ((u64)key->tgid << 32) | key->proc_id);
	h = fs_hash_frame(h, ((u64)key->cpu << 48) |
			  ((u64)key->nr_kernel << 32) |
			  ((u64)key->nr_user << 16));
	h = fs_hash_frame(h, key->flags);
	h = fs_hash_frame(h, comm[0]);
	h = fs_hash_frame(h, comm[1]);
	h ^= h >> 29;
	h *= FS_HASH_MUL;
	return (u32)(h ^ (h >> 32));
}

/*
 * Every frame of two stacks of @n frames is equal. Frames are words: a
 * word loop, two words a step, without memcmp()'s call and tail.
 */
static inline bool fs_frames_same(const u64 *a, const u64 *b, u32 n)
{
	u32 i;

	for (i = 0; i + 1 < n; i += 2)
		if ((a[i] ^ b[i]) | (a[i + 1] ^ b[i + 1]))
			return false;
	return i == n || a[i] == b[i];
}

static bool fs_entry_same(const struct fs_entry *a, const struct fs_entry *b)
{
	const u64 *ca = (const u64 *)a->comm, *cb = (const u64 *)b->comm;

	return a->hash == b->hash && a->tgid == b->tgid &&
	       a->proc_id == b->proc_id && a->cpu == b->cpu &&
	       a->nr_kernel == b->nr_kernel && a->nr_user == b->nr_user &&
	       a->flags == b->flags && ca[0] == cb[0] && ca[1] == cb[1] &&
	       fs_frames_same(a->frames, b->frames,
			      a->nr_kernel + a->nr_user);
}

/*
 * The rare path of fs_table_add(): @key is new, append it and link it
 * in bucket @b. Out of line, so that counting a known stack saves and
 * restores fewer registers.
 */
static noinline int fs_table_insert(struct fs_table *t,
				    const struct fs_entry *key, u64 count,
				    u32 b)
{
	struct fs_entry *e;
	u32 off, words;

	words = fs_entry_words(key);
	if (words > t->arena_words - t->used)
		return -ENOSPC;
	off = t->used;
	e = (struct fs_entry *)&t->arena[off];
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
int fs_table_add(struct fs_table *t, const struct fs_entry *key, u64 count)
{
	u32 b = key->hash & (t->nr_buckets - 1);
	u32 off = t->buckets[b];
	struct fs_entry *e;

	while (off) {
		e = (struct fs_entry *)&t->arena[off];
		if (fs_entry_same(e, key)) {
			e->count += count;
			return 0;
		}
		off = e->next;
	}
	return fs_table_insert(t, key, count, b);
}

void fs_counts_add(struct fs_counts *dst, const struct fs_counts *src)
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
