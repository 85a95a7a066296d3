// SPDX-License-Identifier: GPL-2.0
/*
 * Short-lived processes: starts children one after another (or -j at a
 * time), each a fresh exec of this program that burns about MS ms of CPU
 * in main -> child_main -> child_work -> child_leaf and exits. For tests
 * of stacks whose process is gone by the time they are read.
 *
 *   shortlived [-n COUNT] [-m MS] [-j PARALLEL] [SECONDS]
 *
 * Runs until COUNT children have exited (if given) or SECONDS (default 1)
 * have passed, whichever is first; prints "children N" at the end.
 */
#include <sys/wait.h>

#include "common.h"

#define USAGE "shortlived [-n COUNT] [-m MS] [-j PARALLEL] [SECONDS]"

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

NOINLINE int child_main(unsigned long ms)
{
	sink = child_work(ms * 1000000ULL);
	return 0;
}

/* @self: this program's path (exec'ing /proc/self/exe would name it "exe"). */
static pid_t spawn(const char *self, const char *ms)
{
	pid_t pid = fork();

	if (pid == 0) {
		execl(self, "shortlived", "--child", ms, (char *)NULL);
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
	char msbuf[32], self[4096];
	ssize_t len;
	int opt, rc = 0;

	if (argc == 3 && !strcmp(argv[1], "--child"))
		return child_main(parse_count(argv[2], 100000, USAGE));

	while ((opt = getopt(argc, argv, "n:m:j:")) != -1) {
		if (opt == 'n')
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
			if (spawn(self, msbuf) < 0) {
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
