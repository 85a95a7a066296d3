// SPDX-License-Identifier: GPL-2.0
/* The text report: functions by self and total samples (see report.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "profile/report.h"

struct row {
	uint32_t name;
	uint64_t self;
	uint64_t total;
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

static void write_header(const struct profile *p, uint64_t total,
			 FILE *out)
{
	const struct profile_meta *m = profile_meta(p);
	char note[640];

	fprintf(out, "# flamestat report: %llu samples",
		(unsigned long long)total);
	if (m->present & PROFILE_META_RECORDED &&
	    m->present & PROFILE_META_DROPPED)
		fprintf(out, " (%llu taken, %llu lost)",
			(unsigned long long)m->recorded,
			(unsigned long long)m->dropped);
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
	size_t i, j, nrows = 0;

	for (i = 0; i < nnames; i++)
		rows[i].name = (uint32_t)i;
	for (i = 0; i < nstacks; i++) {
		struct profile_stack s;

		profile_stack(p, i, &s);
		if (s.nframes <= o->skip_roots)
			continue;
		rows[s.frames[s.nframes - 1]].self += s.count;
		for (j = o->skip_roots; j < s.nframes; j++) {
			if (seen[s.frames[j]] == i + 1)
				continue;
			seen[s.frames[j]] = i + 1;
			rows[s.frames[j]].total += s.count;
		}
	}
	free(seen);
	for (i = 0; i < nnames; i++)
		if (rows[i].total)
			rows[nrows++] = rows[i];
	sort_ctx.p = p;
	sort_ctx.by_total = o->sort_total;
	qsort(rows, nrows, sizeof(*rows), cmp_row);

	write_header(p, total, out);
	fprintf(out, "# sorted by %s%s\n#\n",
		o->sort_total ? "total (self + callees)" : "self",
		o->no_children ? "" : "; Total = self + callees");
	if (o->no_children)
		fprintf(out, "#     Self     Samples  Function\n");
	else
		fprintf(out, "#     Self    Total     Samples  Function\n");
	for (i = 0; i < nrows; i++) {
		const struct row *r = &rows[i];
		uint64_t key = o->sort_total ? r->total : r->self;
		double self = total ? 100.0 * (double)r->self / (double)total : 0;
		double tot = total ? 100.0 * (double)r->total / (double)total : 0;

		if (o->limit && shown == o->limit)
			break;
		if ((o->sort_total ? tot : self) < o->min_pct || !key)
			break;
		if (o->no_children)
			fprintf(out, "  %7.2f%%  %10llu  %s\n", self,
				(unsigned long long)r->self,
				profile_name(p, r->name));
		else
			fprintf(out, "  %7.2f%%  %6.2f%%  %10llu  %s\n", self,
				tot, (unsigned long long)(o->sort_total ?
							  r->total : r->self),
				profile_name(p, r->name));
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
