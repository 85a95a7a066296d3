// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the module's unwind-table builder (kmod/ehframe.c,
 * built for user space) on arbitrary .eh_frame_hdr and .eh_frame bytes, as
 * an unprivileged process can hand the module by mapping any file. Input:
 * the header's length (u32; its top bit set: read as AArch64 CFI, else as
 * x86-64's), the header's and the frame bytes' addresses
 * (u64 each, little-endian), the header, then the frame bytes (ehcheck
 * --seed writes real files so). Small limits, so that the limits'
 * own paths are taken. A table that builds must be well formed: rows
 * strictly increasing, every rule index in range, and lookups anywhere
 * inside it answer without reading outside it (ASan).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ehframe.h"

#define ROWS_MAX	4096
#define RULES_MAX	256
#define SEED_HDR	20	/* u32 + 2 * u64 */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static u32 start[ROWS_MAX];
static u16 rule[ROWS_MAX];
static struct fst_eh_rule rules[RULES_MAX];
static u16 hash[2 * RULES_MAX];
static u32 lookup[ROWS_MAX + 1];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fst_eh_out out = {
		.start = start, .rule = rule, .rows_max = ROWS_MAX,
		.rules = rules, .hash = hash, .rules_max = RULES_MAX,
		.work_max = 100000,
	};
	struct fst_eh_src src = { .arch = &fst_eh_x86_64 };
	struct fst_eh_table t;
	struct fst_eh_stats st;
	uint8_t *hdr, *frame;
	u32 hlen, i, counted;
	u64 a;

	if (size < SEED_HDR)
		return 0;
	memcpy(&hlen, data, 4);
	if (hlen & 0x80000000U)
		src.arch = &fst_eh_arm64;
	hlen &= 0x7fffffffU;
	memcpy(&src.hdr_vaddr, data + 4, 8);
	memcpy(&src.frame_vaddr, data + 12, 8);
	data += SEED_HDR;
	size -= SEED_HDR;
	if (hlen > size)
		return 0;
	/* Exact-size copies: ASan sees any read past either. */
	hdr = malloc(hlen ? hlen : 1);
	frame = malloc(size - hlen ? size - hlen : 1);
	if (!hdr || !frame)
		abort();
	memcpy(hdr, data, hlen);
	memcpy(frame, data + hlen, size - hlen);
	src.hdr = hdr;
	src.hdr_len = hlen;
	src.frame = frame;
	src.frame_len = (u32)(size - hlen);
	/* Counted first, as the module sizes its arrays: never fewer rows. */
	out.start = NULL;
	out.rule = NULL;
	if (fst_eh_build(&src, &out, &t, &st) != FST_EH_OK)
		goto done;
	counted = t.nr_rows;
	out.start = start;
	out.rule = rule;
	if (fst_eh_build(&src, &out, &t, &st) == FST_EH_OK) {
		if (t.nr_rows > counted)
			abort();
		if (t.nr_rows > ROWS_MAX || t.nr_rules > RULES_MAX)
			abort();
		for (i = 0; i < t.nr_rows; i++)
			if ((i && t.start[i] <= t.start[i - 1]) ||
			    t.rule[i] >= t.nr_rules ||
			    t.rules[t.rule[i]].kind >= FST_EH_NR_KINDS)
				abort();
		for (i = 0; i < t.nr_rows; i++) {
			a = t.base + t.start[i];
			if (fst_eh_find(&t, a) != &t.rules[t.rule[i]])
				abort();
			(void)fst_eh_find(&t, a - 1);
		}
		(void)fst_eh_find(&t, 0);
		(void)fst_eh_find(&t, UINT64_MAX);
		/* The fast lookup array finds the same rows. */
		if (fst_eh_blocks(&t) < ROWS_MAX) {
			struct fst_eh_table plain = t;

			fst_eh_index(&t, lookup);
			for (i = 0; i < t.nr_rows; i++) {
				a = t.base + t.start[i];
				if (fst_eh_find(&t, a) != fst_eh_find(&plain, a) ||
				    fst_eh_find(&t, a - 1) != fst_eh_find(&plain, a - 1) ||
				    fst_eh_find(&t, a + 300) != fst_eh_find(&plain, a + 300))
					abort();
			}
		}
	}
done:
	free(hdr);
	free(frame);
	return 0;
}
