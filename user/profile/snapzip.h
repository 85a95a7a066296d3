/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Compressed snapshots: the zlib stream the module hands out when asked
 * (FLAMESTAT_SNAP_DEFLATE), and the gzip'd .fstat files `flamestat record`
 * saves (written with lib/gzwrite.h). Either inflates to exactly one snapshot, its header's total_size
 * bytes; anything else is refused, a hostile file included.
 */
#ifndef FLAMESTAT_SNAPZIP_H
#define FLAMESTAT_SNAPZIP_H

#include <stdbool.h>
#include <stddef.h>

/* Whether @buf (@size bytes) starts with a zlib or a gzip header. */
bool snapzip_is_compressed(const void *buf, size_t size);

/*
 * Whether @buf, the start of a file or all of it, is a zlib or gzip stream
 * whose first bytes inflate to a snapshot's magic.
 */
bool snapzip_starts_snapshot(const void *buf, size_t size);

/*
 * Inflates @in (a zlib or gzip stream) into a malloc'ed snapshot. 0, or -1
 * with the reason in @err: not a snapshot's stream, corrupt, truncated,
 * longer or shorter than its header's total_size, or data after it.
 */
int snapzip_inflate(const void *in, size_t size, void **outp, size_t *sizep,
		    char *err, size_t errsize);

#endif
