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
	if (o->opened) {
		out = *o->opened;
	} else if (o->stream) {
		memset(&out, 0, sizeof(out));
		out.f = o->stream;
	} else if (svg_output_open(&out, o->path)) {
		return -1;
	}
	r = pprof_write_snapshot(s, &so, &src->fold, &po,
				 src->verbose ? stderr : NULL, out.f);
	if (r < 0 && errno)
		fs_perror("cannot write %s", o->path && strcmp(o->path, "-") ?
			  o->path : "standard output");
	if (o->opened)
		return r ? -1 : 0;
	if (o->stream) {
		if (!r && fflush(o->stream)) {
			fs_perror("cannot write %s", o->path);
			r = -1;
		}
		return r ? -1 : 0;
	}
	return svg_output_close(&out, r == 0) || r ? -1 : 0;
}
