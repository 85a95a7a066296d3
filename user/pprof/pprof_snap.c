// SPDX-License-Identifier: GPL-2.0
/* A snapshot as pprof, with mappings, addresses and labels (pprof.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "pprof/pprof.h"
#include "pprof/pprof_int.h"
#include "sym/demangle.h"

#define KERNEL_MAPPING "[kernel.kallsyms]"

struct snap_pprof {
	struct pp_builder b;
	const struct snapshot *s;
	struct symbolizer *sym;
	struct fold_files *files;
	bool raw_names;		/* the user asked for mangled names */
	uint64_t kmap;		/* the kernel mapping; 0 until used */
	uint64_t kmin, kmax;	/* its addresses */
	uint64_t *locs;
	size_t cap;
};

static unsigned long resolved(struct symbolizer *sym)
{
	struct symbolize_stats st;

	symbolizer_stats(sym, &st);
	return st.user_resolved + st.jit_resolved + st.vdso_resolved +
	       st.kernel_resolved;
}

/*
 * The function of a frame the symbolizer named @raw (mangled, since it
 * runs with raw names): demangled as folding would show it, unless the
 * user asked for raw names; the mangled name is its system name. @whole:
 * the name is one symbol (a file's); else, as for kernel and JIT names, a
 * mangled name ends at the first space (" [module]" is kept as it is).
 */
static uint64_t function_of(struct snap_pprof *c, const char *raw, bool whole)
{
	size_t len = whole ? strlen(raw) : strcspn(raw, " ");
	char *bare, *dem, *name;
	uint64_t id;

	if (c->raw_names || !demangle_is_candidate(raw))
		return ppb_function(&c->b, raw, raw);
	bare = xstrndup(raw, len);
	dem = demangle(bare);
	free(bare);
	if (!dem)
		return ppb_function(&c->b, raw, raw);
	name = xasprintf("%s%s", dem, raw + len);
	free(dem);
	id = ppb_function(&c->b, name, raw);
	free(name);
	return id;
}

static uint64_t marker(struct snap_pprof *c, const char *name)
{
	return ppb_location(&c->b, 0, 0, ppb_function(&c->b, name, NULL));
}

static uint64_t kernel_location(struct snap_pprof *c, uint64_t v, bool is_ret)
{
	unsigned long before = resolved(c->sym);
	const char *name = fold_kernel_frame(c->s, c->sym, v, is_ret);
	uint64_t fn = resolved(c->sym) > before ? function_of(c, name, false) : 0;

	if (!c->kmap) {
		struct pp_mapping_key k = { .file = KERNEL_MAPPING };

		c->kmap = ppb_mapping(&c->b, &k);
		c->kmin = v;
	}
	if (v < c->kmin)
		c->kmin = v;
	if (v > c->kmax)
		c->kmax = v;
	return ppb_location(&c->b, c->kmap, v, fn);
}

/* One more slot in c->locs, which holds @n. */
static void locs_reserve(struct snap_pprof *c, size_t n)
{
	if (n < c->cap)
		return;
	c->cap = 2 * n + 8;
	c->locs = xreallocarray(c->locs, c->cap, sizeof(*c->locs));
}

/*
 * The locations of user address @addr appended at c->locs[*n]: one, or
 * with inline frames one per function inlined there, innermost first as
 * the sample's locations go (each a location of its own at that address).
 */
static void user_locations(struct snap_pprof *c, const struct snap_proc *proc,
			   uint64_t addr, bool is_ret, size_t *n)
{
	const struct snap_map *m = proc ? snap_proc_find_map(proc, addr) : NULL;
	unsigned long before = resolved(c->sym);
	const char *const *names;
	size_t nr = fold_user_frames(c->s, c->sym, c->files, proc, addr,
				     is_ret, &names);
	bool named = resolved(c->sym) > before;
	struct pp_mapping_key k = { 0 };
	uint64_t map = 0;

	if (m) {
		k.start = m->start;
		k.limit = m->end;
		k.offset = m->pgoff;
		if (m->flags & FLAMESTAT_MAPF_VDSO) {
			k.file = "[vdso]";
		} else if (m->file) {
			k.file = m->file->path;
			k.build_id = m->file->build_id;
			k.build_id_size = m->file->build_id_size;
		} else {
			k.file = "[anon]";
		}
		map = ppb_mapping(&c->b, &k);
	}
	/* JIT names come as perf maps give them, like kernel names. */
	while (nr--) {
		locs_reserve(c, *n + 3);
		c->locs[(*n)++] = ppb_location(&c->b, map, addr,
					       named ? function_of(c, names[nr],
								   m && m->file) :
						       0);
	}
}

