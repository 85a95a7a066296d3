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
struct fs_entry {
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

#define FS_ENTRY_HDR_WORDS	(sizeof(struct fs_entry) / sizeof(u64))

static inline u32 fs_entry_words(const struct fs_entry *e)
{
	return FS_ENTRY_HDR_WORDS + e->nr_kernel + e->nr_user;
}

/* Counters that add up when tables are merged (see struct flamestat_stats). */
struct fs_counts {
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

struct fs_table {
	u32 *buckets;		/* arena word of the first entry, 0: empty */
	u64 *arena;		/* word 0 unused so that 0 means "none" */
	u32 nr_buckets;		/* power of two */
	u32 arena_words;
	u32 used;		/* arena words in use, >= 1 */
	u32 nr_entries;
	struct fs_counts counts; /* of the samples that went to this table */
};

int fs_table_init(struct fs_table *t, size_t bytes, int node);
void fs_table_free(struct fs_table *t);
void fs_table_clear(struct fs_table *t);
/* Frames are hashed as they are walked: h = fs_hash_frame(h, frame). */
#define FS_HASH_SEED	0
#define FS_HASH_MUL	0x9e3779b97f4a7c15ULL
static inline u64 fs_hash_frame(u64 h, u64 frame)
{
	return (h ^ frame) * FS_HASH_MUL;
}

u64 fs_hash_frames(u64 h, const u64 *frames, u32 n);
u32 fs_entry_hash_with(const struct fs_entry *key, u64 frames_hash);
int fs_table_add(struct fs_table *t, const struct fs_entry *key, u64 count);
size_t fs_table_bytes(const struct fs_table *t);
void fs_counts_add(struct fs_counts *dst, const struct fs_counts *src);

#define fs_table_for_each(t, e, off)					\
	for ((off) = 1;							\
	     (off) < (t)->used &&					\
	     ((e) = (struct fs_entry *)&(t)->arena[off], 1);		\
	     (off) += fs_entry_words(e))

/* ---- procdb.c: address spaces seen by the sampler and their maps ---- */

struct fs_file {
	u32 id;			/* > 0 */
	u32 build_id_size;
	u8 build_id[FLAMESTAT_BUILD_ID_SIZE];
	u64 dev;
	u64 ino;
	struct hlist_node node;	/* in procdb->files_hash */
	char path[];
};

struct fs_map {
	u64 start;
	u64 end;
	u64 pgoff;		/* bytes */
	u32 file_id;		/* 0: anonymous or vdso */
	u16 flags;		/* FLAMESTAT_MAPF_* */
	u16 generation;
};

struct fs_maps {
	struct rcu_head rcu;
	u32 nr;
	struct fs_map map[];	/* sorted by start, non-overlapping */
};

/* struct fs_proc.bits */
enum {
	FS_PROC_READY,		/* fields published, pins taken */
	FS_PROC_SCAN,		/* maps need (re)reading */
	FS_PROC_PINNED,		/* we hold an mm_users reference */
	FS_PROC_DEAD,		/* lost an insert race; unused */
	FS_PROC_EXITED,		/* address space gone; maps are final */
	FS_PROC_NOMAPS,		/* maps could not be read */
	FS_PROC_COMPAT,
};

/*
 * One address space. Created in hard-irq by the first sample of a task
 * using it (fields up to bits are written once, before FS_PROC_READY);
 * maps are (re)read by the scan worker under procdb->lock and published
 * with RCU. Slots are never reused before the procdb is thrown away, so a
 * proc id stays valid for every copy of the merged table that holds a
 * reference to its procdb.
 */
struct fs_proc {
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
	struct fs_maps __rcu *maps;
	/* Rescans asked for by samples (fs_procdb_check_frames). */
	u64 want_ip;		/* the uncovered address that asked, racy */
	unsigned long backoff_until; /* jiffies; no request before */
	unsigned long backoff;	/* jiffies, doubles while requests are wrong */
};

struct fs_procdb {
	struct kref ref;	/* the sampler's, plus one per table copy */
	struct mutex lock;	/* maps, files, exit handling */
	struct fs_proc *procs;	/* [max_procs] */
	u32 *index;		/* [index_size] proc ids by hash of mm, lock-free */
	u32 index_size;		/* power of two, >= 2 * max_procs */
	u32 max_procs;
	atomic_t nr_procs;	/* slots handed out, may exceed max_procs */
	unsigned long gen;	/* bumped when an index entry dies */
	struct work_struct scan_work;
	struct fs_scan_ent *scan_buf;	/* [FS_MAX_EXEC_MAPS], lock */
	struct hlist_head *files_hash;
	struct fs_file **files;	/* by id - 1 */
	u32 nr_files;
	u32 max_files;
	atomic_long_t mem_used;	/* bytes of maps and files */
	long mem_max;
};

struct fs_cpu;
struct fs_scan_ent;
struct fs_procdb *fs_procdb_create(u32 max_procs, long mem_max);
void fs_procdb_get(struct fs_procdb *db);
void fs_procdb_put(struct fs_procdb *db);
u32 fs_procdb_lookup_miss(struct fs_procdb *db, struct fs_cpu *c,
			  struct task_struct *task, struct mm_struct *mm,
			  unsigned long gen, bool compat);
void fs_procdb_check_frames(struct fs_procdb *db, u32 id, const u64 *frames,
			    unsigned int n);
void fs_procdb_maintain(struct fs_procdb *db, bool sync);
const struct fs_map *fs_maps_find(const struct fs_maps *maps, u64 addr);
static inline struct fs_proc *fs_procdb_proc(struct fs_procdb *db, u32 id)
{
	if (!id || id > db->max_procs)
		return NULL;
	return &db->procs[id - 1];
}

static inline struct fs_file *fs_procdb_file(struct fs_procdb *db, u32 id)
{
	/* Pairs with the store-release that publishes a new file. */
	if (!id || id > smp_load_acquire(&db->nr_files))
		return NULL;
	return db->files[id - 1];
}

size_t fs_procdb_bytes(const struct fs_procdb *db);

/* buildid.c */
int fs_read_build_id(struct file *file, u8 *id, u32 *size);

/* ---- sampler.c and unwind_*.c: the hard-irq side ---- */

struct fs_cpu {
	struct hrtimer timer;
	struct fs_table tab[2];
	/* tab[active] is written by this CPU's timer; changed on this CPU only */
	unsigned int active;
	bool drain_kicked;	/* asked for a drain since the last swap */
	bool ready;		/* tables allocated */
	int cpu;
	/* Last address space seen, to skip the procdb index. */
	struct mm_struct *cache_mm;
	struct fs_procdb *cache_db;
	unsigned long cache_gen;
	u32 cache_id;
	struct fs_entry *scratch; /* the key being built */
};

unsigned int fs_walk_kernel(struct pt_regs *regs, u64 *frames,
			    unsigned int max, u32 *flags);
unsigned int fs_walk_user(struct pt_regs *regs, bool interrupted, u64 *frames,
			  unsigned int max, u32 *flags, u64 *hash);
void fs_cost_init(void);
enum hrtimer_restart fs_timer_fn(struct hrtimer *timer);
void fs_cpu_swap(void *unused);
void fs_cpu_start_timer(void *unused);

/* ---- main.c: configuration and global state ---- */

/* The configuration in force; changed only with every timer stopped. */
struct fs_cfg {
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

struct fs_state {
	struct mutex ctl_lock;	/* start/stop/config/reset/claim */
	struct fs_cfg cfg;	/* ctl_lock + timers stopped to change */
	bool running;		/* ctl_lock to change; read by timers */
	bool lockdown;		/* kernel stacks withheld for this run */
	struct file *claim;	/* ctl_lock: the file holding control */
	u64 run_start_ns;	/* ktime_get_ns() at start, ctl_lock */
	u64 run_total_ns;	/* completed runs since reset, ctl_lock */
	int cpuhp_state;

