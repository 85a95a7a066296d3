/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What readers get from a copy of the merged table (session.h): folded
 * text for cat (text.c) and the binary snapshot (snapshot.c, compressed
 * by snapzip.c when asked), with kernel frames named by ksym.c.
 */
#ifndef FLAMESTAT_OUTPUT_H
#define FLAMESTAT_OUTPUT_H

#include <linux/seq_file.h>
#include <linux/types.h>

#include "session.h"

/* text.c: folded text for cat; the seq_file's private data. */
extern const struct seq_operations fst_text_seq_ops;
struct fst_text {
	struct fst_copy copy;
	bool have_copy;
	bool kaddr_ok;
	u32 pos_off;		/* arena word of the entry at pos_idx */
	loff_t pos_idx;
};

/* snapshot.c: the binary snapshot */
int fst_snapshot_build(struct fst_copy *copy, bool kaddr_ok, void **buf,
		       size_t *size);
void fst_snapshot_free(void *buf, size_t size);

/* snapzip.c: the snapshot compressed (FLAMESTAT_SNAP_DEFLATE) */
int fst_snapshot_deflate(const void *buf, size_t size, void **zbufp,
			 size_t *zsizep);

/* ksym.c: kernel symbol names */
int fst_ksym_name(unsigned long addr, char *buf, size_t size, u32 *offset);

#endif /* FLAMESTAT_OUTPUT_H */
