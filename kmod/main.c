// SPDX-License-Identifier: GPL-2.0
/*
 * flamestat: a CPU profiler that samples every CPU with a pinned hrtimer
 * and counts identical stacks in the kernel. This file holds the module
 * parameters, the configuration, start/stop/reset, CPU hotplug and module
 * load/unload. `insmod flamestat.ko` starts sampling every CPU at 997 Hz;
 * `cat /dev/flamestat` prints folded stacks.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/security.h>
#include <linux/slab.h>
#include <linux/smp.h>

#include "flamestat.h"

struct fst_state fs;
struct fst_cpu __percpu *fst_cpus;

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
MODULE_PARM_DESC(cpus, "CPUs to sample as a list, e.g. 0-3,8 (default: all)");

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

static unsigned int max_procs = 8192;
module_param(max_procs, uint, 0444);
MODULE_PARM_DESC(max_procs, "address spaces whose maps are recorded (default 8192)");

static unsigned int maps_kb = 8192;
module_param(maps_kb, uint, 0444);
MODULE_PARM_DESC(maps_kb, "KiB for recorded maps and file names (default 8192)");

int fst_gid = -1;
module_param_named(group, fst_gid, int, 0444);
MODULE_PARM_DESC(group, "gid also allowed to use /dev/flamestat (default -1: root only)");

/*
 * Lockdown only ever rises, so once it says no, stop asking: every query
 * while locked down logs a notice.
 */
bool fst_locked_down(void)
{
	static bool locked;

	if (!READ_ONCE(locked) && security_locked_down(LOCKDOWN_PERF))
		WRITE_ONCE(locked, true);
	return READ_ONCE(locked);
}

/*
 * Validates @u and converts it into @cfg; pids are read in the caller's pid
 * namespace (thread ids are taken as their process). Process context.
 */
int fst_cfg_from_user(struct fst_cfg *cfg, const struct flamestat_config *u)
{
	unsigned int i, bits = nr_cpu_ids;

	if (u->flags & ~FLAMESTAT_CFG_ALL)
		return -EINVAL;
	if (!(u->flags & (FLAMESTAT_CFG_KERNEL | FLAMESTAT_CFG_USER)))
		return -EINVAL;
	if (u->freq_hz < FLAMESTAT_MIN_FREQ || u->freq_hz > FLAMESTAT_MAX_FREQ)
		return -EINVAL;
	if (!u->kernel_depth || u->kernel_depth > FLAMESTAT_MAX_KERNEL_DEPTH ||
	    !u->user_depth || u->user_depth > FLAMESTAT_MAX_USER_DEPTH)
		return -EINVAL;
	if (u->nr_pids > FLAMESTAT_MAX_PIDS)
		return -EINVAL;
	if ((u->flags & FLAMESTAT_CFG_PID_TREE) && !u->nr_pids)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(u->reserved); i++)
		if (u->reserved[i])
			return -EINVAL;
	for (i = u->nr_pids; i < FLAMESTAT_MAX_PIDS; i++)
		if (u->pids[i])
			return -EINVAL;

	memset(cfg, 0, sizeof(*cfg));
	cfg->flags = u->flags;
	cfg->freq = u->freq_hz;
	cfg->period_ns = div_u64(NSEC_PER_SEC + u->freq_hz / 2, u->freq_hz);
	cfg->kernel_depth = u->kernel_depth;
	cfg->user_depth = u->user_depth;

	if (u->flags & FLAMESTAT_CFG_CPUMASK) {
		for (i = 0; i < FLAMESTAT_MAX_CPUS; i++) {
			if (!(u->cpus[i / 64] & (1ULL << (i % 64))))
				continue;
			if (i >= bits)
				return -EINVAL;
			cpumask_set_cpu(i, &cfg->cpus);
		}
		if (cpumask_empty(&cfg->cpus))
			return -EINVAL;
	} else {
		for (i = 0; i < FLAMESTAT_CPUMASK_WORDS; i++)
			if (u->cpus[i])
				return -EINVAL;
		cpumask_copy(&cfg->cpus, cpu_possible_mask);
	}

	for (i = 0; i < u->nr_pids; i++) {
		struct task_struct *task;

		if (!u->pids[i] || u->pids[i] > PID_MAX_LIMIT)
			return -EINVAL;
		rcu_read_lock();
		task = pid_task(find_vpid(u->pids[i]), PIDTYPE_PID);
		if (task)
			cfg->pids[i] = task_tgid_nr(task);
		rcu_read_unlock();
		if (!task)
			return -ESRCH;
		cfg->vpids[i] = u->pids[i];
	}
	cfg->nr_pids = u->nr_pids;
	return 0;
}

