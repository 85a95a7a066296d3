// SPDX-License-Identifier: GPL-2.0
/* Inline frames and source lines from DWARF, per elfsym entry (inline.h). */
#include "sym/inline.h"

#include "lib/util.h"
#include "sym/elfsym_int.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* More frames than this at one address is a damaged file: cut there. */
#define MAX_INLINE_DEPTH	64

struct inline_dwarf {
	struct ehandle h;		/* the file; its descriptor closed */
	Dwarf *dwarf;
	struct inline_frame *frames;	/* the last lookup's */
	size_t cap;
};

void inline_free(struct elfsym_file *f)
{
	struct inline_dwarf *dw = f->dw;

	if (!dw)
		return;
	if (dw->dwarf)
		dwarf_end(dw->dwarf);
	eh_close(&dw->h);
	free(dw->frames);
	free(dw);
	f->dw = NULL;
}

static bool has_debug_info(Elf *elf)
{
	Elf_Scn *scn = NULL;
	size_t ndx;

	if (elf_getshdrstrndx(elf, &ndx))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    !sh.sh_size)
			continue;
		name = elf_strptr(elf, ndx, sh.sh_name);
		if (name && (!strcmp(name, ".debug_info") ||
			     !strcmp(name, ".zdebug_info")))
			return true;
	}
	return false;
}

/* Keep *h if it has DWARF (and, when one was recorded, the build-id). */
static bool usable(const struct elfsym_file *f, struct ehandle *h)
{
	if (has_debug_info(h->elf) &&
	    (!f->build_id_len || bid_matches(f->build_id, f->build_id_len, h)))
		return true;
	eh_close(h);
	return false;
}

/* The file with the entry's DWARF, in *out (see inline.h). */
static bool find_dwarf_file(struct elfsym_file *f, struct ehandle *out)
{
	struct elfsym_cache *c = f->cache;
	struct ehandle bin = { .fd = -1 };
	const unsigned char *bid = f->build_id;
	size_t len = f->build_id_len;
	bool ok = false;

	if (f->symsrc && f->symsrc[0] == '/' && !eh_open(out, f->symsrc) &&
	    usable(f, out))
		return true;
	/* The binary, if the entry trusted it (cfi_source()). */
	if (f->cfi_path && !f->cfi_image && !eh_open(&bin, f->cfi_path) &&
	    (bin.dev != f->cfi_dev || bin.ino != f->cfi_ino))
		eh_close(&bin);
	if (!len && bin.elf) {
		bid = bin.build_id;
		len = bin.build_id_len;
	}
	ok = (debug_by_build_id(c, bid, len, out) && usable(f, out)) ||
	     (bin.elf && debug_by_link(c, &bin, f->path, out) &&
	      usable(f, out)) ||
	     (debug_by_debuginfod(c, bid, len, out) && usable(f, out));
	eh_close(&bin);
	return ok;
}

static void dwarf_load(struct elfsym_file *f)
{
	struct inline_dwarf *dw = xcalloc(1, sizeof(*dw));

	f->dw_tried = true;
	f->cache->inl.files++;
	dw->h.fd = -1;
	if (!f->nr_segs || !find_dwarf_file(f, &dw->h) ||
	    !(dw->dwarf = dwarf_begin_elf(dw->h.elf, DWARF_C_READ, NULL))) {
		eh_close(&dw->h);
		free(dw);
		return;
	}
	/* libdw has read the sections it needs: the descriptor can go. */
	elf_cntl(dw->h.elf, ELF_C_FDDONE);
	close(dw->h.fd);
	dw->h.fd = -1;
	f->dw = dw;
	f->cache->inl.with_dwarf++;
}

void inline_cache_stats(const struct elfsym_cache *c, struct inline_stats *st)
{
	*st = c->inl;
}

static bool is_function(Dwarf_Die *die)
{
	int tag = dwarf_tag(die);

	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
	       tag == DW_TAG_entry_point;
}

/* The linkage name if any, else the name, through abstract origins. */
static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *name;

	name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name,
						     &a));
	if (!name)
		name = dwarf_formstring(dwarf_attr_integrate(
				die, DW_AT_MIPS_linkage_name, &a));
	if (!name)
		name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name,
							     &a));
	return name;
}

