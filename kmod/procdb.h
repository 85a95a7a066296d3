/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The process database: every address space the sampler walked a user
 * stack in, and the executable mappings it had. The sampler's side
 * (fst_procdb_lookup() and fst_procdb_check_frames()) runs in hard-irq and
 * is lock-free; scanning maps and reading build-ids is process context.
 */
#ifndef FLAMESTAT_PROCDB_H
#define FLAMESTAT_PROCDB_H

#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/irq_work.h>
#include <linux/jiffies.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "uapi/flamestat.h"

struct file;
struct fst_ehtab;
struct mm_struct;

/* Where a file's unwind table stands (struct fst_file.eh_state). */
enum fst_eh_file_state {
	FST_EHF_NONE,		/* not asked for yet */
	FST_EHF_QUEUED,		/* a build is queued or running */
	FST_EHF_BUILT,		/* ehtab is set */
	FST_EHF_UNCACHED,	/* its pages were not cached: tried again later */
	/*
	 * unwind_kb was full while an older database's tables were alive
	 * (a reader copying it across a reset): tried again later.
	 */
	FST_EHF_NOROOM,
	FST_EHF_FAILED,		/* no table: not tried again (counted) */
};

/* A build waiting for the unwind-table worker (procdb_eh.c). */
struct fst_eh_req {
	struct file *file;	/* a reference */
	u32 id;			/* the file record's */
	u32 tries;
	unsigned long not_before; /* jiffies */
};

#define FST_EH_QUEUE	64	/* builds waiting at most */

struct fst_file {
	u32 id;			/* > 0 */
	u32 build_id_size;
	u8 build_id[FLAMESTAT_BUILD_ID_SIZE];
	u64 dev;
	u64 ino;
	/*
	 * The root @path is relative to (struct fst_task_root): 0, 0 for the
	 * host's; a file seen from two roots has a record for each.
	 */
	u64 root_dev;
	u64 root_ino;
	/*
	 * Mappings that name it: in published maps, or in a scan about to
	 * publish them; procdb->lock. At 0 its record may be reclaimed.
	 */
	u32 refs;
	bool build_id_uncached;	/* its note's pages were not in the page cache */
	/*
	 * Its unwind table (procdb_eh.c), NULL: none (yet). Published with
	 * RCU under procdb->lock; the sampler reads it lock-free.
	 */
	struct fst_ehtab __rcu *ehtab;
	u8 eh_state;		/* enum fst_eh_file_state, procdb->lock */
	unsigned long eh_retry_at; /* jiffies: FST_EHF_UNCACHED, _NOROOM */
	struct hlist_node node;	/* in procdb->files_hash */
	char path[];
};

struct fst_map {
	u64 start;
	u64 end;
	u64 pgoff;		/* bytes */
	u32 file_id;		/* 0: anonymous or vdso */
	/*
	 * Of the scan that saw it; 32 bits, as in the ABI: a u16 wrapped
	 * after 65,536 rescans of one process, and newer must win.
	 */
	u32 generation;
	u16 flags;		/* FLAMESTAT_MAPF_* */
};

struct fst_maps {
	struct rcu_head rcu;
	/*
	 * Names this publication of a process's maps: unique for the
	 * module's life, never 0 (fst_proc_publish()). The unwind walk's
	 * rule cache is keyed by it (struct fst_eh_rcache).
	 */
	u64 seq;
	u32 nr;
	struct fst_map map[];	/* sorted by start, non-overlapping */
};

/* struct fst_procdb.starved */
enum {
	FST_STARVED,		/* no slot, or no memory for maps: run maintain */
	FST_STARVED_SLOT,	/* a sample found no slot */
	FST_STARVED_MEM,	/* a charge to maps_kb failed */
};

