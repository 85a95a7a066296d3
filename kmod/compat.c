// SPDX-License-Identifier: GPL-2.0
/* Version-dependent kernel API that needs a function body (see compat.h). */
#include <linux/cpumask.h>
#include <linux/hrtimer.h>
#include <linux/sched/isolation.h>

#include "compat.h"

/**
 * fst_hrtimer_setup() - set up a hard-irq hrtimer on CLOCK_MONOTONIC
 * @t: the timer
 * @fn: its callback
 *
 * hrtimer_setup() replaced hrtimer_init() and ->function in 6.13.
 *
 * Context: process context.
 */
void fst_hrtimer_setup(struct hrtimer *t,
		       enum hrtimer_restart (*fn)(struct hrtimer *))
{
#ifdef FST_HAVE_HRTIMER_SETUP
	hrtimer_setup(t, fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
#else
	hrtimer_init(t, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	t->function = fn;
#endif
}

/**
 * fst_housekeeping_cpus() - the CPUs the kernel does not isolate
 * @dst: the result: possible CPUs that are neither nohz_full nor isolcpus
 *
 * Those are the CPUs sampled when the configuration names none: an
 * isolated CPU runs one latency-critical task without ticks or kernel
 * noise, and a profiler's timer there is exactly the noise it was isolated
 * from. The flags became enum hk_type values in 5.19 (HK_TYPE_TICK is an
 * alias of HK_TYPE_KERNEL_NOISE from 6.15).
 *
 * Context: any.
 */
void fst_housekeeping_cpus(struct cpumask *dst)
{
#ifdef FST_HAVE_HK_TYPE
	cpumask_and(dst, housekeeping_cpumask(HK_TYPE_TICK),
		    housekeeping_cpumask(HK_TYPE_DOMAIN));
#else
	cpumask_and(dst, housekeeping_cpumask(HK_FLAG_TICK),
		    housekeeping_cpumask(HK_FLAG_DOMAIN));
#endif
	cpumask_and(dst, dst, cpu_possible_mask);
}
