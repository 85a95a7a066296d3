/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Writing a profile as folded stacks, an SVG flame graph, a report, a
 * speedscope file or pprof, to a file (replaced atomically) or standard
 * output; the format follows the file name unless given. Shared by
 * record, report and fold.
 */
#ifndef FLAMESTAT_OUTPUT_H
#define FLAMESTAT_OUTPUT_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "profile/profile.h"
#include "profile/report.h"
#include "profile/snapshot.h"
#include "render/svg.h"

struct svg_output;

enum out_format {
	OUT_AUTO,	/* from the file name; folded for standard output */
	OUT_FOLDED,
	OUT_SVG,
	OUT_REPORT,
	OUT_RAW,	/* the binary snapshot (.fstat); record only */
	OUT_SPEEDSCOPE,	/* speedscope's JSON (.speedscope.json) */
	OUT_PPROF,	/* gzip'd profile.proto (.pb.gz, .pprof) */
};

struct out_opts {
	enum out_format format;
	const char *path;	/* NULL or "-": standard output */
	/*
	 * Set: out_write() writes here (and flushes, never closes), path only
	 * names it in messages.
	 */
	FILE *stream;
	bool header;		/* folded: a "# flamestat:" metadata line */
	bool count_samples;	/* --count samples: count samples, not the
				 * periods they stand for */
	bool quiet;		/* no notes on stderr */
	struct svg_options svg;
	struct report_opts report;
	/*
	 * Opened already (record opens its outputs before sampling): written
	 * to, not closed, by out_write(). NULL: out_write() opens path.
	 */
	struct svg_output *opened;
};

void out_opts_init(struct out_opts *o);
/*
 * "folded", "svg", "report", "raw", "speedscope", "pprof"; -1 when
 * unknown (nothing printed).
 */
int out_format_parse(const char *name, enum out_format *f);
/*
 * The file name extension of a format, without the dot: "folded", "svg",
 * "report", "fstat" (raw); a format's name unless it says otherwise.
 */
const char *out_format_ext(enum out_format f);
/* --count periods|samples into o; -1 after reporting a bad value. */
int out_count_parse(const char *arg, struct out_opts *o);
/* --count's help line, for the commands that write a recording. */
extern const char out_count_help[];
/* The format for o->path and o->format: never OUT_AUTO. */
enum out_format out_format_resolve(const struct out_opts *o);

/* Report options (codes 0x280..) shared by report and record. */
extern const struct option report_getopt_options[];
extern const char report_options_help[];
int report_handle_option(struct report_opts *o, int opt, const char *arg);

/*
 * Writes @p (not OUT_RAW); with count_samples, its counts become its
 * samples first (profile_count_samples()). Folded text without the
 * header whose counts are periods other than the samples gets a note on
 * stderr saying so, unless quiet. Returns 0, or -1 after reporting.
 */
int out_write(struct profile *p, const struct out_opts *o);
/*
 * For writers of their own (pprof from a snapshot): where @o writes (the
 * output record opened before sampling, a stream of the caller's, or
 * @o->path opened here; 0, or -1 after reporting), and after writing, with
 * @r 0 or < 0 and errno, the error reported and the file put in place or
 * removed (0, or -1).
 */
int out_target_open(const struct out_opts *o, struct svg_output *out);
int out_target_close(const struct out_opts *o, struct svg_output *out, int r);

/*
 * pprof from a snapshot itself rather than from its folded stacks, so
 * that it keeps addresses, mappings, pids and CPUs (pprof/pprof.h): @s
 * symbolized as @src says; @live: taken from the module just now. In
 * output_pprof.c. Returns 0, or -1 after reporting.
 */
struct src_opts;
int out_write_pprof_snapshot(const struct snapshot *s, bool live,
			     const struct src_opts *src,
			     const struct out_opts *o);
/*
 * -1 after saying so when @o would write pprof's binary to a terminal:
 * checked before recording, so that no recording is lost to it.
 */
int out_check_terminal(const struct out_opts *o);

#endif
