// SPDX-License-Identifier: GPL-2.0
/*
 * timeit: runs a command and prints how long it took inside this machine,
 * in nanoseconds of CLOCK_MONOTONIC, with the user and system CPU time
 * it used. Under QEMU's -icount shift=0 guest nanoseconds are guest
 * instructions, so the figure counts every instruction the CPU spent
 * while the command ran, the profiler's included.
 *
 *   timeit COMMAND [ARGS...]
 *   -> "elapsed_ns=N user_ns=N sys_ns=N status=N" on stderr
 *   timeit -n
 *   -> CLOCK_MONOTONIC now, in nanoseconds, on stdout
 *
 * Just before the fork and just after the wait it executes a marker, a
 * no-op instruction that the insnprof QEMU plugin (insnprof.c) recognises
 * as the edges of the window it profiles.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static unsigned long long ns_of(const struct timespec *ts)
{
	return (unsigned long long)ts->tv_sec * 1000000000ULL +
	       (unsigned long long)ts->tv_nsec;
}

static unsigned long long tv_ns(const struct timeval *tv)
{
	return (unsigned long long)tv->tv_sec * 1000000000ULL +
	       (unsigned long long)tv->tv_usec * 1000ULL;
}

/*
 * nopl 0x4b4d5346(%rax): a no-op whose bytes spell "FSMK", where the
 * insnprof plugin's phases (x86-64 only) find the workload's start and
 * end. Elsewhere (the arm64 overhead phase) no mark: those bytes are not
 * an instruction there.
 */
static void mark(void)
{
#ifdef __x86_64__
	__asm__ volatile(".byte 0x0f, 0x1f, 0x80, 0x46, 0x53, 0x4d, 0x4b");
#endif
}

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	struct rusage ru;
	int status;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: timeit COMMAND [ARGS...] | timeit -n\n");
		return 2;
	}
	if (!strcmp(argv[1], "-n")) {
		clock_gettime(CLOCK_MONOTONIC, &t0);
		printf("%llu\n", ns_of(&t0));
		return 0;
	}
	mark();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid < 0) {
		perror("timeit: fork");
		return 1;
	}
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		fprintf(stderr, "timeit: %s: %s\n", argv[1], strerror(errno));
		_exit(127);
	}
	while (wait4(pid, &status, 0, &ru) < 0) {
		if (errno != EINTR) {
			perror("timeit: wait4");
			return 1;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	mark();
	fprintf(stderr, "elapsed_ns=%llu user_ns=%llu sys_ns=%llu status=%d\n",
		ns_of(&t1) - ns_of(&t0), tv_ns(&ru.ru_utime),
		tv_ns(&ru.ru_stime),
		WIFEXITED(status) ? WEXITSTATUS(status) :
		128 + WTERMSIG(status));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
