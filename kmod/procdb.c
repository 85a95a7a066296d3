// SPDX-License-Identifier: GPL-2.0
/*
 * The process database: every address space the sampler walked a user
 * stack in, with the executable mappings it had, so that user frames can be
 * turned into (file, offset) even after the process has exited.
 *
 * The hard-irq side only looks an mm up in a lock-free index or claims a
 * slot for it with cmpxchg, pins it (mmget_not_zero, mmgrab: atomics) and
 * queues the scan worker. Everything that sleeps -- mmap_read_trylock,
 * d_path, reading build-ids from the page cache, mmdrop -- happens in
 * process context under db->lock; nothing there waits for a filesystem
 * (no file I/O, no mmap_lock wait, the last mmput deferred). Slots are
 * never reused before the whole database is dropped (at reset or unload),
 * which keeps proc ids stable for readers.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dcache.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/jiffies.h>
#include <linux/kdev_t.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "compat.h"
#include "procdb.h"
#include "taskroot.h"

#define FST_FILES_HASH_BITS	10
#define FST_MAX_EXEC_MAPS	4096	/* per address space and scan */
#define FST_RESCAN_INTERVAL	HZ	/* live processes: maps re-read after */
/*
 * A new address space keeps its pin this long after its first scan: it is
 * scanned again at its end or as soon as it has exited, whichever comes
 * first, so that a process seen first while ld.so ran (libc and plugins
 * not mapped yet) is named by the maps it ended with, even when it lived
 * for 10 ms. How often the worker looks for exits meanwhile: the window
 * in which an exited program's files stay busy (ETXTBSY, EBUSY).
 */
#define FST_YOUNG		(HZ / 10 ? HZ / 10 : 1)
#define FST_YOUNG_POLL		(HZ / 50 ? HZ / 50 : 1)

/* What one scan saw of one executable mapping. */
struct fst_scan_ent {
	u64 start;
	u64 end;
	u64 pgoff;
	struct file *file;
	u32 file_id;
	u16 flags;
};

static void fst_procdb_scan_work(struct work_struct *work);
static void fst_procdb_young_work(struct work_struct *work);

/*
 * Any context. Every queueing of the scan and of the young window's work
 * goes through these: neither queues anything once the database is dying
 * (fst_procdb_release()).
 */
static void fst_procdb_queue_scan(struct fst_procdb *db)
{
	if (!READ_ONCE(db->dying))
		queue_work(fst_wq_unbound, &db->scan_work);
}

static void fst_procdb_queue_young(struct fst_procdb *db)
{
	if (!READ_ONCE(db->dying))
		queue_delayed_work(fst_wq_unbound, &db->young_work,
				   FST_YOUNG_POLL);
}

/* Scans put off by a taken mmap_lock are tried again after this, at most. */
#define FST_BUSY_DELAY_MAX	(HZ / 2 ? HZ / 2 : 1)

/*
 * db->lock held: a scan found an mmap_lock taken. A new process is first
 * sampled while exec and ld.so map it, and its first scan often finds
 * the lock taken: until its maps are read, its stacks cannot be walked
 * by table (or named), so it is tried again soon, not when something
 * else next asks for a scan. While scans keep finding one taken (an
 * address space stuck on a stalled filesystem), the delay doubles.
 */
static void fst_procdb_queue_busy(struct fst_procdb *db)
{
	lockdep_assert_held(&db->lock);
	if (db->scan_busy || READ_ONCE(db->dying))
		return;
	db->scan_busy = true;
	mod_delayed_work(fst_wq_unbound, &db->young_work, db->busy_delay);
	db->busy_delay = min_t(unsigned long, 2 * db->busy_delay,
			       FST_BUSY_DELAY_MAX);
}

/*
 * Hard-irq or, on PREEMPT_RT, the irq_work thread: a sample asked for a
 * scan. The hrtimer callback only queues this irq_work: one CPU at a time
 * then takes the workqueue's pool lock, after the sampling interrupt.
 */
static void fst_procdb_scan_kick(struct irq_work *work)
{
	struct fst_procdb *db = container_of(work, struct fst_procdb,
					     scan_kick);

	fst_procdb_queue_scan(db);
}

static struct fst_index *fst_index_alloc(u32 size)
{
	struct fst_index *idx = kvzalloc(struct_size(idx, slot, size),
					 GFP_KERNEL);

	if (idx)
		idx->size = size;
	return idx;
}

static void fst_procdb_free_arrays(struct fst_procdb *db)
{
	vfree(db->procs);
	kvfree(rcu_dereference_protected(db->index, 1));
	vfree(db->files);
	kfree(db->files_hash);
	kvfree(db->scan_buf);
	kvfree(db->free_ring);
	kvfree(db->retired);
	kvfree(db->free_file_ids);
}

/**
 * fst_procdb_create() - allocate an empty process database
 * @max_procs: address spaces it can hold
 * @mem_max: bytes its maps and file records may take
 * @eh_max: bytes its files' unwind tables may take; 0: none are built
 *
 * Context: process context; may sleep.
 * Return: the database with one reference, or NULL without memory.
 */
