// SPDX-License-Identifier: GPL-2.0
/*
 * The profiling session: owns the configuration, the per-CPU samplers and
 * their tables, the merged table and the process database; starts, stops,
 * reconfigures and resets sampling, follows CPU hotplug, and hands readers
 * consistent copies of the samples and counters.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/fs.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/security.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>

#include "arch.h"
#include "compat.h"
#include "drain.h"
#include "kstack_cache.h"
#include "offcpu.h"
#include "sampler.h"
#include "session.h"

/*
 * The session. Life: fst_session_init() at module load -> any number of
 * configure/start/stop/reset, and copies taken by readers -> exit.
 */
static struct fst_session {
	struct mutex ctl_lock;	/* start/stop/config/reset/claim */
	/* cfg: ctl_lock + timers stopped; procdb also agg.lock */
	struct fst_sampler sampler;
	struct fst_agg agg;
	struct file *claim;	/* ctl_lock: the file holding control */
	u64 run_start_ns;	/* ktime_get_ns() at start, ctl_lock */
	u64 run_total_ns;	/* completed runs since reset, ctl_lock */
	/*
	 * CLEAR copies of this session (since the last reset) taken and
	 * neither restored nor released, ctl_lock
	 */
	unsigned int clears_out;
	int cpuhp_state;
	size_t pcpu_bytes;	/* per table, per CPU */
	u32 max_depth_words;	/* scratch key size */
	u32 max_procs;
	long maps_bytes;
	long unwind_bytes;	/* unwind tables (unwind_kb); 0: none */
	u32 offcpu_tasks;
} sess;

/**
 * fst_locked_down() - are kernel addresses and stacks withheld?
 *
 * Lockdown only ever rises, so once it says no, stop asking: every query
 * while locked down logs a notice.
 *
 * Context: any process context.
 * Return: true under lockdown (LOCKDOWN_PERF).
 */
bool fst_locked_down(void)
{
	static bool locked;

	if (!READ_ONCE(locked) && security_locked_down(LOCKDOWN_PERF))
		WRITE_ONCE(locked, true);
	return READ_ONCE(locked);
}

/**
 * fst_ctl_lock() - take the control lock
 *
 * Context: process context; may sleep.
 */
void fst_ctl_lock(void)
{
	mutex_lock(&sess.ctl_lock);
}

/**
 * fst_ctl_unlock() - release the control lock
 *
 * Context: process context.
 */
void fst_ctl_unlock(void)
{
	mutex_unlock(&sess.ctl_lock);
}

/* ctl_lock held: sampling time since the last reset. */
static u64 fst_running_ns(void)
{
	lockdep_assert_held(&sess.ctl_lock);
	return sess.run_total_ns +
	       (sess.sampler.running ? ktime_get_ns() - sess.run_start_ns : 0);
}

/**
 * fst_start() - start a timer on every online CPU of the configuration
 *
 * Context: process context, ctl_lock held.
 * Return: 0, or -EPERM when lockdown withholds kernel stacks and the
 * configuration asks for nothing else.
 */
int fst_start(void)
{
	struct fst_sampler *s = &sess.sampler;
	int err;

	lockdep_assert_held(&sess.ctl_lock);
	if (s->running)
		return 0;
	s->lockdown = fst_locked_down();
	if (s->lockdown && !(s->cfg.flags & FLAMESTAT_CFG_USER))
		return -EPERM;
	if (s->lockdown)
		pr_notice("kernel lockdown: kernel stacks are withheld\n");
	/* The drain's lock: which CPUs have a timer changes under it. */
	mutex_lock(&sess.agg.lock);
	cpus_read_lock();
	WRITE_ONCE(s->running, true);
	sess.run_start_ns = ktime_get_ns();
	fst_sampler_start(s, sess.run_start_ns);
	cpus_read_unlock();
	mutex_unlock(&sess.agg.lock);
	/* Outside the hotplug lock: attaching takes it. */
	if (fst_cfg_offcpu(&s->cfg)) {
		err = fst_offcpu_start(s, sess.offcpu_tasks);
		if (err) {
			fst_stop();
			return err;
		}
	} else {
		/* CPU time only: the probes come off, if they were on. */
		fst_offcpu_detach(s);
	}
	mod_delayed_work(fst_wq_unbound, &sess.agg.work, HZ);
	return 0;
}

