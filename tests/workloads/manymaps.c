// SPDX-License-Identifier: GPL-2.0
/*
 * An address space with thousands of executable mappings: maps the first
 * page of its own binary COUNT times (same offset each time, so the kernel
 * cannot merge neighbours), then spins in manymaps_leaf for SECONDS. For
 * the process database's scan and merge of many mappings, and its cap.
 * With -f, the COUNT mappings are of COUNT distinct files it writes into
 * a fresh directory under DIR (one page each, removed again at the end):
 * for the database's file records.
 *
 *   manymaps [-f DIR] COUNT [SECONDS]   (default 1 second)
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"

#define USAGE "manymaps [-f DIR] COUNT [SECONDS]"

volatile unsigned long sink;

NOINLINE unsigned long manymaps_leaf(unsigned long seed)
{
	return spin_body(SPIN_ITERS, seed);
}

/* A one-page file DIR/fN, open read-only; -1 on error (said on stderr). */
static int page_file(const char *dir, unsigned long n)
{
	static char page[4096];
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/f%lu", dir, n);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
	if (fd < 0 || write(fd, page, sizeof(page)) != (ssize_t)sizeof(page)) {
		fprintf(stderr, "manymaps: %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* Removes DIR/f0 .. DIR/f(count - 1) and DIR. */
static void remove_files(const char *dir, unsigned long count)
{
	char path[4096];
	unsigned long i;

	for (i = 0; i < count; i++) {
		snprintf(path, sizeof(path), "%s/f%lu", dir, i);
		unlink(path);
	}
	rmdir(dir);
}

int main(int argc, char **argv)
{
	unsigned long long end, duration = 1000000000ULL;
	unsigned long count, i, seed = 1;
	char dir[4096] = "";
	const char *top = NULL;
	int fd = -1, opt;

	while ((opt = getopt(argc, argv, "f:")) != -1) {
		if (opt != 'f')
			die_usage(USAGE);
		top = optarg;
	}
	if (argc - optind < 1 || argc - optind > 2)
		die_usage(USAGE);
	count = parse_count(argv[optind], 60000, USAGE);
	if (argc - optind == 2)
		duration = parse_seconds(argv[optind + 1], USAGE);
	if (top) {
		snprintf(dir, sizeof(dir), "%s/manymaps.%d", top, (int)getpid());
		if (mkdir(dir, 0700)) {
			fprintf(stderr, "manymaps: %s: %s\n", dir, strerror(errno));
			return 1;
		}
	} else {
		fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			perror("/proc/self/exe");
			return 1;
		}
	}
	for (i = 0; i < count; i++) {
		int f = top ? page_file(dir, i) : fd;

		if (f < 0 ||
		    mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, f, 0) ==
		    MAP_FAILED) {
			if (f >= 0)
				fprintf(stderr, "manymaps: mmap %lu of %lu: %s\n",
					i + 1, count, strerror(errno));
			if (top)
				remove_files(dir, i + 1);
			return 1;
		}
		if (top)
			close(f);
	}
	if (fd >= 0)
		close(fd);
	printf("mapped %lu%s\n", count, top ? " files" : "");
	fflush(stdout);
	end = now_ns() + duration;
	do
		seed = manymaps_leaf(seed);
	while (now_ns() < end);
	sink = seed;
	if (top)
		remove_files(dir, count);
	return 0;
}
