/* SPDX-License-Identifier: GPL-2.0 */
/* Kernel text symbols from /proc/kallsyms: address to "name [module]". */
#ifndef FLAMESTAT_KSYMS_H
#define FLAMESTAT_KSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The fallback for kernel frames the module did not name. Text symbols
 * only: types t/T and w/W (weak symbols, which in kallsyms are nearly all
 * functions). A module's symbols carry its name in brackets.
 *
 * kallsyms gives no sizes, so a symbol extends to the next one, whichever
 * module that belongs to; the last one covers only its own address.
 * Aliases follow the rules of elfsym.h:
 * global (T) over weak (W) over local (t), fewer leading underscores,
 * shorter, then byte order.
 *
 * With kptr_restrict (or without CAP_SYSLOG) every address reads as zero;
 * the table is then empty and ksyms_state() says KSYMS_RESTRICTED, so the
 * caller can say why kernel frames stay addresses.
 */

struct ksyms;

enum ksyms_state {
	KSYMS_OK,
	KSYMS_UNREADABLE,	/* the file could not be opened or read */
	KSYMS_RESTRICTED,	/* all addresses zero (kptr_restrict) */
	KSYMS_EMPTY,		/* no text symbol in it */
};

struct ksym_result {
	const char *name;	/* "name" or "name [module]" */
	const char *module;	/* "module", or NULL for the core kernel */
	uint64_t offset;	/* of the given address into the symbol */
};

/* Load path (NULL: /proc/kallsyms). Never NULL; see ksyms_state(). */
struct ksyms *ksyms_load(const char *path);
void ksyms_free(struct ksyms *ks);

enum ksyms_state ksyms_state(const struct ksyms *ks);
const char *ksyms_state_str(enum ksyms_state state);
size_t ksyms_count(const struct ksyms *ks);

/*
 * The symbol covering addr; is_return_addr looks up addr - 1 (see
 * elfsym.h), the offset stays addr's. False when none does.
 */
bool ksyms_lookup(const struct ksyms *ks, uint64_t addr, bool is_return_addr,
		  struct ksym_result *out);

#endif
