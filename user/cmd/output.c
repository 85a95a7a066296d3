// SPDX-License-Identifier: GPL-2.0
/* Writing a profile as folded stacks, SVG, a report, speedscope JSON or pprof. */
#include <errno.h>
#include <string.h>

#include "cmd/output.h"
#include "cmd/svg_cli.h"
#include "lib/util.h"
#include "render/speedscope.h"
#include "pprof/pprof.h"

enum {
	OPT_LIMIT = 0x280, OPT_SORT, OPT_NO_CHILDREN, OPT_MIN, OPT_ROOTS,
};

const struct option report_getopt_options[] = {
	{ "limit", required_argument, NULL, OPT_LIMIT },
	{ "sort", required_argument, NULL, OPT_SORT },
	{ "no-children", no_argument, NULL, OPT_NO_CHILDREN },
	{ "min", required_argument, NULL, OPT_MIN },
	{ "roots", required_argument, NULL, OPT_ROOTS },
	{ NULL, 0, NULL, 0 },
};

const char report_options_help[] =
"Report options:\n"
"  --sort self|total      order by self time (default) or by total time,\n"
"                         callees included (perf's --children)\n"
"  --no-children          leave the Total column out\n"
"  --limit N              at most N functions (default 50; 0: all)\n"
"  --min PCT              hide functions below PCT percent\n"
"  --roots N              leading frames that are not functions (default 1:\n"
"                         the comm frame; 0 for folded files without it)\n";

void out_opts_init(struct out_opts *o)
{
	memset(o, 0, sizeof(*o));
	svg_options_init(&o->svg);
	o->report.limit = 50;
	o->report.skip_roots = 1;
}

const char out_count_help[] =
"      --count WHAT       what a stack's count is: periods (default), the\n"
"                         sampling periods its samples stand for (x the\n"
"                         period: its CPU time), or samples\n";

int out_count_parse(const char *arg, struct out_opts *o)
{
	if (!strcmp(arg, "periods")) {
		o->count_samples = false;
	} else if (!strcmp(arg, "samples")) {
		o->count_samples = true;
	} else {
		fs_err("--count '%s': expected periods or samples", arg);
		return -1;
	}
	return 0;
}

static const struct {
	const char *name;
	enum out_format f;
} out_formats[] = {
	{ "folded", OUT_FOLDED }, { "svg", OUT_SVG },
	{ "report", OUT_REPORT }, { "raw", OUT_RAW },
	{ "speedscope", OUT_SPEEDSCOPE }, { "pprof", OUT_PPROF },
};

int out_format_parse(const char *name, enum out_format *f)
{
	size_t i;

	for (i = 0; i < sizeof(out_formats) / sizeof(out_formats[0]); i++) {
		if (!strcmp(name, out_formats[i].name)) {
			*f = out_formats[i].f;
			return 0;
		}
	}
	return -1;
}

const char *out_format_ext(enum out_format f)
{
	size_t i;

	/* Where the name is not the extension. */
	switch (f) {
	case OUT_RAW:
		return "fstat";
	case OUT_AUTO:
		return "folded";
	case OUT_SPEEDSCOPE:
		return "speedscope.json";
	case OUT_PPROF:
		return "pb.gz";
	default:
		break;
	}
	for (i = 0; i < sizeof(out_formats) / sizeof(out_formats[0]); i++)
		if (out_formats[i].f == f)
			return out_formats[i].name;
	return "out";
}

enum out_format out_format_resolve(const struct out_opts *o)
{
	const char *p = o->path;

	if (o->format != OUT_AUTO)
		return o->format;
	if (p && strcmp(p, "-")) {
		if (path_has_suffix(p, ".svg"))
			return OUT_SVG;
		if (path_has_suffix(p, ".fstat"))
			return OUT_RAW;
		if (path_has_suffix(p, ".report"))
			return OUT_REPORT;
		if (path_has_suffix(p, ".speedscope.json"))
			return OUT_SPEEDSCOPE;
		if (path_has_suffix(p, ".pb.gz") || path_has_suffix(p, ".pprof"))
			return OUT_PPROF;
	}
	return OUT_FOLDED;
}

