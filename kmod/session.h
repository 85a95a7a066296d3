/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The profiling session: the one owner of the module's state (the
 * configuration, the per-CPU samplers and their tables, the merged table
 * and the process database). Its interface is what the device and the
 * module's init need: configure, start, stop, reset, claim, and take a
 * reader's copy of the samples or the statistics.
 *
 * Control operations (start .. fst_get_config) run with the control lock
 * held, fst_ctl_lock(), so that a sequence of them is atomic.
 */
#ifndef FLAMESTAT_SESSION_H
#define FLAMESTAT_SESSION_H

#include <linux/gfp.h>
#include <linux/types.h>

#include "config.h"
#include "procdb.h"
#include "table.h"

struct file;

/* Memory, all allocated before sampling starts (module parameters). */
struct fst_limits {
	u32 pcpu_kb;		/* each of a CPU's two tables */
	u32 table_kb;		/* the merged table */
	u32 max_procs;		/* address spaces whose maps are recorded */
	u32 maps_kb;		/* recorded maps and file names */
	u32 cpu_max_percent;	/* sampler's share of a CPU; 0: no limit */
	u32 offcpu_tasks;	/* off-CPU slots (offcpu.c) */
	u32 kstack_cache;	/* enum fst_kcache_mode (kstack_cache.h) */
	u32 unwind_kb;		/* unwind tables of mapped files; 0: none */
};

int fst_session_init(const struct fst_cfg *cfg, const struct fst_limits *lim);
void fst_session_exit(void);

void fst_ctl_lock(void);
void fst_ctl_unlock(void);
int fst_start(void);
void fst_stop(void);
int fst_reset(void);
int fst_set_config(const struct fst_cfg *cfg);
int fst_set_freq(u32 hz);
int fst_set_mode(u32 mode);
int fst_may_control(struct file *file);
void fst_claim(struct file *file);
struct file *fst_claim_force(struct file *file);
int fst_unclaim(struct file *file);
void fst_get_config(struct flamestat_config *u);
bool fst_running(void);

void fst_release_file(struct file *file);
bool fst_locked_down(void);

/*
 * What a reader makes the module allocate (its copy of the table, a
 * snapshot, the text merge): charged to the reader's memory cgroup, as
 * BPF maps are, and allowed to fail: a reader at its limit gets ENOMEM,
 * and the OOM killer is never woken for it.
 */
#define FST_GFP_READER	(GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | __GFP_NOWARN)

/* A private copy of the merged table, for one reader. */
struct fst_copy {
	u64 *arena;
	u32 used;
	u32 nr_entries;
	struct fst_counts counts;
	struct fst_procdb *procdb; /* referenced */
	struct fst_cfg cfg;
	u64 running_ns;
	u64 boottime_ns;
	u32 nr_cpus;		/* CPUs sampled */
	bool lockdown;
	bool cleared;		/* the session's samples were taken */
	size_t charged;		/* fst_reader_charge()d for the arena */
};

/* readermem.c: what readers make the module hold, capped at reader_kb. */
void fst_reader_mem_init(long max);
int fst_reader_charge(size_t bytes);
void fst_reader_uncharge(size_t bytes);
long fst_reader_mem_used(void);

int fst_copy_take(struct fst_copy *copy, bool clear);
void fst_copy_restore(struct fst_copy *copy);
void fst_copy_release(struct fst_copy *copy);
void fst_get_stats(struct flamestat_stats *st);

#endif /* FLAMESTAT_SESSION_H */
