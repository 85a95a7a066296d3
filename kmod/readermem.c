// SPDX-License-Identifier: GPL-2.0
/*
 * Memory that readers make the module hold: copies of the merged table
 * (cat, snapshots), the snapshots each descriptor keeps until its next one
 * or its close, and the text merge's index. Each allocation is charged to
 * the reader's memory cgroup (FST_GFP_READER); all of them together are
 * also capped at reader_kb, so that members of the flamestat group, with
 * as many descriptors as they like, cannot make the kernel hold more: past
 * the cap a reader gets ENOBUFS, until other readers finish.
 */
#include <linux/atomic.h>
#include <linux/errno.h>

#include "session.h"

static atomic_long_t fst_reader_used = ATOMIC_LONG_INIT(0);
static long fst_reader_max;

/**
 * fst_reader_mem_init() - set the readers' cap
 * @max: bytes all readers together may make the module hold
 *
 * Context: module init, before the device exists.
 */
void fst_reader_mem_init(long max)
{
	fst_reader_max = max;
}

/**
 * fst_reader_charge() - count memory a reader is about to allocate
 * @bytes: its size
 *
 * Context: any.
 * Return: 0, or -ENOBUFS when it would take the readers past reader_kb
 * (nothing is counted then).
 */
int fst_reader_charge(size_t bytes)
{
	if (atomic_long_add_return(bytes, &fst_reader_used) > fst_reader_max) {
		atomic_long_sub(bytes, &fst_reader_used);
		return -ENOBUFS;
	}
	return 0;
}

/**
 * fst_reader_uncharge() - a reader's memory was freed
 * @bytes: what fst_reader_charge() counted for it
 *
 * Context: any.
 */
void fst_reader_uncharge(size_t bytes)
{
	atomic_long_sub(bytes, &fst_reader_used);
}

/**
 * fst_reader_mem_used() - bytes readers make the module hold now
 *
 * Context: any.
 * Return: the bytes.
 */
long fst_reader_mem_used(void)
{
	return atomic_long_read(&fst_reader_used);
}
