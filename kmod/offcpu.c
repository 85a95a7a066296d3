// SPDX-License-Identifier: GPL-2.0
/*
 * Off-CPU time from the scheduler's tracepoints, without BPF.
 *
 * When a task switches out (sched_switch, its prev), its kernel stack and
 * frame-pointer user stack are kept in a slot of a preallocated pool, with
 * the time. When it switches in again (sched_switch, its next, on any CPU),
 * the slot's stack is counted in that CPU's active table, its weight the
 * nanoseconds in between, and the slot is freed. With CFG_WAKER the task
 * that wakes it (sched_waking, in the waker's own context: sched_wakeup
 * fires on the wakee's CPU when the wakeup is queued there) adds its own
 * kernel stack to the slot.
 *
 * Slots are found by task through a hash of chains, each bucket under one
 * of a few raw spinlocks: a task's switch-out, its wakeup and its switch-in
 * can run on three CPUs, one after the other, and other tasks' on every
 * CPU at once. Free slots are bits of a bitmap, taken with
 * test_and_set_bit_lock() and given back with clear_bit_unlock().
 * A task's switch-in never runs before its switch-out has returned (the
 * scheduler's p->on_cpu handshake orders them), so the slot a switch-in
 * finds is complete.
 *
 * Everything here runs in the scheduler, with the runqueue lock held and
 * interrupts off: it never sleeps, allocates, or touches user memory other
 * than the switching-out task's own, with page faults disabled; it cannot
 * nest with the timer callback or with itself on one CPU, so it shares the
 * CPU's scratch key and tables with the timer.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/hash.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <linux/stacktrace.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>
#include <linux/vmalloc.h>

#include "arch.h"
#include "compat.h"
#include "kstack_cache.h"
#include "offcpu.h"

/* Buckets share this many locks; a bucket's lock is locks[b % n]. */
#define FST_OFF_LOCKS		64
/* Kernel frames of ours and the tracepoint's above the scheduler. */
#define FST_OFF_SKIP_MAX	16

/* A blocked task's stack, from its switch-out to its switch-in. */
struct fst_offslot {
	struct task_struct *task;	/* the blocked task; bucket lock */
	u32 next;			/* next in the bucket, index + 1 */
	u32 pad;
	u64 start_ns;			/* ktime_get_mono_fast_ns() at switch-out */
	/*
	 * The hash's state after the key's first khash_n frames, the kernel
	 * stack, when kstack_cache.c had it (0: none); the switch-in's hash
	 * goes on from there.
	 */
	struct fst_hash khash;
	u32 khash_n;
	u32 pad2;
	struct fst_entry key;		/* header and frames; hash unset */
};

struct fst_offcpu {
	u32 nr_slots;
	u32 bucket_bits;
	u32 stride;			/* bytes per slot */
	u16 kernel_depth;
	u16 user_depth;
	u16 waker_depth;		/* 0: no waker stacks */
	u64 min_block_ns;
	/* Kernel stacks met last on each CPU; NULL: kstack_cache=0, or no ORC. */
	struct fst_kcache __percpu *kcache;
	u8 *slots;
	unsigned long *used;		/* bitmap of taken slots */
	u32 *heads;			/* bucket -> first slot index + 1 */
	/* Blocks that switched in on a CPU whose tables are not ready. */
	atomic64_t lost;
	raw_spinlock_t locks[FST_OFF_LOCKS];
};

/*
 * The tracepoints, found at load, and where their iterators' code lies:
 * with more than one probe attached, the tracepoint calls ours through
 * its iterator, whose frame the stacks then skip.
 */
struct fst_tp {
	const char *name;
	struct tracepoint *tp;
	unsigned long iter_start, iter_end;
	/*
	 * Where the compiler made trace_<name>() a function of its own (debug
	 * kernels do), its frame lies between the caller and the iterator:
	 * learned from the first stack (wrap_learned), skipped after that.
	 */
	unsigned long wrap_start, wrap_end;
	bool wrap_learned;
};

static struct fst_tp fst_tp_switch = { .name = "sched_switch" };
static struct fst_tp fst_tp_wakeup = { .name = "sched_waking" };

static struct fst_offslot *fst_off_slot(struct fst_offcpu *o, u32 i)
{
	return (struct fst_offslot *)(o->slots + (size_t)i * o->stride);
}

static u32 fst_off_bucket(struct fst_offcpu *o, struct task_struct *task)
{
	return hash_ptr(task, o->bucket_bits);
}

static raw_spinlock_t *fst_off_lock(struct fst_offcpu *o, u32 b)
{
	return &o->locks[b % FST_OFF_LOCKS];
}