/**
 * fst_stop() - stop sampling
 *
 * Returns once no timer callback runs any more.
 *
 * Context: process context, ctl_lock held.
 */
void fst_stop(void)
{
	struct fst_sampler *s = &sess.sampler;
	u64 now;

	lockdep_assert_held(&sess.ctl_lock);
	if (!s->running)
		return;
	mutex_lock(&sess.agg.lock);
	cpus_read_lock();
	WRITE_ONCE(s->running, false);
	now = ktime_get_ns();
	fst_sampler_stop(s, now);
	cpus_read_unlock();
	/* Blocks still open are counted as such in the merged table. */
	fst_offcpu_stop(s, &sess.agg.table.counts);
	mutex_unlock(&sess.agg.lock);
	sess.run_total_ns += now - sess.run_start_ns;
}

/*
 * ctl_lock held: has anything been sampled since the last reset (or the
 * last clearing copy)? Every CPU's table is folded into the merged table
 * first, so a sample still in a CPU's table counts too. With the timers
 * stopped the answer holds; while they run, a timer may take a sample
 * right after a "no".
 */
static bool fst_have_samples(void)
{
	struct fst_table *agg = &sess.agg.table;
	bool have;

	lockdep_assert_held(&sess.ctl_lock);
	mutex_lock(&sess.agg.lock);
	fst_drain(&sess.agg);
	/* A CLEAR copy may still come back (fst_copy_restore()). */
	have = agg->counts.samples || agg->counts.offcpu_blocks ||
	       agg->nr_entries || sess.clears_out;
	mutex_unlock(&sess.agg.lock);
	return have;
}

/**
 * fst_set_config() - apply a configuration
 * @cfg: the new configuration, validated by fst_cfg_from_user()
 *
 * Sampling restarts with it if it ran.
 *
 * The frequency changes only while the session holds no sample. A count
 * is a number of samples, each worth one period of CPU time: a sample at
 * 97 Hz is worth about 52 at 4999 Hz, and counts taken at both would be
 * added as if equal, under the one frequency snapshots and readers are
 * told. Counting time instead would change the ABI, the text and every
 * reader; so a new frequency waits for a reset (or a clearing snapshot).
 * Every other field may change at any time: depth, filters, modes and
 * CPUs change which samples are kept and how they are keyed, never what
 * a sample is worth.
 *
 * Context: process context, ctl_lock held.
 * Return: 0, -EPERM when lockdown withholds kernel stacks and @cfg asks
 * for nothing else, -EBUSY when @cfg changes the frequency and samples
 * were taken since the last reset, or the error of fst_start().
 */
int fst_set_config(const struct fst_cfg *cfg)
{
	bool was_running = sess.sampler.running;
	/* A count in a new unit: like a new frequency, only when empty. */
	bool new_freq = cfg->freq != sess.sampler.cfg.freq ||
			cfg->mode != sess.sampler.cfg.mode;
	int err;

	lockdep_assert_held(&sess.ctl_lock);
	if (was_running && fst_locked_down() &&
	    !(cfg->flags & FLAMESTAT_CFG_USER))
		return -EPERM;
	if (new_freq && fst_have_samples())
		return -EBUSY;
	fst_stop();
	/* A timer may have fired between that look and the stop. */
	if (new_freq && was_running && fst_have_samples()) {
		err = fst_start();
		return err ?: -EBUSY;
	}
	sess.sampler.cfg = *cfg;
	/* Stopped in CPU mode: nothing for the probes to do. */
	if (!fst_cfg_offcpu(cfg))
		fst_offcpu_detach(&sess.sampler);
	return was_running ? fst_start() : 0;
}

