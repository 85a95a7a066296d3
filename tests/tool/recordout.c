// SPDX-License-Identifier: GPL-2.0
/*
 * recordout: what 'flamestat record [OPTIONS]' writes at the end of a
 * recording, from a snapshot file instead of the module, so that the host
 * can test the folded text, SVG and report that record makes of a
 * snapshot (a raw .fstat from mksnap): record's own option parsing, then
 * the fold and the output record does. Built from cmd_record.c itself
 * (parse_args() is static), linked with the tool's other objects but
 * cmd/main.o and cmd/cmd_record.o.
 *
 * Usage: recordout FILE.fstat [RECORD OPTIONS...]   (output: -o or stdout)
 */
#include "cmd/cmd_record.c"

int main(int argc, char **argv)
{
	struct record_env e;
	struct snapshot s;
	struct profile *p;
	int ret;

	if (argc < 2) {
		fprintf(stderr, "usage: recordout FILE.fstat [RECORD OPTIONS...]\n");
		return 2;
	}
	fs_progname = "flamestat record";
	record_env_init(&e);
	/* FILE.fstat stands where the subcommand's name would. */
	ret = parse_args(&e, argc - 1, argv + 1);
	if (ret)
		return ret;
	if (e.command || e.nr_pids) {
		fprintf(stderr, "recordout: no command or -p here\n");
		return 2;
	}
	if (snapshot_load(&s, argv[1]))
		return 1;
	p = profile_new();
	ret = src_fold_snapshot(&s, false, &e.src, p) || out_write(p, &e.out);
	profile_free(p);
	snapshot_free(&s);
	return ret ? 1 : 0;
}
