/* SPDX-License-Identifier: GPL-2.0 */
/*
 * flamestat module internals: the stack tables, the per-process map
 * database, the sampler and the global state they share.
 *
 * Data flow: each CPU's hrtimer (sampler.c) walks the interrupted stacks
 * and counts them in that CPU's active table (table.c). drain.c swaps every
 * CPU's two tables with an IPI and merges the retired ones into the merged
 * table under fs.agg_lock. Readers (text.c, snapshot.c) copy the merged
 * table and render the copy, so sampling never stops for a reader and
 * every sample is counted exactly once. User addresses are turned into
 * (file, offset) with the maps procdb.c records from process context.
 */
#ifndef FLAMESTAT_H
#define FLAMESTAT_H

#include <linux/cpumask.h>
#include <linux/hrtimer.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "uapi/flamestat.h"

struct mm_struct;
struct pt_regs;
struct task_struct;

/* ---- table.c: a bounded arena of unique stacks with a hash index ---- */

/*
 * One unique stack. Entries live in a table's arena, 8-byte aligned, one
 * after the other; frames[] holds nr_kernel then nr_user frames, leaf first.
 * Everything from tgid to the last frame is the key.
 */
struct fst_entry {
	u32 next;		/* arena word of the next entry in the bucket */
	u32 hash;
	u64 count;
	u32 tgid;
	u32 proc_id;		/* procdb id of the address space, 0: none */
	u16 cpu;		/* FLAMESTAT_CPU_ANY unless CFG_PERCPU */
	u16 nr_kernel;
	u16 nr_user;
	u16 pad;
	u32 flags;		/* FLAMESTAT_STACKF_* */
	u32 pad2;
	char comm[FLAMESTAT_COMM_LEN];
	u64 frames[];
};

#define FST_ENTRY_HDR_WORDS	(sizeof(struct fst_entry) / sizeof(u64))