struct fst_procdb *fst_procdb_create(u32 max_procs, long mem_max,
				     long eh_max)
{
	struct fst_procdb *db;
	u32 i;

	db = kzalloc(sizeof(*db), GFP_KERNEL);
	if (!db)
		return NULL;
	kref_init(&db->ref);
	mutex_init(&db->lock);
	INIT_WORK(&db->scan_work, fst_procdb_scan_work);
	INIT_DELAYED_WORK(&db->young_work, fst_procdb_young_work);
	db->busy_delay = 1;
	INIT_DELAYED_WORK(&db->eh_work, fst_procdb_eh_work);
	init_irq_work(&db->scan_kick, fst_procdb_scan_kick);
	db->eh_max = eh_max;
	db->max_procs = max_procs;
	/* Slot + 1 in the low bits of an id, its reuse count above. */
	db->slot_bits = order_base_2(max_procs + 1);
	db->max_files = max_t(u32, max_procs, 1024);
	db->mem_max = mem_max;
	db->procs = vzalloc(array_size(max_procs, sizeof(*db->procs)));
	RCU_INIT_POINTER(db->index,
			 fst_index_alloc(roundup_pow_of_two(2 * max_procs)));
	db->free_mask = roundup_pow_of_two(max_procs) - 1;
	db->free_ring = kvcalloc(db->free_mask + 1, sizeof(u32), GFP_KERNEL);
	db->retired = kvcalloc(db->free_mask + 1, sizeof(u32), GFP_KERNEL);
	db->files = vzalloc(array_size(db->max_files, sizeof(*db->files)));
	db->free_file_ids = kvcalloc(db->max_files, sizeof(u32), GFP_KERNEL);
	db->files_hash = kcalloc(1U << FST_FILES_HASH_BITS,
				 sizeof(*db->files_hash), GFP_KERNEL);
	/* Once, not per scan: allocations may be zeroed (init_on_alloc). */
	db->scan_buf = kvmalloc_array(FST_MAX_EXEC_MAPS, sizeof(*db->scan_buf),
				      GFP_KERNEL);
	if (!db->procs || !rcu_access_pointer(db->index) || !db->files ||
	    !db->files_hash || !db->scan_buf || !db->free_ring ||
	    !db->retired || !db->free_file_ids) {
		fst_procdb_free_arrays(db);
		kfree(db);
		return NULL;
	}
	for (i = 0; i < (1U << FST_FILES_HASH_BITS); i++)
		INIT_HLIST_HEAD(&db->files_hash[i]);
	return db;
}

/**
 * fst_procdb_bytes() - memory a process database holds for its slots
 * @db: the database
 *
 * Context: any.
 * Return: bytes of its fixed arrays (maps and files are in @db->mem_used).
 */
size_t fst_procdb_bytes(const struct fst_procdb *db)
{
	const struct fst_index *idx = rcu_dereference_raw(db->index);

	return sizeof(*db) + db->max_procs * sizeof(*db->procs) +
	       struct_size(idx, slot, idx->size) +
	       2 * (db->free_mask + 1) * sizeof(u32) +
	       FST_MAX_EXEC_MAPS * sizeof(*db->scan_buf) +
	       db->max_files * (sizeof(*db->files) + sizeof(u32)) +
	       (sizeof(struct hlist_head) << FST_FILES_HASH_BITS);
}

/**
 * fst_procdb_get() - take a reference to a process database
 * @db: the database
 *
 * Context: any; the caller already holds a reference or the lock that
 * protects the pointer it read @db from.
 */
void fst_procdb_get(struct fst_procdb *db)
{
	kref_get(&db->ref);
}

/* Process context: no sampler and no reader uses @db any more. */
static void fst_procdb_release(struct kref *ref)
{
	struct fst_procdb *db = container_of(ref, struct fst_procdb, ref);
	u32 i, n = min_t(u32, atomic_read(&db->nr_procs), db->max_procs);

	/*
	 * The scan queues the young window's work and that queues the scan.
	 * Once dying is set, a run that starts queues nothing; only the runs
	 * already under way (at most one of each) can queue the other once.
	 * The first round waits for those and cancels what they queued, the
	 * second what a run of the first round's could still have queued.
	 * Cancelling each once let a young run queue a scan after the scan
	 * was cancelled: the scan then wrote into the freed slots (KASAN on
	 * the 7.2 debug kernel, 93-stress at its long size).
	 */
	WRITE_ONCE(db->dying, true);
	smp_mb();	/* dying before any run that the cancels wait for */
	irq_work_sync(&db->scan_kick);
	for (i = 0; i < 2; i++) {
		cancel_delayed_work_sync(&db->young_work);
		cancel_work_sync(&db->scan_work);
	}
	/* Only the scans queue tables' builds: none runs any more. */
	fst_procdb_eh_stop(db);
	for (i = 0; i < n; i++) {
		struct fst_proc *p = &db->procs[i];

		if (p->mm) {
			int extra = atomic_read(&p->extra_pins);

			/* Not at rmmod's expense: see fst_proc_scan(). */
			if (test_bit(FST_PROC_PINNED, &p->bits))
				mmput_async(p->mm);
			while (extra--)
				mmput_async(p->mm);
			mmdrop(p->mm);
		}
		kfree(rcu_dereference_protected(p->maps, 1));
	}
	for (i = 0; i < db->nr_files; i++) {
		if (db->files[i])	/* NULL if reclaimed */
			fst_procdb_eh_forget(db, db->files[i]);
		kfree(db->files[i]);
	}
	fst_procdb_free_arrays(db);
	kfree(db);
}

/**
 * fst_procdb_put() - drop a reference to a process database
 * @db: the database, or NULL
 *
 * The last reference frees it, dropping every pin on address spaces.
 *
 * Context: process context; may sleep when it is the last reference.
 */
void fst_procdb_put(struct fst_procdb *db)
{
	if (db)
		kref_put(&db->ref, fst_procdb_release);
}

/* Hard-irq safe: the id of the live slot for @mm in @idx, or 0. */
static u32 fst_index_find(struct fst_procdb *db, const struct fst_index *idx,
			  struct mm_struct *mm)
{
	u32 mask = idx->size - 1;
	u32 pos = hash_ptr(mm, ilog2(idx->size)), i, id;

	for (i = 0; i < idx->size; i++, pos = (pos + 1) & mask) {
		id = READ_ONCE(idx->slot[pos]);
		if (!id)
			return 0;
		if (id != FST_IDX_TOMB &&
		    READ_ONCE(db->procs[fst_procdb_slot(db, id)].mm) == mm)
			return id;
	}
	return 0;
}

/*
 * Hard-irq safe: publishes @id (whose slot holds @mm) in @idx, or returns
 * the id another CPU published for @mm first, or 0 when @idx is full.
 * *@pos is where @id went. cmpxchg orders the slot's fields before it.
 */
static u32 fst_index_insert(struct fst_procdb *db, struct fst_index *idx,
			    struct mm_struct *mm, u32 id, u32 *pos)
{
	u32 mask = idx->size - 1, i, cur;

	*pos = hash_ptr(mm, ilog2(idx->size));
	for (i = 0; i < idx->size; i++, *pos = (*pos + 1) & mask) {
		cur = READ_ONCE(idx->slot[*pos]);
		if (!cur) {
			cur = cmpxchg(&idx->slot[*pos], 0, id);
			if (!cur)
				return id;
		}
		if (cur != FST_IDX_TOMB &&
		    READ_ONCE(db->procs[fst_procdb_slot(db, cur)].mm) == mm)
			return cur;
	}
	return 0;
}

