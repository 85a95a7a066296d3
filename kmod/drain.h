/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Draining: every CPU's retired table is merged into one merged table, the
 * aggregate, in process context. Sampling never pauses for it.
 */
#ifndef FLAMESTAT_DRAIN_H
#define FLAMESTAT_DRAIN_H

#include <linux/mutex.h>
#include <linux/workqueue.h>

#include "sampler.h"
#include "table.h"

/* The merged table, and the work that keeps it fed. */
struct fst_agg {
	struct mutex lock;	/* table; replacing sampler->procdb */
	struct fst_table table;
	struct fst_sampler *sampler;
	struct delayed_work work; /* drains every second while running */
};

int fst_agg_init(struct fst_agg *agg, struct fst_sampler *s, size_t bytes);
void fst_agg_free(struct fst_agg *agg);
void fst_drain(struct fst_agg *agg);
void fst_merge_arena(struct fst_agg *agg, const struct fst_counts *counts,
		     u64 *arena, u32 used);

#endif /* FLAMESTAT_DRAIN_H */
