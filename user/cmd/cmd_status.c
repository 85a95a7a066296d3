// SPDX-License-Identifier: GPL-2.0
/*
 * flamestat status: is the module loaded and running, how is it configured,
 * what has it counted and dropped, what memory and CPU does it cost; and
 * when it is not loaded, whether it could be.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "device/device.h"
#include "device/loadpolicy.h"
#include "lib/cpulist.h"
#include "lib/util.h"

static void usage(FILE *out)
{
	fprintf(out,
"Usage: flamestat status [-h]\n"
"\n"
"Show whether the flamestat module is loaded and sampling, its\n"
"configuration, the samples it counted and why others were not recorded,\n"
"its memory use and its own CPU cost per sample, and whether it throttled\n"
"itself (sampled less often on a CPU where that cost passed the module's\n"
"cpu_max_percent). When it is not loaded, show the installed module and\n"
"its signer, Secure Boot, lockdown and signature enforcement, and whether\n"
"the kernel would refuse the module.\n"
"Reading the counters does not disturb sampling. Needs root.\n"
"\n"
"Example:\n"
"  sudo flamestat status\n"
"\n"
"Exit status: 0 loaded, 3 not root, 4 module not loaded, 5 ABI mismatch.\n"
"See flamestat-status(1).\n");
}

/*
 * With no CPU list the module samples every CPU but those the kernel
 * isolates (isolcpus=, nohz_full=): say which, from the same sysfs files.
 */
static void print_default_cpus(void)
{
	struct cpuset iso = { { 0 } }, nohz;
	char buf[256];
	unsigned int i;

	if (cpulist_read("/sys/devices/system/cpu/isolated", &iso))
		memset(&iso, 0, sizeof(iso));
	if (!cpulist_read("/sys/devices/system/cpu/nohz_full", &nohz))
		for (i = 0; i < FLAMESTAT_CPUMASK_WORDS; i++)
			iso.w[i] |= nohz.w[i];
	if (!cpuset_count(&iso)) {
		printf("all");
		return;
	}
	printf("all but %s (isolated by isolcpus= or nohz_full=; a CPU list samples them)",
	       cpulist_format(&iso, buf, sizeof(buf)));
}

static void print_config(const struct flamestat_config *c)
{
	uint32_t i, cpu;
	bool first = true;

	printf("frequency:  %u Hz per CPU\n", c->freq_hz);
	printf("stacks:     %s%s%s, depth %u kernel / %u user\n",
	       c->flags & FLAMESTAT_CFG_KERNEL ? "kernel" : "",
	       (c->flags & FLAMESTAT_CFG_KERNEL) &&
	       (c->flags & FLAMESTAT_CFG_USER) ? " + " : "",
	       c->flags & FLAMESTAT_CFG_USER ? "user" : "",
	       c->kernel_depth, c->user_depth);
	printf("idle:       %s\n", c->flags & FLAMESTAT_CFG_IDLE ?
	       "recorded" : "counted, not recorded");
	printf("processes:  ");
	if (!c->nr_pids)
		printf("all");
	for (i = 0; i < c->nr_pids; i++)
		printf("%s%u", i ? "," : "", c->pids[i]);
	if (c->flags & FLAMESTAT_CFG_PID_TREE)
		printf(" and descendants");
	printf("\ncpus:       ");
	if (!(c->flags & FLAMESTAT_CFG_CPUMASK))
		print_default_cpus();
	for (cpu = 0; cpu < FLAMESTAT_MAX_CPUS; cpu++) {
		if (!(c->cpus[cpu / 64] & (1ULL << (cpu % 64))))
			continue;
		printf("%s%u", first ? "" : ",", cpu);
		first = false;
	}
	printf("%s\n", c->flags & FLAMESTAT_CFG_PERCPU ? " (kept apart)" : "");
}

/* The smallest bucket bound below which @q of the samples fall. */
static uint64_t cost_quantile(const struct flamestat_stats *st, double q)
{
	uint64_t n = 0, seen = 0;
	int i;

	for (i = 0; i < FLAMESTAT_COST_BUCKETS; i++)
		n += st->cost_hist[i];
	for (i = 0; i < FLAMESTAT_COST_BUCKETS; i++) {
		seen += st->cost_hist[i];
		if (n && (double)seen >= q * (double)n)
			return 1ULL << (i + 6);
	}
	return 0;
}

/*
 * Self-throttling: the periods the sampler skipped on a CPU where its cost
 * passed the module's cpu_max_percent (@max_pct; -1: unknown), and whether
 * it still does (periods: samples, throttled ones included, + overruns).
 */