/*
 * The labels of @st; returns how many, at most 4: comm, pid, cpu, and in
 * off-CPU and wall-clock profiles "state": on, S, D or R.
 */
static size_t labels_of(struct snap_pprof *c, const struct snap_stack *st,
			pp_label **l)
{
	const struct flamestat_rec_stack *r = st->rec;
	size_t n = 0, len = strnlen(r->comm, sizeof(r->comm));

	if (len) {
		char *comm = xstrndup(r->comm, len);

		l[n++] = ppb_label_str(&c->b, "comm", comm);
		free(comm);
	}
	l[n++] = ppb_label_num(&c->b, "pid", r->tgid);
	if (r->cpu != FLAMESTAT_CPU_ANY)
		l[n++] = ppb_label_num(&c->b, "cpu", r->cpu);
	if (c->s->hdr.config.mode != FLAMESTAT_MODE_CPU) {
		char state[2] = { st->state, '\0' };

		l[n++] = ppb_label_str(&c->b, "state",
				       st->state ? state : "on");
	}
	return n;
}

/* One stack record as a sample, leaf first; -1 on an overflow. */
static int add_stack(struct snap_pprof *c, const struct snap_stack *st,
		     const struct fold_opts *fo, uint64_t period_ns)
{
	const struct flamestat_rec_stack *r = st->rec;
	size_t nk = fo->no_kernel ? 0 : r->nr_kernel;
	size_t nu = fo->no_user ? 0 : r->nr_user;
	size_t nw = fo->no_kernel ? 0 : r->nr_waker;
	uint64_t values[2] = { r->count, 0 };
	pp_label *labels[4];
	size_t n = 0, j;
	char off[16];

	if (c->cap < nk + nu + nw + 5) {
		/* two markers, the delimiter, [off-cpu:S] and -- */
		c->cap = nk + nu + nw + 5;
		c->locs = xreallocarray(c->locs, c->cap, sizeof(*c->locs));
	}
	/*
	 * Off-CPU stacks, leaf first as fold's lines reversed: the waker's
	 * frames root first, "--", then "[off-cpu:S]" above the stack's own.
	 */
	if (st->state) {
		for (j = nw; j-- > 0;)
			c->locs[n++] = kernel_location(c,
				r->frames[r->nr_kernel + r->nr_user + 2 + j],
				true);
		if (nw)
			c->locs[n++] = marker(c, PROFILE_WAKER_DELIM);
		snprintf(off, sizeof(off), PROFILE_OFFCPU_FRAME, st->state);
		c->locs[n++] = marker(c, off);
	}
	for (j = 0; j < nk; j++)
		c->locs[n++] = kernel_location(c, r->frames[j],
					       j > 0 || st->state);
	if (nk && (r->flags & FLAMESTAT_STACKF_KERNEL_TRUNCATED))
		c->locs[n++] = marker(c, "[truncated]");
	if (fo->delimiter && nu && nk)
		c->locs[n++] = marker(c, "-");
	for (j = 0; j < nu; j++)
		user_locations(c, st->proc, r->frames[r->nr_kernel + j], j > 0,
			       &n);
	if (nu && (r->flags & FLAMESTAT_STACKF_USER_TRUNCATED))
		c->locs[n++] = marker(c, "[truncated]");
	/* Off-CPU and wall-clock: the stack's time, as fold counts it. */
	if (c->s->hdr.config.mode != FLAMESTAT_MODE_CPU)
		values[1] = st->time_ns;
	else if (period_ns &&
		 __builtin_mul_overflow(st->periods, period_ns, &values[1])) {
		errno = EOVERFLOW;
		return -1;
	}
	return ppb_sample(&c->b, c->locs, n, values, labels,
			  labels_of(c, st, labels));
}

