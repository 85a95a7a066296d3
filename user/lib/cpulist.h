/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPU lists as the kernel writes them ("0-3,8", /sys/devices/system/cpu/
 * online) and as --cpus takes them, held as a bit mask of
 * FLAMESTAT_MAX_CPUS CPUs (the module's flamestat_config.cpus).
 */
#ifndef FLAMESTAT_CPULIST_H
#define FLAMESTAT_CPULIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uapi/flamestat.h>

struct cpuset {
	uint64_t w[FLAMESTAT_CPUMASK_WORDS];
};

/*
 * Parses @list (numbers and ranges separated by commas; a trailing newline
 * is allowed) into @set. A CPU number past the mask (FLAMESTAT_MAX_CPUS and
 * up) is not set: the highest one named goes into *@beyond, which is
 * UINT64_MAX when there is none. Returns 0, or -1 when @list is not a CPU
 * list (empty, a range backwards, not a number).
 */
int cpulist_parse(const char *list, struct cpuset *set, uint64_t *beyond);

/*
 * Reads a CPU list file (/sys/devices/system/cpu/online). Returns 0, or -1
 * when it cannot be read or parsed (errno says why, EINVAL for the latter).
 */
int cpulist_read(const char *path, struct cpuset *set);

/* @set as a list, "0-3,8", into @buf ("" when empty, cut to @size). */
const char *cpulist_format(const struct cpuset *set, char *buf, size_t size);

static inline bool cpuset_has(const struct cpuset *s, unsigned int cpu)
{
	return cpu < FLAMESTAT_MAX_CPUS &&
	       (s->w[cpu / 64] >> (cpu % 64) & 1);
}

/* CPUs in @a and not in @b, into @out; true when there is any. */
bool cpuset_andnot(const struct cpuset *a, const struct cpuset *b,
		   struct cpuset *out);
unsigned int cpuset_count(const struct cpuset *s);

#endif
