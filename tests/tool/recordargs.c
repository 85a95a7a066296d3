// SPDX-License-Identifier: GPL-2.0
/*
 * recordargs: what 'flamestat record [OPTIONS]' makes of its options,
 * without the module: record's own option parsing (parse_args()), then the
 * module configuration it would ask for (build_config(), the command, if
 * any, standing as process 4242). Built from cmd_record.c itself, linked
 * like recordout.
 *
 * Usage: recordargs [RECORD OPTIONS...] [-- COMMAND...]
 * Prints one "key=value" line per setting; exits with parse_args()'s
 * status (2: refused) after its message.
 */
#include "cmd/cmd_record.c"

int main(int argc, char **argv)
{
	struct flamestat_config cfg = { 0 };
	struct record_env e;
	char cpus[256];
	uint32_t i;
	int ret;

	fs_progname = "flamestat record";
	record_env_init(&e);
	ret = parse_args(&e, argc, argv);
	if (ret)
		return ret;
	build_config(&e, e.command ? 4242 : 0, &cfg);
	printf("all=%d\n", e.all);
	printf("pids=");
	for (i = 0; i < e.nr_pids; i++)
		printf("%s%u", i ? "," : "", e.pids[i]);
	printf("\nduration=%g\nfreq=%u\nkernel_depth=%u\nuser_depth=%u\n",
	       e.duration, e.freq, e.kernel_depth, e.user_depth);
	printf("cpus=%s\n", e.cpus ? cpulist_format(&e.cpuset, cpus,
						     sizeof(cpus)) : "");
	printf("limit=%u\nmin=%g\nroots=%u\n", e.out.report.limit,
	       e.out.report.min_pct, e.out.report.skip_roots);
	printf("command=%s\n", e.command ? e.command[0] : "");
	printf("cfg_pids=");
	for (i = 0; i < cfg.nr_pids; i++)
		printf("%s%u", i ? "," : "", cfg.pids[i]);
	printf("\ncfg_pid_tree=%d\n", !!(cfg.flags & FLAMESTAT_CFG_PID_TREE));
	printf("cfg_mode=%u\ncfg_min_block_us=%u\ncfg_waker=%d\n", cfg.mode,
	       cfg.min_block_us, !!(cfg.flags & FLAMESTAT_CFG_WAKER));
	return 0;
}
