// SPDX-License-Identifier: GPL-2.0
/*
 * The sampler: a pinned hard-irq hrtimer per CPU that classifies each
 * firing, walks the interrupted stacks and counts the result in the CPU's
 * active table. Every firing ends up either in a stack or in a drop counter.
 */
#include <linux/hardirq.h>
#include <linux/jiffies.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/percpu.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/task_stack.h>
#include <linux/string.h>
#include <asm/irq_regs.h>
#include <asm/msr.h>
#include <asm/tsc.h>

#include "compat.h"
#include "flamestat.h"

/* Hard-irq: does @task belong to a configured process (or its subtree)? */
static bool fst_pid_match(const struct fst_cfg *cfg, struct task_struct *task)
{
	struct task_struct *t = task;
	bool match = false;
	int depth;
	u32 i;

	rcu_read_lock();
	for (depth = 0; depth < 64; depth++) {
		for (i = 0; i < cfg->nr_pids; i++) {
			if (t->tgid == cfg->pids[i]) {
				match = true;
				goto out;
			}
		}
		if (!(cfg->flags & FLAMESTAT_CFG_PID_TREE) || t->pid <= 1)
			break;
		t = rcu_dereference(t->real_parent);
	}
out:
	rcu_read_unlock();
	return match;
}

/*
 * Hard-irq (hrtimer): must not sleep, allocate or take locks. Returns the
 * proc id of @task's address space, creating it on first sight; 0 when the
 * table is full. The per-CPU cache is valid while db->gen is unchanged:
 * retiring an index entry bumps it before the mm may be freed and reused.
 * Inline: nearly every sample hits the cache.
 */
static __always_inline u32 fst_procdb_lookup(struct fst_procdb *db,
					    struct fst_cpu *c,
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
	if (likely(c->cache_mm == mm && c->cache_db == db &&
		   c->cache_gen == gen))
		id = c->cache_id;
	else
		id = fst_procdb_lookup_miss(db, c, task, mm, gen, compat);
	if (id) {
		p = &db->procs[id - 1];
		/* Written once per tick at most, to spare the cache line. */
		if (READ_ONCE(p->last_seen) != now)
			WRITE_ONCE(p->last_seen, now);
	}
	return id;
}

static void fst_drop(struct fst_table *t, enum flamestat_drop why)
{
	t->counts.dropped[why]++;
}

/* The stack flags with a counter of their own in struct fst_counts. */
#define FST_STACKF_COUNTED (FLAMESTAT_STACKF_KERNEL_TRUNCATED |		\
			   FLAMESTAT_STACKF_USER_TRUNCATED |		\
			   FLAMESTAT_STACKF_USER_FAULT |		\
			   FLAMESTAT_STACKF_COMPAT |			\
			   FLAMESTAT_STACKF_IDLE_IRQ)

/* Hard-irq. A recorded sample that is marked: count what marks it. */
static void fst_count_marks(struct fst_counts *cnt, u32 flags, bool unmapped)
{
	cnt->kernel_truncated += !!(flags & FLAMESTAT_STACKF_KERNEL_TRUNCATED);
	cnt->user_truncated += !!(flags & FLAMESTAT_STACKF_USER_TRUNCATED);
	cnt->user_fault += !!(flags & FLAMESTAT_STACKF_USER_FAULT);
	cnt->user_compat += !!(flags & FLAMESTAT_STACKF_COMPAT);
	cnt->idle_irq += !!(flags & FLAMESTAT_STACKF_IDLE_IRQ);
	cnt->unmapped_procs += unmapped;
}

/*
 * Hard-irq (hrtimer): must not sleep, allocate or take sleeping locks.
 * Takes one sample on this CPU into table @t.
 */