int report_handle_option(struct report_opts *o, int opt, const char *arg)
{
	uint64_t v;
	double d;

	switch (opt) {
	case OPT_LIMIT:
		if (parse_u64(arg, 0, 1000000000, &v)) {
			fs_err("--limit '%s': expected a decimal number of rows", arg);
			return -1;
		}
		o->limit = (unsigned int)v;
		return 0;
	case OPT_SORT:
		if (!strcmp(arg, "self")) {
			o->sort_total = false;
		} else if (!strcmp(arg, "total")) {
			o->sort_total = true;
		} else {
			fs_err("--sort '%s': expected self or total", arg);
			return -1;
		}
		return 0;
	case OPT_NO_CHILDREN:
		o->no_children = true;
		return 0;
	case OPT_MIN:
		if (parse_decimal(arg, &d) || d < 0 || d > 100) {
			fs_err("--min '%s': expected a decimal percentage 0..100", arg);
			return -1;
		}
		o->min_pct = d;
		return 0;
	case OPT_ROOTS:
		if (parse_u64(arg, 0, 16, &v)) {
			fs_err("--roots '%s': expected a decimal number 0..16", arg);
			return -1;
		}
		o->skip_roots = (unsigned int)v;
		return 0;
	}
	return 1;
}

/*
 * Folded text without the header has one count per stack and nothing to
 * say what it is: when the periods are not the samples, say so here.
 */
static void note_periods(const struct profile *p)
{
	uint64_t periods = profile_total(p), samples;
	unsigned int d = profile_decimals(p);
	char a[PROFILE_COUNT_BUF], b[PROFILE_COUNT_BUF];

	if (profile_meta(p)->unit != PROFILE_UNIT_PERIODS ||
	    !profile_has_samples(p))
		return;
	samples = profile_total_samples(p);
	if (periods != samples)
		fs_note("the counts are the sampling periods the samples stand for, %s for %s samples (a sample also stands for the periods its CPU's timer missed by firing late): --count samples counts samples, --header adds a line with both totals",
			profile_fmt_count(a, periods, d, false),
			profile_fmt_count(b, samples, d, false));
}

/* speedscope's title: the recording's, else the file's name. */
static const char *speedscope_name(const struct profile *p,
				   const struct out_opts *o)
{
	const struct profile_meta *m = profile_meta(p);

	if ((m->present & PROFILE_META_TITLE) && m->title && *m->title)
		return m->title;
	if (o->path && strcmp(o->path, "-"))
		return path_basename(o->path);
	return "flamestat";
}

/*
 * Where @o writes: the output record opened before sampling, a stream of
 * the caller's (record --interval), or @o->path, opened here.
 */
int out_target_open(const struct out_opts *o, struct svg_output *out)
{
	if (o->opened) {
		*out = *o->opened;
		return 0;
	}
	if (o->stream) {
		memset(out, 0, sizeof(*out));
		out->f = o->stream;
		return 0;
	}
	return svg_output_open(out, o->path);
}

/*
 * After writing (@r: 0, or < 0 with errno when the write failed): says so,
 * and puts a file opened by out_target_open() in place (or removes it);
 * the caller's own outputs are only flushed. 0, or -1.
 */
int out_target_close(const struct out_opts *o, struct svg_output *out, int r)
{
	if (r < 0 && errno)
		fs_perror("cannot write %s", o->path && strcmp(o->path, "-") ?
			  o->path : "standard output");
	if (o->opened)
		return r ? -1 : 0;
	if (o->stream) {
		if (!r && fflush(o->stream)) {
			fs_perror("cannot write %s", o->path);
			r = -1;
		}
		return r ? -1 : 0;
	}
	return svg_output_close(out, r == 0) || r ? -1 : 0;
}

int out_write(struct profile *p, const struct out_opts *o)
{
	enum out_format f = out_format_resolve(o);
	struct svg_output out;
	int r = 0;

	if (o->count_samples && profile_count_samples(p)) {
		fs_err("--count samples: the input has the periods of each stack, not its samples (folded text has one count): fold the recording itself with --count samples");
		return -1;
	}
	if (out_target_open(o, &out))
		return -1;
	switch (f) {
	case OUT_SVG:
		r = svg_render(p, &o->svg, out.f);
		/* 1: no samples; an SVG saying so is written and reported. */
		if (r > 0)
			r = 0;
		break;
	case OUT_REPORT:
		r = report_write(p, &o->report, out.f);
		break;
	case OUT_SPEEDSCOPE:
		r = speedscope_write(p, speedscope_name(p, o), out.f);
		break;
	case OUT_PPROF: {
		struct pprof_opts po = { .count_samples = o->count_samples };

		r = pprof_write_profile(p, &po, out.f);
		break;
	}
	default:
		if (!o->header && !o->quiet)
			note_periods(p);
		r = profile_write_folded(p, out.f,
					 o->header ? PROFILE_WRITE_HEADER : 0);
		break;
	}
	return out_target_close(o, &out, r);
}