/* struct fst_proc.bits */
enum {
	FST_PROC_READY,		/* fields published, pins taken */
	FST_PROC_SCAN,		/* maps need (re)reading */
	FST_PROC_PINNED,	/* we hold an mm_users reference (fst_proc_pin) */
	FST_PROC_DEAD,		/* lost an insert race; unused */
	FST_PROC_EXITED,	/* address space gone; maps are final */
	FST_PROC_NOMAPS,	/* maps could not be read */
	FST_PROC_COMPAT,
	FST_PROC_ROOT_KNOWN,	/* a scan found a task: the fields below hold */
	FST_PROC_OWN_ROOT,	/* its root is not the host's: paths are its own */
	FST_PROC_RETIRED,	/* queued for reuse (procdb->retired), lock */
	/*
	 * Within FST_YOUNG of its first scan: the pin is kept, so that the
	 * maps it ends with can be read even once it has exited (lock).
	 */
	FST_PROC_YOUNG,
	FST_PROC_WAS_YOUNG,	/* its young window was opened (lock) */
};

/*
 * One address space. Created in hard-irq by the first sample of a task
 * using it (fields up to bits are written once, before FST_PROC_READY);
 * maps are (re)read by the scan worker under procdb->lock and published
 * with RCU.
 *
 * Slots of exited address spaces are reused once fresh ones run low (a
 * fork loop must not leave every later process unmapped), oldest exit
 * first. A proc id is the slot plus a reuse count above it (FST_ID_*), so
 * an id held by a table entry or a reader's copy never names the slot's
 * next process: fst_procdb_proc() answers NULL for it, and its frames are
 * shown unmapped (stats procs_recycled counts the reuses).
 */
struct fst_proc {
	struct mm_struct *mm;	/* lookup key while live (mmgrab'ed); NULL after */
	u32 id;			/* 0 while the slot is free */
	u32 next_id;		/* the id of its next use, lock */
	unsigned long retired_at; /* jiffies it was queued for reuse, lock */
	u32 idx_pos;		/* position in procdb->index, U32_MAX: none */
	pid_t tgid;
	pid_t ns_tgid;
	char comm[FLAMESTAT_COMM_LEN];
	unsigned long bits;
	unsigned long last_seen; /* jiffies of the last sample, racy by design */
	unsigned long last_scan; /* jiffies, procdb->lock */
	u32 generation;		/* scans so far, procdb->lock */
	/* Where its files' paths start, as the last scan found; procdb->lock. */
	u64 mnt_ns;		/* inode of its mount namespace; 0: unknown */
	u64 root_dev;		/* its root directory, with FST_PROC_OWN_ROOT */
	u64 root_ino;
	struct fst_maps __rcu *maps;
	/* Rescans asked for by samples (fst_procdb_check_frames). */
	u64 want_ip;		/* the uncovered address that asked, racy */
	unsigned long backoff_until; /* jiffies; no request before */
	unsigned long backoff;	/* jiffies, doubles while requests are wrong */
	unsigned long young_until; /* jiffies, with FST_PROC_YOUNG; lock */
	/* Pins taken twice by racing CPUs: the worker drops them. */
	atomic_t extra_pins;
};

struct fst_scan_ent;

/*
 * Live address spaces by hash of mm: open addressing, lock-free for the
 * sampler. An exited one leaves a tombstone; when they are a quarter of
 * it, the worker builds a fresh index and swaps it in with RCU.
 */
struct fst_index {
	struct rcu_head rcu;
	u32 size;		/* power of two, >= 2 * max_procs */
	u32 tombs;		/* procdb->lock */
	u32 slot[];		/* proc ids; 0 empty; FST_IDX_TOMB */
};

