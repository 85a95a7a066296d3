// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel frame names for readers: "symbol" for the core kernel and
 * "symbol [module]" for modules, from kallsyms (sprint_symbol() is the
 * exported door to it; kallsyms_lookup() is not exported).
 */
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "ksym_text.h"
#include "output.h"

/**
 * fst_ksym_name() - the name of a kernel address
 * @addr: the address
 * @buf: where the name goes
 * @size: room in @buf
 * @offset: the offset of @addr into its symbol
 *
 * Context: any context that may use kallsyms (not NMI).
 * Return: the name's length, or -ENOENT when @addr is in no known symbol.
 */
int fst_ksym_name(unsigned long addr, char *buf, size_t size, u32 *offset)
{
	char text[KSYM_SYMBOL_LEN];
	struct fst_ksym_text sym;
	size_t len;

	sprint_symbol(text, addr);
	if (fst_ksym_text_parse(text, &sym))
		return -ENOENT;
	*offset = sym.offset;
	if (sym.module)
		len = scnprintf(buf, size, "%s %s", sym.name, sym.module);
	else
		len = strscpy(buf, sym.name, size) < 0 ? size - 1 : strlen(buf);
	return len;
}