static void fst_sample(struct fst_cpu *c, struct fst_table *t)
{
	const struct fst_cfg *cfg = &fs.cfg;
	struct pt_regs *regs = get_irq_regs(), *uregs = NULL;
	struct task_struct *task = current;
	struct fst_entry *key = c->scratch;
	bool want_kernel, want_user, kthread, umode;
	unsigned int nk = 0, nu = 0;
	u64 hash = FST_HASH_SEED;
	u32 flags = 0;
	int added;

	if (!regs) {
		fst_drop(t, FLAMESTAT_DROP_NO_REGS);
		return;
	}
	umode = user_mode(regs);
	if (is_idle_task(task)) {
		/*
		 * Our own interrupt accounts for one HARDIRQ_OFFSET; anything
		 * more, or a softirq being served, is real work done on an
		 * idle CPU, which is never hidden as idle.
		 */
		if (in_serving_softirq() || hardirq_count() > HARDIRQ_OFFSET)
			flags |= FLAMESTAT_STACKF_IDLE_IRQ;
		else if (cfg->flags & FLAMESTAT_CFG_IDLE)
			flags |= FLAMESTAT_STACKF_IDLE;
		else
			goto drop_idle;
	}
	if (cfg->nr_pids && !fst_pid_match(cfg, task)) {
		fst_drop(t, FLAMESTAT_DROP_FILTERED);
		return;
	}

	kthread = !task->mm || (task->flags & PF_KTHREAD);
#ifdef PF_IO_WORKER
	kthread |= !!(task->flags & PF_IO_WORKER);
#endif
	if (kthread)
		flags |= FLAMESTAT_STACKF_KERNEL_THREAD;
	if (umode) {
		uregs = regs;
		flags |= FLAMESTAT_STACKF_USER_MODE;
	} else if (!kthread && !fst_task_in_execve(task)) {
		uregs = task_pt_regs(task);
	}
	want_kernel = (cfg->flags & FLAMESTAT_CFG_KERNEL) && !umode;
	want_user = (cfg->flags & FLAMESTAT_CFG_USER) && uregs;
	if (!want_kernel && !want_user) {
		fst_drop(t, FLAMESTAT_DROP_MODE);
		return;
	}

	if (want_kernel && fs.lockdown) {
		/*
		 * Time in the kernel stays visible as such, one opaque frame
		 * that readers show as [withheld]; where in the kernel is not
		 * recorded at all.
		 */
		key->frames[0] = 0;
		nk = 1;
	} else if (want_kernel) {
		nk = fst_walk_kernel(regs, key->frames, cfg->kernel_depth,
				    &flags);
	}
	if (nk)
		hash = fst_hash_frames(hash, key->frames, nk);
	key->proc_id = 0;
	if (want_user) {
		nu = fst_walk_user(uregs, umode, key->frames + nk,
				  cfg->user_depth, &flags, &hash);
		key->proc_id = fst_procdb_lookup(fs.procdb, c, task,
						flags & FLAMESTAT_STACKF_COMPAT);
	}

	key->tgid = task->tgid;
	key->cpu = (cfg->flags & FLAMESTAT_CFG_PERCPU) ? c->cpu :
		   FLAMESTAT_CPU_ANY;
	key->nr_kernel = nk;
	key->nr_user = nu;
	key->pad = 0;
	key->pad2 = 0;
	key->flags = flags;
	memcpy(key->comm, task->comm, sizeof(key->comm));
	key->comm[sizeof(key->comm) - 1] = '\0';
	key->hash = fst_entry_hash_with(key, hash);

	added = fst_table_add(t, key, 1);
	if (added < 0) {
		fst_drop(t, FLAMESTAT_DROP_CPU_TABLE_FULL);
	} else {
		if (added && key->proc_id)
			fst_procdb_check_frames(fs.procdb, key->proc_id,
					       &key->frames[nk], nu);
		t->counts.recorded++;
		if (unlikely((flags & FST_STACKF_COUNTED) ||
			     (want_user && !key->proc_id)))
			fst_count_marks(&t->counts, flags,
				       want_user && !key->proc_id);
	}

	/* Ask for an early drain before the table fills up. */
	if (!c->drain_kicked && t->used > t->arena_words / 2) {
		c->drain_kicked = true;
		fst_kick_drain();
	}
	return;

drop_idle:
	fst_drop(t, FLAMESTAT_DROP_IDLE);
}

/*
 * The sampler's own cost is read from the TSC, a few instructions, rather
 * than sched_clock(), whose scaling costs more than the rest of the
 * accounting (fst_cost_init()).
 */
static __always_inline u64 fst_cost_clock(void)
{
	return fs.cost_tsc_mult ? rdtsc() : sched_clock();
}

static __always_inline u64 fst_cost_ns(u64 delta)
{
	return fs.cost_tsc_mult ?
	       mul_u64_u32_shr(delta, fs.cost_tsc_mult, 24) : delta;
}

/* Process context, at load: TSC cycles to ns when the TSC can be used. */
void fst_cost_init(void)
{
	fs.cost_tsc_mult = 0;
	if (boot_cpu_has(X86_FEATURE_TSC) && tsc_khz)
		fs.cost_tsc_mult = div_u64((u64)NSEC_PER_MSEC << 24, tsc_khz);
}

static void fst_account_cost(struct fst_counts *cnt, u64 ns)
{
	unsigned int b = ns < 64 ? 0 : min(ilog2(ns) - 5,
					   FLAMESTAT_COST_BUCKETS - 1);

	cnt->cost_ns += ns;
	cnt->cost_hist[b]++;
	if (ns > cnt->cost_max_ns)
		cnt->cost_max_ns = ns;
}

/* Hard-irq (hrtimer): must not sleep, allocate or take sleeping locks. */
enum hrtimer_restart fst_timer_fn(struct hrtimer *timer)
{
	struct fst_cpu *c = container_of(timer, struct fst_cpu, timer);
	struct fst_table *t;
	u64 t0, missed;

	if (!READ_ONCE(fs.running))
		return HRTIMER_NORESTART;
	t0 = fst_cost_clock();
	missed = hrtimer_forward_now(timer, ns_to_ktime(fs.cfg.period_ns));
	t = &c->tab[c->active];
	t->counts.samples++;
	if (missed > 1)
		t->counts.overruns += missed - 1;
	fst_sample(c, t);
	fst_account_cost(&t->counts, fst_cost_ns(fst_cost_clock() - t0));
	return HRTIMER_RESTART;
}

/*
 * IPI, hard-irq, on the CPU whose tables are swapped: runs with interrupts
 * off, so it can never interleave with that CPU's timer callback.
 */
void fst_cpu_swap(void *unused)
{
	struct fst_cpu *c = this_cpu_ptr(fst_cpus);

	c->active ^= 1;
	c->drain_kicked = false;
}

/* IPI or CPU-online callback, on the CPU whose timer is started. */
void fst_cpu_start_timer(void *unused)
{
	struct fst_cpu *c = this_cpu_ptr(fst_cpus);

	if (!c->ready || !cpumask_test_cpu(c->cpu, &fs.cfg.cpus))
		return;
	hrtimer_start(&c->timer, ns_to_ktime(fs.cfg.period_ns),
		      HRTIMER_MODE_REL_PINNED_HARD);
}