static inline u32 fst_entry_words(const struct fst_entry *e)
{
	return FST_ENTRY_HDR_WORDS + e->nr_kernel + e->nr_user;
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
	u64 cost_ns;
	u64 cost_max_ns;
	u64 cost_hist[FLAMESTAT_COST_BUCKETS];
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
/* Frames are hashed as they are walked: h = fst_hash_frame(h, frame). */
#define FST_HASH_SEED	0
#define FST_HASH_MUL	0x9e3779b97f4a7c15ULL
static inline u64 fst_hash_frame(u64 h, u64 frame)
{
	return (h ^ frame) * FST_HASH_MUL;
}

u64 fst_hash_frames(u64 h, const u64 *frames, u32 n);
u32 fst_entry_hash_with(const struct fst_entry *key, u64 frames_hash);
int fst_table_add(struct fst_table *t, const struct fst_entry *key, u64 count);
size_t fst_table_bytes(const struct fst_table *t);
void fst_counts_add(struct fst_counts *dst, const struct fst_counts *src);

#define fst_table_for_each(t, e, off)					\
	for ((off) = 1;							\
	     (off) < (t)->used &&					\
	     ((e) = (struct fst_entry *)&(t)->arena[off], 1);		\
	     (off) += fst_entry_words(e))

/* ---- procdb.c: address spaces seen by the sampler and their maps ---- */

struct fst_file {
	u32 id;			/* > 0 */
	u32 build_id_size;
	u8 build_id[FLAMESTAT_BUILD_ID_SIZE];
	u64 dev;
	u64 ino;
	struct hlist_node node;	/* in procdb->files_hash */
	char path[];
};

struct fst_map {
	u64 start;
	u64 end;
	u64 pgoff;		/* bytes */
	u32 file_id;		/* 0: anonymous or vdso */
	u16 flags;		/* FLAMESTAT_MAPF_* */
	u16 generation;
};

struct fst_maps {
	struct rcu_head rcu;
	u32 nr;
	struct fst_map map[];	/* sorted by start, non-overlapping */
};

/* struct fst_proc.bits */
enum {
	FST_PROC_READY,		/* fields published, pins taken */
	FST_PROC_SCAN,		/* maps need (re)reading */
	FST_PROC_PINNED,		/* we hold an mm_users reference */
	FST_PROC_DEAD,		/* lost an insert race; unused */
	FST_PROC_EXITED,		/* address space gone; maps are final */
	FST_PROC_NOMAPS,		/* maps could not be read */
	FST_PROC_COMPAT,
};

/*
 * One address space. Created in hard-irq by the first sample of a task
 * using it (fields up to bits are written once, before FST_PROC_READY);
 * maps are (re)read by the scan worker under procdb->lock and published
 * with RCU. Slots are never reused before the procdb is thrown away, so a
 * proc id stays valid for every copy of the merged table that holds a
 * reference to its procdb.
 */
struct fst_proc {
	struct mm_struct *mm;	/* lookup key while live (mmgrab'ed); NULL after */
	u32 id;
	u32 idx_pos;		/* position in procdb->index */
	pid_t tgid;
	pid_t ns_tgid;
	char comm[FLAMESTAT_COMM_LEN];
	unsigned long bits;
	unsigned long last_seen; /* jiffies of the last sample, racy by design */
	unsigned long last_scan; /* jiffies, procdb->lock */
	u16 generation;		/* scans so far, procdb->lock */
	struct fst_maps __rcu *maps;
	/* Rescans asked for by samples (fst_procdb_check_frames). */
	u64 want_ip;		/* the uncovered address that asked, racy */
	unsigned long backoff_until; /* jiffies; no request before */
	unsigned long backoff;	/* jiffies, doubles while requests are wrong */
};

struct fst_procdb {
	struct kref ref;	/* the sampler's, plus one per table copy */
	struct mutex lock;	/* maps, files, exit handling */
	struct fst_proc *procs;	/* [max_procs] */
	u32 *index;		/* [index_size] proc ids by hash of mm, lock-free */
	u32 index_size;		/* power of two, >= 2 * max_procs */
	u32 max_procs;
	atomic_t nr_procs;	/* slots handed out, may exceed max_procs */
	unsigned long gen;	/* bumped when an index entry dies */
	struct work_struct scan_work;
	struct fst_scan_ent *scan_buf;	/* [FST_MAX_EXEC_MAPS], lock */
	struct hlist_head *files_hash;
	struct fst_file **files;	/* by id - 1 */
	u32 nr_files;
	u32 max_files;
	atomic_long_t mem_used;	/* bytes of maps and files */
	long mem_max;
};

struct fst_cpu;
struct fst_scan_ent;
struct fst_procdb *fst_procdb_create(u32 max_procs, long mem_max);
void fst_procdb_get(struct fst_procdb *db);
void fst_procdb_put(struct fst_procdb *db);
u32 fst_procdb_lookup_miss(struct fst_procdb *db, struct fst_cpu *c,
			  struct task_struct *task, struct mm_struct *mm,
			  unsigned long gen, bool compat);
void fst_procdb_check_frames(struct fst_procdb *db, u32 id, const u64 *frames,
			    unsigned int n);
void fst_procdb_maintain(struct fst_procdb *db, bool sync);
const struct fst_map *fst_maps_find(const struct fst_maps *maps, u64 addr);
static inline struct fst_proc *fst_procdb_proc(struct fst_procdb *db, u32 id)
{
	if (!id || id > db->max_procs)
		return NULL;
	return &db->procs[id - 1];
}

static inline struct fst_file *fst_procdb_file(struct fst_procdb *db, u32 id)
{
	/* Pairs with the store-release that publishes a new file. */
	if (!id || id > smp_load_acquire(&db->nr_files))
		return NULL;
	return db->files[id - 1];
}

size_t fst_procdb_bytes(const struct fst_procdb *db);

/* buildid.c */
int fst_read_build_id(struct file *file, u8 *id, u32 *size);

/* ---- sampler.c and unwind_*.c: the hard-irq side ---- */

struct fst_cpu {
	struct hrtimer timer;
	struct fst_table tab[2];
	/* tab[active] is written by this CPU's timer; changed on this CPU only */
	unsigned int active;
	bool drain_kicked;	/* asked for a drain since the last swap */
	bool ready;		/* tables allocated */
	int cpu;
	/* Last address space seen, to skip the procdb index. */
	struct mm_struct *cache_mm;
	struct fst_procdb *cache_db;
	unsigned long cache_gen;
	u32 cache_id;
	struct fst_entry *scratch; /* the key being built */
};

unsigned int fst_walk_kernel(struct pt_regs *regs, u64 *frames,
			    unsigned int max, u32 *flags);
unsigned int fst_walk_user(struct pt_regs *regs, bool interrupted, u64 *frames,
			  unsigned int max, u32 *flags, u64 *hash);
void fst_cost_init(void);
enum hrtimer_restart fst_timer_fn(struct hrtimer *timer);
void fst_cpu_swap(void *unused);
void fst_cpu_start_timer(void *unused);

/* ---- main.c: configuration and global state ---- */

/* The configuration in force; changed only with every timer stopped. */
struct fst_cfg {
	u32 flags;		/* FLAMESTAT_CFG_* */
	u32 freq;
	u16 kernel_depth;
	u16 user_depth;
	u32 nr_pids;
	pid_t pids[FLAMESTAT_MAX_PIDS];	/* global tgids */
	u32 vpids[FLAMESTAT_MAX_PIDS];	/* as the configuring process gave them */
	struct cpumask cpus;	/* CPUs to sample (all possible if no mask) */
	u64 period_ns;
};

struct fst_state {
	struct mutex ctl_lock;	/* start/stop/config/reset/claim */
	struct fst_cfg cfg;	/* ctl_lock + timers stopped to change */
	bool running;		/* ctl_lock to change; read by timers */
	bool lockdown;		/* kernel stacks withheld for this run */
	struct file *claim;	/* ctl_lock: the file holding control */
	u64 run_start_ns;	/* ktime_get_ns() at start, ctl_lock */
	u64 run_total_ns;	/* completed runs since reset, ctl_lock */
	int cpuhp_state;

	struct mutex agg_lock;	/* agg, drains */
	struct fst_table agg;	/* the merged table */
	struct fst_procdb *procdb; /* agg_lock + timers stopped to replace */
	struct delayed_work drain_work;
	size_t pcpu_bytes;	/* per table, per CPU */
	u32 max_depth_words;	/* scratch key size */
	u32 cost_tsc_mult;	/* TSC cycles to ns (<< 24); 0: sched_clock */
};

extern struct fst_state fs;
extern int fst_gid;		/* group= parameter, -1: none */
extern struct fst_cpu __percpu *fst_cpus;

int fst_cfg_from_user(struct fst_cfg *cfg, const struct flamestat_config *u);
void fst_cfg_to_user(const struct fst_cfg *cfg, struct flamestat_config *u);
int fst_set_config(const struct fst_cfg *cfg);
int fst_set_freq(u32 freq);
int fst_start(void);
void fst_stop(void);
int fst_reset(void);
u64 fst_running_ns(void);
bool fst_locked_down(void);

/* drain.c */
void fst_drain(void);
void fst_drain_work_fn(struct work_struct *work);
void fst_kick_drain(void);
void fst_get_stats(struct flamestat_stats *st);

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
};

int fst_copy_take(struct fst_copy *copy, bool clear);
void fst_copy_release(struct fst_copy *copy);
void fst_stats_fill(struct flamestat_stats *st, const struct fst_counts *c);

/* text.c: folded text for cat */
extern const struct seq_operations fst_text_seq_ops;
struct fst_text {
	struct fst_copy copy;
	bool have_copy;
	bool kaddr_ok;
	u32 pos_off;		/* arena word of the entry at pos_idx */
	loff_t pos_idx;
};

/* snapshot.c: the binary snapshot */
int fst_snapshot_build(struct fst_copy *copy, bool kaddr_ok, void **buf,
		      size_t *size);

/* ksym.c: kernel symbol names */
int fst_ksym_name(unsigned long addr, char *buf, size_t size, u32 *offset);

/* device.c */
int fst_device_register(void);
void fst_device_unregister(void);

/* compat.c: version-dependent kernel API, chosen by conftest.sh */
void fst_hrtimer_setup(struct hrtimer *t,
		      enum hrtimer_restart (*fn)(struct hrtimer *));

#endif /* FLAMESTAT_H */
