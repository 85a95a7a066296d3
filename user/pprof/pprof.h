/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Profiles in pprof's format, gzip'd profile.proto (pprof/profile.proto),
 * for go tool pprof, Pyroscope, Parca and whatever else reads it.
 */
#ifndef FLAMESTAT_PPROF_H
#define FLAMESTAT_PPROF_H

#include <stdbool.h>
#include <stdio.h>

#include "profile/fold.h"
#include "profile/profile.h"
#include "profile/snapshot.h"
#include "sym/symbolize.h"

struct pprof_opts {
	/* The default sample type is samples/count, not cpu/nanoseconds. */
	bool count_samples;
	/* Wall-clock start of the recording, ns since the epoch; 0: unknown. */
	int64_t time_ns;
};

/*
 * A snapshot as pprof, one sample per stack record of @s, leaf first,
 * with the frames fold_snapshot() would give (@fo: the same options; the
 * root frames, cpu-N and comm, are labels here: "comm", numeric "pid" and,
 * for per-CPU recordings, "cpu"). Two values per sample: samples/count,
 * and cpu/nanoseconds, the periods it stands for times the sampling
 * period (when the snapshot gives the frequency). A frame the symbolizer
 * named is a location with one line whose function has that name (as
 * folded, but without _[k]/_[j]: the mapping says where it is) and the
 * name as recorded, mangled, as its system name; a frame it could not
 * name is a location with an address and no line, which pprof shows by
 * address and can symbolize itself later. Mappings: each recorded file
 * mapping (path, build-id, start, limit, file offset), "[vdso]", "[anon]"
 * (JIT code), and one "[kernel.kallsyms]" for every kernel frame; a user
 * address in no recorded mapping has none. Markers ([truncated], the
 * --delimiter frame) are functions without a mapping.
 *
 * @so: the symbolizer's options, as for folding (raw: mangled names for
 * the functions too). @verbose: where symbolizer_dump() goes, or NULL.
 * Returns 0, or -1: errno set on a write error, else 0 after reporting.
 */
int pprof_write_snapshot(const struct snapshot *s,
			 const struct symbolize_opts *so,
			 const struct fold_opts *fo, const struct pprof_opts *o,
			 FILE *verbose, FILE *f);

/*
 * A profile of folded stacks as pprof: each unique stack one sample, each
 * frame a function of its name (the text says nothing of addresses or
 * files; the root frames stay frames), leaf first. Values: samples/count
 * when the samples are known, cpu/nanoseconds when the counts are time
 * (profile_count_ns()), else the counts as periods/count. pprof's values
 * are whole numbers: fractional counts are rounded half up, with a
 * warning. Differential profiles are refused. Returns as above.
 */
int pprof_write_profile(const struct profile *p, const struct pprof_opts *o,
			FILE *f);

#endif
