// SPDX-License-Identifier: GPL-2.0
/*
 * flamestat status: is the module loaded and running, how is it configured,
 * what has it counted and dropped, what memory and CPU does it cost; and
 * when it is not loaded, whether it could be.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "device/device.h"
#include "device/loadpolicy.h"
#include "lib/cpulist.h"
#include "lib/util.h"

static void usage(FILE *out)
{
	fprintf(out,
"Usage: flamestat status [-j] [-h]\n"
"\n"
"Show whether the flamestat module is loaded and sampling, its\n"
"configuration, the samples it counted and why others were not recorded,\n"
"its memory use and its own CPU cost per sample, and whether it throttled\n"
"itself (sampled less often on a CPU where that cost passed the module's\n"
"cpu_max_percent); in off-CPU and wall-clock modes, the blocks it saw\n"
"and why some were not recorded. When it is not loaded, show the installed module and\n"
"its signer, Secure Boot, lockdown and signature enforcement, and whether\n"
"the kernel would refuse the module.\n"
"Reading the counters does not disturb sampling. Needs root.\n"
"\n"
"Options:\n"
"  -j, --json             the same as one JSON object (stable keys, see\n"
"                         flamestat-status(1))\n"
"  -h, --help             this text\n"
"\n"
"Examples:\n"
"  sudo flamestat status\n"
"  sudo flamestat status --json | jq .stats.dropped\n"
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

	printf("mode:       %s", c->mode == FLAMESTAT_MODE_OFFCPU ?
	       "offcpu (time off a CPU, in ns)" : c->mode == FLAMESTAT_MODE_WALL ?
	       "wall (CPU samples and time off a CPU, in ns)" :
	       c->mode == FLAMESTAT_MODE_CPU ? "cpu (CPU samples)" : "unknown");
	if (c->mode != FLAMESTAT_MODE_CPU)
		printf(", min block %u us, wakers %s", c->min_block_us,
		       c->flags & FLAMESTAT_CFG_WAKER ? "recorded" :
		       "not recorded");
	printf("\n");
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

/*
 * Off-CPU time: the blocks seen, recorded and not, by reason (exact:
 * blocks == recorded + the drops). In offcpu and wall mode, or when the
 * counters say something (a session in another mode before the reset).
 */
static void print_offcpu(const struct flamestat_stats *st,
			 const struct flamestat_config *c)
{
	int i;

	if (c->mode == FLAMESTAT_MODE_CPU && !st->offcpu_blocks)
		return;
	printf("off-cpu:    %llu blocks, %llu recorded (%.3f s off a CPU), %llu not recorded\n",
	       (unsigned long long)st->offcpu_blocks,
	       (unsigned long long)st->offcpu_recorded,
	       (double)st->offcpu_ns / 1e9,
	       (unsigned long long)(st->offcpu_blocks - st->offcpu_recorded));
	for (i = 0; i < FLAMESTAT_NR_OFFDROPS; i++)
		if (st->offcpu_dropped[i])
			printf("  %-16s %llu\n", fs_offdrop_name(i),
			       (unsigned long long)st->offcpu_dropped[i]);
	printf("blocked:    %llu tasks now with their stacks kept, room for %llu\n",
	       (unsigned long long)st->offcpu_tasks,
	       (unsigned long long)st->offcpu_tasks_max);
}

