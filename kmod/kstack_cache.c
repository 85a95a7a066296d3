// SPDX-License-Identifier: GPL-2.0
/*
 * A cache of the kernel stacks the off-CPU probes and the sampling timer
 * walk, per CPU.
 *
 * At every switch-out the probe walks the sleeping task's kernel stack.
 * With ORC that is most of its cost (5,400 of 6,500 guest instructions a
 * switch in a pipe ping-pong, docs/PERFORMANCE.md), and it is nearly
 * always a stack met just before: the same system call blocking in the
 * same place, in this task or another. So each walk is kept with the place
 * of every return address on the task's stack, and a later stack met by
 * the same probe is compared with it word for word: if each of those
 * places holds the kept return address, it is that stack, and no unwind
 * is needed.
 *
 * The places are counted from the probe's own stack pointer (the anchor),
 * not from the top of the stack: on kernels that randomise the stack
 * offset of each system call (randomize_kstack_offset, on in Debian's),
 * everything below the entry moves by up to a kilobyte from one call to
 * the next, and with it the whole stack under the probe. Only the entry's
 * own frame stays put: the return address its call pushes just below the
 * task's pt_regs, and the pt_regs. Those are counted from the top.
 *
 * Why equal words mean an equal stack: the unwinder finds each frame from
 * the one below it, from the return address (which says which function,
 * hence how large its frame is) and the stack pointer. Two stacks that
 * start at the same anchor and hold the same return address in the first
 * place agree on the next frame's place; if that holds the same return
 * address again, on the one after; and so on, up to the frame that made
 * the random gap (do_syscall_64(), whose frame pointer then finds the
 * entry's frame, at the top). A stack that differs somewhere differs
 * first in a return address at a place both agree on, and fails the
 * comparison there. The one assumption is that a frame's size follows
 * from its function: other frames whose size varies (alloca, variable-
 * length arrays) are rare in the kernel, and would still need the kept
 * return addresses at every kept place.
 *
 * The jump from the places above the anchor to the one below the top is
 * sound only across do_syscall_64()'s gap: a frame whose caller's is the
 * entry's frame, and which is never entered twice on one stack. Other
 * entries nest. A page fault taken in the kernel (a put_user() on the
 * way back to user space) runs the same handler frames, under the same
 * return address of the same entry, as one taken in user space, with a
 * user-space entry at the top of the stack too: the places above the
 * anchor and the one at the top all hold what the shallower stack kept,
 * and the frames between were missed (seen once in 63-kstack-cache's
 * check, 12 frames recognised of 17). So a way also keeps its depth, the
 * bytes from the anchor to the top, and a stack at another depth is
 * another one, except for a system call's: the way whose last frames are
 * the entry's and a return into the handler it calls, as the module's own
 * load found them (fst_kcache_learn_entry()); a 32-bit system call's is
 * recognised only at the depth it was walked at.
 *
 * Return addresses the unwinder puts
 * back in place of a trampoline's (kretprobes, the function graph tracer)
 * are not what their place holds: such stacks are never kept.
 * kstack_cache=2 walks every hit as well and counts any disagreement
 * (tests/guest/63-kstack-cache.sh).
 *
 * The sampling timer's stacks are the interrupted ones: the walk starts at
 * the interrupted registers, so a kept stack is looked up only at the same
 * interrupted PC (which fixes the first frame's size), and its places are
 * counted from the interrupted stack pointer. The timer has a cache of its
 * own on each CPU; a system call's hot path (read(2) of a large buffer,
 * say) is interrupted at a few PCs under the same callers, and the kernel's
 * unwinder was most of such a sample's cost.
 *
 * Context: the scheduler's tracepoints, interrupts off, or the sampling
 * timer (hard-irq), on this CPU's cache only: nothing here sleeps,
 * allocates or takes a lock.
 */
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/compiler.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sched/task_stack.h>
#include <linux/string.h>

#include "arch.h"
#include "kstack_cache.h"
#include "ksym_text.h"

static DEFINE_PER_CPU(struct fst_kcache_counts,
		      fst_kcache_counters[FST_KCACHE_NR_SRC]);

enum fst_kcache_mode fst_kcache_mode __read_mostly = FST_KCACHE_ON;

/*
 * A 64-bit system call's last frames: the return address into the entry
 * code, at the top, and the handler the entry calls (do_syscall_64(),
 * whose frame holds the random gap), as the bounds of its code: any of
 * its calls (the system call, the way back to user space) returns there.
 * fst_kcache_learn_entry() sets them; 0: not known, and every stack is
 * recognised only at the depth it was walked at.
 */
static unsigned long fst_kcache_sys_entry __read_mostly;
static unsigned long fst_kcache_sys_start __read_mostly;
static unsigned long fst_kcache_sys_end __read_mostly;

/**
 * fst_kcache_set_mode() - what kstack_cache= asks for
 * @mode: for the runs to come; the caches are used by runs that have one
 *
 * Context: process context, module load.
 */
void fst_kcache_set_mode(enum fst_kcache_mode mode)
{
	fst_kcache_mode = mode;
}

