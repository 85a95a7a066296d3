/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a profile comes from, for record, report and fold: the live module,
 * a raw .fstat snapshot, or folded text; and the command-line options that
 * shape symbolization and folding, shared by those commands.
 */
#ifndef FLAMESTAT_SOURCE_H
#define FLAMESTAT_SOURCE_H

#include <getopt.h>
#include <stdbool.h>

#include "profile/fold.h"
#include "profile/profile.h"
#include "profile/snapshot.h"
#include "sym/symbolize.h"

struct src_opts {
	struct symbolize_opts sym;
	struct fold_opts fold;
	bool verbose;		/* print what did and did not resolve */
};

void src_opts_init(struct src_opts *o);

/* getopt_long entries (codes 0x200..) and help text for src_handle_option. */
extern const struct option src_getopt_options[];
extern const char src_options_help[];
/* 0: taken; 1: not one of ours; -1: bad value (reported). */
int src_handle_option(struct src_opts *o, int opt, const char *arg);

/*
 * Symbolizes and folds @s into @p; @live: taken from the module just now.
 * Returns 0, or -1 after reporting.
 */
int src_fold_snapshot(const struct snapshot *s, bool live,
		      const struct src_opts *o, struct profile *p);

/*
 * Fills @p from @path: NULL reads the live module (everything recorded so
 * far, sampling goes on); a file starting with the snapshot magic is a raw
 * recording; anything else ("-": standard input) is folded text. Returns 0
 * or an exit status after reporting.
 */
int src_load(const char *path, const struct src_opts *o, struct profile *p);

/*
 * The same, but a snapshot (live or raw) goes to @fn, which returns 0 or
 * -1 after reporting, instead of being folded into @p; folded text still
 * fills @p. *@took_snapshot says which it was.
 */
typedef int (*src_snapshot_fn)(const struct snapshot *s, bool live,
			       void *ctx);
int src_load_with(const char *path, const struct src_opts *o,
		  struct profile *p, src_snapshot_fn fn, void *ctx,
		  bool *took_snapshot);

/* Concatenate getopt_long tables (each ends with a zero entry). Free it. */
struct option *getopt_concat(const struct option *a, const struct option *b,
			     const struct option *c);

#endif
