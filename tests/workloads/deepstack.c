// SPDX-License-Identifier: GPL-2.0
/*
 * Deep user stacks: main -> deep_start -> recurse x DEPTH -> deep_leaf,
 * so a sample in deep_leaf has DEPTH + 3 user frames of this program (plus
 * whatever libc frames sit under main). For depth limits, truncation and
 * benchmarks.
 *
 *   deepstack [-d DEPTH] [-l LOOPS] [-p PAUSE] [-t | -V] [SECONDS]
 *     DEPTH default 10, max 100000; -p: run, sleep PAUSE seconds, run again
 *     (the same stacks, before and after an idle time); -t: main ->
 *     deep_start -> twin_a x DEPTH -> twin_leaf, every other loop twin_b
 *     (a copy of twin_a) instead: two stacks that differ in the
 *     recursion's return address only; -V: main -> deep_start ->
 *     recurse_vla x DEPTH -> deep_leaf, frames of changing sizes
 */
#include "common.h"

#define USAGE "deepstack [-d DEPTH] [-l LOOPS] [-p PAUSE] [-t | -V] [SECONDS]"

volatile unsigned long sink;

NOINLINE unsigned long deep_leaf(unsigned long seed)
{
	return spin_body(SPIN_ITERS, seed);
}

NOINLINE unsigned long recurse(unsigned long n, unsigned long seed)
{
	unsigned long r;

	if (!n)
		return deep_leaf(seed);
	r = recurse(n - 1, seed);
	sink = n;
	return r ^ n;
}

/*
 * -V: recurse_vla instead of recurse, a frame of another size at each
 * depth (alloca(): the CFA stays FP + 16, with or without -fomit-frame-
 * pointer, while the distance between two frames changes).
 */
NOINLINE unsigned long recurse_vla(unsigned long n, unsigned long seed)
{
	volatile char *pad = __builtin_alloca(16 * (n % 4) + 16);
	unsigned long r;

	pad[0] = (char)n;
	if (!n)
		return deep_leaf(seed);
	r = recurse_vla(n - 1, seed);
	sink = n + (unsigned long)pad[0];
	return r ^ n;
}

/*
 * -t: twin_a and twin_b recurse down to twin_leaf through one indirect
 * call site each, and are called from one site: their stacks are the same
 * but for the recursion's return address.
 */
typedef unsigned long (*twin_fn)(unsigned long n, unsigned long seed);

NOINLINE unsigned long twin_leaf(unsigned long n, unsigned long seed)
{
	return spin_body(SPIN_ITERS, seed ^ n);
}

NOINLINE unsigned long twin_a(unsigned long n, unsigned long seed);
NOINLINE unsigned long twin_b(unsigned long n, unsigned long seed);
/* Volatile: calls through them stay indirect, from one site each. */
static twin_fn volatile twin_leaf_fn = twin_leaf;
static twin_fn volatile twin_fns[2] = { twin_a, twin_b };

NOINLINE unsigned long twin_a(unsigned long n, unsigned long seed)
{
	twin_fn next = n ? twin_fns[0] : twin_leaf_fn;
	unsigned long r = next(n - 1, seed);

	sink = n;
	return r ^ n;
}

/* twin_a's copy (another constant: not folded into it). */
NOINLINE unsigned long twin_b(unsigned long n, unsigned long seed)
{
	twin_fn next = n ? twin_fns[1] : twin_leaf_fn;
	unsigned long r = next(n - 1, seed);

	sink = n + 1;
	return r ^ n;
}

static int twin, vla;

/* The recursion of loop @i; inlined: deep_start calls it directly. */
static inline __attribute__((always_inline)) unsigned long
recurse_loop(unsigned long i, unsigned long n, unsigned long seed)
{
	if (vla)
		return recurse_vla(n, seed);
	return twin ? twin_fns[i & 1](n, seed) : recurse(n, seed);
}

NOINLINE unsigned long deep_start(unsigned long depth, unsigned long long end,
				  unsigned long loops)
{
	unsigned long seed = 1, i;

	/* recurse(n) puts n + 1 recurse frames on the stack. */
	if (loops) {
		for (i = 0; i < loops; i++)
			seed = recurse_loop(i, depth - 1, seed);
	} else {
		i = 0;
		do
			seed = recurse_loop(i++, depth - 1, seed);
		while (now_ns() < end);
	}
	sink = seed;
	return seed;
}

int main(int argc, char **argv)
{
	unsigned long long duration = 1000000000ULL, pause = 0;
	unsigned long depth = 10, loops = 0;
	int opt;

	while ((opt = getopt(argc, argv, "d:l:p:tV")) != -1) {
		if (opt == 't')
			twin = 1;
		else if (opt == 'V')
			vla = 1;
		else if (opt == 'p')
			pause = parse_seconds(optarg, USAGE);
		else if (opt == 'd')
			depth = parse_count(optarg, 100000, USAGE);
		else if (opt == 'l')
			loops = parse_count(optarg, 1UL << 40, USAGE);
		else
			die_usage(USAGE);
	}
	if (optind < argc - 1 || depth == 0)
		die_usage(USAGE);
	if (optind == argc - 1)
		duration = parse_seconds(argv[optind], USAGE);
	sink = deep_start(depth, now_ns() + duration, loops);
	if (pause) {
		struct timespec ts = { .tv_sec = (time_t)(pause / 1000000000ULL),
				       .tv_nsec = (long)(pause % 1000000000ULL) };

		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
		sink = deep_start(depth, now_ns() + duration, loops);
	}
	return 0;
}
