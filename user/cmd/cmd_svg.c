// SPDX-License-Identifier: GPL-2.0
/* flamestat svg: folded stacks (ours or any tool's) to an interactive SVG. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/svg_cli.h"
#include "lib/util.h"
#include "profile/profile.h"
#include "render/svg.h"

static void usage(FILE *out)
{
	fprintf(out,
"Usage: flamestat svg [OPTIONS] [FOLDED...] > graph.svg\n"
"\n"
"Draw an interactive flame graph from folded stacks: one line per stack,\n"
"\"frame;frame;frame COUNT\" (root first), as written by flamestat record,\n"
"stackcollapse-*.pl, inferno-collapse-* or bpftrace/bcc -f. Several files\n"
"are added together; none or \"-\" reads standard input. A second count\n"
"column (\"... BEFORE AFTER\") makes a differential graph. Lines that are\n"
"not stacks are reported with their line number and skipped.\n"
"\n"
"In the browser: hover for details, click to zoom, Ctrl-F to search\n"
"(regular expressions), \"ic\" or Ctrl-I for case-insensitive search; the\n"
"zoom and the search are kept in the URL.\n"
"\n"
"Options:\n"
"  -o, --output FILE      write FILE instead of standard output\n"
"  -h, --help             this text\n"
"\n"
"%s"
"\n"
"Long options also take one dash, as flamegraph.pl's: -title T, -width 800.\n"
"\n"
"Examples:\n"
"  flamestat svg app.folded > app.svg\n"
"  perf script | stackcollapse-perf.pl | flamestat svg --title 'make -j8' > make.svg\n"
"  flamestat svg --colors java --minwidth 0.5%% java.folded -o java.svg\n"
"  flamestat svg --inverted --countname bytes malloc.folded > icicle.svg\n"
"  grep ext4_ app.folded | flamestat svg --subtitle 'ext4 only' > ext4.svg\n"
"\n"
"Exit status: 0 written, 1 unreadable input, no stacks or write error,\n"
"2 bad option. See flamestat-svg(1).\n",
		svg_options_help);
}

int do_svg(int argc, char **argv)
{
	static const struct option own[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct option *longopts = svg_getopt_merge(own);
	const char *output = NULL;
	struct svg_options o;
	struct svg_output out;
	struct profile *p;
	int c, i, ret = EXIT_OK, r;

	svg_options_init(&o);
	while ((c = getopt_long_only(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case 'h':
			usage(stdout);
			free(longopts);
			return EXIT_OK;
		default:
			r = svg_handle_option(&o, c, optarg);
			if (r == 0)
				break;
			if (r > 0)
				fs_err("unknown option; 'flamestat svg --help' lists them");
			free(longopts);
			return EXIT_USAGE;
		}
	}
	free(longopts);
	if (svg_options_check(&o))
		return EXIT_USAGE;

	p = profile_new();
	if (o.flamechart)
		profile_keep_order(p);
	if (optind == argc && svg_read_path_enc(p, "-", o.encoding))
		ret = EXIT_FAIL;
	for (i = optind; i < argc && ret == EXIT_OK; i++)
		if (svg_read_path_enc(p, argv[i], o.encoding))
			ret = EXIT_FAIL;
	if (ret == EXIT_OK) {
		if (svg_output_open(&out, output)) {
			ret = EXIT_FAIL;
		} else {
			r = svg_render(p, &o, out.f);
			/* No stacks: the error SVG stays, as flamegraph.pl's. */
			if (svg_output_close(&out, r >= 0) || r)
				ret = EXIT_FAIL;
		}
	}
	profile_free(p);
	return ret;
}
