/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sprint_symbol()'s text taken apart: the one exported way to a kernel
 * address's symbol, offset and size (kallsyms_lookup() and
 * kallsyms_lookup_size_offset() are not exported).
 */
#ifndef FLAMESTAT_KSYM_TEXT_H
#define FLAMESTAT_KSYM_TEXT_H

/**
 * struct fst_ksym_text - one address's symbol, as sprint_symbol() said it
 * @name: the symbol's name
 * @module: the module's name, in brackets ("[ext4]"); NULL for the kernel
 * @offset: the address's offset into the symbol
 * @size: the symbol's size
 */
struct fst_ksym_text {
	const char *name;
	const char *module;
	unsigned long offset;
	unsigned long size;
};

int fst_ksym_text_parse(char *text, struct fst_ksym_text *sym);

#endif
