/* SPDX-License-Identifier: GPL-2.0 */
/* A profile in speedscope's JSON file format (www.speedscope.app). */
#ifndef FLAMESTAT_SPEEDSCOPE_H
#define FLAMESTAT_SPEEDSCOPE_H

#include <stdio.h>

#include "profile/profile.h"

/*
 * Writes @p as a speedscope file (https://www.speedscope.app/
 * file-format-schema.json): the frames once, in shared.frames, and one
 * "sampled" profile per root frame, as speedscope itself splits perf's
 * data per thread: per command (the comm frame), per process with
 * --comm-pid, per CPU with --per-cpu. The root frame stays in every
 * stack, so the names are the folded text's. The profiles come heaviest
 * first (ties by name) and the first is the one shown. A profile's
 * samples are its stacks sorted by frame names, as the folded text, each
 * root first with its count as weight: in nanoseconds of CPU time when
 * the counts are time (profile_count_ns()), else the counts themselves
 * with the unit "none". endValue is the profile's total weight. Annotated
 * kernel frames ("vfs_read_[k]") get the file "[kernel]", or their module
 * ("[ext4]"). @name is the file's name (shown as speedscope's title).
 * Returns 0; -1 with errno set on a write error, or with errno 0 after
 * reporting a profile speedscope cannot show (differential).
 */
int speedscope_write(const struct profile *p, const char *name, FILE *f);

#endif
