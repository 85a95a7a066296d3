// SPDX-License-Identifier: GPL-2.0
/*
 * flamestat report and flamestat fold: the top functions, or folded stacks
 * (or pprof), from the live module, a raw .fstat recording or a folded file.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/output.h"
#include "cmd/source.h"
#include "lib/util.h"

static void usage(FILE *out, bool fold)
{
	if (fold)
		fprintf(out,
"Usage: flamestat fold [OPTIONS] [FILE]\n"
"\n"
"Write folded stacks (\"comm;frame;...;leaf COUNT\", root first), ready for\n"
"'flamestat svg', flamegraph.pl or inferno, from FILE: a raw recording\n"
"(.fstat, from 'flamestat record --raw') or folded text. Without FILE,\n"
"from the live module: everything recorded since its last reset, while\n"
"sampling goes on. Raw recordings are symbolized here, so read them on the\n"
"machine that recorded them, before the binaries change. COUNT is the\n"
"sampling periods the stack's samples stand for (a sample also stands for\n"
"the periods its CPU's timer missed by firing late), so that widths are\n"
"CPU time; --count samples counts samples.\n"
"\n"
"Options:\n"
"  -o, --output FILE      write FILE instead of standard output; FILE.pb.gz\n"
"                         or FILE.pprof: in pprof's format, and\n"
"                         FILE.speedscope.json in speedscope's\n"
"      --format F         folded (default), speedscope (JSON for\n"
"                         speedscope.app, one profile per command, per\n"
"                         process with --comm-pid) or pprof (gzip'd\n"
"                         profile.proto for go tool pprof, Pyroscope or\n"
"                         Parca, with addresses, mappings and comm/pid/cpu\n"
"                         labels; both samples and CPU time, --count picks\n"
"                         the one shown first)\n"
"      --header           a '# flamestat:' line with the totals first (both\n"
"                         samples and periods, and which COUNT is)\n"
"%s"
"  -h, --help             this text\n"
"\n%s"
"\n"
"Examples:\n"
"  flamestat fold run.fstat > run.folded\n"
"  flamestat fold --comm-pid --delimiter run.fstat | flamegraph.pl > run.svg\n"
"  flamestat fold -o run.pb.gz run.fstat && go tool pprof -top run.pb.gz\n"
"  sudo flamestat fold > now.folded\n"
"  flamestat fold run.fstat -o run.speedscope.json\n"
"\n"
"Exit status: 0 written, 1 failure (also: FILE empty, corrupt or without\n"
"samples), 2 bad option, 3 not root, 4 module not loaded, 5 ABI mismatch.\n"
"See flamestat-fold(1).\n",
			out_count_help, src_options_help);
	else
		fprintf(out,
"Usage: flamestat report [OPTIONS] [FILE]\n"
"\n"
"Print the functions where the CPU time went: Self is the share of the CPU\n"
"time in the function itself, Total also counts what it called (like perf\n"
"report --no-children and --children); each row gives its samples and the\n"
"CPU time they stand for (the sampling periods that passed, a late timer's\n"
"missed ones included). FILE is a raw recording (.fstat, from 'flamestat\n"
"record --raw') or folded stacks ('-': standard input); without FILE, the\n"
"live module: everything recorded since its last reset.\n"
"\n"
"Options:\n"
"  -o, --output FILE      write FILE instead of standard output\n"
"%s"
"  -h, --help             this text\n"
"\n%s\n%s"
"\n"
"Examples:\n"
"  flamestat report run.fstat\n"
"  flamestat report --sort total --limit 20 app.folded\n"
"  perf script | stackcollapse-perf.pl | flamestat report --roots 1 -\n"
"  sudo flamestat report --min 1\n"
"\n"
"Exit status: 0 written, 1 failure (also: FILE empty, corrupt or without\n"
"samples), 2 bad option, 3 not root, 4 module not loaded, 5 ABI mismatch.\n"
"See flamestat-report(1).\n",
			out_count_help, report_options_help, src_options_help);
}

enum { OPT_HEADER = 0x380, OPT_COUNT, OPT_FORMAT };

/* fold: the snapshot goes to pprof as it is, not folded first. */
struct pprof_ctx {
	const struct src_opts *src;
	const struct out_opts *out;
	bool samples;		/* the snapshot had a stack */
};

