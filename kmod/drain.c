// SPDX-License-Identifier: GPL-2.0
/*
 * Draining: every CPU swaps its two tables in an IPI, then the retired
 * tables are merged into the merged table. A sample is counted in exactly
 * one CPU table and merged exactly once, so readers never lose or double
 * count, and sampling never pauses. Also: private copies for readers, and
 * the statistics.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>

#include "flamestat.h"

#define FST_DRAIN_INTERVAL	HZ

/* fs.agg_lock held. Moves everything in @src into the merged table. */
static void fst_merge(struct fst_table *src)
{
	struct fst_table *agg = &fs.agg;
	struct fst_entry *e;
	u32 off;

	lockdep_assert_held(&fs.agg_lock);
	if (!src->counts.samples && !src->nr_entries)
		return;
	fst_counts_add(&agg->counts, &src->counts);
	fst_table_for_each(src, e, off) {
		if (fst_table_add(agg, e, e->count) < 0) {
			/* Taken and walked, but there is no room to keep it. */
			agg->counts.recorded -= e->count;
			agg->counts.dropped[FLAMESTAT_DROP_TABLE_FULL] +=
				e->count;
		}
	}
	fst_table_clear(src);
}

/* Process context, fs.agg_lock held. */
void fst_drain(void)
{
	unsigned int cpu;

	lockdep_assert_held(&fs.agg_lock);
	cpus_read_lock();
	/* After this, no timer writes to the table it used before. */
	on_each_cpu_mask(cpu_online_mask, fst_cpu_swap, NULL, true);
	for_each_possible_cpu(cpu) {
		struct fst_cpu *c = per_cpu_ptr(fst_cpus, cpu);

		if (!c->ready)
			continue;
		if (cpu_online(cpu)) {
			fst_merge(&c->tab[c->active ^ 1]);
		} else {
			/* No timer runs here: both tables are ours. */
			fst_merge(&c->tab[0]);
			fst_merge(&c->tab[1]);
		}
	}
	cpus_read_unlock();
}

void fst_drain_work_fn(struct work_struct *work)
{
	struct fst_procdb *db;

	mutex_lock(&fs.agg_lock);
	fst_drain();
	db = fs.procdb;
	fst_procdb_get(db);
	mutex_unlock(&fs.agg_lock);

	fst_procdb_maintain(db, false);
	fst_procdb_put(db);
	if (READ_ONCE(fs.running))
		mod_delayed_work(system_wq, &fs.drain_work, FST_DRAIN_INTERVAL);
}

/* Any context, hard-irq included (mod_delayed_work is irq-safe). */
void fst_kick_drain(void)
{
	mod_delayed_work(system_wq, &fs.drain_work, 0);
}

/* ctl_lock held: CPUs the configuration samples that can run a timer. */
static u32 fst_nr_sampled_cpus(void)
{
	unsigned int cpu;
	u32 n = 0;

	lockdep_assert_held(&fs.ctl_lock);
	cpus_read_lock();
	for_each_cpu_and(cpu, &fs.cfg.cpus, cpu_online_mask)
		n += per_cpu_ptr(fst_cpus, cpu)->ready;
	cpus_read_unlock();
	return n;
}

/*
 * Process context. Folds every CPU's samples in and copies the merged table
 * for one reader; with @clear, the merged table and its counters restart
 * from zero, so consecutive copies partition the samples.
 */
int fst_copy_take(struct fst_copy *copy, bool clear)
{
	struct fst_procdb *db;
	int err = 0;

	memset(copy, 0, sizeof(*copy));
	/* Current maps first, so the copy's user frames resolve. */
	mutex_lock(&fs.agg_lock);
	db = fs.procdb;
	fst_procdb_get(db);
	mutex_unlock(&fs.agg_lock);
	fst_procdb_maintain(db, true);
	fst_procdb_put(db);

	mutex_lock(&fs.ctl_lock);
	mutex_lock(&fs.agg_lock);
	fst_drain();
	/* A reader's copy may fail, but never wake the OOM killer. */
	copy->arena = __vmalloc(max_t(size_t, fs.agg.used, 1) * sizeof(u64),
				GFP_KERNEL | __GFP_RETRY_MAYFAIL | __GFP_NOWARN);
	if (!copy->arena) {
		err = -ENOMEM;
		goto out;
	}
	memcpy(copy->arena, fs.agg.arena, fs.agg.used * sizeof(u64));
	copy->used = fs.agg.used;
	copy->nr_entries = fs.agg.nr_entries;
	copy->counts = fs.agg.counts;
	copy->procdb = fs.procdb;
	fst_procdb_get(copy->procdb);
	copy->cfg = fs.cfg;
	copy->running_ns = fst_running_ns();
	copy->boottime_ns = ktime_get_boottime_ns();
	copy->lockdown = fs.lockdown || fst_locked_down();
	copy->nr_cpus = fst_nr_sampled_cpus();
	if (clear) {
		fst_table_clear(&fs.agg);
		fs.run_total_ns = 0;
		if (fs.running)
			fs.run_start_ns = ktime_get_ns();
	}
out:
	mutex_unlock(&fs.agg_lock);
	mutex_unlock(&fs.ctl_lock);
	return err;
}

void fst_copy_release(struct fst_copy *copy)
{
	vfree(copy->arena);
	fst_procdb_put(copy->procdb);
	memset(copy, 0, sizeof(*copy));
}

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
	st->cost_ns = c->cost_ns;
	st->cost_max_ns = c->cost_max_ns;
	for (i = 0; i < FLAMESTAT_COST_BUCKETS; i++)
		st->cost_hist[i] = c->cost_hist[i];
}

/* Process context. Exact: folds every CPU's pending samples in first. */
void fst_get_stats(struct flamestat_stats *st)
{
	struct fst_procdb *db;
	unsigned int cpu;
	u64 used = 0, total = 0;

	memset(st, 0, sizeof(*st));
	mutex_lock(&fs.ctl_lock);
	mutex_lock(&fs.agg_lock);
	fst_drain();
	fst_stats_fill(st, &fs.agg.counts);
	st->stacks = fs.agg.nr_entries;
	db = fs.procdb;
	st->procs = min_t(u32, atomic_read(&db->nr_procs), db->max_procs);
	st->procs_max = db->max_procs;

	cpus_read_lock();
	for_each_possible_cpu(cpu) {
		struct fst_cpu *c = per_cpu_ptr(fst_cpus, cpu);

		if (!c->ready)
			continue;
		total += fst_table_bytes(&c->tab[0]) + fst_table_bytes(&c->tab[1]);
		used += (c->tab[0].used + c->tab[1].used) * sizeof(u64);
	}
	cpus_read_unlock();
	st->nr_cpus = fs.running ? fst_nr_sampled_cpus() : 0;
	total += fst_table_bytes(&fs.agg) + fst_procdb_bytes(db) + db->mem_max;
	used += fs.agg.used * sizeof(u64) + fst_procdb_bytes(db) +
		atomic_long_read(&db->mem_used);
	st->mem_used = used;
	st->mem_total = total;
	st->running_ns = fst_running_ns();
	st->state = (fs.running ? FLAMESTAT_STATE_RUNNING : 0) |
		    (fs.lockdown || fst_locked_down() ?
		     FLAMESTAT_STATE_LOCKDOWN : 0) |
		    (fs.claim ? FLAMESTAT_STATE_CLAIMED : 0);
	mutex_unlock(&fs.agg_lock);
	mutex_unlock(&fs.ctl_lock);
}
