/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A mapped file's unwind table (ehframe.h), built in process context from
 * the file's page cache and shared by every process that maps the file;
 * the sampler reads it lock-free (ehwalk.c).
 */
#ifndef FLAMESTAT_EHTAB_H
#define FLAMESTAT_EHTAB_H

#include <linux/minmax.h>
#include <linux/rcupdate.h>
#include <linux/types.h>

#include "ehframe.h"

struct file;

/* Executable segments whose file offsets a table maps to addresses. */
#define FST_EHTAB_SEGS	4

/* File offsets [off, end) are at file address offset + delta. */
struct fst_ehtab_seg {
	u64 off;
	u64 end;
	s64 delta;
};

struct fst_ehtab {
	struct fst_eh_table t;
	/* The file as it was read: a table is kept only while it matches. */
	u64 size;
	s64 ctime_sec;
	u32 ctime_nsec;
	u32 nr_segs;
	struct fst_ehtab_seg seg[FST_EHTAB_SEGS];
	size_t bytes;		/* this allocation, charged to unwind_kb */
	struct rcu_head rcu;	/* freed after a grace period (kvfree_rcu()) */
	/* start[], rule[], then rules[] follow */
};

/*
 * Any context, the sampler included: the file address (ELF p_vaddr) of
 * file offset @off, if an executable segment of @et holds it. Walked by
 * pointer, not by index: a kernel built with UBSAN_BOUNDS checks array
 * subscripts with a call, which the walk's user-access section must not
 * make (objtool), and gcc 16 keeps the check even in a loop bounded by
 * the array's size.
 */
static __always_inline bool fst_ehtab_vaddr(const struct fst_ehtab *et,
					    u64 off, u64 *vaddr)
{
	const struct fst_ehtab_seg *s = et->seg;
	const struct fst_ehtab_seg *end = s + min_t(u32, et->nr_segs,
						    FST_EHTAB_SEGS);

	for (; s < end; s++) {
		if (off >= s->off && off < s->end) {
			*vaddr = off + s->delta;
			return true;
		}
	}
	return false;
}

int fst_ehtab_build(struct file *file, size_t max_bytes,
		    struct fst_ehtab **out, int *eh_err);
bool fst_ehtab_current(const struct fst_ehtab *et, struct file *file);
void fst_ehtab_free(struct fst_ehtab *et);

#endif /* FLAMESTAT_EHTAB_H */