/*
 * Hard-irq safe: a slot for a new address space, fresh while any is left,
 * else one the worker made free; its id in *@id. U32_MAX when none.
 */
static u32 fst_slot_take(struct fst_procdb *db, u32 *id)
{
	u32 slot, head;

	if (atomic_read(&db->nr_procs) < db->max_procs) {
		slot = atomic_inc_return(&db->nr_procs) - 1;
		if (slot < db->max_procs) {
			*id = slot + 1;
			return slot;
		}
	}
	head = atomic_read(&db->free_head);
	do {
		/* Pairs with the worker's release of free_tail. */
		if (head == smp_load_acquire(&db->free_tail))
			return U32_MAX;
		slot = READ_ONCE(db->free_ring[head & db->free_mask]);
	} while (!atomic_try_cmpxchg(&db->free_head, &head, head + 1));
	*id = READ_ONCE(db->procs[slot].next_id);
	return slot;
}

/*
 * Hard-irq (hrtimer): must not sleep, allocate or take locks. Pins @mm for
 * @p -- a reference on mm_users, which keeps its mappings readable once
 * the process has exited, until the worker has read them -- unless it is
 * pinned already. Two CPUs may both take one: the second reference is
 * counted in extra_pins for the worker to drop (mmput() may sleep).
 */
static void fst_proc_pin(struct fst_proc *p, struct mm_struct *mm)
{
	if (test_bit(FST_PROC_PINNED, &p->bits) || !mmget_not_zero(mm))
		return;
	if (test_and_set_bit(FST_PROC_PINNED, &p->bits))
		atomic_inc(&p->extra_pins);
}

/*
 * Hard-irq (hrtimer): must not sleep, allocate or take locks. Claims a slot
 * for @mm and publishes it in the index; when another CPU publishes the
 * same mm first, its id is returned and our slot is abandoned (DEAD, for
 * the worker to reuse).
 */
static u32 fst_proc_insert(struct fst_procdb *db, struct task_struct *task,
			   struct mm_struct *mm, bool compat)
{
	struct fst_index *idx = rcu_dereference_sched(db->index);
	u32 slot, id, cur, pos;
	struct fst_proc *p;

	slot = fst_slot_take(db, &id);
	if (slot == U32_MAX) {
		/* Ask the worker to retire and reuse slots now, not in 1 s. */
		set_bit(FST_STARVED_SLOT, &db->starved);
		if (!test_and_set_bit(FST_STARVED, &db->starved))
			irq_work_queue(&db->scan_kick);
		return 0;
	}
	p = &db->procs[slot];
	p->tgid = task->tgid;
	p->ns_tgid = task_tgid_nr_ns(task, task_active_pid_ns(task));
	memcpy(p->comm, task->comm, sizeof(p->comm));
	p->comm[sizeof(p->comm) - 1] = '\0';
	if (compat)
		__set_bit(FST_PROC_COMPAT, &p->bits);
	WRITE_ONCE(p->id, id);
	WRITE_ONCE(p->mm, mm);

	cur = fst_index_insert(db, idx, mm, id, &pos);
	if (cur != id) {
		WRITE_ONCE(p->mm, NULL);
		set_bit(FST_PROC_DEAD, &p->bits);
		return cur;
	}
	p->idx_pos = pos;
	mmgrab(mm);
	/*
	 * Atomic bit operations from here on: the slot is in the index, and
	 * another CPU's sample may already pin it and set FST_PROC_SCAN in
	 * p->bits (fst_procdb_check_frames()); a plain __set_bit() could
	 * undo it.
	 */
	fst_proc_pin(p, mm);
	set_bit(FST_PROC_SCAN, &p->bits);
	/* The worker tests READY, then uses everything set above. */
	smp_mb__before_atomic();
	set_bit(FST_PROC_READY, &p->bits);
	irq_work_queue(&db->scan_kick);
	return id;
}

/**
 * fst_procdb_lookup_miss() - look an address space up past the CPU cache
 * @db: the database
 * @c: this CPU's lookup cache, updated
 * @task: the sampled task
 * @mm: its address space, not the one @c holds
 * @gen: @db->gen as read by the caller
 * @compat: the task runs in 32-bit mode
 *
 * The slow path of fst_procdb_lookup(): finds @mm in the lock-free index or
 * claims a slot for it, pins it and queues the scan worker.
 *
 * Context: hard-irq (hrtimer): must not sleep, allocate or take locks.
 * Return: the proc id of @mm, or 0 when the database is full.
 */
u32 fst_procdb_lookup_miss(struct fst_procdb *db, struct fst_proc_cache *c,
			   struct task_struct *task, struct mm_struct *mm,
			   unsigned long gen, bool compat)
{
	u32 id;

	id = fst_index_find(db, rcu_dereference_sched(db->index), mm);
	if (!id)
		id = fst_proc_insert(db, task, mm, compat);
	c->mm = mm;
	c->db = db;
	c->gen = gen;
	c->id = id;
	c->retry = jiffies + FST_SLOT_RETRY;
	return id;
}

/**
 * fst_procdb_check_frames() - ask for a rescan when frames lie outside the maps
 * @db: the database
 * @id: the proc id the frames were sampled in
 * @frames: user frames, leaf first
 * @n: how many
 *
 * Called when a sample of process @id creates a new stack entry (rare in
 * steady state). Every user frame should lie in a recorded mapping; one that
 * does not means the maps are stale (exec, ld.so, dlopen, JIT), and the
 * worker re-reads them, at most once per tick. Frames through code without
 * frame pointers can be garbage: the worker notices when a rescan did not
 * cover the address that asked for it, and requests then back off, except
 * for the first frame, the PC, which is never garbage.
 *
 * Context: hard-irq (hrtimer): must not sleep, allocate or take locks.
 */
