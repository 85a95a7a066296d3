// SPDX-License-Identifier: GPL-2.0
/*
 * The process database's unwind tables: one per file record (so shared by
 * every process that maps the file), built by a worker of its own from the
 * page cache (ehtab.c), published with RCU for the sampler's walker
 * (ehwalk.c), and freed with the record.
 *
 * The scan asks for a table when it meets an executable mapping of a file
 * that has none (fst_procdb_eh_consider()); it passes the worker a
 * reference to the mapped file, so that the table is built without
 * db->lock held (building the largest libraries takes tens of
 * milliseconds, and readers wait for db->lock). Pages that are not cached
 * yet are asked for with readahead, and the build is tried again a few
 * times, then left until a scan meets the file again. A file rewritten in
 * place (its size or change time differ from the table's) loses its table
 * at the next scan that meets it and gets a new one.
 *
 * A record's table outlives the record: when the record goes (its last
 * mapping unmapped, or the whole database at a reset, which every
 * recording starts with), its table is kept, by device and inode, for the
 * next record of the same file, which takes it over if the file is
 * unchanged. So a new recording, or a program run again, walks its stacks
 * by table from its first samples and builds nothing. The tables kept are
 * bounded by what unwind_kb leaves beside the database's own, oldest
 * dropped first, and freed at unload.
 *
 * unwind_kb bounds every table that exists, module-wide: those of every
 * database (an old one may outlive a reset while a reader copies it),
 * the kept ones and the one being built. A build reserves its table's
 * bytes before it allocates them; kept tables give way first, oldest
 * first, and without room the build fails (unwind_failed_memory); if an
 * older database's tables hold part of the room, the file is tried again
 * a second later instead (FST_EHF_NOROOM): they go with that database.
 */
#include <linux/errno.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/kdev_t.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/workqueue.h>

#include "compat.h"
#include "ehtab.h"
#include "procdb.h"

/* Pages asked for by readahead: looked for again after this, so often. */
#define FST_EH_RETRY		(HZ / 20 ? HZ / 20 : 1)
#define FST_EH_TRIES		20
/* Grows when a published table is dropped (struct fst_eh_rcache). */
atomic_t fst_eh_gen = ATOMIC_INIT(0);

/* Tables kept after their record went, newest first; fst_eh_kept_lock. */
static LIST_HEAD(fst_eh_kept_list);
static DEFINE_MUTEX(fst_eh_kept_lock);
static u64 fst_eh_kept_bytes, fst_eh_kept_nr, fst_eh_reused;
/*
 * Bytes of every table that exists (see above), and the most there ever
 * were since the module was loaded; fst_eh_kept_lock.
 */
static long fst_eh_held, fst_eh_held_peak;

/* What unwind_kb leaves beside @db's tables, in bytes (may be negative). */
static long fst_eh_room(struct fst_procdb *db)
{
	return db->eh_max - atomic_long_read(&db->eh_used);
}

/* fst_eh_kept_lock held: @et off the kept list. */
static void fst_eh_kept_unlink(struct fst_ehtab *et)
{
	lockdep_assert_held(&fst_eh_kept_lock);
	list_del(&et->kept);
	fst_eh_kept_bytes -= et->bytes;
	fst_eh_kept_nr--;
}

/*
 * Free a kept table: unpublished, so no walk reads it. CPUs' rule caches
 * hold copies of its rules under maps that are gone, and lose them too
 * (struct fst_eh_rcache): cheap, and no reasoning about when those maps
 * went is needed.
 */
static void fst_eh_kept_free_one(struct fst_ehtab *et)
{
	lockdep_assert_held(&fst_eh_kept_lock);
	fst_eh_held -= et->bytes;
	fst_eh_gen_bump();
	fst_ehtab_free(et);
}

/* A table, or a reservation for one, that no longer holds memory. */
static void fst_eh_release(size_t bytes)
{
	mutex_lock(&fst_eh_kept_lock);
	fst_eh_held -= bytes;
	mutex_unlock(&fst_eh_kept_lock);
}

