// SPDX-License-Identifier: GPL-2.0
/*
 * flamestat record: configure the module, sample the whole system, some
 * processes or a command until a duration, the command's exit or Ctrl-C,
 * then write folded stacks, an SVG, a report, pprof or the raw snapshot.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "cmd/output.h"
#include "cmd/record_interval.h"
#include "cmd/source.h"
#include "device/device.h"
#include "cmd/svg_cli.h"
#include "lib/cpulist.h"
#include "lib/outfile.h"
#include "lib/util.h"
#include "profile/fold.h"
#include "profile/snapshot.h"

/* Every option of record; designated defaults in record_env_init(). */
struct record_env {
	uint32_t freq;
	bool all;
	uint32_t pids[FLAMESTAT_MAX_PIDS];
	uint32_t nr_pids;
	double duration;	/* seconds; 0: until the end */
	bool kernel_only, user_only, idle, per_cpu;
	const char *cpus;	/* the list as given; NULL: the default CPUs */
	const char *cpus_opt;	/* how it was given: "--cpus" or "-C" */
	struct cpuset cpuset;	/* the CPUs of the list */
	uint16_t kernel_depth, user_depth;
	/* What is measured: enum flamestat_mode, and the option that said so. */
	uint32_t mode;
	const char *mode_opt;
	uint32_t min_block_us;	/* --min-block */
	bool min_block_set;
	bool waker;		/* --waker: CFG_WAKER */
	uint32_t unwind;	/* --unwind: FLAMESTAT_CFG_UNWIND_*, 0 auto */
	const char *raw_path;
	bool quiet;
	bool force;		/* take the profiler over from another session */
	struct out_opts out;
	struct src_opts src;
	struct rec_interval interval;	/* --interval, --max-files */
	char **command;		/* NULL or argv of the command */
};

static void record_env_init(struct record_env *e)
{
	memset(e, 0, sizeof(*e));
	e->freq = FLAMESTAT_DEFAULT_FREQ;
	e->kernel_depth = FLAMESTAT_DEFAULT_DEPTH;
	e->user_depth = FLAMESTAT_DEFAULT_DEPTH;
	out_opts_init(&e->out);
	src_opts_init(&e->src);
	interval_init(&e->interval);
}

static void usage(FILE *out)
{
	fprintf(out,
"Usage: flamestat record [OPTIONS] [-a | -p PID[,PID...] | -- COMMAND [ARGS...]]\n"
"\n"
"Sample where the CPUs spend their time (or, with --off-cpu, where tasks\n"
"wait; with --wall, both), with the flamestat module (loaded\n"
"if needed), and write the stacks. Without -a, -p or a command, the whole\n"
"system is sampled. Sampling ends after -d SECONDS, when the command or\n"
"all the -p processes exit, or on Ctrl-C (what was collected is written).\n"
"The module's table is reset at the start. Needs root.\n"
"\n"
"What to sample:\n"
"  -a, --all-cpus         the whole system (the default); with a command,\n"
"                         the whole system while it runs (as perf's -a)\n"
"  -p, --pid PID[,PID]    these processes (up to %d), all their threads\n"
"  -- COMMAND [ARGS]      run COMMAND and sample it and its children\n"
"  -d, --duration SECS    stop after SECS seconds (fractions allowed)\n"
"  -F, --freq HZ          samples per second per CPU, 1..%d (default %d)\n"
"  -K, --kernel-only      kernel stacks only (user code is not recorded)\n"
"  -U, --user-only        user stacks only (kernel threads not recorded)\n"
"      --idle             record idle CPUs too (default: counted only)\n"
"  -C, --cpus LIST        only these CPUs, e.g. 0-3,8; each must be online\n"
"                         (default: all but those isolated with nohz_full=\n"
"                         or isolcpus=, which a list may name)\n"
"      --per-cpu          keep CPUs apart; each stack gets a cpu-N root\n"
"      --kernel-depth N   kernel frames kept, 1..%d (default %d)\n"
"      --user-depth N     user frames kept, 1..%d (default %d)\n"
"      --unwind HOW       user stacks: auto (default: by each file's unwind\n"
"                         table, built by the module from its .eh_frame, so\n"
"                         code without frame pointers keeps its callers; by\n"
"                         frame pointers where no table is built yet), fp\n"
"                         (frame pointers only) or table (tables only)\n"
"\n"
"What to measure:\n"
"      --off-cpu          off-CPU time: where tasks block (sleeps, I/O, locks,\n"
"                         waiting for a CPU), in ns, from the scheduler's\n"
"                         switches; no sampling timer runs\n"
"      --wall             wall-clock time: CPU samples weighted by the\n"
"                         period plus off-CPU time, all in ns\n"
"      --mode MODE        cpu (default: CPU samples), offcpu or wall\n"
"      --min-block TIME   off-CPU blocks shorter than TIME are counted, not\n"
"                         recorded: 10us, 1ms, 0.5s (no unit: us; default 0)\n"
"      --waker            with each off-CPU stack, the kernel stack of the\n"
"                         task that woke it (after '--', frames _[w])\n"
"\n"
"Output:\n"
"  -o, --output FILE      write FILE (default: standard output); the format\n"
"                         follows the extension: .svg, .fstat (raw), .report,\n"
"                         .speedscope.json (speedscope), .pb.gz or .pprof\n"
"                         (pprof), anything else folded\n"
"      --format F         folded, svg, report, raw, speedscope (JSON for\n"
"                         speedscope.app: one profile per command) or\n"
"                         pprof (gzip'd profile.proto for go tool pprof,\n"
"                         Pyroscope or Parca: samples and CPU time,\n"
"                         addresses, mappings, comm/pid/cpu labels),\n"
"                         whatever the name\n"
"      --raw FILE         also save the raw recording, for 'flamestat report\n"
"                         FILE' or 'flamestat fold FILE' later on this machine\n"
"      --header           folded: a '# flamestat:' line with the totals\n"
"%s"
"  -q, --quiet            no live status line and no summary\n"
"      --force            if another session holds the profiler, take it\n"
"                         over (root only; that session's samples are lost)\n"
"  -h, --help             this text\n"
"\n%s\n%s\n%s\n%s"
"\n"
"Examples:\n"
"  flamestat record -d 10 -o system.svg\n"
"  flamestat record -F 4999 -o build.svg -- make -j8\n"
"  flamestat record -p 1234 -d 30 --format report\n"
"  flamestat record -K --idle -d 5 > kernel.folded\n"
"  flamestat record -C 2,3 --per-cpu -d 10 -o cpus.svg\n"
"  flamestat record -d 60 --raw run.fstat -o run.svg\n"
"  flamestat record --off-cpu --min-block 1ms -p 1234 -d 10 -o wait.svg\n"
"  flamestat record --wall --waker -o wall.svg -- ./server --once\n"
"  flamestat record -d 10 -o system.speedscope.json\n"
"  flamestat record -d 30 -o run.pb.gz && go tool pprof -http=: run.pb.gz\n"
"  flamestat record --interval 60 --max-files 1440 -o /var/tmp/profiles\n"
"\n"
"Exit status: 0 written, 1 failure, 2 bad option, 3 not root, 4 module\n"
"missing or refused, 5 ABI mismatch, 6 profiler busy, 7 command failed to\n"
"start, 128+N stopped by signal N (130: Ctrl-C; the output is still\n"
"written; a signal once sampling has stopped aborts the writing and leaves\n"
"no output). Outputs are created before sampling and replaced atomically.\n"
"See flamestat-record(1).\n",
		FLAMESTAT_MAX_PIDS, FLAMESTAT_MAX_FREQ, FLAMESTAT_DEFAULT_FREQ,
		FLAMESTAT_MAX_KERNEL_DEPTH, FLAMESTAT_DEFAULT_DEPTH,
		FLAMESTAT_MAX_USER_DEPTH, FLAMESTAT_DEFAULT_DEPTH,
		out_count_help, interval_options_help, src_options_help,
		report_options_help, svg_options_help);
}