/**
 * fst_set_freq() - change the sampling frequency
 * @hz: samples per second per CPU
 *
 * Context: process context, ctl_lock held.
 * Return: 0, -EINVAL out of range, -ENOMEM, or the error of
 * fst_set_config(): -EBUSY when @hz is a new frequency and samples were
 * taken since the last reset.
 */
int fst_set_freq(u32 hz)
{
	struct fst_cfg *cfg;
	int err;

	if (hz < FLAMESTAT_MIN_FREQ || hz > FLAMESTAT_MAX_FREQ)
		return -EINVAL;
	cfg = kmemdup(&sess.sampler.cfg, sizeof(*cfg), GFP_KERNEL);
	if (!cfg)
		return -ENOMEM;
	fst_cfg_set_freq(cfg, hz);
	err = fst_set_config(cfg);
	kfree(cfg);
	return err;
}

/**
 * fst_set_mode() - change what is measured
 * @mode: an enum flamestat_mode
 *
 * Context: process context, ctl_lock held.
 * Return: 0, -ENOMEM, or the error of fst_set_config(): -EBUSY when @mode
 * is a new mode and anything was recorded since the last reset.
 */
int fst_set_mode(u32 mode)
{
	struct fst_cfg *cfg;
	int err;

	cfg = kmemdup(&sess.sampler.cfg, sizeof(*cfg), GFP_KERNEL);
	if (!cfg)
		return -ENOMEM;
	fst_cfg_set_mode(cfg, mode);
	err = fst_set_config(cfg);
	kfree(cfg);
	return err;
}

/**
 * fst_reset() - forget every sample, counter and process
 *
 * The configuration stays; sampling pauses for the switch if it was
 * running.
 *
 * Context: process context, ctl_lock held.
 * Return: 0, -ENOMEM, or the error of fst_start().
 */
int fst_reset(void)
{
	struct fst_sampler *s = &sess.sampler;
	bool was_running = s->running;
	struct fst_procdb *old, *db;

	lockdep_assert_held(&sess.ctl_lock);
	db = fst_procdb_create(sess.max_procs, sess.maps_bytes,
			       sess.unwind_bytes);
	if (!db)
		return -ENOMEM;
	/* If the module's loader had none (a kernel thread), the reader's. */
	fst_procdb_eh_vdso(db);
	fst_stop();
	mutex_lock(&sess.agg.lock);
	fst_drain(&sess.agg);
	fst_table_clear(&sess.agg.table);
	old = s->procdb;
	s->procdb = db;
	/* No timer runs: the caches may be written from here. */
	fst_sampler_forget_procs(s);
	sess.run_total_ns = 0;
	/* Their samples are forgotten too: nothing comes back. */
	sess.clears_out = 0;
	mutex_unlock(&sess.agg.lock);
	fst_procdb_put(old);
	return was_running ? fst_start() : 0;
}

/**
 * fst_may_control() - may this file change the session's state?
 * @file: the caller's open device
 *
 * Context: process context, ctl_lock held.
 * Return: 0, -EBADF when not opened for writing, or -EBUSY while another
 * file holds the claim.
 */
int fst_may_control(struct file *file)
{
	lockdep_assert_held(&sess.ctl_lock);
	if (!(file->f_mode & FMODE_WRITE))
		return -EBADF;
	if (sess.claim && sess.claim != file)
		return -EBUSY;
	return 0;
}

/**
 * fst_claim() - reserve control of the session for one file
 * @file: the file, which passed fst_may_control()
 *
 * Context: process context, ctl_lock held.
 */
void fst_claim(struct file *file)
{
	lockdep_assert_held(&sess.ctl_lock);
	sess.claim = file;
}

/**
 * fst_claim_force() - take control of the session from whoever holds it
 * @file: the file, opened for writing by CAP_SYS_ADMIN
 *
 * Context: process context, ctl_lock held.
 * Return: the file that held the claim, alive while ctl_lock is held, or
 * NULL (none, or @file itself).
 */
