/* SPDX-License-Identifier: GPL-2.0 */
/* Inline frames and source lines of a file offset, from DWARF (libdw). */
#ifndef FLAMESTAT_INLINE_H
#define FLAMESTAT_INLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sym/elfsym.h"

/*
 * What the compiler inlined at an address, the way eu-addr2line -i and
 * perf's inline unwinding tell it: the function the address is in, and
 * the chain of inlined_subroutine DWARF entries around it (libdw's
 * dwarf_getscopes(), then dwarf_getscopes_die() on the innermost scope to
 * walk its concrete callers, not its abstract definition).
 *
 * Where the DWARF comes from. The file the entry's symbols came from, if
 * it has .debug_info; else a separate debug file found the way symbols'
 * are (elfsym.h: by build-id under the debug root, by .gnu_debuglink,
 * then from debuginfod when enabled), with .debug_info. Opened once per
 * entry, on its first lookup; its sections stay in memory, not its file
 * descriptor.
 *
 * Frames, innermost first: frames[0] is the function whose code is at the
 * address (an inlined one when inlined > 0), with the file and line the
 * line table gives for it; each next frame is the function that inlined
 * the previous one, with the file and line of that call
 * (DW_AT_call_file, DW_AT_call_line); the last is the out-of-line function
 * (DW_TAG_subprogram). Names: the linkage name if there is one (mangled,
 * for the caller to demangle), else DW_AT_name, following abstract
 * origins. A return address is looked up at address - 1, like a symbol.
 */

struct inline_frame {
	const char *name;	/* NULL: unnamed in DWARF */
	const char *file;	/* basename; NULL: no line information */
	unsigned int line;	/* 0: unknown */
};

struct inline_stats {
	unsigned long files;		/* entries that had DWARF looked for */
	unsigned long with_dwarf;	/* of which found */
	unsigned long lookups, covered;	/* addresses; DWARF covered */
	unsigned long inlined;		/* inlined frames found */
};

/*
 * The frames at file_offset in file, innermost first, in an array owned by
 * the entry and valid until its next call (names and files live as long
 * as the cache). Returns their number; 0 when no DWARF covers the address.
 */
size_t elfsym_file_inline(struct elfsym_file *file, uint64_t file_offset,
			  bool is_return_addr,
			  const struct inline_frame **frames);

void inline_cache_stats(const struct elfsym_cache *cache,
			struct inline_stats *st);

/* For verbose output: per file looked at, where its DWARF came from. */
void inline_cache_dump(const struct elfsym_cache *cache, FILE *out);

#endif
