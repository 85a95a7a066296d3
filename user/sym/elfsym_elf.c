// SPDX-License-Identifier: GPL-2.0
/* Opening an ELF file (or image) with libelf and reading its build-id note. */
#include "sym/elfsym.h"

#include "lib/util.h"
#include "sym/elfsym_int.h"
#include "sym/fsprobe.h"

#include <uapi/flamestat.h>

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void eh_close(struct ehandle *h)
{
	if (h->elf)
		elf_end(h->elf);
	if (h->fd >= 0)
		close(h->fd);
	free(h->image);
	free(h->path);
	memset(h, 0, sizeof(*h));
	h->fd = -1;
}

/* The GNU build-id note of an ELF file, from sections or else segments. */
static void note_build_id(struct ehandle *h, Elf_Data *data)
{
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;

	while (!h->build_id_full &&
	       (next = gelf_getnote(data, off, &nh, &name_off, &desc_off))) {
		const char *buf = data->d_buf;

		off = next;
		if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
		    memcmp(buf + name_off, ELF_NOTE_GNU, 4) || !nh.n_descsz)
			continue;
		h->build_id_full = nh.n_descsz;
		h->build_id_len = nh.n_descsz < ELFSYM_BUILD_ID_MAX ?
				  nh.n_descsz : ELFSYM_BUILD_ID_MAX;
		memcpy(h->build_id, buf + desc_off, h->build_id_len);
	}
}

static void read_build_id(struct ehandle *h)
{
	Elf_Scn *scn = NULL;
	size_t phnum;

	while (!h->build_id_full && (scn = elf_nextscn(h->elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		if (data && data->d_buf)
			note_build_id(h, data);
	}
	if (h->build_id_full || elf_getphdrnum(h->elf, &phnum))
		return;
	/* No section headers (sstrip): the PT_NOTE segments still say it. */
	for (size_t i = 0; i < phnum && i < MAX_SEGMENTS; i++) {
		GElf_Phdr ph;
		Elf_Data *data;

		if (!gelf_getphdr(h->elf, (int)i, &ph) ||
		    ph.p_type != PT_NOTE)
			continue;
		data = elf_getdata_rawchunk(h->elf, (int64_t)ph.p_offset,
					    ph.p_filesz, ph.p_align == 8 ?
					    ELF_T_NHDR8 : ELF_T_NHDR);
		if (data && data->d_buf)
			note_build_id(h, data);
		if (h->build_id_full)
			return;
	}
}

/* Check that h->elf is an ELF executable or shared object we can read. */
bool eh_check(struct ehandle *h)
{
	GElf_Ehdr eh;

	if (!h->elf || elf_kind(h->elf) != ELF_K_ELF ||
	    !gelf_getehdr(h->elf, &eh))
		return false;
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)
		return false;
	read_build_id(h);
	return true;
}

/*
 * Open path as an ELF file. Returns 0, -ENOENT when there is no such
 * file, -ETIMEDOUT when its file system does not answer (fsprobe.h), or
 * -EINVAL when it is not a regular ELF file we can read. O_NONBLOCK keeps
 * a FIFO planted at the path from blocking us.
 */
int eh_open(struct ehandle *h, const char *path)
{
	struct stat st;

	memset(h, 0, sizeof(*h));
	h->fd = -1;
	if (!fsprobe_answers(path))
		return -ETIMEDOUT;
	h->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (h->fd < 0)
		return errno == ENOENT || errno == ENOTDIR ? -ENOENT : -EINVAL;
	if (fstat(h->fd, &st) || !S_ISREG(st.st_mode)) {
		eh_close(h);
		return -EINVAL;
	}
	h->dev = st.st_dev;
	h->ino = st.st_ino;
	h->path = xstrdup(path);
	/* ELF_C_READ, not _MMAP: a file truncated under us must not SIGBUS. */
	h->elf = elf_begin(h->fd, ELF_C_READ, NULL);
	if (!eh_check(h)) {
		eh_close(h);
		return -EINVAL;
	}
	return 0;
}

bool bid_matches(const unsigned char *want, size_t want_len,
		 const struct ehandle *h)
{
	if (!want_len || !h->build_id_full)
		return false;
	if (want_len == h->build_id_full)
		return want_len <= ELFSYM_BUILD_ID_MAX &&
		       !memcmp(want, h->build_id, want_len);
	/* The module stores at most FLAMESTAT_BUILD_ID_SIZE bytes. */
	return want_len == FLAMESTAT_BUILD_ID_SIZE &&
	       h->build_id_full > want_len &&
	       !memcmp(want, h->build_id, want_len);
}

bool has_symtab(Elf *elf)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB &&
		    sh.sh_size)
			return true;
	}
	return false;
}
