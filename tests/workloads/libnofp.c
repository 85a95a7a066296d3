// SPDX-License-Identifier: GPL-2.0
/*
 * A shared library built as Debian builds its libraries (-O2, no frame
 * pointer), for the nofp workload: it calls back into the program, so a
 * stack goes program -> library -> program with no frame record in the
 * library's frames.
 */
#include "libnofp.h"

/* The callback's results, folded: keeps the loop from being optimised out. */
volatile unsigned long nf_lib_sink;

#ifdef NF_LIB_V2
/*
 * libnofp-v2.so, the library "rewritten in place" by tests/guest/29-unwind-
 * rewrite.sh: this function, with a 4 KiB frame, comes first and moves
 * nf_lib_apply() past the end of the first version's code, so that the
 * first version's unwind table has nothing right to say about it.
 */
unsigned long nf_lib_pad(unsigned long n);
unsigned long nf_lib_pad(unsigned long n)
{
	volatile unsigned char buf[4096];
	unsigned long i, acc = 0;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)(n + i);
	for (i = 0; i < sizeof(buf); i += 7)
		acc += buf[i] * (i | 1) + (acc >> 3) * n;
	__asm__ volatile(".skip 8192, 0x90");
	return acc;
}
#endif

unsigned long nf_lib_apply(unsigned long (*fn)(unsigned long), unsigned long n)
{
	unsigned long acc = 0, i;

	for (i = 0; i < n; i++)
		acc += fn(i ^ acc);
	nf_lib_sink = acc;
	return acc;
}

/* Returns at once: nofp -m edges calls it through the PLT. */
unsigned long nf_lib_nop(unsigned long x)
{
	return x + 1;
}