void fst_cfg_to_user(const struct fst_cfg *cfg, struct flamestat_config *u)
{
	unsigned int cpu;

	memset(u, 0, sizeof(*u));
	u->flags = cfg->flags;
	u->freq_hz = cfg->freq;
	u->kernel_depth = cfg->kernel_depth;
	u->user_depth = cfg->user_depth;
	u->nr_pids = cfg->nr_pids;
	memcpy(u->pids, cfg->vpids, sizeof(u->pids));
	if (cfg->flags & FLAMESTAT_CFG_CPUMASK)
		for_each_cpu(cpu, &cfg->cpus)
			if (cpu < FLAMESTAT_MAX_CPUS)
				u->cpus[cpu / 64] |= 1ULL << (cpu % 64);
}

u64 fst_running_ns(void)
{
	lockdep_assert_held(&fs.ctl_lock);
	return fs.run_total_ns +
	       (fs.running ? ktime_get_ns() - fs.run_start_ns : 0);
}

/* ctl_lock held. Starts a timer on every online CPU of the configuration. */
int fst_start(void)
{
	lockdep_assert_held(&fs.ctl_lock);
	if (fs.running)
		return 0;
	fs.lockdown = fst_locked_down();
	if (fs.lockdown && !(fs.cfg.flags & FLAMESTAT_CFG_USER))
		return -EPERM;
	if (fs.lockdown)
		pr_notice("kernel lockdown: kernel stacks are withheld\n");
	cpus_read_lock();
	WRITE_ONCE(fs.running, true);
	fs.run_start_ns = ktime_get_ns();
	on_each_cpu_mask(cpu_online_mask, fst_cpu_start_timer, NULL, true);
	cpus_read_unlock();
	mod_delayed_work(system_wq, &fs.drain_work, HZ);
	return 0;
}

/* ctl_lock held. Returns once no timer callback runs any more. */
void fst_stop(void)
{
	unsigned int cpu;

	lockdep_assert_held(&fs.ctl_lock);
	if (!fs.running)
		return;
	cpus_read_lock();
	WRITE_ONCE(fs.running, false);
	for_each_possible_cpu(cpu)
		hrtimer_cancel(&per_cpu_ptr(fst_cpus, cpu)->timer);
	cpus_read_unlock();
	fs.run_total_ns += ktime_get_ns() - fs.run_start_ns;
}

/* ctl_lock held. Applies @cfg, restarting the timers if they ran. */
int fst_set_config(const struct fst_cfg *cfg)
{
	bool was_running = fs.running;

	lockdep_assert_held(&fs.ctl_lock);
	if (was_running && fst_locked_down() &&
	    !(cfg->flags & FLAMESTAT_CFG_USER))
		return -EPERM;
	fst_stop();
	fs.cfg = *cfg;
	return was_running ? fst_start() : 0;
}

/* ctl_lock held. */
int fst_set_freq(u32 hz)
{
	struct fst_cfg *cfg;
	int err;

	if (hz < FLAMESTAT_MIN_FREQ || hz > FLAMESTAT_MAX_FREQ)
		return -EINVAL;
	cfg = kmemdup(&fs.cfg, sizeof(*cfg), GFP_KERNEL);
	if (!cfg)
		return -ENOMEM;
	cfg->freq = hz;
	cfg->period_ns = div_u64(NSEC_PER_SEC + hz / 2, hz);
	err = fst_set_config(cfg);
	kfree(cfg);
	return err;
}

