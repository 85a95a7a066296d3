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
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/string.h>
#include <linux/types.h>
#include <linux/workqueue.h>

struct fst_kcache;

#include "arch.h"
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
	/*
	 * The off-CPU probes write tab[active] on this CPU (offcpu.c): set
	 * on this CPU with interrupts off, or with no probe attached; read
	 * by the drain like armed.
	 */
	bool probed;
	int cpu;
	u64 phase_ns;		/* first expiry: start + phase + period */
	/*
	 * Self-throttling, this CPU's timer only: the timer fires every
	 * skip periods (a power of two, 1 when the sampler is cheap
	 * enough); cost_avg8 is 8 times the moving average of its cost.
	 */
	u32 skip;
	u64 cost_avg8;
	/*
	 * Wall mode: the periods before this time were counted by the
	 * switch-out of a task the overdue timer could not interrupt
	 * (fst_sampler_charge_switch()); 0 when none were. This CPU only.
	 */
	u64 charged_until;
	struct fst_proc_cache cache; /* last address space seen */
	struct fst_recent recent; /* last stacks counted in tab[active] */
	struct fst_entry *scratch; /* the key being built */
	u32 off_cursor;		/* offcpu.c: where to look for a free slot */
	/* The timer's kernel stacks met last; NULL: kstack_cache=0, no ORC */
	struct fst_kcache *kcache;
	/* The user walk's rules met last (ehtab.h); NULL: none, no tables */
	struct fst_eh_rcache *ehcache;
	size_t held;		/* bytes of scratch and caches (mem_total) */
	struct fst_sampler *s;
};

/*
 * Does anything write @c's active table: its timer, or the off-CPU probes?
 * The drain then swaps the tables first. Acquire: pairs with the release
 * of a CPU going offline, after its last write.
 */
static inline bool fst_cpu_written(struct fst_cpu *c)
{
	/* Pairs with fst_offcpu_cpu_offline()'s release. */
	return READ_ONCE(c->armed) || smp_load_acquire(&c->probed);
}

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
	/* Off-CPU slots of the run (offcpu.c), read by the probes under RCU. */
	struct fst_offcpu __rcu *off;
};

/*
 * Hard-irq or the scheduler, on @c's CPU: something was written to @c's
 * table @t. Past half full, ask for an early drain, once per swap. No
 * workqueue call here: the irq_work queues the drain once, from whichever
 * CPU asked first, after this interrupt (on PREEMPT_RT, in a thread).
 */
static inline void fst_cpu_table_grew(struct fst_cpu *c, struct fst_table *t)
{
	if (!c->drain_kicked && t->used > t->arena_words / 2) {
		c->drain_kicked = true;
		irq_work_queue(&c->s->drain_kick);
	}
}

/*
 * Hard-irq or the scheduler: a task that runs kernel code only, whose user
 * registers are not its own (see fst_sample()). @in_kernel: it was not
 * interrupted in user mode.
 */
static __always_inline bool fst_task_kernel_only(struct task_struct *task,
						 bool in_kernel)
{
	bool kthread = !task->mm || (task->flags & PF_KTHREAD);

#ifdef PF_IO_WORKER
	kthread |= !!(task->flags & PF_IO_WORKER);
#endif
#ifdef PF_USER_WORKER
	kthread |= !!(task->flags & PF_USER_WORKER);
#endif
	if (!kthread && in_kernel) {
		struct pt_regs *ur = task_pt_regs(task);

		kthread = !instruction_pointer(ur) && !user_stack_pointer(ur);
	}
	return kthread;
}

bool fst_pid_match(const struct fst_cfg *cfg, struct task_struct *task);

/*
 * Hard-irq, or the sched_switch probe with interrupts off: must not sleep,
 * allocate or take sleeping locks. The user stack of @task from @uregs
 * (@interrupted: the registers the sample interrupted) into @frames, at
 * most @max: by the files' unwind tables where the configuration and the
 * architecture allow (64-bit tasks), by frame pointers otherwise; early
 * stops of a walk with tables counted in @t. And its address space's
 * proc id, in @proc_id; in @wi->run_at and run_len, a run of @frames that
 * are one return address (run_len 0: none known).
 */
static __always_inline unsigned int
fst_walk_user_any(struct fst_cpu *c, struct fst_table *t, struct pt_regs *uregs,
		  bool interrupted, struct task_struct *task, u64 *frames,
		  unsigned int max, u32 *flags, u32 *proc_id,
		  struct fst_walk_info *wi)
{
	struct fst_sampler *s = c->s;
	const struct fst_cfg *cfg = &s->cfg;
	unsigned int n;
#ifdef FST_ARCH_HAVE_EHWALK
	bool compat = fst_arch_user_compat(uregs);

	*proc_id = fst_procdb_lookup(s->procdb, &c->cache, task, compat);
	if (!compat && !(cfg->flags & FLAMESTAT_CFG_UNWIND_FP) &&
	    s->procdb->eh_max) {
		n = fst_walk_user_eh(uregs, interrupted, frames, max, flags,
				     s->procdb, *proc_id,
				     cfg->flags & FLAMESTAT_CFG_UNWIND_TABLE,
				     c->ehcache, wi);
		if (wi->stop >= 0)
			t->counts.unwind_stop[wi->stop]++;
		return n;
	}
	wi->run_len = 0;
	n = fst_walk_user(uregs, interrupted, frames, max, flags);
	if (!compat)
		*flags |= FLAMESTAT_STACKF_UNWIND_FP;
#else
	wi->run_len = 0;
	n = fst_walk_user(uregs, interrupted, frames, max, flags);
	*proc_id = fst_procdb_lookup(s->procdb, &c->cache, task,
				     *flags & FLAMESTAT_STACKF_COMPAT);
#endif
	return n;
}

/*
 * Hard-irq or the scheduler: the header of a stack key of @task, whose
 * frames are already in @key (@nk kernel, then @nu user, no waker yet);
 * proc_id is the caller's. The pads are zero: keys compare as words.
 */
static __always_inline void fst_key_header(struct fst_entry *key,
					   struct task_struct *task,
					   const struct fst_cfg *cfg,
					   const struct fst_cpu *c,
					   unsigned int nk, unsigned int nu,
					   u32 flags)
{
	key->tgid = task->tgid;
	key->cpu = (cfg->flags & FLAMESTAT_CFG_PERCPU) ? c->cpu :
		   FLAMESTAT_CPU_ANY;
	key->nr_kernel = nk;
	key->nr_user = nu;
	key->nr_waker = 0;
	key->pad2 = 0;
	key->flags = flags;
	memcpy(key->comm, task->comm, sizeof(key->comm));
	key->comm[sizeof(key->comm) - 1] = '\0';
}

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
void fst_sampler_charge_switch(struct fst_cpu *c, const struct fst_entry *off,
			       u64 now);
void fst_sampler_forget_procs(struct fst_sampler *s);
u32 fst_sampler_nr_cpus(struct fst_sampler *s);

#endif /* FLAMESTAT_SAMPLER_H */
