// SPDX-License-Identifier: GPL-2.0
/* Reading function symbols (.symtab, .dynsym) and PT_LOAD segments. */
#include "sym/elfsym.h"

#include "lib/util.h"
#include "sym/elfsym_int.h"

#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Symbols being collected from one or two files. */
struct cand {
	uint64_t addr;
	uint64_t size;
	uint32_t name;			/* offset into the name pool */
	uint32_t name_len;
	uint8_t is_func;
	uint8_t bind_rank;		/* 2 global, 1 weak, 0 local */
	uint8_t underscores;
	uint8_t is_plt;			/* a PLT stub, "name@plt" */
};

struct range {
	uint64_t start, end;
};

struct loader {
	struct cand *cands;
	size_t nr_cands, cap_cands;
	struct strbuf pool;
	struct range *exec;		/* executable sections */
	size_t nr_exec, cap_exec;
};

/* --- collecting symbols --- */

static void add_exec_range(struct loader *ld, uint64_t start, uint64_t size)
{
	if (!size || start + size < start)
		return;
	if (ld->nr_exec == ld->cap_exec) {
		ld->cap_exec = ld->cap_exec ? ld->cap_exec * 2 : 16;
		ld->exec = xreallocarray(ld->exec, ld->cap_exec,
					 sizeof(*ld->exec));
	}
	ld->exec[ld->nr_exec++] = (struct range){ start, start + size };
}

static void add_cand(struct loader *ld, const GElf_Sym *s, const char *name)
{
	size_t len = strcspn(name, "@");
	struct cand *c;
	uint8_t u = 0;

	/* "memcpy@@GLIBC_2.14" names memcpy; "@" alone is no name. */
	if (!len || ld->pool.len + len + 1 > UINT32_MAX)
		return;
	if (ld->nr_cands == ld->cap_cands) {
		ld->cap_cands = ld->cap_cands ? ld->cap_cands * 2 : 1024;
		ld->cands = xreallocarray(ld->cands, ld->cap_cands,
					  sizeof(*ld->cands));
	}
	while (u < len && u < 255 && name[u] == '_')
		u++;
	c = &ld->cands[ld->nr_cands++];
	c->addr = s->st_value;
	c->size = s->st_size;
	c->name = (uint32_t)ld->pool.len;
	c->name_len = (uint32_t)len;
	c->is_func = GELF_ST_TYPE(s->st_info) != STT_NOTYPE;
	switch (GELF_ST_BIND(s->st_info)) {
	case STB_GLOBAL:
	case STB_GNU_UNIQUE:
		c->bind_rank = 2;
		break;
	case STB_WEAK:
		c->bind_rank = 1;
		break;
	default:
		c->bind_rank = 0;
	}
	c->underscores = u;
	c->is_plt = 0;
	sb_add(&ld->pool, name, len);
	sb_add(&ld->pool, "", 1);
}

/* A PLT stub (plt_stubs()): named "function@plt", its size known. */
static void add_plt(void *arg, uint64_t addr, uint64_t size, const char *name)
{
	struct loader *ld = arg;
	size_t len = strcspn(name, "@");
	struct cand *c;

	if (!len || len > 4096 || ld->pool.len + len + 5 > UINT32_MAX)
		return;
	if (ld->nr_cands == ld->cap_cands) {
		ld->cap_cands = ld->cap_cands ? ld->cap_cands * 2 : 1024;
		ld->cands = xreallocarray(ld->cands, ld->cap_cands,
					  sizeof(*ld->cands));
	}
	c = &ld->cands[ld->nr_cands++];
	*c = (struct cand){
		.addr = addr, .size = size, .name = (uint32_t)ld->pool.len,
		.name_len = (uint32_t)len + 4, .is_func = 1, .is_plt = 1,
	};
	sb_add(&ld->pool, name, len);
	sb_add(&ld->pool, "@plt", 5);
}