struct file *fst_claim_force(struct file *file)
{
	struct file *prev;

	lockdep_assert_held(&sess.ctl_lock);
	prev = sess.claim;
	sess.claim = file;
	return prev == file ? NULL : prev;
}

/**
 * fst_unclaim() - give control back
 * @file: the file holding the claim
 *
 * Context: process context, ctl_lock held.
 * Return: 0, or -EINVAL when @file does not hold it.
 */
int fst_unclaim(struct file *file)
{
	lockdep_assert_held(&sess.ctl_lock);
	if (sess.claim != file)
		return -EINVAL;
	sess.claim = NULL;
	return 0;
}

/**
 * fst_release_file() - a file is closed: drop its claim if it held one
 * @file: the file
 *
 * Context: process context; takes ctl_lock.
 */
void fst_release_file(struct file *file)
{
	mutex_lock(&sess.ctl_lock);
	fst_unclaim(file);	/* -EINVAL: it held none */
	mutex_unlock(&sess.ctl_lock);
}

/**
 * fst_get_config() - the configuration in force, in the ABI's form
 * @u: the result
 *
 * Context: process context, ctl_lock held.
 */
void fst_get_config(struct flamestat_config *u)
{
	lockdep_assert_held(&sess.ctl_lock);
	fst_cfg_to_user(&sess.sampler.cfg, u);
}

/**
 * fst_running() - is sampling running?
 *
 * Context: any; the answer may be stale unless ctl_lock is held.
 * Return: true while the timers run.
 */
bool fst_running(void)
{
	return READ_ONCE(sess.sampler.running);
}

/**
 * fst_copy_take() - a reader's private copy of every sample so far
 * @copy: the copy, released with fst_copy_release()
 * @clear: the merged table and its counters restart from zero, so that
 *	consecutive copies partition the samples
 *
 * Folds every CPU's samples in first, with the processes' current maps.
 *
 * Context: process context; takes ctl_lock and the drain's lock.
 * Return: 0, -ENOMEM, or -ENOBUFS when readers hold reader_kb already.
 */
int fst_copy_take(struct fst_copy *copy, bool clear)
{
	struct fst_table *agg = &sess.agg.table;
	struct fst_procdb *db;
	int err = 0;

	memset(copy, 0, sizeof(*copy));
	/* Current maps first, so the copy's user frames resolve. */
	mutex_lock(&sess.agg.lock);
	db = sess.sampler.procdb;
	fst_procdb_get(db);
	mutex_unlock(&sess.agg.lock);
	fst_procdb_maintain(db, true);
	fst_procdb_put(db);

	mutex_lock(&sess.ctl_lock);
	mutex_lock(&sess.agg.lock);
	fst_drain(&sess.agg);
	copy->charged = max_t(size_t, agg->used, 1) * sizeof(u64);
	err = fst_reader_charge(copy->charged);
	if (err) {
		copy->charged = 0;
		goto out;
	}
	/* A reader's copy may fail, but never wake the OOM killer. */
	copy->arena = __vmalloc(copy->charged, FST_GFP_READER);
	if (!copy->arena) {
		fst_reader_uncharge(copy->charged);
		copy->charged = 0;
		err = -ENOMEM;
		goto out;
	}
	memcpy(copy->arena, agg->arena, agg->used * sizeof(u64));
	copy->used = agg->used;
	copy->nr_entries = agg->nr_entries;
	copy->counts = agg->counts;
	copy->procdb = sess.sampler.procdb;
	fst_procdb_get(copy->procdb);
	copy->cfg = sess.sampler.cfg;
	copy->running_ns = fst_running_ns();
	copy->boottime_ns = ktime_get_boottime_ns();
	copy->lockdown = sess.sampler.lockdown || fst_locked_down();
	copy->nr_cpus = fst_sampler_nr_cpus(&sess.sampler);
	if (clear) {
		fst_table_clear(agg);
		sess.run_total_ns = 0;
		if (sess.sampler.running)
			sess.run_start_ns = ktime_get_ns();
		copy->cleared = true;
		sess.clears_out++;
	}
out:
	mutex_unlock(&sess.agg.lock);
	mutex_unlock(&sess.ctl_lock);
	return err;
}

