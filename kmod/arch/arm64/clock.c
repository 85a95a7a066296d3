// SPDX-License-Identifier: GPL-2.0
/* arm64: the cost clock is sched_clock() (fst_arch.h), which needs no set-up. */
#include "../../arch.h"

/**
 * fst_clock_init() - choose the cost clock
 *
 * Nothing to choose on arm64: fst_clock() always reads sched_clock(), in ns.
 *
 * Context: process context, at module load.
 */
void fst_clock_init(void)
{
}
