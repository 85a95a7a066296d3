// SPDX-License-Identifier: GPL-2.0
/* Finding a separate debug file: by build-id, or by .gnu_debuglink. */
#include "sym/elfsym.h"

#include "lib/util.h"
#include "sym/debuginfod.h"
#include "sym/elfsym_int.h"

#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

static Elf_Scn *find_section(Elf *elf, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, sh))
			continue;
		n = elf_strptr(elf, shstrndx, sh->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

/* zlib's crc32 of a whole file, as .gnu_debuglink records it. */
static bool file_crc32(int fd, uint32_t *out)
{
	const size_t bufsz = 1 << 16;
	unsigned char *buf = xmalloc(bufsz);
	uLong crc = crc32(0L, Z_NULL, 0);
	off_t pos = 0;
	ssize_t n;

	while ((n = pread(fd, buf, bufsz, pos)) > 0) {
		crc = crc32(crc, buf, (uInt)n);
		pos += n;
	}
	free(buf);
	if (n < 0)
		return false;
	*out = (uint32_t)crc;
	return true;
}

void hex_build_id(const unsigned char *bid, size_t len, char *out)
{
	static const char hex[] = "0123456789abcdef";

	for (size_t i = 0; i < len; i++) {
		out[2 * i] = hex[bid[i] >> 4];
		out[2 * i + 1] = hex[bid[i] & 15];
	}
	out[2 * len] = '\0';
}

/*
 * The debug file at @path (freed here) when it is the one for build-id
 * @bid and holds a .symtab.
 */
static bool open_debug_file(char *path, const unsigned char *bid, size_t len,
			    struct ehandle *out)
{
	bool ok = !eh_open(out, path);

	free(path);
	if (ok && (!bid_matches(bid, len, out) || !has_symtab(out->elf))) {
		eh_close(out);
		ok = false;
	}
	return ok;
}

/* <debug_root>/.build-id/xx/rest.debug, with a matching build-id. */
bool debug_by_build_id(struct elfsym_cache *c, const unsigned char *bid,
		       size_t len, struct ehandle *out)
{
	char hex[2 * ELFSYM_BUILD_ID_MAX + 1];
	char *path;

	if (len < 2 || len > ELFSYM_BUILD_ID_MAX)
		return false;
	hex_build_id(bid, len, hex);
	path = xasprintf("%s/.build-id/%.2s/%s.debug", c->debug_root, hex,
			 hex + 2);
	return open_debug_file(path, bid, len, out);
}

/* The debug file for a build-id from the debuginfod servers, if enabled. */
bool debug_by_debuginfod(struct elfsym_cache *c, const unsigned char *bid,
			 size_t len, struct ehandle *out)
{
	char *path;

	if (!c->dinfod || len < 2 || len > ELFSYM_BUILD_ID_MAX)
		return false;
	path = dinfod_find_debuginfo(c->dinfod, bid, len);
	if (!path)
		return false;
	return open_debug_file(path, bid, len, out);
}

void elfsym_cache_dinfod_dump(const struct elfsym_cache *c, FILE *out)
{
	dinfod_dump(c->dinfod, out);
}

/*
 * The file .gnu_debuglink of bin names, in the places gdb looks, with the
 * same build-id or, when either file has none, the CRC32 the link records.
 */
bool debug_by_link(struct elfsym_cache *c, struct ehandle *bin,
		   const char *recorded_path, struct ehandle *out)
{
	const unsigned char *d;
	GElf_Shdr sh;
	GElf_Ehdr eh;
	Elf_Data *data;
	Elf_Scn *scn;
	size_t nlen, crc_off;
	uint32_t crc;
	char *dir, *rdir;
	bool found = false;

	scn = find_section(bin->elf, ".gnu_debuglink", &sh);
	if (!scn || sh.sh_type == SHT_NOBITS ||
	    !(data = elf_getdata(scn, NULL)) || !data->d_buf ||
	    !gelf_getehdr(bin->elf, &eh))
		return false;
	d = data->d_buf;
	nlen = strnlen((const char *)d, data->d_size);
	crc_off = (nlen + 4) & ~(size_t)3;	/* past the NUL, 4-aligned */
	if (!nlen || nlen == data->d_size || crc_off + 4 > data->d_size ||
	    memchr(d, '/', nlen))
		return false;
	if (eh.e_ident[EI_DATA] == ELFDATA2MSB)
		crc = (uint32_t)d[crc_off] << 24 | (uint32_t)d[crc_off + 1] << 16 |
		      (uint32_t)d[crc_off + 2] << 8 | d[crc_off + 3];
	else
		crc = (uint32_t)d[crc_off + 3] << 24 |
		      (uint32_t)d[crc_off + 2] << 16 |
		      (uint32_t)d[crc_off + 1] << 8 | d[crc_off];

	dir = xstrdup(bin->path);
	*strrchr(dir, '/') = '\0';	/* bin->path always has a slash */
	rdir = xstrdup(recorded_path);
	*strrchr(rdir, '/') = '\0';
	for (int i = 0; i < 3 && !found; i++) {
		uint32_t got;
		const char *name = (const char *)d;
		char *p = i == 0 ? xasprintf("%s/%s", dir, name) :
			  i == 1 ? xasprintf("%s/.debug/%s", dir, name) :
			  xasprintf("%s%s/%s", c->debug_root, rdir, name);

		if (!eh_open(out, p)) {
			/*
			 * Equal build-ids say more than the CRC, and spare
			 * reading a big debug file whole; without them the
			 * CRC decides.
			 */
			found = !(out->dev == bin->dev &&
				  out->ino == bin->ino) &&
				has_symtab(out->elf) &&
				(bin->build_id_full && out->build_id_full ?
				 bid_matches(bin->build_id, bin->build_id_len,
					     out) :
				 file_crc32(out->fd, &got) && got == crc);
			if (!found)
				eh_close(out);
		}
		free(p);
	}
	free(dir);
	free(rdir);
	return found;
}
