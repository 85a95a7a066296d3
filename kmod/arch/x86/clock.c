// SPDX-License-Identifier: GPL-2.0
/* x86: the TSC as the sampler's cost clock, when it can be used. */
#include <linux/math64.h>
#include <linux/time64.h>
#include <asm/cpufeature.h>
#include <asm/tsc.h>

#include "../../arch.h"

u32 fst_tsc_mult __read_mostly;

/**
 * fst_clock_init() - choose the cost clock
 *
 * TSC cycles are converted to ns when the TSC is there and calibrated;
 * otherwise fst_clock() reads sched_clock().
 *
 * Context: process context, at module load.
 */
void fst_clock_init(void)
{
	fst_tsc_mult = 0;
	if (boot_cpu_has(X86_FEATURE_TSC) && tsc_khz)
		fst_tsc_mult = div_u64((u64)NSEC_PER_MSEC << 24, tsc_khz);
}
