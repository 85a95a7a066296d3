/* SPDX-License-Identifier: GPL-2.0 */
/* From a binary snapshot to a profile of symbolized folded stacks. */
#ifndef FLAMESTAT_FOLD_H
#define FLAMESTAT_FOLD_H

#include <stdbool.h>

#include "profile/profile.h"
#include "profile/snapshot.h"
#include "sym/symbolize.h"

struct fold_opts {
	bool comm_pid;		/* root frame "comm-PID" instead of "comm" */
	bool per_cpu;		/* a "cpu-N" frame above comm (needs --per-cpu) */
	bool delimiter;		/* a "-" frame between user and kernel frames */
	bool no_kernel;		/* leave kernel frames out */
	bool no_user;		/* leave user frames out */
	bool annotate;		/* [truncated]_[k] for the kernel marker */
};

/*
 * Adds every stack of @s to @p, root first: [cpu-N;]comm[-PID];
 * [truncated;]user frames;[-;][truncated_[k];]kernel frames, counting
 * its periods, its samples kept beside (profile_add_sampled()). Off-CPU
 * stacks end in [off-cpu:S] (D, R) and with their waker's stack in
 * --;waker frames_[w], leaf first; off-CPU and wall-clock snapshots count
 * every stack's time in ns. Sets @p's metadata from the snapshot header.
 * Returns 0, or -1 after reporting.
 */
int fold_snapshot(const struct snapshot *s, struct symbolizer *sym,
		  const struct fold_opts *o, struct profile *p);

/*
 * Off-CPU blocks lost (no room for a stack, still blocked at the end),
 * as opposed to those left out on purpose (short, filtered, -U).
 */
uint64_t fold_offcpu_lost(const struct flamestat_stats *st);

/*
 * The metadata a snapshot header gives (samples, drops, freq, ...), and
 * the periods its stacks' samples stand for.
 */
void fold_meta(const struct snapshot *s, struct profile_meta *m);

/*
 * Frame by frame, for writers that keep more than the folded strings
 * (pprof): a frame's string exactly as fold_snapshot() names it. The
 * symbol tables of @s's files are looked up once per fold_files.
 */
struct fold_files;
struct fold_files *fold_files_new(const struct snapshot *s);
void fold_files_free(struct fold_files *f);
/*
 * User address @addr of @proc (NULL: none recorded); @is_ret: not a leaf.
 * Returns how many frames it is, root first in *@out (more than one with
 * inline frames: the functions inlined there), valid until the next call.
 */
size_t fold_user_frames(const struct snapshot *s, struct symbolizer *sym,
			struct fold_files *f, const struct snap_proc *proc,
			uint64_t addr, bool is_ret, const char *const **out);
const char *fold_kernel_frame(const struct snapshot *s, struct symbolizer *sym,
			      uint64_t v, bool is_ret);

#endif
