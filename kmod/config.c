// SPDX-License-Identifier: GPL-2.0
/*
 * Sampling configurations: validating what user space (an ioctl or the
 * module parameters) asks for, and giving it back in the ABI's form.
 */
#include <linux/math64.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/time64.h>

#include "compat.h"
#include "config.h"

/**
 * fst_cfg_from_user() - validate and convert a configuration from the ABI
 * @cfg: the result
 * @u: what user space asked for
 *
 * Pids are read in the caller's pid namespace; thread ids are taken as
 * their process.
 *
 * Context: process context.
 * Return: 0, -EINVAL for a field out of range or a reserved field set, or
 * -ESRCH for a pid that names no task.
 */
int fst_cfg_from_user(struct fst_cfg *cfg, const struct flamestat_config *u)
{
	unsigned int i, bits = nr_cpu_ids;

	if (u->flags & ~FLAMESTAT_CFG_ALL)
		return -EINVAL;
	if ((u->flags & FLAMESTAT_CFG_UNWIND_FP) &&
	    (u->flags & FLAMESTAT_CFG_UNWIND_TABLE))
		return -EINVAL;
	if (!(u->flags & (FLAMESTAT_CFG_KERNEL | FLAMESTAT_CFG_USER)))
		return -EINVAL;
	if (u->freq_hz < FLAMESTAT_MIN_FREQ || u->freq_hz > FLAMESTAT_MAX_FREQ)
		return -EINVAL;
	if (!u->kernel_depth || u->kernel_depth > FLAMESTAT_MAX_KERNEL_DEPTH ||
	    !u->user_depth || u->user_depth > FLAMESTAT_MAX_USER_DEPTH)
		return -EINVAL;
	if (u->nr_pids > FLAMESTAT_MAX_PIDS)
		return -EINVAL;
	if ((u->flags & FLAMESTAT_CFG_PID_TREE) && !u->nr_pids)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(u->reserved); i++)
		if (u->reserved[i])
			return -EINVAL;
	if (u->mode >= FLAMESTAT_NR_MODES)
		return -EINVAL;
	/* Wakers and block lengths are of off-CPU time. */
	if (u->mode == FLAMESTAT_MODE_CPU &&
	    ((u->flags & FLAMESTAT_CFG_WAKER) || u->min_block_us))
		return -EINVAL;
	/* A waker's stack is a kernel stack. */
	if ((u->flags & FLAMESTAT_CFG_WAKER) && !(u->flags & FLAMESTAT_CFG_KERNEL))
		return -EINVAL;
	for (i = u->nr_pids; i < FLAMESTAT_MAX_PIDS; i++)
		if (u->pids[i])
			return -EINVAL;

	memset(cfg, 0, sizeof(*cfg));
	cfg->flags = u->flags;
	cfg->freq = u->freq_hz;
	cfg->period_ns = div_u64(NSEC_PER_SEC + u->freq_hz / 2, u->freq_hz);
	cfg->kernel_depth = u->kernel_depth;
	cfg->user_depth = u->user_depth;
	cfg->mode = u->mode;
	cfg->min_block_us = u->min_block_us;

	if (u->flags & FLAMESTAT_CFG_CPUMASK) {
		for (i = 0; i < FLAMESTAT_MAX_CPUS; i++) {
			if (!(u->cpus[i / 64] & (1ULL << (i % 64))))
				continue;
			if (i >= bits)
				return -EINVAL;
			cpumask_set_cpu(i, &cfg->cpus);
		}
		if (cpumask_empty(&cfg->cpus))
			return -EINVAL;
	} else {
		for (i = 0; i < FLAMESTAT_CPUMASK_WORDS; i++)
			if (u->cpus[i])
				return -EINVAL;
		/* Isolated CPUs (nohz_full=, isolcpus=) only when named. */
		fst_housekeeping_cpus(&cfg->cpus);
	}

	for (i = 0; i < u->nr_pids; i++) {
		struct task_struct *task;

		if (!u->pids[i] || u->pids[i] > PID_MAX_LIMIT)
			return -EINVAL;
		rcu_read_lock();
		task = pid_task(find_vpid(u->pids[i]), PIDTYPE_PID);
		if (task)
			cfg->pids[i] = task_tgid_nr(task);
		rcu_read_unlock();
		if (!task)
			return -ESRCH;
		cfg->vpids[i] = u->pids[i];
	}
	cfg->nr_pids = u->nr_pids;
	return 0;
}