enum {
	OPT_IDLE = 0x300, OPT_PER_CPU, OPT_KDEPTH, OPT_UDEPTH,
	OPT_FORMAT, OPT_RAW, OPT_HEADER, OPT_FORCE,
	OPT_COUNT, OPT_OFF_CPU, OPT_WALL, OPT_MODE, OPT_MIN_BLOCK, OPT_WAKER,
	OPT_UNWIND,
};

static const struct option own_options[] = {
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "pid", required_argument, NULL, 'p' },
	{ "duration", required_argument, NULL, 'd' },
	{ "freq", required_argument, NULL, 'F' },
	{ "kernel-only", no_argument, NULL, 'K' },
	{ "user-only", no_argument, NULL, 'U' },
	{ "idle", no_argument, NULL, OPT_IDLE },
	{ "cpus", required_argument, NULL, 'C' },
	/* perf's spelling; "--cpu" would otherwise be ambiguous with --cpu-root */
	{ "cpu", required_argument, NULL, 'C' },
	{ "per-cpu", no_argument, NULL, OPT_PER_CPU },
	{ "kernel-depth", required_argument, NULL, OPT_KDEPTH },
	{ "user-depth", required_argument, NULL, OPT_UDEPTH },
	{ "off-cpu", no_argument, NULL, OPT_OFF_CPU },
	{ "wall", no_argument, NULL, OPT_WALL },
	{ "mode", required_argument, NULL, OPT_MODE },
	{ "min-block", required_argument, NULL, OPT_MIN_BLOCK },
	{ "waker", no_argument, NULL, OPT_WAKER },
	{ "unwind", required_argument, NULL, OPT_UNWIND },
	{ "output", required_argument, NULL, 'o' },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "raw", required_argument, NULL, OPT_RAW },
	{ "header", no_argument, NULL, OPT_HEADER },
	{ "count", required_argument, NULL, OPT_COUNT },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int parse_pids(struct record_env *e, const char *arg)
{
	char *copy = xstrdup(arg), *tok, *save = NULL;
	uint64_t v;
	size_t len = strlen(arg);
	int ret = 0;

	/* strtok_r would take ",," and a trailing ',' as one separator. */
	if (!len || arg[0] == ',' || arg[len - 1] == ',' || strstr(arg, ",,")) {
		fs_err("-p '%s': expected process ids like 12,345", arg);
		free(copy);
		return -1;
	}
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (parse_u64(tok, 1, 4194304, &v)) {
			fs_err("-p '%s': '%s' is not a process id (decimal, 1..4194304)",
			       arg, tok);
			ret = -1;
			break;
		}
		if (e->nr_pids == FLAMESTAT_MAX_PIDS) {
			fs_err("-p: at most %d processes", FLAMESTAT_MAX_PIDS);
			ret = -1;
			break;
		}
		e->pids[e->nr_pids++] = (uint32_t)v;
	}
	free(copy);
	return ret;
}

/*
 * --off-cpu, --wall, --mode: one mode, however many times it is said;
 * two different ones exclude each other. @opt: how it was said.
 */
static int set_mode(struct record_env *e, uint32_t mode, const char *opt)
{
	if (e->mode_opt && e->mode != mode) {
		fs_err("%s and %s exclude each other", e->mode_opt, opt);
		return -1;
	}
	e->mode = mode;
	e->mode_opt = opt;
	return 0;
}

static int parse_mode(struct record_env *e, const char *arg)
{
	static const char *const names[FLAMESTAT_NR_MODES] = {
		[FLAMESTAT_MODE_CPU] = "cpu",
		[FLAMESTAT_MODE_OFFCPU] = "offcpu",
		[FLAMESTAT_MODE_WALL] = "wall",
	};
	uint32_t m;

	for (m = 0; m < FLAMESTAT_NR_MODES; m++)
		if (!strcmp(arg, names[m]))
			return set_mode(e, m, m == FLAMESTAT_MODE_CPU ?
					"--mode cpu" : m == FLAMESTAT_MODE_OFFCPU ?
					"--mode offcpu" : "--mode wall");
	fs_err("--mode '%s': expected cpu, offcpu or wall", arg);
	return -1;
}

/*
 * --min-block: a decimal time with a unit, ns, us, ms or s (none:
 * microseconds, the module's unit), into whole microseconds.
 */
static int parse_min_block(struct record_env *e, const char *arg)
{
	static const struct {
		const char *suffix;
		double ns;
	} units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};
	size_t len = strlen(arg), i, n;
	double scale = 1e3, v, us;
	char num[64];

	n = len;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t sl = strlen(units[i].suffix);

		if (len > sl && !strcmp(arg + len - sl, units[i].suffix)) {
			n = len - sl;
			scale = units[i].ns;
			break;
		}
	}
	if (n >= sizeof(num))
		goto bad;
	memcpy(num, arg, n);
	num[n] = '\0';
	if (parse_decimal(num, &v) || v < 0)
		goto bad;
	us = v * scale / 1e3;
	if (us > UINT32_MAX)
		goto bad;
	if (us != (double)(uint32_t)us) {
		fs_err("--min-block '%s': the module counts whole microseconds", arg);
		return -1;
	}
	e->min_block_us = (uint32_t)us;
	e->min_block_set = true;
	return 0;
