// SPDX-License-Identifier: GPL-2.0
/*
 * statusfmt: what 'flamestat status' prints about the module's counters,
 * for the counters in a snapshot's header (mksnap writes them), so that
 * the host can test it without the module. Built from cmd_status.c itself
 * (its printing is static), with device.c, loadpolicy.c and util.c.
 *
 * Usage: statusfmt CPU_MAX_PERCENT < file.fstat   (-1: parameter unknown)
 */
#include "cmd/cmd_status.c"

#include <stdlib.h>

int main(int argc, char **argv)
{
	struct flamestat_snap_header hdr;

	if (argc != 2) {
		fprintf(stderr, "usage: statusfmt CPU_MAX_PERCENT < file.fstat\n");
		return 2;
	}
	if (fread(&hdr, sizeof(hdr), 1, stdin) != 1 ||
	    hdr.magic != FLAMESTAT_SNAP_MAGIC) {
		fprintf(stderr, "statusfmt: no snapshot header on stdin\n");
		return 1;
	}
	print_stats(&hdr.stats, atoi(argv[1]));
	return 0;
}
