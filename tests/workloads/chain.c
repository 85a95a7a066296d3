// SPDX-License-Identifier: GPL-2.0
/*
 * CPU-bound workload with a known call chain: main -> outer -> middle ->
 * hot_leaf, nearly all of the time in hot_leaf.
 *
 *   chain [-c] [-p] [-l LOOPS] [SECONDS]
 *	spin for SECONDS (default 1), or exactly LOOPS calls of outer() (for
 *	benchmarks); -c: print "cpu_ns N", the CPU time it used, at the end;
 *	-p: print "pac saved=0x.. stripped=0x..", a return address as a
 *	function like middle() stores it in its frame record and without its
 *	pointer-authentication code (arm64, built with -mbranch-protection:
 *	they differ when return addresses are signed; equal elsewhere)
 */
#include <stdint.h>

#include "common.h"

#define USAGE "chain [-c] [-p] [-l LOOPS] [SECONDS]"

volatile unsigned long sink;

/*
 * @x without its pointer-authentication code: XPACLRI, a hint
 * instruction, so a no-op on a CPU without PAuth.
 */
static inline uintptr_t strip_pac(uintptr_t x)
{
#ifdef __aarch64__
	register uintptr_t lr __asm__("x30") = x;

	__asm__ volatile("hint #7" : "+r"(lr));
	return lr;
#else
	return x;
#endif
}

/*
 * The return address in this function's frame record, where the frame
 * pointer points ({saved fp, return address} on x86_64 and arm64),
 * stored by the same prologue as middle()'s: a non-leaf function that
 * saves its return address, which -mbranch-protection=pac-ret signs.
 */
NOINLINE void pac_probe(uintptr_t *saved, uintptr_t *stripped)
{
	const uintptr_t *rec = __builtin_frame_address(0);

	*saved = rec[1];
	*stripped = strip_pac(rec[1]);
	sink = (unsigned long)getpid();
}

/*
 * pac_probe() @depth frames further down the stack: another stack pointer,
 * which is the signature's modifier, so another code.
 */
NOINLINE void pac_probe_at(int depth, uintptr_t *saved, uintptr_t *stripped)
{
	FORCE_FRAME();
	if (depth)
		pac_probe_at(depth - 1, saved, stripped);
	else
		pac_probe(saved, stripped);
	sink++;
}

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
	int opt, cpu = 0, pac = 0;
	uintptr_t saved, stripped;

	while ((opt = getopt(argc, argv, "cpl:")) != -1) {
		if (opt == 'c')
			cpu = 1;
		else if (opt == 'p')
			pac = 1;
		else if (opt == 'l')
			loops = parse_count(optarg, 1UL << 40, USAGE);
		else
			die_usage(USAGE);
	}
	if (optind < argc - 1)
		die_usage(USAGE);
	if (optind == argc - 1)
		duration = parse_seconds(argv[optind], USAGE);

	if (pac) {
		/*
		 * The code is a few bits only: under a 52-bit user address
		 * space (LPA2: Debian's 7.x arm64 kernel on QEMU's -cpu max)
		 * bits 54-52, the top byte being the tag's, so one signature
		 * in eight is zero and looks unsigned. Sixteen, from as many
		 * stack depths, are all zero once in 8^16.
		 */
		for (i = 0; i < 16; i++) {
			pac_probe_at((int)i, &saved, &stripped);
			if (saved != stripped)
				break;
		}
		printf("pac saved=%#llx stripped=%#llx\n", (unsigned long long)saved,
		       (unsigned long long)stripped);
		fflush(stdout);
	}
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
