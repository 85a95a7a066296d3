// SPDX-License-Identifier: GPL-2.0
/*
 * A snapshot compressed for the reader that asks (FLAMESTAT_SNAP_DEFLATE):
 * a zlib stream (RFC 1950) of the whole snapshot. Stacks repeat their
 * callers' addresses and kernel names share prefixes, so a snapshot
 * shrinks about fourfold, and a short session's recording is then a
 * fraction of what perf.data takes. Only with the kernel's own zlib built
 * in: a module that needed zlib_deflate.ko would not load with a bare
 * insmod where nothing else has loaded it.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <linux/zlib.h>

#include "output.h"
#include "session.h"

/*
 * Input per call of zlib_deflate(): between calls the task may be
 * rescheduled and a fatal signal ends the work.
 */
#define FST_ZIP_CHUNK	(256 * 1024)

/* Level 1: most of level 6's ratio on these records, a few times faster. */
#define FST_ZIP_LEVEL	Z_BEST_SPEED

/* zlib's compressBound(): the most a stream of @n bytes can take. */
static size_t fst_zip_bound(size_t n)
{
	return n + (n >> 12) + (n >> 14) + (n >> 25) + 13;
}

/* Feed @in to @strm chunk by chunk and finish the stream. */
static int fst_zip_run(z_stream *strm, const u8 *in, size_t size)
{
	size_t done = 0;
	int ret;

	for (;;) {
		size_t n = min_t(size_t, size - done, FST_ZIP_CHUNK);
		bool last = done + n == size;

		strm->next_in = in + done;
		strm->avail_in = n;
		ret = zlib_deflate(strm, last ? Z_FINISH : Z_NO_FLUSH);
		if (last)
			return ret == Z_STREAM_END ? 0 : -EIO;
		/* The output has room for the bound: all input is taken. */
		if (ret != Z_OK || strm->avail_in)
			return -EIO;
		done += n;
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
	}
}

/**
 * fst_snapshot_deflate() - compress a snapshot
 * @buf: the snapshot, as fst_snapshot_build() made it
 * @size: its size
 * @zbufp: the compressed stream, freed with fst_snapshot_free()
 * @zsizep: its size
 *
 * The workspace and the output are charged to the reader and to
 * reader_kb like the snapshot itself; the stream is moved into a buffer of
 * its own size before it is kept. @buf stays the caller's: on any error
 * the reader gets it as it is.
 *
 * Context: process context; may sleep.
 * Return: 0; -EOPNOTSUPP without a built-in zlib or past 4 GiB, -ENOBUFS past
 * reader_kb, -ENOMEM, -EINTR on a fatal signal, -EIO if zlib fails (a bug).
 */
int fst_snapshot_deflate(const void *buf, size_t size, void **zbufp,
			 size_t *zsizep)
{
	size_t bound = fst_zip_bound(size), ws, zsize;
	z_stream strm = { };
	void *out, *exact;
	int err;

	/*
	 * Without a built-in zlib, none of the calls below is compiled in.
	 * zlib counts its output room in 32 bits: a larger snapshot goes
	 * plain.
	 */
	if (!IS_BUILTIN(CONFIG_ZLIB_DEFLATE) || bound > UINT_MAX)
		return -EOPNOTSUPP;
	ws = zlib_deflate_workspacesize(MAX_WBITS, DEF_MEM_LEVEL);
	err = fst_reader_charge(ws + bound);
	if (err)
		return err;
	err = -ENOMEM;
	strm.workspace = __vmalloc(ws, FST_GFP_READER);
	out = __vmalloc(bound, FST_GFP_READER);
	if (!strm.workspace || !out)
		goto out;
	err = -EIO;
	if (zlib_deflateInit2(&strm, FST_ZIP_LEVEL, Z_DEFLATED, MAX_WBITS,
			      DEF_MEM_LEVEL, Z_DEFAULT_STRATEGY) != Z_OK)
		goto out;
	strm.next_out = out;
	strm.avail_out = bound;
	err = fst_zip_run(&strm, buf, size);
	zsize = strm.total_out;
	zlib_deflateEnd(&strm);
	if (err)
		goto out;
	/*
	 * Keep only what the stream takes (the bound is about the input's
	 * size), charged at its own size as fst_snapshot_free() expects.
	 */
	err = fst_reader_charge(zsize);
	if (err)
		goto out;
	exact = __vmalloc(zsize, FST_GFP_READER);
	if (!exact) {
		fst_reader_uncharge(zsize);
		err = -ENOMEM;
		goto out;
	}
	memcpy(exact, out, zsize);
	*zbufp = exact;
	*zsizep = zsize;
	err = 0;
out:
	vfree(strm.workspace);
	vfree(out);
	fst_reader_uncharge(ws + bound);
	return err;
}