	struct mutex agg_lock;	/* agg, drains */
	struct fs_table agg;	/* the merged table */
	struct fs_procdb *procdb; /* agg_lock + timers stopped to replace */
	struct delayed_work drain_work;
	size_t pcpu_bytes;	/* per table, per CPU */
	u32 max_depth_words;	/* scratch key size */
	u32 cost_tsc_mult;	/* TSC cycles to ns (<< 24); 0: sched_clock */
};

extern struct fs_state fs;
extern int fs_gid;		/* group= parameter, -1: none */
extern struct fs_cpu __percpu *fs_cpus;

int fs_cfg_from_user(struct fs_cfg *cfg, const struct flamestat_config *u);
void fs_cfg_to_user(const struct fs_cfg *cfg, struct flamestat_config *u);
int fs_set_config(const struct fs_cfg *cfg);
int fs_set_freq(u32 freq);
int fs_start(void);
void fs_stop(void);
int fs_reset(void);
u64 fs_running_ns(void);
bool fs_locked_down(void);

/* drain.c */
void fs_drain(void);
void fs_drain_work_fn(struct work_struct *work);
void fs_kick_drain(void);
void fs_get_stats(struct flamestat_stats *st);

/* A private copy of the merged table, for one reader. */
struct fs_copy {
	u64 *arena;
	u32 used;
	u32 nr_entries;
	struct fs_counts counts;
	struct fs_procdb *procdb; /* referenced */
	struct fs_cfg cfg;
	u64 running_ns;
	u64 boottime_ns;
	u32 nr_cpus;		/* CPUs sampled */
	bool lockdown;
};

int fs_copy_take(struct fs_copy *copy, bool clear);
void fs_copy_release(struct fs_copy *copy);
void fs_stats_fill(struct flamestat_stats *st, const struct fs_counts *c);

/* text.c: folded text for cat */
extern const struct seq_operations fs_text_seq_ops;
struct fs_text {
	struct fs_copy copy;
	bool have_copy;
	bool kaddr_ok;
	u32 pos_off;		/* arena word of the entry at pos_idx */
	loff_t pos_idx;
};

/* snapshot.c: the binary snapshot */
int fs_snapshot_build(struct fs_copy *copy, bool kaddr_ok, void **buf,
		      size_t *size);

/* ksym.c: kernel symbol names */
int fs_ksym_name(unsigned long addr, char *buf, size_t size, u32 *offset);

/* device.c */
int fs_device_register(void);
void fs_device_unregister(void);

/* compat.c: version-dependent kernel API, chosen by conftest.sh */
void fs_hrtimer_setup(struct hrtimer *t,
		      enum hrtimer_restart (*fn)(struct hrtimer *));

#endif /* FLAMESTAT_H */