bad:
	fs_err("--min-block '%s': expected a time like 10us, 1ms or 0.5s (at most %u us)",
	       arg, UINT32_MAX);
	return -1;
}

#define SYS_CPU "/sys/devices/system/cpu/"

/*
 * The CPU list of --cpus/-C into e->cpuset, checked against the CPUs this
 * machine has (possible) and those online now, so that a CPU that cannot
 * be sampled is named here rather than refused by the module. A file of
 * /sys that cannot be read leaves its check to the module. Returns 0, or -1
 * after saying which CPU and why.
 */
static int parse_cpus(struct record_env *e)
{
	const char *opt = e->cpus_opt, *list = e->cpus;
	struct cpuset possible, online, bad;
	char want[256], have[256];
	uint64_t beyond;

	if (cpulist_parse(list, &e->cpuset, &beyond)) {
		fs_err("%s '%s': expected a list of CPUs like 0-3,8", opt, list);
		return -1;
	}
	if (!cpulist_read(SYS_CPU "possible", &possible)) {
		cpulist_format(&possible, have, sizeof(have));
		if (beyond != UINT64_MAX) {
			fs_err("%s '%s': CPU %llu does not exist: this machine has CPU%s %s",
			       opt, list, (unsigned long long)beyond,
			       cpuset_count(&possible) > 1 ? "s" : "", have);
			return -1;
		}
		if (cpuset_andnot(&e->cpuset, &possible, &bad)) {
			cpulist_format(&bad, want, sizeof(want));
			fs_err("%s '%s': CPU%s %s do%s not exist: this machine has CPU%s %s",
			       opt, list, cpuset_count(&bad) > 1 ? "s" : "",
			       want, cpuset_count(&bad) > 1 ? "" : "es",
			       cpuset_count(&possible) > 1 ? "s" : "", have);
			return -1;
		}
	} else if (beyond != UINT64_MAX) {
		fs_err("%s '%s': CPU %llu does not exist: flamestat samples CPUs 0-%d at most",
		       opt, list, (unsigned long long)beyond,
		       FLAMESTAT_MAX_CPUS - 1);
		return -1;
	}
	if (!cpulist_read(SYS_CPU "online", &online) &&
	    cpuset_andnot(&e->cpuset, &online, &bad)) {
		unsigned int n = cpuset_count(&bad);

		cpulist_format(&bad, want, sizeof(want));
		cpulist_format(&online, have, sizeof(have));
		if (n > 1)
			fs_err("%s '%s': CPUs %s are offline (online: %s): bring them online (echo 1 > " SYS_CPU "cpuN/online) or leave them out",
			       opt, list, want, have);
		else
			fs_err("%s '%s': CPU %s is offline (online: %s): bring it online (echo 1 > " SYS_CPU "cpu%s/online) or leave it out",
			       opt, list, want, have, want);
		return -1;
	}
	return 0;
}

/* The module's own limit, when /sys could not say which CPUs exist. */
static int check_cpus_module(const struct record_env *e, uint32_t nr_cpu_ids)
{
	struct cpuset all = { { 0 } }, bad;
	char want[256];

	for (uint32_t c = 0; c < nr_cpu_ids && c < FLAMESTAT_MAX_CPUS; c++)
		all.w[c / 64] |= 1ULL << (c % 64);
	if (!cpuset_andnot(&e->cpuset, &all, &bad))
		return 0;
	cpulist_format(&bad, want, sizeof(want));
	fs_err("%s '%s': CPU%s %s do%s not exist: this machine has CPUs 0-%u",
	       e->cpus_opt, e->cpus, cpuset_count(&bad) > 1 ? "s" : "", want,
	       cpuset_count(&bad) > 1 ? "" : "es", nr_cpu_ids - 1);
	return -1;
}

