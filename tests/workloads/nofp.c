// SPDX-License-Identifier: GPL-2.0
/*
 * CPU-bound workload built as Debian builds its programs: -O2 with no
 * frame pointer (the Makefile leaves -fno-omit-frame-pointer out), for
 * the walk by unwind tables. Each mode has a known chain under main:
 *
 *   chain    main -> nf_a -> nf_b -> nf_c -> nf_leaf
 *   qsort    main -> nf_sort -> qsort (glibc, no frame pointers) -> ...
 *            -> nf_cmp, the comparison callback
 *   memcpy   main -> nf_copy -> memcpy (a glibc leaf)
 *   lib      main -> nf_via_lib -> nf_lib_apply (libnofp.so, no frame
 *            pointers) -> nf_cb
 *   alloca   main -> nf_alloca (its CFA on the frame pointer) -> nf_leaf
 *   signal   main -> nf_spin, interrupted by SIGPROF every millisecond of
 *            CPU time: nf_handler -> nf_leaf on the signal's frame,
 *            __restore_rt, then nf_spin -> main again
 *
 *   nofp [-m MODE] [SECONDS]	(default chain, 1 second)
 */
#include <alloca.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>

#include "common.h"
#include "libnofp.h"

#define USAGE "nofp [-m chain|qsort|memcpy|lib|alloca|signal] [SECONDS]"

volatile unsigned long nf_sink;
static unsigned long long deadline;

/* Work that stays in this function: no frame pointer, no calls. */
NOINLINE unsigned long nf_leaf(unsigned long x)
{
	unsigned long i;

	for (i = 0; i < 20000; i++) {
		x = x * 6364136223846793005UL + i;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

NOINLINE unsigned long nf_c(unsigned long x)
{
	return nf_leaf(x + 3) + 1;
}

NOINLINE unsigned long nf_b(unsigned long x)
{
	return nf_c(x + 2) + 1;
}

NOINLINE unsigned long nf_a(unsigned long x)
{
	return nf_b(x + 1) + 1;
}

/* A comparison that costs: most of qsort's time is spent here. */
NOINLINE int nf_cmp(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;
	int i;

	for (i = 0; i < 200; i++)
		__asm__ volatile("" : "+r"(x), "+r"(y));
	return x < y ? -1 : x > y;
}

NOINLINE unsigned long nf_sort(unsigned long seed)
{
	unsigned long v[512];
	size_t i;

	for (i = 0; i < 512; i++) {
		seed = seed * 6364136223846793005UL + 1442695040888963407UL;
		v[i] = seed >> 11;
	}
	qsort(v, 512, sizeof(v[0]), nf_cmp);
	return v[0] + v[511];
}

NOINLINE unsigned long nf_copy(unsigned long seed)
{
	static char src[1 << 20], dst[1 << 20];
	int i;

	src[seed & 0xfffff] = (char)seed;
	for (i = 0; i < 8; i++)
		memcpy(dst, src, sizeof(dst));
	return (unsigned long)dst[seed & 0xfffff];
}

NOINLINE unsigned long nf_cb(unsigned long x)
{
	int i;

	for (i = 0; i < 2000; i++) {
		x = x * 6364136223846793005UL + (unsigned long)i;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

NOINLINE unsigned long nf_via_lib(unsigned long seed)
{
	return nf_lib_apply(nf_cb, 64 + (seed & 1));
}

/* alloca() of a size the compiler cannot know: the CFA moves to the FP. */
NOINLINE unsigned long nf_alloca(unsigned long seed)
{
	volatile unsigned char *p = alloca(64 + (seed & 63));

	p[0] = (unsigned char)seed;
	return nf_leaf(seed + p[0]) + p[0];
}

/* Most of the run: one signal's work outlasts the timer's period. */
NOINLINE void nf_handler(int sig)
{
	int i;

	for (i = 0; i < 50; i++)
		nf_sink += nf_leaf((unsigned long)sig + (unsigned long)i);
}

NOINLINE unsigned long nf_spin(unsigned long x)
{
	unsigned long i;

	for (i = 0; i < 200000; i++) {
		x = x * 2862933555777941757UL + i;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

int main(int argc, char **argv)
{
	const char *mode = "chain";
	unsigned long long secs = 1000000000ULL;
	unsigned long x = 1;
	int opt;

	while ((opt = getopt(argc, argv, "m:")) != -1) {
		if (opt == 'm')
			mode = optarg;
		else
			die_usage(USAGE);
	}
	if (optind < argc)
		secs = parse_seconds(argv[optind++], USAGE);
	if (optind < argc)
		die_usage(USAGE);
	if (!strcmp(mode, "signal")) {
		struct itimerval it = { { 0, 1000 }, { 0, 1000 } };
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = nf_handler;
		sigaction(SIGPROF, &sa, NULL);
		setitimer(ITIMER_PROF, &it, NULL);
	} else if (strcmp(mode, "chain") && strcmp(mode, "qsort") &&
		   strcmp(mode, "memcpy") && strcmp(mode, "lib") &&
		   strcmp(mode, "alloca")) {
		die_usage(USAGE);
	}
	deadline = now_ns() + secs;
	while (now_ns() < deadline) {
		switch (mode[0] == 'a' && mode[1] == 'l' ? 'A' : mode[0]) {
		case 'c':
			x += nf_a(x);
			break;
		case 'q':
			x += nf_sort(x);
			break;
		case 'm':
			x += nf_copy(x);
			break;
		case 'l':
			x += nf_via_lib(x);
			break;
		case 'A':
			x += nf_alloca(x);
			break;
		default:
			x += nf_spin(x);
			break;
		}
	}
	nf_sink = x;
	return 0;
}
