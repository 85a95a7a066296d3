// SPDX-License-Identifier: GPL-2.0
/* pprof from a snapshot, and no binary to a terminal (see output.h). */
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/output.h"
#include "cmd/source.h"
#include "cmd/svg_cli.h"
#include "lib/util.h"
#include "pprof/pprof.h"

int out_check_terminal(const struct out_opts *o)
{
	if (out_format_resolve(o) != OUT_PPROF ||
	    (o->path && strcmp(o->path, "-")) || !isatty(STDOUT_FILENO))
		return 0;
	fs_err("not writing pprof's binary format to a terminal: use -o FILE.pb.gz or a pipe");
	return -1;
}

/*
 * When the recording started, ns since the epoch: now less its duration
 * for a live snapshot, the time the file was saved less it for a saved
 * one (record saves it as it ends); 0 when not known.
 */
static int64_t start_time(const struct snapshot *s, bool live)
{
	uint64_t end = 0, d = s->hdr.stats.running_ns;
	struct timespec ts;

	if (live && !clock_gettime(CLOCK_REALTIME, &ts))
		end = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	else if (!live && s->has_host)
		end = s->host.realtime_ns;
	return end > d && end - d <= INT64_MAX ? (int64_t)(end - d) : 0;
}

int out_write_pprof_snapshot(const struct snapshot *s, bool live,
			     const struct src_opts *src,
			     const struct out_opts *o)
{
	struct pprof_opts po = {
		.count_samples = o->count_samples,
		.time_ns = start_time(s, live),
	};
	struct symbolize_opts so = src->sym;
	struct svg_output out;
	int r;

	so.local_vdso = snapshot_from_this_boot(s, live);
	if (out_target_open(o, &out))
		return -1;
	r = pprof_write_snapshot(s, &so, &src->fold, &po,
				 src->verbose ? stderr : NULL, out.f);
	return out_target_close(o, &out, r);
}
