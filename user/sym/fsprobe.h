/* SPDX-License-Identifier: GPL-2.0 */
/* Does the file system a path lives on still answer? */
#ifndef FLAMESTAT_FSPROBE_H
#define FLAMESTAT_FSPROBE_H

#include <stdbool.h>

/* How long a file system may take to open and read a file before the
 * symbolizer stops asking it for the rest of the run. */
#define FSPROBE_TIMEOUT_MS	2000

/*
 * True when opening and reading @path answered within FSPROBE_TIMEOUT_MS,
 * asked once per mount (/proc/self/mountinfo) and remembered. A file on an
 * NFS or FUSE server that stopped answering would otherwise put the tool
 * in uninterruptible sleep at its first read: the probe reads in a child
 * process instead, which is killed (or left behind, when the kernel will
 * not let it go) if it does not finish in time. The first time a mount
 * does not answer, a warning names it.
 */
bool fsprobe_answers(const char *path);

#endif
