// SPDX-License-Identifier: GPL-2.0
/* A gzip stream to a FILE (see gzwrite.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
/* next_in as a const pointer: nothing here writes the input. */
#define ZLIB_CONST
#include <zlib.h>

#include "lib/gzwrite.h"
#include "lib/util.h"

struct gzwrite {
	z_stream z;
	FILE *f;
	uint8_t buf[65536];
};

struct gzwrite *gzwrite_new(FILE *f)
{
	struct gzwrite *w = xmalloc(sizeof(*w));

	memset(&w->z, 0, sizeof(w->z));
	w->f = f;
	/* 15 + 16: a gzip wrapper (zcat, pprof's format); its mtime is 0. */
	if (deflateInit2(&w->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK) {
		free(w);
		errno = ENOMEM;
		return NULL;
	}
	return w;
}

/* Deflate what is in w->z with @flush, writing every full buffer out. */
static int pump(struct gzwrite *w, int flush)
{
	int ret;

	do {
		size_t n;

		w->z.next_out = w->buf;
		w->z.avail_out = sizeof(w->buf);
		ret = deflate(&w->z, flush);
		if (ret == Z_STREAM_ERROR) {
			errno = EIO;
			return -1;
		}
		n = sizeof(w->buf) - w->z.avail_out;
		errno = 0;
		if (n && fwrite(w->buf, 1, n, w->f) != n) {
			if (!errno)
				errno = EIO;
			return -1;
		}
	} while (flush == Z_FINISH ? ret != Z_STREAM_END : w->z.avail_out == 0);
	return 0;
}

int gzwrite_add(struct gzwrite *w, const void *buf, size_t size)
{
	const uint8_t *p = buf;

	while (size) {
		size_t n = size > UINT32_MAX ? UINT32_MAX : size;

		w->z.next_in = p;
		w->z.avail_in = (uInt)n;
		if (pump(w, Z_NO_FLUSH))
			return -1;
		p += n;
		size -= n;
	}
	return 0;
}

int gzwrite_finish(struct gzwrite *w)
{
	int r;

	w->z.next_in = NULL;
	w->z.avail_in = 0;
	r = pump(w, Z_FINISH);
	deflateEnd(&w->z);
	free(w);
	return r;
}