static void print_throttled(const struct flamestat_stats *st, int max_pct)
{
	uint64_t n = st->dropped[FLAMESTAT_DROP_THROTTLED];
	uint64_t periods = st->samples + st->overruns;
	bool now = st->state & FLAMESTAT_STATE_THROTTLED;
	char share[16];

	if (!n && !now)
		return;
	printf("throttled:  %s%llu periods skipped",
	       now ? "now, on some CPUs; " : "", (unsigned long long)n);
	if (periods)
		printf(" (%s of the periods)",
		       fmt_share(share, sizeof(share), n, periods));
	printf(": the sampler's cost %s\n            cpu_max_percent",
	       now ? "exceeds" : "exceeded");
	if (max_pct > 0 && max_pct < 100)
		printf(" (%d%%)", max_pct);
	printf(" of a CPU, so it %s less often there until its cost %s\n",
	       now ? "samples" : "sampled", now ? "falls" : "fell");
}

/* @max_pct: the module's cpu_max_percent, -1 when unknown. */
static void print_stats(const struct flamestat_stats *st, int max_pct)
{
	uint64_t throttled = st->dropped[FLAMESTAT_DROP_THROTTLED];
	/* Timer callbacks: throttled periods are in samples, at no cost. */
	uint64_t firings = st->samples > throttled ? st->samples - throttled : 0;
	uint64_t drops = 0;
	int i;

	for (i = 0; i < FLAMESTAT_NR_DROPS; i++)
		drops += st->dropped[i];
	printf("running:    %s for %.1f s since the last reset, on %u CPUs\n",
	       st->state & FLAMESTAT_STATE_RUNNING ? "yes" : "no",
	       (double)st->running_ns / 1e9, st->nr_cpus);
	if (st->state & FLAMESTAT_STATE_CLAIMED)
		printf("control:    held by a flamestat record session\n");
	if (st->state & FLAMESTAT_STATE_LOCKDOWN)
		printf("lockdown:   kernel stacks are withheld\n");
	printf("samples:    %llu taken, %llu recorded in %llu unique stacks, %llu not recorded\n",
	       (unsigned long long)st->samples,
	       (unsigned long long)st->recorded,
	       (unsigned long long)st->stacks, (unsigned long long)drops);
	for (i = 0; i < FLAMESTAT_NR_DROPS; i++)
		if (st->dropped[i])
			printf("  %-16s %llu\n", fs_drop_name(i),
			       (unsigned long long)st->dropped[i]);
	printf("marked:     %llu kernel / %llu user stacks truncated, %llu user walks ended on a fault,\n"
	       "            %llu 32-bit, %llu irq work on idle CPUs, %llu without process maps\n",
	       (unsigned long long)st->kernel_truncated,
	       (unsigned long long)st->user_truncated,
	       (unsigned long long)st->user_fault,
	       (unsigned long long)st->user_compat,
	       (unsigned long long)st->idle_irq,
	       (unsigned long long)st->unmapped_procs);
	printf("overruns:   %llu timer periods missed\n",
	       (unsigned long long)st->overruns);
	print_throttled(st, max_pct);
	printf("processes:  %llu of %llu with recorded maps\n",
	       (unsigned long long)st->procs,
	       (unsigned long long)st->procs_max);
	if (st->buildid_uncached || st->maps_busy || st->maps_truncated)
		printf("maps:       %llu files without build-id (note not in the page cache; no I/O is done),\n"
		       "            %llu scans put off (mmap_lock held), %llu scans cut at 4096 executable mappings\n",
		       (unsigned long long)st->buildid_uncached,
		       (unsigned long long)st->maps_busy,
		       (unsigned long long)st->maps_truncated);
	printf("memory:     %.1f of %.1f MiB preallocated in use\n",
	       (double)st->mem_used / 1048576.0,
	       (double)st->mem_total / 1048576.0);
	if (firings)
		printf("cost:       %.0f ns per sample (p50 < %llu ns, p99 < %llu ns, max %llu ns)\n",
		       (double)st->cost_ns / (double)firings,
		       (unsigned long long)cost_quantile(st, 0.5),
		       (unsigned long long)cost_quantile(st, 0.99),
		       (unsigned long long)st->cost_max_ns);
}

int do_status(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct flamestat_config cfg;
	struct flamestat_stats st;
	struct fs_dev dev;
	int c, ret;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return EXIT_OK;
		}
		fprintf(stderr, "Try 'flamestat status --help'.\n");
		return EXIT_USAGE;
	}
	if (optind < argc) {
		fs_err("no arguments expected ('%s')", argv[optind]);
		return EXIT_USAGE;
	}
	if (!fs_module_loaded()) {
		struct fs_load_policy pol;

		printf("module:     not loaded\n");
		fs_load_policy_read(&pol, NULL);
		fs_load_policy_print(&pol, stdout);
		return EXIT_NOMODULE;
	}
	ret = fs_dev_open(&dev, false);
	if (ret)
		return ret;
	if (fs_dev_get_config(&dev, &cfg) || fs_dev_get_stats(&dev, &st)) {
		fs_perror("cannot read the module's state");
		fs_dev_close(&dev);
		return EXIT_FAIL;
	}
	fs_dev_close(&dev);
	printf("module:     loaded, version %s, ABI %u, %u CPU ids\n",
	       dev.version.module_version, dev.version.abi_version,
	       dev.version.nr_cpu_ids);
	print_stats(&st, fs_module_cpu_max_percent());
	print_config(&cfg);
	return EXIT_OK;
}
