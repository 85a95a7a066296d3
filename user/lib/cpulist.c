// SPDX-License-Identifier: GPL-2.0
/* CPU lists, "0-3,8", and the masks they stand for (see cpulist.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cpulist.h"
#include "lib/util.h"

/* Larger CPU numbers are refused as not a list (no kernel has them). */
#define CPULIST_NUM_MAX	(1ULL << 32)

static void cpuset_set(struct cpuset *s, uint64_t cpu)
{
	s->w[cpu / 64] |= 1ULL << (cpu % 64);
}

int cpulist_parse(const char *list, struct cpuset *set, uint64_t *beyond)
{
	size_t len = strlen(list);
	char *copy, *tok, *save = NULL, *dash;
	uint64_t lo, hi, c;
	int ret = 0, n = 0;

	memset(set, 0, sizeof(*set));
	*beyond = UINT64_MAX;
	while (len && list[len - 1] == '\n')
		len--;
	copy = xstrndup(list, len);
	/* strtok_r would take ",," and a trailing ',' as one separator. */
	if (!len || copy[0] == ',' || copy[len - 1] == ',' ||
	    strstr(copy, ",,"))
		ret = -1;
	for (tok = strtok_r(copy, ",", &save); tok && !ret;
	     tok = strtok_r(NULL, ",", &save)) {
		dash = strchr(tok, '-');
		if (dash)
			*dash = '\0';
		if (parse_u64(tok, 0, CPULIST_NUM_MAX, &lo) ||
		    (dash && parse_u64(dash + 1, 0, CPULIST_NUM_MAX, &hi))) {
			ret = -1;
			break;
		}
		if (!dash)
			hi = lo;
		if (lo > hi) {
			ret = -1;
			break;
		}
		for (c = lo; c <= hi && c < FLAMESTAT_MAX_CPUS; c++)
			cpuset_set(set, c);
		if (hi >= FLAMESTAT_MAX_CPUS &&
		    (*beyond == UINT64_MAX || hi > *beyond))
			*beyond = hi;
		n++;
	}
	free(copy);
	if (!ret && !n)
		ret = -1;
	return ret;
}

int cpulist_read(const char *path, struct cpuset *set)
{
	char buf[4096];
	uint64_t beyond;
	size_t n;
	FILE *f = fopen(path, "re");

	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	if (ferror(f)) {
		fclose(f);
		errno = EIO;
		return -1;
	}
	fclose(f);
	buf[n] = '\0';
	if (cpulist_parse(buf, set, &beyond)) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

const char *cpulist_format(const struct cpuset *set, char *buf, size_t size)
{
	size_t used = 0;
	unsigned int c = 0, end;
	int n;

	if (size)
		buf[0] = '\0';
	while (c < FLAMESTAT_MAX_CPUS) {
		if (!cpuset_has(set, c)) {
			c++;
			continue;
		}
		for (end = c; end + 1 < FLAMESTAT_MAX_CPUS &&
		     cpuset_has(set, end + 1); end++)
			;
		if (end == c)
			n = snprintf(buf + used, size - used, "%s%u",
				     used ? "," : "", c);
		else
			n = snprintf(buf + used, size - used, "%s%u-%u",
				     used ? "," : "", c, end);
		if (n < 0 || (size_t)n >= size - used)
			break;
		used += (size_t)n;
		c = end + 1;
	}
	return buf;
}

bool cpuset_andnot(const struct cpuset *a, const struct cpuset *b,
		   struct cpuset *out)
{
	uint64_t any = 0;

	for (size_t i = 0; i < FLAMESTAT_CPUMASK_WORDS; i++) {
		out->w[i] = a->w[i] & ~b->w[i];
		any |= out->w[i];
	}
	return any != 0;
}

unsigned int cpuset_count(const struct cpuset *s)
{
	unsigned int n = 0;

	for (size_t i = 0; i < FLAMESTAT_CPUMASK_WORDS; i++)
		n += (unsigned int)__builtin_popcountll(s->w[i]);
	return n;
}