/* Scheduler: the slot of @task, unlinked from its bucket; NULL if none. */
static struct fst_offslot *fst_off_take(struct fst_offcpu *o,
					struct task_struct *task)
{
	u32 b = fst_off_bucket(o, task), *link = &o->heads[b], i;
	raw_spinlock_t *lock = fst_off_lock(o, b);
	struct fst_offslot *slot, *found = NULL;

	/* Most tasks switching in have no slot: a lockless look first. */
	if (!READ_ONCE(o->heads[b]))
		return NULL;
	raw_spin_lock(lock);
	for (i = *link; i; link = &slot->next, i = *link) {
		slot = fst_off_slot(o, i - 1);
		if (slot->task == task) {
			WRITE_ONCE(*link, slot->next);
			found = slot;
			break;
		}
	}
	raw_spin_unlock(lock);
	return found;
}

/* Scheduler: a free slot, searched from this CPU's cursor; NULL if none. */
static struct fst_offslot *fst_off_get(struct fst_offcpu *o,
				       struct fst_cpu *c, u32 *idx)
{
	u32 i, tries;

	for (tries = 0; tries < 4; tries++) {
		i = find_next_zero_bit(o->used, o->nr_slots, c->off_cursor);
		if (i >= o->nr_slots)
			i = find_first_zero_bit(o->used, o->nr_slots);
		if (i >= o->nr_slots)
			return NULL;
		/* Acquire: the last owner's writes to the slot are done. */
		if (!test_and_set_bit_lock(i, o->used)) {
			c->off_cursor = i + 1;
			*idx = i;
			return fst_off_slot(o, i);
		}
	}
	return NULL;
}

static void fst_off_put(struct fst_offcpu *o, struct fst_offslot *slot)
{
	u32 i = ((u8 *)slot - o->slots) / o->stride;

	slot->task = NULL;
	clear_bit_unlock(i, o->used);
}

/*
 * The start and end of the kernel function at @addr, from its name's
 * offset and size as kallsyms prints them ("name+0x4/0x50", into @sym).
 * sprint_symbol() only reads kallsyms: safe in any context, as printk's
 * %pS is. False when @addr is in no known function.
 */
static bool fst_func_bounds(unsigned long addr, char *sym,
			    unsigned long *start, unsigned long *end)
{
	unsigned long off, size;
	const char *p;

	sprint_symbol(sym, addr);
	p = strrchr(sym, '+');
	if (!p || sscanf(p, "+%lx/%lx", &off, &size) != 2 || off > addr)
		return false;
	*start = addr - off;
	*end = *start + size;
	return true;
}

/* Process context: the end of the kernel function at @addr, or @addr + 1. */
static unsigned long fst_func_end(unsigned long addr)
{
	char sym[KSYM_SYMBOL_LEN];
	unsigned long start, end;

	return fst_func_bounds(addr, sym, &start, &end) ? end : addr + 1;
}

/*
 * Scheduler, once per tracepoint: is @addr, the first frame after ours and
 * the iterator's, in an out-of-line trace_<name>() (or a clone of it, such
 * as trace_sched_switch.constprop.0)? Then that function is skipped from
 * now on. The start is published before the end, and readers load the end
 * first: a reader sees either no range or the whole one.
 */
static noinline void fst_off_learn_wrapper(struct fst_tp *tp,
					   unsigned long addr)
{
	char sym[KSYM_SYMBOL_LEN];
	size_t len = strlen(tp->name);
	unsigned long start, end;

	if (fst_func_bounds(addr, sym, &start, &end) &&
	    !strncmp(sym, "trace_", 6) && !strncmp(sym + 6, tp->name, len) &&
	    (sym[6 + len] == '+' || sym[6 + len] == '.')) {
		WRITE_ONCE(tp->wrap_start, start);
		/* Pairs with fst_off_kstack(): the start is seen first. */
		smp_store_release(&tp->wrap_end, end);
	}
	WRITE_ONCE(tp->wrap_learned, true);
}

/*
 * Scheduler: how many of the @n frames at @buf, a walk of the current
 * kernel stack, are ours, the tracepoint iterator's and an out-of-line
 * trace_<name>()'s, above the frame that called the tracepoint.
 */
static unsigned int fst_off_skip(struct fst_tp *tp, const unsigned long *buf,
				 unsigned int n)
{
	unsigned int skip = 0;
	unsigned long wrap_end;

	while (skip < n && skip < FST_OFF_SKIP_MAX &&
	       (within_module(buf[skip], THIS_MODULE) ||
		(buf[skip] >= tp->iter_start && buf[skip] < tp->iter_end)))
		skip++;
	if (unlikely(!READ_ONCE(tp->wrap_learned)) && skip < n)
		fst_off_learn_wrapper(tp, buf[skip]);
	/* Pairs with fst_off_learn_wrapper(): an end seen, its start too. */
	wrap_end = smp_load_acquire(&tp->wrap_end);
	if (skip < n && skip < FST_OFF_SKIP_MAX && buf[skip] < wrap_end &&
	    buf[skip] >= READ_ONCE(tp->wrap_start))
		skip++;
	return skip;
}

