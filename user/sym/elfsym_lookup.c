// SPDX-License-Identifier: GPL-2.0
/* Lookup: a file offset to the symbol covering it, demangled on first use. */
#include "sym/elfsym.h"

#include "lib/util.h"
#include "sym/demangle.h"
#include "sym/elfsym_int.h"

#include <stdlib.h>
#include <string.h>

/* How far a lookup walks back over symbols that end before the address. */
#define MAX_WALK_BACK	32

bool elfsym_offset_to_vaddr(const struct elfsym_file *f, uint64_t off,
			    uint64_t *vaddr)
{
	for (size_t i = 0; i < f->nr_segs; i++)
		if (off >= f->segs[i].off && off < f->segs[i].end) {
			*vaddr = off - f->segs[i].off + f->segs[i].vaddr;
			return true;
		}
	return false;
}

static const struct sym *find_sym(const struct elfsym_file *f, uint64_t addr)
{
	const uint64_t *a = f->addrs;
	size_t lo = 0, n = f->nr_syms;

	if (!n || a[0] > addr)
		return NULL;
	/*
	 * Branch-free: the largest i with a[i] <= addr. Random frames make
	 * the branches of a classic binary search mispredict half the time.
	 */
	while (n > 1) {
		size_t half = n / 2;

		lo = a[lo + half] <= addr ? lo + half : lo;
		n -= half;
	}
	lo++;
	/*
	 * syms[lo - 1] starts at or before addr. Usually it covers addr;
	 * if not, an earlier, longer symbol may (one function nested in
	 * another's range). cover_end says when no earlier one can.
	 */
	for (size_t i = lo; i-- > 0 && lo - i <= MAX_WALK_BACK;) {
		if (f->syms[i].cover_end <= addr)
			break;
		if (f->syms[i].end > addr)
			return &f->syms[i];
	}
	return NULL;
}

static const char *sym_name(struct elfsym_file *f, const struct sym *s)
{
	size_t i = (size_t)(s - f->syms);
	char *raw = f->names + s->name;

	if (f->cache->opts.raw)
		return raw;
	if (!f->demangled)
		f->demangled = xcalloc(f->nr_syms, sizeof(*f->demangled));
	if (!f->demangled[i]) {
		size_t len = strlen(raw);
		char *d;

		if (len > 4 && !strcmp(raw + len - 4, "@plt")) {
			/* A PLT stub: the function's name, demangled. */
			char *fn = xstrndup(raw, len - 4);

			d = demangle(fn);
			free(fn);
			if (d) {
				fn = xasprintf("%s@plt", d);
				free(d);
				d = fn;
			}
		} else {
			d = demangle(raw);
		}
		f->demangled[i] = d ? d : raw;
	}
	return f->demangled[i];
}

bool elfsym_file_lookup(struct elfsym_file *f, uint64_t off, bool is_ret,
			struct elfsym_result *out)
{
	uint64_t vaddr, look;
	const struct sym *s;

	memset(out, 0, sizeof(*out));
	f->cache->stats.lookups++;
	if (is_ret && !off)
		return false;
	look = is_ret ? off - 1 : off;
	if (!elfsym_offset_to_vaddr(f, look, &vaddr))
		return false;
	out->vaddr = is_ret ? vaddr + 1 : vaddr;
	s = find_sym(f, vaddr);
	if (!s)
		return false;
	out->name = sym_name(f, s);
	out->offset = out->vaddr - s->addr;
	f->cache->stats.resolved++;
	return true;
}

bool elfsym_lookup(struct elfsym_cache *c, const char *path,
		   const unsigned char *build_id, size_t build_id_len,
		   uint64_t off, bool is_ret, struct elfsym_result *out)
{
	return elfsym_file_lookup(elfsym_open(c, path, build_id, build_id_len),
				  off, is_ret, out);
}
