// SPDX-License-Identifier: GPL-2.0
/*
 * `cat /dev/flamestat`: folded stacks ready for flamegraph.pl, one line per
 * unique stack: "comm;user root..leaf;kernel root..leaf COUNT". Kernel
 * frames are names with the "_[k]" suffix; user frames are "file+0xOFFSET"
 * (file offset in the mapped file's basename) or "0xADDR" when no mapping
 * is known. Rendered by seq_file from a private copy of the merged table,
 * taken at the first read and again after a seek to 0, in which identical
 * lines are merged first.
 */
#include <linux/kallsyms.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/xxhash.h>

#include "output.h"

static int fst_text_merge(struct fst_text *tx);

static struct fst_entry *fst_text_entry(struct fst_text *tx)
{
	if (tx->pos_off >= tx->copy.used)
		return NULL;
	return (struct fst_entry *)&tx->copy.arena[tx->pos_off];
}

/*
 * Positions: in the off-CPU and wall-clock modes, 0 is the line that says
 * so (SEQ_START_TOKEN) and entries start at 1.
 */
static loff_t fst_text_hdr(const struct fst_text *tx)
{
	return tx->copy.cfg.mode != FLAMESTAT_MODE_CPU;
}

static void *fst_text_start(struct seq_file *m, loff_t *pos)
{
	struct fst_text *tx = m->private;
	struct fst_entry *e;
	loff_t want;
	int err;

	if (!tx->have_copy) {
		err = fst_copy_take(&tx->copy, false);
		if (err)
			return ERR_PTR(err);
		tx->have_copy = true;
		err = fst_text_merge(tx);
		if (err)
			return ERR_PTR(err);
		tx->pos_idx = 0;
		tx->pos_off = 1;
	}
	if (*pos < fst_text_hdr(tx))
		return SEQ_START_TOKEN;
	want = *pos - fst_text_hdr(tx);
	/* Entries vary in size: walk from the cursor, or from the start. */
	if (want < tx->pos_idx) {
		tx->pos_idx = 0;
		tx->pos_off = 1;
	}
	while (tx->pos_idx < want && (e = fst_text_entry(tx))) {
		tx->pos_off += fst_entry_words(e);
		tx->pos_idx++;
	}
	return fst_text_entry(tx);
}

static void *fst_text_next(struct seq_file *m, void *v, loff_t *pos)
{
	struct fst_text *tx = m->private;

	++*pos;
	if (v == SEQ_START_TOKEN) {
		tx->pos_idx = 0;
		tx->pos_off = 1;
		return fst_text_entry(tx);
	}
	tx->pos_off += fst_entry_words(v);
	tx->pos_idx++;
	return fst_text_entry(tx);
}

static void fst_text_stop(struct seq_file *m, void *v)
{
}

/*
 * Folded format separators must not appear inside a frame: ';' splits
 * frames, whitespace before the count ends the stack, newlines end lines.
 */
static void fst_put_name(struct seq_file *m, const char *s, size_t max)
{
	size_t i;

	for (i = 0; i < max && s[i]; i++) {
		char ch = s[i];

		if (ch == ';')
			ch = ':';
		else if (ch == ' ')
			ch = '_';
		else if (ch < 0x20 || ch == 0x7f)
			ch = '?';
		seq_putc(m, ch);
	}
}

static void fst_put_user_frame(struct seq_file *m, struct fst_procdb *db,
			       const struct fst_maps *maps, u64 addr)
{
	const struct fst_map *map = fst_maps_find(maps, addr);
	const struct fst_file *f;

	seq_putc(m, ';');
	/*
	 * A "return address" above user space is a value from a broken
	 * frame-pointer chain (-1, a kernel-looking number): shown as what it
	 * is, never as a number a reader could take for a kernel address.
	 */
	if (addr >= TASK_SIZE_MAX) {
		seq_puts(m, "[invalid]");
		return;
	}
	if (!map) {
		seq_printf(m, "0x%llx", addr);
		return;
	}
	if (map->flags & FLAMESTAT_MAPF_VDSO) {
		seq_printf(m, "[vdso]+0x%llx", addr - map->start);
		return;
	}
	f = fst_procdb_file(db, map->file_id);
	if (!f) {
		seq_printf(m, "0x%llx", addr);
		return;
	}
	fst_put_name(m, kbasename(f->path), SIZE_MAX);
	seq_printf(m, "+0x%llx", addr - map->start + map->pgoff);
}