/*
 * Scheduler: a walk's @n frames in @buf, less our own at its start
 * (fst_off_skip(), their number in *@skip), cut at @max (marked truncated
 * in *@flags), into @frames. Return: the frames kept.
 */
static unsigned int fst_off_keep(struct fst_tp *tp, const unsigned long *buf,
				 unsigned int n, u64 *frames, unsigned int max,
				 u32 *flags, unsigned int *skip)
{
	*skip = fst_off_skip(tp, buf, n);
	n -= *skip;
	if (n > max) {
		n = max;
		*flags |= FLAMESTAT_STACKF_KERNEL_TRUNCATED;
	}
	memcpy(frames, buf + *skip, n * sizeof(u64));
	return n;
}

/*
 * Scheduler: the current kernel stack, from the frame that called the
 * tracepoint (in __schedule() or try_to_wake_up()), into @frames, walked
 * by stack_trace_save(). @tmp: room for @max + FST_OFF_SKIP_MAX frames.
 */
static unsigned int fst_off_kwalk(struct fst_tp *tp, u64 *frames,
				  unsigned int max, u64 *tmp, u32 *flags)
{
	unsigned long *buf = (unsigned long *)tmp;
	unsigned int n, skip;

	BUILD_BUG_ON(sizeof(unsigned long) != sizeof(u64));
	n = stack_trace_save(buf, max + FST_OFF_SKIP_MAX, 0);
	return fst_off_keep(tp, buf, n, frames, max, flags, &skip);
}

#ifdef FST_ARCH_HAVE_KSLOTS
/*
 * Scheduler, in task context: the same through this CPU's cache of
 * stacks (kstack_cache.c): a stack met before is read from the cache;
 * another is walked with the places of its return addresses, and kept.
 * -1: the stack is deeper than the cache walks (fst_off_kwalk() then).
 * *@khash: the cache's hash state after the frames, or NULL.
 */
static int fst_off_kcached(struct fst_offcpu *o, struct fst_tp *tp,
			   u64 *frames, unsigned int max, u64 *tmp,
			   u32 *flags, const struct fst_hash **khash)
{
	struct fst_kcache *kc = this_cpu_ptr(o->kcache);
	unsigned long *buf = (unsigned long *)tmp;
	unsigned long anchor = fst_kcache_anchor();
	u32 kind = tp == &fst_tp_wakeup ? 2 : 1;
	unsigned int n, skip, lim, n2, vmax;
	bool complete, wrong = false;
	u32 flags2 = 0, cut = 0;
	struct fst_kcache_way *w;
	int hit;

	BUILD_BUG_ON(FST_KCACHE_FRAMES + FST_OFF_SKIP_MAX > FST_KCACHE_WALK);
	if (!anchor)
		return -1;
	hit = fst_kcache_lookup(kc, kind, 0, anchor, frames, max, khash);
	if (hit >= 0) {
		/*
		 * kstack_cache=2: walked as well (as deep as to tell a deeper
		 * stack), and a difference counted.
		 */
		if (fst_kcache_mode == FST_KCACHE_CHECK) {
			vmax = min_t(unsigned int, max, FST_KCACHE_FRAMES + 1);
			n2 = fst_off_kwalk(tp, tmp, vmax, tmp + vmax, &flags2);
			wrong = n2 != hit || flags2 ||
				memcmp(tmp, frames, n2 * sizeof(u64));
		}
		fst_kcache_count(FST_KCACHE_SWITCH, 1, 0, wrong);
		return hit;
	}
	lim = min_t(unsigned int, max + FST_OFF_SKIP_MAX, FST_KCACHE_WALK);
	n = fst_walk_kernel_slots(NULL, tmp, kc->walk_slots, lim, &complete);
	if (!complete && lim < max + FST_OFF_SKIP_MAX)
		return -1;
	fst_kcache_count(FST_KCACHE_SWITCH, 0, 1, 0);
	n = fst_off_keep(tp, buf, n, frames, max, &cut, &skip);
	*flags |= cut;
	if (complete && !cut) {
		w = fst_kcache_store(kc, kind, 0, anchor, frames,
				     kc->walk_slots + skip, n);
		if (w) {
			fst_hash_frames(&w->hash, w->frames, w->nr);
			*khash = &w->hash;
		}
	}
	return n;
}
#endif

