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
 *   clock    main -> nf_clock -> clock_gettime (glibc) -> the vDSO's
 *            clock_gettime: the vDSO's unwind table
 *   signal   main -> nf_spin, interrupted by SIGPROF every millisecond of
 *            CPU time: nf_handler -> nf_leaf on the signal's frame,
 *            __restore_rt, then nf_spin -> main again
 *   mix      chain, qsort, memcpy, lib and alloca in turn: several chains
 *            at once (make bench-overhead compares them with perf's)
 *   edges    (x86-64) the hand-written functions of nofp-edges.S and a
 *            call through the PLT, in turn: samples on a first instruction,
 *            in each step of a prologue and an epilogue (main -> nf_edges ->
 *            nf_edge, nf_edge_push1, nf_edge_body, nf_edge_pop1 or
 *            nf_edge_ret), in a leaf whose CFA is in rax (main ->
 *            nf_aligned -> nf_realign or nf_realign_body), after a tail
 *            call (main -> nf_tail_top -> nf_tail_leaf: nf_tail_mid
 *            jumped to it), in a PLT stub (main -> nf_plt ->
 *            nf_lib_nop@plt, then nf_lib_nop in libnofp.so) and under a
 *            recursion that keeps a number in rbp, below a frame on rbp
 *            (main -> nf_recursion -> nf_rec_top -> nf_rec x 9 ->
 *            nf_rec_leaf)
 *
 *   nofp [-m MODE] [-l LOOPS] [SECONDS]	(default chain, 1 second)
 *
 * -l: LOOPS rounds of the mode's work (for mix, of all five), a fixed
 * amount of work instead of a time.
 */
#include <alloca.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "common.h"
#include "libnofp.h"

#define USAGE "nofp [-m chain|qsort|memcpy|lib|alloca|signal|clock|mix|edges] [-l LOOPS] [SECONDS]"

volatile unsigned long nf_sink;
static unsigned long long deadline;

/*
 * Work an optimiser cannot remove, inlined into its caller: spin_body()
 * (common.h) without its forced frame pointer.
 */
static inline __attribute__((always_inline)) unsigned long
nf_work(unsigned long n, unsigned long x)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		x = x * 6364136223846793005UL + i;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

/* Work that stays in this function: no frame pointer, no calls. */
NOINLINE unsigned long nf_leaf(unsigned long x)
{
	return nf_work(20000, x);
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

NOINLINE unsigned long nf_clock(unsigned long x)
{
	struct timespec ts;
	int i;

	for (i = 0; i < 1000; i++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		x += (unsigned long)ts.tv_nsec;
	}
	return x;
}

NOINLINE unsigned long nf_cb(unsigned long x)
{
	return nf_work(2000, x);
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

#ifdef __x86_64__
/*
 * Straight-line work (not nops, which QEMU translates into nothing) that
 * makes a translation block long: under QEMU's
 * TCG a timer interrupt is taken where the next block starts, so the
 * longer the block before a place, the more samples land there (see
 * nofp-edges.S).
 */
#define NF_FILLER ".rept 48\n\tlea 1(%%r11), %%r11\n\t.endr" : : : "r11"

/* nofp-edges.S */
unsigned long nf_edge(unsigned long x);
void nf_realign(unsigned long n);
unsigned long nf_tail_mid(unsigned long x);
unsigned long nf_tail_leaf(unsigned long x);
unsigned long nf_rec_top(unsigned long n);

NOINLINE unsigned long nf_edges(unsigned long x)
{
	int i;

	for (i = 0; i < 512; i++) {
		/* QEMU: samples land where the block after this one starts. */
		__asm__ volatile(NF_FILLER);
		x = nf_edge(x);
	}
	return x;
}

NOINLINE unsigned long nf_aligned(unsigned long x)
{
	int i;

	for (i = 0; i < 64; i++) {
		__asm__ volatile(NF_FILLER);
		nf_realign(64 + (x & 1));
	}
	return x + 1;
}

/* Where nf_tail_mid jumps: its caller is nf_tail_top. */
NOINLINE unsigned long nf_tail_leaf(unsigned long x)
{
	return nf_work(4096, x);
}

NOINLINE unsigned long nf_tail_top(unsigned long x)
{
	return nf_tail_mid(x) + 1;
}

/* One dependent step the compiler can neither fold nor move. */
#define NF_STEP(x)							\
	do {								\
		(x) = (x) * 6364136223846793005UL + 1;			\
		__asm__ volatile("" : "+r"(x));				\
	} while (0)

/*
 * Calls through the PLT, to a function that returns at once. Under TCG an
 * interrupt is taken where a translation block starts, so a step is
 * sampled in proportion to the block run before it: the stub, reached by
 * a direct call, got 9 to 15 samples in 8 s after a two-instruction
 * block; eight steps before each call make that block longer.
 */
NOINLINE unsigned long nf_plt(unsigned long x)
{
	int i;

	for (i = 0; i < 2048; i++) {
		NF_STEP(x);
		NF_STEP(x);
		NF_STEP(x);
		NF_STEP(x);
		NF_STEP(x);
		NF_STEP(x);
		NF_STEP(x);
		NF_STEP(x);
		x = nf_lib_nop(x);
	}
	return x;
}

/* A recursion under a frame on rbp (nofp-edges.S): 9 nf_rec frames. */
NOINLINE unsigned long nf_recursion(unsigned long x)
{
	int i;

	for (i = 0; i < 32; i++) {
		__asm__ volatile(NF_FILLER);
		x += nf_rec_top(8);
	}
	return x;
}

static inline __attribute__((always_inline)) unsigned long
nf_edges_round(unsigned long x)
{
	x = nf_edges(x);
	x = nf_recursion(x);
	x = nf_aligned(x);
	x = nf_tail_top(x);
	return nf_plt(x);
}
#else
static inline unsigned long nf_edges_round(unsigned long x)
{
	fprintf(stderr, "nofp -m edges: hand-written x86-64 code; not on this architecture\n");
	exit(2);
	return x;
}
#endif

/*
 * One round of @mode's work. Inlined into main, so that each mode's chain
 * starts at main; mix and edges are their modes' rounds in turn.
 */
static inline __attribute__((always_inline)) unsigned long
nf_round(char mode, unsigned long x)
{
	switch (mode) {
	case 'c':
		return x + nf_a(x);
	case 'q':
		return x + nf_sort(x);
	case 'm':
		return x + nf_copy(x);
	case 'l':
		return x + nf_via_lib(x);
	case 'A':
		return x + nf_alloca(x);
	case 'C':
		return x + nf_clock(x);
	case 'e':
		return nf_edges_round(x);
	case 'x':
		x += nf_a(x);
		x += nf_sort(x);
		x += nf_copy(x);
		x += nf_via_lib(x);
		return x + nf_alloca(x);
	default:
		return x + nf_spin(x);
	}
}

int main(int argc, char **argv)
{
	const char *mode = "chain";
	unsigned long long secs = 1000000000ULL;
	unsigned long x = 1, loops = 0, i;
	char m;
	int opt;

	while ((opt = getopt(argc, argv, "m:l:")) != -1) {
		if (opt == 'm')
			mode = optarg;
		else if (opt == 'l')
			loops = parse_count(optarg, 1UL << 40, USAGE);
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
		   strcmp(mode, "alloca") && strcmp(mode, "clock") &&
		   strcmp(mode, "mix") &&
		   strcmp(mode, "edges")) {
		die_usage(USAGE);
	}
	m = !strcmp(mode, "alloca") ? 'A' : !strcmp(mode, "mix") ? 'x' :
	    !strcmp(mode, "clock") ? 'C' : mode[0];
	if (loops) {
		for (i = 0; i < loops; i++)
			x = nf_round(m, x);
	} else {
		deadline = now_ns() + secs;
		while (now_ns() < deadline)
			x = nf_round(m, x);
	}
	nf_sink = x;
	if (m == 's') {
		/*
		 * Disarmed before main returns: a handler outlasts the period,
		 * so signals would otherwise keep the exit code (not under
		 * main) interrupted for as long as the timer runs.
		 */
		struct itimerval off = { { 0, 0 }, { 0, 0 } };

		setitimer(ITIMER_PROF, &off, NULL);
	}
	return 0;
}
