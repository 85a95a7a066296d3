// SPDX-License-Identifier: GPL-2.0
/*
 * sprint_symbol() writes "name+0xoff/0xsize" for the core kernel,
 * "name+0xoff/0xsize [module]" for a module, and "0x..." for an address
 * kallsyms does not know. Taken apart in one place, for the names readers
 * see (ksym.c) and the function bounds the kernel-stack cache learns
 * (kstack_cache.c).
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "ksym_text.h"

/**
 * fst_ksym_text_parse() - take sprint_symbol()'s text apart
 * @text: what sprint_symbol() wrote; cut up in place
 * @sym: its parts, pointing into @text
 *
 * Context: any.
 * Return: 0, or -ENOENT when @text names no symbol (an unknown address)
 * or is not in sprint_symbol()'s form.
 */
int fst_ksym_text_parse(char *text, struct fst_ksym_text *sym)
{
	char *plus, *slash, *space;

	/* The last '+': a module's name may not hold one, a symbol's none. */
	plus = strrchr(text, '+');
	slash = plus ? strchr(plus, '/') : NULL;
	if (!slash || plus == text)
		return -ENOENT;
	space = strchr(slash, ' ');
	*plus = '\0';
	*slash = '\0';
	if (space)
		*space = '\0';
	if (kstrtoul(plus + 1, 0, &sym->offset) ||
	    kstrtoul(slash + 1, 0, &sym->size))
		return -ENOENT;
	sym->name = text;
	sym->module = space && space[1] ? space + 1 : NULL;
	return 0;
}
