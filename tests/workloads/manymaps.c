// SPDX-License-Identifier: GPL-2.0
/*
 * An address space with thousands of executable mappings: maps the first
 * page of its own binary COUNT times (same offset each time, so the kernel
 * cannot merge neighbours), then spins in manymaps_leaf for SECONDS. For
 * the process database's scan and merge of many mappings, and its cap.
 *
 *   manymaps COUNT [SECONDS]   (default 1 second)
 */
#include <fcntl.h>
#include <sys/mman.h>

#include "common.h"

#define USAGE "manymaps COUNT [SECONDS]"

volatile unsigned long sink;

NOINLINE unsigned long manymaps_leaf(unsigned long seed)
{
	return spin_body(SPIN_ITERS, seed);
}

int main(int argc, char **argv)
{
	unsigned long long end, duration = 1000000000ULL;
	unsigned long count, i, seed = 1;
	int fd;

	if (argc < 2 || argc > 3)
		die_usage(USAGE);
	count = parse_count(argv[1], 60000, USAGE);
	if (argc == 3)
		duration = parse_seconds(argv[2], USAGE);
	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		perror("/proc/self/exe");
		return 1;
	}
	for (i = 0; i < count; i++) {
		if (mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) ==
		    MAP_FAILED) {
			fprintf(stderr, "manymaps: mmap %lu of %lu: %s\n", i + 1,
				count, strerror(errno));
			return 1;
		}
	}
	close(fd);
	printf("mapped %lu\n", count);
	fflush(stdout);
	end = now_ns() + duration;
	do
		seed = manymaps_leaf(seed);
	while (now_ns() < end);
	sink = seed;
	return 0;
}