/*
 * Add the function symbols of every SHT_SYMTAB and SHT_DYNSYM section of
 * elf. Returns how many came from a SHT_SYMTAB.
 */
static size_t collect(struct loader *ld, Elf *elf)
{
	size_t shnum, from_symtab = 0;
	Elf_Scn *scn = NULL;
	bool *exec;

	if (elf_getshdrnum(elf, &shnum) || shnum > MAX_SECTIONS)
		return 0;
	exec = xcalloc(shnum ? shnum : 1, sizeof(*exec));
	while ((scn = elf_nextscn(elf, scn))) {
		size_t idx = elf_ndxscn(scn);
		GElf_Shdr sh;

		if (idx < shnum && gelf_getshdr(scn, &sh) &&
		    (sh.sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) ==
		    (SHF_ALLOC | SHF_EXECINSTR)) {
			exec[idx] = true;
			add_exec_range(ld, sh.sh_addr, sh.sh_size);
		}
	}
	while ((scn = elf_nextscn(elf, scn))) {
		size_t entsize = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
		Elf_Data *data;
		GElf_Shdr sh;
		size_t n;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf || !entsize)
			continue;
		n = data->d_size / entsize;
		for (size_t i = 1; i < n; i++) {
			const char *name;
			GElf_Sym s;
			int type;

			if (i > INT_MAX || !gelf_getsym(data, (int)i, &s))
				break;
			type = GELF_ST_TYPE(s.st_info);
			if (s.st_shndx == SHN_UNDEF || !s.st_value)
				continue;
			if (type == STT_NOTYPE) {
				if (s.st_shndx >= shnum || !exec[s.st_shndx])
					continue;
			} else if (type != STT_FUNC && type != STT_GNU_IFUNC) {
				continue;
			}
			name = elf_strptr(elf, sh.sh_link, s.st_name);
			if (!name || !*name ||
			    (type == STT_NOTYPE &&
			     (name[0] == '.' || name[0] == '$')))
				continue;
			add_cand(ld, &s, name);
			if (sh.sh_type == SHT_SYMTAB)
				from_symtab++;
		}
	}
	free(exec);
	return from_symtab;
}

/* Sort by address, then best alias first (see elfsym.h). */
static int cand_cmp(const void *a, const void *b, void *arg)
{
	const struct cand *x = a, *y = b;
	const char *pool = arg;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->is_func != y->is_func)
		return x->is_func ? -1 : 1;
	if (!x->size != !y->size)
		return x->size ? -1 : 1;
	if (x->bind_rank != y->bind_rank)
		return x->bind_rank > y->bind_rank ? -1 : 1;
	if (x->underscores != y->underscores)
		return x->underscores < y->underscores ? -1 : 1;
	if (x->name_len != y->name_len)
		return x->name_len < y->name_len ? -1 : 1;
	return strcmp(pool + x->name, pool + y->name);
}

static int range_cmp(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return 0;
}