/*
 * ctl_lock held. Forgets every sample, counter and process, keeping the
 * configuration; sampling pauses for the switch if it was running.
 */
int fst_reset(void)
{
	struct fst_procdb *old, *db;
	bool was_running = fs.running;
	unsigned int cpu;

	lockdep_assert_held(&fs.ctl_lock);
	db = fst_procdb_create(max_procs, (long)maps_kb * 1024);
	if (!db)
		return -ENOMEM;
	fst_stop();
	mutex_lock(&fs.agg_lock);
	fst_drain();
	fst_table_clear(&fs.agg);
	old = fs.procdb;
	fs.procdb = db;
	/* No timer runs: the caches may be written from here. */
	for_each_possible_cpu(cpu) {
		struct fst_cpu *c = per_cpu_ptr(fst_cpus, cpu);

		c->cache_mm = NULL;
		c->cache_db = NULL;
	}
	fs.run_total_ns = 0;
	mutex_unlock(&fs.agg_lock);
	fst_procdb_put(old);
	return was_running ? fst_start() : 0;
}

/* CPU hotplug, on the CPU coming up, process context. */
static int fst_cpu_online(unsigned int cpu)
{
	struct fst_cpu *c = per_cpu_ptr(fst_cpus, cpu);
	int node = cpu_to_node(cpu);

	if (!c->ready) {
		c->scratch = kmalloc_node(fs.max_depth_words * sizeof(u64),
					  GFP_KERNEL, node);
		if (!c->scratch ||
		    fst_table_init(&c->tab[0], fs.pcpu_bytes, node) ||
		    fst_table_init(&c->tab[1], fs.pcpu_bytes, node)) {
			fst_table_free(&c->tab[0]);
			kfree(c->scratch);
			c->scratch = NULL;
			pr_warn("cpu%u: no memory for its tables; not sampled\n",
				cpu);
			return 0;
		}
		c->ready = true;
	}
	if (READ_ONCE(fs.running))
		fst_cpu_start_timer(NULL);
	return 0;
}

/* CPU hotplug, on the CPU going down. Its tables are drained later. */
static int fst_cpu_offline(unsigned int cpu)
{
	hrtimer_cancel(&per_cpu_ptr(fst_cpus, cpu)->timer);
	return 0;
}

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
		   (pid_tree ? FLAMESTAT_CFG_PID_TREE : 0);
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
		pr_err("invalid parameters: freq 1..20000, kernel_depth 1..512, user_depth 1..1024, a pid > 0 per entry, kernel_stacks or user_stacks, pid_tree only with pid=, cpus= within the possible CPUs\n");
out:
	kfree(u);
	return err;
}

/*
 * What the parameters make us allocate -- the merged table, every possible
 * CPU's two tables, the process database and its maps -- must stay below
 * half of the RAM: a vmalloc() of more than there is warns with a stack
 * dump, and one of nearly all of it wakes the OOM killer.
 */
static int __init fst_check_memory(void)
{
	u64 need = (u64)table_kb * 1024 +
		   2ULL * fs.pcpu_bytes * num_possible_cpus() +
		   (u64)max_procs * (sizeof(struct fst_proc) + 3 * sizeof(u32) +
				     sizeof(void *)) +
		   (u64)maps_kb * 1024;
	u64 ram = (u64)totalram_pages() << PAGE_SHIFT;

	if (need <= ram / 2)
		return 0;
	pr_err("table_kb, pcpu_kb (x2 x %u CPUs), max_procs and maps_kb need %llu MiB, more than half of the %llu MiB of RAM\n",
	       num_possible_cpus(), need >> 20, ram >> 20);
	return -ENOMEM;
}

