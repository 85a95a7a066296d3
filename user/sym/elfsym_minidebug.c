// SPDX-License-Identifier: GPL-2.0
/* MiniDebugInfo: the xz-compressed ELF in .gnu_debugdata (Fedora, RHEL). */
#include "sym/elfsym.h"

#include "lib/util.h"
#include "sym/elfsym_int.h"

#include <gelf.h>
#include <libelf.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>

/*
 * Limits on what a (possibly hostile) file makes us decompress: real
 * MiniDebugInfo is a few hundred kilobytes compressed, a few megabytes
 * decompressed (a .symtab, its strings, empty section headers).
 */
#define MINI_MAX_OUT	((size_t)64 << 20)
#define MINI_MEMLIMIT	((uint64_t)128 << 20)

/* The contents of the section named @name, or NULL. */
static Elf_Data *section_named(Elf *elf, const char *name)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS)
			continue;
		n = elf_strptr(elf, shstrndx, sh.sh_name);
		if (n && !strcmp(n, name))
			return elf_rawdata(scn, NULL);
	}
	return NULL;
}

/* xz-decompress @in; NULL when it is not whole valid .xz or too big. */
static void *unxz(const void *in, size_t in_len, size_t *out_len)
{
	lzma_stream z = LZMA_STREAM_INIT;
	size_t cap = in_len * 4 > 65536 ? in_len * 4 : 65536;
	unsigned char *out = NULL;
	lzma_ret r;

	if (cap > MINI_MAX_OUT)
		cap = MINI_MAX_OUT;
	if (lzma_stream_decoder(&z, MINI_MEMLIMIT, 0) != LZMA_OK)
		return NULL;
	out = xmalloc(cap);
	z.next_in = in;
	z.avail_in = in_len;
	z.next_out = out;
	z.avail_out = cap;
	for (;;) {
		r = lzma_code(&z, LZMA_FINISH);
		if (r == LZMA_STREAM_END)
			break;
		if (r != LZMA_OK && r != LZMA_BUF_ERROR)
			goto fail;
		if (z.avail_out)	/* input ended early */
			goto fail;
		if (cap == MINI_MAX_OUT)
			goto fail;
		cap = cap * 2 > MINI_MAX_OUT ? MINI_MAX_OUT : cap * 2;
		out = xrealloc(out, cap);
		z.next_out = out + z.total_out;
		z.avail_out = cap - (size_t)z.total_out;
	}
	*out_len = (size_t)z.total_out;
	lzma_end(&z);
	return out;
fail:
	lzma_end(&z);
	free(out);
	return NULL;
}

bool minidebug_open(const struct ehandle *bin, struct ehandle *out)
{
	Elf_Data *d = section_named(bin->elf, ".gnu_debugdata");
	size_t len;
	void *image;

	if (!d || !d->d_buf || !d->d_size)
		return false;
	image = unxz(d->d_buf, d->d_size, &len);
	if (!image)
		return false;
	memset(out, 0, sizeof(*out));
	out->fd = -1;
	out->image = image;
	out->elf = elf_memory(image, len);
	out->path = xasprintf("%s [.gnu_debugdata]", bin->path);
	if (!eh_check(out) || !has_symtab(out->elf)) {
		eh_close(out);
		return false;
	}
	return true;
}
