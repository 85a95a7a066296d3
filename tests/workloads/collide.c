// SPDX-License-Identifier: GPL-2.0
/*
 * collide: user stacks that all hash alike under an unkeyed stack hash --
 * the module's before it was keyed: h = (h ^ frame) * K over the frames,
 * from 0, then the entry's own fields. Each of N fake frame-pointer chains
 * {IP, r1, r2} has its own r1 and an r2 solved so that the frame hash
 * reaches one value, so every stack is new yet all of them fell into one
 * bucket, probed in hard-irq at every sample. A keyed hash spreads them.
 *
 *   collide [-n CHAINS] [SECONDS]     CHAINS 1..65536 (default 8192)
 *
 * Sets its name to "collide" and prints "chains N ip 0x...". The loop is a
 * single instruction (loop), so every sample in it has the same IP. On
 * arm64 it is two (subs, b.ne): the samples at the first, ip, collide as
 * above; the ones at the second make stacks of their own that do not.
 */
#include <stdint.h>
#include <stdlib.h>
#include <sys/prctl.h>

#include "common.h"

#define USAGE "collide [-n CHAINS] [SECONDS]"
#define K 0x9e3779b97f4a7c15ULL	/* the old hash's multiplier */
#define TARGET 0x0123456789abcdefULL

struct frame {
	uint64_t next;
	uint64_t ret;
};

void collide_spin(uint64_t fp, unsigned long iters);
extern const char collide_loop[];
#if defined(__x86_64__)
__asm__(
	"	.text\n"
	"	.globl collide_spin, collide_loop\n"
	"	.type collide_spin, @function\n"
	"collide_spin:\n"
	"	push %rbp\n"
	"	mov %rdi, %rbp\n"
	"	mov %rsi, %rcx\n"
	"collide_loop:\n"
	"	loop collide_loop\n"
	"	pop %rbp\n"
	"	ret\n"
	"	.size collide_spin, .-collide_spin\n");
#elif defined(__aarch64__)
/* The frame record {x29, x30} has the layout of struct frame. */
__asm__(
	"	.text\n"
	"	.globl collide_spin, collide_loop\n"
	"	.type collide_spin, %function\n"
	"collide_spin:\n"
	"	stp x29, x30, [sp, #-16]!\n"
	"	mov x29, x0\n"
	"collide_loop:\n"
	"	subs x1, x1, #1\n"
	"	b.ne collide_loop\n"
	"	ldp x29, x30, [sp], #16\n"
	"	ret\n"
	"	.size collide_spin, .-collide_spin\n");
#else
#error "collide: x86-64 or arm64 only (its spin loop is assembly)"
#endif

/* The inverse of an odd number modulo 2^64 (Newton's iteration). */
static uint64_t inverse(uint64_t a)
{
	uint64_t x = a;
	int i;

	for (i = 0; i < 6; i++)
		x *= 2 - a * x;
	return x;
}

int main(int argc, char **argv)
{
	unsigned long long duration = 1000000000ULL, end;
	unsigned long n = 8192, i;
	uint64_t ip = (uint64_t)(uintptr_t)collide_loop, kinv = inverse(K);
	struct frame *f;
	int opt;

	while ((opt = getopt(argc, argv, "n:")) != -1) {
		if (opt == 'n')
			n = parse_count(optarg, 65536, USAGE);
		else
			die_usage(USAGE);
	}
	if (optind < argc - 1)
		die_usage(USAGE);
	if (optind == argc - 1)
		duration = parse_seconds(argv[optind], USAGE);
	if (!n || K * kinv != 1)
		die_usage(USAGE);
	f = calloc(2 * n, sizeof(*f));
	if (!f)
		return 1;
	for (i = 0; i < n; i++) {
		/* No mapping holds r1: shown as an address, distinct per chain. */
		uint64_t r1 = 0x100000000000ULL + i * 0x40;
		uint64_t h = ((ip * K) ^ r1) * K;

		f[2 * i] = (struct frame){ (uint64_t)(uintptr_t)&f[2 * i + 1], r1 };
		f[2 * i + 1] = (struct frame){ 0, (TARGET * kinv) ^ h };
	}
	prctl(PR_SET_NAME, "collide");
	printf("chains %lu ip %#llx\n", n, (unsigned long long)ip);
	fflush(stdout);
	end = now_ns() + duration;
	for (i = 0; now_ns() < end; i = (i + 1) % n)
		collide_spin((uint64_t)(uintptr_t)&f[2 * i], 20000);
	free(f);
	return 0;
}
