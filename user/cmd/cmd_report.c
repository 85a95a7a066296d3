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
"                         or FILE.pprof: in pprof's format\n"
"      --format F         folded (default) or pprof: gzip'd profile.proto for\n"
"                         go tool pprof, Pyroscope or Parca, with addresses,\n"
"                         mappings and comm/pid/cpu labels; both samples and\n"
"                         CPU time, --count picks the one shown first\n"
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
"\n"
"Exit status: 0 written, 1 failure, 2 bad option, 3 not root, 4 module not\n"
"loaded, 5 ABI mismatch. See flamestat-fold(1).\n",
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
"Exit status: 0 written, 1 failure, 2 bad option, 3 not root, 4 module not\n"
"loaded, 5 ABI mismatch. See flamestat-report(1).\n",
			out_count_help, report_options_help, src_options_help);
}

enum { OPT_HEADER = 0x380, OPT_COUNT, OPT_FORMAT };

/* fold: the snapshot goes to pprof as it is, not folded first. */
struct pprof_ctx {
	const struct src_opts *src;
	const struct out_opts *out;
};

static int write_pprof(const struct snapshot *s, bool live, void *ctx)
{
	const struct pprof_ctx *c = ctx;

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
	struct pprof_ctx pc = { &src, &out };
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
			if (!fold)
				goto bad;
			if (out_format_parse(optarg, &out.format) ||
			    (out.format != OUT_FOLDED && out.format != OUT_PPROF)) {
				fs_err("--format '%s': expected folded or pprof",
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
	/* fold writes folded text whatever the name, but for pprof's. */
	if (fold && out.format == OUT_AUTO)
		out.format = out_format_resolve(&out) == OUT_PPROF ?
			     OUT_PPROF : OUT_FOLDED;
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