/**
 * fst_cfg_to_user() - a configuration in the ABI's form
 * @cfg: the configuration
 * @u: the result; pids as the configuring process gave them
 *
 * Context: any.
 */
void fst_cfg_to_user(const struct fst_cfg *cfg, struct flamestat_config *u)
{
	unsigned int cpu;

	memset(u, 0, sizeof(*u));
	u->flags = cfg->flags;
	u->freq_hz = cfg->freq;
	u->kernel_depth = cfg->kernel_depth;
	u->user_depth = cfg->user_depth;
	u->mode = cfg->mode;
	u->min_block_us = cfg->min_block_us;
	u->nr_pids = cfg->nr_pids;
	memcpy(u->pids, cfg->vpids, sizeof(u->pids));
	if (cfg->flags & FLAMESTAT_CFG_CPUMASK)
		for_each_cpu(cpu, &cfg->cpus)
			if (cpu < FLAMESTAT_MAX_CPUS)
				u->cpus[cpu / 64] |= 1ULL << (cpu % 64);
}

static const char *const fst_mode_names[FLAMESTAT_NR_MODES] = {
	[FLAMESTAT_MODE_CPU] = "cpu",
	[FLAMESTAT_MODE_OFFCPU] = "offcpu",
	[FLAMESTAT_MODE_WALL] = "wall",
};

/**
 * fst_mode_parse() - a mode by name
 * @name: "cpu", "offcpu" or "wall"
 *
 * Context: any.
 * Return: its enum flamestat_mode, or -EINVAL.
 */
int fst_mode_parse(const char *name)
{
	return match_string(fst_mode_names, ARRAY_SIZE(fst_mode_names), name);
}

/**
 * fst_unwind_parse() - a way of walking user stacks by name
 * @name: "auto", "fp" or "table"
 *
 * Context: any.
 * Return: its FLAMESTAT_CFG_UNWIND_* flags (0 for auto), or -EINVAL.
 */
int fst_unwind_parse(const char *name)
{
	if (!strcmp(name, "auto"))
		return 0;
	if (!strcmp(name, "fp"))
		return FLAMESTAT_CFG_UNWIND_FP;
	if (!strcmp(name, "table"))
		return FLAMESTAT_CFG_UNWIND_TABLE;
	return -EINVAL;
}

/**
 * fst_cfg_set_mode() - change a configuration's mode
 * @cfg: the configuration
 * @mode: an enum flamestat_mode
 *
 * CPU time has no blocks: the waker and minimum block go with it.
 *
 * Context: any.
 */
void fst_cfg_set_mode(struct fst_cfg *cfg, u32 mode)
{
	cfg->mode = mode;
	if (mode == FLAMESTAT_MODE_CPU) {
		cfg->flags &= ~FLAMESTAT_CFG_WAKER;
		cfg->min_block_us = 0;
	}
}

/**
 * fst_cfg_set_freq() - change a configuration's sampling frequency
 * @cfg: the configuration
 * @hz: samples per second per CPU, already checked against
 *	FLAMESTAT_MIN_FREQ..FLAMESTAT_MAX_FREQ
 *
 * Context: any.
 */
void fst_cfg_set_freq(struct fst_cfg *cfg, u32 hz)
{
	cfg->freq = hz;
	cfg->period_ns = div_u64(NSEC_PER_SEC + hz / 2, hz);
}
