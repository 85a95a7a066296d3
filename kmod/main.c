// SPDX-License-Identifier: GPL-2.0
/*
 * flamestat: a CPU profiler that samples every CPU with a pinned hrtimer
 * and counts identical stacks in the kernel. This file holds the module
 * parameters and module load/unload; session.c owns the state.
 * `insmod flamestat.ko` starts sampling every CPU at 997 Hz;
 * `cat /dev/flamestat` prints folded stacks.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "config.h"
#include "device.h"
#include "session.h"
#include "table.h"

/* Initial configuration; the tool changes it through the ioctls. */
static unsigned int freq = FLAMESTAT_DEFAULT_FREQ;
module_param(freq, uint, 0444);
MODULE_PARM_DESC(freq, "samples per second per CPU, 1..20000 (default 997)");

static bool autostart = true;
module_param(autostart, bool, 0444);
MODULE_PARM_DESC(autostart, "start sampling at load (default 1)");

static bool idle;
module_param(idle, bool, 0444);
MODULE_PARM_DESC(idle, "record idle CPUs too (default 0: counted, not recorded)");

static bool kernel_stacks = true;
module_param(kernel_stacks, bool, 0444);
MODULE_PARM_DESC(kernel_stacks, "record kernel stacks (default 1)");

static bool user_stacks = true;
module_param(user_stacks, bool, 0444);
MODULE_PARM_DESC(user_stacks, "record user stacks (default 1)");

static bool percpu;
module_param(percpu, bool, 0444);
MODULE_PARM_DESC(percpu, "keep stacks of different CPUs apart (default 0)");

static int pid[FLAMESTAT_MAX_PIDS];
static unsigned int nr_pid;
module_param_array(pid, int, &nr_pid, 0444);
MODULE_PARM_DESC(pid, "only these processes, comma-separated (default: all)");

static bool pid_tree;
module_param(pid_tree, bool, 0444);
MODULE_PARM_DESC(pid_tree, "pid= also matches descendants (default 0)");

static char *cpus;
module_param(cpus, charp, 0444);
MODULE_PARM_DESC(cpus, "CPUs to sample as a list, e.g. 0-3,8 (default: all but those isolated by nohz_full= or isolcpus=)");

/* As perf_cpu_time_max_percent, whose default it takes. */
static unsigned int cpu_max_percent = 25;
module_param(cpu_max_percent, uint, 0444);
MODULE_PARM_DESC(cpu_max_percent, "share of a CPU's time the sampler may take before it samples less often on that CPU, 1..99; 0 or 100: never (default 25)");

static unsigned int kernel_depth = FLAMESTAT_DEFAULT_DEPTH;
module_param(kernel_depth, uint, 0444);
MODULE_PARM_DESC(kernel_depth, "kernel frames kept, 1..512 (default 127)");

static unsigned int user_depth = FLAMESTAT_DEFAULT_DEPTH;
module_param(user_depth, uint, 0444);
MODULE_PARM_DESC(user_depth, "user frames kept, 1..1024 (default 127)");

/* Memory, all allocated before sampling starts. */
static unsigned int pcpu_kb = 512;
module_param(pcpu_kb, uint, 0444);
MODULE_PARM_DESC(pcpu_kb, "KiB for each of a CPU's two tables (default 512)");

static unsigned int table_kb = 16384;
module_param(table_kb, uint, 0444);
MODULE_PARM_DESC(table_kb, "KiB for the merged table of unique stacks (default 16384)");

/* Shows the cap in force once loaded (0 at load time asks for it). */
static unsigned int reader_kb;
module_param(reader_kb, uint, 0444);
MODULE_PARM_DESC(reader_kb, "KiB that all readers together may make the module hold: table copies, snapshots (default 4 x table_kb, at least 65536)");

static unsigned int max_procs = 8192;
module_param(max_procs, uint, 0444);
MODULE_PARM_DESC(max_procs, "address spaces whose maps are recorded (default 8192)");

static unsigned int maps_kb = 8192;
module_param(maps_kb, uint, 0444);
MODULE_PARM_DESC(maps_kb, "KiB for recorded maps and file names (default 8192)");

static unsigned int unwind_kb = 65536;
module_param(unwind_kb, uint, 0444);
MODULE_PARM_DESC(unwind_kb, "KiB for the unwind tables built from mapped files' .eh_frame, for user stacks without frame pointers; 0: none, frame pointers only (default 65536)");

static char *unwind = "auto";
module_param(unwind, charp, 0444);
MODULE_PARM_DESC(unwind, "how user stacks are walked: auto (unwind tables where built, frame pointers elsewhere), fp (frame pointers only) or table (tables only) (default auto)");

static int group = -1;
module_param(group, int, 0444);
MODULE_PARM_DESC(group, "gid whose members may also open /dev/flamestat if its mode lets them; the node stays root:root 0600, its group is set by udev (default -1: none)");

static char *mode = "cpu";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "what is measured: cpu (CPU time, by sampling), offcpu (time blocked, at context switches) or wall (both, in ns) (default cpu)");

static unsigned int min_block_us;
module_param(min_block_us, uint, 0444);
MODULE_PARM_DESC(min_block_us, "offcpu, wall: blocks shorter than this are counted, not recorded (default 0: all)");

static bool waker;
module_param(waker, bool, 0444);
MODULE_PARM_DESC(waker, "offcpu, wall: keep the kernel stack of the task that woke each blocked one (default 0)");

static unsigned int offcpu_tasks = FLAMESTAT_DEFAULT_OFFCPU_TASKS;
module_param(offcpu_tasks, uint, 0444);
MODULE_PARM_DESC(offcpu_tasks, "offcpu, wall: tasks that can be blocked at once with their stacks kept, 16..1048576; more are counted, not recorded (default 4096)");