struct fst_procdb {
	struct kref ref;	/* the sampler's, plus one per table copy */
	struct mutex lock;	/* maps, files, exit handling */
	struct fst_proc *procs;	/* [max_procs] */
	struct fst_index __rcu *index;
	u32 max_procs;
	u32 slot_bits;		/* a proc id's low bits: slot + 1 */
	atomic_t nr_procs;	/* fresh slots handed out, may exceed max_procs */
	/*
	 * Reusable slots: the worker puts them in at tail (under lock), the
	 * sampler takes them at head with a cmpxchg. Never more than
	 * max_procs in it, so the ring (a power of two) cannot overflow.
	 */
	u32 *free_ring;
	u32 free_mask;
	atomic_t free_head;
	u32 free_tail;		/* lock; read with acquire by the sampler */
	/* Exited slots waiting for reuse, oldest first; lock. */
	u32 *retired;		/* ring of max_procs slot numbers */
	u32 retired_head, retired_tail;
	u64 nr_recycled;	/* slots reused; lock, read racily */
	unsigned long starved;	/* FST_STARVED*: asks the worker for room */
	unsigned long gen;	/* bumped when an index entry dies */
	struct work_struct scan_work;
	/*
	 * Set once the last reference is gone: the scan and the young
	 * window's work, which queue each other, queue nothing more.
	 */
	bool dying;
	/* Ends the young windows (FST_PROC_YOUNG); nr_young counts them. */
	struct delayed_work young_work;
	u32 nr_young;		/* lock */
	/*
	 * A scan found an address space's mmap_lock taken: the young
	 * window's work scans again after busy_delay jiffies, which doubles
	 * while scans keep finding one taken (lock).
	 */
	bool scan_busy;
	unsigned long busy_delay;
	/* Samplers queue the scan through it, never from hard-irq directly. */
	struct irq_work scan_kick;
	struct fst_scan_ent *scan_buf;	/* [FST_MAX_EXEC_MAPS], lock */
	struct hlist_head *files_hash;
	struct fst_file **files;	/* by id - 1; NULL: reclaimed */
	u32 nr_files;		/* ids handed out */
	u32 max_files;
	u32 *free_file_ids;	/* ids of reclaimed records, for reuse; lock */
	u32 nr_free_file_ids;
	atomic_long_t mem_used;	/* bytes of maps and files */
	long mem_max;
	/* Unwind tables (procdb_eh.c); 0 eh_max: none are built. */
	long eh_max;		/* bytes (unwind_kb) */
	atomic_long_t eh_used;
	struct delayed_work eh_work;
	struct fst_eh_req eh_queue[FST_EH_QUEUE]; /* lock */
	u32 eh_queued;		/* lock */
	u32 nr_eh_tables;	/* lock, read racily */
	u32 nr_eh_uncached;	/* files whose pages were not cached; lock */
	u64 eh_failed[FLAMESTAT_NR_UNWIND_FAILS]; /* files without one, lock */
	/* Written under lock, read racily by the stats. */
	u32 nr_buildid_uncached; /* files whose build-id was not cached */
	u64 nr_maps_busy;	/* scans put off: the mmap_lock was taken */
	/* scans past FST_MAX_EXEC_MAPS, or with a file left without record */
	u64 nr_maps_truncated;
};

/*
 * One CPU's memory of the last address space it looked up, to skip the
 * index. Written only by that CPU's sampler, or with every timer stopped.
 */
struct fst_proc_cache {
	struct mm_struct *mm;
	struct fst_procdb *db;
	unsigned long gen;
	unsigned long retry;	/* jiffies: with id 0, look again from then */
	u32 id;
};

/* A sample that found no slot looks again after this (slots are reused). */
#define FST_SLOT_RETRY	(HZ / 20 ? HZ / 20 : 1)

struct fst_procdb *fst_procdb_create(u32 max_procs, long mem_max,
				     long eh_max);
void fst_procdb_get(struct fst_procdb *db);
void fst_procdb_put(struct fst_procdb *db);
u32 fst_procdb_lookup_miss(struct fst_procdb *db, struct fst_proc_cache *c,
			   struct task_struct *task, struct mm_struct *mm,
			   unsigned long gen, bool compat);
void fst_procdb_check_frames(struct fst_procdb *db, u32 id, const u64 *frames,
			     unsigned int n);
void fst_procdb_maintain(struct fst_procdb *db, bool sync);
size_t fst_procdb_bytes(const struct fst_procdb *db);

/**
 * fst_maps_find() - the mapping that contains an address
 * @maps: a process's maps, or NULL
 * @addr: a user address
 *
 * Context: any; the caller keeps @maps alive (RCU or the database lock).
 * Inline: the walk by unwind tables calls it inside a user-access section.
 * Return: the mapping, or NULL.
 */
static __always_inline const struct fst_map *
fst_maps_find(const struct fst_maps *maps, u64 addr)
{
	u32 lo = 0, hi;

	if (!maps)
		return NULL;
	hi = maps->nr;
	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;
		const struct fst_map *m = &maps->map[mid];

		if (addr < m->start)
			hi = mid;
		else if (addr >= m->end)
			lo = mid + 1;
		else
			return m;
	}
	return NULL;
}

