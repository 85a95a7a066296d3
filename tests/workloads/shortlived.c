// SPDX-License-Identifier: GPL-2.0
/*
 * Short-lived processes: starts children one after another (or -j at a
 * time), each a fresh exec of this program that burns about MS ms of CPU
 * in main -> child_main -> child_work -> child_leaf and exits. For tests
 * of stacks whose process is gone by the time they are read.
 *
 * With -l, each child spends its MS in three equal parts: in child_leaf,
 * in libc's memcpy (called from child_libc, which calls nothing else: a
 * leaf of a library built without frame pointers) and in lib_hot ->
 * lib_inner of libfsbusy.so, which the child dlopen()s from this
 * program's directory first (mapped long after exec, as plugins are).
 *
 *   shortlived [-l] [-n COUNT] [-m MS] [-j PARALLEL] [SECONDS]
 *
 * Runs until COUNT children have exited (if given) or SECONDS (default 1)
 * have passed, whichever is first; prints "children N" at the end.
 */
#include <dlfcn.h>
#include <libgen.h>
#include <sys/wait.h>

#include "common.h"

#define USAGE "shortlived [-l] [-n COUNT] [-m MS] [-j PARALLEL] [SECONDS]"

volatile unsigned long sink;

NOINLINE unsigned long child_leaf(unsigned long seed)
{
	return spin_body(SPIN_ITERS / 8, seed);
}

NOINLINE unsigned long child_work(unsigned long long cpu_ns)
{
	unsigned long long end = thread_cpu_ns() + cpu_ns;
	unsigned long seed = 1;

	do
		seed = child_leaf(seed);
	while (thread_cpu_ns() < end);
	sink = seed;
	return seed;
}

/* CPU_NS in libc's memcpy, 64 KiB at a time. */
NOINLINE unsigned long child_libc(unsigned long long cpu_ns)
{
	static char a[65536], b[65536];
	unsigned long long end = thread_cpu_ns() + cpu_ns;

	do {
		memcpy(a, b, sizeof(a));
		b[a[7] & 1023]++;
	} while (thread_cpu_ns() < end);
	return (unsigned long)a[9];
}

/* CPU_NS in a dlopen()ed library's lib_hot. */
NOINLINE unsigned long child_dl(unsigned long (*hot)(unsigned long),
				unsigned long long cpu_ns)
{
	unsigned long long end = thread_cpu_ns() + cpu_ns;
	unsigned long seed = 1;

	do
		seed = hot(seed);
	while (thread_cpu_ns() < end);
	return seed;
}

NOINLINE int child_main(unsigned long ms)
{
	sink = child_work(ms * 1000000ULL);
	return 0;
}

/* -l: a third each in our code, libc and a library opened now. */
NOINLINE int child_libs_main(unsigned long ms)
{
	unsigned long long third = ms * 1000000ULL / 3;
	unsigned long (*hot)(unsigned long);
	char path[4096], dir[4096];
	ssize_t len;
	void *lib;

	len = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	if (len < 0) {
		perror("shortlived: /proc/self/exe");
		return 1;
	}
	dir[len] = '\0';
	snprintf(path, sizeof(path), "%s/libfsbusy.so", dirname(dir));
	lib = dlopen(path, RTLD_NOW);
	if (!lib) {
		fprintf(stderr, "shortlived: %s\n", dlerror());
		return 1;
	}
	*(void **)&hot = dlsym(lib, "lib_hot");
	if (!hot) {
		fprintf(stderr, "shortlived: %s\n", dlerror());
		return 1;
	}
	sink = child_work(third);
	sink += child_libc(third);
	sink += child_dl(hot, third);
	return 0;
}

/* @self: this program's path (exec'ing /proc/self/exe would name it "exe"). */
static pid_t spawn(const char *self, const char *mode, const char *ms)
{
	pid_t pid = fork();

	if (pid == 0) {
		execl(self, "shortlived", mode, ms, (char *)NULL);
		perror("shortlived: exec");
		_exit(127);
	}
	if (pid < 0)
		perror("shortlived: fork");
	return pid;
}

/* Waits for one child; returns 0 when it exited with status 0. */
static int reap(void)
{
	int status;

	if (wait(&status) < 0) {
		perror("shortlived: wait");
		return -1;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "shortlived: a child failed (status %#x)\n",
			status);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long long end, duration = 1000000000ULL;
	unsigned long count = 0, ms = 10, par = 1, started = 0, running = 0;
	unsigned long done = 0;
	const char *mode = "--child";
	char msbuf[32], self[4096];
	ssize_t len;
	int opt, rc = 0;

	if (argc == 3 && !strcmp(argv[1], "--child"))
		return child_main(parse_count(argv[2], 100000, USAGE));
	if (argc == 3 && !strcmp(argv[1], "--child-libs"))
		return child_libs_main(parse_count(argv[2], 100000, USAGE));

	while ((opt = getopt(argc, argv, "ln:m:j:")) != -1) {
		if (opt == 'l')
			mode = "--child-libs";
		else if (opt == 'n')
			count = parse_count(optarg, 1UL << 30, USAGE);
		else if (opt == 'm')
			ms = parse_count(optarg, 100000, USAGE);
		else if (opt == 'j')
			par = parse_count(optarg, 64, USAGE);
		else
			die_usage(USAGE);
	}
	if (optind < argc - 1 || par == 0)
		die_usage(USAGE);
	if (optind == argc - 1)
		duration = parse_seconds(argv[optind], USAGE);
	snprintf(msbuf, sizeof(msbuf), "%lu", ms);
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len < 0) {
		perror("shortlived: /proc/self/exe");
		return 1;
	}
	self[len] = '\0';

	end = now_ns() + duration;
	for (;;) {
		while (running < par && (!count || started < count) &&
		       now_ns() < end) {
			if (spawn(self, mode, msbuf) < 0) {
				rc = 1;
				break;
			}
			started++;
			running++;
		}
		if (!running)
			break;
		if (reap())
			rc = 1;
		running--;
		done++;
		if (rc)
			break;
	}
	while (running--)
		reap();
	printf("children %lu\n", done);
	return rc;
}