void fst_procdb_check_frames(struct fst_procdb *db, u32 id, const u64 *frames,
			     unsigned int n)
{
	struct fst_proc *p = &db->procs[fst_procdb_slot(db, id)];
	const struct fst_map *m = NULL;
	const struct fst_maps *maps;
	unsigned long now = jiffies;
	struct mm_struct *mm;
	unsigned int i;
	u64 miss = 0;

	if (READ_ONCE(p->id) != id || READ_ONCE(p->last_scan) == now)
		return;
	/*
	 * While requests back off, only the first frame asks: it is the
	 * interrupted user PC, code that runs, so a mapping must hold it.
	 * backoff_until means nothing while backoff is 0 (jiffies wrap).
	 */
	if (READ_ONCE(p->backoff) &&
	    time_before(now, READ_ONCE(p->backoff_until)))
		n = min(n, 1U);
	rcu_read_lock();
	maps = rcu_dereference(p->maps);
	for (i = 0; i < n && !miss; i++) {
		/* Callers mostly lie in the mapping of the frame before. */
		if (!m || frames[i] < m->start || frames[i] >= m->end)
			m = fst_maps_find(maps, frames[i]);
		/* A file mapping whose file got no record is a miss too. */
		if (!m || (!m->file_id && !m->flags))
			miss = frames[i];
	}
	rcu_read_unlock();
	if (!miss)
		return;
	WRITE_ONCE(p->want_ip, miss);
	/*
	 * Pinned, the maps can be read even if the process exits before the
	 * worker gets to it (a 10 ms program that dlopen()ed a library). Its
	 * mm stays allocated while p->mm names it: it is let go only an RCU
	 * grace period after p->mm is cleared, and this runs in hard-irq.
	 */
	mm = READ_ONCE(p->mm);
	if (mm)
		fst_proc_pin(p, mm);
	if (!test_and_set_bit(FST_PROC_SCAN, &p->bits))
		irq_work_queue(&db->scan_kick);
}

/*
 * maps_kb is full: its maps are refused (NOMAPS), and the worker's next
 * pass of fst_procdb_maintain() frees some (fst_slots_refill()).
 */
static bool fst_mem_charge(struct fst_procdb *db, long bytes)
{
	if (atomic_long_add_return(bytes, &db->mem_used) > db->mem_max) {
		atomic_long_sub(bytes, &db->mem_used);
		set_bit(FST_STARVED_MEM, &db->starved);
		set_bit(FST_STARVED, &db->starved);
		return false;
	}
	return true;
}

/*
 * db->lock held: (re)reads @f's build-id from @file's page cache. A note
 * that is not cached is counted, and looked for again when a later scan
 * meets the file (fst_read_build_id() never waits for I/O).
 */
static void fst_file_read_build_id(struct fst_procdb *db, struct fst_file *f,
				   struct file *file)
{
	int err = fst_read_build_id(file, f->build_id, &f->build_id_size);

	if (err)
		f->build_id_size = 0;
	if (err == -EAGAIN && !f->build_id_uncached) {
		f->build_id_uncached = true;
		WRITE_ONCE(db->nr_buildid_uncached, db->nr_buildid_uncached + 1);
	} else if (err != -EAGAIN && f->build_id_uncached) {
		f->build_id_uncached = false;
		WRITE_ONCE(db->nr_buildid_uncached, db->nr_buildid_uncached - 1);
	}
}

/* The hash chain of the file records of one inode. */
static struct hlist_head *fst_files_bucket(struct fst_procdb *db, u64 dev,
					   u64 ino)
{
	return &db->files_hash[hash_64(dev * 31 + ino, FST_FILES_HASH_BITS)];
}

/* db->lock held: @file's record for the root @root_dev/@root_ino, or NULL. */
static struct fst_file *fst_file_find(struct fst_procdb *db, struct file *file,
				      u64 root_dev, u64 root_ino)
{
	struct inode *inode = file_inode(file);
	u64 dev = new_encode_dev(inode->i_sb->s_dev), ino = inode->i_ino;
	struct fst_file *f;

	hlist_for_each_entry(f, fst_files_bucket(db, dev, ino), node) {
		if (f->dev != dev || f->ino != ino || f->root_dev != root_dev ||
		    f->root_ino != root_ino)
			continue;
		/* Its pages may be cached by now: looking costs no I/O. */
		if (f->build_id_uncached)
			fst_file_read_build_id(db, f, file);
		return f;
	}
	return NULL;
}

/* db->lock held: a mapping that named file @id is gone. */
static void fst_file_put(struct fst_procdb *db, u32 id)
{
	struct fst_file *f = id ? db->files[id - 1] : NULL;

	if (f && !WARN_ON_ONCE(!f->refs))
		f->refs--;
}

/*
 * db->lock held, every id handed out: the records no published maps (and
 * no scan under way) name any more -- files of exited processes whose
 * slots were reused -- are freed and their ids made reusable. Readers
 * holding rcu_read_lock() may still look one up through maps they read
 * before: a grace period passes before the records are freed and the ids
 * reused. Without this, a member exec'ing max_files distinct files would
 * leave every later file unnamed for the rest of the session.
 */
static void fst_files_reclaim(struct fst_procdb *db)
{
	HLIST_HEAD(dead);
	struct hlist_node *tmp;
	struct fst_file *f;
	u32 i;

	for (i = 0; i < db->nr_files; i++) {
		f = db->files[i];
		if (!f || f->refs)
			continue;
		WRITE_ONCE(db->files[i], NULL);
		hlist_del(&f->node);
		hlist_add_head(&f->node, &dead);
	}
	if (hlist_empty(&dead))
		return;
	synchronize_rcu();
	hlist_for_each_entry_safe(f, tmp, &dead, node) {
		if (f->build_id_uncached)
			WRITE_ONCE(db->nr_buildid_uncached,
				   db->nr_buildid_uncached - 1);
		atomic_long_sub(sizeof(*f) + strlen(f->path) + 1,
				&db->mem_used);
		fst_procdb_eh_forget(db, f);
		db->free_file_ids[db->nr_free_file_ids++] = f->id;
		kfree(f);
	}
}

