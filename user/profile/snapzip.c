// SPDX-License-Identifier: GPL-2.0
/* Compressed snapshots in and out (see snapzip.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* next_in as a const pointer: nothing here writes the input. */
#define ZLIB_CONST
#include <zlib.h>

#include "profile/snapzip.h"
#include "uapi/flamestat.h"

/* magic, abi_version, header_size, total_size: enough to size the rest. */
#define SNAPZIP_HEAD (offsetof(struct flamestat_snap_header, total_size) + \
		      sizeof(uint64_t))

/* Deflate never expands data more than 1032 times (zlib's FAQ). */
#define SNAPZIP_MAX_RATIO 1032

bool snapzip_is_compressed(const void *buf, size_t size)
{
	const uint8_t *b = buf;

	if (size < 2)
		return false;
	if (b[0] == 0x1f && b[1] == 0x8b)
		return true;	/* gzip */
	/* zlib: deflate, a window of at most 32 KiB, the check bits. */
	return (b[0] & 0x0f) == 8 && (b[0] >> 4) <= 7 &&
	       ((b[0] << 8) | b[1]) % 31 == 0;
}

__attribute__((format(printf, 3, 4)))
static int zerr(char *err, size_t errsize, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errsize, fmt, ap);
	va_end(ap);
	return -1;
}

/* inflate() into [out, out + n): Z_OK, Z_STREAM_END or an error. */
static int inflate_into(z_stream *z, void *out, size_t n)
{
	int ret = Z_OK;

	z->next_out = out;
	z->avail_out = (uInt)n;
	while (z->avail_out && ret == Z_OK) {
		ret = inflate(z, Z_NO_FLUSH);
		/* No progress possible: the input ended. */
		if (ret == Z_BUF_ERROR && !z->avail_in)
			break;
	}
	return ret;
}

static const char *why(int ret, const z_stream *z)
{
	if (ret == Z_BUF_ERROR && !z->avail_in)
		return "truncated";
	return z->msg ? z->msg : "corrupt";
}

bool snapzip_starts_snapshot(const void *buf, size_t size)
{
	uint32_t magic = 0;
	z_stream z = { 0 };
	int ret;

	if (!snapzip_is_compressed(buf, size) || size > UINT32_MAX ||
	    inflateInit2(&z, 15 + 32) != Z_OK)
		return false;
	z.next_in = buf;
	z.avail_in = (uInt)size;
	ret = inflate_into(&z, &magic, sizeof(magic));
	inflateEnd(&z);
	return (ret == Z_OK || ret == Z_STREAM_END) &&
	       z.total_out == sizeof(magic) && magic == FLAMESTAT_SNAP_MAGIC;
}

int snapzip_inflate(const void *in, size_t size, void **outp, size_t *sizep,
		    char *err, size_t errsize)
{
	struct flamestat_snap_header head;
	z_stream z = { 0 };
	uint8_t *out = NULL, extra;
	uint64_t total;
	int ret;

	/* A whole snapshot is read into memory: no stream beyond uInt. */
	if (size > UINT32_MAX)
		return zerr(err, errsize, "compressed snapshot too large (%zu bytes)", size);
	if (inflateInit2(&z, 15 + 32) != Z_OK)	/* zlib or gzip */
		return zerr(err, errsize, "zlib: cannot start inflating");
	z.next_in = in;
	z.avail_in = (uInt)size;
	ret = inflate_into(&z, &head, SNAPZIP_HEAD);
	if (z.total_out < SNAPZIP_HEAD) {
		zerr(err, errsize, "compressed snapshot: %s before its header",
		     ret == Z_STREAM_END ? "ends" : why(ret, &z));
		goto fail;
	}
	if (head.magic != FLAMESTAT_SNAP_MAGIC) {
		zerr(err, errsize, "compressed data is not a flamestat snapshot");
		goto fail;
	}
	total = head.total_size;
	if (total < SNAPZIP_HEAD || total > (uint64_t)size * SNAPZIP_MAX_RATIO + 64 ||
	    total > UINT32_MAX) {
		zerr(err, errsize, "compressed snapshot claims %llu bytes, which its %zu cannot hold",
		     (unsigned long long)total, size);
		goto fail;
	}
	out = malloc(total);
	if (!out) {
		zerr(err, errsize, "no memory for a snapshot of %llu bytes",
		     (unsigned long long)total);
		goto fail;
	}
	memcpy(out, &head, SNAPZIP_HEAD);
	if (ret == Z_OK)
		ret = inflate_into(&z, out + SNAPZIP_HEAD, total - SNAPZIP_HEAD);
	if (ret == Z_OK && z.total_out == total) {
		/* Full: anything more is a stream longer than its header. */
		ret = inflate_into(&z, &extra, 1);
		if (ret == Z_OK || (ret == Z_STREAM_END && z.total_out > total)) {
			zerr(err, errsize, "compressed snapshot longer than its header's %llu bytes",
			     (unsigned long long)total);
			goto fail;
		}
	}
	if (ret != Z_STREAM_END) {
		zerr(err, errsize, "compressed snapshot: %s", why(ret, &z));
		goto fail;
	}
	if (z.total_out != total) {
		zerr(err, errsize, "compressed snapshot ends after %lu of its header's %llu bytes",
		     z.total_out, (unsigned long long)total);
		goto fail;
	}
	if (z.avail_in) {
		zerr(err, errsize, "%u bytes after the compressed snapshot", z.avail_in);
		goto fail;
	}
	inflateEnd(&z);
	*outp = out;
	*sizep = total;
	return 0;
fail:
	inflateEnd(&z);
	free(out);
	return -1;
}
