// SPDX-License-Identifier: GPL-2.0
/*
 * snapmany: many descriptors of /dev/flamestat take a binary snapshot each
 * and keep it, as a reader can, to see what the module holds for them:
 *
 *   snapmany NFDS [HOLD_SECONDS]
 *
 * Prints "snapshots ok=N enobufs=N other=N size=BYTES" (size of the
 * largest taken), then "held reader_mem=BYTES vmalloc_kb=KB" while every
 * descriptor is open, holds them HOLD_SECONDS (default 0), closes them and
 * prints "closed reader_mem=BYTES". Exits 2 when the device cannot be
 * opened.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "uapi/flamestat.h"

#define STATS "/sys/class/misc/flamestat/stats"

/* A "name value" line of a /proc or /sys file, or -1. */
static long long file_value(const char *path, const char *name)
{
	char key[64];
	long long v, found = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fscanf(f, "%63s %lld%*[^\n]", key, &v) == 2)
		if (!strcmp(key, name))
			found = v;
	fclose(f);
	return found;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 0, hold = argc > 2 ? atoi(argv[2]) : 0;
	int ok = 0, enobufs = 0, other = 0, i, *fd;
	unsigned long long max = 0;

	if (n < 1 || n > 4096) {
		fputs("usage: snapmany NFDS [HOLD_SECONDS]\n", stderr);
		return 2;
	}
	fd = calloc(n, sizeof(*fd));
	if (!fd)
		return 2;
	for (i = 0; i < n; i++) {
		struct flamestat_snapshot req = { 0 };

		fd[i] = open(FLAMESTAT_DEVICE, O_RDONLY);
		if (fd[i] < 0) {
			perror("snapmany: " FLAMESTAT_DEVICE);
			return 2;
		}
		if (!ioctl(fd[i], FLAMESTAT_IOC_SNAPSHOT, &req)) {
			ok++;
			if (req.size > max)
				max = req.size;
		} else if (errno == ENOBUFS) {
			enobufs++;
		} else {
			other++;
			fprintf(stderr, "snapmany: snapshot %d: %s\n", i,
				strerror(errno));
		}
	}
	printf("snapshots ok=%d enobufs=%d other=%d size=%llu\n", ok, enobufs,
	       other, max);
	printf("held reader_mem=%lld vmalloc_kb=%lld\n",
	       file_value(STATS, "reader_mem"),
	       file_value("/proc/meminfo", "VmallocUsed:"));
	fflush(stdout);
	if (hold > 0)
		sleep(hold);
	for (i = 0; i < n; i++)
		close(fd[i]);
	printf("closed reader_mem=%lld\n", file_value(STATS, "reader_mem"));
	free(fd);
	return other ? 1 : 0;
}
