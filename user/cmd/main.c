// SPDX-License-Identifier: GPL-2.0
/* flamestat: dispatch "flamestat SUBCOMMAND ..." to the subcommand's file. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "uapi/flamestat.h"

#include "cmd/commands.h"
#include "device/loadpolicy.h"
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
		"'flamestat COMMAND --help' describes a command, 'flamestat help\n"
		"COMMAND' shows its manual page; man flamestat has the details.\n");
}

/* The build tree's page, docs/man/NAME.1 above the tool, or NULL. */
static char *build_tree_page(const char *name)
{
	char *rel = xasprintf("../docs/man/%s.1", name);
	char *path = exe_relative_file(rel);

	free(rel);
	return path;
}

/*
 * flamestat help COMMAND: man flamestat-COMMAND (installed, else the
 * build tree's page); without man or the page, COMMAND --help.
 */
static int help_command(const struct command *c, char *prog)
{
	char page[64], out[256], *path;
	char *args[] = { prog, "--help", NULL };

	snprintf(page, sizeof(page), "flamestat-%s", c->name);
	fflush(NULL);
	if (fs_run_capture((char *const[]){ "man", "-w", page, NULL }, 1, out,
			   sizeof(out)) == 0)
		execlp("man", "man", page, (char *)NULL);
	path = build_tree_page(page);
	if (path)
		execlp("man", "man", "-l", path, (char *)NULL);
	free(path);
	return c->fn(2, args);
}

int main(int argc, char **argv)
{
	const struct command *c;
	static char prog[64];

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "help") && argc > 2) {
		for (c = commands; c->name; c++) {
			if (strcmp(argv[2], c->name))
				continue;
			snprintf(prog, sizeof(prog), "flamestat %s", c->name);
			fs_progname = prog;
			return help_command(c, prog);
		}
		fs_err("help: '%s' is not a command; 'flamestat --help' lists them",
		       argv[2]);
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