/*
 * Frames after the first are return addresses: name the byte before, the
 * call, so a call that ends a function is not taken for the next one.
 */
static void fst_put_kernel_frame(struct seq_file *m, u64 addr, bool is_ret,
				 bool kaddr_ok, const char *suffix)
{
	char name[KSYM_NAME_LEN + 64];
	u32 off;

	seq_putc(m, ';');
	if (fst_ksym_name(addr - is_ret, name, sizeof(name), &off) >= 0)
		fst_put_name(m, name, sizeof(name));
	else if (kaddr_ok)
		seq_printf(m, "0x%llx", addr);
	else
		seq_puts(m, "[unknown]");
	seq_puts(m, suffix);
}

/* An off-CPU stack's state frame, after its leaf. */
static const char *fst_off_state_frame(u32 flags)
{
	if (flags & FLAMESTAT_STACKF_OFF_D)
		return ";[off-cpu:D]";
	if (flags & FLAMESTAT_STACKF_OFF_R)
		return ";[off-cpu:R]";
	return ";[off-cpu:S]";
}

/* One entry's line without its count: what fst_text_merge() compares. */
static void fst_put_stack(struct seq_file *m, struct fst_text *tx,
			  const struct fst_entry *e)
{
	struct fst_procdb *db = tx->copy.procdb;
	bool off_cpu = e->flags & FLAMESTAT_STACKF_OFFCPU;
	const struct fst_maps *maps = NULL;
	struct fst_proc *p;
	int i;

	if (e->cpu != FLAMESTAT_CPU_ANY)
		seq_printf(m, "cpu-%u;", e->cpu);
	fst_put_name(m, e->comm, sizeof(e->comm));

	rcu_read_lock();
	p = fst_procdb_proc(db, e->proc_id);
	if (p) {
		maps = rcu_dereference(p->maps);
		/* The slot may be reused meanwhile: then these are not its. */
		if (!fst_procdb_proc_still(p, e->proc_id))
			maps = NULL;
	}
	if (e->nr_user && (e->flags & FLAMESTAT_STACKF_USER_TRUNCATED))
		seq_puts(m, ";[truncated]");
	else if (e->nr_user && (e->flags & FLAMESTAT_STACKF_UNWIND_STOPPED))
		seq_puts(m, ";[incomplete]");
	for (i = e->nr_user - 1; i >= 0; i--)
		fst_put_user_frame(m, db, maps, e->frames[e->nr_kernel + i]);
	rcu_read_unlock();

	if (e->nr_kernel && (tx->copy.lockdown || fst_locked_down())) {
		seq_puts(m, ";[withheld]_[k]");
	} else if (e->nr_kernel) {
		if (e->flags & FLAMESTAT_STACKF_KERNEL_TRUNCATED)
			seq_puts(m, ";[truncated]_[k]");
		/* An off-CPU stack's first frame is a return address too. */
		for (i = e->nr_kernel - 1; i >= 0; i--)
			fst_put_kernel_frame(m, e->frames[i],
					     i > 0 || off_cpu, tx->kaddr_ok,
					     "_[k]");
	}
	if (!off_cpu)
		return;
	seq_puts(m, fst_off_state_frame(e->flags));
	/*
	 * The waker's stack above, leaf first so that its root ends on top,
	 * as bcc's offwaketime prints it; "_[w]" is what FlameGraph's chain
	 * palette colours as a waker.
	 */
	if (e->nr_waker && !tx->copy.lockdown && !fst_locked_down()) {
		const u64 *w = &e->frames[e->nr_kernel + e->nr_user];

		seq_puts(m, ";--");
		for (i = 0; i < e->nr_waker; i++)
			fst_put_kernel_frame(m, w[i], true, tx->kaddr_ok,
					     "_[w]");
		/* Cut at its root end, which is printed last. */
		if (e->flags & FLAMESTAT_STACKF_WAKER_TRUNCATED)
			seq_puts(m, ";[truncated]_[w]");
	}
}

/*
 * The value of a line: samples in CPU mode; nanoseconds in the off-CPU and
 * wall-clock modes, an on-CPU stack's periods times the period.
 */
static u64 fst_text_value(const struct fst_text *tx, const struct fst_entry *e)
{
	if (tx->copy.cfg.mode == FLAMESTAT_MODE_CPU)
		return e->count;
	if (e->flags & FLAMESTAT_STACKF_OFFCPU)
		return e->periods;
	return e->periods * tx->copy.cfg.period_ns;
}