/* fst_file_intern() without the reference. */
static u32 fst_file_intern_noref(struct fst_procdb *db, struct file *file,
				 const struct fst_task_root *root)
{
	struct inode *inode = file_inode(file);
	u64 root_dev = 0, root_ino = 0;
	const char *path, *rel;
	struct fst_file *f;
	char *buf;
	size_t len;

	lockdep_assert_held(&db->lock);
	/* Seen from this root before? Then no path needs printing. */
	/* root_dev and root_ino are 0 for the host's root. */
	f = fst_file_find(db, file, root->root_dev, root->root_ino);
	if (f)
		return f->id;
	if (db->nr_files >= db->max_files && !db->nr_free_file_ids)
		fst_files_reclaim(db);
	if (db->nr_files >= db->max_files && !db->nr_free_file_ids) {
		/*
		 * Every record names a file some maps hold: those of exited
		 * processes give theirs back at the next pass (as when
		 * maps_kb runs out), and this one's frames ask for a rescan
		 * then (fst_procdb_check_frames()).
		 */
		set_bit(FST_STARVED_MEM, &db->starved);
		set_bit(FST_STARVED, &db->starved);
		return 0;
	}

	buf = __getname();
	if (!buf)
		return 0;
	path = d_path(&file->f_path, buf, PATH_MAX);
	if (IS_ERR(path))
		path = "[unknown]";
	rel = fst_task_root_relative(root, path);
	if (rel) {
		path = rel;
		root_dev = root->root_dev;
		root_ino = root->root_ino;
	} else if (root->own) {
		/* Outside its root: the host's path, maybe known already. */
		f = fst_file_find(db, file, 0, 0);
		if (f) {
			__putname(buf);
			return f->id;
		}
	}
	len = strlen(path);
	if (!fst_mem_charge(db, sizeof(*f) + len + 1)) {
		__putname(buf);
		return 0;
	}
	f = kzalloc(sizeof(*f) + len + 1, GFP_KERNEL);
	if (!f) {
		atomic_long_sub(sizeof(*f) + len + 1, &db->mem_used);
		__putname(buf);
		return 0;
	}
	memcpy(f->path, path, len + 1);
	__putname(buf);
	f->dev = new_encode_dev(inode->i_sb->s_dev);
	f->ino = inode->i_ino;
	f->root_dev = root_dev;
	f->root_ino = root_ino;
	fst_file_read_build_id(db, f, file);
	hlist_add_head(&f->node, fst_files_bucket(db, f->dev, f->ino));
	if (db->nr_free_file_ids) {
		f->id = db->free_file_ids[--db->nr_free_file_ids];
		/* The record before its id: fst_procdb_file() acquires. */
		smp_store_release(&db->files[f->id - 1], f);
	} else {
		f->id = db->nr_files + 1;
		db->files[db->nr_files] = f;
		/* The record before its id: fst_procdb_file() acquires. */
		smp_store_release(&db->nr_files, db->nr_files + 1);
	}
	return f->id;
}

/*
 * db->lock held: the file record for @file as the process whose root is
 * @root names it, created on first sight, with a reference for the
 * mapping being scanned (fst_file_put() drops it). Its path is relative
 * to that root when the file lies under it, else the host's.
 */
static u32 fst_file_intern(struct fst_procdb *db, struct file *file,
			   const struct fst_task_root *root)
{
	u32 id = fst_file_intern_noref(db, file, root);

	if (id)
		db->files[id - 1]->refs++;
	return id;
}

/*
 * Does @m overlap one of the @n mappings of @v? Both lists are sorted by
 * start and free of overlaps, so a caller that asks for maps in ascending
 * order can keep *@cur from one call to the next: a whole merge is then
 * linear, not (old x new), which a process with thousands of executable
 * mappings would make quadratic under db->lock.
 */
static bool fst_overlaps(const struct fst_map *m, const struct fst_scan_ent *v,
			 u32 n, u32 *cur)
{
	while (*cur < n && v[*cur].end <= m->start)
		(*cur)++;
	return *cur < n && v[*cur].start < m->end;
}

/* The last struct fst_maps.seq handed out. */
static atomic64_t fst_maps_seq = ATOMIC64_INIT(0);

/*
 * db->lock held. Publishes the maps of @p: what this scan saw, plus the
 * mappings of earlier scans that nothing now overlaps (code the process
 * unmapped may still appear in samples taken before). The scan's file
 * references pass to the new mappings; those of replaced ones are put.
 */
static void fst_proc_publish(struct fst_procdb *db, struct fst_proc *p,
			     struct fst_scan_ent *v, u32 n)
{
	struct fst_maps *old = rcu_dereference_protected(p->maps,
					lockdep_is_held(&db->lock));
	u32 keep = 0, i, j, k, nr, cur = 0;
	struct fst_maps *new;
	size_t bytes;

	if (old)
		for (i = 0; i < old->nr; i++)
			keep += !fst_overlaps(&old->map[i], v, n, &cur);
	nr = n + keep;
	bytes = struct_size(new, map, nr);
	if (!fst_mem_charge(db, bytes))
		goto fail;
	new = kmalloc(bytes, GFP_KERNEL);
	if (!new) {
		atomic_long_sub(bytes, &db->mem_used);
		goto fail;
	}
	/* The files of old mappings this scan replaces lose one. */
	cur = 0;
	for (i = 0; old && i < old->nr; i++)
		if (fst_overlaps(&old->map[i], v, n, &cur))
			fst_file_put(db, old->map[i].file_id);
	p->generation++;
	/* Merge two lists sorted by start: v (new) and old's survivors. */
	cur = 0;
	for (i = j = k = 0; k < nr; k++) {
		while (old && j < old->nr &&
		       fst_overlaps(&old->map[j], v, n, &cur))
			j++;
		if (i < n && (!old || j >= old->nr ||
			      v[i].start < old->map[j].start)) {
			new->map[k] = (struct fst_map) {
				.start = v[i].start, .end = v[i].end,
				.pgoff = v[i].pgoff, .file_id = v[i].file_id,
				.flags = v[i].flags,
				.generation = p->generation,
			};
			i++;
		} else {
			new->map[k] = old->map[j++];
		}
	}
	new->nr = nr;
	new->seq = atomic64_inc_return(&fst_maps_seq);
	rcu_assign_pointer(p->maps, new);
	clear_bit(FST_PROC_NOMAPS, &p->bits);
	if (old) {
		atomic_long_sub(struct_size(old, map, old->nr), &db->mem_used);
		kfree_rcu(old, rcu);
	}
	return;

fail:
	/* The scan's references, which no published mapping took. */
	for (i = 0; i < n; i++)
		fst_file_put(db, v[i].file_id);
	set_bit(FST_PROC_NOMAPS, &p->bits);
}

#define FST_BACKOFF_MIN	(HZ / 50 ? HZ / 50 : 1)
#define FST_BACKOFF_MAX	(4 * HZ)

