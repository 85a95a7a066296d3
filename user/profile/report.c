// SPDX-License-Identifier: GPL-2.0
/* The text report: functions by self and total counts (see report.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "profile/report.h"

/* Counts (periods or samples, as the profile's), and samples beside. */
struct row {
	uint32_t name;
	uint64_t self;
	uint64_t total;
	uint64_t self_samples;
	uint64_t total_samples;
	/* Time profiles: STATE_* bits of the stacks in self and total. */
	unsigned int self_states;
	unsigned int total_states;
};

/* Where a time profile's stacks were: on a CPU, or off it in S, D, R. */
enum {
	STATE_ON = 1u << 0,
	STATE_S = 1u << 1,
	STATE_D = 1u << 2,
	STATE_R = 1u << 3,
};

struct sorter {
	const struct profile *p;
	bool by_total;
};

/* qsort has no context argument; reports are built one at a time. */
static struct sorter sort_ctx;

static int cmp_row(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	uint64_t kx = sort_ctx.by_total ? x->total : x->self;
	uint64_t ky = sort_ctx.by_total ? y->total : y->self;
	uint64_t sx = sort_ctx.by_total ? x->self : x->total;
	uint64_t sy = sort_ctx.by_total ? y->self : y->total;

	if (kx != ky)
		return kx > ky ? -1 : 1;
	if (sx != sy)
		return sx > sy ? -1 : 1;
	/* Ties by name, so the same profile always prints the same. */
	return strcmp(profile_name(sort_ctx.p, x->name),
		      profile_name(sort_ctx.p, y->name));
}

/*
 * The columns a profile can fill: its samples (the counts themselves for
 * a profile of samples), the CPU time of its counts, and the counts as
 * periods when they are periods of no known length.
 */
struct columns {
	bool samples;
	bool periods;
	uint64_t count_ns;	/* 0: no time column */
	/*
	 * Counts in ns (off-CPU, wall-clock): a time column in human units
	 * and one with the states the time was spent in, instead.
	 */
	bool timed;
};

static void columns_of(const struct profile *p, struct columns *c)
{
	bool periods = profile_meta(p)->unit == PROFILE_UNIT_PERIODS;

	c->timed = profile_meta(p)->unit == PROFILE_UNIT_NS &&
		   !profile_is_diff(p);
	c->count_ns = c->timed ? 0 : profile_count_ns(p);
	c->samples = !c->timed && (!periods || profile_has_samples(p));
	c->periods = periods && !c->count_ns;
}

/*
 * The STATE_* bit of each stack of a time profile: off-CPU stacks have an
 * "[off-cpu:S]" frame (the waker's frames follow it). Caller frees.
 */
static unsigned int *stack_states(const struct profile *p)
{
	size_t nnames = profile_nnames(p), nstacks = profile_nstacks(p), i, j;
	unsigned int *st = xcalloc(nstacks ? nstacks : 1, sizeof(*st));
	char *of = xcalloc(nnames ? nnames : 1, 1);
	struct profile_stack s;

	for (i = 0; i < nnames; i++)
		of[i] = profile_offcpu_state(profile_name(p, (uint32_t)i),
					     profile_name_len(p, (uint32_t)i));
	for (i = 0; i < nstacks; i++) {
		profile_stack(p, i, &s);
		st[i] = STATE_ON;
		for (j = 0; j < s.nframes; j++) {
			char c = of[s.frames[j]];

			if (c) {
				st[i] = c == 'S' ? STATE_S : c == 'D' ?
					STATE_D : STATE_R;
				break;
			}
		}
	}
	free(of);
	return st;
}

/* "on", "S", "on+D+S": the states of @bits, on first. */
static const char *states_text(unsigned int bits, char *buf, size_t size)
{
	static const struct {
		unsigned int bit;
		const char *name;
	} names[] = {
		{ STATE_ON, "on" }, { STATE_S, "S" }, { STATE_D, "D" },
		{ STATE_R, "R" },
	};
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if ((bits & names[i].bit) && len + 4 < size)
			len += (size_t)snprintf(buf + len, size - len, "%s%s",
						len ? "+" : "", names[i].name);
	return buf;
}

/*
 * "# flamestat report: wall-clock time 5.01 s: on-CPU 12.0 ms in 10
 * samples, off-CPU 5.00 s in 6 blocks (1 lost), ...": a time profile's
 * totals, split by where the time was.
 */