static int parse_args(struct record_env *e, int argc, char **argv)
{
	struct option *longopts = getopt_concat(own_options,
						src_getopt_options,
						report_getopt_options);
	struct option *all = getopt_concat(longopts, svg_getopt_options,
					   interval_getopt_options);
	uint64_t v;
	double d;
	int c, r, ret = 0;

	free(longopts);
	/* '+': stop at the command's first word, so its options stay its own. */
	while ((c = getopt_long(argc, argv, "+ap:d:F:KUC:o:qh", all,
				NULL)) != -1) {
		switch (c) {
		case 'a':
			e->all = true;
			break;
		case 'p':
			if (parse_pids(e, optarg))
				ret = EXIT_USAGE;
			break;
		case 'd':
			if (parse_decimal(optarg, &d) || d <= 0 || d > 31536000) {
				fs_err("-d '%s': expected a decimal number of seconds > 0",
				       optarg);
				ret = EXIT_USAGE;
			}
			e->duration = d;
			break;
		case 'F':
			if (parse_u64(optarg, FLAMESTAT_MIN_FREQ,
				      FLAMESTAT_MAX_FREQ, &v)) {
				fs_err("-F '%s': expected a decimal frequency %d..%d Hz",
				       optarg, FLAMESTAT_MIN_FREQ,
				       FLAMESTAT_MAX_FREQ);
				ret = EXIT_USAGE;
			}
			e->freq = (uint32_t)v;
			break;
		case 'K':
			e->kernel_only = true;
			break;
		case 'U':
			e->user_only = true;
			break;
		case OPT_IDLE:
			e->idle = true;
			break;
		case 'C': {
			/* The word of the option: "-C1", "-C 1", "--cpus=1", ... */
			const char *w = optarg == argv[optind - 1] ?
					argv[optind - 2] : argv[optind - 1];

			e->cpus = optarg;
			e->cpus_opt = strncmp(w, "--", 2) ? "-C" :
				      !strncmp(w, "--cpus", 6) ? "--cpus" :
				      "--cpu";
			break;
		}
		case OPT_PER_CPU:
			e->per_cpu = true;
			e->src.fold.per_cpu = true;
			break;
		case OPT_KDEPTH:
		case OPT_UDEPTH: {
			unsigned int max = c == OPT_KDEPTH ?
				FLAMESTAT_MAX_KERNEL_DEPTH :
				FLAMESTAT_MAX_USER_DEPTH;

			if (parse_u64(optarg, 1, max, &v)) {
				fs_err("--%s '%s': expected a decimal number of frames 1..%u",
				       c == OPT_KDEPTH ? "kernel-depth" :
				       "user-depth", optarg, max);
				ret = EXIT_USAGE;
			} else if (c == OPT_KDEPTH) {
				e->kernel_depth = (uint16_t)v;
			} else {
				e->user_depth = (uint16_t)v;
			}
			break;
		}
		case OPT_OFF_CPU:
			if (set_mode(e, FLAMESTAT_MODE_OFFCPU, "--off-cpu"))
				ret = EXIT_USAGE;
			break;
		case OPT_WALL:
			if (set_mode(e, FLAMESTAT_MODE_WALL, "--wall"))
				ret = EXIT_USAGE;
			break;
		case OPT_MODE:
			if (parse_mode(e, optarg))
				ret = EXIT_USAGE;
			break;
		case OPT_MIN_BLOCK:
			if (parse_min_block(e, optarg))
				ret = EXIT_USAGE;
			break;
		case OPT_UNWIND:
			if (!strcmp(optarg, "auto")) {
				e->unwind = 0;
			} else if (!strcmp(optarg, "fp")) {
				e->unwind = FLAMESTAT_CFG_UNWIND_FP;
			} else if (!strcmp(optarg, "table")) {
				e->unwind = FLAMESTAT_CFG_UNWIND_TABLE;
			} else {
				fs_err("--unwind '%s': expected auto, fp or table",
				       optarg);
				ret = EXIT_USAGE;
			}
			break;
		case OPT_WAKER:
			e->waker = true;
			break;
		case 'o':
			e->out.path = optarg;
			break;
		case OPT_FORMAT:
			if (out_format_parse(optarg, &e->out.format)) {
				fs_err("--format '%s': expected folded, svg, report, raw, speedscope or pprof",
				       optarg);
				ret = EXIT_USAGE;
			}
			break;
		case OPT_RAW:
			e->raw_path = optarg;
			break;
		case OPT_HEADER:
			e->out.header = true;
			break;
		case OPT_COUNT:
			if (out_count_parse(optarg, &e->out))
				ret = EXIT_USAGE;
			break;
		case OPT_FORCE:
			e->force = true;
			break;
		case 'q':
			e->quiet = true;
			e->out.quiet = true;
			break;
		case 'h':
			usage(stdout);
			free(all);
			exit(EXIT_OK);
		case '?':
			ret = EXIT_USAGE;
			break;
		default:
			r = src_handle_option(&e->src, c, optarg);
			if (r > 0)
				r = report_handle_option(&e->out.report, c,
							 optarg);
			if (r > 0)
				r = svg_handle_option(&e->out.svg, c, optarg);
			if (r > 0)
				r = interval_handle_option(&e->interval, c,
							   optarg);
			if (r)
				ret = EXIT_USAGE;
			break;
		}
	}
	free(all);
	if (ret)
		goto usage;
	if (optind < argc)
		e->command = &argv[optind];
	/* -a with a command: the whole system while it runs (perf's -a). */
	if (e->nr_pids && (e->all || e->command)) {
		fs_err("-p excludes -a and a command");
		goto usage;
	}
	if (e->kernel_only && e->user_only) {
		fs_err("-K and -U exclude each other");
		goto usage;
	}
	if (e->kernel_only && e->command)
		fs_warn("-K with a command records only its kernel stacks");
	/* Off-CPU options mean nothing to CPU samples: say so, not ignore. */
	if (e->waker && e->mode == FLAMESTAT_MODE_CPU) {
		fs_err("--waker needs --off-cpu or --wall: wakers are those of off-CPU time");
		goto usage;
	}
	if (e->min_block_set && e->mode == FLAMESTAT_MODE_CPU) {
		fs_err("--min-block needs --off-cpu or --wall: it is the shortest off-CPU block recorded");
		goto usage;
	}
	if (e->waker && e->user_only) {
		fs_err("--waker with -U: the waker's stack is a kernel stack, which -U leaves out");
		goto usage;
	}
	if (svg_options_check(&e->out.svg))
		goto usage;
	if (e->src.fold.per_cpu && !e->per_cpu) {
		fs_err("--cpu-root needs --per-cpu when recording");
		goto usage;
	}
	if (interval_check_options(&e->interval, &e->out, e->raw_path))
		goto usage;
	if (e->per_cpu)
		e->out.report.skip_roots++;
	if (out_check_terminal(&e->out))
		goto usage;
	/* (a CPU that cannot be sampled is no matter for --help) */
	if (e->cpus && parse_cpus(e))
		return EXIT_USAGE;
	return 0;
usage:
	fprintf(stderr, "Try 'flamestat record --help'.\n");
	return EXIT_USAGE;
}

/*
 * Where the recording is, for the signal handler: sampling (the first
 * SIGINT, SIGTERM or SIGHUP ends it and what was collected is written),
 * draining (samples read, the module put back: a signal asks to abort),
 * writing (symbolizing and writing the outputs: a signal removes the
 * temporary files and kills the process with the signal, so that its
 * status is 128+N as shells expect), done (outputs in place).
 */
enum record_phase { PHASE_SAMPLING, PHASE_DRAINING, PHASE_WRITING, PHASE_DONE };
static volatile sig_atomic_t phase;
static volatile sig_atomic_t got_signal;	/* the one that ended sampling */
static volatile sig_atomic_t abort_signal;	/* the one that aborts */
static volatile sig_atomic_t child_exited;

/* Removes the unfinished outputs and dies of @sig. Async-signal-safe. */
static void abort_outputs(int sig)
{
	static const char msg[] =
		"\nflamestat record: interrupted while writing: no output written\n";

	outfile_discard_all();
	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0) {
		/* nothing more to say it with */
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void on_signal(int sig)
{
	switch (phase) {
	case PHASE_SAMPLING:
		if (got_signal)
			abort_signal = sig;	/* a second one */
		else
			got_signal = sig;
		break;
	case PHASE_DRAINING:
		abort_signal = sig;
		break;
	case PHASE_WRITING:
		abort_outputs(sig);
		break;
	default:
		if (!got_signal)
			got_signal = sig;
		break;
	}
}

static void on_child(int sig)
{
	(void)sig;
	child_exited = 1;
}

static void install_handlers(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_child;
	sa.sa_flags = SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, NULL);
}

/*
 * The command, forked now but held until the profiler is configured for
 * it: it waits for a byte on go[0]. If exec fails, errno comes back on
 * err[0] (closed by a successful exec, thanks to O_CLOEXEC).
 */
struct child {
	pid_t pid;
	int go;
	int err;
	int status;
	bool reaped;
};