/* How user stacks were walked, and the unwind tables the module holds. */
static void print_unwind(const struct flamestat_stats *st)
{
	char buf[512];
	int i;

	if (*fs_unwind_shares(buf, sizeof(buf), st))
		printf("unwinding:  %s\n", buf);
	if (!st->unwind_tables && !st->unwind_uncached)
		return;
	printf("tables:     %llu files' unwind tables, %.1f MiB; %llu files not in the page cache yet",
	       (unsigned long long)st->unwind_tables,
	       (double)st->unwind_bytes / 1048576.0,
	       (unsigned long long)st->unwind_uncached);
	for (i = 0; i < FLAMESTAT_NR_UNWIND_FAILS; i++)
		if (st->unwind_failed[i])
			printf(", %llu %s", (unsigned long long)st->unwind_failed[i],
			       fs_unwind_fail_name(i));
	printf("\n");
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
	print_unwind(st);
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

/* --json: one object; the keys are documented in flamestat-status(1). */
static void json_str(const char *v)
{
	const unsigned char *p = (const unsigned char *)v;

	putchar('"');
	for (; *p; p++) {
		if (*p == '"' || *p == '\\')
			printf("\\%c", *p);
		else if (*p < 0x20)
			printf("\\u%04x", *p);
		else
			putchar(*p);
	}
	putchar('"');
}

static void json_key(const char *k, bool *first)
{
	printf("%s\n    ", *first ? "" : ",");
	*first = false;
	json_str(k);
	printf(": ");
}

static void json_u64(const char *k, uint64_t v, bool *first)
{
	json_key(k, first);
	printf("%llu", (unsigned long long)v);
}

static void json_bool(const char *k, bool v, bool *first)
{
	json_key(k, first);
	printf("%s", v ? "true" : "false");
}

/* FS_YES/FS_NO/FS_UNKNOWN as true/false/null. */
static void json_tri(const char *k, int v, bool *first)
{
	json_key(k, first);
	printf("%s", v == FS_YES ? "true" : v == FS_NO ? "false" : "null");
}

static void json_text(const char *k, const char *v, bool *first)
{
	json_key(k, first);
	if (v)
		json_str(v);
	else
		printf("null");
}

/* The module's parameters, from /sys/module/flamestat/parameters. */
static void json_params(void)
{
	const char *dir = "/sys/module/flamestat/parameters";
	struct dirent **names;
	bool first = true;
	char line[256];
	int n, i;

	printf("{");
	n = scandir(dir, &names, NULL, alphasort);
	for (i = 0; i < n; i++) {
		char *path = xasprintf("%s/%s", dir, names[i]->d_name);
		FILE *f = names[i]->d_name[0] == '.' ? NULL : fopen(path, "re");

		if (f) {
			if (fgets(line, sizeof(line), f)) {
				line[strcspn(line, "\n")] = '\0';
				printf("%s\n      ", first ? "" : ",");
				first = false;
				json_str(names[i]->d_name);
				printf(": ");
				json_str(line);
			}
			fclose(f);
		}
		free(path);
		free(names[i]);
	}
	if (n >= 0)
		free(names);
	printf("%s}", first ? "" : "\n    ");
}

/* The module is not loaded: would it load? */
static void print_json_unloaded(const struct fs_load_policy *pol)
{
	char why[1024];
	int verdict = fs_load_policy_refusal(pol, why, sizeof(why));
	bool first = true;

	printf("{");
	json_bool("loaded", false, &first);
	json_text("tool_version", FLAMESTAT_VERSION, &first);
	json_u64("tool_abi", FLAMESTAT_ABI_VERSION, &first);
	json_tri("installed", pol->installed, &first);
	json_text("installed_path", pol->installed == FS_YES ? pol->path : NULL,
		  &first);
	json_text("installed_version", pol->installed == FS_YES &&
		  pol->version[0] ? pol->version : NULL, &first);
	json_text("signer", pol->signer[0] ? pol->signer : NULL, &first);
	json_tri("secure_boot", pol->secure_boot, &first);
	json_text("lockdown", pol->lockdown[0] ? pol->lockdown : NULL, &first);
	json_tri("sig_enforce", pol->sig_enforce, &first);
	json_tri("modules_supported", pol->modules_supported, &first);
	json_tri("modules_disabled", pol->modules_disabled, &first);
	json_text("verdict", verdict == FS_YES ? "refuse" :
		  verdict == FS_UNKNOWN ? "may_refuse" : "loadable", &first);
	json_text("reason", verdict == FS_NO ? NULL : why, &first);
	printf("\n}\n");
}

static void print_json(const struct flamestat_version *v,
		       const struct flamestat_config *c,
		       const struct flamestat_stats *st, int max_pct,
		       bool params)
{
	bool first = true, f2;
	char cpus[1024] = "";
	struct cpuset set;
	uint32_t i;

	printf("{");
	json_bool("loaded", true, &first);
	json_text("tool_version", FLAMESTAT_VERSION, &first);
	json_u64("tool_abi", FLAMESTAT_ABI_VERSION, &first);
	json_text("module_version", v->module_version, &first);
	json_u64("module_abi", v->abi_version, &first);
	json_u64("nr_cpu_ids", v->nr_cpu_ids, &first);
	json_key("parameters", &first);
	if (params)
		json_params();
	else
		printf("{}");
	json_key("cpu_max_percent", &first);
	if (max_pct >= 0)
		printf("%d", max_pct);
	else
		printf("null");
	json_key("session", &first);
	f2 = true;
	printf("{");
	json_bool("running", st->state & FLAMESTAT_STATE_RUNNING, &f2);
	json_bool("claimed", st->state & FLAMESTAT_STATE_CLAIMED, &f2);
	json_bool("throttled_now", st->state & FLAMESTAT_STATE_THROTTLED, &f2);
	json_bool("lockdown", st->state & FLAMESTAT_STATE_LOCKDOWN, &f2);
	printf("\n    }");
	json_key("config", &first);
	f2 = true;
	printf("{");
	json_u64("freq_hz", c->freq_hz, &f2);
	json_bool("kernel", c->flags & FLAMESTAT_CFG_KERNEL, &f2);
	json_bool("user", c->flags & FLAMESTAT_CFG_USER, &f2);
	json_u64("kernel_depth", c->kernel_depth, &f2);
	json_u64("user_depth", c->user_depth, &f2);
	json_bool("idle", c->flags & FLAMESTAT_CFG_IDLE, &f2);
	json_bool("per_cpu", c->flags & FLAMESTAT_CFG_PERCPU, &f2);
	json_key("pids", &f2);
	printf("[");
	for (i = 0; i < c->nr_pids && i < FLAMESTAT_MAX_PIDS; i++)
		printf("%s%u", i ? ", " : "", c->pids[i]);
	printf("]");
	json_bool("pid_tree", c->flags & FLAMESTAT_CFG_PID_TREE, &f2);
	memcpy(set.w, c->cpus, sizeof(set.w));
	json_text("cpus", c->flags & FLAMESTAT_CFG_CPUMASK ?
		  cpulist_format(&set, cpus, sizeof(cpus)) : NULL, &f2);
	json_text("mode", c->mode == FLAMESTAT_MODE_CPU ? "cpu" :
		  c->mode == FLAMESTAT_MODE_OFFCPU ? "offcpu" :
		  c->mode == FLAMESTAT_MODE_WALL ? "wall" : "unknown", &f2);
	json_u64("min_block_us", c->min_block_us, &f2);
	json_bool("waker", c->flags & FLAMESTAT_CFG_WAKER, &f2);
	printf("\n    }");
	json_key("stats", &first);
	f2 = true;
	printf("{");
#define J(field) json_u64(#field, st->field, &f2)
	J(samples); J(recorded); J(overruns); J(stacks); J(running_ns);
	J(nr_cpus); J(kernel_truncated); J(user_truncated); J(user_fault);
	J(user_compat); J(idle_irq); J(unmapped_procs); J(procs);
	J(procs_max); J(buildid_uncached); J(maps_busy); J(maps_truncated);
	J(mem_used); J(mem_total); J(cost_ns); J(cost_max_ns);
	J(offcpu_blocks); J(offcpu_recorded); J(offcpu_ns); J(offcpu_tasks);
	J(offcpu_tasks_max); J(unwind_table); J(unwind_mixed); J(unwind_fp);
	J(unwind_tables); J(unwind_bytes); J(unwind_uncached);
#undef J
	printf("\n    }");
	json_key("dropped", &first);
	f2 = true;
	printf("{");
	for (i = 0; i < FLAMESTAT_NR_DROPS; i++)
		json_u64(fs_drop_name((int)i), st->dropped[i], &f2);
	printf("\n    }");
	json_key("offcpu_dropped", &first);
	f2 = true;
	printf("{");
	for (i = 0; i < FLAMESTAT_NR_OFFDROPS; i++)
		json_u64(fs_offdrop_name((int)i), st->offcpu_dropped[i], &f2);
	printf("\n    }");
	json_key("unwind_stop", &first);
	f2 = true;
	printf("{");
	for (i = 0; i < FLAMESTAT_NR_UNWIND_STOPS; i++)
		json_u64(fs_unwind_stop_name((int)i), st->unwind_stop[i], &f2);
	printf("\n    }");
	json_key("unwind_failed", &first);
	f2 = true;
	printf("{");
	for (i = 0; i < FLAMESTAT_NR_UNWIND_FAILS; i++)
		json_u64(fs_unwind_fail_name((int)i), st->unwind_failed[i], &f2);
	printf("\n    }\n}\n");
}

int do_status(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool json = false;
	struct flamestat_config cfg;
	struct flamestat_stats st;
	struct fs_dev dev;
	int c, ret;

	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return EXIT_OK;
		}
		if (c == 'j') {
			json = true;
			continue;
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

		fs_load_policy_read(&pol, NULL);
		if (json) {
			print_json_unloaded(&pol);
			return EXIT_NOMODULE;
		}
		printf("module:     not loaded\n");
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
	if (json) {
		print_json(&dev.version, &cfg, &st, fs_module_cpu_max_percent(),
			   true);
		return EXIT_OK;
	}
	printf("module:     loaded, version %s, ABI %u, %u CPU ids\n",
	       dev.version.module_version, dev.version.abi_version,
	       dev.version.nr_cpu_ids);
	print_stats(&st, fs_module_cpu_max_percent());
	print_offcpu(&st, &cfg);
	print_config(&cfg);
	return EXIT_OK;
}