/*
 * db->lock held, after a scan. If a sample asked for it and its address is
 * still in no mapping, the address was garbage (a frame walked through code
 * without frame pointers): back off, doubling. Otherwise requests are
 * welcome again at once.
 */
static void fst_proc_update_backoff(struct fst_procdb *db, struct fst_proc *p)
{
	const struct fst_maps *maps = rcu_dereference_protected(p->maps,
					lockdep_is_held(&db->lock));
	u64 ip = xchg(&p->want_ip, 0);
	const struct fst_map *m = ip ? fst_maps_find(maps, ip) : NULL;

	/* Not covered, or still a file without a record: back off. */
	if (ip && (!m || (!m->file_id && !m->flags))) {
		unsigned long b = clamp(p->backoff * 2,
					(unsigned long)FST_BACKOFF_MIN,
					(unsigned long)FST_BACKOFF_MAX);

		/* The deadline first: a nonzero backoff makes it count. */
		WRITE_ONCE(p->backoff_until, jiffies + b);
		WRITE_ONCE(p->backoff, b);
	} else if (ip) {
		WRITE_ONCE(p->backoff, 0);
	}
}

/*
 * db->lock held, after a scan of @p with a reference on @mm: its first scan
 * opens its young window and keeps the reference as the pin; within the
 * window it stays pinned; after it, the reference goes (in a worker of
 * its own: it may be the last one of an exited process, whose teardown,
 * exit_mmap and the files' last fput, must not run under db->lock).
 */
static void fst_proc_unpin(struct fst_procdb *db, struct fst_proc *p,
			   struct mm_struct *mm)
{
	if (!test_and_set_bit(FST_PROC_WAS_YOUNG, &p->bits)) {
		p->young_until = jiffies + FST_YOUNG;
		set_bit(FST_PROC_YOUNG, &p->bits);
		if (!db->nr_young++)
			fst_procdb_queue_young(db);
	}
	/* A sampler may have pinned it again meanwhile: one pin is enough. */
	if (!test_bit(FST_PROC_YOUNG, &p->bits) ||
	    test_and_set_bit(FST_PROC_PINNED, &p->bits))
		mmput_async(mm);
}

/*
 * db->lock held: where @p's paths start. A process gone before any scan
 * found it keeps the paths the host sees, and says so (no ROOT_KNOWN).
 */
static void fst_proc_read_root(struct fst_proc *p, struct fst_task_root *r)
{
	if (fst_task_root_get(r, p->tgid, p->mm))
		return;
	p->mnt_ns = r->mnt_ns;
	p->root_dev = r->root_dev;
	p->root_ino = r->root_ino;
	if (r->own)
		set_bit(FST_PROC_OWN_ROOT, &p->bits);
	else
		clear_bit(FST_PROC_OWN_ROOT, &p->bits);
	set_bit(FST_PROC_ROOT_KNOWN, &p->bits);
}

/*
 * The scan worker, db->lock held: (re)read @p's executable mappings. Only
 * ever from the worker: paths are printed with its root and namespaces,
 * never a reader's (fst_procdb_maintain()).
 */
static void fst_proc_scan(struct fst_procdb *db, struct fst_proc *p,
			  struct fst_scan_ent *v)
{
	struct mm_struct *mm = p->mm;
	struct fst_task_root root;
	struct vm_area_struct *vma;
	bool lost = false;
	u32 n = 0, i;

	FST_VMA_ITER_DECLARE(iter, mm);

	lockdep_assert_held(&db->lock);
	if (!mm)
		return;
	for (i = atomic_xchg(&p->extra_pins, 0); i; i--)
		mmput_async(mm);
	/* The hard-irq pin, if taken, is ours to use and drop now. */
	if (!test_and_clear_bit(FST_PROC_PINNED, &p->bits) &&
	    !mmget_not_zero(mm)) {
		if (!rcu_access_pointer(p->maps))
			set_bit(FST_PROC_NOMAPS, &p->bits);
		return;
	}
	/*
	 * Never wait for the mmap_lock with db->lock held: its holder may be
	 * stuck on a filesystem (a fault on a FUSE or NFS file whose server is
	 * gone), and every reader waits for db->lock. A busy address space is
	 * scanned again on the next pass; our reference, kept as the pin,
	 * holds its mappings until then, even if it exits meanwhile.
	 */
	if (!mmap_read_trylock(mm)) {
		/* A sampler may have pinned it again meanwhile. */
		if (test_and_set_bit(FST_PROC_PINNED, &p->bits))
			mmput_async(mm);
		set_bit(FST_PROC_SCAN, &p->bits);
		WRITE_ONCE(db->nr_maps_busy, db->nr_maps_busy + 1);
		fst_procdb_queue_busy(db);
		return;
	}
	fst_for_each_vma(iter, mm, vma) {
		const char *name;

		if (!(vma->vm_flags & VM_EXEC))
			continue;
		if (n == FST_MAX_EXEC_MAPS) {
			/* Counted: frames beyond these stay unmapped. */
			WRITE_ONCE(db->nr_maps_truncated,
				   db->nr_maps_truncated + 1);
			break;
		}
		v[n] = (struct fst_scan_ent) {
			.start = vma->vm_start, .end = vma->vm_end,
			.pgoff = (u64)vma->vm_pgoff << PAGE_SHIFT,
		};
		if (vma->vm_file) {
			v[n].file = get_file(vma->vm_file);
		} else {
			name = vma->vm_ops && vma->vm_ops->name ?
			       vma->vm_ops->name(vma) : NULL;
			v[n].flags = name && !strcmp(name, "[vdso]") ?
				     FLAMESTAT_MAPF_VDSO : FLAMESTAT_MAPF_ANON;
			v[n].pgoff = 0;
		}
		n++;
	}
	mmap_read_unlock(mm);
	/*
	 * Ours may be the last reference of an exited process: its teardown
	 * (exit_mmap, the files' last fput) runs in a worker of its own, not
	 * under db->lock.
	 */
	fst_proc_read_root(p, &root);
	fst_proc_unpin(db, p, mm);

	for (i = 0; i < n; i++) {
		if (!v[i].file)
			continue;
		v[i].file_id = fst_file_intern(db, v[i].file, &root);
		if (v[i].file_id)
			fst_procdb_eh_consider(db, db->files[v[i].file_id - 1],
					       v[i].file);
		fput(v[i].file);
		/* Counted: no record left (max_files, maps_kb), no name. */
		lost |= !v[i].file_id;
	}
	if (lost)
		WRITE_ONCE(db->nr_maps_truncated, db->nr_maps_truncated + 1);
	fst_task_root_put(&root);
	fst_proc_publish(db, p, v, n);
	p->last_scan = jiffies;
	fst_proc_update_backoff(db, p);
}

