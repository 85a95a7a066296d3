// SPDX-License-Identifier: GPL-2.0
/* From a binary snapshot to a profile of symbolized folded stacks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "profile/fold.h"

/* comm as a safe frame: the folded format reserves ';' and whitespace. */
static void put_comm(struct strbuf *sb, const char *comm, size_t max)
{
	size_t i;

	for (i = 0; i < max && comm[i]; i++) {
		char c = comm[i];

		if (c == ';')
			c = ':';
		else if (c == ' ')
			c = '_';
		else if ((unsigned char)c < 0x20 || c == 0x7f)
			c = '?';
		sb_add(sb, &c, 1);
	}
	if (!sb->len)
		sb_adds(sb, "[unnamed]");
}

uint64_t fold_offcpu_lost(const struct flamestat_stats *st)
{
	/* Short, filtered and kernel threads with -U are left out on purpose. */
	return st->offcpu_dropped[FLAMESTAT_OFFDROP_NO_SLOT] +
	       st->offcpu_dropped[FLAMESTAT_OFFDROP_CPU_TABLE_FULL] +
	       st->offcpu_dropped[FLAMESTAT_OFFDROP_PROBE] +
	       st->offcpu_dropped[FLAMESTAT_OFFDROP_UNFINISHED] +
	       st->offcpu_dropped[FLAMESTAT_OFFDROP_TABLE_FULL] +
	       st->offcpu_dropped[FLAMESTAT_OFFDROP_EVICTED];
}

void fold_meta(const struct snapshot *s, struct profile_meta *m)
{
	const struct flamestat_stats *st = &s->hdr.stats;
	uint64_t throttled = st->dropped[FLAMESTAT_DROP_THROTTLED];
	/*
	 * Left out on purpose (idle, other processes, -K/-U) is not lost;
	 * nor are the periods the sampler skipped to bound its own cost (not
	 * sampled at all), which the profile counts apart.
	 */
	uint64_t excluded = st->dropped[FLAMESTAT_DROP_IDLE] +
			    st->dropped[FLAMESTAT_DROP_FILTERED] +
			    st->dropped[FLAMESTAT_DROP_MODE] + throttled;
	size_t i;

	memset(m, 0, sizeof(*m));
	/*
	 * profile_meta: samples are those in the profile, recorded those
	 * taken in scope, dropped those lost (no registers, tables full).
	 * The stacks count periods (one per sample in records without them),
	 * and the periods of all the samples are their stacks' sum: of the
	 * on-CPU stacks. Off-CPU and wall-clock recordings count time, in ns.
	 */
	m->unit = PROFILE_UNIT_PERIODS;
	for (i = 0; i < s->nr_stacks; i++)
		if (!s->stacks[i].state)
			m->sample_periods += s->stacks[i].periods;
	if (s->hdr.config.mode != FLAMESTAT_MODE_CPU) {
		m->unit = PROFILE_UNIT_NS;
		m->mode = s->hdr.config.mode == FLAMESTAT_MODE_WALL ?
			  PROFILE_MODE_WALL : PROFILE_MODE_OFFCPU;
		m->present |= PROFILE_META_MODE | PROFILE_META_BLOCKS;
		m->blocks = st->offcpu_recorded;
		m->blocks_lost = fold_offcpu_lost(st);
	}
	m->samples = st->recorded;
	m->recorded = st->samples - excluded;
	m->dropped = st->samples - excluded - st->recorded;
	m->freq = s->hdr.config.freq_hz;
	m->duration_ns = st->running_ns;
	m->cpus = st->nr_cpus;
	m->present |= PROFILE_META_UNIT | PROFILE_META_SAMPLES |
		     PROFILE_META_SAMPLE_PERIODS | PROFILE_META_RECORDED |
		     PROFILE_META_DROPPED | PROFILE_META_FREQ |
		     PROFILE_META_DURATION;
	if (st->nr_cpus)
		m->present |= PROFILE_META_CPUS;
	/* Periods: samples, throttled ones included, and overruns. */
	if (throttled) {
		m->throttled = throttled;
		m->periods = st->samples + st->overruns;
		m->present |= PROFILE_META_THROTTLED | PROFILE_META_PERIODS;
	}
	/* Per timer callback: throttled periods are in samples, at no cost. */
	if (st->samples > throttled) {
		m->cost_ns = (double)st->cost_ns /
			     (double)(st->samples - throttled);
		m->present |= PROFILE_META_COST;
	}
}