/**
 * fst_copy_restore() - give a cleared copy's samples back to the session
 * @copy: a copy fst_copy_take() took with @clear, that no reader got
 *
 * A CLEAR snapshot that fails after the samples were taken (no memory for
 * the snapshot itself) must not lose them: they go back into the merged
 * table, with their counters and running time, to be read next time.
 * Unless the session was reset since: that forgets them anyway (the copy
 * holds the old process database, so a new one is never at its address).
 * Until the copy is released (fst_copy_release(), called once after
 * this), the session counts as holding samples, so that no new frequency
 * or mode comes in between (fst_set_config()); a reset ends that.
 * Nothing happens for a copy that cleared nothing.
 *
 * Context: process context; takes ctl_lock and the drain's lock.
 */
void fst_copy_restore(struct fst_copy *copy)
{
	if (!copy->cleared)
		return;
	mutex_lock(&sess.ctl_lock);
	mutex_lock(&sess.agg.lock);
	if (copy->procdb == sess.sampler.procdb) {
		fst_merge_arena(&sess.agg, &copy->counts, copy->arena,
				copy->used);
		sess.run_total_ns += copy->running_ns;
	}
	mutex_unlock(&sess.agg.lock);
	mutex_unlock(&sess.ctl_lock);
}

/**
 * fst_copy_release() - free a reader's copy
 * @copy: the copy; left zeroed
 *
 * Context: process context; takes ctl_lock for a CLEAR copy.
 */
void fst_copy_release(struct fst_copy *copy)
{
	if (copy->cleared) {
		mutex_lock(&sess.ctl_lock);
		/* Restored or not; not reset since (a reset zeroes the count). */
		if (copy->procdb == sess.sampler.procdb)
			sess.clears_out--;
		mutex_unlock(&sess.ctl_lock);
	}
	vfree(copy->arena);
	fst_reader_uncharge(copy->charged);
	fst_procdb_put(copy->procdb);
	memset(copy, 0, sizeof(*copy));
}

/**
 * fst_get_stats() - the session's counters, state and memory
 * @st: the result
 *
 * Exact: folds every CPU's pending samples in first.
 *
 * Context: process context; takes ctl_lock and the drain's lock.
 */
