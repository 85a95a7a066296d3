// SPDX-License-Identifier: GPL-2.0
/*
 * A time split known by construction, to check profilers against the
 * truth (bench/overhead.sh, truth phase). split_loop calls four leaf
 * functions once each per iteration; each leaf is a straight-line count
 * loop written in assembly, so it executes exactly 2N + 5 instructions a
 * call:
 *
 *   push %rbp; mov %rsp,%rbp; mov $N,%ecx; N x (dec %ecx; jnz); pop %rbp; ret
 *
 * (arm64: stp x29, x30; mov x29, sp; mov w9, N; N x (subs; b.ne); ldp; ret)
 *
 *   leaf50   9,999 instructions a call  (N = 4997, about 50% of the loop)
 *   leaf30   5,999                      (N = 2997, 30%)
 *   leaf15   2,999                      (N = 1497, 15%)
 *   leaf5      999                      (N =  497,  5%)
 *
 * plus split_loop's own few instructions an iteration. Under QEMU's
 * -icount shift=0 a guest nanosecond is one instruction, so a leaf's share
 * of the time is its share of the instructions, and a profiler's leaf
 * shares can be checked against that. No system call in the loop, no
 * memory access in the leaves. Frame pointers: the leaves set up theirs,
 * so the sampled stacks are main -> split_loop -> leafNN.
 *
 *   knownsplit [-l LOOPS] [SECONDS]
 *   knownsplit -c    prints "leaf INSTRUCTIONS_PER_CALL" for each leaf
 */
#include "common.h"

#define USAGE "knownsplit [-l LOOPS] [SECONDS] | knownsplit -c"

#define N50 4997
#define N30 2997
#define N15 1497
#define N5 497

#define STR_(x) #x
#define STR(x) STR_(x)
/* LEAF(name, N): a leaf of exactly 2N + 5 instructions a call. */
#if defined(__x86_64__)
#define LEAF_BODY(n)                                                    \
		"	push %rbp\n"                                        \
		"	mov %rsp, %rbp\n"                                   \
		"	mov $" STR(n) ", %ecx\n"                            \
		"1:	dec %ecx\n"                                         \
		"	jnz 1b\n"                                           \
		"	pop %rbp\n"                                         \
		"	ret\n"
#elif defined(__aarch64__)
#define LEAF_BODY(n)                                                    \
		"	stp x29, x30, [sp, #-16]!\n"                        \
		"	mov x29, sp\n"                                      \
		"	mov w9, #" STR(n) "\n"                              \
		"1:	subs w9, w9, #1\n"                                  \
		"	b.ne 1b\n"                                          \
		"	ldp x29, x30, [sp], #16\n"                          \
		"	ret\n"
#else
#error "knownsplit: x86-64 or arm64 only (its leaves are assembly)"
#endif
#define LEAF(name, n)                                                   \
	__asm__(".text\n"                                               \
		".globl " #name "\n"                                    \
		".type " #name ", %function\n"                          \
		".p2align 4\n"                                          \
		#name ":\n"                                             \
		LEAF_BODY(n)                                            \
		".size " #name ", . - " #name "\n");                    \
	void name(void)

LEAF(leaf50, N50);
LEAF(leaf30, N30);
LEAF(leaf15, N15);
LEAF(leaf5, N5);

static const struct {
	const char *name;
	unsigned long n;
} leaves[] = {
	{ "leaf50", N50 },
	{ "leaf30", N30 },
	{ "leaf15", N15 },
	{ "leaf5", N5 },
};

NOINLINE void split_loop(unsigned long loops)
{
	unsigned long i;

	for (i = 0; i < loops; i++) {
		leaf50();
		leaf30();
		leaf15();
		leaf5();
	}
}

int main(int argc, char **argv)
{
	unsigned long long end, duration = 1000000000ULL;
	unsigned long loops = 0;
	unsigned int i;
	int opt;

	while ((opt = getopt(argc, argv, "cl:")) != -1) {
		if (opt == 'c') {
			for (i = 0; i < sizeof(leaves) / sizeof(leaves[0]); i++)
				printf("%s %lu\n", leaves[i].name, 2 * leaves[i].n + 5);
			return 0;
		} else if (opt == 'l') {
			loops = parse_count(optarg, 1UL << 40, USAGE);
		} else {
			die_usage(USAGE);
		}
	}
	if (optind < argc - 1)
		die_usage(USAGE);
	if (optind == argc - 1)
		duration = parse_seconds(argv[optind], USAGE);
	if (loops) {
		split_loop(loops);
	} else {
		/* About 0.2 ms natively between looks at the clock. */
		end = now_ns() + duration;
		do
			split_loop(1000);
		while (now_ns() < end);
	}
	return 0;
}