/*
 * Scheduler: the current kernel stack, from the frame that called the
 * tracepoint, into @frames; our own frames, the tracepoint iterator's and
 * an out-of-line trace_<name>()'s are left out. @tmp: room for
 * @max + FST_OFF_SKIP_MAX frames, and for 2 * FST_KCACHE_FRAMES + 2 +
 * FST_OFF_SKIP_MAX (the scratch key's frames, beyond a waker's, hold both).
 * @khash: where the hash state after the frames goes when the cache has
 * it, and *@khash_n = their number (else 0); NULL: not wanted.
 */
static unsigned int fst_off_kstack(struct fst_offcpu *o, struct fst_tp *tp,
				   u64 *frames, unsigned int max, u64 *tmp,
				   u32 *flags, struct fst_hash *khash,
				   u32 *khash_n)
{
#ifdef FST_ARCH_HAVE_KSLOTS
	const struct fst_hash *h = NULL;
	int n;

	if (o->kcache && in_task()) {
		n = fst_off_kcached(o, tp, frames, max, tmp, flags, &h);
		if (n >= 0) {
			if (khash && h) {
				*khash = *h;
				*khash_n = n;
			}
			return n;
		}
	}
#endif
	return fst_off_kwalk(tp, frames, max, tmp, flags);
}

/* Scheduler: count a block that ends up in no stack. */
static void fst_off_drop(struct fst_table *t, enum flamestat_offcpu_drop why)
{
	t->counts.offcpu_blocks++;
	t->counts.offcpu_dropped[why]++;
}

/* A task's state at switch-out, as stack flags; see FLAMESTAT_STACKF_OFF_D. */
static u32 fst_off_state(bool preempt, unsigned int state)
{
	if (preempt || state == TASK_RUNNING)
		return FLAMESTAT_STACKF_OFF_R;
	/* TASK_IDLE (kernel threads waiting for work) is not a D wait. */
	if ((state & TASK_UNINTERRUPTIBLE) && !(state & TASK_NOLOAD))
		return FLAMESTAT_STACKF_OFF_D;
	return 0;
}

/*
 * Scheduler, @prev is current and its address space is still this CPU's:
 * keep its stacks in a slot until it switches in again.
 */
static void fst_off_out(struct fst_sampler *s, struct fst_offcpu *o,
			struct fst_cpu *c, struct task_struct *prev,
			bool preempt, unsigned int state, u64 now)
{
	const struct fst_cfg *cfg = &s->cfg;
	struct fst_table *t = &c->tab[c->active];
	struct fst_offslot *slot;
	struct fst_walk_info wi; /* the run: for the sampler's cache only */
	struct fst_entry *key;
	unsigned int nk = 0, nu = 0;
	bool kthread, want_user;
	u32 flags, b, idx;

	/* Its last switch: a dead task never switches in. */
	if (state & TASK_DEAD)
		return;
	if (cfg->nr_pids && !fst_pid_match(cfg, prev)) {
		fst_off_drop(t, FLAMESTAT_OFFDROP_FILTERED);
		return;
	}
	kthread = fst_task_kernel_only(prev, true);
	want_user = (cfg->flags & FLAMESTAT_CFG_USER) && !kthread &&
		    !fst_task_in_execve(prev);
	if (!(cfg->flags & FLAMESTAT_CFG_KERNEL) && !want_user) {
		fst_off_drop(t, FLAMESTAT_OFFDROP_MODE);
		return;
	}
	slot = fst_off_get(o, c, &idx);
	if (!slot) {
		fst_off_drop(t, FLAMESTAT_OFFDROP_NO_SLOT);
		return;
	}
	key = &slot->key;
	slot->khash_n = 0;
	flags = FLAMESTAT_STACKF_OFFCPU | fst_off_state(preempt, state) |
		(kthread ? FLAMESTAT_STACKF_KERNEL_THREAD : 0);
	if ((cfg->flags & FLAMESTAT_CFG_KERNEL) && s->lockdown) {
		/* Withheld, as in the samples: one opaque frame. */
		key->frames[0] = 0;
		nk = 1;
	} else if (cfg->flags & FLAMESTAT_CFG_KERNEL) {
		nk = fst_off_kstack(o, &fst_tp_switch, key->frames,
				    o->kernel_depth, c->scratch->frames,
				    &flags, &slot->khash, &slot->khash_n);
	}
	key->proc_id = 0;
	if (want_user)
		nu = fst_walk_user_any(c, t, task_pt_regs(prev), false, prev,
				       key->frames + nk, o->user_depth, &flags,
				       &key->proc_id, &wi);
	fst_key_header(key, prev, cfg, c, nk, nu, flags);
	/* Wall mode: its time on the CPU that the timer could not sample. */
	if (fst_cfg_oncpu(cfg))
		fst_sampler_charge_switch(c, key, now);
	slot->start_ns = now;
	slot->task = prev;

	b = fst_off_bucket(o, prev);
	raw_spin_lock(fst_off_lock(o, b));
	slot->next = o->heads[b];
	WRITE_ONCE(o->heads[b], idx + 1);
	raw_spin_unlock(fst_off_lock(o, b));
}