/* End of the executable section holding addr, or 0 when none does. */
static uint64_t exec_end(const struct loader *ld, uint64_t addr)
{
	size_t lo = 0, hi = ld->nr_exec;
	uint64_t end = 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ld->exec[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Sections may nest or repeat across files: take the widest. */
	for (size_t i = lo; i-- > 0 && lo - i <= 8;)
		if (ld->exec[i].end > addr && ld->exec[i].end > end)
			end = ld->exec[i].end;
	return end;
}

/* Turn the candidates into the file's sorted, alias-free table. */
static void finish_syms(struct elfsym_file *f, struct loader *ld)
{
	size_t n = 0;
	uint64_t cover = 0;

	if (ld->nr_cands)
		qsort_r(ld->cands, ld->nr_cands, sizeof(*ld->cands), cand_cmp,
			ld->pool.buf);
	if (ld->nr_exec)
		qsort(ld->exec, ld->nr_exec, sizeof(*ld->exec), range_cmp);
	f->syms = xreallocarray(NULL, ld->nr_cands, sizeof(*f->syms));
	for (size_t i = 0; i < ld->nr_cands; i++) {
		const struct cand *c = &ld->cands[i];
		uint64_t end, limit = exec_end(ld, c->addr);
		size_t j = i + 1;

		if (i && c->addr == ld->cands[i - 1].addr)
			continue;	/* an alias of a better name */
		while (j < ld->nr_cands && ld->cands[j].addr == c->addr)
			j++;
		if (c->size) {
			end = c->addr + c->size < c->addr ?
			      UINT64_MAX : c->addr + c->size;
		} else if (j < ld->nr_cands) {
			end = ld->cands[j].addr;
		} else {
			end = limit;	/* last symbol: to its section end */
		}
		if (limit && end > limit)
			end = limit;
		if (end <= c->addr)
			continue;
		if (end > cover)
			cover = end;
		f->syms[n++] = (struct sym){
			.addr = c->addr, .end = end, .cover_end = cover,
			.name = c->name,
		};
		f->nr_plt += c->is_plt;
	}
	f->nr_syms = n;
	/* A dense array of addresses keeps the binary search in cache. */
	f->addrs = xreallocarray(NULL, n, sizeof(*f->addrs));
	for (size_t i = 0; i < n; i++)
		f->addrs[i] = f->syms[i].addr;
	f->names = ld->pool.buf;
	ld->pool.buf = NULL;
	sb_free(&ld->pool);
}

/* Symbols from bin (may be closed) and dbg (may be closed) into f. */
void load_symbols(struct elfsym_file *f, struct ehandle *bin,
		  struct ehandle *dbg)
{
	struct loader ld = { 0 };

	if (dbg->elf)
		collect(&ld, dbg->elf);
	if (bin->elf) {
		collect(&ld, bin->elf);
		/* A debug file's .plt has no contents (NOBITS). */
		plt_stubs(bin->elf, add_plt, &ld);
	}
	finish_syms(f, &ld);
	free(ld.cands);
	free(ld.exec);
	if (f->nr_syms) {
		f->status = ELFSYM_OK;
		f->symsrc = xstrdup(dbg->elf ? dbg->path : bin->path);
	} else {
		f->status = ELFSYM_NO_SYMBOLS;
	}
}

/* --- program headers --- */

static int seg_cmp(const void *a, const void *b)
{
	const struct seg *x = a, *y = b;

	if (x->exec != y->exec)
		return x->exec ? -1 : 1;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return 0;
}

/*
 * The PT_LOAD segments as file offset ranges. guess: the file offsets in
 * the headers are not the original ones (a separate debug file); rebuild
 * them as described in elfsym.h.
 */
void load_segments(struct elfsym_file *f, Elf *elf, bool guess)
{
	uint64_t prev_end = 0;
	size_t phnum;

	if (elf_getphdrnum(elf, &phnum) || !phnum)
		return;
	if (phnum > MAX_SEGMENTS)
		phnum = MAX_SEGMENTS;
	f->segs = xreallocarray(NULL, phnum, sizeof(*f->segs));
	for (size_t i = 0; i < phnum; i++) {
		uint64_t off, size;
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (guess) {
			uint64_t align = ph.p_align, want;

			if (align < 4096 || (align & (align - 1)))
				align = 4096;
			want = ph.p_vaddr & (align - 1);
			if (prev_end <= want)
				off = want;
			else
				off = ((prev_end - want + align - 1) &
				       ~(align - 1)) + want;
			size = ph.p_memsz;
		} else {
			off = ph.p_offset;
			size = ph.p_filesz;
		}
		if (!size || off + size < off ||
		    ph.p_vaddr + size < ph.p_vaddr)
			continue;
		prev_end = off + size;
		f->segs[f->nr_segs++] = (struct seg){
			.off = off, .end = off + size, .vaddr = ph.p_vaddr,
			.exec = ph.p_flags & PF_X,
		};
	}
	qsort(f->segs, f->nr_segs, sizeof(*f->segs), seg_cmp);
}