/* Process context: read the maps of every address space waiting for it. */
static void fst_procdb_scan_pending(struct fst_procdb *db)
{
	u32 i, n = min_t(u32, atomic_read(&db->nr_procs), db->max_procs);
	u64 busy;

	mutex_lock(&db->lock);
	busy = db->nr_maps_busy;
	for (i = 0; i < n; i++) {
		struct fst_proc *p = &db->procs[i];

		if (test_bit(FST_PROC_READY, &p->bits) &&
		    test_and_clear_bit(FST_PROC_SCAN, &p->bits))
			fst_proc_scan(db, p, db->scan_buf);
	}
	/* No mmap_lock was taken this time: the next retry comes soon again. */
	if (db->nr_maps_busy == busy)
		db->busy_delay = 1;
	mutex_unlock(&db->lock);
}

/*
 * Process context: ends the young windows that are over, and those of
 * processes that have exited (only our pin left on their mm): each is
 * scanned once more with its pin, which that scan then drops. Runs every
 * FST_YOUNG_POLL while a window is open.
 */
static void fst_procdb_young_work(struct work_struct *work)
{
	struct fst_procdb *db = container_of(to_delayed_work(work),
					     struct fst_procdb, young_work);
	u32 i, n = min_t(u32, atomic_read(&db->nr_procs), db->max_procs);
	bool scan = false;

	mutex_lock(&db->lock);
	for (i = 0; i < n && db->nr_young; i++) {
		struct fst_proc *p = &db->procs[i];

		if (!test_bit(FST_PROC_YOUNG, &p->bits))
			continue;
		if (time_before(jiffies, p->young_until) && p->mm &&
		    atomic_read(&p->mm->mm_users) > 1)
			continue;
		clear_bit(FST_PROC_YOUNG, &p->bits);
		set_bit(FST_PROC_SCAN, &p->bits);
		db->nr_young--;
		scan = true;
	}
	if (db->nr_young)
		fst_procdb_queue_young(db);
	/* Scans a taken mmap_lock put off (fst_procdb_queue_busy()). */
	if (db->scan_busy) {
		db->scan_busy = false;
		scan = true;
	}
	mutex_unlock(&db->lock);
	if (scan)
		fst_procdb_queue_scan(db);
}

static void fst_procdb_scan_work(struct work_struct *work)
{
	struct fst_procdb *db = container_of(work, struct fst_procdb,
					     scan_work);

	fst_procdb_scan_pending(db);
	if (test_and_clear_bit(FST_STARVED, &db->starved))
		fst_procdb_maintain(db, false);
}

/* db->lock held: @slot waits for reuse, oldest first. */
static void fst_slot_retire(struct fst_procdb *db, u32 slot)
{
	if (test_and_set_bit(FST_PROC_RETIRED, &db->procs[slot].bits))
		return;
	db->procs[slot].retired_at = jiffies;
	db->retired[db->retired_tail++ & db->free_mask] = slot;
}

/*
 * db->lock held: retired slot @slot becomes free for the next new address
 * space. Its id goes first, so that a reader holding it (a table entry, a
 * copy) finds no process there any more; its maps go after an RCU grace
 * period, as readers without the lock may still be using them.
 */
static void fst_slot_recycle(struct fst_procdb *db, u32 slot)
{
	struct fst_proc *p = &db->procs[slot];
	struct fst_maps *maps = rcu_dereference_protected(p->maps,
					lockdep_is_held(&db->lock));
	u32 use = p->id >> db->slot_bits, next;

	/* The next use count; an id is never the index's tombstone. */
	do {
		use++;
		next = (u32)((u64)use << db->slot_bits) | (slot + 1);
	} while (next == FST_IDX_TOMB || next == slot + 1);
	WRITE_ONCE(p->id, 0);
	/* Pairs with fst_procdb_proc_still(): id first, then the maps. */
	smp_wmb();
	RCU_INIT_POINTER(p->maps, NULL);
	if (maps) {
		u32 i;

		for (i = 0; i < maps->nr; i++)
			fst_file_put(db, maps->map[i].file_id);
		atomic_long_sub(struct_size(maps, map, maps->nr),
				&db->mem_used);
		kfree_rcu(maps, rcu);
	}
	p->next_id = next;
	p->idx_pos = U32_MAX;
	p->generation = 0;
	p->last_scan = 0;
	p->last_seen = 0;
	p->want_ip = 0;
	p->backoff = 0;
	p->backoff_until = 0;
	p->young_until = 0;
	p->mnt_ns = 0;
	p->root_dev = 0;
	p->root_ino = 0;
	WRITE_ONCE(p->bits, 0);
	db->free_ring[db->free_tail & db->free_mask] = slot;
	/* The slot's fields before the sampler can take it. */
	smp_store_release(&db->free_tail, db->free_tail + 1);
	WRITE_ONCE(db->nr_recycled, db->nr_recycled + 1);
}

/* Slots a new address space can still get: fresh, or freed for reuse. */
static u32 fst_slots_free(struct fst_procdb *db)
{
	u32 fresh = atomic_read(&db->nr_procs);

	fresh = fresh < db->max_procs ? db->max_procs - fresh : 0;
	return fresh + db->free_tail - (u32)atomic_read(&db->free_head);
}

/*
 * db->lock held: once fresh slots or the memory for maps run low, the
 * oldest retired slots are reused, so that a fork loop cannot leave every
 * later process unmapped. Each reuse loses the maps of a process that
 * exited before: counted.
 */
static bool fst_slot_recycle_oldest(struct fst_procdb *db,
				    unsigned long min_age)
{
	u32 slot;

	if (db->retired_head == db->retired_tail)
		return false;
	slot = db->retired[db->retired_head & db->free_mask];
	if (min_age &&
	    time_before(jiffies, db->procs[slot].retired_at + min_age))
		return false;
	db->retired_head++;
	fst_slot_recycle(db, slot);
	return true;
}