/*
 * Scheduler: the hash of @slot's key, from the state the kernel-stack
 * cache kept after its kernel frames when it had one.
 */
static void fst_off_hash(struct fst_offslot *slot)
{
	struct fst_entry *key = &slot->key;

	if (!slot->khash_n) {
		key->hash = fst_entry_hash(key);
		return;
	}
	key->hash = fst_entry_hash_from(&slot->khash, slot->khash_n, key);
	/* kstack_cache=2: the resumed hash checked, as the frames are */
	if (fst_kcache_mode == FST_KCACHE_CHECK &&
	    key->hash != fst_entry_hash(key))
		fst_kcache_count(FST_KCACHE_SWITCH, 0, 0, 1);
}

/*
 * Blocks counted in one of their CPU's recent entries (recent.h), without
 * the hash and the table's probe, since the module was loaded: against
 * offcpu_recorded, how often that shortcut serves (the stats file).
 */
static DEFINE_PER_CPU(u64, fst_off_recent_hits);

/**
 * fst_offcpu_recent_hits() - blocks counted through the recent entries
 *
 * Context: process context.
 * Return: the count on every CPU since the module was loaded.
 */
u64 fst_offcpu_recent_hits(void)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(*per_cpu_ptr(&fst_off_recent_hits, cpu));
	return sum;
}

/*
 * Scheduler: @next switches in; count its block if it has a slot: in one
 * of the entries the last blocks on this CPU were counted in when it is
 * the same stack, else through the hash and the table.
 */
static void fst_off_in(struct fst_sampler *s, struct fst_offcpu *o,
		       struct fst_cpu *c, struct task_struct *next, u64 now)
{
	struct fst_offslot *slot = fst_off_take(o, next);
	struct fst_entry *key, *e;
	struct fst_table *t;
	u64 ns;
	u32 at;
	int added;

	if (!slot)
		return;
	if (unlikely(!c->probed)) {
		/* This CPU's tables are not written yet (hotplug): counted. */
		atomic64_inc(&o->lost);
		fst_off_put(o, slot);
		return;
	}
	t = &c->tab[c->active];
	key = &slot->key;
	/* A block takes time: never 0, which readers take for no value. */
	ns = now > slot->start_ns ? now - slot->start_ns : 1;
	if (ns < o->min_block_ns) {
		fst_off_drop(t, FLAMESTAT_OFFDROP_SHORT);
		fst_off_put(o, slot);
		return;
	}
	e = fst_recent_off_lookup(&c->recent, t, key);
	if (e) {
		e->count++;
		e->periods += ns;
		__this_cpu_inc(fst_off_recent_hits);
		added = 0;
	} else {
		fst_off_hash(slot);
		added = fst_table_add(t, key, 1, ns, &at);
		if (added >= 0)
			fst_recent_off_note(&c->recent, t, at);
	}
	if (added < 0) {
		fst_off_drop(t, added == -E2BIG ? FLAMESTAT_OFFDROP_PROBE :
			     FLAMESTAT_OFFDROP_CPU_TABLE_FULL);
	} else {
		t->counts.offcpu_blocks++;
		t->counts.offcpu_recorded++;
		t->counts.offcpu_ns += ns;
		if (added && key->proc_id)
			fst_procdb_check_frames(s->procdb, key->proc_id,
						&key->frames[key->nr_kernel],
						key->nr_user);
	}
	fst_off_put(o, slot);
	fst_cpu_table_grew(c, t);
}

/*
 * sched_switch probe: the scheduler, runqueue lock held, interrupts off;
 * must not sleep, allocate or take sleeping locks. @prev is current.
 */
#ifdef FST_HAVE_SCHED_SWITCH_PREV_STATE
static void fst_off_switch(void *data, bool preempt, struct task_struct *prev,
			   struct task_struct *next, unsigned int prev_state)
#else
static void fst_off_switch(void *data, bool preempt, struct task_struct *prev,
			   struct task_struct *next)