/* fst_eh_kept_lock held: drop the oldest kept tables beyond @max bytes. */
static void fst_eh_kept_trim(long max)
{
	struct fst_ehtab *et;

	lockdep_assert_held(&fst_eh_kept_lock);
	while (fst_eh_kept_bytes > max_t(long, max, 0)) {
		et = list_last_entry(&fst_eh_kept_list, struct fst_ehtab, kept);
		fst_eh_kept_unlink(et);
		fst_eh_kept_free_one(et);
	}
}

/*
 * The table of file @dev:@ino kept by an earlier record, if it still
 * matches @file (else it is freed), taken off the list; or NULL.
 */
static struct fst_ehtab *fst_eh_kept_take(u64 dev, u64 ino, struct file *file)
{
	struct fst_ehtab *et, *found = NULL;

	mutex_lock(&fst_eh_kept_lock);
	list_for_each_entry(et, &fst_eh_kept_list, kept) {
		if (et->kept_dev == dev && et->kept_ino == ino) {
			found = et;
			break;
		}
	}
	if (found) {
		fst_eh_kept_unlink(found);
		if (!fst_ehtab_current(found, file)) {
			fst_eh_kept_free_one(found);
			found = NULL;
		} else {
			fst_eh_reused++;
		}
	}
	mutex_unlock(&fst_eh_kept_lock);
	return found;
}

/*
 * Keep @et, unpublished (its record gone a grace period ago), for the next
 * record of its file, within @max bytes.
 */
static void fst_eh_keep(struct fst_ehtab *et, const struct fst_file *f,
			long max)
{
	et->kept_dev = f->dev;
	et->kept_ino = f->ino;
	mutex_lock(&fst_eh_kept_lock);
	list_add(&et->kept, &fst_eh_kept_list);
	fst_eh_kept_bytes += et->bytes;
	fst_eh_kept_nr++;
	fst_eh_kept_trim(max);
	mutex_unlock(&fst_eh_kept_lock);
}

/* A build's budget: unwind_kb (db->eh_max) for all tables together. */
struct fst_eh_budget {
	struct fst_ehtab_budget b;
	struct fst_procdb *db;
};

static bool fst_eh_budget_reserve(struct fst_ehtab_budget *b, size_t bytes)
{
	long max = container_of(b, struct fst_eh_budget, b)->db->eh_max;
	bool ok;

	mutex_lock(&fst_eh_kept_lock);
	/* The kept tables give way to the ones in use and this one. */
	fst_eh_kept_trim(max - (long)bytes -
			 (fst_eh_held - (long)fst_eh_kept_bytes));
	ok = fst_eh_held + (long)bytes <= max;
	if (ok) {
		fst_eh_held += bytes;
		fst_eh_held_peak = max(fst_eh_held_peak, fst_eh_held);
	}
	mutex_unlock(&fst_eh_kept_lock);
	return ok;
}

static void fst_eh_budget_release(struct fst_ehtab_budget *b, size_t bytes)
{
	fst_eh_release(bytes);
}

/**
 * fst_procdb_eh_held() - bytes of every unwind table that exists
 *
 * Context: process context.
 * Return: the tables of every database, the kept ones and the one being
 * built, which unwind_kb bounds.
 */
long fst_procdb_eh_held(void)
{
	long held;

	mutex_lock(&fst_eh_kept_lock);
	held = fst_eh_held;
	mutex_unlock(&fst_eh_kept_lock);
	return held;
}

/**
 * fst_procdb_eh_kept_stats() - the tables kept for records to come
 * @tables: how many
 * @bytes: their memory
 * @reused: tables taken over by a new record since the module was loaded
 * @peak: the most bytes all tables together ever held since then
 *
 * Context: process context.
 */
void fst_procdb_eh_kept_stats(u64 *tables, u64 *bytes, u64 *reused,
			      u64 *peak)
{
	mutex_lock(&fst_eh_kept_lock);
	*tables = fst_eh_kept_nr;
	*bytes = fst_eh_kept_bytes;
	*reused = fst_eh_reused;
	*peak = fst_eh_held_peak;
	mutex_unlock(&fst_eh_kept_lock);
}

/*
 * The vDSO's table: the same code in every 64-bit process, and no file,
 * so built once, from the first user task at hand (fst_procdb_eh_vdso()),
 * and kept until unload. Counted in unwind_kb as every table is.
 */
