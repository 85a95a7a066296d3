// SPDX-License-Identifier: GPL-2.0
/* Folded stacks as pprof: functions by name only (pprof.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "pprof/pprof.h"
#include "pprof/pprof_int.h"

/* What each value column holds. */
enum column { COL_SAMPLES, COL_NS, COL_PERIODS };

/* Units of 10^-d to whole ones, half up; *inexact when that changed them. */
static uint64_t whole(uint64_t units, uint64_t scale, bool *inexact)
{
	unsigned __int128 v = ((unsigned __int128)units + scale / 2) / scale;

	if (units % scale)
		*inexact = true;
	return (uint64_t)v;
}

/* Units of 10^-d counts, each @ns long, in ns (half up); saturates. */
static uint64_t to_ns(uint64_t units, uint64_t ns, uint64_t scale)
{
	unsigned __int128 v = ((unsigned __int128)units * ns + scale / 2) /
			      scale;

	return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

int pprof_write_profile(const struct profile *p, const struct pprof_opts *o,
			FILE *f)
{
	unsigned int d = profile_decimals(p);
	uint64_t scale = profile_pow10(d), count_ns = profile_count_ns(p);
	enum column cols[2];
	size_t ncols = 0, cap = 0, i, j, *order = NULL;
	uint64_t *locs = NULL, values[2], rounded = 0, zeroed = 0;
	struct pp_builder b;
	/* Off-CPU and wall-clock profiles count ns of their own kind. */
	const char *time_type = profile_meta(p)->unit != PROFILE_UNIT_NS ?
				"cpu" : profile_meta(p)->mode == PROFILE_MODE_WALL ?
				"wall" : "off-cpu";
	char *text;
	int ret = 0;

	if (profile_is_diff(p)) {
		fs_err("cannot write pprof: a differential profile (two counts per stack) has no pprof form; write folded text or an SVG");
		errno = 0;
		return -1;
	}
	ppb_init(&b);
	if (profile_has_samples(p)) {
		cols[ncols++] = COL_SAMPLES;
		ppb_sample_type(&b, "samples", "count");
	}
	if (count_ns) {
		cols[ncols++] = COL_NS;
		ppb_sample_type(&b, time_type, "nanoseconds");
	} else if (!ncols) {
		/* Periods of a frequency not given: no time, no samples. */
		cols[ncols++] = COL_PERIODS;
		ppb_sample_type(&b, "periods", "count");
	}
	b.msg.default_sample_type = ppb_str(&b, o->count_samples || !count_ns ?
					    (ncols && cols[0] == COL_PERIODS ?
					     "periods" : "samples") : time_type);
	b.msg.time_nanos = o->time_ns;
	text = xasprintf("flamestat %s: from folded stacks", FLAMESTAT_VERSION);
	ppb_comment(&b, text);
	free(text);
	if (profile_meta(p)->present & PROFILE_META_TITLE)
		ppb_comment(&b, profile_meta(p)->title);

	order = profile_sorted(p, false);
	for (i = 0; i < profile_nstacks(p) && !ret; i++) {
		struct profile_stack st;
		bool inexact = false;

		profile_stack(p, order[i], &st);
		if (cap < st.nframes) {
			cap = st.nframes;
			locs = xreallocarray(locs, cap, sizeof(*locs));
		}
		/* Leaf first; a frame is a function, a location of its own. */
		for (j = 0; j < st.nframes; j++) {
			uint32_t id = st.frames[st.nframes - 1 - j];
			char *name = xstrndup(profile_name(p, id),
					      profile_name_len(p, id));

			locs[j] = ppb_location(&b, 0, 0,
					       ppb_function(&b, name, NULL));
			free(name);
		}
		for (j = 0; j < ncols; j++) {
			if (cols[j] == COL_NS)
				values[j] = to_ns(st.count, count_ns, scale);
			else
				values[j] = whole(cols[j] == COL_SAMPLES ?
						  st.samples : st.count,
						  scale, &inexact);
		}
		if (inexact) {
			rounded++;
			zeroed += !values[0];
		}
		if (ppb_sample(&b, locs, st.nframes, values, NULL, 0)) {
			fs_err("cannot write pprof: a count is past what pprof's signed 64-bit values hold, alone or summed (%s)",
			       ncols && cols[ncols - 1] == COL_NS ?
			       "as nanoseconds of CPU time" : "as a count");
			errno = 0;
			ret = -1;
		}
	}
	if (!ret && rounded)
		fs_warn("pprof's values are whole numbers: the fractional counts of %llu stacks were rounded to whole ones%s",
			(unsigned long long)rounded,
			zeroed ? " (some to 0, which pprof leaves out)" : "");
	if (!ret)
		ret = ppb_write(&b, f);
	free(order);
	free(locs);
	ppb_free(&b);
	return ret;
}