/* One symbol-table handle per FILE record, looked up on first use. */
struct file_cache {
	const struct snap_file *file;
	struct elfsym_file *handle;
	bool looked_up;
};

static struct file_cache *cache_of(struct file_cache *fc,
				   const struct snapshot *s,
				   const struct snap_file *f)
{
	return &fc[f - s->files];
}

/* The symbol table of the file mapped at @m, in @proc's root. */
static struct elfsym_file *file_handle(const struct snapshot *s,
				       struct symbolizer *sym,
				       struct file_cache *fc,
				       const struct snap_proc *proc,
				       const struct snap_map *m)
{
	struct file_cache *c = cache_of(fc, s, m->file);

	if (!c->looked_up && (proc->flags & FLAMESTAT_PROCF_OWN_ROOT)) {
		struct procroot root = {
			.tgid = proc->tgid,
			.root_dev = proc->root_dev,
			.root_ino = proc->root_ino,
		};

		c->handle = symbolize_file_in_root(sym, &root, proc->comm,
						   m->file->path, m->file->dev,
						   m->file->ino,
						   m->file->build_id,
						   m->file->build_id_size);
		c->looked_up = true;
	} else if (!c->looked_up) {
		c->handle = symbolize_file_inode(sym, m->file->path,
						 m->file->dev, m->file->ino,
						 m->file->build_id,
						 m->file->build_id_size);
		c->looked_up = true;
	}
	return c->handle;
}

/*
 * The frames of a user address, root first: one, or with inline frames
 * (symbolize_user_frames()) the functions inlined there too. *one holds
 * a lone frame.
 */
static size_t user_frames(const struct snapshot *s, struct symbolizer *sym,
			  struct file_cache *fc, const struct snap_proc *proc,
			  uint64_t addr, bool is_ret, const char **one,
			  const char *const **out)
{
	const struct snap_map *m = proc ? snap_proc_find_map(proc, addr) : NULL;

	*out = one;
	if (!m)
		*one = symbolize_unknown(sym, addr);
	/* A 32-bit task's vDSO is not ours (symbolize_vdso32()). */
	else if ((m->flags & FLAMESTAT_MAPF_VDSO) &&
		 (proc->flags & FLAMESTAT_PROCF_COMPAT))
		*one = symbolize_vdso32(sym, addr - m->start, is_ret);
	else if (m->flags & FLAMESTAT_MAPF_VDSO)
		*one = symbolize_vdso(sym, addr - m->start, is_ret);
	else if (!m->file)
		*one = symbolize_anon(sym, proc->tgid, proc->ns_tgid, addr,
				      is_ret);
	else
		return symbolize_user_frames(sym,
					     file_handle(s, sym, fc, proc, m),
					     addr - m->start + m->pgoff,
					     is_ret, out);
	return 1;
}

/*
 * The user leaves whose frame pointer was not set up, by object and
 * function (frame strings are the symbolizer's, so their pointers are
 * keys): open addressing, power-of-two size.
 */
struct leaf_count {
	const char *object;	/* basename, "[vdso]" */
	const char *frame;	/* the leaf's frame string */
	uint64_t count;
};

struct leaves {
	struct leaf_count *slots;
	size_t nr, cap;
	uint64_t user;		/* samples with a user leaf */
	uint64_t frameless;	/* of which at no frame pointer */
	/* Of the user stacks, by the stack's UNWIND_* flags. */
	uint64_t by_table, by_both, by_fp, stopped;
};

static void leaves_add(struct leaves *l, const char *object,
		       const char *frame, uint64_t count)
{
	size_t i;

	if (2 * (l->nr + 1) > l->cap) {
		struct leaf_count *old = l->slots;
		size_t cap = l->cap ? l->cap * 2 : 64, j;

		l->slots = xcalloc(cap, sizeof(*l->slots));
		for (j = 0; j < l->cap; j++) {
			if (!old[j].frame)
				continue;
			i = ((uintptr_t)old[j].frame * 0x9e3779b97f4a7c15ULL >>
			     7) & (cap - 1);
			while (l->slots[i].frame)
				i = (i + 1) & (cap - 1);
			l->slots[i] = old[j];
		}
		free(old);
		l->cap = cap;
	}
	i = ((uintptr_t)frame * 0x9e3779b97f4a7c15ULL >> 7) & (l->cap - 1);
	while (l->slots[i].frame &&
	       (l->slots[i].frame != frame || l->slots[i].object != object))
		i = (i + 1) & (l->cap - 1);
	if (!l->slots[i].frame) {
		l->slots[i].frame = frame;
		l->slots[i].object = object;
		l->nr++;
	}
	l->slots[i].count += count;
}

