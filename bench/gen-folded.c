// SPDX-License-Identifier: GPL-2.0
/* Deterministic synthetic folded stacks for the renderer's bench and tests. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Usage: gen-folded NSTACKS [SEED] > out.folded
 *
 * Stacks walk a fixed synthetic call graph: each function has a few
 * callees chosen by hashing its name, the popular ones more often, so
 * stacks share prefixes the way real profiles do. About 30 frames deep on
 * average; two in five end in kernel frames marked _[k]. The same
 * arguments always give the same bytes.
 */
#define NNAMES 6000

static uint64_t rng_state;

static uint64_t rnd(void)
{
	uint64_t x = rng_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng_state = x;
}

static uint64_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	return h ^ (h >> 33);
}

static const char *const pre[] = {
	"vfs", "tcp", "ext4", "http", "json", "sql", "mem", "sched", "io",
	"net", "page", "hash", "lock", "str", "buf", "epoll", "zlib", "ssl",
};
static const char *const mid[] = {
	"read", "write", "parse", "alloc", "free", "lookup", "insert",
	"send", "recv", "copy", "flush", "update", "scan", "open", "close",
	"wait", "wake", "encode", "decode", "commit",
};
static const char *const post[] = {
	"", "_iter", "_slow", "_one", "_locked", "_internal", "_fast", "_v2",
};

static char names[NNAMES][48];

static void make_names(void)
{
	int i;

	for (i = 0; i < NNAMES; i++) {
		uint64_t h = mix((uint64_t)i + 1);

		snprintf(names[i], sizeof(names[i]), "%s_%s%s%s",
			 pre[h % 18], mid[(h >> 8) % 20], post[(h >> 16) % 8],
			 i >= NNAMES - 600 ? "_[k]" : "");
	}
}

/* Callee k of function f: user code calls user code, kernel calls kernel. */
static int callee(int f, int k, int kernel)
{
	uint64_t h = mix(((uint64_t)f << 8) ^ (uint64_t)k ^ 0x9e37);

	if (kernel)
		return NNAMES - 600 + (int)(h % 600);
	return (int)(h % (NNAMES - 600));
}

int main(int argc, char **argv)
{
	static const char *const roots[] = {
		"nginx", "postgres", "java", "python3", "node", "redis-server",
	};
	long n, i;
	int depth, d, f, kernel, k, fan;
	uint64_t count;

	if (argc < 2 || (n = atol(argv[1])) <= 0) {
		fprintf(stderr, "usage: gen-folded NSTACKS [SEED] > out.folded\n");
		return 2;
	}
	rng_state = argc > 2 ? strtoull(argv[2], NULL, 0) | 1 : 88172645463325252ull;
	make_names();
	for (i = 0; i < n; i++) {
		int r = (int)(rnd() % 6);

		fputs(roots[r], stdout);
		f = (int)(mix((uint64_t)r) % (NNAMES - 600));
		depth = 18 + (int)(rnd() % 25);
		kernel = 0;
		for (d = 1; d < depth; d++) {
			/* Few callees near the root, more further up. */
			fan = 2 + d / 3;
			k = (int)((rnd() % 1000) * (rnd() % 1000) * fan / 1000000);
			if (!kernel && d > depth - 8 && rnd() % 5 < 2)
				kernel = 1;
			f = callee(f, k, kernel);
			putchar(';');
			fputs(names[f], stdout);
		}
		count = 1 + (rnd() % 100) * (rnd() % 100) / 50;
		printf(" %llu\n", (unsigned long long)count);
	}
	return 0;
}
