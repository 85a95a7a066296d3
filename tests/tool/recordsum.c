// SPDX-License-Identifier: GPL-2.0
/*
 * recordsum: the summary and warnings 'flamestat record' prints on stderr
 * after a recording, for the counters in a snapshot's header (mksnap
 * writes them), so that the host can test them without the module. Built
 * from cmd_record.c itself (summary() is static), linked with the tool's
 * other objects but cmd/main.o and cmd/cmd_record.o.
 *
 * Usage: recordsum CPU_MAX_PERCENT [FOLDED] < file.fstat
 * (-1: parameter unknown). FOLDED: a folded file whose '# flamestat:'
 * header stands for what folding the recording found (its user leaves);
 * without it, the summary of a recording written raw (not folded).
 * The live status line comes first, then a newline and the summary.
 */
#include "cmd/cmd_record.c"

int main(int argc, char **argv)
{
	struct flamestat_snap_header hdr;
	struct record_env e;
	struct profile *p = NULL;
	FILE *f;

	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: recordsum CPU_MAX_PERCENT [FOLDED] < file.fstat\n");
		return 2;
	}
	if (argc == 3) {
		p = profile_new();
		f = fopen(argv[2], "r");
		if (!f || profile_read_folded(p, f, argv[2], NULL)) {
			fprintf(stderr, "recordsum: cannot read %s\n", argv[2]);
			return 1;
		}
		fclose(f);
	}
	if (fread(&hdr, sizeof(hdr), 1, stdin) != 1 ||
	    hdr.magic != FLAMESTAT_SNAP_MAGIC) {
		fprintf(stderr, "recordsum: no snapshot header on stdin\n");
		return 1;
	}
	fs_progname = "flamestat record";
	record_env_init(&e);
	e.mode = hdr.config.mode;
	e.min_block_us = hdr.config.min_block_us;
	status_line(1, &hdr.stats);
	fputc('\n', stderr);
	summary(&e, &hdr.stats, atoi(argv[1]), p ? profile_meta(p) : NULL,
		"out.svg");
	profile_free(p);
	return 0;
}
