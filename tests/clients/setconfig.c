// SPDX-License-Identifier: GPL-2.0
/*
 * setconfig: FLAMESTAT_IOC_SET_CONFIG from a shell test. Reads the
 * module's configuration, changes the fields given, sets it, and prints
 * the configuration read back as one line ("freq=HZ kernel_depth=N
 * user_depth=N flags=0xF mode=N min_block_us=N"); on a refusal prints
 * the errno's name (EBUSY, EINVAL, ...) instead and exits 1. Without
 * options it only prints.
 *
 *   setconfig [-F HZ] [-k KERNEL_DEPTH] [-u USER_DEPTH] [-m MODE]
 *             [-b MIN_BLOCK_US] [-f FLAGS]
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "uapi/flamestat.h"

static const char *errname(int e)
{
	switch (e) {
	case EBUSY: return "EBUSY";
	case EINVAL: return "EINVAL";
	case EPERM: return "EPERM";
	case EBADF: return "EBADF";
	case ESRCH: return "ESRCH";
	}
	return strerror(e);
}

int main(int argc, char **argv)
{
	struct flamestat_config c;
	bool set = false;
	int fd, opt;

	fd = open(FLAMESTAT_DEVICE, O_RDWR | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, FLAMESTAT_IOC_GET_CONFIG, &c)) {
		perror("setconfig: " FLAMESTAT_DEVICE);
		return 2;
	}
	while ((opt = getopt(argc, argv, "F:k:u:m:b:f:")) != -1) {
		unsigned long v = strtoul(optarg, NULL, 0);

		switch (opt) {
		case 'F': c.freq_hz = (__u32)v; break;
		case 'k': c.kernel_depth = (__u16)v; break;
		case 'u': c.user_depth = (__u16)v; break;
		case 'm': c.mode = (__u32)v; break;
		case 'b': c.min_block_us = (__u32)v; break;
		case 'f': c.flags = (__u32)v; break;
		default:
			fprintf(stderr, "usage: setconfig [-F HZ] [-k KERNEL_DEPTH] [-u USER_DEPTH] [-m MODE] [-b MIN_BLOCK_US] [-f FLAGS]\n");
			return 2;
		}
		set = true;
	}
	if (set && ioctl(fd, FLAMESTAT_IOC_SET_CONFIG, &c)) {
		printf("%s\n", errname(errno));
		return 1;
	}
	if (ioctl(fd, FLAMESTAT_IOC_GET_CONFIG, &c)) {
		perror("setconfig: GET_CONFIG");
		return 2;
	}
	printf("freq=%u kernel_depth=%u user_depth=%u flags=%#x mode=%u min_block_us=%u\n",
	       c.freq_hz, c.kernel_depth, c.user_depth, c.flags, c.mode,
	       c.min_block_us);
	close(fd);
	return 0;
}