#define FST_IDX_TOMB	U32_MAX	/* an index entry whose mm is gone */

/* The slot (from 0) a proc id names; >= max_procs for none. */
static inline u32 fst_procdb_slot(const struct fst_procdb *db, u32 id)
{
	return (id & ((1U << db->slot_bits) - 1)) - 1;
}

/*
 * The process @id names, or NULL: no id, or its slot has been reused
 * since. A reader without db->lock (RCU) checks again, with
 * fst_procdb_proc_still(), after reading what it wanted.
 */
static inline struct fst_proc *fst_procdb_proc(struct fst_procdb *db, u32 id)
{
	u32 slot = fst_procdb_slot(db, id);
	struct fst_proc *p;

	if (!id || slot >= db->max_procs)
		return NULL;
	p = &db->procs[slot];
	return READ_ONCE(p->id) == id ? p : NULL;
}

static inline bool fst_procdb_proc_still(const struct fst_proc *p, u32 id)
{
	/* Pairs with fst_slot_recycle(): its id goes before its maps. */
	smp_rmb();
	return READ_ONCE(p->id) == id;
}

/*
 * The file record @id names, or NULL. A reader without db->lock holds
 * rcu_read_lock() and got @id from maps it read under it: a record is
 * reclaimed only once no published maps name it, and its id reused only
 * after a grace period.
 */
static __always_inline struct fst_file *fst_procdb_file(struct fst_procdb *db,
							u32 id)
{
	/* Pairs with the store-releases that publish a new file. */
	if (!id || id > smp_load_acquire(&db->nr_files))
		return NULL;
	/* And with the one that publishes a record under a reused id. */
	return smp_load_acquire(&db->files[id - 1]);
}

/*
 * Hard-irq (hrtimer): must not sleep, allocate or take locks. Returns the
 * proc id of @task's address space, creating it on first sight; 0 when no
 * slot is free (looked for again after FST_SLOT_RETRY, as the worker frees
 * slots meanwhile). The per-CPU cache is valid while db->gen is unchanged:
 * retiring an index entry bumps it before the mm may be freed and reused.
 * Inline: nearly every sample hits the cache.
 */
static __always_inline u32 fst_procdb_lookup(struct fst_procdb *db,
					     struct fst_proc_cache *c,
					     struct task_struct *task,
					     bool compat)
{
	struct mm_struct *mm = task->mm;
	unsigned long gen, now = jiffies;
	struct fst_proc *p;
	u32 id;

	if (!mm || !db)
		return 0;
	gen = READ_ONCE(db->gen);
	if (likely(c->mm == mm && c->db == db && c->gen == gen &&
		   (c->id || time_before(now, c->retry))))
		id = c->id;
	else
		id = fst_procdb_lookup_miss(db, c, task, mm, gen, compat);
	if (id) {
		p = &db->procs[fst_procdb_slot(db, id)];
		/* Written once per tick at most, to spare the cache line. */
		if (READ_ONCE(p->last_seen) != now)
			WRITE_ONCE(p->last_seen, now);
	}
	return id;
}

/* procdb_eh.c: unwind tables, db->lock held but for the work */
void fst_procdb_eh_consider(struct fst_procdb *db, struct fst_file *f,
			    struct file *file);
void fst_procdb_eh_work(struct work_struct *work);
void fst_procdb_eh_forget(struct fst_procdb *db, struct fst_file *f);
void fst_procdb_eh_stop(struct fst_procdb *db);
void fst_procdb_eh_kept_stats(u64 *tables, u64 *bytes, u64 *reused,
			      u64 *peak);
long fst_procdb_eh_held(void);
void fst_procdb_eh_kept_free(void);
void fst_procdb_eh_vdso(struct fst_procdb *db);
u64 fst_procdb_eh_vdso_bytes(void);

/* buildid.c */
int fst_file_read_cached(struct file *file, void *buf, size_t len, loff_t pos);
int fst_read_build_id(struct file *file, u8 *id, u32 *size);

#endif /* FLAMESTAT_PROCDB_H */
