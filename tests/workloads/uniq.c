// SPDX-License-Identifier: GPL-2.0
/*
 * uniq: nearly every sample a stack never seen before, to fill the
 * module's tables. Each round walks a random path through 16 functions
 * (u0..u15, indirect calls) DEPTH levels deep and spins briefly at the
 * end, so there are 16^DEPTH distinct user stacks.
 *
 *   uniq [-d DEPTH] [SECONDS]       DEPTH 1..40 (default 12)
 */
#include <stdint.h>

#include "common.h"

#define USAGE "uniq [-d DEPTH] [SECONDS]"

typedef unsigned long (*ufn)(uint64_t path, int depth);
static ufn table[16];
volatile unsigned long sink;

#define U(n)								\
NOINLINE unsigned long u##n(uint64_t path, int depth)			\
{									\
	unsigned long r;						\
									\
	FORCE_FRAME();							\
	if (!depth)							\
		r = spin_body(2000, path + n);				\
	else								\
		r = table[path & 15]((path >> 4) | (path << 60), depth - 1); \
	sink = r;							\
	return r + n;							\
}
U(0) U(1) U(2) U(3) U(4) U(5) U(6) U(7)
U(8) U(9) U(10) U(11) U(12) U(13) U(14) U(15)

int main(int argc, char **argv)
{
	unsigned long long duration = 1000000000ULL, end;
	unsigned long depth = 12;
	uint64_t x = 88172645463325252ULL;
	int opt;

	while ((opt = getopt(argc, argv, "d:")) != -1) {
		if (opt != 'd')
			die_usage(USAGE);
		depth = parse_count(optarg, 40, USAGE);
	}
	if (!depth || optind < argc - 1)
		die_usage(USAGE);
	if (optind == argc - 1)
		duration = parse_seconds(argv[optind], USAGE);
	table[0] = u0; table[1] = u1; table[2] = u2; table[3] = u3;
	table[4] = u4; table[5] = u5; table[6] = u6; table[7] = u7;
	table[8] = u8; table[9] = u9; table[10] = u10; table[11] = u11;
	table[12] = u12; table[13] = u13; table[14] = u14; table[15] = u15;
	end = now_ns() + duration;
	do {
		/* xorshift64 */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		sink = table[x & 15](x >> 4, (int)depth - 1);
	} while (now_ns() < end);
	return 0;
}
