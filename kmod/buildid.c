// SPDX-License-Identifier: GPL-2.0
/*
 * Read the GNU build-id note of a mapped ELF file (process context), so the
 * tool can find the right symbols later even if the file is replaced. The
 * kernel's build_id_parse() is not exported, and it reads the page cache
 * through a VMA; this reads the file's page cache directly, which needs no
 * mmap_lock.
 *
 * Only pages already in the page cache and up to date are read: never any
 * I/O. A file on FUSE or NFS whose server stopped answering, or on a
 * failing disk, would otherwise block the scan worker, and with it every
 * reader and rmmod, for as long as the server stays away. The pages that
 * hold the ELF header, the program headers and the notes are nearly always
 * cached: exec and ld.so read them, and the process runs from the same
 * file. When they are not, the file gets no build-id (-EAGAIN), counted in
 * the stats; it keeps its path and offsets.
 */
#include <linux/elf.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
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

/**
 * fst_file_read_cached() - copy bytes of a file from its page cache
 * @file: the file
 * @buf: where they go
 * @len: how many
 * @pos: from where in the file
 *
 * pagecache_get_page() without FGP flags only looks the page up, on every
 * kernel from 5.10 to 7.x. 64-bit kernels have no highmem: every page-cache
 * page is in the direct map.
 *
 * Context: process context; never waits for I/O.
 * Return: 0; -EAGAIN when a page is not cached or not up to date (nothing
 * is read from the device); -EIO past the end of the file.
 */
int fst_file_read_cached(struct file *file, void *buf, size_t len, loff_t pos)
{
	struct address_space *mapping = file->f_mapping;
	u8 *dst = buf;

	BUILD_BUG_ON(IS_ENABLED(CONFIG_HIGHMEM));
	if (pos < 0 || pos + len > i_size_read(file_inode(file)))
		return -EIO;
	while (len) {
		size_t off = offset_in_page(pos);
		size_t n = min_t(size_t, len, PAGE_SIZE - off);
		struct page *page;

		page = pagecache_get_page(mapping, pos >> PAGE_SHIFT, 0, 0);
		if (!page)
			return -EAGAIN;
		if (!PageUptodate(page)) {
			put_page(page);
			return -EAGAIN;
		}
		memcpy(dst, (u8 *)page_address(page) + off, n);
		put_page(page);
		dst += n;
		pos += n;
		len -= n;
	}
	return 0;
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
 * Reads regular files only, and only what their page cache holds.
 *
 * Context: process context; allocates, never waits for I/O.
 * Return: 0 with the build-id in @id; -EAGAIN when a page it needs is not
 * in the page cache; -ENOENT without a build-id note; another -errno when
 * the file is no ELF file we read.
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
	if (!S_ISREG(file_inode(file)->i_mode))
		return -ENOEXEC;
	err = fst_file_read_cached(file, &eh, sizeof(eh.e32), 0);
	if (err)
		return err == -EAGAIN ? err : -ENOEXEC;
	if (memcmp(eh.e32.e_ident, ELFMAG, SELFMAG) ||
	    eh.e32.e_ident[EI_DATA] != ELFDATA2LSB)
		return -ENOEXEC;
	is64 = eh.e32.e_ident[EI_CLASS] == ELFCLASS64;
	if (!is64 && eh.e32.e_ident[EI_CLASS] != ELFCLASS32)
		return -ENOEXEC;
	err = is64 ? fst_file_read_cached(file, &eh, sizeof(eh.e64), 0) : 0;
	if (err)
		return err == -EAGAIN ? err : -ENOEXEC;

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
		      fst_file_read_cached(file, p, phnum * sizeof(*p),
					   eh.e64.e_phoff);
		for (i = 0; !err && i < phnum; i++)
			ph[i] = (struct fst_phdr){ p[i].p_type, p[i].p_offset,
						  p[i].p_filesz, p[i].p_align };
	} else {
		Elf32_Phdr *p = buf;

		err = eh.e32.e_phentsize != sizeof(*p) ? -ENOEXEC :
		      fst_file_read_cached(file, p, phnum * sizeof(*p),
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
		int rc;

		if (ph[i].type != PT_NOTE || len < 12)
			continue;
		rc = fst_file_read_cached(file, buf, len, ph[i].offset);
		if (rc == -EAGAIN)
			err = rc;	/* unless a cached note has it */
		if (rc)
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
