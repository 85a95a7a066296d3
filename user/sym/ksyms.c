// SPDX-License-Identifier: GPL-2.0
/* Loader and binary search over the text symbols of /proc/kallsyms. */
#include "sym/ksyms.h"

#include "lib/util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ksym {
	uint64_t addr;
	uint32_t name;		/* offset of "name [module]" in ks->pool */
	int32_t module;		/* index in ks->modules, -1: core kernel */
	uint32_t name_len;	/* of the bare name, for the alias rule */
	uint8_t bind_rank;	/* 2 T, 1 W/w, 0 t */
	uint8_t underscores;
};

struct ksyms {
	enum ksyms_state state;
	uint64_t *addrs;	/* syms[i].addr, searched alone */
	struct ksym *syms;
	size_t nr_syms;
	char *pool;
	char **modules;
	size_t nr_modules;
};

/* Index of module name m, added when new; modules come in runs. */
static int32_t module_index(struct ksyms *ks, const char *m, size_t len)
{
	for (size_t i = ks->nr_modules; i-- > 0;)
		if (strlen(ks->modules[i]) == len &&
		    !memcmp(ks->modules[i], m, len))
			return (int32_t)i;
	ks->modules = xreallocarray(ks->modules, ks->nr_modules + 1,
				    sizeof(*ks->modules));
	ks->modules[ks->nr_modules] = xstrndup(m, len);
	return (int32_t)ks->nr_modules++;
}

/*
 * One line: "ffffffff81000000 T name" or "... t name\t[module]". Returns
 * 1 for a text symbol added, 0 for a line skipped, 2 for a text symbol at
 * address zero (kptr_restrict).
 */
static int parse_line(struct ksyms *ks, char *line, struct strbuf *pool,
		      size_t *cap)
{
	char *p = line, *name, *mod = NULL;
	size_t nlen, mlen = 0;
	uint64_t addr = 0;
	int digits = 0;
	struct ksym *k;
	char type;

	for (; isxdigit((unsigned char)*p); p++, digits++) {
		int d = isdigit((unsigned char)*p) ? *p - '0' :
			tolower((unsigned char)*p) - 'a' + 10;

		if (digits == 16)
			return 0;
		addr = addr << 4 | (uint64_t)d;
	}
	if (!digits || p[0] != ' ' || !p[1] || p[2] != ' ')
		return 0;
	type = p[1];
	if (type != 't' && type != 'T' && type != 'w' && type != 'W')
		return 0;
	name = p + 3;
	nlen = strcspn(name, " \t\r\n");
	if (!nlen)
		return 0;
	p = name + nlen;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '[') {
		mod = p + 1;
		mlen = strcspn(mod, "]");
		if (mod[mlen] != ']' || !mlen)
			return 0;
	}
	if (!addr)
		return 2;
	if (ks->nr_syms == *cap) {
		*cap = *cap ? *cap * 2 : 4096;
		ks->syms = xreallocarray(ks->syms, *cap, sizeof(*ks->syms));
	}
	if (pool->len + nlen + mlen + 4 > UINT32_MAX)
		return 0;
	k = &ks->syms[ks->nr_syms++];
	k->addr = addr;
	k->name = (uint32_t)pool->len;
	k->name_len = (uint32_t)nlen;
	k->module = mod ? module_index(ks, mod, mlen) : -1;
	k->bind_rank = type == 'T' ? 2 : type == 't' ? 0 : 1;
	for (k->underscores = 0; k->underscores < nlen &&
	     k->underscores < 255 && name[k->underscores] == '_';)
		k->underscores++;
	sb_add(pool, name, nlen);
	if (mod)
		sb_addf(pool, " [%.*s]", (int)mlen, mod);
	sb_add(pool, "", 1);
	return 1;
}

