// SPDX-License-Identifier: GPL-2.0
/* Version-dependent kernel API that needs a function body (see compat.h). */
#include <linux/hrtimer.h>

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