#ifdef FST_ARCH_HAVE_KSLOTS
/*
 * The bounds of the function @addr is in, from sprint_symbol()'s
 * "name+0xoff/0xsize" (kallsyms_lookup_size_offset() is not exported).
 * Return: false when kallsyms does not know it.
 */
static bool fst_kcache_func_bounds(unsigned long addr, unsigned long *start,
				   unsigned long *end)
{
	struct fst_ksym_text sym;
	char *text;
	bool ok;

	text = kmalloc(KSYM_SYMBOL_LEN, GFP_KERNEL);
	if (!text)
		return false;
	sprint_symbol(text, addr);
	ok = !fst_ksym_text_parse(text, &sym) && sym.offset < sym.size;
	if (ok) {
		*start = addr - sym.offset;
		*end = addr - sym.offset + sym.size;
	}
	kfree(text);
	return ok;
}
#endif

/**
 * fst_kcache_learn_entry() - find a system call's last frames
 *
 * At load, in the system call that loads the module (finit_module(2)):
 * its own stack ends in the frames every system call of that kind ends
 * in, the entry's at the top, the handler's below it. Without them (no
 * ORC, no memory, no kallsyms), no way is a system call's.
 *
 * Context: process context, module load, in the loading system call.
 */
void fst_kcache_learn_entry(void)
{
#ifdef FST_ARCH_HAVE_KSLOTS
	unsigned long entry = (unsigned long)task_pt_regs(current) -
			      sizeof(long);
	unsigned long *slots, start, end;
	unsigned int n;
	bool complete;
	u64 *frames;

	frames = kmalloc_array(FST_KCACHE_WALK, sizeof(*frames), GFP_KERNEL);
	slots = kmalloc_array(FST_KCACHE_WALK, sizeof(*slots), GFP_KERNEL);
	if (frames && slots) {
		n = fst_walk_kernel_slots(NULL, frames, slots, FST_KCACHE_WALK,
					  &complete);
		if (complete && n >= 2 && slots[n - 1] == entry &&
		    slots[n - 2] &&
		    fst_kcache_func_bounds(frames[n - 2], &start, &end)) {
			fst_kcache_sys_entry = frames[n - 1];
			fst_kcache_sys_start = start;
			fst_kcache_sys_end = end;
		}
	}
	kfree(frames);
	kfree(slots);
#endif
}

/* The top of the current task's stack. */
static unsigned long fst_stack_top(void)
{
	return (unsigned long)task_stack_page(current) + THREAD_SIZE;
}

/**
 * fst_kcache_anchor() - where the places of a probe's stacks count from
 *
 * The stack pointer in this function: the same for every call from one
 * place in a probe, at the same depth under that probe's frames.
 *
 * Return: the anchor; 0 when the stack is not the task's own (an
 * interrupt's), where nothing is looked up or kept.
 */
noinline unsigned long fst_kcache_anchor(void)
{
	unsigned long sp = current_stack_pointer;
	unsigned long top = fst_stack_top();

	return sp > top - THREAD_SIZE && sp < top ? sp : 0;
}

/**
 * fst_kcache_regs_anchor() - where the places of an interrupted stack
 *	count from
 * @regs: the interrupted kernel registers
 *
 * Context: hard-irq (the sampling timer).
 * Return: the interrupted stack pointer; 0 when it is not on the task's
 * own stack (an interrupt's or an exception's), where nothing is looked
 * up or kept.
 */
unsigned long fst_kcache_regs_anchor(struct pt_regs *regs)
{
	unsigned long sp = kernel_stack_pointer(regs);
	unsigned long top = fst_stack_top();

	return sp > top - THREAD_SIZE && sp < top ? sp : 0;
}

/**
 * fst_kcache_init() - an empty cache
 * @kc: the cache, zeroed
 *
 * Context: any; before its first use.
 */
void fst_kcache_init(struct fst_kcache *kc)
{
	unsigned int i;

	for (i = 0; i < FST_KCACHE_WAYS; i++)
		kc->order[i] = i;
}

/* The way at place @k of kc->order was met: it goes first. */
static __always_inline void fst_kcache_touch(struct fst_kcache *kc,
					     unsigned int k)
{
	u8 way = kc->order[k];

	for (; k > 0; k--)
		kc->order[k] = kc->order[k - 1];
	kc->order[0] = way;
}

/**
 * fst_kcache_lookup() - the current stack, if it is one of those kept
 * @kc: this CPU's cache
 * @kind: which probe (1, 2, ...): the frames above @anchor differ
 * @pc: FST_KCACHE_KIND_SAMPLE: the interrupted PC (else 0)
 * @anchor: fst_kcache_anchor(), from the same place in the probe; or
 *	fst_kcache_regs_anchor()
 * @frames: where its frames go
 * @max: room in @frames
 * @hash: set to the kept way's hash state: fst_hash_frames() of the
 *	frames where its caller set it (the probes'; the timer's ways have
 *	none)
 *
 * Return: the number of frames, or -1: not kept (walk it).
 */
