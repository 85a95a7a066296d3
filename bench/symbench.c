// SPDX-License-Identifier: GPL-2.0
/* Benchmark: symbolize many unique stacks of real functions into folded lines. */
#include "lib/util.h"
#include "sym/symbolize.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

/*
 * usage: symbench [-n STACKS] [-d USER_DEPTH] [-k KERNEL_DEPTH]
 *                 [-K KERNEL_FUNCS] [--kallsyms FILE] FRAMES
 * FRAMES has one candidate user frame per line, "PATH OFFSET". Each stack
 * draws USER_DEPTH of them and KERNEL_DEPTH kernel text addresses at
 * random (fixed seed). The kernel addresses lie in KERNEL_FUNCS functions
 * picked from FILE (default 2000, about what a busy machine's profile
 * touches; 0: all of them, every frame a cache miss). Each stack is
 * turned into a folded line the way
 * `flamestat record` would: one symbolize_file() per distinct file (a FILE
 * record), then one symbolize_*() call per frame.
 */

struct cand {
	uint32_t file;
	uint64_t off;
};

static uint64_t rnd_state = 0x2545f4914f6cdd1dULL;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Kernel text addresses (inside functions) read from a kallsyms file. */
static uint64_t *kernel_addrs(const char *path, size_t *n)
{
	uint64_t *v = NULL;
	size_t cap = 0, len = 0;
	char *line = NULL;
	FILE *f = path ? fopen(path, "re") : NULL;

	*n = 0;
	while (f && getline(&line, &len, f) > 0) {
		unsigned long long a;
		char type;

		if (sscanf(line, "%llx %c", &a, &type) != 2 || !a ||
		    (type != 't' && type != 'T'))
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 4096;
			v = xreallocarray(v, cap, sizeof(*v));
		}
		v[(*n)++] = a + 1 + rnd() % 8;
	}
	free(line);
	if (f)
		fclose(f);
	return v;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "kallsyms", required_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t nstacks = 100000, udepth = 20, kdepth = 8, kfuncs = 2000, v;
	const char *kallsyms = NULL;
	char **paths = NULL, *line = NULL;
	size_t npaths = 0, ncands = 0, cap = 0, len = 0, nkern, nkall;
	struct cand *cands = NULL;
	struct elfsym_file **files;
	struct symbolizer *s;
	struct symbolize_opts o = { 0 };
	struct symbolize_stats st;
	struct strbuf sb = { 0 };
	struct rusage ru;
	uint64_t *kern, *ids, *keys, hash = 0, bytes = 0;
	size_t unique = 0, per;
	double t0, t1, t2;
	FILE *f;
	int c;

	fs_progname = "symbench";
	while ((c = getopt_long(argc, argv, "n:d:k:K:", longopts,
				NULL)) != -1) {
		if (c == 'S') {
			kallsyms = optarg;
			continue;
		}
		if ((c != 'n' && c != 'd' && c != 'k' && c != 'K') ||
		    parse_u64(optarg, c == 'n', c == 'n' || c == 'K' ?
			      10000000 : 1024, &v)) {
			fputs("usage: symbench [-n STACKS] [-d USER_DEPTH] "
			      "[-k KERNEL_DEPTH] [-K KERNEL_FUNCS] "
			      "[--kallsyms FILE] FRAMES\n", stderr);
			return EXIT_USAGE;
		}
		*(c == 'n' ? &nstacks : c == 'd' ? &udepth :
		  c == 'k' ? &kdepth : &kfuncs) = v;
	}
	if (optind + 1 != argc || !(f = fopen(argv[optind], "re"))) {
		fs_err("need a readable FRAMES file");
		return EXIT_USAGE;
	}
	while (getline(&line, &len, f) > 0) {
		char path[4096];
		unsigned long long off;
		size_t i;

		if (sscanf(line, "%4095s %llx", path, &off) != 2)
			continue;
		for (i = 0; i < npaths && strcmp(paths[i], path); i++)
			;
		if (i == npaths) {
			paths = xreallocarray(paths, npaths + 1, sizeof(*paths));
			paths[npaths++] = xstrdup(path);
		}
		if (ncands == cap) {
			cap = cap ? 2 * cap : 4096;
			cands = xreallocarray(cands, cap, sizeof(*cands));
		}
		cands[ncands++] = (struct cand){ (uint32_t)i, off };
	}
	free(line);
	fclose(f);
	kern = kernel_addrs(kallsyms, &nkall);
	nkern = nkall;
	if (kfuncs && kfuncs < nkern) {
		/* A random subset: the first kfuncs of a partial shuffle. */
		for (size_t i = 0; i < kfuncs; i++) {
			size_t j = i + rnd() % (nkern - i);
			uint64_t t = kern[i];

			kern[i] = kern[j];
			kern[j] = t;
		}
		nkern = (size_t)kfuncs;
	}
	if (!ncands || (kdepth && !nkern)) {
		fs_err("no candidate frames (%zu user, %zu kernel)", ncands,
		       nkern);
		return EXIT_FAIL;
	}

	/* The stacks, as indexes; checked unique by hashing them. */
	per = (size_t)(udepth + kdepth);
	ids = xreallocarray(NULL, (size_t)nstacks * per, sizeof(*ids));
	keys = xreallocarray(NULL, (size_t)nstacks, sizeof(*keys));
	for (size_t i = 0; i < nstacks; i++) {
		uint64_t h = 0xcbf29ce484222325ULL;

		for (size_t j = 0; j < per; j++) {
			ids[i * per + j] = j < kdepth ? rnd() % nkern :
					   rnd() % ncands;
			h = (h ^ ids[i * per + j] ^ j << 40) * 0x100000001b3ULL;
		}
		keys[i] = h;
	}
	qsort(keys, (size_t)nstacks, sizeof(*keys), u64_cmp);
	for (size_t i = 0; i < nstacks; i++)
		unique += !i || keys[i] != keys[i - 1];

	o.kallsyms = kallsyms;
	t0 = now();
	s = symbolizer_new(&o);
	files = xcalloc(npaths, sizeof(*files));
	/* Loading: every file once, kallsyms once. */
	for (size_t i = 0; i < npaths; i++) {
		files[i] = symbolize_file(s, paths[i], NULL, 0);
		symbolize_user(s, files[i], 0, false);
	}
	if (kdepth)
		symbolize_kernel(s, kern[0], false);
	t1 = now();
	for (size_t i = 0; i < nstacks; i++) {
		const uint64_t *id = &ids[i * per];

		sb_reset(&sb);
		/* Folded order: root first, so user frames from the end. */
		for (size_t j = per; j-- > kdepth;) {
			const struct cand *cd = &cands[id[j]];

			sb_adds(&sb, symbolize_user(s, files[cd->file], cd->off,
						    j != kdepth));
			sb_add(&sb, ";", 1);
		}
		for (size_t j = kdepth; j-- > 0;) {
			sb_adds(&sb, symbolize_kernel(s, kern[id[j]], j != 0));
			sb_add(&sb, j ? ";" : "", j ? 1 : 0);
		}
		bytes += sb.len;
		for (size_t k = 0; k < sb.len; k += 8)
			hash = (hash ^ (unsigned char)sb.buf[k]) * 31;
	}
	t2 = now();
	getrusage(RUSAGE_SELF, &ru);
	symbolizer_stats(s, &st);

	printf("stacks            %llu (%zu unique), %llu user + %llu kernel frames each\n",
	       (unsigned long long)nstacks, unique,
	       (unsigned long long)udepth, (unsigned long long)kdepth);
	printf("candidates        %zu user frames in %zu files, %zu of %zu kernel functions\n",
	       ncands, npaths, nkern, nkall);
	printf("resolved          user %lu/%lu, kernel %lu/%lu\n",
	       st.user_resolved, st.user, st.kernel_resolved, st.kernel);
	printf("load files+kallsyms %8.3f s\n", t1 - t0);
	printf("symbolize stacks    %8.3f s  (%.0f ns/frame, %.1f MB of folded text)\n",
	       t2 - t1, (t2 - t1) * 1e9 / (double)(nstacks * per),
	       (double)bytes / 1e6);
	printf("total               %8.3f s\n", t2 - t0);
	printf("peak RSS            %8.1f MiB\n", (double)ru.ru_maxrss / 1024);
	printf("# checksum %016llx\n", (unsigned long long)hash);

	symbolizer_free(s);
	sb_free(&sb);
	for (size_t i = 0; i < npaths; i++)
		free(paths[i]);
	free(paths);
	free(files);
	free(cands);
	free(kern);
	free(ids);
	free(keys);
	return EXIT_OK;
}
