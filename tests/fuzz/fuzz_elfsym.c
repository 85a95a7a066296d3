// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the ELF symbol loader of user/sym/elfsym*.c (through
 * libelf) on an arbitrary image in memory, the way the tool loads the
 * vDSO, then lookups across the image's offsets, as interrupted IPs and as
 * return addresses, and its frame rules there (.eh_frame, through libdw).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sym/elfsym.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elfsym_opts opts = { .raw = false };
	struct elfsym_cache *c = elfsym_cache_new(&opts);
	struct elfsym_file *f;
	struct elfsym_result r;
	uint64_t off, step;

	if (!c)
		return 0;
	f = elfsym_open_image(c, "[fuzz]", data, size);
	if (f && elfsym_file_status(f) == ELFSYM_OK) {
		step = size / 64 + 1;
		for (off = 0; off < size + 4096; off += step) {
			(void)elfsym_file_lookup(f, off, false, &r);
			(void)elfsym_file_lookup(f, off, true, &r);
			(void)elfsym_file_cfa(f, off);
		}
		(void)elfsym_file_lookup(f, UINT64_MAX, true, &r);
	}
	elfsym_cache_free(c);
	return 0;
}
