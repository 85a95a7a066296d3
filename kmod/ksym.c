// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel frame names for readers: "symbol" for the core kernel and
 * "symbol [module]" for modules, from kallsyms (sprint_symbol() is the
 * exported door to it; kallsyms_lookup() is not exported).
 */
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/string.h>

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
	char sym[KSYM_SYMBOL_LEN];
	char *plus, *slash, *mod;
	unsigned long off = 0;
	size_t len;

	sprint_symbol(sym, addr);
	/* "name+0xoff/0xsize [module]", or "0x..." when unknown. */
	plus = strrchr(sym, '+');
	if (!strncmp(sym, "0x", 2) || !plus)
		return -ENOENT;
	slash = strchr(plus, '/');
	if (slash) {
		*slash = '\0';
		if (kstrtoul(plus + 1, 0, &off))
			off = 0;
	}
	*plus = '\0';
	*offset = off;
	mod = slash ? strchr(slash + 1, ' ') : NULL;
	if (mod)
		len = scnprintf(buf, size, "%s%s", sym, mod);
	else
		len = strscpy(buf, sym, size) < 0 ? size - 1 : strlen(buf);
	return len;
}