static struct inline_frame *push(struct inline_dwarf *dw, size_t n)
{
	if (n == dw->cap) {
		dw->cap = dw->cap ? 2 * dw->cap : 8;
		dw->frames = xreallocarray(dw->frames, dw->cap,
					   sizeof(*dw->frames));
	}
	memset(&dw->frames[n], 0, sizeof(dw->frames[n]));
	return &dw->frames[n];
}

size_t elfsym_file_inline(struct elfsym_file *f, uint64_t off, bool is_ret,
			  const struct inline_frame **frames)
{
	struct inline_dwarf *dw;
	Dwarf_Die cu, inner, *scopes = NULL;
	Dwarf_Files *files = NULL;
	Dwarf_Line *line;
	Dwarf_Addr pc;
	struct inline_frame *fr;
	const char *src;
	size_t n = 0;
	int nscopes, i;
	int lineno;

	*frames = NULL;
	if (!f->dw_tried)
		dwarf_load(f);
	dw = f->dw;
	f->cache->inl.lookups++;
	if (!dw || (is_ret && !off) ||
	    !elfsym_offset_to_vaddr(f, is_ret ? off - 1 : off, &pc) ||
	    !dwarf_addrdie(dw->dwarf, pc, &cu))
		return 0;
	nscopes = dwarf_getscopes(&cu, pc, &scopes);
	if (nscopes <= 0) {
		free(scopes);
		return 0;
	}
	/* Its concrete callers, not its abstract definition's scopes. */
	inner = scopes[0];
	free(scopes);
	scopes = NULL;
	nscopes = dwarf_getscopes_die(&inner, &scopes);
	for (i = 0; i < nscopes && !is_function(&scopes[i]); i++)
		;
	if (i == nscopes) {
		free(scopes);
		return 0;
	}
	fr = push(dw, n++);
	fr->name = die_name(&scopes[i]);
	line = dwarf_getsrc_die(&cu, pc);
	if (line && (src = dwarf_linesrc(line, NULL, NULL)) &&
	    !dwarf_lineno(line, &lineno) && lineno > 0) {
		fr->file = path_basename(src);
		fr->line = (unsigned int)lineno;
	}
	if (dwarf_getsrcfiles(&cu, &files, NULL))
		files = NULL;
	/* Each inlined_subroutine: its caller, at the line of the call. */
	while (dwarf_tag(&scopes[i]) == DW_TAG_inlined_subroutine &&
	       n < MAX_INLINE_DEPTH) {
		Dwarf_Attribute a;
		Dwarf_Word cfile = 0, cline = 0;
		int j;

		for (j = i + 1; j < nscopes && !is_function(&scopes[j]); j++)
			;
		if (j == nscopes)
			break;
		fr = push(dw, n++);
		fr->name = die_name(&scopes[j]);
		if (files &&
		    !dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_file, &a),
				     &cfile) &&
		    !dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_line, &a),
				     &cline) &&
		    (src = dwarf_filesrc(files, cfile, NULL, NULL))) {
			fr->file = path_basename(src);
			fr->line = (unsigned int)cline;
		}
		f->cache->inl.inlined++;
		i = j;
	}
	free(scopes);
	f->cache->inl.covered++;
	*frames = dw->frames;
	return n;
}

static int path_cmp(const void *a, const void *b)
{
	const struct elfsym_file *x = *(const struct elfsym_file *const *)a;
	const struct elfsym_file *y = *(const struct elfsym_file *const *)b;

	return strcmp(x->path, y->path);
}

void inline_cache_dump(const struct elfsym_cache *c, FILE *out)
{
	struct elfsym_file **all = xcalloc(c->nr_files + 1,
					   sizeof(struct elfsym_file *));
	size_t n = 0;

	for (size_t i = 0; i < c->nr_buckets; i++)
		for (struct elfsym_file *f = c->buckets[i]; f; f = f->next)
			if (f->dw_tried)
				all[n++] = f;
	qsort(all, n, sizeof(struct elfsym_file *), path_cmp);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "inline: %s: %s%s\n", all[i]->path,
			all[i]->dw ? "DWARF from " : "no DWARF found",
			all[i]->dw ? all[i]->dw->h.path : "");
	free(all);
}
