/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A gzip stream (zlib's default level, mtime 0) written to a FILE piece by
 * piece: the tool's .fstat recordings and pprof profiles.
 */
#ifndef FLAMESTAT_GZWRITE_H
#define FLAMESTAT_GZWRITE_H

#include <stddef.h>
#include <stdio.h>

struct gzwrite;

/* NULL (errno ENOMEM) when zlib cannot start. */
struct gzwrite *gzwrite_new(FILE *f);
/* 0, or -1 with errno set (EIO when zlib itself fails). */
int gzwrite_add(struct gzwrite *w, const void *buf, size_t size);
/* Finishes the stream and frees @w (always): 0, or -1 with errno set. */
int gzwrite_finish(struct gzwrite *w);

#endif
