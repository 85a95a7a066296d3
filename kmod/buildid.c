// SPDX-License-Identifier: GPL-2.0
/*
 * Read the GNU build-id note of a mapped ELF file (process context), so the
 * tool can find the right symbols later even if the file is replaced. The
 * kernel's build_id_parse() is not exported, and it reads the page cache
 * through a VMA; this reads the file, which needs no mmap_lock.
 */
#include <linux/elf.h>
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "procdb.h"

#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID	3
#endif

#define FST_MAX_PHDRS	64
#define FST_MAX_NOTES	4096	/* bytes of PT_NOTE read per segment */

/* The fields we need, from either ELF class. */
struct fst_phdr {
	u32 type;
	u64 offset;
	u64 filesz;
	u64 align;
};

static int fst_read_exact(struct file *file, void *buf, size_t len, loff_t pos)
{
	ssize_t n = kernel_read(file, buf, len, &pos);

	return n == (ssize_t)len ? 0 : -EIO;
}

static bool fst_parse_notes(const u8 *p, size_t len, u64 align, u8 *id,
			    u32 *size)
{
	const u8 *end = p + len;

	align = align == 8 ? 8 : 4;
	while (end - p >= 12) {
		u32 namesz = ((const u32 *)p)[0];
		u32 descsz = ((const u32 *)p)[1];
		u32 type = ((const u32 *)p)[2];
		const u8 *name = p + 12;
		const u8 *desc = name + ALIGN((u64)namesz, align);

		if (namesz > len || descsz > len || desc > end ||
		    descsz > end - desc)
			return false;
		if (type == NT_GNU_BUILD_ID && namesz == 4 &&
		    !memcmp(name, "GNU", 4) && descsz) {
			*size = min_t(u32, descsz, FLAMESTAT_BUILD_ID_SIZE);
			memcpy(id, desc, *size);
			return true;
		}
		if (ALIGN((u64)descsz, align) > (u64)(end - desc))
			return false;
		p = desc + ALIGN((u64)descsz, align);
	}
	return false;
}

/**
 * fst_read_build_id() - read the GNU build-id note of an ELF file
 * @file: the mapped file
 * @id: where the build-id goes, FLAMESTAT_BUILD_ID_SIZE bytes
 * @size: its length
 *
 * Context: process context; reads the file.
 * Return: 0 with the build-id in @id, or -errno.
 */
int fst_read_build_id(struct file *file, u8 *id, u32 *size)
{
	union {
		Elf32_Ehdr e32;
		Elf64_Ehdr e64;
	} eh;
	struct fst_phdr *ph;
	u32 phnum, i;
	bool is64;
	void *buf;
	int err;

	*size = 0;
	if (fst_read_exact(file, &eh, sizeof(eh.e32), 0) ||
	    memcmp(eh.e32.e_ident, ELFMAG, SELFMAG) ||
	    eh.e32.e_ident[EI_DATA] != ELFDATA2LSB)
		return -ENOEXEC;
	is64 = eh.e32.e_ident[EI_CLASS] == ELFCLASS64;
	if (!is64 && eh.e32.e_ident[EI_CLASS] != ELFCLASS32)
		return -ENOEXEC;
	if (is64 && fst_read_exact(file, &eh, sizeof(eh.e64), 0))
		return -ENOEXEC;

	phnum = is64 ? eh.e64.e_phnum : eh.e32.e_phnum;
	if (!phnum || phnum > FST_MAX_PHDRS)
		return -ENOEXEC;
	ph = kmalloc_array(phnum, sizeof(*ph), GFP_KERNEL);
	buf = kmalloc_array(phnum, sizeof(Elf64_Phdr), GFP_KERNEL);
	if (!ph || !buf) {
		kfree(ph);
		kfree(buf);
		return -ENOMEM;
	}
	if (is64) {
		Elf64_Phdr *p = buf;

		err = eh.e64.e_phentsize != sizeof(*p) ? -ENOEXEC :
		      fst_read_exact(file, p, phnum * sizeof(*p),
				     eh.e64.e_phoff);
		for (i = 0; !err && i < phnum; i++)
			ph[i] = (struct fst_phdr){ p[i].p_type, p[i].p_offset,
						  p[i].p_filesz, p[i].p_align };
	} else {
		Elf32_Phdr *p = buf;

		err = eh.e32.e_phentsize != sizeof(*p) ? -ENOEXEC :
		      fst_read_exact(file, p, phnum * sizeof(*p),
				     eh.e32.e_phoff);
		for (i = 0; !err && i < phnum; i++)
			ph[i] = (struct fst_phdr){ p[i].p_type, p[i].p_offset,
						  p[i].p_filesz, p[i].p_align };
	}
	kfree(buf);
	buf = err ? NULL : kmalloc(FST_MAX_NOTES, GFP_KERNEL);
	if (!buf) {
		kfree(ph);
		return err ?: -ENOMEM;
	}
	err = -ENOENT;
	for (i = 0; i < phnum; i++) {
		size_t len = min_t(u64, ph[i].filesz, FST_MAX_NOTES);

		if (ph[i].type != PT_NOTE || len < 12)
			continue;
		if (fst_read_exact(file, buf, len, ph[i].offset))
			continue;
		if (fst_parse_notes(buf, len, ph[i].align, id, size)) {
			err = 0;
			break;
		}
	}
	kfree(buf);
	kfree(ph);
	return err;
}