int fst_kcache_lookup(struct fst_kcache *kc, u32 kind, unsigned long pc,
		      unsigned long anchor, u64 *frames, unsigned int max,
		      const struct fst_hash **hash)
{
	unsigned long top = fst_stack_top();
	struct fst_kcache_way *w;
	unsigned int k, j;

	for (k = 0; k < FST_KCACHE_WAYS; k++) {
		w = &kc->way[kc->order[k]];
		if (w->kind != kind || w->pc != pc || w->nr > max ||
		    anchor + w->span > top ||
		    (!w->gap && top - anchor != w->depth))
			continue;
		for (j = 0; j < w->nr_low; j++)
			if (READ_ONCE_NOCHECK(*(unsigned long *)
					      (anchor + w->slots[j])) !=
			    w->frames[j])
				break;
		if (j < w->nr_low)
			continue;
		for (; j < w->nr; j++)
			if (READ_ONCE_NOCHECK(*(unsigned long *)
					      (top - w->slots[j])) !=
			    w->frames[j])
				break;
		if (j == w->nr) {
			fst_kcache_touch(kc, k);
			memcpy(frames, w->frames, w->nr * sizeof(u64));
			*hash = &w->hash;
			return w->nr;
		}
	}
	return -1;
}

/**
 * fst_kcache_store() - keep a stack just walked
 * @kc: this CPU's cache
 * @kind: which probe, as for fst_kcache_lookup()
 * @pc: as for fst_kcache_lookup()
 * @anchor: as for fst_kcache_lookup()
 * @frames: its frames, the whole stack (not cut at a depth)
 * @slots: the address each frame's return address was read from (0: not
 *	there, and the stack is not kept)
 * @n: frames
 *
 * Return: the way that keeps it, whose hash the caller sets if it resumes
 * hashes from it (fst_hash_frames()); NULL when the stack is not kept.
 */
struct fst_kcache_way *fst_kcache_store(struct fst_kcache *kc, u32 kind,
					unsigned long pc,
					unsigned long anchor,
					const u64 *frames,
					const unsigned long *slots,
					unsigned int n)
{
	unsigned long top = fst_stack_top(), p;
	/* The system call's entry: the pt_regs, and its call's return address. */
	unsigned long entry = (unsigned long)task_pt_regs(current) -
			      sizeof(long);
	struct fst_kcache_way *w;
	u16 enc[FST_KCACHE_FRAMES], span = 0, nr_low = 0;
	unsigned int i;

	if (!n || n > FST_KCACHE_FRAMES)
		return NULL;
	for (i = 0; i < n; i++) {
		p = slots[i];
		if (p >= entry && p < top && top - p < FST_KCACHE_TOP) {
			enc[i] = top - p;
		} else if (p >= anchor && p < entry &&
			   p - anchor < FST_KCACHE_TOP - sizeof(long) &&
			   nr_low == i) {
			/* Above the anchor, and no place below the top before. */
			enc[i] = p - anchor;
			span = max_t(u16, span, enc[i] + sizeof(long));
			nr_low++;
		} else {
			return NULL;
		}
	}
	/* The way met longest ago. */
	w = &kc->way[kc->order[FST_KCACHE_WAYS - 1]];
	fst_kcache_touch(kc, FST_KCACHE_WAYS - 1);
	w->kind = kind;
	w->pc = pc;
	w->nr = n;
	w->span = span;
	w->nr_low = nr_low;
	w->depth = top - anchor;
	/* Only the entry's frame below the top, and the handler's below it. */
	w->gap = nr_low == n - 1 && n >= 2 && fst_kcache_sys_entry &&
		 frames[n - 1] == fst_kcache_sys_entry &&
		 frames[n - 2] > fst_kcache_sys_start &&
		 frames[n - 2] <= fst_kcache_sys_end;
	memcpy(w->frames, frames, n * sizeof(u64));
	memcpy(w->slots, enc, n * sizeof(u16));
	return w;
}

/**
 * fst_kcache_count() - count on this CPU
 * @src: whose
 * @hits: stacks recognised
 * @walks: stacks walked
 * @wrong: recognised stacks the walk contradicted
 *
 * Context: the scheduler's tracepoints, interrupts off, or hard-irq.
 */
void fst_kcache_count(enum fst_kcache_src src, unsigned int hits,
		      unsigned int walks, unsigned int wrong)
{
	struct fst_kcache_counts *c = this_cpu_ptr(&fst_kcache_counters[src]);

	c->hits += hits;
	c->walks += walks;
	c->wrong += wrong;
}

/**
 * fst_kcache_counts() - the counts since the module was loaded, all CPUs
 * @src: whose
 * @sum: where they go
 *
 * Context: process context.
 */
void fst_kcache_counts(enum fst_kcache_src src, struct fst_kcache_counts *sum)
{
	const struct fst_kcache_counts *c;
	int cpu;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		c = per_cpu_ptr(&fst_kcache_counters[src], cpu);
		sum->hits += READ_ONCE(c->hits);
		sum->walks += READ_ONCE(c->walks);
		sum->wrong += READ_ONCE(c->wrong);
	}
}
