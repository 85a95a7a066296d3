/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Output files replaced atomically: written to a new temporary file beside
 * the target (created with O_EXCL under a random name, so never through a
 * symbolic link), renamed over it only when complete, removed on failure
 * or on a fatal signal. Devices and FIFOs are written in place.
 */
#ifndef FLAMESTAT_OUTFILE_H
#define FLAMESTAT_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

struct outfile {
	FILE *f;
	char *path;	/* NULL: standard output */
	char *tmp;	/* NULL: written in place (stdout, device, FIFO) */
};

/*
 * Opens @path for writing (NULL or "-": standard output). A regular file
 * (or a new one) is written as "DIR/.NAME.XXXXXX" with the mode the
 * target has (new: 0644 less the umask). Until outfile_close(), the
 * temporary file is removed if SIGINT, SIGTERM or SIGHUP kills the
 * process (when their disposition is the default; a program with its own
 * handlers calls outfile_discard_all() from them). Returns 0, or -1 after
 * reporting (naming @path).
 */
int outfile_open(struct outfile *o, const char *path);
/*
 * Flushes and closes; renames the temporary file into place when @ok and
 * writing succeeded, else removes it. Returns 0, or -1 (after reporting a
 * write or rename error, or silently when !@ok).
 */
int outfile_close(struct outfile *o, bool ok);
/* Removes every open temporary file. Async-signal-safe. */
void outfile_discard_all(void);

#endif