#endif
{
	struct fst_sampler *s = data;
	/* Tracepoint probes run with preemption off: sched RCU. */
	struct fst_offcpu *o = rcu_dereference_sched(s->off);
	struct fst_cpu *c;
	u64 now;
#ifndef FST_HAVE_SCHED_SWITCH_PREV_STATE
	unsigned int prev_state = fst_task_state(prev);
#endif

	if (!o || !READ_ONCE(s->running))
		return;
	c = this_cpu_ptr(s->cpus);
	now = ktime_get_mono_fast_ns();
	/* The table may not be written before the IPI that allows it. */
	if (!is_idle_task(prev) && likely(c->probed))
		fst_off_out(s, o, c, prev, preempt, prev_state, now);
	if (!is_idle_task(next))
		fst_off_in(s, o, c, next, now);
}

/*
 * sched_waking probe: the waker, in try_to_wake_up() with the wakee's
 * pi_lock held, interrupts off; must not sleep, allocate or take sleeping
 * locks. The waker's kernel stack goes into the wakee's slot, if it has
 * one; it is walked outside the bucket lock, so the slot is looked up
 * twice.
 *
 * A task that wakes itself (between setting its state and calling
 * schedule(): an io_uring wait that runs its own completions, a timer
 * that expires early) is traced on try_to_wake_up()'s shortcut for
 * current, which takes no lock and leaves interrupts on. It is running,
 * so it has no slot; and with interrupts on, the sampling timer or a
 * wakeup in an interrupt could come in on this CPU and write the same
 * scratch, or spin on a bucket lock held here. It is left out first.
 */
static void fst_off_wakeup(void *data, struct task_struct *p)
{
	struct fst_sampler *s = data;
	struct fst_offcpu *o = rcu_dereference_sched(s->off);
	u32 b, i, n, room, off, truncated = 0;
	struct fst_offslot *slot;
	struct fst_cpu *c;
	u64 *tmp;

	/* Under lockdown no kernel stack is kept, the waker's neither. */
	if (p == current || !o || !o->waker_depth || !READ_ONCE(s->running) ||
	    s->lockdown)
		return;
	c = this_cpu_ptr(s->cpus);
	if (!c->scratch)
		return;
	b = fst_off_bucket(o, p);
	if (!READ_ONCE(o->heads[b]))
		return;
	/* The waker's frames at the start of the scratch, room for more after. */
	tmp = c->scratch->frames;
	n = fst_off_kstack(o, &fst_tp_wakeup, tmp, o->waker_depth,
			   tmp + o->waker_depth, &truncated, NULL, NULL);
	raw_spin_lock(fst_off_lock(o, b));
	for (i = o->heads[b]; i; i = slot->next) {
		slot = fst_off_slot(o, i - 1);
		if (slot->task != p)
			continue;
		/* A wakeup after one that was kept (spurious): the first. */
		if (!slot->key.nr_waker) {
			off = slot->key.nr_kernel + slot->key.nr_user;
			room = min_t(u32, n, o->waker_depth);
			memcpy(&slot->key.frames[off], tmp, room * sizeof(u64));
			slot->key.nr_waker = room;
			if (truncated)
				slot->key.flags |=
					FLAMESTAT_STACKF_WAKER_TRUNCATED;
		}
		break;
	}
	raw_spin_unlock(fst_off_lock(o, b));
}

static void fst_find_tp(struct tracepoint *tp, void *priv)
{
	struct fst_tp *want[] = { &fst_tp_switch, &fst_tp_wakeup };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(want); i++) {
		if (strcmp(tp->name, want[i]->name))
			continue;
		want[i]->tp = tp;
#ifdef FST_HAVE_TRACEPOINT_ITERATOR
		want[i]->iter_start = (unsigned long)tp->iterator;
		want[i]->iter_end = fst_func_end(want[i]->iter_start);
#endif
	}
}

/**
 * fst_offcpu_init() - find the scheduler's tracepoints
 *
 * They are not exported as symbols; for_each_kernel_tracepoint() finds
 * them. A kernel without them still loads; off-CPU time is then refused.
 *
 * Context: process context, module load.
 * Return: 0.
 */
int fst_offcpu_init(void)
{
	for_each_kernel_tracepoint(fst_find_tp, NULL);
	if (!fst_tp_switch.tp || !fst_tp_wakeup.tp)
		pr_info("no sched_switch or sched_waking tracepoint: off-CPU time is not measured\n");
	return 0;
}

/*
 * IPI, interrupts off: this CPU's tables may be written by the probes.
 * While nothing wrote them, the drain merged and cleared both, the active
 * one too, without the swap's IPI: the recent stacks (recent.h) may point
 * into what was cleared, and go, as when a timer starts (fst_cpu_arm()).
 */
static void fst_off_allow(void *info)
{
	struct fst_sampler *s = info;
	struct fst_cpu *c = this_cpu_ptr(s->cpus);

	if (c->ready) {
		fst_recent_reset(&c->recent);
		WRITE_ONCE(c->probed, true);
	}
}

