/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPU time for the sampler to see: the module drops idle time by default,
 * so a client that only sleeps while sampling may record nothing at all.
 */
#ifndef FLAMESTAT_TESTS_BUSY_H
#define FLAMESTAT_TESTS_BUSY_H

#include <time.h>

/* Keeps this CPU busy in user space for @ms milliseconds. */
static inline void burn_cpu_ms(long ms)
{
	struct timespec t0, t;
	unsigned long sum = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		/*
		 * The empty asm takes the sum as an input and output, so the
		 * compiler must compute every step (a volatile local that is
		 * only stored to is "set but not used" for GCC 16).
		 */
		for (int i = 0; i < 10000; i++) {
			sum += (unsigned long)i;
			__asm__ volatile("" : "+r"(sum));
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 +
		 (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

#endif