static unsigned int kstack_cache = 1;
module_param(kstack_cache, uint, 0444);
MODULE_PARM_DESC(kstack_cache, "1: a kernel stack met again (at a switch, or in a sample at the same interrupted PC) is recognised, not walked again (ORC kernels); 0: every one walked; 2: both, and differences counted (default 1)");

static int __init fst_params_to_cfg(struct fst_cfg *cfg)
{
	struct flamestat_config *u;
	cpumask_var_t mask;
	unsigned int i, cpu;
	int err;

	u = kzalloc(sizeof(*u), GFP_KERNEL);
	if (!u)
		return -ENOMEM;
	u->flags = (kernel_stacks ? FLAMESTAT_CFG_KERNEL : 0) |
		   (user_stacks ? FLAMESTAT_CFG_USER : 0) |
		   (idle ? FLAMESTAT_CFG_IDLE : 0) |
		   (percpu ? FLAMESTAT_CFG_PERCPU : 0) |
		   (pid_tree ? FLAMESTAT_CFG_PID_TREE : 0) |
		   (waker ? FLAMESTAT_CFG_WAKER : 0);
	err = fst_unwind_parse(unwind);
	if (err < 0) {
		pr_err("unwind=%s: not auto, fp or table\n", unwind);
		goto out;
	}
	u->flags |= err;
	err = fst_mode_parse(mode);
	if (err < 0) {
		pr_err("mode=%s: not cpu, offcpu or wall\n", mode);
		goto out;
	}
	u->mode = err;
	u->min_block_us = min_block_us;
	u->freq_hz = freq;
	u->kernel_depth = min(kernel_depth, 0xffffU);
	u->user_depth = min(user_depth, 0xffffU);
	u->nr_pids = nr_pid;
	for (i = 0; i < nr_pid; i++)
		u->pids[i] = pid[i] > 0 ? pid[i] : 0;
	err = 0;
	if (cpus && *cpus) {
		if (!zalloc_cpumask_var(&mask, GFP_KERNEL)) {
			err = -ENOMEM;
			goto out;
		}
		err = cpulist_parse(cpus, mask);
		if (!err) {
			u->flags |= FLAMESTAT_CFG_CPUMASK;
			for_each_cpu(cpu, mask)
				if (cpu < FLAMESTAT_MAX_CPUS)
					u->cpus[cpu / 64] |= 1ULL << (cpu % 64);
				else
					err = -EINVAL;
		}
		free_cpumask_var(mask);
		if (err) {
			pr_err("cpus=%s: not a list of CPUs below %u\n", cpus,
			       nr_cpu_ids);
			goto out;
		}
	}
	err = fst_cfg_from_user(cfg, u);
	if (err == -ESRCH)
		pr_err("pid=: no such process\n");
	else if (err)
		pr_err("invalid parameters: freq 1..20000, kernel_depth 1..512, user_depth 1..1024, a pid > 0 per entry, kernel_stacks or user_stacks, pid_tree only with pid=, cpus= within the possible CPUs, waker and min_block_us only with mode=offcpu or wall\n");
out:
	kfree(u);
	return err;
}

static int __init fst_init(void)
{
	struct fst_limits lim = {
		.pcpu_kb = pcpu_kb,
		.table_kb = table_kb,
		.max_procs = max_procs,
		.maps_kb = maps_kb,
		.unwind_kb = unwind_kb,
		.cpu_max_percent = cpu_max_percent < 100 ? cpu_max_percent : 0,
		.offcpu_tasks = offcpu_tasks,
		.kstack_cache = kstack_cache,
	};
	struct fst_cfg *cfg;
	int err;

	/* Before any sampler can hash a stack. */
	fst_hash_init_key();
	if (!reader_kb)
		reader_kb = max(4 * min(table_kb, 1U << 24), 65536U);
	fst_reader_mem_init((long)reader_kb * 1024);
	cfg = kzalloc(sizeof(*cfg), GFP_KERNEL);
	if (!cfg)
		return -ENOMEM;
	err = fst_params_to_cfg(cfg);
	if (!err)
		err = fst_session_init(cfg, &lim);
	if (err)
		goto out_free_cfg;
	err = fst_device_register(group);
	if (err)
		goto out_session_exit;

	if (autostart) {
		fst_ctl_lock();
		err = fst_start();
		fst_ctl_unlock();
		if (err)
			pr_warn("not started (error %d); write 'start' to %s\n",
				err, FLAMESTAT_DEVICE);
	}
	if (cfg->mode == FLAMESTAT_MODE_OFFCPU)
		pr_info("loaded, %s off-CPU time; read %s\n",
			fst_running() ? "recording" : "stopped",
			FLAMESTAT_DEVICE);
	else
		pr_info("loaded, %s%s at %u Hz per CPU; read %s\n",
			fst_running() ? "sampling" : "stopped",
			cfg->mode == FLAMESTAT_MODE_WALL ?
			" (wall-clock, with off-CPU time)" : "", cfg->freq,
			FLAMESTAT_DEVICE);
	kfree(cfg);
	return 0;

out_session_exit:
	fst_session_exit();
out_free_cfg:
	kfree(cfg);
	return err;
}

static void __exit fst_exit(void)
{
	/* Open files hold a module reference: none is left at this point. */
	fst_device_unregister();
	fst_session_exit();
	pr_info("unloaded\n");
}

module_init(fst_init);
module_exit(fst_exit);
MODULE_LICENSE("GPL");
MODULE_AUTHOR("The flamestat developers");
MODULE_DESCRIPTION("CPU profiler: per-CPU hrtimer sampling, stacks aggregated in the kernel");
MODULE_VERSION(FST_VERSION);
