// SPDX-License-Identifier: GPL-2.0
/*
 * Maps a file executable and never touches it, while spinning in its own
 * code: the process has an executable mapping of the file none of whose
 * pages is in the page cache (on a direct-I/O FUSE file system nothing else
 * reads them either), which is what the module meets when it looks for a
 * build-id it must not read from the device.
 *
 *   execmap FILE [SECONDS]   map FILE, spin for SECONDS (default 1)
 */
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "common.h"

#define USAGE "execmap FILE [SECONDS]"

volatile unsigned long sink;

NOINLINE unsigned long execmap_spin(unsigned long seed)
{
	return spin_body(SPIN_ITERS, seed);
}

int main(int argc, char **argv)
{
	unsigned long long end, duration = 1000000000ULL;
	unsigned long seed = 1;
	struct stat st;
	void *p;
	int fd;

	if (argc < 2 || argc > 3)
		die_usage(USAGE);
	if (argc == 3)
		duration = parse_seconds(argv[2], USAGE);
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) || !st.st_size) {
		perror(argv[1]);
		return 1;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_EXEC, MAP_PRIVATE,
		 fd, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	close(fd);
	end = now_ns() + duration;
	do
		seed = execmap_spin(seed);
	while (now_ns() < end);
	sink = seed;
	munmap(p, (size_t)st.st_size);
	return 0;
}