void fst_get_stats(struct flamestat_stats *st)
{
	struct fst_sampler *s = &sess.sampler;
	struct fst_table *agg = &sess.agg.table;
	struct fst_procdb *db;
	unsigned int cpu, i;
	u64 used = 0, total = 0;

	memset(st, 0, sizeof(*st));
	mutex_lock(&sess.ctl_lock);
	mutex_lock(&sess.agg.lock);
	fst_drain(&sess.agg);
	fst_stats_fill(st, &agg->counts);
	st->stacks = agg->nr_entries;
	db = s->procdb;
	/* Slots in use: handed out, less those freed for reuse. */
	st->procs = min_t(u32, atomic_read(&db->nr_procs), db->max_procs) -
		    (READ_ONCE(db->free_tail) - (u32)atomic_read(&db->free_head));
	st->procs_recycled = READ_ONCE(db->nr_recycled);
	st->procs_max = db->max_procs;
	st->buildid_uncached = READ_ONCE(db->nr_buildid_uncached);
	st->maps_busy = READ_ONCE(db->nr_maps_busy);
	st->maps_truncated = READ_ONCE(db->nr_maps_truncated);
	st->unwind_tables = READ_ONCE(db->nr_eh_tables);
	st->unwind_bytes = atomic_long_read(&db->eh_used);
	st->unwind_uncached = READ_ONCE(db->nr_eh_uncached);
	for (i = 0; i < FLAMESTAT_NR_UNWIND_FAILS; i++)
		st->unwind_failed[i] = READ_ONCE(db->eh_failed[i]);
	st->reader_mem = fst_reader_mem_used();
	st->offcpu_tasks = fst_offcpu_blocked(s);
	st->offcpu_tasks_max = fst_cfg_offcpu(&s->cfg) ? sess.offcpu_tasks : 0;

	cpus_read_lock();
	for_each_possible_cpu(cpu) {
		struct fst_cpu *c = per_cpu_ptr(s->cpus, cpu);

		if (!c->ready)
			continue;
		total += fst_table_bytes(&c->tab[0]) +
			 fst_table_bytes(&c->tab[1]) + c->held;
		used += (c->tab[0].used + c->tab[1].used) * sizeof(u64) +
			c->held;
	}
	cpus_read_unlock();
	st->nr_cpus = s->running ? fst_sampler_nr_cpus(s) : 0;
	total += fst_table_bytes(agg) + fst_procdb_bytes(db) + db->mem_max +
		 db->eh_max + fst_offcpu_bytes(s);
	/*
	 * Every unwind table, the database's own, kept ones and any other's,
	 * within unwind_kb (eh_max).
	 */
	used += agg->used * sizeof(u64) + fst_procdb_bytes(db) +
		atomic_long_read(&db->mem_used) + fst_procdb_eh_held() +
		fst_offcpu_bytes(s);
	st->mem_used = used;
	st->mem_total = total;
	st->running_ns = fst_running_ns();
	st->state = (s->running ? FLAMESTAT_STATE_RUNNING : 0) |
		    (s->lockdown || fst_locked_down() ?
		     FLAMESTAT_STATE_LOCKDOWN : 0) |
		    (sess.claim ? FLAMESTAT_STATE_CLAIMED : 0) |
		    (s->running && fst_sampler_throttled(s) ?
		     FLAMESTAT_STATE_THROTTLED : 0);
	mutex_unlock(&sess.agg.lock);
	mutex_unlock(&sess.ctl_lock);
}

/* CPU hotplug, on the CPU coming up, process context. */
static int fst_cpu_online(unsigned int cpu)
{
	struct fst_sampler *s = &sess.sampler;

	/* A CPU without memory for its tables is not sampled, not refused. */
	if (!fst_sampler_cpu_alloc(s, cpu, sess.pcpu_bytes,
				   sess.max_depth_words)) {
		fst_sampler_start_this_cpu(s);
		fst_offcpu_cpu_online(s);
	}
	return 0;
}

/* CPU hotplug, on the CPU going down. Its tables are drained later. */
static int fst_cpu_offline(unsigned int cpu)
{
	fst_sampler_stop_cpu(&sess.sampler, cpu);
	fst_offcpu_cpu_offline(&sess.sampler);
	return 0;
}

/*
 * What the limits make us allocate -- the merged table, every possible
 * CPU's two tables, the process database and its maps -- must stay below
 * half of the RAM: a vmalloc() of more than there is warns with a stack
 * dump, and one of nearly all of it wakes the OOM killer.
 */
static int fst_check_memory(const struct fst_limits *lim)
{
	u64 need = (u64)lim->table_kb * 1024 +
		   2ULL * sess.pcpu_bytes * num_possible_cpus() +
		   (u64)lim->max_procs * (sizeof(struct fst_proc) +
					  3 * sizeof(u32) + sizeof(void *)) +
		   (u64)lim->maps_kb * 1024 + (u64)lim->unwind_kb * 1024;
	u64 ram = (u64)totalram_pages() << PAGE_SHIFT;

	if (need <= ram / 2)
		return 0;
	pr_err("table_kb, pcpu_kb (x2 x %u CPUs), max_procs, maps_kb and unwind_kb need %llu MiB, more than half of the %llu MiB of RAM\n",
	       num_possible_cpus(), need >> 20, ram >> 20);
	return -ENOMEM;
}

