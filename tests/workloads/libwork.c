// SPDX-License-Identifier: GPL-2.0
/*
 * Workload whose time goes to a shared library: main -> work_loop ->
 * lib_hot -> lib_inner, the last two in libfsbusy.so (found next to the
 * executable through its $ORIGIN rpath).
 *
 *   libwork [-l LOOPS] [SECONDS]
 */
#include "common.h"
#include "libfsbusy.h"

#define USAGE "libwork [-l LOOPS] [SECONDS]"

volatile unsigned long sink;

/* Calls into the library until the deadline or for @loops calls. */
NOINLINE unsigned long work_loop(unsigned long long end, unsigned long loops)
{
	unsigned long seed = 1, i;

	if (loops) {
		for (i = 0; i < loops; i++)
			seed = lib_hot(seed);
	} else {
		do
			seed = lib_hot(seed);
		while (now_ns() < end);
	}
	sink = seed;
	return seed;
}

int main(int argc, char **argv)
{
	unsigned long long duration = 1000000000ULL;
	unsigned long loops = 0;
	int opt;

	while ((opt = getopt(argc, argv, "l:")) != -1) {
		if (opt != 'l')
			die_usage(USAGE);
		loops = parse_count(optarg, 1UL << 40, USAGE);
	}
	if (optind < argc - 1)
		die_usage(USAGE);
	if (optind == argc - 1)
		duration = parse_seconds(argv[optind], USAGE);
	sink = work_loop(now_ns() + duration, loops);
	return 0;
}
