// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: user/profile/snapshot.c's parser of binary snapshots
 * (.fstat files and the device's output) on arbitrary bytes, inflated
 * first by user/profile/snapzip.c when they start as a zlib or gzip
 * stream (gzip'd .fstat files, the module's compressed snapshots), then every
 * lookup the tool makes on a parsed snapshot (maps of each user frame, KSYM
 * of each kernel frame). A hostile file must give an error, never a crash,
 * a leak or undefined behaviour (ASan, UBSan).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "profile/snapshot.h"
#include "profile/snapzip.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct snapshot s;
	char err[256];
	void *raw;
	size_t i, j;

	if (snapzip_is_compressed(data, size)) {
		if (snapzip_inflate(data, size, &raw, &size, err, sizeof(err)))
			return 0;
	} else {
		raw = malloc(size ? size : 1);
		if (!raw)
			return 0;
		memcpy(raw, data, size);
	}
	memset(&s, 0, sizeof(s));
	if (snapshot_parse(&s, raw, size, err, sizeof(err)))
		return 0;	/* raw freed by the parser */
	for (i = 0; i < s.nr_stacks; i++) {
		const struct flamestat_rec_stack *r = s.stacks[i].rec;
		const struct snap_proc *p = s.stacks[i].proc;

		for (j = 0; j < r->nr_kernel; j++)
			(void)snapshot_find_ksym(&s, r->frames[j]);
		for (j = 0; p && j < r->nr_user; j++) {
			const struct snap_map *m =
				snap_proc_find_map(p, r->frames[r->nr_kernel + j]);

			if (m && m->file && m->file->path)
				(void)strlen(m->file->path);
		}
	}
	(void)snapshot_from_this_boot(&s, false);
	snapshot_free(&s);
	return 0;
}