/*
 * db->lock held. Reuse is for new processes, not a goal in itself: the
 * processes that exited last (the program just profiled, read a moment
 * later) keep their maps as long as nothing needs their slots.
 * - A reserve of a quarter of the slots is kept free with the slots of
 *   processes that exited FST_REUSE_AGE ago or more.
 * - A sample found no slot: a sixteenth of the slots, oldest exit first,
 *   whatever their age (it looks again within FST_SLOT_RETRY).
 * - maps_kb ran out: a quarter of the retired slots give their maps
 *   back, and file records no maps name any more go.
 */
#define FST_REUSE_AGE	(10 * HZ)

static void fst_slots_refill(struct fst_procdb *db)
{
	u32 low = max_t(u32, db->max_procs / 4, 1), free = fst_slots_free(db);
	u32 batch;

	while (free < low && fst_slot_recycle_oldest(db, FST_REUSE_AGE))
		free++;
	if (test_and_clear_bit(FST_STARVED_SLOT, &db->starved)) {
		batch = max_t(u32, low / 4, 1);
		while (batch-- && fst_slot_recycle_oldest(db, 0))
			;
	}
	if (!test_and_clear_bit(FST_STARVED_MEM, &db->starved))
		return;
	batch = max_t(u32, (db->retired_tail - db->retired_head) / 4, 1);
	while (batch-- && fst_slot_recycle_oldest(db, 0))
		;
	fst_files_reclaim(db);
}

/*
 * db->lock held: a fresh index of the live address spaces, swapped in for
 * one a quarter full of tombstones (they only ever grow: probes would get
 * long, and inserts would find no room). The sampler inserts without the
 * lock: what it put in the old index after the copy is moved once no
 * sampler can be using the old one.
 */
static void fst_index_rebuild(struct fst_procdb *db, u32 n)
{
	struct fst_index *old = rcu_dereference_protected(db->index,
					lockdep_is_held(&db->lock));
	struct fst_index *new = fst_index_alloc(old->size);
	u32 i, pos, id, at;

	if (!new)
		return;		/* tried again after the next retirement */
	for (i = 0; i < n; i++) {
		struct fst_proc *p = &db->procs[i];

		if (!test_bit(FST_PROC_READY, &p->bits) || !p->mm ||
		    test_bit(FST_PROC_EXITED, &p->bits) ||
		    p->idx_pos == U32_MAX)
			continue;
		p->idx_pos = fst_index_insert(db, new, p->mm, p->id, &at) ==
			     p->id ? at : U32_MAX;
	}
	rcu_assign_pointer(db->index, new);
	synchronize_rcu();
	for (pos = 0; pos < old->size; pos++) {
		struct fst_proc *p;

		id = old->slot[pos];
		p = id != FST_IDX_TOMB ? fst_procdb_proc(db, id) : NULL;
		if (!p || !p->mm || test_bit(FST_PROC_EXITED, &p->bits) ||
		    fst_index_find(db, new, p->mm) == id)
			continue;
		/*
		 * Published late. If a sampler has meanwhile given its mm
		 * another slot in the new index, this one stays out of it: a
		 * harmless twin, retired with its mm.
		 */
		p->idx_pos = fst_index_insert(db, new, p->mm, id, &at) == id ?
			     at : U32_MAX;
	}
	kvfree(old);
}

/**
 * fst_procdb_maintain() - retire exited address spaces and rescan live ones
 * @db: the database
 * @sync: rescan every process sampled since its last scan now (a reader
 *	wants current maps), rather than after FST_RESCAN_INTERVAL
 *
 * Exited address spaces keep their maps; their mm reference and index entry
 * go, and their slots are reused, oldest first, once fresh ones run low.
 * The rescans themselves run in the scan worker, also when a reader
 * waits for them: paths are printed with the worker's root, credentials
 * and namespaces, never with the reader's (a reader in a container would
 * otherwise name every file as its own root sees it).
 *
 * Context: process context; takes @db->lock; with @sync, waits for the
 * scan worker.
 */
void fst_procdb_maintain(struct fst_procdb *db, bool sync)
{
	u32 i, n = min_t(u32, atomic_read(&db->nr_procs), db->max_procs);
	bool retired = false, rescan = false;
	struct fst_index *idx;

	mutex_lock(&db->lock);
	idx = rcu_dereference_protected(db->index, lockdep_is_held(&db->lock));
	for (i = 0; i < n; i++) {
		struct fst_proc *p = &db->procs[i];
		unsigned long seen = READ_ONCE(p->last_seen);

		/* Lost an insert race: never published, reusable now. */
		if (test_bit(FST_PROC_DEAD, &p->bits))
			fst_slot_retire(db, i);
		if (!test_bit(FST_PROC_READY, &p->bits) || !p->mm ||
		    test_bit(FST_PROC_EXITED, &p->bits))
			continue;
		if (!atomic_read(&p->mm->mm_users)) {
			/* No task can run on it again: unpublish it. */
			if (p->idx_pos != U32_MAX) {
				WRITE_ONCE(idx->slot[p->idx_pos],
					   FST_IDX_TOMB);
				idx->tombs++;
			}
			set_bit(FST_PROC_EXITED, &p->bits);
			retired = true;
			continue;
		}
		if (!time_after(seen, p->last_scan))
			continue;
		if (!sync && time_before(jiffies,
					 p->last_scan + FST_RESCAN_INTERVAL))
			continue;
		set_bit(FST_PROC_SCAN, &p->bits);
		rescan = true;
	}
	if (retired) {
		/*
		 * Invalidate the per-CPU caches, then wait for every sampler
		 * that might still compare against the old mm before letting
		 * it go: after mmdrop() its address may name a new mm.
		 */
		WRITE_ONCE(db->gen, db->gen + 1);
		synchronize_rcu();
		for (i = 0; i < n; i++) {
			struct fst_proc *p = &db->procs[i];
			struct mm_struct *mm = p->mm;

			if (!mm || !test_bit(FST_PROC_EXITED, &p->bits))
				continue;
			WRITE_ONCE(p->mm, NULL);
			mmdrop(mm);
			fst_slot_retire(db, i);
		}
		if (idx->tombs > idx->size / 4)
			fst_index_rebuild(db, n);
	}
	fst_slots_refill(db);
	mutex_unlock(&db->lock);
	if (rescan)
		fst_procdb_queue_scan(db);
	if (sync)
		flush_work(&db->scan_work);
}
