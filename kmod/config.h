/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A sampling configuration: what the timers sample and how, converted from
 * and to the ABI's struct flamestat_config.
 */
#ifndef FLAMESTAT_CONFIG_H
#define FLAMESTAT_CONFIG_H

#include <linux/cpumask.h>
#include <linux/types.h>

#include "uapi/flamestat.h"

/* The configuration in force; changed only with every timer stopped. */
struct fst_cfg {
	u32 flags;		/* FLAMESTAT_CFG_* */
	u32 freq;
	u16 kernel_depth;
	u16 user_depth;
	u32 nr_pids;
	pid_t pids[FLAMESTAT_MAX_PIDS];	/* global tgids */
	u32 vpids[FLAMESTAT_MAX_PIDS];	/* as the configuring process gave them */
	struct cpumask cpus;	/* CPUs to sample (all possible if no mask) */
	u64 period_ns;
	u32 mode;		/* enum flamestat_mode */
	u32 min_block_us;	/* off-CPU blocks shorter are not recorded */
};

/* Does @cfg sample on-CPU stacks with the timers? */
static inline bool fst_cfg_oncpu(const struct fst_cfg *cfg)
{
	return cfg->mode != FLAMESTAT_MODE_OFFCPU;
}

/* Does @cfg record off-CPU time at context switches? */
static inline bool fst_cfg_offcpu(const struct fst_cfg *cfg)
{
	return cfg->mode != FLAMESTAT_MODE_CPU;
}

int fst_cfg_from_user(struct fst_cfg *cfg, const struct flamestat_config *u);
void fst_cfg_to_user(const struct fst_cfg *cfg, struct flamestat_config *u);
void fst_cfg_set_freq(struct fst_cfg *cfg, u32 hz);
int fst_mode_parse(const char *name);
int fst_unwind_parse(const char *name);
void fst_cfg_set_mode(struct fst_cfg *cfg, u32 mode);

#endif /* FLAMESTAT_CONFIG_H */
