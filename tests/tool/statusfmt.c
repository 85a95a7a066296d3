// SPDX-License-Identifier: GPL-2.0
/*
 * statusfmt: what 'flamestat status' prints about the module's counters,
 * for the counters in a snapshot's header (mksnap writes them), so that
 * the host can test it without the module. Built from cmd_status.c itself
 * (its printing is static), with device.c, loadpolicy.c and util.c.
 *
 * Usage: statusfmt CPU_MAX_PERCENT [--json] < file.fstat   (-1: unknown)
 * --json: what 'flamestat status --json' prints, with a configuration of
 * pids 12,34 on CPUs 0-1 and no module parameters, in the header's mode
 * (with its min block and waker flag). Without: the counters' lines, the
 * off-CPU ones as the header's mode has them.
 */
#define FLAMESTAT_VERSION "test"
#include "cmd/cmd_status.c"

#include <stdlib.h>

int main(int argc, char **argv)
{
	struct flamestat_snap_header hdr;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: statusfmt CPU_MAX_PERCENT [--json] < file.fstat\n");
		return 2;
	}
	if (fread(&hdr, sizeof(hdr), 1, stdin) != 1 ||
	    hdr.magic != FLAMESTAT_SNAP_MAGIC) {
		fprintf(stderr, "statusfmt: no snapshot header on stdin\n");
		return 1;
	}
	if (argc == 3) {
		struct flamestat_version v = { .abi_version = 1,
					       .nr_cpu_ids = 2,
					       .module_version = "te\"st" };
		struct flamestat_config c = {
			.freq_hz = 997,
			.flags = FLAMESTAT_CFG_KERNEL | FLAMESTAT_CFG_USER |
				 FLAMESTAT_CFG_CPUMASK,
			.kernel_depth = 127, .user_depth = 127,
			.nr_pids = 2, .pids = { 12, 34 }, .cpus = { 3 },
			.mode = hdr.config.mode,
			.min_block_us = hdr.config.min_block_us,
		};

		c.flags |= hdr.config.flags & FLAMESTAT_CFG_WAKER;

		print_json(&v, &c, &hdr.stats, atoi(argv[1]), false);
		return 0;
	}
	print_stats(&hdr.stats, atoi(argv[1]));
	print_offcpu(&hdr.stats, &hdr.config);
	return 0;
}
