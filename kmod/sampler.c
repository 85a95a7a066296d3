// SPDX-License-Identifier: GPL-2.0
/*
 * The sampler: a pinned hard-irq hrtimer per CPU that classifies each
 * firing, walks the interrupted stacks and counts the result in the CPU's
 * active table. Every firing ends up either in a stack or in a drop counter.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/hardirq.h>
#include <linux/jiffies.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/percpu.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <asm/irq_regs.h>

#include "arch.h"
#include "compat.h"
#include "ehtab.h"
#include "kstack_cache.h"
#include "sampler.h"

/* The rate falls at most to 1/256 of the frequency (about 4 Hz at 997). */
#define FST_SKIP_MAX	256

/**
 * fst_pid_match() - does a task belong to a configured process or subtree?
 * @cfg: the configuration, with nr_pids > 0
 * @task: the task
 *
 * Both callers run with preemption off, an RCU-sched read side: no
 * rcu_read_unlock() inside the scheduler, which with preemptible RCU may
 * want to report to the scheduler itself.
 *
 * Context: hard-irq (the timer) or the scheduler (off-CPU probes).
 * Return: true if @task's process, or with CFG_PID_TREE an ancestor's, is
 * in @cfg's pids.
 */
bool fst_pid_match(const struct fst_cfg *cfg, struct task_struct *task)
{
	struct task_struct *t = task;
	bool match = false;
	int depth;
	u32 i;

	for (depth = 0; depth < 64; depth++) {
		for (i = 0; i < cfg->nr_pids; i++) {
			if (t->tgid == cfg->pids[i]) {
				match = true;
				goto out;
			}
		}
		if (!(cfg->flags & FLAMESTAT_CFG_PID_TREE) || t->pid <= 1)
			break;
		t = rcu_dereference_sched(t->real_parent);
	}
out:
	return match;
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
 * Hard-irq, or the sched_switch probe with interrupts off: @key was counted
 * in table @t. Counts it as recorded, and what marks it.
 */
static __always_inline void fst_sample_recorded(struct fst_table *t,
						const struct fst_entry *key,
						bool unmapped)
{
	t->counts.recorded++;
	t->counts.unwind[(key->flags / FLAMESTAT_STACKF_UNWIND_TABLE) & 3]++;
	if (unlikely((key->flags & FST_STACKF_COUNTED) || unmapped))
		fst_count_marks(&t->counts, key->flags, unmapped);
}

/*
 * Hard-irq, or the sched_switch probe with interrupts off: @key went into
 * table @t (fst_table_add(): @added 1 new, 0 counted on an existing entry,
 * negative dropped). Counts what was recorded and how it is marked, asks
 * for a rescan when a new stack's user frames lie outside its process's
 * maps, and for an early drain when the table fills up.
 */
static void fst_sample_added(struct fst_cpu *c, struct fst_table *t,
			     const struct fst_entry *key, int added,
			     bool unmapped)
{
	if (added < 0) {
		fst_drop(t, added == -E2BIG ? FLAMESTAT_DROP_PROBE :
			 FLAMESTAT_DROP_CPU_TABLE_FULL);
	} else {
		if (added && key->proc_id)
			fst_procdb_check_frames(c->s->procdb, key->proc_id,
						&key->frames[key->nr_kernel],
						key->nr_user);
		fst_sample_recorded(t, key, unmapped);
	}
	fst_cpu_table_grew(c, t);
}

#ifdef FST_ARCH_HAVE_KSLOTS
/*
 * Hard-irq (hrtimer): must not sleep, allocate or take sleeping locks.
 * kstack_cache=2: a stack the cache recognised (@n frames in @frames) is
 * walked as well, as deep as to tell a deeper one, and a difference
 * counted.
 */
static void fst_sample_kcheck(struct fst_kcache *kc, struct pt_regs *regs,
			      const u64 *frames, unsigned int n,
			      unsigned int max)
{
	u64 *walk = (u64 *)kc->walk_slots;
	unsigned int vmax = min_t(unsigned int, max, FST_KCACHE_FRAMES + 2);
	unsigned int n2;
	u32 flags = 0;

	BUILD_BUG_ON(FST_KCACHE_FRAMES + 2 > FST_KCACHE_WALK);
	n2 = fst_walk_kernel(regs, walk, vmax, &flags);
	fst_kcache_count(FST_KCACHE_SAMPLE, 0, 0,
			 n2 != n || flags || memcmp(walk, frames, n * sizeof(u64)));
}
#endif

/*
 * Hard-irq (hrtimer): must not sleep, allocate or take sleeping locks.
 * The interrupted kernel stack, as fst_walk_kernel() walks it, through this
 * CPU's cache of kernel stacks where it has one (kstack_cache.c): a stack
 * met before at the same interrupted PC is read from the cache; another is
 * walked with the places of its return addresses, and kept.
 */
static unsigned int fst_sample_kstack(struct fst_cpu *c, struct pt_regs *regs,
				      u64 *frames, unsigned int max,
				      u32 *flags)
{
#ifdef FST_ARCH_HAVE_KSLOTS
	struct fst_kcache *kc = c->kcache;
	unsigned long anchor, pc = instruction_pointer(regs);
	const struct fst_hash *h;
	unsigned int n, lim;
	bool complete;
	int hit;

	anchor = kc && max > 1 ? fst_kcache_regs_anchor(regs) : 0;
	if (anchor) {
		/* frames[0] is the interrupted PC, the callers after it */
		hit = fst_kcache_lookup(kc, FST_KCACHE_KIND_SAMPLE, pc, anchor,
					frames + 1, max - 1, &h);
		if (hit >= 0) {
			frames[0] = pc;
			fst_kcache_count(FST_KCACHE_SAMPLE, 1, 0, 0);
			if (fst_kcache_mode == FST_KCACHE_CHECK)
				fst_sample_kcheck(kc, regs, frames, hit + 1,
						  max);
			return hit + 1;
		}
		lim = min_t(unsigned int, max - 1, FST_KCACHE_WALK);
		n = fst_walk_kernel_slots(regs, frames + 1, kc->walk_slots,
					  lim, &complete);
		/* Cut by the cache's room, short of @max: walked again, whole. */
		if (!complete && lim < max - 1)
			goto walk;
		frames[0] = pc;
		fst_kcache_count(FST_KCACHE_SAMPLE, 0, 1, 0);
		if (complete)
			fst_kcache_store(kc, FST_KCACHE_KIND_SAMPLE, pc, anchor,
					 frames + 1, kc->walk_slots, n);
		else
			*flags |= FLAMESTAT_STACKF_KERNEL_TRUNCATED;
		return n + 1;
	}
walk:
#endif
	return fst_walk_kernel(regs, frames, max, flags);
}

/*
 * Hard-irq (hrtimer): must not sleep, allocate or take sleeping locks.
 * Takes one sample on this CPU into table @t, worth @periods periods.
 */
static void fst_sample(struct fst_cpu *c, struct fst_table *t, u64 periods)
{
	struct fst_sampler *s = c->s;
	const struct fst_cfg *cfg = &s->cfg;
	struct pt_regs *regs = get_irq_regs(), *uregs = NULL;
	struct task_struct *task = current;
	struct fst_entry *key = c->scratch;
	bool want_kernel, want_user, kthread, umode;
	unsigned int nk = 0, nu = 0;
	struct fst_walk_info wi;
	struct fst_entry *e;
	bool same_chain;
	u32 flags = 0, at;
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

	/*
	 * Kernel workers that own a process's mm run kernel code only, and
	 * their user registers are not theirs: io_uring's iou-wrk threads
	 * (PF_IO_WORKER, 5.12+) and, from 6.4, vhost's (PF_USER_WORKER, which
	 * io_uring's carry too). Both flags are macros: #ifdef tests them.
	 *
	 * An io-wq worker on its way out clears its own PF_IO_WORKER
	 * (io_worker_exit()) and keeps the mm until do_exit()'s exit_mm();
	 * before 6.4 no other flag marks it. Its user registers are still
	 * what copy_thread() gave it, the creator's with the instruction and
	 * stack pointers zeroed (older kernels zero them all): a task that
	 * came into the kernel from user space never has both zero, short
	 * of running code at address 0 with no stack.
	 */
	kthread = fst_task_kernel_only(task, !umode);
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

	if (want_kernel && s->lockdown) {
		/*
		 * Time in the kernel stays visible as such, one opaque frame
		 * that readers show as [withheld]; where in the kernel is not
		 * recorded at all.
		 */
		key->frames[0] = 0;
		nk = 1;
	} else if (want_kernel) {
		/*
		 * The scratch key has room for the deepest kernel and user
		 * stacks; the walk's scratch beyond kernel_depth lies in the
		 * user part, written after it.
		 */
		BUILD_BUG_ON(FST_ARCH_KWALK_EXTRA > FLAMESTAT_MAX_USER_DEPTH);
		nk = fst_sample_kstack(c, regs, key->frames, cfg->kernel_depth,
				       &flags);
	}
	key->proc_id = 0;
	wi.run_len = 0;
	if (want_user)
		nu = fst_walk_user_any(c, t, uregs, umode, task,
				       key->frames + nk, cfg->user_depth,
				       &flags, &key->proc_id, &wi);

	fst_key_header(key, task, cfg, c, nk, nu, flags);

	/* The same callers as the last stacks on this CPU: a known leaf? */
	same_chain = fst_recent_same_chain(&c->recent, t, key, &wi);
	e = same_chain ? fst_recent_lookup(&c->recent, t, key) : NULL;
	if (e) {
		/* An existing entry: nothing new to check, the table no fuller. */
		e->count++;
		e->periods += periods;
		fst_sample_recorded(t, key, want_user && !key->proc_id);
		return;
	}
	key->hash = fst_entry_hash(key);
	added = fst_table_add(t, key, 1, periods, &at);
	if (added >= 0)
		fst_recent_note(&c->recent, t, key, at, same_chain, &wi);
	fst_sample_added(c, t, key, added, want_user && !key->proc_id);
	return;

drop_idle:
	fst_drop(t, FLAMESTAT_DROP_IDLE);
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

/*
 * Hard-irq (hrtimer): must not sleep, allocate or take sleeping locks.
 *
 * Self-throttling, the rule of perf_cpu_time_max_percent: when the moving
 * average of the callback's cost exceeds cost_pct of the time between two
 * firings, the timer fires half as often on this CPU; when it falls below
 * a quarter of that share, twice as often again, up to every period. The
 * periods in between are counted (FLAMESTAT_DROP_THROTTLED), so readers
 * know the rate fell and by how much.
 */
static void fst_throttle(struct fst_cpu *c, u64 ns, u64 budget)
{
	u64 avg;

	if (!budget)
		return;
	budget *= c->skip;
	/*
	 * One callback far above the budget was mostly not running (a vCPU
	 * the host preempted, an SMI): it counts as twice the budget, so that
	 * a lone stall moves the average by a quarter of the budget at most,
	 * while a cost that really is above the budget still moves it above.
	 */
	c->cost_avg8 = c->cost_avg8 - (c->cost_avg8 >> 3) + min(ns, 2 * budget);
	avg = c->cost_avg8 >> 3;
	/* WRITE_ONCE: fst_sampler_throttled() reads it from other CPUs. */
	if (avg > budget && c->skip < FST_SKIP_MAX)
		WRITE_ONCE(c->skip, c->skip << 1);
	else if (c->skip > 1 && avg * 4 < budget)
		WRITE_ONCE(c->skip, c->skip >> 1);
}

/*
 * Hard-irq, or the sched_switch probe with interrupts off. One sample
 * stands for @intervals intervals of @skip periods each (@intervals >= 1):
 * it is one sample, skip - 1 periods of each interval were throttled,
 * and the intervals after the first are overruns, so that samples
 * (throttled included) plus overruns are exactly the periods.
 */
static void fst_count_periods(struct fst_counts *cnt, u64 intervals, u64 skip)
{
	cnt->samples += 1 + intervals * (skip - 1);
	cnt->dropped[FLAMESTAT_DROP_THROTTLED] += intervals * (skip - 1);
	cnt->overruns += intervals - 1;
}

/*
 * Hard-irq (hrtimer): must not sleep, allocate or take sleeping locks.
 *
 * The timer fires every skip periods, on the grid of this CPU's phase.
 * Of the periods from this expiry to the next, one is sampled now, skip - 1
 * after each intended firing are throttled, and the intended firings the
 * timer was too late for are overruns: samples (throttled included) plus
 * overruns are exactly the periods.
 */
static enum hrtimer_restart fst_timer_fn(struct hrtimer *timer)
{
	struct fst_cpu *c = container_of(timer, struct fst_cpu, timer);
	struct fst_sampler *s = c->s;
	u64 t0, missed, period = s->cfg.period_ns;
	u32 skip = c->skip;
	struct fst_table *t;

	if (!READ_ONCE(s->running))
		return HRTIMER_NORESTART;
	t0 = fst_clock();
	/* Periods a switch-out counted already: the timer starts after them. */
	if (c->charged_until > ktime_to_ns(hrtimer_get_expires(timer)))
		hrtimer_set_expires(timer, ns_to_ktime(c->charged_until));
	missed = hrtimer_forward_now(timer, ns_to_ktime(period * skip));
	if (!missed)
		return HRTIMER_RESTART;
	t = &c->tab[c->active];
	fst_count_periods(&t->counts, missed, skip);
	/*
	 * The sample stands for the periods from its expiry to the next
	 * one: those a late timer missed (all before now) and the throttled
	 * ones of each interval.
	 */
	fst_sample(c, t, missed * skip);
	t0 = fst_clock_ns(fst_clock() - t0);
	fst_account_cost(&t->counts, t0);
	fst_throttle(c, t0, s->cost_budget_ns);
	return HRTIMER_RESTART;
}

/* Hard-irq or, on PREEMPT_RT, the irq_work thread: a CPU table is half full. */
static void fst_drain_kick_fn(struct irq_work *work)
{
	struct fst_sampler *s = container_of(work, struct fst_sampler,
					     drain_kick);

	mod_delayed_work(fst_wq_unbound, s->drain_work, 0);
}

/*
 * IPI, hard-irq, on the CPU whose tables are swapped: runs with interrupts
 * off, so it can never interleave with that CPU's timer callback.
 */
static void fst_cpu_swap(void *info)
{
	struct fst_sampler *s = info;
	struct fst_cpu *c = this_cpu_ptr(s->cpus);

	c->active ^= 1;
	c->drain_kicked = false;
	fst_recent_reset(&c->recent);
}

/* Does this CPU take samples in this run: tables allocated, in the mask? */
static bool fst_sampler_cpu_sampled(struct fst_sampler *s, struct fst_cpu *c)
{
	return c->ready && cpumask_test_cpu(c->cpu, &s->cfg.cpus);
}

/* on_each_cpu_cond_mask(): IPI only the CPUs sampled in this run. */
static bool fst_cpu_is_sampled(int cpu, void *info)
{
	struct fst_sampler *s = info;

	return fst_sampler_cpu_sampled(s, per_cpu_ptr(s->cpus, cpu));
}

/* on_each_cpu_cond_mask(): IPI only the CPUs whose timer was started. */
static bool fst_cpu_is_armed(int cpu, void *info)
{
	struct fst_sampler *s = info;

	return READ_ONCE(per_cpu_ptr(s->cpus, cpu)->armed);
}

/* on_each_cpu_cond_mask(): IPI the CPUs whose active table is written. */
static bool fst_cpu_is_written(int cpu, void *info)
{
	struct fst_sampler *s = info;

	return fst_cpu_written(per_cpu_ptr(s->cpus, cpu));
}

/**
 * fst_sampler_charge_switch() - a sample for a task leaving an overdue CPU
 * @c: this CPU
 * @off: the switching-out task's stack, as its off-CPU slot keeps it
 * @now: ktime_get_mono_fast_ns() at the switch
 *
 * The timer interrupt cannot come while interrupts are off, and the
 * scheduler switches tasks with them off: a timer that expires in that
 * window fires once the next task runs, and its sample lands there (on
 * the idle task, usually, when the task blocked: dropped). The periods
 * from its expiry to the switch were the switching-out task's time on
 * the CPU all the same, and in wall mode (on- plus off-CPU time: its
 * whole lifetime) they are counted here, on the stack it switches out
 * with, as the timer would have counted them: one sample for the
 * intervals up to the first expiry after @now, which the timer then
 * starts from. Under emulation, where the scheduler's interrupts-off
 * stretch is long, those periods were a third of a pipe ping-pong's CPU
 * time (docs/DESIGN.md).
 *
 * Context: the sched_switch probe, runqueue lock held, interrupts off,
 * so never inside this CPU's timer callback; must not sleep, allocate or
 * take sleeping locks.
 */
void fst_sampler_charge_switch(struct fst_cpu *c, const struct fst_entry *off,
			       u64 now)
{
	struct fst_sampler *s = c->s;
	u64 due, interval, intervals, skip = c->skip;
	struct fst_entry *key = c->scratch;
	struct fst_table *t;
	int added;
	u32 at;

	if (!c->armed)
		return;
	due = max_t(u64, ktime_to_ns(hrtimer_get_expires(&c->timer)),
		    c->charged_until);
	if (now < due)
		return;
	interval = s->cfg.period_ns * skip;
	intervals = div64_u64(now - due, interval) + 1;
	c->charged_until = due + intervals * interval;

	t = &c->tab[c->active];
	fst_count_periods(&t->counts, intervals, skip);
	memcpy(key, off, fst_entry_words(off) * sizeof(u64));
	key->flags &= ~(FLAMESTAT_STACKF_OFFCPU | FLAMESTAT_STACKF_OFF_D |
			FLAMESTAT_STACKF_OFF_R);
	key->hash = fst_entry_hash(key);
	added = fst_table_add(t, key, 1, intervals * skip, &at);
	fst_sample_added(c, t, key, added, key->nr_user && !key->proc_id);
}

/* Hard-irq: a CPU's timer starts a run unthrottled. */
static void fst_cpu_arm(struct fst_cpu *c)
{
	c->skip = 1;
	c->cost_avg8 = 0;
	c->charged_until = 0;
	fst_recent_reset(&c->recent);
	WRITE_ONCE(c->armed, true);
}

/*
 * IPI, hard-irq, on the CPU whose timer is started. The first expiry is
 * one period after the start of the run, not after this IPI: a CPU that
 * takes the IPI late (a vCPU the host did not run) counts the periods it
 * missed as overruns at its first sample.
 */
static void fst_cpu_start_timer(void *info)
{
	struct fst_sampler *s = info;
	struct fst_cpu *c = this_cpu_ptr(s->cpus);

	fst_cpu_arm(c);
	hrtimer_start(&c->timer, ns_to_ktime(s->start_ns + c->phase_ns +
					     s->cfg.period_ns),
		      HRTIMER_MODE_ABS_PINNED_HARD);
}

/*
 * IPI, hard-irq, on each online CPU once its timer is cancelled: the
 * periods that expired before the end of the run without a sample (the
 * timer was due but had not fired) are overruns, so that samples plus
 * overruns are exactly the periods of the run. Interrupts are off, so
 * this cannot interleave with a table swap.
 */
static void fst_cpu_count_unsampled(void *info)
{
	struct fst_sampler *s = info;
	struct fst_cpu *c = this_cpu_ptr(s->cpus);
	struct fst_counts *cnt = &c->tab[c->active].counts;
	u64 due, periods, firings;

	if (!c->armed)
		return;
	WRITE_ONCE(c->armed, false);
	due = max_t(u64, ktime_to_ns(hrtimer_get_expires(&c->timer)),
		    c->charged_until);
	if (due > s->stop_ns)
		return;
	/* The firings due were missed; the periods between were throttled. */
	periods = div64_u64(s->stop_ns - due, s->cfg.period_ns) + 1;
	firings = DIV_ROUND_UP_ULL(periods, c->skip);
	cnt->overruns += firings;
	cnt->samples += periods - firings;
	cnt->dropped[FLAMESTAT_DROP_THROTTLED] += periods - firings;
}

/**
 * fst_sampler_init() - set up the per-CPU samplers, without tables
 * @s: the sampler, zeroed, with cfg and procdb set by the caller
 * @drain_work: the work that drains the CPU tables, kicked from hard-irq
 *	when one is half full
 *
 * A CPU's tables are allocated when it comes online
 * (fst_sampler_cpu_alloc()).
 *
 * Context: process context.
 * Return: 0 or -ENOMEM.
 */
int fst_sampler_init(struct fst_sampler *s, struct delayed_work *drain_work)
{
	unsigned int cpu;

	s->drain_work = drain_work;
	init_irq_work(&s->drain_kick, fst_drain_kick_fn);
	s->cpus = alloc_percpu(struct fst_cpu);
	if (!s->cpus)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct fst_cpu *c = per_cpu_ptr(s->cpus, cpu);

		c->cpu = cpu;
		c->s = s;
		fst_hrtimer_setup(&c->timer, fst_timer_fn);
	}
	return 0;
}

/**
 * fst_sampler_free() - free every CPU's tables and the per-CPU samplers
 * @s: the sampler, every timer stopped
 *
 * Context: process context.
 */
void fst_sampler_free(struct fst_sampler *s)
{
	unsigned int cpu;

	if (!s->cpus)
		return;
	irq_work_sync(&s->drain_kick);
	for_each_possible_cpu(cpu) {
		struct fst_cpu *c = per_cpu_ptr(s->cpus, cpu);

		fst_table_free(&c->tab[0]);
		fst_table_free(&c->tab[1]);
		kfree(c->scratch);
		kfree(c->kcache);
		kfree(c->ehcache);
	}
	free_percpu(s->cpus);
	s->cpus = NULL;
}

/**
 * fst_sampler_cpu_alloc() - give a CPU its two tables and scratch key
 * @s: the sampler
 * @cpu: the CPU; nothing happens if it already has them
 * @table_bytes: size of each table
 * @scratch_words: size of the scratch key, in u64 words
 *
 * A CPU without memory is not sampled; the log says so.
 *
 * Context: process context (CPU hotplug, on the CPU coming up).
 * Return: 0, or -ENOMEM.
 */
int fst_sampler_cpu_alloc(struct fst_sampler *s, unsigned int cpu,
			  size_t table_bytes, u32 scratch_words)
{
	struct fst_cpu *c = per_cpu_ptr(s->cpus, cpu);
	int node = cpu_to_node(cpu);

	if (c->ready)
		return 0;
	c->scratch = kmalloc_node(scratch_words * sizeof(u64), GFP_KERNEL,
				  node);
	if (!c->scratch ||
	    fst_table_init(&c->tab[0], table_bytes, node) ||
	    fst_table_init(&c->tab[1], table_bytes, node)) {
		fst_table_free(&c->tab[0]);
		kfree(c->scratch);
		c->scratch = NULL;
		pr_warn("cpu%u: no memory for its tables; not sampled\n", cpu);
		return -ENOMEM;
	}
#ifdef FST_ARCH_HAVE_KSLOTS
	/* Without it the timer walks every kernel stack, as with kstack_cache=0. */
	if (fst_kcache_mode != FST_KCACHE_OFF && !c->kcache) {
		c->kcache = kzalloc_node(sizeof(*c->kcache), GFP_KERNEL, node);
		if (c->kcache)
			fst_kcache_init(c->kcache);
	}
#endif
#ifdef FST_ARCH_HAVE_EHWALK
	/* Without it each frame searches its table. */
	if (!c->ehcache)
		c->ehcache = kzalloc_node(sizeof(*c->ehcache), GFP_KERNEL, node);
#endif
	c->held = scratch_words * sizeof(u64) +
		  (c->kcache ? sizeof(*c->kcache) : 0) +
		  (c->ehcache ? sizeof(*c->ehcache) : 0);
	c->ready = true;
	return 0;
}

/**
 * fst_sampler_start_this_cpu() - start this CPU's timer if sampling runs
 * @s: the sampler
 *
 * Context: CPU hotplug, on the CPU coming up.
 */
void fst_sampler_start_this_cpu(struct fst_sampler *s)
{
	struct fst_cpu *c = this_cpu_ptr(s->cpus);
	u64 first, now, period = s->cfg.period_ns;

	if (!READ_ONCE(s->running) || !fst_sampler_cpu_sampled(s, c) ||
	    !fst_cfg_oncpu(&s->cfg))
		return;
	/*
	 * A CPU that was offline has missed nothing: its first expiry is
	 * the next one of its phase's grid, never one in the past.
	 */
	first = s->start_ns + c->phase_ns + period;
	now = ktime_get_ns();
	if (first <= now)
		first += (div64_u64(now - first, period) + 1) * period;
	fst_cpu_arm(c);
	hrtimer_start(&c->timer, ns_to_ktime(first),
		      HRTIMER_MODE_ABS_PINNED_HARD);
}

/**
 * fst_sampler_start() - start the timer of every online configured CPU
 * @s: the sampler, with running set
 * @start_ns: ktime_get_ns() at the start of the run: the periods of every
 *	CPU count from it
 *
 * Context: process context, cpus_read_lock() held.
 */
void fst_sampler_start(struct fst_sampler *s, u64 start_ns)
{
	unsigned int cpu, n = 0, rank = 0;

	s->start_ns = start_ns;
	/* Off-CPU time only: no timer (offcpu.c attaches the probes). */
	if (!fst_cfg_oncpu(&s->cfg))
		return;
	/* The callback's cost allowed per period, without a division there. */
	s->cost_budget_ns = 0;
	if (s->cost_pct)
		s->cost_budget_ns = max_t(u64, 1, div_u64(s->cfg.period_ns *
							s->cost_pct, 100));
	/*
	 * Stagger: the sampled CPUs' timers expire at equal distances over
	 * the period, not all at once, so that they never take the interrupt
	 * together and contend for the same cache lines. A CPU that comes
	 * online later gets a phase from its number.
	 */
	for_each_cpu_and(cpu, &s->cfg.cpus, cpu_online_mask)
		n += per_cpu_ptr(s->cpus, cpu)->ready;
	for_each_possible_cpu(cpu) {
		struct fst_cpu *c = per_cpu_ptr(s->cpus, cpu);

		if (cpu_online(cpu) && fst_sampler_cpu_sampled(s, c))
			c->phase_ns = div_u64(s->cfg.period_ns * rank++, n);
		else
			c->phase_ns = div_u64(s->cfg.period_ns * cpu,
					      nr_cpu_ids);
	}
	on_each_cpu_cond_mask(fst_cpu_is_sampled, fst_cpu_start_timer, s,
			      true, cpu_online_mask);
}

/**
 * fst_sampler_stop() - wait until no timer callback runs any more
 * @s: the sampler, with running cleared
 * @stop_ns: ktime_get_ns() at the end of the run, read after running was
 *	cleared: every period due by then was sampled or is counted as an
 *	overrun
 *
 * Context: process context, cpus_read_lock() held.
 */
void fst_sampler_stop(struct fst_sampler *s, u64 stop_ns)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		hrtimer_cancel(&per_cpu_ptr(s->cpus, cpu)->timer);
	/* A drain asked for by the last samples is queued now, or never. */
	irq_work_sync(&s->drain_kick);
	s->stop_ns = stop_ns;
	on_each_cpu_cond_mask(fst_cpu_is_armed, fst_cpu_count_unsampled, s,
			      true, cpu_online_mask);
}