static void write_time_header(const struct profile *p,
			      const unsigned int *states, FILE *out)
{
	const struct profile_meta *m = profile_meta(p);
	double on = 0, off = 0, d = (double)profile_pow10(profile_decimals(p));
	uint64_t on_n = 0, off_n = 0;
	char a[PROFILE_TIME_BUF], b[PROFILE_TIME_BUF], note[640];
	struct profile_stack s;
	size_t i;

	for (i = 0; i < profile_nstacks(p); i++) {
		profile_stack(p, i, &s);
		if (states[i] == STATE_ON) {
			on += (double)s.count / d;
			on_n += s.samples;
		} else {
			off += (double)s.count / d;
			off_n += s.samples;
		}
	}
	fprintf(out, "# flamestat report: %s time %s",
		m->mode == PROFILE_MODE_WALL ? "wall-clock" : "off-CPU",
		profile_fmt_ns(a, sizeof(a), on + off));
	if (m->mode == PROFILE_MODE_WALL) {
		fprintf(out, ": on-CPU %s", profile_fmt_ns(a, sizeof(a), on));
		if (profile_has_samples(p))
			fprintf(out, " in %" PRIu64 " samples", on_n);
		fprintf(out, ", off-CPU %s", profile_fmt_ns(b, sizeof(b), off));
	}
	if (profile_has_samples(p))
		fprintf(out, " in %" PRIu64 " blocks", off_n);
	if ((m->present & PROFILE_META_BLOCKS) && m->blocks_lost)
		fprintf(out, " (%" PRIu64 " lost)", m->blocks_lost);
	if (m->mode == PROFILE_MODE_WALL && (m->present & PROFILE_META_FREQ))
		fprintf(out, ", %llu Hz", (unsigned long long)m->freq);
	if (m->present & PROFILE_META_CPUS)
		fprintf(out, ", %llu CPUs", (unsigned long long)m->cpus);
	if (m->present & PROFILE_META_DURATION)
		fprintf(out, ", %.1f s", (double)m->duration_ns / 1e9);
	fputc('\n', out);
	if (profile_throttle_note(m, note, sizeof(note)))
		fprintf(out, "# note: %s\n", note);
	if (profile_unwind_note(m, note, sizeof(note)))
		fprintf(out, "# %s\n", note);
	if (profile_frameless_note(m, false, note, sizeof(note)))
		fprintf(out, "# note: %s\n", note);
}

/*
 * "# flamestat report: 100 samples (108 taken, 8 lost), 0.130 s of CPU
 * time (130 periods of 1.003 ms), 997 Hz, ...": the samples behind the
 * counts and the time they stand for, from the stacks or else from the
 * header's totals.
 */
static void write_header(const struct profile *p, uint64_t total,
			 const struct columns *c, FILE *out)
{
	const struct profile_meta *m = profile_meta(p);
	uint64_t period_ns = profile_period_ns(m);
	uint64_t np = profile_total_periods(p);
	unsigned int d = profile_decimals(p);
	char note[640], num[PROFILE_COUNT_BUF];

	/* Counts in the profile's decimals ("0.5"); the header's are whole. */
	if (c->samples)
		fprintf(out, "# flamestat report: %s samples",
			profile_fmt_count(num, profile_total_samples(p), d,
					  false));
	else if (m->present & PROFILE_META_SAMPLES)
		fprintf(out, "# flamestat report: %" PRIu64 " samples",
			m->samples);
	else
		fprintf(out, "# flamestat report: %s periods",
			profile_fmt_count(num, total, d, false));
	if (m->present & PROFILE_META_RECORDED &&
	    m->present & PROFILE_META_DROPPED)
		fprintf(out, " (%llu taken, %llu lost)",
			(unsigned long long)m->recorded,
			(unsigned long long)m->dropped);
	if (period_ns && np)
		fprintf(out, ", %.3f s of CPU time (%s periods of %.3f ms)",
			profile_count_double(np, d) * (double)period_ns / 1e9,
			profile_fmt_count(num, np, d, false),
			(double)period_ns / 1e6);
	if (m->present & PROFILE_META_FREQ)
		fprintf(out, ", %llu Hz", (unsigned long long)m->freq);
	if (m->present & PROFILE_META_CPUS)
		fprintf(out, ", %llu CPUs", (unsigned long long)m->cpus);
	if (m->present & PROFILE_META_DURATION)
		fprintf(out, ", %.1f s", (double)m->duration_ns / 1e9);
	if (m->present & PROFILE_META_COST)
		fprintf(out, ", sampler cost %.0f ns/sample", m->cost_ns);
	fputc('\n', out);
	if (profile_throttle_note(m, note, sizeof(note)))
		fprintf(out, "# note: %s\n", note);
	if (profile_unwind_note(m, note, sizeof(note)))
		fprintf(out, "# %s\n", note);
	if (profile_frameless_note(m, false, note, sizeof(note)))
		fprintf(out, "# note: %s\n", note);
}