static int leaf_cmp(const void *a, const void *b)
{
	const struct leaf_count *x = a, *y = b;
	int r;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	r = strcmp(x->object, y->object);
	return r ? r : strcmp(x->frame, y->frame);
}

/* "libc.so.6 memcpy 61.2%, ..." of the most frequent three, or NULL. */
static char *leaves_top(struct leaves *l)
{
	struct strbuf sb = { 0 };
	char share[16];
	size_t i, n = 0, len;

	for (i = 0; i < l->cap; i++)
		if (l->slots[i].frame)
			l->slots[n++] = l->slots[i];
	qsort(l->slots, n, sizeof(*l->slots), leaf_cmp);
	for (i = 0; i < n && i < 3; i++) {
		const struct leaf_count *c = &l->slots[i];

		len = strlen(c->object);
		/* An unnamed leaf is "libc.so.6+0x9be75" already. */
		if (!strncmp(c->frame, c->object, len) && c->frame[len] == '+')
			sb_addf(&sb, "%s%s", i ? ", " : "", c->frame);
		else
			sb_addf(&sb, "%s%s %s", i ? ", " : "", c->object,
				c->frame);
		sb_addf(&sb, " %s", fmt_share(share, sizeof(share), c->count,
					      l->user));
	}
	if (n > 3)
		sb_adds(&sb, ", ...");
	return sb.buf;
}

/*
 * Counts @count samples whose user leaf is at @addr, named @frame: at an
 * address where its object's frame rules say no frame pointer is set up,
 * the frame-pointer walk skipped the leaf function's caller. A stack the
 * module walked with unwind tables (@by_table) skipped nothing.
 */
static void leaf_check(const struct snapshot *s, struct symbolizer *sym,
		       struct file_cache *fc, const struct snap_proc *proc,
		       uint64_t addr, const char *frame, uint64_t count,
		       bool by_table, struct leaves *l)
{
	const struct snap_map *m = proc ? snap_proc_find_map(proc, addr) : NULL;
	enum elfsym_cfa cfa = ELFSYM_CFA_UNKNOWN;
	const char *object = NULL;

	l->user += count;
	if (!m || by_table)
		return;
	if (m->flags & FLAMESTAT_MAPF_VDSO) {
		cfa = (proc->flags & FLAMESTAT_PROCF_COMPAT) ?
		      symbolize_vdso32_cfa(sym, addr - m->start) :
		      symbolize_vdso_cfa(sym, addr - m->start);
		object = "[vdso]";
	} else if (m->file) {
		cfa = elfsym_file_cfa(file_handle(s, sym, fc, proc, m),
				      addr - m->start + m->pgoff);
		object = path_basename(m->file->path);
	}
	if (cfa != ELFSYM_CFA_NO_FP)
		return;
	l->frameless += count;
	leaves_add(l, object, frame, count);
}

static const char *kernel_frame(const struct snapshot *s,
				struct symbolizer *sym, uint64_t v, bool is_ret)
{
	const struct snap_ksym *k = snapshot_find_ksym(s, v);

	if (k)
		return symbolize_kernel_named(sym, k->name, v);
	if (s->hdr.flags & FLAMESTAT_SNAPF_KADDR_HIDDEN)
		return symbolize_kernel_named(sym, "[unknown]", 0);
	return symbolize_kernel(sym, v, is_ret);
}

/*
 * What follows an off-CPU stack's leaf: "[off-cpu:S]" (D, R), then with
 * the waker's kernel stack "--" and its frames leaf first, so that its
 * root ends on top as in bcc's offwaketime, each suffixed "_[w]" where
 * kernel frames have "_[k]" (FlameGraph's chain palette colours them).
 * Into @out (room for nr_waker + 3); the names live in @sb until the
 * next call. Returns how many.
 */