/**
 * fst_sampler_stop_cpu() - stop one CPU's timer
 * @s: the sampler
 * @cpu: the CPU
 *
 * Context: process context (CPU hotplug, on the CPU going down).
 */
void fst_sampler_stop_cpu(struct fst_sampler *s, unsigned int cpu)
{
	struct fst_cpu *c = per_cpu_ptr(s->cpus, cpu);

	hrtimer_cancel(&c->timer);
	WRITE_ONCE(c->armed, false);
}

/**
 * fst_sampler_swap() - swap the active and retired table of every CPU
 *	whose timer runs
 * @s: the sampler
 *
 * After this, no timer or off-CPU probe writes to the table it used before.
 * CPUs with neither (not sampled, not running) get no IPI: nothing writes
 * to either of their tables, which the drain takes whole.
 *
 * Context: process context, cpus_read_lock() held, and the session's
 * start and stop excluded.
 */
void fst_sampler_swap(struct fst_sampler *s)
{
	on_each_cpu_cond_mask(fst_cpu_is_written, fst_cpu_swap, s, true,
			      cpu_online_mask);
}

/**
 * fst_sampler_throttled() - does a CPU sample below the frequency now?
 * @s: the sampler
 *
 * Context: any; the answer may change right after.
 * Return: true if some CPU's timer fires less often than every period.
 */