struct fst_ehtab __rcu *fst_eh_vdso;

/**
 * fst_procdb_eh_vdso() - build the vDSO's unwind table, if not yet built
 * @db: the database whose unwind_kb bounds it (none built with 0)
 *
 * Samples in the vDSO (clock_gettime(), and the signal trampoline on
 * arm64) are walked by it instead of by frame pointer, which loses the
 * caller of a vDSO function that has not saved its return address yet.
 *
 * Context: process context of a user task (the module's loader, a reader
 * that resets), serialised by the session's ctl_lock or module init.
 */
void fst_procdb_eh_vdso(struct fst_procdb *db)
{
	struct fst_eh_budget budget = {
		.b.reserve = fst_eh_budget_reserve,
		.b.release = fst_eh_budget_release,
		.db = db,
	};
	struct fst_ehtab *et;
	int eh_err;

	if (!db->eh_max || rcu_access_pointer(fst_eh_vdso))
		return;
	if (!fst_ehtab_build_vdso(&budget.b, &et, &eh_err))
		rcu_assign_pointer(fst_eh_vdso, et);
}

/**
 * fst_procdb_eh_vdso_bytes() - the vDSO's table's memory
 *
 * Context: any.
 * Return: its bytes, 0 if there is none (not built yet, unwind_kb 0, or
 * a vDSO without unwind information: arm64 kernels build theirs without).
 */
u64 fst_procdb_eh_vdso_bytes(void)
{
	const struct fst_ehtab *et;
	u64 bytes;

	rcu_read_lock();
	et = rcu_dereference(fst_eh_vdso);
	bytes = et ? et->bytes : 0;
	rcu_read_unlock();
	return bytes;
}

/**
 * fst_procdb_eh_kept_free() - free every kept table, and the vDSO's
 *
 * Context: process context, at unload, after the last database is gone.
 */
void fst_procdb_eh_kept_free(void)
{
	struct fst_ehtab *vdso = rcu_dereference_protected(fst_eh_vdso, 1);

	if (vdso) {
		RCU_INIT_POINTER(fst_eh_vdso, NULL);
		/* No sampler runs any more; a walk's read side ends first. */
		synchronize_rcu();
		fst_eh_release(vdso->bytes);
		fst_ehtab_free(vdso);
	}
	mutex_lock(&fst_eh_kept_lock);
	fst_eh_kept_trim(0);
	/* Every database is gone: a table still counted was lost. */
	WARN_ON_ONCE(fst_eh_held);
	mutex_unlock(&fst_eh_kept_lock);
}

/* A file given up on (never cached) is asked for again after this. */
#define FST_EH_UNCACHED_AGAIN	(10 * HZ)

static void fst_eh_queue_work(struct fst_procdb *db, unsigned long delay)
{
	if (!READ_ONCE(db->dying))
		mod_delayed_work(fst_wq_unbound, &db->eh_work, delay);
}

/*
 * db->lock held: @f's table, unpublished, and freed once no walk can read
 * it. Not synchronize_rcu() here: the scan that called this publishes the
 * maps of a process that is being sampled meanwhile.
 */
static void fst_eh_drop(struct fst_procdb *db, struct fst_file *f)
{
	struct fst_ehtab *et = rcu_dereference_protected(f->ehtab,
					lockdep_is_held(&db->lock));

	if (!et)
		return;
	RCU_INIT_POINTER(f->ehtab, NULL);
	fst_eh_gen_bump();
	atomic_long_sub(et->bytes, &db->eh_used);
	db->nr_eh_tables--;
	fst_eh_release(et->bytes);
	kvfree_rcu(et, rcu);
}

/* db->lock held: @et becomes @f's table, charged to unwind_kb. */
static void fst_eh_publish(struct fst_procdb *db, struct fst_file *f,
			   struct fst_ehtab *et)
{
	atomic_long_add(et->bytes, &db->eh_used);
	db->nr_eh_tables++;
	rcu_assign_pointer(f->ehtab, et);
	f->eh_state = FST_EHF_BUILT;
}