/*
 * The pool goes: the probes see none (they stay attached), no CPU's tables
 * are theirs any more, and once every probe that might still use it has
 * returned, it is the caller's.
 */
static void fst_off_retire(struct fst_sampler *s)
{
	unsigned int cpu;

	cpus_read_lock();
	for_each_possible_cpu(cpu)
		WRITE_ONCE(per_cpu_ptr(s->cpus, cpu)->probed, false);
	rcu_assign_pointer(s->off, NULL);
	cpus_read_unlock();
	/* Probes run with preemption disabled. */
	synchronize_rcu();
}

/*
 * Attached: the probes are on the tracepoints. They stay on from the first
 * off-CPU run until the mode is CPU time again or the module goes, not
 * taken off and put back at every stop and start: each change patches
 * the scheduler's text (the tracepoints' static keys and calls).
 */
static bool fst_off_attached;

static int fst_off_attach(struct fst_sampler *s)
{
	int err;

	if (fst_off_attached)
		return 0;
	err = tracepoint_probe_register(fst_tp_switch.tp,
					(void *)fst_off_switch, s);
	if (err)
		return err;
	err = tracepoint_probe_register(fst_tp_wakeup.tp,
					(void *)fst_off_wakeup, s);
	if (err) {
		tracepoint_probe_unregister(fst_tp_switch.tp,
					    (void *)fst_off_switch, s);
		tracepoint_synchronize_unregister();
		return err;
	}
	fst_off_attached = true;
	return 0;
}

/**
 * fst_offcpu_detach() - take the probes off the scheduler's tracepoints
 * @s: the sampler, with no off-CPU run (fst_offcpu_stop())
 *
 * Returns once no probe runs any more: the module may go.
 *
 * Context: process context, ctl_lock held (or module exit), not
 * cpus_read_lock().
 */
void fst_offcpu_detach(struct fst_sampler *s)
{
	if (!fst_off_attached)
		return;
	tracepoint_probe_unregister(fst_tp_switch.tp, (void *)fst_off_switch,
				    s);
	tracepoint_probe_unregister(fst_tp_wakeup.tp, (void *)fst_off_wakeup,
				    s);
	tracepoint_synchronize_unregister();
	fst_off_attached = false;
}

static void fst_off_free(struct fst_offcpu *o)
{
	if (!o)
		return;
	free_percpu(o->kcache);
	vfree(o->slots);
	bitmap_free(o->used);
	kvfree(o->heads);
	kfree(o);
}

/**
 * fst_offcpu_start() - record off-CPU time: a pool of slots for the run,
 *	the probes attached if they are not yet
 * @s: the sampler, running, with the configuration of the run
 * @nr_tasks: slots: tasks that can be blocked with their stacks kept
 *
 * Context: process context, ctl_lock held, not cpus_read_lock() (the
 * tracepoints' static keys take it).
 * Return: 0, -EOPNOTSUPP without the tracepoints, -ENOMEM, or the error
 * of tracepoint_probe_register().
 */
int fst_offcpu_start(struct fst_sampler *s, u32 nr_tasks)
{
	const struct fst_cfg *cfg = &s->cfg;
	struct fst_offcpu *o;
	u32 frames, i;
	int err;

	if (!fst_tp_switch.tp || !fst_tp_wakeup.tp)
		return -EOPNOTSUPP;
	o = kzalloc(sizeof(*o), GFP_KERNEL);
	if (!o)
		return -ENOMEM;
	o->nr_slots = nr_tasks;
	o->bucket_bits = ilog2(roundup_pow_of_two(nr_tasks));
	o->kernel_depth = cfg->kernel_depth;
	o->user_depth = cfg->user_depth;
	o->waker_depth = (cfg->flags & FLAMESTAT_CFG_WAKER) ?
			 cfg->kernel_depth : 0;
	o->min_block_ns = (u64)cfg->min_block_us * NSEC_PER_USEC;
	frames = o->kernel_depth + o->user_depth + o->waker_depth;
	o->stride = ALIGN(sizeof(struct fst_offslot) + frames * sizeof(u64),
			  SMP_CACHE_BYTES);
	o->slots = vzalloc((size_t)o->stride * nr_tasks);
	o->used = bitmap_zalloc(nr_tasks, GFP_KERNEL);
	o->heads = kvcalloc(1U << o->bucket_bits, sizeof(u32), GFP_KERNEL);
	if (!o->slots || !o->used || !o->heads) {
		pr_warn("no memory for %u off-CPU slots of %u bytes\n",
			nr_tasks, o->stride);
		fst_off_free(o);
		return -ENOMEM;
	}
	for (i = 0; i < FST_OFF_LOCKS; i++)
		raw_spin_lock_init(&o->locks[i]);
	atomic64_set(&o->lost, 0);
#ifdef FST_ARCH_HAVE_KSLOTS
	/* Without memory for it, every stack is walked: no error. */
	if (fst_kcache_mode != FST_KCACHE_OFF)
		o->kcache = alloc_percpu(struct fst_kcache);
	if (o->kcache) {
		int cpu;

		for_each_possible_cpu(cpu)
			fst_kcache_init(per_cpu_ptr(o->kcache, cpu));
	}
#endif

	err = fst_off_attach(s);
	if (err) {
		pr_warn("cannot attach to the scheduler's tracepoints: %d\n",
			err);
		fst_off_free(o);
		return err;
	}
	cpus_read_lock();
	for_each_possible_cpu(i)
		per_cpu_ptr(s->cpus, i)->off_cursor =
			div_u64((u64)nr_tasks * i, nr_cpu_ids);
	/* Under the hotplug lock: a CPU coming up sees s->off (online). */
	rcu_assign_pointer(s->off, o);
	on_each_cpu(fst_off_allow, s, 1);
	cpus_read_unlock();
	return 0;
}