static size_t offcpu_frames(const struct snapshot *s, struct symbolizer *sym,
			    const struct fold_opts *o,
			    const struct snap_stack *st, struct strbuf *sb,
			    const char **out)
{
	const struct flamestat_rec_stack *r = st->rec;
	size_t nw = o->no_kernel ? 0 : r->nr_waker, base, j, n = 0;
	size_t *off = xcalloc(nw + 1, sizeof(*off));

	sb_reset(sb);
	sb_addf(sb, PROFILE_OFFCPU_FRAME, st->state);
	sb_add(sb, "", 1);
	/* After the periods and the time; every one a return address. */
	base = (size_t)r->nr_kernel + r->nr_user + 2;
	for (j = 0; j < nw; j++) {
		const char *k = kernel_frame(s, sym, r->frames[base + j], true);
		size_t len = strlen(k);

		off[j] = sb->len;
		if (len >= 4 && !memcmp(k + len - 4, "_[k]", 4)) {
			sb_add(sb, k, len - 4);
			sb_adds(sb, "_[w]");
		} else {
			sb_add(sb, k, len);
		}
		sb_add(sb, "", 1);
	}
	/* The buffer may have moved while it grew: pointers only now. */
	out[n++] = sb->buf;
	if (nw)
		out[n++] = PROFILE_WAKER_DELIM;
	for (j = 0; j < nw; j++)
		out[n++] = sb->buf + off[j];
	/* Cut at its root end, which comes last (the module's text too). */
	if (nw && (r->flags & FLAMESTAT_STACKF_WAKER_TRUNCATED))
		out[n++] = o->annotate ? "[truncated]_[w]" : "[truncated]";
	free(off);
	return n;
}

/* The handles of fold_user_frame(): fold_snapshot()'s own cache. */
struct fold_files {
	struct file_cache *fc;
	const char *one;	/* fold_user_frames()'s lone frame */
};

struct fold_files *fold_files_new(const struct snapshot *s)
{
	struct fold_files *f = xcalloc(1, sizeof(*f));

	f->fc = xcalloc(s->nr_files ? s->nr_files : 1, sizeof(*f->fc));
	return f;
}

void fold_files_free(struct fold_files *f)
{
	if (f)
		free(f->fc);
	free(f);
}

size_t fold_user_frames(const struct snapshot *s, struct symbolizer *sym,
			struct fold_files *f, const struct snap_proc *proc,
			uint64_t addr, bool is_ret, const char *const **out)
{
	return user_frames(s, sym, f->fc, proc, addr, is_ret, &f->one, out);
}

const char *fold_kernel_frame(const struct snapshot *s, struct symbolizer *sym,
			      uint64_t v, bool is_ret)
{
	return kernel_frame(s, sym, v, is_ret);
}

