// SPDX-License-Identifier: GPL-2.0
/* libfsbusy.so: lib_hot -> lib_inner, where libwork spends its CPU time. */
#include "common.h"
#include "libfsbusy.h"

volatile unsigned long lib_sink;

NOINLINE unsigned long lib_inner(unsigned long seed)
{
	return spin_body(SPIN_ITERS, seed);
}

NOINLINE unsigned long lib_hot(unsigned long seed)
{
	unsigned long r = lib_inner(seed);

	lib_sink = r;
	return r + 1;
}
