// SPDX-License-Identifier: GPL-2.0
/*
 * flamestat_floor: the cheapest possible hrtimer sampler, for overhead
 * benchmarks. A pinned hard-irq hrtimer per CPU fires at freq= Hz and
 * only re-arms itself (and counts the firing); whatever an hrtimer-based
 * profiler costs beyond this module is the cost of its sampling work.
 *
 * With jitter=N it also spins a pseudo-random 0..N loop iterations at
 * each firing: under QEMU's -icount a guest is deterministic, and a
 * profiler's periodic timer and a workload's short periodic loop can lock
 * in phase (the profiler's own cost, which depends on where the sample
 * landed, sets where the next one lands), so its samples keep landing at
 * the same few places; a random delay between two samples undoes that, as
 * the noise of a real machine does (bench-overhead's truth phase).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpuhotplug.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>

static unsigned int freq = 997;
module_param(freq, uint, 0444);
MODULE_PARM_DESC(freq, "timer firings per second per CPU, 1..20000 (default 997)");

static unsigned int jitter;
module_param(jitter, uint, 0444);
MODULE_PARM_DESC(jitter, "spin a pseudo-random 0..jitter loop iterations at each firing, 0..1000000 (default 0: none)");

/* Per CPU: the timer, and its firings (written only by that CPU's timer). */
struct floor_cpu {
	struct hrtimer timer;
	u64 fires;
	u64 rnd;	/* jitter: xorshift64 state */
};

static DEFINE_PER_CPU(struct floor_cpu, floor_cpus);
static enum cpuhp_state floor_state;
static u64 floor_period_ns;

/* Hard-irq (hrtimer): must not sleep, allocate or take sleeping locks. */
static enum hrtimer_restart floor_timer_fn(struct hrtimer *t)
{
	struct floor_cpu *c = container_of(t, struct floor_cpu, timer);
	u64 x, n;

	c->fires++;
	if (jitter) {
		x = c->rnd;
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		c->rnd = x;
		for (n = x % (jitter + 1); n; n--)
			barrier();
	}
	hrtimer_forward_now(t, ns_to_ktime(floor_period_ns));
	return HRTIMER_RESTART;
}

/* hrtimer_setup() replaced hrtimer_init() + ->function in 6.13. */
static void floor_timer_setup(struct hrtimer *t)
{
#ifdef FLOOR_HAVE_HRTIMER_SETUP
	hrtimer_setup(t, floor_timer_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
#else
	hrtimer_init(t, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	t->function = floor_timer_fn;
#endif
}

/* CPU-online callback: runs on @cpu, so the timer is pinned there. */
static int floor_cpu_online(unsigned int cpu)
{
	struct floor_cpu *c = per_cpu_ptr(&floor_cpus, cpu);

	hrtimer_start(&c->timer, ns_to_ktime(floor_period_ns),
		      HRTIMER_MODE_REL_PINNED_HARD);
	return 0;
}

static int floor_cpu_offline(unsigned int cpu)
{
	hrtimer_cancel(&per_cpu_ptr(&floor_cpus, cpu)->timer);
	return 0;
}

/* "fires": the timer firings of every CPU since load. */
static int floor_fires_get(char *buf, const struct kernel_param *kp)
{
	unsigned int cpu;
	u64 n = 0;

	for_each_possible_cpu(cpu)
		n += READ_ONCE(per_cpu_ptr(&floor_cpus, cpu)->fires);
	return sysfs_emit(buf, "%llu\n", n);
}

static const struct kernel_param_ops floor_fires_ops = {
	.get = floor_fires_get,
};
module_param_cb(fires, &floor_fires_ops, NULL, 0444);
MODULE_PARM_DESC(fires, "timer firings on every CPU since load (read-only)");

static int __init floor_init(void)
{
	unsigned int cpu;
	int ret;

	if (freq < 1 || freq > 20000) {
		pr_err("freq=%u: expected 1..20000\n", freq);
		return -EINVAL;
	}
	if (jitter > 1000000) {
		pr_err("jitter=%u: expected 0..1000000\n", jitter);
		return -EINVAL;
	}
	floor_period_ns = div_u64(NSEC_PER_SEC, freq);
	for_each_possible_cpu(cpu) {
		floor_timer_setup(&per_cpu_ptr(&floor_cpus, cpu)->timer);
		/* Fixed seeds: the same delays at every run. */
		per_cpu_ptr(&floor_cpus, cpu)->rnd = 0x9e3779b97f4a7c15ULL * (cpu + 1);
	}
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "flamestat_floor:online",
				floor_cpu_online, floor_cpu_offline);
	if (ret < 0)
		return ret;
	floor_state = ret;
	pr_info("firing at %u Hz per CPU%s\n", freq, jitter ? ", with jitter" : "");
	return 0;
}

static void __exit floor_exit(void)
{
	cpuhp_remove_state(floor_state);
}

module_init(floor_init);
module_exit(floor_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("flamestat benchmark floor: a pinned hrtimer per CPU that does nothing");