int report_write(const struct profile *p, const struct report_opts *o,
		 FILE *out)
{
	size_t nnames = profile_nnames(p), nstacks = profile_nstacks(p);
	struct row *rows = xcalloc(nnames ? nnames : 1, sizeof(*rows));
	/* Stack-local "seen" marks, so recursion counts a total once. */
	uint64_t *seen = xcalloc(nnames ? nnames : 1, sizeof(*seen));
	uint64_t total = profile_total(p), shown = 0;
	unsigned int d = profile_decimals(p);
	char num[PROFILE_COUNT_BUF];
	struct columns col;
	unsigned int *states = NULL;
	size_t i, j, nrows = 0;

	columns_of(p, &col);
	if (col.timed)
		states = stack_states(p);
	for (i = 0; i < nnames; i++)
		rows[i].name = (uint32_t)i;
	for (i = 0; i < nstacks; i++) {
		struct profile_stack s;
		struct row *r;

		profile_stack(p, i, &s);
		if (s.nframes <= o->skip_roots)
			continue;
		r = &rows[s.frames[s.nframes - 1]];
		r->self += s.count;
		r->self_samples += s.samples;
		if (states)
			r->self_states |= states[i];
		for (j = o->skip_roots; j < s.nframes; j++) {
			if (seen[s.frames[j]] == i + 1)
				continue;
			seen[s.frames[j]] = i + 1;
			rows[s.frames[j]].total += s.count;
			rows[s.frames[j]].total_samples += s.samples;
			if (states)
				rows[s.frames[j]].total_states |= states[i];
		}
	}
	free(seen);
	for (i = 0; i < nnames; i++)
		if (rows[i].total)
			rows[nrows++] = rows[i];
	sort_ctx.p = p;
	sort_ctx.by_total = o->sort_total;
	qsort(rows, nrows, sizeof(*rows), cmp_row);

	if (col.timed)
		write_time_header(p, states, out);
	else
		write_header(p, total, &col, out);
	fprintf(out, "# sorted by %s%s\n#\n",
		o->sort_total ? "total (self + callees)" : "self",
		o->no_children ? "" : "; Total = self + callees");
	/*
	 * Samples and time are the sort's: self, or total if shown. Time
	 * profiles: the time, and where it was (on a CPU, off it in S, D, R).
	 */
	fprintf(out, "#     Self%s%s%s%s%s  Function\n",
		o->no_children ? "" : "    Total",
		col.samples ? "     Samples" : "",
		col.periods ? "     Periods" : "",
		col.count_ns ? "      CPU ms" : "",
		col.timed ? "        Time  State   " : "");
	for (i = 0; i < nrows; i++) {
		const struct row *r = &rows[i];
		uint64_t key = o->sort_total ? r->total : r->self;
		/* Without the Total column, the numbers are self's. */
		bool shows_total = o->sort_total && !o->no_children;
		uint64_t n = shows_total ? r->total : r->self;
		uint64_t n_samples = shows_total ? r->total_samples :
				     r->self_samples;
		double self = total ? 100.0 * (double)r->self / (double)total : 0;
		double tot = total ? 100.0 * (double)r->total / (double)total : 0;

		if (o->limit && shown == o->limit)
			break;
		if ((o->sort_total ? tot : self) < o->min_pct || !key)
			break;
		fprintf(out, "  %7.2f%%", self);
		if (!o->no_children)
			fprintf(out, "  %6.2f%%", tot);
		if (col.samples)
			fprintf(out, "  %10s",
				profile_fmt_count(num, n_samples, d, false));
		if (col.periods)
			fprintf(out, "  %10s",
				profile_fmt_count(num, n, d, false));
		if (col.count_ns)
			fprintf(out, "  %10.2f", profile_count_double(n, d) *
				(double)col.count_ns / 1e6);
		if (col.timed) {
			char t[PROFILE_TIME_BUF], st[16];

			fprintf(out, "  %10s  %-8s",
				profile_fmt_ns(t, sizeof(t),
					       profile_count_double(n, d)),
				states_text(shows_total ? r->total_states :
					    r->self_states, st, sizeof(st)));
		}
		fprintf(out, "  %s\n", profile_name(p, r->name));
		shown++;
	}
	if (shown < nrows)
		fprintf(out, "# %zu more functions not shown (--limit, --min)\n",
			nrows - (size_t)shown);
	free(rows);
	free(states);
	if (fflush(out) || ferror(out)) {
		if (!errno)
			errno = EIO;
		return -1;
	}
	return 0;
}