static int __init fst_init(void)
{
	unsigned int cpu;
	int err;

	mutex_init(&fs.ctl_lock);
	mutex_init(&fs.agg_lock);
	INIT_DELAYED_WORK(&fs.drain_work, fst_drain_work_fn);
	err = fst_params_to_cfg(&fs.cfg);
	if (err)
		return err;
	if (!pcpu_kb || !table_kb || !max_procs || !maps_kb ||
	    max_procs > (1U << 24) || pcpu_kb > (1U << 22) ||
	    table_kb > (1U << 24) || maps_kb > (1U << 24)) {
		pr_err("pcpu_kb, table_kb, max_procs and maps_kb must be > 0 and sane\n");
		return -EINVAL;
	}
	fs.pcpu_bytes = (size_t)pcpu_kb * 1024;
	fs.max_depth_words = FST_ENTRY_HDR_WORDS + FLAMESTAT_MAX_KERNEL_DEPTH +
			     FLAMESTAT_MAX_USER_DEPTH;
	err = fst_check_memory();
	if (err)
		return err;
	fst_cost_init();

	fst_cpus = alloc_percpu(struct fst_cpu);
	if (!fst_cpus)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct fst_cpu *c = per_cpu_ptr(fst_cpus, cpu);

		c->cpu = cpu;
		fst_hrtimer_setup(&c->timer, fst_timer_fn);
	}
	err = fst_table_init(&fs.agg, (size_t)table_kb * 1024, NUMA_NO_NODE);
	if (err)
		goto out_free_cpus;
	fs.procdb = fst_procdb_create(max_procs, (long)maps_kb * 1024);
	if (!fs.procdb) {
		err = -ENOMEM;
		goto out_free_agg;
	}
	err = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "flamestat:online",
				fst_cpu_online, fst_cpu_offline);
	if (err < 0)
		goto out_put_procdb;
	fs.cpuhp_state = err;
	err = fst_device_register();
	if (err)
		goto out_remove_cpuhp;

	if (autostart) {
		mutex_lock(&fs.ctl_lock);
		err = fst_start();
		mutex_unlock(&fs.ctl_lock);
		if (err)
			pr_warn("not started (error %d); write 'start' to %s\n",
				err, FLAMESTAT_DEVICE);
	}
	pr_info("loaded, %s at %u Hz per CPU; read %s\n",
		fs.running ? "sampling" : "stopped", fs.cfg.freq,
		FLAMESTAT_DEVICE);
	return 0;

out_remove_cpuhp:
	cpuhp_remove_state(fs.cpuhp_state);
out_put_procdb:
	fst_procdb_put(fs.procdb);
out_free_agg:
	fst_table_free(&fs.agg);
out_free_cpus:
	for_each_possible_cpu(cpu) {
		struct fst_cpu *c = per_cpu_ptr(fst_cpus, cpu);

		fst_table_free(&c->tab[0]);
		fst_table_free(&c->tab[1]);
		kfree(c->scratch);
	}
	free_percpu(fst_cpus);
	return err;
}

static void __exit fst_exit(void)
{
	unsigned int cpu;

	/* Open files hold a module reference: none is left at this point. */
	fst_device_unregister();
	mutex_lock(&fs.ctl_lock);
	fst_stop();
	mutex_unlock(&fs.ctl_lock);
	cpuhp_remove_state(fs.cpuhp_state);
	cancel_delayed_work_sync(&fs.drain_work);
	fst_procdb_put(fs.procdb);
	for_each_possible_cpu(cpu) {
		struct fst_cpu *c = per_cpu_ptr(fst_cpus, cpu);

		fst_table_free(&c->tab[0]);
		fst_table_free(&c->tab[1]);
		kfree(c->scratch);
	}
	free_percpu(fst_cpus);
	fst_table_free(&fs.agg);
	pr_info("unloaded\n");
}

module_init(fst_init);
module_exit(fst_exit);
MODULE_LICENSE("GPL");
MODULE_AUTHOR("The flamestat developers");
MODULE_DESCRIPTION("CPU profiler: per-CPU hrtimer sampling, stacks aggregated in the kernel");
MODULE_VERSION(FST_VERSION);
