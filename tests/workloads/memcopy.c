// SPDX-License-Identifier: GPL-2.0
/*
 * A function of ours that spends its time in libc's memcpy, for what a
 * library built without frame pointers (Debian's libc) does to a stack:
 * main -> work -> copy_block -> memcpy, and main -> work -> checksum, a
 * leaf of ours, about as long. memcpy sets up no frame pointer, so a walk
 * of the frame pointers from a sample in it goes on from copy_block's
 * frame record to work: copy_block is missing from those stacks.
 *
 *   memcopy [-f | -c] [SECONDS]   copy for SECONDS (default 1)
 *   -f: copy_block copies with copy_words, a loop of ours built with frame
 *       pointers, instead of memcpy: the stacks as they are.
 *   -c: copy_block compares the two blocks with libc's memcmp instead of
 *       copying one (they stay equal: memcmp reads them whole), another
 *       frameless libc leaf, which costs its time on every ISA: on arm64
 *       with FEAT_MOPS, glibc's memcpy is one instruction (CPYF*) that
 *       QEMU runs as the host's memcpy, 6 of 3,918 samples in one run.
 */
#include "common.h"

#define USAGE "memcopy [-f | -c] [SECONDS]"

enum how { BY_MEMCPY, BY_OWN_LOOP, BY_MEMCMP };
#define WORDS 8192		/* 64 KiB */

static unsigned long src[WORDS], dst[WORDS];
volatile unsigned long sink;

/* memcpy's work, in a function of ours that keeps its frame pointer. */
NOINLINE void copy_words(unsigned long *d, const unsigned long *s, size_t n)
{
	size_t i;

	FORCE_FRAME();
	for (i = 0; i < n; i++) {
		d[i] = s[i];
		/* (not turned back into a call of memcpy) */
		__asm__ volatile("" : : : "memory");
	}
}

NOINLINE void copy_block(enum how how, size_t bytes)
{
	FORCE_FRAME();
	if (how == BY_OWN_LOOP)
		copy_words(dst, src, bytes / sizeof(long));
	else if (how == BY_MEMCMP)
		sink += !!memcmp(dst, src, bytes);
	else
		memcpy(dst, src, bytes);
}

NOINLINE unsigned long checksum(const unsigned long *p, size_t n)
{
	unsigned long x = 0;
	size_t i;

	FORCE_FRAME();
	for (i = 0; i < n; i++) {
		x = x * 31 + p[i];
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

/* One round: a block copied, then summed. */
NOINLINE unsigned long work(enum how how, size_t bytes)
{
	unsigned long x;

	FORCE_FRAME();
	copy_block(how, bytes);
	x = checksum(dst, bytes / sizeof(long));
	/* Another block next time, but equal ones for memcmp to read whole. */
	if (how != BY_MEMCMP)
		src[x % WORDS]++;
	return x;
}

int main(int argc, char **argv)
{
	unsigned long long end, duration = 1000000000ULL;
	volatile size_t bytes = sizeof(src);
	enum how how = BY_MEMCPY;
	int opt;
	unsigned long x = 0;

	while ((opt = getopt(argc, argv, "fc")) != -1) {
		if (opt == 'f' && how == BY_MEMCPY)
			how = BY_OWN_LOOP;
		else if (opt == 'c' && how == BY_MEMCPY)
			how = BY_MEMCMP;
		else
			die_usage(USAGE);
	}
	if (optind < argc - 1)
		die_usage(USAGE);
	if (optind == argc - 1)
		duration = parse_seconds(argv[optind], USAGE);
	end = now_ns() + duration;
	do
		x += work(how, bytes);
	while (now_ns() < end);
	sink = x;
	return 0;
}
