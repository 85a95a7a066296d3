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
};

static void columns_of(const struct profile *p, struct columns *c)
{
	bool periods = profile_meta(p)->unit == PROFILE_UNIT_PERIODS;

	c->count_ns = profile_count_ns(p);
	c->samples = !periods || profile_has_samples(p);
	c->periods = periods && !c->count_ns;
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
	size_t i, j, nrows = 0;

	columns_of(p, &col);
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
		for (j = o->skip_roots; j < s.nframes; j++) {
			if (seen[s.frames[j]] == i + 1)
				continue;
			seen[s.frames[j]] = i + 1;
			rows[s.frames[j]].total += s.count;
			rows[s.frames[j]].total_samples += s.samples;
		}
	}
	free(seen);
	for (i = 0; i < nnames; i++)
		if (rows[i].total)
			rows[nrows++] = rows[i];
	sort_ctx.p = p;
	sort_ctx.by_total = o->sort_total;
	qsort(rows, nrows, sizeof(*rows), cmp_row);

	write_header(p, total, &col, out);
	fprintf(out, "# sorted by %s%s\n#\n",
		o->sort_total ? "total (self + callees)" : "self",
		o->no_children ? "" : "; Total = self + callees");
	/* Samples and time are the sort's: self, or total if shown. */
	fprintf(out, "#     Self%s%s%s%s  Function\n",
		o->no_children ? "" : "    Total",
		col.samples ? "     Samples" : "",
		col.periods ? "     Periods" : "",
		col.count_ns ? "      CPU ms" : "");
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
		fprintf(out, "  %s\n", profile_name(p, r->name));
		shown++;
	}
	if (shown < nrows)
		fprintf(out, "# %zu more functions not shown (--limit, --min)\n",
			nrows - (size_t)shown);
	free(rows);
	if (fflush(out) || ferror(out)) {
		if (!errno)
			errno = EIO;
		return -1;
	}
	return 0;
}