/**
 * fst_procdb_eh_consider() - a scan met an executable mapping of a file
 * @db: the database
 * @f: the file's record
 * @file: the mapped file
 *
 * Queues a build of @f's unwind table if it has none (or one of an older
 * version of the file) and none is under way.
 *
 * Context: the scan worker, db->lock held.
 */
void fst_procdb_eh_consider(struct fst_procdb *db, struct fst_file *f,
			    struct file *file)
{
	struct fst_ehtab *et;
	struct fst_eh_req *r;

	lockdep_assert_held(&db->lock);
	if (!db->eh_max)
		return;
	switch (f->eh_state) {
	case FST_EHF_BUILT:
		et = rcu_dereference_protected(f->ehtab,
					       lockdep_is_held(&db->lock));
		if (fst_ehtab_current(et, file))
			return;
		fst_eh_drop(db, f);
		break;
	case FST_EHF_UNCACHED:
		if (time_before(jiffies, f->eh_retry_at))
			return;
		db->nr_eh_uncached--;
		break;
	case FST_EHF_NOROOM:
		if (time_before(jiffies, f->eh_retry_at))
			return;
		break;
	case FST_EHF_NONE:
		break;
	default:
		return;
	}
	f->eh_state = FST_EHF_NONE;
	/* An earlier record's table of the same, unchanged, file. */
	et = fst_eh_kept_take(f->dev, f->ino, file);
	if (et) {
		if ((long)et->bytes <= fst_eh_room(db)) {
			fst_eh_publish(db, f, et);
			return;
		}
		fst_eh_keep(et, f, fst_eh_room(db));
	}
	/* Full: asked for again when a scan meets the file next time. */
	if (db->eh_queued == FST_EH_QUEUE)
		return;
	r = &db->eh_queue[db->eh_queued++];
	r->file = get_file(file);
	r->id = f->id;
	r->tries = 0;
	r->not_before = jiffies;
	f->eh_state = FST_EHF_QUEUED;
	fst_eh_queue_work(db, 0);
}

/* The enum flamestat_unwind_fail of fst_ehtab_build()'s error. */
static unsigned int fst_eh_fail_reason(int err)
{
	switch (err) {
	case -ENOEXEC:
		return FLAMESTAT_UNWIND_FAIL_NONE;
	case -E2BIG:
		return FLAMESTAT_UNWIND_FAIL_BIG;
	case -ENOSPC:
	case -ENOMEM:
		return FLAMESTAT_UNWIND_FAIL_MEM;
	default:
		return FLAMESTAT_UNWIND_FAIL_BAD;
	}
}

/* A file refused for lack of room, with others' tables alive, after this. */
#define FST_EH_NOROOM_AGAIN	HZ

/*
 * db->lock held: do tables other than @db's own, the kept ones and the
 * vDSO's hold any of unwind_kb? Those of an older database that a reader
 * still holds across a reset: they are kept, or freed, when it goes.
 */
static bool fst_eh_others_hold(struct fst_procdb *db)
{
	long others;

	mutex_lock(&fst_eh_kept_lock);
	others = fst_eh_held - (long)fst_eh_kept_bytes -
		 atomic_long_read(&db->eh_used) -
		 (long)fst_procdb_eh_vdso_bytes();
	mutex_unlock(&fst_eh_kept_lock);
	return others > 0;
}

/*
 * db->lock held: what came of request @r (its table @et, or error @err).
 * Return: true when @r is queued again (its file reference kept).
 */
static bool fst_eh_finish(struct fst_procdb *db, struct fst_eh_req *r,
			  struct fst_ehtab *et, int err)
{
	struct inode *inode = file_inode(r->file);
	struct fst_file *f = r->id <= db->nr_files ? db->files[r->id - 1] : NULL;