static int write_pprof(const struct snapshot *s, bool live, void *ctx)
{
	struct pprof_ctx *c = ctx;

	c->samples = s->nr_stacks > 0;
	return out_write_pprof_snapshot(s, live, c->src, c->out);
}

static int run(int argc, char **argv, bool fold)
{
	static const struct option own[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "header", no_argument, NULL, OPT_HEADER },
		{ "count", required_argument, NULL, OPT_COUNT },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct option *longopts = getopt_concat(own, src_getopt_options,
						fold ? NULL :
						report_getopt_options);
	struct out_opts out;
	struct src_opts src;
	struct pprof_ctx pc = { &src, &out, false };
	struct profile *p;
	const char *path = NULL;
	bool took_snapshot;
	int c, r, ret = EXIT_OK;

	out_opts_init(&out);
	src_opts_init(&src);
	out.format = fold ? OUT_AUTO : OUT_REPORT;
	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out.path = optarg;
			break;
		case OPT_HEADER:
			if (!fold)
				goto bad;
			out.header = true;
			break;
		case OPT_COUNT:
			if (out_count_parse(optarg, &out))
				goto bad;
			break;
		case OPT_FORMAT:
			if (!fold) {
				fs_err("--format: report writes a report (fold writes other formats)");
				goto bad;
			}
			if (out_format_parse(optarg, &out.format) ||
			    (out.format != OUT_FOLDED &&
			     out.format != OUT_SPEEDSCOPE &&
			     out.format != OUT_PPROF)) {
				fs_err("--format '%s': expected folded, speedscope or pprof",
				       optarg);
				goto bad;
			}
			break;
		case 'h':
			usage(stdout, fold);
			free(longopts);
			return EXIT_OK;
		case '?':
			goto bad;
		default:
			r = src_handle_option(&src, c, optarg);
			if (r > 0 && !fold)
				r = report_handle_option(&out.report, c, optarg);
			if (r)
				goto bad;
		}
	}
	free(longopts);
	longopts = NULL;
	if (argc - optind > 1) {
		fs_err("one input at most ('%s' is extra)", argv[optind + 1]);
		goto bad;
	}
	if (optind < argc)
		path = argv[optind];
	if (src.fold.per_cpu)
		out.report.skip_roots++;
	/* fold: folded, whatever the name, but for speedscope's and pprof's. */
	if (fold && out.format == OUT_AUTO) {
		out.format = out_format_resolve(&out);
		if (out.format != OUT_SPEEDSCOPE && out.format != OUT_PPROF)
			out.format = OUT_FOLDED;
	}
	if (out_check_terminal(&out))
		return EXIT_FAIL;

	p = profile_new();
	if (out.format == OUT_PPROF)
		ret = src_load_with(path, &src, p, write_pprof, &pc,
				    &took_snapshot);
	else
		ret = src_load_with(path, &src, p, NULL, NULL, &took_snapshot);
	/* A snapshot was written by write_pprof(); folded text is here. */
	if (!ret && !(out.format == OUT_PPROF && took_snapshot) &&
	    out_write(p, &out))
		ret = EXIT_FAIL;
	/*
	 * An input without a sample (empty, or no line of it a stack) is a
	 * failure, as for svg, which draws its "no stack counts" graph: the
	 * (empty) output is written, the status is 1. The live module with
	 * nothing recorded yet is no failure.
	 */
	if (!ret && path &&
	    (out.format == OUT_PPROF && took_snapshot ? !pc.samples :
	     !profile_total2(p))) {
		if (took_snapshot)
			fs_err("%s: a recording of no samples",
			       strcmp(path, "-") ? path : "standard input");
		else
			fs_err("%s: no samples in it (is it folded, 'frame;frame;... COUNT' per line, or a raw .fstat recording?)",
			       strcmp(path, "-") ? path : "standard input");
		ret = EXIT_FAIL;
	}
	profile_free(p);
	return ret;
bad:
	free(longopts);
	fprintf(stderr, "Try 'flamestat %s --help'.\n", fold ? "fold" : "report");
	return EXIT_USAGE;
}

int do_report(int argc, char **argv)
{
	return run(argc, argv, false);
}

int do_fold(int argc, char **argv)
{
	return run(argc, argv, true);
}