bool fst_sampler_throttled(struct fst_sampler *s)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct fst_cpu *c = per_cpu_ptr(s->cpus, cpu);

		if (READ_ONCE(c->armed) && READ_ONCE(c->skip) > 1)
			return true;
	}
	return false;
}

/**
 * fst_sampler_forget_procs() - empty every CPU's address-space cache
 * @s: the sampler, every timer stopped
 *
 * For a new process database.
 *
 * Context: process context.
 */
void fst_sampler_forget_procs(struct fst_sampler *s)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct fst_cpu *c = per_cpu_ptr(s->cpus, cpu);

		c->cache.mm = NULL;
		c->cache.db = NULL;
	}
}

/**
 * fst_sampler_nr_cpus() - CPUs the configuration samples that can run a timer
 * @s: the sampler
 *
 * Context: process context; the caller keeps the configuration stable.
 * Return: configured CPUs that are online and have their tables.
 */
u32 fst_sampler_nr_cpus(struct fst_sampler *s)
{
	unsigned int cpu;
	u32 n = 0;

	cpus_read_lock();
	for_each_cpu_and(cpu, &s->cfg.cpus, cpu_online_mask)
		n += per_cpu_ptr(s->cpus, cpu)->ready;
	cpus_read_unlock();
	return n;
}