static int ksym_cmp(const void *a, const void *b, void *arg)
{
	const struct ksym *x = a, *y = b;
	const char *pool = arg;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->bind_rank != y->bind_rank)
		return x->bind_rank > y->bind_rank ? -1 : 1;
	if (x->underscores != y->underscores)
		return x->underscores < y->underscores ? -1 : 1;
	if (x->name_len != y->name_len)
		return x->name_len < y->name_len ? -1 : 1;
	return strcmp(pool + x->name, pool + y->name);
}

struct ksyms *ksyms_load(const char *path)
{
	struct ksyms *ks = xcalloc(1, sizeof(*ks));
	struct strbuf pool = { 0 };
	size_t cap = 0, len = 0, zero = 0, n = 0;
	char *line = NULL;
	FILE *f;

	f = fopen(path ? path : "/proc/kallsyms", "re");
	if (!f) {
		ks->state = KSYMS_UNREADABLE;
		return ks;
	}
	while (getline(&line, &len, f) > 0)
		if (parse_line(ks, line, &pool, &cap) == 2)
			zero++;
	if (ferror(f))
		ks->state = KSYMS_UNREADABLE;
	fclose(f);
	free(line);
	ks->pool = pool.buf;
	if (ks->state == KSYMS_OK && !ks->nr_syms)
		ks->state = zero ? KSYMS_RESTRICTED : KSYMS_EMPTY;
	if (ks->state != KSYMS_OK) {
		ks->nr_syms = 0;
		return ks;
	}
	qsort_r(ks->syms, ks->nr_syms, sizeof(*ks->syms), ksym_cmp, ks->pool);
	/* Keep the first (best) name at each address. */
	for (size_t i = 0; i < ks->nr_syms; i++)
		if (!n || ks->syms[i].addr != ks->syms[n - 1].addr)
			ks->syms[n++] = ks->syms[i];
	ks->nr_syms = n;
	/* A dense array of addresses keeps the binary search in cache. */
	ks->addrs = xreallocarray(NULL, n, sizeof(*ks->addrs));
	for (size_t i = 0; i < n; i++)
		ks->addrs[i] = ks->syms[i].addr;
	return ks;
}

void ksyms_free(struct ksyms *ks)
{
	if (!ks)
		return;
	for (size_t i = 0; i < ks->nr_modules; i++)
		free(ks->modules[i]);
	free(ks->modules);
	free(ks->addrs);
	free(ks->syms);
	free(ks->pool);
	free(ks);
}

enum ksyms_state ksyms_state(const struct ksyms *ks)
{
	return ks->state;
}

const char *ksyms_state_str(enum ksyms_state state)
{
	switch (state) {
	case KSYMS_OK:
		return "ok";
	case KSYMS_UNREADABLE:
		return "kallsyms unreadable";
	case KSYMS_RESTRICTED:
		return "kernel addresses hidden (kernel.kptr_restrict, or no CAP_SYSLOG)";
	case KSYMS_EMPTY:
		return "no kernel text symbols";
	}
	return "?";
}

size_t ksyms_count(const struct ksyms *ks)
{
	return ks->nr_syms;
}

bool ksyms_lookup(const struct ksyms *ks, uint64_t addr, bool is_ret,
		  struct ksym_result *out)
{
	uint64_t look = is_ret ? addr - 1 : addr;
	const uint64_t *a = ks->addrs;
	size_t lo = 0, n = ks->nr_syms;
	const struct ksym *k;

	memset(out, 0, sizeof(*out));
	if ((is_ret && !addr) || !n || a[0] > look)
		return false;
	/* Branch-free: the largest lo with a[lo] <= look (see elfsym.c). */
	while (n > 1) {
		size_t half = n / 2;

		lo = a[lo + half] <= look ? lo + half : lo;
		n -= half;
	}
	k = &ks->syms[lo];
	lo++;
	/* The last symbol has no known end: only its own address is its. */
	if (lo == ks->nr_syms && look != k->addr)
		return false;
	out->name = ks->pool + k->name;
	out->module = k->module >= 0 ? ks->modules[k->module] : NULL;
	out->offset = addr - k->addr;
	return true;
}
