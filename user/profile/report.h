/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The text report: functions by self counts (where the CPU was) and total
 * counts (self plus everything called from there), like
 * `perf report --stdio --no-children` and `--children`. The counts are the
 * profile's, periods (CPU time) for a recording; each row also gives the
 * samples behind them and their CPU time, when the profile knows them.
 */
#ifndef FLAMESTAT_REPORT_H
#define FLAMESTAT_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "profile/profile.h"

struct report_opts {
	bool sort_total;	/* sort by total (children) instead of self */
	bool no_children;	/* leave the Total column out */
	unsigned int limit;	/* rows; 0: all */
	double min_pct;		/* hide rows below this share of the counts */
	unsigned int skip_roots; /* leading frames that are not functions
				  * (comm, cpu-N): counted apart */
};

/* Writes the report of @p; returns 0, or -1 with errno on a write error. */
int report_write(const struct profile *p, const struct report_opts *o,
		 FILE *out);

#endif