static void add_comments(struct snap_pprof *c, const struct profile_meta *m)
{
	char *text, note[256];

	text = xasprintf("flamestat %s: %llu samples standing for %llu sampling periods at %llu Hz on %llu CPUs",
			 FLAMESTAT_VERSION, (unsigned long long)m->samples,
			 (unsigned long long)m->sample_periods,
			 (unsigned long long)m->freq,
			 (unsigned long long)m->cpus);
	ppb_comment(&c->b, text);
	free(text);
	if (m->dropped) {
		text = xasprintf("%llu of the %llu samples taken were lost (tables full, faults) and are not in this profile",
				 (unsigned long long)m->dropped,
				 (unsigned long long)m->recorded);
		ppb_comment(&c->b, text);
		free(text);
	}
	if (profile_throttle_note(m, note, sizeof(note)))
		ppb_comment(&c->b, note);
}

int pprof_write_snapshot(const struct snapshot *s,
			 const struct symbolize_opts *so,
			 const struct fold_opts *fo, const struct pprof_opts *o,
			 FILE *verbose, FILE *f)
{
	static const pp_value_type vt_init = PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
	struct symbolize_opts sopts = *so;
	struct snap_pprof c = { .s = s, .raw_names = so->raw };
	struct profile_meta meta;
	const char *time_type = "cpu";
	uint64_t period_ns;
	pp_mapping *km;
	size_t i;
	int ret = 0;

	/* Raw names, to keep the mangled ones; no suffixes: mappings say. */
	sopts.raw = true;
	sopts.annotate = false;
	c.sym = symbolizer_new(&sopts);
	c.files = fold_files_new(s);
	ppb_init(&c.b);
	fold_meta(s, &meta);
	period_ns = profile_period_ns(&meta);

	/*
	 * Off-CPU and wall-clock time: "off-cpu" or "wall" nanoseconds, the
	 * samples counting blocks too; the period is the sampling period
	 * (wall) or one ns (offcpu: no timer).
	 */
	if (meta.unit == PROFILE_UNIT_NS) {
		time_type = meta.mode == PROFILE_MODE_WALL ? "wall" : "off-cpu";
		if (meta.mode == PROFILE_MODE_OFFCPU || !period_ns)
			period_ns = 1;
	}
	ppb_sample_type(&c.b, "samples", "count");
	if (period_ns) {
		ppb_sample_type(&c.b, time_type, "nanoseconds");
		c.b.msg.period_type = xmalloc(sizeof(*c.b.msg.period_type));
		*c.b.msg.period_type = vt_init;
		c.b.msg.period_type->type = ppb_str(&c.b, time_type);
		c.b.msg.period_type->unit = ppb_str(&c.b, "nanoseconds");
		c.b.msg.period = (int64_t)period_ns;
	}
	c.b.msg.default_sample_type =
		ppb_str(&c.b, o->count_samples || !period_ns ? "samples" :
			time_type);
	c.b.msg.duration_nanos = meta.duration_ns > INT64_MAX ? 0 :
				 (int64_t)meta.duration_ns;
	c.b.msg.time_nanos = o->time_ns;
	add_comments(&c, &meta);

	for (i = 0; i < s->nr_stacks && !ret; i++) {
		if (add_stack(&c, &s->stacks[i], fo, period_ns)) {
			fs_err("cannot write pprof: a stack of %llu samples (%llu periods) is past what pprof's signed 64-bit values hold, alone or summed",
			       (unsigned long long)s->stacks[i].rec->count,
			       (unsigned long long)s->stacks[i].periods);
			errno = 0;
			ret = -1;
		}
	}
	km = ppb_mapping_get(&c.b, c.kmap);
	if (km) {
		km->memory_start = c.kmin;
		km->memory_limit = c.kmax == UINT64_MAX ? c.kmax : c.kmax + 1;
	}
	if (!ret)
		ret = ppb_write(&c.b, f);
	if (verbose)
		symbolizer_dump(c.sym, verbose);
	ppb_free(&c.b);
	free(c.locs);
	fold_files_free(c.files);
	symbolizer_free(c.sym);
	return ret;
}
