/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every architecture's walk by unwind tables (kmod/arch/<arch>/
 * ehwalk.c, where fst_arch.h defines FST_ARCH_HAVE_EHWALK) shares: the
 * bounds of user loads and the lookup of a PC's rule, through this CPU's
 * rule cache (struct fst_eh_rcache) and the process's maps.
 *
 * Included by one file per module (the architecture's ehwalk.c): the
 * static constants below are that file's.
 */
#ifndef FLAMESTAT_EHWALK_H
#define FLAMESTAT_EHWALK_H

#include <linux/build_bug.h>
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "ehtab.h"
#include "procdb.h"
#include "uapi/flamestat.h"

/* The highest address a word is read at: user space's last word. */
#define FST_EH_UADDR_MAX	(TASK_SIZE_MAX - sizeof(unsigned long))

/*
 * A CFA in [FST_EH_OFF_SPAN, FST_EH_UADDR_MAX - FST_EH_OFF_SPAN] can be
 * read at any s16 offset, as rules give them, without a check per load.
 */
#define FST_EH_OFF_SPAN		0x8000UL

/*
 * Hard-irq: @addr as a user pointer for a word's load, or NULL (never
 * mapped below mmap_min_addr: the load faults) when the word would reach
 * past FST_EH_UADDR_MAX, into kernel or non-canonical addresses.
 */
static __always_inline const unsigned long __user *
fst_uword(unsigned long addr)
{
	return (const unsigned long __user *)(addr <= FST_EH_UADDR_MAX ?
					      addr : 0);
}

/* What a lookup gives where no table covers the address. */
static const struct fst_eh_rule fst_eh_no_rule = { .kind = FST_EH_NONE };

/*
 * The maps of a process without any (none read yet): no mapping, and seq
 * 0, which no published maps has. A cache entry never filled (zeroes)
 * matches it only for address 0, and then gives a rule of kind 0, which
 * is FST_EH_NONE, as fst_eh_no_rule: the same walk.
 */
static const struct fst_maps fst_eh_no_maps;
static_assert(FST_EH_NONE == 0);

/* A rule's kind and register as one number, for one compare. */
static __always_inline u16 fst_eh_kind_reg(const struct fst_eh_rule *r)
{
	return r->kind | r->reg << 8;
}

/*
 * What the last search found, for the next frame's: the mapping, its table
 * and segment. A stack's frames are mostly in a few files.
 */
struct fst_eh_cursor {
	const struct fst_map *m;
	const struct fst_ehtab *et;
	const struct fst_ehtab_seg *seg;
};

/*
 * Hard-irq: the rule for user address @look in @maps, searched for through
 * the cursor @c: its mapping, the file's table, the segment, the row;
 * fst_eh_no_rule where no table covers it.
 */
static __always_inline const struct fst_eh_rule *
fst_eh_rule_search(struct fst_procdb *db, const struct fst_maps *maps,
		   struct fst_eh_cursor *c, unsigned long look)
{
	const struct fst_eh_rule *r;
	const struct fst_file *f;
	u64 off;

	if (!c->m || look < c->m->start || look >= c->m->end) {
		c->m = fst_maps_find(maps, look);
		c->et = NULL;
		c->seg = NULL;
		f = c->m ? fst_procdb_file(db, c->m->file_id) : NULL;
		if (f)
			c->et = rcu_dereference_raw(f->ehtab);
		else if (c->m && (c->m->flags & FLAMESTAT_MAPF_VDSO))
			c->et = rcu_dereference_raw(fst_eh_vdso);
	}
	if (!c->et)
		return &fst_eh_no_rule;
	off = look - c->m->start + c->m->pgoff;
	if (!c->seg || off < c->seg->off || off >= c->seg->end) {
		c->seg = fst_ehtab_seg_of(c->et, off);
		if (!c->seg)
			return &fst_eh_no_rule;
	}
	r = fst_eh_find(&c->et->t, off + c->seg->delta);
	return r ? r : &fst_eh_no_rule;
}

/*
 * Hard-irq: the rule for user address @look (a PC, or a return address
 * minus one: the call, which may be a function's last instruction) in
 * @maps (fst_eh_no_maps: none), whose seq is @seq: from this CPU's cache
 * @rc when it has it, else searched for and cached; fst_eh_no_rule (never
 * NULL, so that the hot path tests nothing more) where no table covers it.
 * Inline, with everything it uses, and no lockdep check
 * (rcu_dereference_raw(): the caller holds rcu_read_lock()): it runs in a
 * user-access section, where objtool allows no call.
 */
static __always_inline const struct fst_eh_rule *
fst_eh_rule_at(struct fst_procdb *db, const struct fst_maps *maps, u64 seq,
	       struct fst_eh_cursor *c, struct fst_eh_rcache *rc,
	       unsigned long look)
{
	const struct fst_eh_rule *r;
	struct fst_eh_rcache_ent *e;

	static_assert(FST_EH_RCACHE_WAYS == 2);
	if (!rc)
		return fst_eh_rule_search(db, maps, c, look);
	/* The set's first entry; pointer arithmetic, no subscript. */
	e = rc->e + FST_EH_RCACHE_WAYS *
		(u32)(((look ^ seq) * GOLDEN_RATIO_64) >>
		      (64 - FST_EH_RCACHE_BITS + ilog2(FST_EH_RCACHE_WAYS)));
	if (e->look == look && e->maps_seq == seq)
		return &e->r;
	if (e[1].look == look && e[1].maps_seq == seq)
		return &e[1].r;
	r = fst_eh_rule_search(db, maps, c, look);
	if (r == &fst_eh_no_rule)
		return r;
	/* The set's newest first: the older goes to the second way. */
	e[1] = *e;
	e->look = look;
	e->maps_seq = seq;
	e->r = *r;
	return &e->r;
}

/*
 * Hard-irq: a walk's start, for the task's address space @id in @db. The
 * generation first: this CPU's rule cache @rc (or NULL) is emptied if it
 * changed (see struct fst_eh_rcache). Then, under rcu_read_lock() and
 * with page faults disabled until fst_eh_walk_end(), its published maps
 * (fst_eh_no_maps: none yet).
 */
static __always_inline const struct fst_maps *
fst_eh_walk_begin(struct fst_procdb *db, u32 id, struct fst_eh_rcache *rc)
{
	u32 gen = atomic_read_acquire(&fst_eh_gen);
	const struct fst_maps *maps;
	struct fst_proc *p;

	if (rc && unlikely(rc->gen != gen)) {
		memset(rc->e, 0, sizeof(rc->e));
		rc->gen = gen;
	}
	rcu_read_lock();
	p = fst_procdb_proc(db, id);
	maps = p ? rcu_dereference(p->maps) : NULL;
	pagefault_disable();
	return maps ? maps : &fst_eh_no_maps;
}

/*
 * Hard-irq, in the user-access section: the caller's frame pointer by
 * rule @r, from its save slot at @cfa if it has one; @fp_ok says whether
 * it is known. Return: 0, or -EFAULT.
 */
static __always_inline int fst_eh_restore_fp(const struct fst_eh_rule *r,
					     unsigned long cfa,
					     unsigned long *fp, bool *fp_ok)
{
	if (r->fp_off == FST_EH_FP_LOST) {
		*fp_ok = false;
	} else if (r->fp_off != FST_EH_FP_SAME) {
		unsafe_get_user(*fp, (const unsigned long __user *)
				(cfa + r->fp_off), efault);
		/* Restored from its save slot: known again. */
		*fp_ok = true;
	}
	return 0;
efault:
	return -EFAULT;
}

/*
 * Hard-irq: a walk's end, after fst_eh_walk_begin() (and the user-access
 * section's end): faults and RCU as they were, and the walk's flags. A
 * walk that found no caller at all counts as the walk it was: by tables
 * only with @tables_only, else by frame pointer.
 */
static __always_inline void fst_eh_walk_end(u32 *flags, bool by_table,
					    bool by_fp, bool tables_only,
					    int stop)
{
	pagefault_enable();
	rcu_read_unlock();
	if (by_table || (!by_fp && tables_only))
		*flags |= FLAMESTAT_STACKF_UNWIND_TABLE;
	if (by_fp || (!by_table && !tables_only))
		*flags |= FLAMESTAT_STACKF_UNWIND_FP;
	if (stop >= 0)
		*flags |= FLAMESTAT_STACKF_UNWIND_STOPPED;
}

#endif /* FLAMESTAT_EHWALK_H */
