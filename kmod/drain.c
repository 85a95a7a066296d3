// SPDX-License-Identifier: GPL-2.0
/*
 * Draining: every CPU swaps its two tables in an IPI, then the retired
 * tables are merged into the merged table. A sample is counted in exactly
 * one CPU table and merged exactly once, so readers never lose or double
 * count, and sampling never pauses.
 */
#include <linux/cpu.h>
#include <linux/jiffies.h>
#include <linux/numa.h>

#include "compat.h"
#include "drain.h"

#define FST_DRAIN_INTERVAL	HZ

/**
 * fst_merge_arena() - add a table's entries and counters to the merged table
 * @agg: the aggregate
 * @counts: the counters of the samples in @arena
 * @arena: the entries, laid out as in a table's arena (word 0 unused)
 * @used: arena words in use
 *
 * A full merged table makes room once, from its coldest stacks; what
 * still finds none is counted as dropped.
 *
 * Context: process context, @agg->lock held.
 */
void fst_merge_arena(struct fst_agg *agg, const struct fst_counts *counts,
		     u64 *arena, u32 used)
{
	struct fst_table *t = &agg->table;
	struct { u64 *arena; u32 used; } src = { arena, used };
	bool evicted = false;
	struct fst_entry *e;
	u32 off, at;

	lockdep_assert_held(&agg->lock);
	fst_counts_add(&t->counts, counts);
	fst_table_for_each(&src, e, off) {
		int err = fst_table_add(t, e, e->count, e->periods, &at);

		if (err == -ENOSPC && !evicted) {
			fst_table_evict(t);
			evicted = true;
			err = fst_table_add(t, e, e->count, e->periods, &at);
		}
		/* Taken and walked, but there is no room to keep it. */
		if (err == -E2BIG)
			fst_counts_unrecord(&t->counts, e, FLAMESTAT_DROP_PROBE,
					    FLAMESTAT_OFFDROP_PROBE);
		else if (err < 0)
			fst_counts_unrecord(&t->counts, e,
					    FLAMESTAT_DROP_TABLE_FULL,
					    FLAMESTAT_OFFDROP_TABLE_FULL);
	}
}

/* agg->lock held. Moves everything in @src into the merged table. */
static void fst_merge(struct fst_agg *agg, struct fst_table *src)
{
	/* Nothing counted: no sample, no off-CPU block, no stack. */
	if (!src->counts.samples && !src->counts.offcpu_blocks &&
	    !src->nr_entries)
		return;
	fst_merge_arena(agg, &src->counts, src->arena, src->used);
	fst_table_clear(src);
}

/**
 * fst_drain() - merge every CPU's samples into the merged table
 * @agg: the aggregate
 *
 * CPUs whose timer runs swap their tables first (in an IPI) and the
 * retired ones are merged; a CPU without a timer (offline, not sampled,
 * sampling stopped) gets no IPI, and both of its tables are merged. The
 * session starts and stops timers under @agg->lock, and CPU hotplug waits
 * for cpus_read_unlock(), so which CPUs have a timer holds throughout.
 *
 * Context: process context, @agg->lock held.
 */
void fst_drain(struct fst_agg *agg)
{
	struct fst_sampler *s = agg->sampler;
	unsigned int cpu;

	lockdep_assert_held(&agg->lock);
	cpus_read_lock();
	fst_sampler_swap(s);
	for_each_possible_cpu(cpu) {
		struct fst_cpu *c = per_cpu_ptr(s->cpus, cpu);

		if (!c->ready)
			continue;
		if (fst_cpu_written(c)) {
			fst_merge(agg, &c->tab[c->active ^ 1]);
		} else {
			/* No timer runs here: both tables are ours. */
			fst_merge(agg, &c->tab[0]);
			fst_merge(agg, &c->tab[1]);
		}
	}
	cpus_read_unlock();
}

/*
 * Process context (an unbound system workqueue): drain, then let the process
 * database work.
 */
static void fst_drain_work_fn(struct work_struct *work)
{
	struct fst_agg *agg = container_of(to_delayed_work(work),
					   struct fst_agg, work);
	struct fst_procdb *db;

	mutex_lock(&agg->lock);
	fst_drain(agg);
	db = agg->sampler->procdb;
	fst_procdb_get(db);
	mutex_unlock(&agg->lock);

	fst_procdb_maintain(db, false);
	fst_procdb_put(db);
	if (READ_ONCE(agg->sampler->running))
		mod_delayed_work(fst_wq_unbound, &agg->work, FST_DRAIN_INTERVAL);
}

/**
 * fst_agg_init() - set up the aggregate and its drain work
 * @agg: the aggregate
 * @s: the sampler whose tables it drains
 * @bytes: size of the merged table
 *
 * Context: process context.
 * Return: 0 or -ENOMEM.
 */
int fst_agg_init(struct fst_agg *agg, struct fst_sampler *s, size_t bytes)
{
	mutex_init(&agg->lock);
	INIT_DELAYED_WORK(&agg->work, fst_drain_work_fn);
	agg->sampler = s;
	return fst_table_init(&agg->table, bytes, NUMA_NO_NODE);
}

/**
 * fst_agg_free() - stop the drain work and free the merged table
 * @agg: the aggregate, every timer stopped
 *
 * Context: process context.
 */
void fst_agg_free(struct fst_agg *agg)
{
	cancel_delayed_work_sync(&agg->work);
	fst_table_free(&agg->table);
}
