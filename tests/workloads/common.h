/* SPDX-License-Identifier: GPL-2.0 */
/* Shared bits of the test workloads: argument parsing, time, spinning. */
#ifndef FS_WORKLOAD_COMMON_H
#define FS_WORKLOAD_COMMON_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Keep a function a real frame of its own: no inlining, no clones. */
#define NOINLINE __attribute__((noinline, noclone))

/* Iterations of one spin_body() call: about 0.2 ms natively, a few ms in TCG. */
#define SPIN_ITERS 200000UL

/*
 * Makes the calling function set up its frame pointer even when it is a
 * leaf, which -mno-omit-leaf-frame-pointer alone does not do (GCC 12).
 */
#define FORCE_FRAME() __asm__ volatile("" : : "r"(__builtin_frame_address(0)))

/*
 * Work an optimiser cannot remove. always_inline: the loop belongs to the
 * function that calls it, so samples land in that function (with a frame).
 */
static inline __attribute__((always_inline)) unsigned long
spin_body(unsigned long n, unsigned long seed)
{
	unsigned long x = seed, i;

	FORCE_FRAME();
	for (i = 0; i < n; i++) {
		x = x * 6364136223846793005UL + i;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

static inline unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Nanoseconds of CPU time this thread has used. */
static inline unsigned long long thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static inline void die_usage(const char *usage)
{
	fprintf(stderr, "usage: %s\n", usage);
	exit(2);
}

/* A non-negative number of seconds, fractions allowed ("2", "0.5"). */
static inline unsigned long long parse_seconds(const char *s, const char *usage)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || v < 0 || v > 86400)
		die_usage(usage);
	return (unsigned long long)(v * 1e9);
}

/* A non-negative integer no larger than max. */
static inline unsigned long parse_count(const char *s, unsigned long max,
					const char *usage)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v > max)
		die_usage(usage);
	return v;
}

/* Field 9 of /proc/TID/stat, the PF_* flags (kernel workers); 0 when unreadable. */
static inline unsigned int task_flags(int tid)
{
	char path[64], buf[1024], *p;
	unsigned int flags = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')))
		if (sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %u", &flags) != 1)
			flags = 0;
	fclose(f);
	return flags;
}

#endif