static int child_spawn(struct child *ch, char **argv)
{
	int go[2], err[2];
	char b;

	memset(ch, 0, sizeof(*ch));
	if (pipe2(go, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) {
		fs_perror("pipe");
		return EXIT_FAIL;
	}
	ch->pid = fork();
	if (ch->pid < 0) {
		fs_perror("fork");
		return EXIT_FAIL;
	}
	if (ch->pid == 0) {
		int e;

		close(go[1]);
		close(err[0]);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		if (read(go[0], &b, 1) != 1)
			_exit(EXIT_CHILD);
		execvp(argv[0], argv);
		e = errno;
		if (write(err[1], &e, sizeof(e)) < 0)
			_exit(EXIT_CHILD);
		_exit(EXIT_CHILD);
	}
	close(go[0]);
	close(err[1]);
	ch->go = go[1];
	ch->err = err[0];
	return 0;
}

/* Lets the command exec; returns 0 or the exit status after reporting. */
static int child_release(struct child *ch, const char *name)
{
	int e;
	ssize_t n;

	if (write(ch->go, "g", 1) != 1) {
		fs_perror("cannot start '%s'", name);
		return EXIT_CHILD;
	}
	close(ch->go);
	ch->go = -1;
	do {
		n = read(ch->err, &e, sizeof(e));
	} while (n < 0 && errno == EINTR);
	close(ch->err);
	ch->err = -1;
	if (n == sizeof(e)) {
		errno = e;
		fs_perror("cannot run '%s'", name);
		return EXIT_CHILD;
	}
	return 0;
}

static bool child_poll(struct child *ch)
{
	pid_t r;

	if (ch->reaped || !ch->pid)
		return ch->reaped;
	r = waitpid(ch->pid, &ch->status, WNOHANG);
	if (r == ch->pid)
		ch->reaped = true;
	return ch->reaped;
}

static void child_wait(struct child *ch)
{
	while (ch->pid && !ch->reaped) {
		if (waitpid(ch->pid, &ch->status, 0) == ch->pid)
			ch->reaped = true;
		else if (errno != EINTR)
			break;
	}
}

static bool pids_alive(const struct record_env *e)
{
	uint32_t i;

	for (i = 0; i < e->nr_pids; i++)
		if (!kill((pid_t)e->pids[i], 0) || errno == EPERM)
			return true;
	return false;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t total_drops(const struct flamestat_stats *st)
{
	uint64_t d = 0;
	int i;

	for (i = 0; i < FLAMESTAT_NR_DROPS; i++)
		d += st->dropped[i];
	return d;
}

/* Throttled periods apart from the drops: they were not sampled at all. */
static void status_line(double elapsed, const struct flamestat_stats *st)
{
	uint64_t throttled = st->dropped[FLAMESTAT_DROP_THROTTLED];

	fprintf(stderr,
		"\r\033[K%6.1fs  samples %llu  recorded %llu  dropped %llu  stacks %llu",
		elapsed, (unsigned long long)st->samples,
		(unsigned long long)st->recorded,
		(unsigned long long)(total_drops(st) - throttled),
		(unsigned long long)st->stacks);
	if (throttled)
		fprintf(stderr, "  throttled %llu%s", (unsigned long long)throttled,
			st->state & FLAMESTAT_STATE_THROTTLED ? " (now)" : "");
	if (st->offcpu_blocks)
		fprintf(stderr, "  blocks %llu", (unsigned long long)st->offcpu_blocks);
}

static void build_config(const struct record_env *e, pid_t child,
			 struct flamestat_config *cfg)
{
	uint32_t i;

	cfg->flags = (e->user_only ? 0 : FLAMESTAT_CFG_KERNEL) |
		     (e->kernel_only ? 0 : FLAMESTAT_CFG_USER) |
		     (e->idle ? FLAMESTAT_CFG_IDLE : 0) |
		     (e->per_cpu ? FLAMESTAT_CFG_PERCPU : 0) |
		     (e->cpus ? FLAMESTAT_CFG_CPUMASK : 0);
	/* The mask goes with its flag: without it the module refuses one. */
	memcpy(cfg->cpus, e->cpuset.w, sizeof(cfg->cpus));
	cfg->freq_hz = e->freq;
	cfg->kernel_depth = e->kernel_depth;
	cfg->user_depth = e->user_depth;
	cfg->mode = e->mode;
	cfg->min_block_us = e->min_block_us;
	if (e->waker)
		cfg->flags |= FLAMESTAT_CFG_WAKER;
	cfg->flags |= e->unwind;
	if (child > 0 && !e->all) {
		cfg->nr_pids = 1;
		cfg->pids[0] = (uint32_t)child;
		cfg->flags |= FLAMESTAT_CFG_PID_TREE;
	} else {
		cfg->nr_pids = e->nr_pids;
		for (i = 0; i < e->nr_pids; i++)
			cfg->pids[i] = e->pids[i];
	}
}

/*
 * What the user should know about the recording, on stderr. @max_pct: the
 * module's cpu_max_percent, -1 when unknown. @m: what folding the stacks
 * found (frame pointers at the user leaves), NULL when they were not
 * folded (raw output only).
 */
/*
 * Off-CPU time (--off-cpu, --wall): the blocks the module saw, recorded
 * and not, by reason: offcpu_blocks == offcpu_recorded + the drops.
 */
static void offcpu_summary(const struct record_env *e,
			   const struct flamestat_stats *st)
{
	uint64_t lost = fold_offcpu_lost(st) -
			st->offcpu_dropped[FLAMESTAT_OFFDROP_UNFINISHED];
	uint64_t unfinished = st->offcpu_dropped[FLAMESTAT_OFFDROP_UNFINISHED];
	char t[PROFILE_TIME_BUF];
	int i;

	fprintf(stderr, "flamestat record: off-CPU: %llu blocks, %llu recorded (%s)",
		(unsigned long long)st->offcpu_blocks,
		(unsigned long long)st->offcpu_recorded,
		profile_fmt_ns(t, sizeof(t), (double)st->offcpu_ns));
	if (st->offcpu_blocks > st->offcpu_recorded) {
		fprintf(stderr, "; not recorded:");
		for (i = 0; i < FLAMESTAT_NR_OFFDROPS; i++)
			fprintf(stderr, "%s %s %llu", i ? "," : "",
				fs_offdrop_name(i),
				(unsigned long long)st->offcpu_dropped[i]);
	}
	if (e->min_block_us)
		fprintf(stderr, " (min block %u us)", e->min_block_us);
	fputc('\n', stderr);
	if (lost)
		fs_warn("%llu off-CPU blocks were lost for want of room (no-slot: more tasks blocked at once than the module's offcpu_tasks=; cpu-table-full: pcpu_kb=; long-probe): load the module with larger ones",
			(unsigned long long)lost);
	if (unfinished)
		fs_note("%llu tasks were still blocked when the recording ended: their last block is not in the profile",
			(unsigned long long)unfinished);
}

static void summary(const struct record_env *e, const struct flamestat_stats *st,
		    int max_pct, const struct profile_meta *m,
		    const char *where)
{
	char note[640];
	uint64_t drops = total_drops(st);
	uint64_t lost = st->dropped[FLAMESTAT_DROP_CPU_TABLE_FULL] +
			st->dropped[FLAMESTAT_DROP_TABLE_FULL] +
			st->dropped[FLAMESTAT_DROP_PROBE] +
			st->dropped[FLAMESTAT_DROP_EVICTED];
	uint64_t throttled = st->dropped[FLAMESTAT_DROP_THROTTLED];
	char share[16], limit[16] = "";
	int i, first = 1;

	uint64_t period_ns = m ? profile_period_ns(m) : 0;

	/* No timer ran: the blocks are all there is (offcpu_summary()). */
	if (e->mode == FLAMESTAT_MODE_OFFCPU)
		fprintf(stderr, "flamestat record: %llu off-CPU blocks in %llu stacks",
			(unsigned long long)st->offcpu_recorded,
			(unsigned long long)st->stacks);
	else
		fprintf(stderr, "flamestat record: %llu samples in %llu stacks",
			(unsigned long long)st->recorded,
			(unsigned long long)st->stacks);
	/* What the stacks weigh: the periods their samples stand for. */
	if (period_ns && m->sample_periods)
		fprintf(stderr, " (%.3f s of CPU time)",
			(double)m->sample_periods * (double)period_ns / 1e9);
	fprintf(stderr, ", %.1f s on %u CPU%s", (double)st->running_ns / 1e9,
		st->nr_cpus, st->nr_cpus == 1 ? "" : "s");
	if (drops) {
		fprintf(stderr, "; not recorded: ");
		for (i = 0; i < FLAMESTAT_NR_DROPS; i++) {
			if (!st->dropped[i])
				continue;
			fprintf(stderr, "%s%s %llu", first ? "" : ", ",
				fs_drop_name(i),
				(unsigned long long)st->dropped[i]);
			first = 0;
		}
	}
	fprintf(stderr, "; wrote %s\n", where);
	if (e->mode != FLAMESTAT_MODE_CPU)
		offcpu_summary(e, st);
	if (lost)
		fs_warn("%llu samples were lost to full tables (the coldest stacks make room for new ones): load the module with a larger table_kb= (merged table) or pcpu_kb= (per CPU)",
			(unsigned long long)lost);
	/* Periods: samples (throttled ones included) and overruns. */
	if (throttled) {
		if (max_pct > 0 && max_pct < 100)
			snprintf(limit, sizeof(limit), " (%d%%)", max_pct);
		fs_warn("%s of the sampling periods (%llu) were skipped: the module throttled itself on CPUs where its cost passed cpu_max_percent%s of the CPU; to sample at the full rate, lower --freq, use a smaller --kernel-depth/--user-depth, or load the module with a higher cpu_max_percent=",
			fmt_share(share, sizeof(share), throttled,
				  st->samples + st->overruns),
			(unsigned long long)throttled, limit);
	}
	if (st->recorded && st->user_fault * 4 > st->recorded && !e->kernel_only)
		fs_warn("%.0f%% of the user stacks ended at an unreadable frame: code built without frame pointers? (-fno-omit-frame-pointer)",
			100.0 * (double)st->user_fault / (double)st->recorded);
	if (!e->kernel_only && *fs_unwind_shares(note, sizeof(note), st))
		fprintf(stderr, "flamestat record: user stacks: %s\n", note);
	if (st->kernel_truncated || st->user_truncated)
		fs_warn("%llu kernel and %llu user stacks were cut at the depth limit (marked [truncated]); raise --kernel-depth/--user-depth",
			(unsigned long long)st->kernel_truncated,
			(unsigned long long)st->user_truncated);
	if (m && profile_frameless_note(m, false, note, sizeof(note)))
		fs_warn("%s", note);
}

/*
 * Sample until the end condition; returns the signal that ended it, or 0.
 * Sleeps until the next thing there is to do: the end of -d, the next
 * status line, a signal (Ctrl-C, or SIGCHLD when the command exits) or,
 * only with -p, the next look at the processes. Every wake-up of this
 * process is CPU time taken from what is being profiled.
 */
static int sample_loop(struct record_env *e, struct fs_dev *dev,
		       struct child *ch)
{
	bool tty = !e->quiet && isatty(STDERR_FILENO);
	double start = now_s(), next = start + 1, t, wait;
	struct flamestat_stats st;
	sigset_t block, old;
	struct timespec ts;

	/*
	 * Signals stay blocked except while sleeping in ppoll(), so that
	 * one arriving between the checks and the sleep still ends it.
	 */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, &old);
	interval_begin(&e->interval, start);
	for (;;) {
		t = now_s();
		if (got_signal)
			break;
		if (e->duration && t - start >= e->duration)
			break;
		if (e->command && (child_exited || child_poll(ch)) &&
		    child_poll(ch))
			break;
		if (e->nr_pids && !pids_alive(e))
			break;
		/* --interval: the interval's file, between two looks. */
		if (interval_tick(&e->interval, dev, t))
			break;
		if (tty && t >= next) {
			if (!fs_dev_get_stats(dev, &st))
				status_line(t - start, &st);
			next += 1;
		}
		/*
		 * Without a deadline, no timeout at all: even a sleeping
		 * timer costs the sampler (one more in the CPU's hrtimer
		 * tree that every re-arming of its timer walks).
		 */
		t = now_s();
		wait = -1;
		if (e->duration)
			wait = start + e->duration - t;
		if (tty && (wait < 0 || next - t < wait))
			wait = next - t;
		if (e->nr_pids && (wait < 0 || wait > 0.1))
			wait = 0.1;
		wait = interval_wait(&e->interval, t, wait);
		if (wait < 0 && !e->duration && !tty && !e->nr_pids) {
			ppoll(NULL, 0, NULL, &old);
			continue;
		}
		if (wait < 0)
			wait = 0;
		ts.tv_sec = (time_t)wait;
		ts.tv_nsec = (long)((wait - (double)ts.tv_sec) * 1e9);
		ppoll(NULL, 0, &ts, &old);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (tty)
		fprintf(stderr, "\r\033[K");
	return got_signal;
}

/*
 * The outputs, opened (created as temporary files beside their targets,
 * lib/outfile.h) before the module is touched, so that a path that
 * cannot be written fails the command at once rather than the recording
 * at its end. Returns 0, or EXIT_FAIL after reporting.
 */
struct record_outputs {
	struct svg_output out;
	struct svg_output raw;
	bool out_open, raw_open;
};

static int open_outputs(struct record_env *e, struct record_outputs *o)
{
	memset(o, 0, sizeof(*o));
	if (out_format_resolve(&e->out) == OUT_RAW &&
	    (!e->out.path || !strcmp(e->out.path, "-")) &&
	    isatty(STDOUT_FILENO)) {
		fs_err("not writing a raw recording to a terminal: use -o FILE.fstat");
		return EXIT_USAGE;
	}
	if (e->raw_path) {
		if (svg_output_open(&o->raw, e->raw_path))
			return EXIT_FAIL;
		o->raw_open = true;
	}
	if (svg_output_open(&o->out, e->out.path)) {
		svg_output_close(&o->raw, false);
		o->raw_open = false;
		return EXIT_FAIL;
	}
	o->out_open = true;
	e->out.opened = &o->out;
	return 0;
}

/* Puts them in place when @ok (each its own), else removes them. */
static int close_outputs(struct record_outputs *o, bool raw_ok, bool out_ok)
{
	int ret = 0;

	if (o->raw_open && svg_output_close(&o->raw, raw_ok))
		ret = -1;
	if (o->out_open && svg_output_close(&o->out, out_ok))
		ret = -1;
	o->raw_open = o->out_open = false;
	return ret;
}

/* @m: the metadata of the folded profile, when one was made. */
static int write_outputs(struct record_env *e, struct record_outputs *o,
			 struct snapshot *s, struct profile_meta *m,
			 bool *folded)
{
	enum out_format f = out_format_resolve(&e->out);
	bool raw_ok = true, out_ok = true;
	struct profile *p;

	*folded = false;
	if (o->raw_open && snapshot_write(s, o->raw.f)) {
		fs_perror("cannot write %s", e->raw_path);
		raw_ok = false;
	}
	if (f == OUT_RAW) {
		if (snapshot_write(s, o->out.f)) {
			fs_perror("cannot write %s", e->out.path &&
				  strcmp(e->out.path, "-") ? e->out.path :
				  "standard output");
			out_ok = false;
		}
	} else if (f == OUT_PPROF) {
		/* From the snapshot itself; the summary from its header. */
		fold_meta(s, m);
		*folded = true;
		if (out_write_pprof_snapshot(s, true, &e->src, &e->out))
			out_ok = false;
	} else {
		p = profile_new();
		if (src_fold_snapshot(s, true, &e->src, p) ||
		    out_write(p, &e->out))
			out_ok = false;
		*m = *profile_meta(p);
		m->title = NULL;
		if (m->frameless_top)
			m->frameless_top = xstrdup(m->frameless_top);
		*folded = true;
		profile_free(p);
	}
	return close_outputs(o, raw_ok, out_ok) || !raw_ok || !out_ok ? -1 : 0;
}

/*
 * The tool's own configuration must not outlive it. With -F, the
 * recording's samples hold the module's frequency (EBUSY, while this
 * file still controls it): they were read, or are lost with the
 * recording, so reset and put the old frequency back.
 */
static void restore_module(struct fs_dev *dev,
			   const struct flamestat_config *saved,
			   bool was_running)
{
	if (fs_dev_set_config(dev, saved) && errno == EBUSY &&
	    !fs_dev_cmd(dev, FLAMESTAT_IOC_RESET))
		fs_dev_set_config(dev, saved);
	if (was_running)
		fs_dev_cmd(dev, FLAMESTAT_IOC_START);
	fs_dev_cmd(dev, FLAMESTAT_IOC_UNCLAIM);
	fs_dev_close(dev);
}

/*
 * The module refused @cfg with EINVAL: is it for its mode? Modules
 * without off-CPU time refuse every mode but cpu, and its options; if
 * the same configuration in cpu mode is taken, that was why. (The
 * module is put back as it was found afterwards, restore_module().)
 */
static bool module_lacks_offcpu(struct fs_dev *dev,
				const struct flamestat_config *cfg)
{
	struct flamestat_config cpu = *cfg;

	cpu.mode = FLAMESTAT_MODE_CPU;
	cpu.min_block_us = 0;
	cpu.flags &= ~(uint32_t)FLAMESTAT_CFG_WAKER;
	return !fs_dev_set_config(dev, &cpu);
}

/*
 * The module refused @cfg with EINVAL: for --unwind? Modules before unwind
 * tables refuse its flags; if the configuration without them is taken,
 * that was why.
 */
static bool module_lacks_unwind(struct fs_dev *dev,
				const struct flamestat_config *cfg)
{
	struct flamestat_config c = *cfg;

	c.flags &= ~(uint32_t)(FLAMESTAT_CFG_UNWIND_FP |
			       FLAMESTAT_CFG_UNWIND_TABLE);
	return !fs_dev_set_config(dev, &c);
}

/*
 * Claims the session; with --force, takes it from whoever holds it.
 * Returns 0 or the exit status, having said why.
 */
static int take_control(const struct record_env *e, struct fs_dev *dev)
{
	if (!fs_dev_cmd(dev, FLAMESTAT_IOC_CLAIM))
		return EXIT_OK;
	if (errno != EBUSY) {
		fs_perror("cannot take control of %s", FLAMESTAT_DEVICE);
		return EXIT_FAIL;
	}
	if (!e->force) {
		fs_err("another flamestat session controls the profiler: wait for it to finish (see 'flamestat status'), or take it over as root with --force");
		return EXIT_BUSY;
	}
	if (!fs_dev_cmd(dev, FLAMESTAT_IOC_CLAIM_FORCE)) {
		if (!e->quiet)
			fs_warn("took the profiler over from another session (--force)");
		return EXIT_OK;
	}
	if (errno == EPERM) {
		fs_err("--force: taking the profiler over from another session needs root (CAP_SYS_ADMIN)");
		return EXIT_PERM;
	}
	if (errno == ENOTTY) {
		fs_err("--force: the loaded module cannot hand a session over (it is older than this tool): wait for the other session");
		return EXIT_BUSY;
	}
	fs_perror("--force: cannot take control of %s", FLAMESTAT_DEVICE);
	return EXIT_FAIL;
}

int do_record(int argc, char **argv)
{
	struct flamestat_config cfg = { 0 }, saved;
	struct record_env e;
	struct fs_dev dev;
	struct child ch = { 0 };
	struct snapshot s;
	struct flamestat_stats st;
	struct profile_meta meta;
	struct record_outputs outs;
	bool was_running = false, folded = false, restored = false;
	char err[256];
	void *buf;
	size_t size;
	int ret, sig;

	record_env_init(&e);
	ret = parse_args(&e, argc, argv);
	if (ret)
		return ret;
	/* The outputs (--interval: its directory), before anything is sampled. */
	if (e.interval.secs) {
		memset(&outs, 0, sizeof(outs));
		ret = interval_open(&e.interval, &e.out, &e.src, e.quiet);
	} else {
		ret = open_outputs(&e, &outs);
	}
	if (ret)
		return ret;
	ret = fs_dev_open(&dev, true);
	if (ret)
		goto out_files;
	if (e.cpus && check_cpus_module(&e, dev.version.nr_cpu_ids)) {
		fs_dev_close(&dev);
		ret = EXIT_USAGE;
		goto out_files;
	}
	ret = take_control(&e, &dev);
	if (ret) {
		fs_dev_close(&dev);
		goto out_files;
	}
	/* Put the module back as we found it afterwards (stopped or not). */
	if (fs_dev_get_config(&dev, &saved) || fs_dev_get_stats(&dev, &st)) {
		fs_perror("cannot read the module's state");
		fs_dev_close(&dev);
		ret = EXIT_FAIL;
		goto out_files;
	}
	was_running = st.state & FLAMESTAT_STATE_RUNNING;
	fs_dev_cmd(&dev, FLAMESTAT_IOC_STOP);

	install_handlers();
	if (e.command) {
		ret = child_spawn(&ch, e.command);
		if (ret)
			goto out_restore;
	}
	build_config(&e, ch.pid, &cfg);
	/*
	 * A fresh session: reset, then configure. The module keeps its
	 * frequency while its table holds samples (EBUSY): they were taken
	 * at that frequency. Sampling is stopped, so none come in between.
	 */
	if (fs_dev_cmd(&dev, FLAMESTAT_IOC_RESET)) {
		fs_perror("cannot reset the module's table");
		ret = EXIT_FAIL;
		goto out_child;
	}
	if (fs_dev_set_config(&dev, &cfg)) {
		int why = errno;

		ret = why == ESRCH ? EXIT_USAGE : EXIT_FAIL;
		if (why == ESRCH) {
			fs_err("-p: no such process");
		} else if (why == EPERM) {
			fs_err("kernel lockdown forbids kernel stacks: drop -K (user stacks are still recorded)");
		} else if (why == EINVAL && e.unwind &&
			   module_lacks_unwind(&dev, &cfg)) {
			fs_err("--unwind: the loaded flamestat module walks user stacks by frame pointer only; load a newer one (rmmod flamestat, then install this version's module)");
			ret = EXIT_NOMODULE;
		} else if (why == EINVAL && cfg.mode != FLAMESTAT_MODE_CPU &&
			   module_lacks_offcpu(&dev, &cfg)) {
			fs_err("%s: the loaded flamestat module does not measure off-CPU time; load a newer one (rmmod flamestat, then install this version's module)",
			       e.mode_opt);
			ret = EXIT_NOMODULE;
		} else if (why == EBUSY &&
			   fs_dev_cmd(&dev, FLAMESTAT_IOC_CLAIM)) {
			/* Claiming again fails only if the claim was taken. */
			fs_err("another session took the profiler over (root's 'flamestat record --force')");
			ret = EXIT_BUSY;
		} else {
			errno = why;
			fs_dev_set_config_perror(&dev, &cfg,
						 "the module refused the configuration");
		}
		goto out_child;
	}
	if (fs_dev_cmd(&dev, FLAMESTAT_IOC_START)) {
		fs_perror("cannot start sampling");
		ret = EXIT_FAIL;
		goto out_child;
	}
	if (e.command) {
		ret = child_release(&ch, e.command[0]);
		if (ret) {
			fs_dev_cmd(&dev, FLAMESTAT_IOC_STOP);
			goto out_child;
		}
	}

	sig = sample_loop(&e, &dev, &ch);
	phase = PHASE_DRAINING;
	if (fs_dev_cmd(&dev, FLAMESTAT_IOC_STOP) && errno == EBUSY) {
		/* Root took it over: the table is its session's now. */
		fs_err("another session took the profiler over (root's 'flamestat record --force'): this recording's samples are gone");
		ret = EXIT_BUSY;
		goto out_child;
	}
	if (e.interval.secs) {
		/* The last interval too; a signal is the normal end here. */
		ret = interval_finish(&e.interval, &dev);
		if (!e.quiet && ret == EXIT_OK) {
			char *where = xasprintf("%lu file%s in %s",
						e.interval.files,
						e.interval.files == 1 ? "" : "s",
						e.interval.dir);

			summary(&e, &e.interval.total,
				fs_module_cpu_max_percent(), NULL, where);
			free(where);
		}
		goto out_child;
	}
	if (fs_dev_snapshot(&dev, 0, &buf, &size)) {
		fs_dev_snapshot_perror("cannot read the samples");
		ret = EXIT_FAIL;
		goto out_child;
	}
	if (snapshot_parse(&s, buf, size, err, sizeof(err))) {
		fs_err("the module sent a bad snapshot: %s", err);
		ret = EXIT_FAIL;
		goto out_child;
	}
	/* The module is free before the (long) symbolization. */
	restore_module(&dev, &saved, was_running);
	restored = true;
	phase = PHASE_WRITING;
	if (abort_signal)
		abort_outputs(abort_signal);
	/* Interrupted: the output is written, and the status says so. */
	ret = write_outputs(&e, &outs, &s, &meta, &folded) ? EXIT_FAIL :
	      sig ? 128 + sig : EXIT_OK;
	phase = PHASE_DONE;
	if (!e.quiet && ret != EXIT_FAIL)
		summary(&e, &s.hdr.stats, fs_module_cpu_max_percent(),
			folded ? &meta : NULL,
			e.out.path && strcmp(e.out.path, "-") ? e.out.path :
			"standard output");
	if (folded)
		free(meta.frameless_top);
	snapshot_free(&s);

out_child:
	if (e.command && ch.pid > 0) {
		if (ch.go >= 0 && ch.go)
			close(ch.go);	/* never released: it exits */
		child_wait(&ch);
		if (!e.quiet && ch.reaped && ret != EXIT_CHILD &&
		    WIFEXITED(ch.status) && WEXITSTATUS(ch.status))
			fs_warn("'%s' exited with status %d", e.command[0],
				WEXITSTATUS(ch.status));
	}
out_restore:
	if (!restored)
		restore_module(&dev, &saved, was_running);
out_files:
	/* Not written (a failure before the end): removed. */
	close_outputs(&outs, false, false);
	interval_close(&e.interval);
	return ret;
}
