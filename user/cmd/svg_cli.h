/* SPDX-License-Identifier: GPL-2.0 */
/* Input and output files for the commands that draw flame graphs. */
#ifndef FLAMESTAT_SVG_CLI_H
#define FLAMESTAT_SVG_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

struct profile;

/*
 * Command-line plumbing shared by svg and diff. svg_read_path() reads one
 * folded file ("-" is standard input) into p, reporting problems itself;
 * returns 0 or -1. svg_output_open() opens path for writing (NULL or "-":
 * standard output) through a temporary file that svg_output_close()
 * renames into place only when ok, so a failed or killed run never leaves
 * half an SVG behind (lib/outfile.h); both return 0 or -1 after
 * reporting.
 */
struct svg_output {
	FILE *f;
	char *path;
	char *tmp;
};
int svg_read_path(struct profile *p, const char *path);
/* The same, the file in encoding (iconv's name; NULL: as it is). */
int svg_read_path_enc(struct profile *p, const char *path,
		      const char *encoding);
/* A getopt_long table: own's entries, then svg_getopt_options. Free it. */
struct option *svg_getopt_merge(const struct option *own);
int svg_output_open(struct svg_output *out, const char *path);
int svg_output_close(struct svg_output *out, bool ok);

#endif