/**
 * fst_session_init() - allocate the session, stopped
 * @cfg: the initial configuration
 * @lim: memory limits, all allocated here or when a CPU comes online
 *
 * Context: process context (module init).
 * Return: 0, -EINVAL for insane limits, or -ENOMEM.
 */
int fst_session_init(const struct fst_cfg *cfg, const struct fst_limits *lim)
{
	struct fst_sampler *s = &sess.sampler;
	int err;

	mutex_init(&sess.ctl_lock);
	s->cfg = *cfg;
	if (!lim->pcpu_kb || !lim->table_kb || !lim->max_procs ||
	    !lim->maps_kb || lim->max_procs > (1U << 24) ||
	    lim->pcpu_kb > (1U << 22) || lim->table_kb > (1U << 24) ||
	    lim->maps_kb > (1U << 24) || lim->unwind_kb > (1U << 24)) {
		pr_err("pcpu_kb, table_kb, max_procs and maps_kb must be > 0 and sane, unwind_kb at most 16 GiB\n");
		return -EINVAL;
	}
	if (lim->offcpu_tasks < 16 || lim->offcpu_tasks > (1U << 20)) {
		pr_err("offcpu_tasks must be 16..1048576\n");
		return -EINVAL;
	}
	if (lim->kstack_cache > FST_KCACHE_CHECK) {
		pr_err("kstack_cache must be 0, 1 or 2\n");
		return -EINVAL;
	}
	sess.offcpu_tasks = lim->offcpu_tasks;
	sess.pcpu_bytes = (size_t)lim->pcpu_kb * 1024;
	s->cost_pct = lim->cpu_max_percent;
	sess.max_depth_words = FST_ENTRY_HDR_WORDS +
			       FLAMESTAT_MAX_KERNEL_DEPTH +
			       FLAMESTAT_MAX_USER_DEPTH;
	sess.max_procs = lim->max_procs;
	sess.maps_bytes = (long)lim->maps_kb * 1024;
	sess.unwind_bytes = (long)lim->unwind_kb * 1024;
	err = fst_check_memory(lim);
	if (err)
		return err;
	fst_clock_init();
	fst_kcache_set_mode(lim->kstack_cache);
	fst_kcache_learn_entry();
	fst_offcpu_init();

	err = fst_sampler_init(s, &sess.agg.work);
	if (err)
		return err;
	err = fst_agg_init(&sess.agg, s, (size_t)lim->table_kb * 1024);
	if (err)
		goto out_free_sampler;
	s->procdb = fst_procdb_create(sess.max_procs, sess.maps_bytes,
				      sess.unwind_bytes);
	if (!s->procdb) {
		err = -ENOMEM;
		goto out_free_agg;
	}
	/* The loader's vDSO is every 64-bit process's. */
	fst_procdb_eh_vdso(s->procdb);
	err = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "flamestat:online",
				fst_cpu_online, fst_cpu_offline);
	if (err < 0)
		goto out_put_procdb;
	sess.cpuhp_state = err;
	return 0;

out_put_procdb:
	fst_procdb_put(s->procdb);
out_free_agg:
	fst_agg_free(&sess.agg);
out_free_sampler:
	fst_sampler_free(s);
	return err;
}

/**
 * fst_session_exit() - stop sampling and free everything
 *
 * Context: process context (module exit); no file is open any more.
 */
void fst_session_exit(void)
{
	mutex_lock(&sess.ctl_lock);
	fst_stop();
	/* No probe may run once the module's text is gone. */
	fst_offcpu_detach(&sess.sampler);
	mutex_unlock(&sess.ctl_lock);
	cpuhp_remove_state(sess.cpuhp_state);
	fst_agg_free(&sess.agg);
	fst_procdb_put(sess.sampler.procdb);
	fst_sampler_free(&sess.sampler);
	/* The databases gone, the tables they left for their successors. */
	fst_procdb_eh_kept_free();
}