int fold_snapshot(const struct snapshot *s, struct symbolizer *sym,
		  const struct fold_opts *o, struct profile *p)
{
	struct file_cache *fc = xcalloc(s->nr_files ? s->nr_files : 1,
					sizeof(*fc));
	size_t cap = 64, i;
	const char **frames = xcalloc(cap, sizeof(*frames));
	struct strbuf cpu = { 0 }, comm = { 0 }, waker = { 0 };
	struct leaves leaves = { 0 };
	bool timed = s->hdr.config.mode != FLAMESTAT_MODE_CPU;
	struct profile_meta meta;
	int ret = 0;

	for (i = 0; i < s->nr_stacks; i++) {
		const struct flamestat_rec_stack *r = s->stacks[i].rec;
		const struct snap_proc *proc = s->stacks[i].proc;
		size_t nk = o->no_kernel ? 0 : r->nr_kernel;
		size_t nu = o->no_user ? 0 : r->nr_user;
		/* The waker's are kernel frames too. */
		size_t nw = o->no_kernel ? 0 : r->nr_waker;
		size_t n = 0, j;

		if (cap < nk + nu + nw + 8) {
			/* roots, markers, delimiters */
			cap = nk + nu + nw + 8;
			frames = xreallocarray(frames, cap, sizeof(*frames));
		}
		sb_reset(&cpu);
		sb_reset(&comm);
		if (o->per_cpu && r->cpu != FLAMESTAT_CPU_ANY) {
			sb_addf(&cpu, "cpu-%u", r->cpu);
			frames[n++] = cpu.buf;
		}
		put_comm(&comm, r->comm, sizeof(r->comm));
		if (o->comm_pid)
			sb_addf(&comm, "-%u", r->tgid);
		frames[n++] = comm.buf;

		if (nu && (r->flags & FLAMESTAT_STACKF_USER_TRUNCATED))
			frames[n++] = "[truncated]";
		/* A walk by unwind tables that stopped before the outermost frame. */
		else if (nu && (r->flags & FLAMESTAT_STACKF_UNWIND_STOPPED))
			frames[n++] = "[incomplete]";
		for (j = nu; j-- > 0;) {
			const char *one, *const *uf;
			size_t k = user_frames(s, sym, fc, proc,
					       r->frames[r->nr_kernel + j],
					       j > 0, &one, &uf);

			if (cap < n + k + j + nk + nw + 8) { /* inline frames */
				cap = 2 * (n + k + j + nk + nw + 8);
				frames = xreallocarray(frames, cap,
						       sizeof(*frames));
			}
			memcpy(&frames[n], uf, k * sizeof(*frames));
			n += k;
		}
		if (nu) {
			uint32_t how = r->flags & (FLAMESTAT_STACKF_UNWIND_TABLE |
						   FLAMESTAT_STACKF_UNWIND_FP);

			if (how == FLAMESTAT_STACKF_UNWIND_TABLE)
				leaves.by_table += r->count;
			else if (how == FLAMESTAT_STACKF_UNWIND_FP)
				leaves.by_fp += r->count;
			else if (how)
				leaves.by_both += r->count;
			if (r->flags & FLAMESTAT_STACKF_UNWIND_STOPPED)
				leaves.stopped += r->count;
		}
		if (nu)
			leaf_check(s, sym, fc, proc, r->frames[r->nr_kernel],
				   frames[n - 1], r->count,
				   r->flags & FLAMESTAT_STACKF_UNWIND_TABLE,
				   &leaves);
		if (o->delimiter && nu && nk)
			frames[n++] = "-";
		/* Markers, not symbols: neither named nor counted as such. */
		if (nk && (r->flags & FLAMESTAT_STACKF_KERNEL_TRUNCATED))
			frames[n++] = o->annotate ? "[truncated]_[k]" :
				      "[truncated]";
		for (j = nk; j-- > 0;)
			/* Off-CPU stacks start at a return into __schedule. */
			frames[n++] = kernel_frame(s, sym, r->frames[j],
						   j > 0 || s->stacks[i].state);
		if (s->stacks[i].state)
			n += offcpu_frames(s, sym, o, &s->stacks[i], &waker,
					   &frames[n]);

		/*
		 * Its count is the periods (off-CPU and wall-clock: its time),
		 * its samples (blocks) are kept beside.
		 */
		if (profile_add_sampled(p, frames, n, timed ?
					s->stacks[i].time_ns :
					s->stacks[i].periods, r->count)) {
			fs_perror("cannot add a stack of %llu samples (%llu periods)",
				  (unsigned long long)r->count,
				  (unsigned long long)s->stacks[i].periods);
			ret = -1;
			break;
		}
	}
	if (!ret)
		profile_mark_sampled(p);
	fold_meta(s, &meta);
	/* Modules before unwind tables set none of the flags: nothing said. */
	if (leaves.by_table + leaves.by_both + leaves.by_fp) {
		meta.present |= PROFILE_META_UNWIND;
		meta.unwind_table = leaves.by_table;
		meta.unwind_mixed = leaves.by_both;
		meta.unwind_fp = leaves.by_fp;
		meta.unwind_stopped = leaves.stopped;
	}
	if (leaves.user) {
		meta.present |= PROFILE_META_FRAMELESS;
		meta.user_samples = leaves.user;
		meta.frameless = leaves.frameless;
		if (leaves.frameless)
			meta.frameless_top = leaves_top(&leaves);
	}
	profile_set_meta(p, &meta);
	free(meta.frameless_top);
	free(leaves.slots);
	sb_free(&cpu);
	sb_free(&comm);
	sb_free(&waker);
	free(frames);
	free(fc);
	return ret;
}