/**
 * fst_offcpu_stop() - end the run's off-CPU recording and free its slots
 * @s: the sampler, with running cleared
 * @counts: where the blocks still open are counted (UNFINISHED), with
 *	those lost to a CPU without tables (CPU_TABLE_FULL); NULL: nowhere
 *
 * Returns once no probe uses the slots any more; the probes stay attached
 * (fst_offcpu_detach()).
 *
 * Context: process context, ctl_lock held, not cpus_read_lock().
 */
void fst_offcpu_stop(struct fst_sampler *s, struct fst_counts *counts)
{
	struct fst_offcpu *o = rcu_dereference_protected(s->off, true);
	u64 open, lost;

	if (!o)
		return;
	fst_off_retire(s);
	open = bitmap_weight(o->used, o->nr_slots);
	lost = atomic64_read(&o->lost);
	if (counts) {
		counts->offcpu_blocks += open + lost;
		counts->offcpu_dropped[FLAMESTAT_OFFDROP_UNFINISHED] += open;
		counts->offcpu_dropped[FLAMESTAT_OFFDROP_CPU_TABLE_FULL] += lost;
	}
	fst_off_free(o);
}

/**
 * fst_offcpu_cpu_online() - let the probes write this CPU's tables
 * @s: the sampler
 *
 * Context: CPU hotplug, on the CPU coming up; the session's start and
 * stop are excluded (cpus_read_lock()).
 */
void fst_offcpu_cpu_online(struct fst_sampler *s)
{
	unsigned long flags;

	if (!rcu_access_pointer(s->off))
		return;
	local_irq_save(flags);
	fst_off_allow(s);
	local_irq_restore(flags);
}

/**
 * fst_offcpu_cpu_offline() - no more probe writes to this CPU's tables
 * @s: the sampler
 *
 * Release: the drain, which then takes both tables whole, sees every
 * earlier write (fst_cpu_written()).
 *
 * Context: CPU hotplug, on the CPU going down.
 */
void fst_offcpu_cpu_offline(struct fst_sampler *s)
{
	struct fst_cpu *c;
	unsigned long flags;

	local_irq_save(flags);
	c = this_cpu_ptr(s->cpus);
	/* Pairs with fst_cpu_written(): our table writes happened before. */
	smp_store_release(&c->probed, false);
	local_irq_restore(flags);
}

/**
 * fst_offcpu_blocked() - tasks blocked now with their stacks kept
 * @s: the sampler
 *
 * Context: process context, ctl_lock held.
 * Return: the number of slots taken; 0 without probes.
 */
u32 fst_offcpu_blocked(struct fst_sampler *s)
{
	struct fst_offcpu *o = rcu_dereference_protected(s->off, true);

	return o ? bitmap_weight(o->used, o->nr_slots) : 0;
}

/**
 * fst_offcpu_bytes() - memory the off-CPU slots hold
 * @s: the sampler
 *
 * Context: process context, ctl_lock held.
 * Return: bytes; 0 without probes.
 */
size_t fst_offcpu_bytes(struct fst_sampler *s)
{
	struct fst_offcpu *o = rcu_dereference_protected(s->off, true);

	if (!o)
		return 0;
	return (size_t)o->stride * o->nr_slots +
	       BITS_TO_LONGS(o->nr_slots) * sizeof(long) +
	       (sizeof(u32) << o->bucket_bits) +
	       (o->kcache ? num_possible_cpus() * sizeof(struct fst_kcache) :
		0);
}
