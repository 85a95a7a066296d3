/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sampler: a pinned hard-irq hrtimer per CPU that walks the interrupted
 * stacks and counts them in that CPU's active table. Everything the timers
 * read is in struct fst_sampler, which the session owns and changes only
 * with every timer stopped.
 */
#ifndef FLAMESTAT_SAMPLER_H
#define FLAMESTAT_SAMPLER_H

#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/percpu.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "config.h"
#include "procdb.h"
#include "recent.h"
#include "table.h"

/* One CPU's sampler. */
struct fst_cpu {
	struct hrtimer timer;
	struct fst_table tab[2];
	/* tab[active] is written by this CPU's timer; changed on this CPU only */
	unsigned int active;
	bool drain_kicked;	/* asked for a drain since the last swap */
	bool ready;		/* tables allocated */
	/*
	 * Timer started in this run: written on this CPU only (IPI, hotplug),
	 * read by the drain, which the session's start and stop exclude.
	 */
	bool armed;
	int cpu;
	u64 phase_ns;		/* first expiry: start + phase + period */
	/*
	 * Self-throttling, this CPU's timer only: the timer fires every
	 * skip periods (a power of two, 1 when the sampler is cheap
	 * enough); cost_avg8 is 8 times the moving average of its cost.
	 */
	u32 skip;
	u64 cost_avg8;
	struct fst_proc_cache cache; /* last address space seen */
	struct fst_recent recent; /* last stacks counted in tab[active] */
	struct fst_entry *scratch; /* the key being built */
	struct fst_sampler *s;
};

/*
 * What the timers read. cfg, lockdown and procdb change only with every
 * timer stopped (the session's ctl_lock; procdb also under the drain's
 * lock); running is read by the timers and set by the session.
 */
struct fst_sampler {
	struct fst_cfg cfg;
	bool running;
	bool lockdown;		/* kernel stacks withheld for this run */
	struct fst_procdb *procdb;
	struct fst_cpu __percpu *cpus;
	/* ktime_get_ns() at the start and the end of the run */
	u64 start_ns;
	u64 stop_ns;
	u32 cost_pct;		/* cpu_max_percent; 0: no limit */
	u64 cost_budget_ns;	/* of a period, from cost_pct; 0: no limit */
	/* Queued from hard-irq when a CPU table is half full. */
	struct irq_work drain_kick;
	struct delayed_work *drain_work;
};

int fst_sampler_init(struct fst_sampler *s, struct delayed_work *drain_work);
void fst_sampler_free(struct fst_sampler *s);
int fst_sampler_cpu_alloc(struct fst_sampler *s, unsigned int cpu,
			  size_t table_bytes, u32 scratch_words);
void fst_sampler_start_this_cpu(struct fst_sampler *s);
void fst_sampler_start(struct fst_sampler *s, u64 start_ns);
void fst_sampler_stop(struct fst_sampler *s, u64 stop_ns);
void fst_sampler_stop_cpu(struct fst_sampler *s, unsigned int cpu);
void fst_sampler_swap(struct fst_sampler *s);
bool fst_sampler_throttled(struct fst_sampler *s);
void fst_sampler_forget_procs(struct fst_sampler *s);
u32 fst_sampler_nr_cpus(struct fst_sampler *s);

#endif /* FLAMESTAT_SAMPLER_H */
