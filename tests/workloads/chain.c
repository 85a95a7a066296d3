// SPDX-License-Identifier: GPL-2.0
/*
 * CPU-bound workload with a known call chain: main -> outer -> middle ->
 * hot_leaf, nearly all of the time in hot_leaf.
 *
 *   chain [-c] [-l LOOPS] [SECONDS]   spin for SECONDS (default 1), or
 *                                exactly LOOPS calls of outer() (for
 *                                benchmarks); -c: print "cpu_ns N", the
 *                                CPU time it used, at the end
 */
#include "common.h"

#define USAGE "chain [-c] [-l LOOPS] [SECONDS]"

volatile unsigned long sink;

NOINLINE unsigned long hot_leaf(unsigned long seed)
{
	return spin_body(SPIN_ITERS, seed);
}

NOINLINE unsigned long middle(unsigned long seed)
{
	unsigned long r = hot_leaf(seed);

	sink = r;
	return r + 1;
}

NOINLINE unsigned long outer(unsigned long seed)
{
	unsigned long r = middle(seed);

	sink = r;
	return r + 1;
}

int main(int argc, char **argv)
{
	unsigned long long end, duration = 1000000000ULL;
	unsigned long loops = 0, i, seed = 1;
	int opt, cpu = 0;

	while ((opt = getopt(argc, argv, "cl:")) != -1) {
		if (opt == 'c')
			cpu = 1;
		else if (opt == 'l')
			loops = parse_count(optarg, 1UL << 40, USAGE);
		else
			die_usage(USAGE);
	}
	if (optind < argc - 1)
		die_usage(USAGE);
	if (optind == argc - 1)
		duration = parse_seconds(argv[optind], USAGE);

	if (loops) {
		for (i = 0; i < loops; i++)
			seed = outer(seed);
	} else {
		end = now_ns() + duration;
		do
			seed = outer(seed);
		while (now_ns() < end);
	}
	sink = seed;
	if (cpu)
		printf("cpu_ns %llu\n", thread_cpu_ns());
	return 0;
}