	/* The record was reclaimed meanwhile, its id maybe reused. */
	if (!f || f->eh_state != FST_EHF_QUEUED ||
	    f->dev != new_encode_dev(inode->i_sb->s_dev) ||
	    f->ino != inode->i_ino) {
		if (et)
			fst_eh_release(et->bytes);
		fst_ehtab_free(et);
		return false;
	}
	if (!err) {
		fst_eh_publish(db, f, et);
		return false;
	}
	if (err == -EAGAIN && ++r->tries < FST_EH_TRIES &&
	    db->eh_queued < FST_EH_QUEUE) {
		r->not_before = jiffies + FST_EH_RETRY;
		db->eh_queue[db->eh_queued++] = *r;
		return true;
	}
	if (err == -EAGAIN) {
		f->eh_state = FST_EHF_UNCACHED;
		f->eh_retry_at = jiffies + FST_EH_UNCACHED_AGAIN;
		db->nr_eh_uncached++;
	} else if (err == -ENOSPC && fst_eh_others_hold(db)) {
		/* Their tables go when they do: then there may be room. */
		f->eh_state = FST_EHF_NOROOM;
		f->eh_retry_at = jiffies + FST_EH_NOROOM_AGAIN;
	} else {
		f->eh_state = FST_EHF_FAILED;
		db->eh_failed[fst_eh_fail_reason(err)]++;
	}
	return false;
}

/**
 * fst_procdb_eh_work() - build the unwind tables asked for
 * @work: the database's eh_work
 *
 * One table at a time, each without db->lock; requests whose pages are
 * being read ahead wait for their time.
 *
 * Context: workqueue (process context).
 */
void fst_procdb_eh_work(struct work_struct *work)
{
	struct fst_procdb *db = container_of(to_delayed_work(work),
					     struct fst_procdb, eh_work);
	struct fst_eh_budget budget = {
		.b.reserve = fst_eh_budget_reserve,
		.b.release = fst_eh_budget_release,
		.db = db,
	};
	unsigned long now, wait;
	struct fst_ehtab *et;
	struct fst_eh_req r;
	int err, eh_err;
	u32 i;

	for (;;) {
		mutex_lock(&db->lock);
		now = jiffies;
		wait = 0;
		for (i = 0; i < db->eh_queued; i++) {
			if (!time_before(now, db->eh_queue[i].not_before))
				break;
			if (!wait || time_before(db->eh_queue[i].not_before,
						 now + wait))
				wait = db->eh_queue[i].not_before - now;
		}
		if (READ_ONCE(db->dying) || i == db->eh_queued) {
			if (wait)
				fst_eh_queue_work(db, wait);
			mutex_unlock(&db->lock);
			return;
		}
		r = db->eh_queue[i];
		db->eh_queue[i] = db->eh_queue[--db->eh_queued];
		mutex_unlock(&db->lock);

		et = NULL;
		err = fst_ehtab_build(r.file, &budget.b, &et, &eh_err);

		mutex_lock(&db->lock);
		if (!fst_eh_finish(db, &r, et, err))
			fput(r.file);
		/* The kept tables give way to the ones in use. */
		mutex_lock(&fst_eh_kept_lock);
		fst_eh_kept_trim(fst_eh_room(db));
		mutex_unlock(&fst_eh_kept_lock);
		mutex_unlock(&db->lock);
		cond_resched();
	}
}

/**
 * fst_procdb_eh_forget() - free a reclaimed file record's table
 * @db: the database
 * @f: the record, unpublished a grace period ago
 *
 * Context: process context, db->lock held or no other user of @db left.
 */
void fst_procdb_eh_forget(struct fst_procdb *db, struct fst_file *f)
{
	struct fst_ehtab *et = rcu_dereference_protected(f->ehtab, 1);

	if (f->eh_state == FST_EHF_UNCACHED)
		db->nr_eh_uncached--;
	if (!et)
		return;
	atomic_long_sub(et->bytes, &db->eh_used);
	db->nr_eh_tables--;
	/* For the next record of the file (the database's next one, too). */
	fst_eh_keep(et, f, db->dying ? db->eh_max : fst_eh_room(db));
}

/**
 * fst_procdb_eh_stop() - end the worker, drop what it was asked to build
 * @db: the database, dying (no scan queues anything any more)
 *
 * Context: process context; waits for a build under way.
 */
void fst_procdb_eh_stop(struct fst_procdb *db)
{
	u32 i;

	cancel_delayed_work_sync(&db->eh_work);
	for (i = 0; i < db->eh_queued; i++)
		fput(db->eh_queue[i].file);
	db->eh_queued = 0;
}
