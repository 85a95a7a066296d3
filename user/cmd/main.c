// SPDX-License-Identifier: GPL-2.0
/* flamestat: dispatch "flamestat SUBCOMMAND ..." to the subcommand's file. */
#include <stdio.h>
#include <string.h>

#include "uapi/flamestat.h"

#include "cmd/commands.h"
#include "lib/util.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "record", do_record, "sample the system, processes or a command" },
	{ "report", do_report, "top functions by self and total samples" },
	{ "fold", do_fold, "folded stacks from a recording or the module" },
	{ "svg", do_svg, "draw an interactive flame graph from folded stacks" },
	{ "diff", do_diff, "differential flame graph of two folded profiles" },
	{ "status", do_status, "is the module loaded, running, dropping?" },
	{ NULL, NULL, NULL },
};

static void usage(FILE *out)
{
	const struct command *c;

	fprintf(out,
		"Usage: flamestat [--version] [--help] COMMAND [ARGS...]\n"
		"\n"
		"CPU time by stack, sampled by the flamestat kernel module.\n"
		"\n"
		"Commands:\n");
	for (c = commands; c->name; c++)
		fprintf(out, "  %-8s %s\n", c->name, c->summary);
	fprintf(out,
		"\n"
		"'flamestat COMMAND --help' describes a command; man flamestat\n"
		"has the details.\n");
}

int main(int argc, char **argv)
{
	const struct command *c;
	static char prog[64];

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("flamestat %s (ABI %d)\n", FLAMESTAT_VERSION,
		       FLAMESTAT_ABI_VERSION);
		return EXIT_OK;
	}
	for (c = commands; c->name; c++) {
		if (strcmp(argv[1], c->name))
			continue;
		snprintf(prog, sizeof(prog), "flamestat %s", c->name);
		fs_progname = prog;
		/* getopt prefixes its messages with argv[0]. */
		argv[1] = prog;
		return c->fn(argc - 1, argv + 1);
	}
	fs_err("'%s' is not a command; 'flamestat --help' lists them",
	       argv[1]);
	return EXIT_USAGE;
}