static int fst_text_show(struct seq_file *m, void *v)
{
	struct fst_text *tx = m->private;
	const struct fst_entry *e = v;

	if (v == SEQ_START_TOKEN) {
		seq_printf(m, "# flamestat: mode %s, values in ns\n",
			   tx->copy.cfg.mode == FLAMESTAT_MODE_WALL ?
			   "wall" : "offcpu");
		return 0;
	}
	/* A line merged into an earlier identical one (fst_text_merge()). */
	if (!e->count)
		return SEQ_SKIP;
	fst_put_stack(m, tx, e);
	seq_printf(m, " %llu\n", fst_text_value(tx, e));
	return 0;
}

/* The line of an entry, count excluded, in @buf; false if it does not fit. */
static bool fst_render(struct fst_text *tx, const struct fst_entry *e,
		       char *buf, size_t size, size_t *len)
{
	/* Only the output buffer of a seq_file is used by seq_printf(). */
	struct seq_file sm = { .buf = buf, .size = size };

	fst_put_stack(&sm, tx, e);
	*len = sm.count;
	return !seq_has_overflowed(&sm);
}

struct fst_line {
	u64 hash;
	u32 off;		/* arena word of the entry */
};

static int fst_line_cmp(const void *a, const void *b)
{
	const struct fst_line *x = a, *y = b;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/*
 * The table keys stacks by process and by exact kernel PCs; the text shows
 * neither the process nor offsets in kernel functions. Two processes with
 * the same command and stack (or one stack at two PCs of the same kernel
 * functions) would print as two identical lines. Merge them: the first
 * one in the copy's order gets the sum, the others a count of 0 and are
 * skipped. Lines are hashed as rendered, then compared in full within a
 * run of equal hashes, so a collision never merges different lines. The
 * copy is this reader's own. Costs one more rendering of every line, and
 * 16 bytes per entry, charged to the reader's memory cgroup.
 */
static int fst_text_merge(struct fst_text *tx)
{
	const size_t bufsz = 64 * 1024;
	struct fst_line *lines;
	size_t charged;
	char *a, *b;
	u32 n = 0, off, i, j;
	size_t la, lb;
	int err = 0;

	if (tx->copy.nr_entries < 2)
		return 0;
	charged = (size_t)tx->copy.nr_entries * sizeof(*lines) + 2 * bufsz;
	err = fst_reader_charge(charged);
	if (err)
		return err;
	lines = kvmalloc_array(tx->copy.nr_entries, sizeof(*lines),
			       FST_GFP_READER);
	a = kvmalloc(2 * bufsz, FST_GFP_READER);
	if (!lines || !a) {
		err = -ENOMEM;
		goto out;
	}
	b = a + bufsz;
	for (off = 1; off < tx->copy.used && n < tx->copy.nr_entries;) {
		struct fst_entry *e = (void *)&tx->copy.arena[off];

		/* A line too long to compare stays as it is. */
		if (fst_render(tx, e, a, bufsz, &la))
			lines[n++] = (struct fst_line){ xxh64(a, la, 0), off };
		off += fst_entry_words(e);
		cond_resched();
	}
	sort(lines, n, sizeof(*lines), fst_line_cmp, NULL);
	for (i = 0; i < n; i = j) {
		/* Arena word of the entry rendered in @a: 0, none yet. */
		u32 in_a = 0;

		/* A run of equal hashes: nearly always one line, repeated. */
		for (j = i + 1; j < n && lines[j].hash == lines[i].hash; j++) {
			struct fst_entry *e = (void *)&tx->copy.arena[lines[j].off];
			u32 r;

			if (!fst_render(tx, e, b, bufsz, &lb))
				continue;
			/* Into the first earlier line it equals, if any. */
			for (r = i; r < j; r++) {
				struct fst_entry *f = (void *)&tx->copy.arena[lines[r].off];

				if (!f->count)
					continue;
				/* The run's first line, rendered once. */
				if (in_a != lines[r].off) {
					in_a = 0;
					if (!fst_render(tx, f, a, bufsz, &la))
						continue;
					in_a = lines[r].off;
				}
				if (la == lb && !memcmp(a, b, la)) {
					f->count += e->count;
					f->periods += e->periods;
					e->count = 0;
					break;
				}
			}
		}
		cond_resched();
	}
out:
	kvfree(a);
	kvfree(lines);
	fst_reader_uncharge(charged);
	return err;
}

const struct seq_operations fst_text_seq_ops = {
	.start = fst_text_start,
	.next = fst_text_next,
	.stop = fst_text_stop,
	.show = fst_text_show,
};
