// SPDX-License-Identifier: GPL-2.0
/*
 * Building a mapped file's unwind table (ehtab.h) in process context.
 *
 * Only bytes already in the page cache are read (fst_file_read_cached()),
 * as for build-ids: a file on a FUSE or NFS server that stopped answering
 * must never stall the worker, and with it readers and rmmod. .eh_frame is
 * read only when something unwinds, so its pages are often not cached:
 * then readahead is started, on filesystems with a block device only
 * (their readahead queues I/O and returns; a FUSE server without async
 * reads answers readahead synchronously), and the caller tries again
 * later.
 */
#include <linux/elf.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "arch.h"
#include "compat.h"
#include "ehtab.h"
#include "procdb.h"

#define FST_EHTAB_PHDRS		64
/* .eh_frame_hdr: 8 bytes an FDE; .eh_frame: what the largest programs have. */
#define FST_EHTAB_HDR_MAX	(8U << 20)
#define FST_EHTAB_FRAME_MAX	(128U << 20)
/* Distinct rules (a few hundred in the largest libraries measured). */
#define FST_EHTAB_RULES_MAX	4096

static struct timespec64 fst_inode_ctime(const struct inode *inode)
{
#ifdef FST_HAVE_INODE_GET_CTIME
	return inode_get_ctime(inode);
#else
	return inode->i_ctime;
#endif
}

/**
 * fst_ehtab_current() - was a table built from the file as it is now?
 * @et: the table
 * @file: the file
 *
 * A file rewritten in place keeps its inode but changes its change time
 * (and mostly its size): its old table is not used for it.
 *
 * Context: any.
 * Return: true if @file's size and change time are those @et was built from.
 */
bool fst_ehtab_current(const struct fst_ehtab *et, struct file *file)
{
	struct inode *inode = file_inode(file);
	struct timespec64 ct = fst_inode_ctime(inode);

	return et->size == (u64)i_size_read(inode) &&
	       et->ctime_sec == ct.tv_sec && et->ctime_nsec == ct.tv_nsec;
}

/* Starts reading [pos, pos + len) of @file into its page cache, if safe. */
static void fst_ehtab_readahead(struct file *file, loff_t pos, size_t len)
{
	struct address_space *mapping = file->f_mapping;
	struct file_ra_state ra;
	pgoff_t first = pos >> PAGE_SHIFT;
	pgoff_t last = (pos + len - 1) >> PAGE_SHIFT;

	if (!len || !file_inode(file)->i_sb->s_bdev)
		return;
	memset(&ra, 0, sizeof(ra));
	file_ra_state_init(&ra, mapping);
	page_cache_sync_readahead(mapping, &ra, file, first, last - first + 1);
}

/* @len bytes at @pos of @file from its page cache; readahead if missing. */
static int fst_ehtab_read(struct file *file, void *buf, size_t len,
			  loff_t pos)
{
	int err = fst_file_read_cached(file, buf, len, pos);

	if (err == -EAGAIN)
		fst_ehtab_readahead(file, pos, len);
	return err;
}

/*
 * Where a table's bytes come from: a mapped file's page cache, or an image
 * already in memory (the vDSO's, copied).
 */
struct fst_ehtab_in {
	struct file *file;
	const u8 *image;
	size_t image_len;
};

/* @len bytes at @pos of @in; -EAGAIN: not cached yet (readahead started). */
static int fst_ehtab_in_read(const struct fst_ehtab_in *in, void *buf,
			     size_t len, loff_t pos)
{
	if (in->file)
		return fst_ehtab_read(in->file, buf, len, pos);
	if (pos < 0 || pos > in->image_len || len > in->image_len - pos)
		return -EINVAL;
	memcpy(buf, in->image + pos, len);
	return 0;
}

/* As fst_ehtab_in_read(), with no readahead: for the headers alone. */
static int fst_ehtab_in_peek(const struct fst_ehtab_in *in, void *buf,
			     size_t len, loff_t pos)
{
	if (in->file)
		return fst_file_read_cached(in->file, buf, len, pos);
	return fst_ehtab_in_read(in, buf, len, pos);
}

struct fst_ehtab_elf {
	u64 hdr_off, hdr_len, hdr_vaddr;
	u64 frame_off, frame_len, frame_vaddr;
	u32 nr_segs;
	u64 seg_off[FST_EHTAB_SEGS], seg_end[FST_EHTAB_SEGS];
	s64 seg_delta[FST_EHTAB_SEGS];
	Elf64_Phdr load[FST_EHTAB_PHDRS];
	u32 nr_load;
};

/* The program headers of a 64-bit ELF file for this architecture. */
static int fst_ehtab_phdrs(const struct fst_ehtab_in *in,
			   struct fst_ehtab_elf *e)
{
	Elf64_Ehdr eh;
	Elf64_Phdr *ph;
	bool found = false;
	int err;
	u32 i;

	if (in->file && !S_ISREG(file_inode(in->file)->i_mode))
		return -ENOEXEC;
	err = fst_ehtab_in_peek(in, &eh, sizeof(eh), 0);
	if (err)
		return err == -EAGAIN ? err : -ENOEXEC;
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh.e_machine != FST_ARCH_EH_MACHINE ||
	    eh.e_phentsize != sizeof(*ph) || !eh.e_phnum ||
	    eh.e_phnum > FST_EHTAB_PHDRS)
		return -ENOEXEC;
	ph = kmalloc_array(eh.e_phnum, sizeof(*ph), GFP_KERNEL);
	if (!ph)
		return -ENOMEM;
	err = fst_ehtab_in_peek(in, ph, eh.e_phnum * sizeof(*ph), eh.e_phoff);
	if (err) {
		kfree(ph);
		return err == -EAGAIN ? err : -ENOEXEC;
	}
	for (i = 0; i < eh.e_phnum; i++) {
		if (ph[i].p_type == PT_GNU_EH_FRAME) {
			e->hdr_off = ph[i].p_offset;
			e->hdr_len = ph[i].p_filesz;
			e->hdr_vaddr = ph[i].p_vaddr;
			found = true;
		}
		if (ph[i].p_type != PT_LOAD)
			continue;
		e->load[e->nr_load++] = ph[i];
		if ((ph[i].p_flags & PF_X) && e->nr_segs < FST_EHTAB_SEGS) {
			e->seg_off[e->nr_segs] = ph[i].p_offset;
			e->seg_end[e->nr_segs] = ph[i].p_offset + ph[i].p_filesz;
			e->seg_delta[e->nr_segs] = ph[i].p_vaddr - ph[i].p_offset;
			e->nr_segs++;
		}
	}
	kfree(ph);
	if (!found || !e->hdr_len || !e->nr_segs)
		return -ENOEXEC;
	return e->hdr_len > FST_EHTAB_HDR_MAX ? -E2BIG : 0;
}

/* Where .eh_frame lies in the file: in the PT_LOAD that holds its address. */
static int fst_ehtab_frame(struct fst_ehtab_elf *e, u64 frame_vaddr)
{
	u32 i;

	for (i = 0; i < e->nr_load; i++) {
		const Elf64_Phdr *p = &e->load[i];

		if (frame_vaddr < p->p_vaddr ||
		    frame_vaddr - p->p_vaddr >= p->p_filesz)
			continue;
		e->frame_vaddr = frame_vaddr;
		e->frame_off = p->p_offset + (frame_vaddr - p->p_vaddr);
		/* Up to the segment's end: FDE lengths say where it stops. */
		e->frame_len = min_t(u64, p->p_filesz -
					  (frame_vaddr - p->p_vaddr),
				     FST_EHTAB_FRAME_MAX);
		return 0;
	}
	return -EINVAL;
}

/*
 * The table's single allocation: header, start[], lookup[] (@blocks + 1),
 * rule[], rules[].
 */
static size_t fst_ehtab_size(u32 rows, u32 blocks, u32 rules)
{
	size_t sz = sizeof(struct fst_ehtab);

	sz += (size_t)rows * sizeof(u32) + ((size_t)blocks + 1) * sizeof(u32);
	sz += ALIGN((size_t)rows * sizeof(u16), 8);
	return sz + (size_t)rules * sizeof(struct fst_eh_rule);
}

/* fst_ehtab_build() from @in. */
static int fst_ehtab_build_in(const struct fst_ehtab_in *in,
			      struct fst_ehtab_budget *budget,
			      struct fst_ehtab **out, int *eh_err)
{
	struct fst_eh_out o = { .rules_max = FST_EHTAB_RULES_MAX };
	struct fst_eh_src src = { .arch = &FST_ARCH_EH_CFI };
	struct fst_ehtab_elf *e;
	struct fst_eh_table t;
	struct fst_eh_stats *st = NULL;
	struct fst_ehtab *et = NULL;
	u8 *hdr = NULL, *frame = NULL;
	u64 frame_vaddr;
	u32 fdes, rows, blocks, i;
	size_t bytes, reserved = 0;
	int err;

	*eh_err = FST_EH_OK;
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	err = fst_ehtab_phdrs(in, e);
	if (err)
		goto out;
	err = -ENOMEM;
	hdr = kvmalloc(e->hdr_len, GFP_KERNEL);
	if (!hdr)
		goto out;
	err = fst_ehtab_in_read(in, hdr, e->hdr_len, e->hdr_off);
	if (err)
		goto out;
	*eh_err = fst_eh_hdr(hdr, e->hdr_len, e->hdr_vaddr, src.arch,
			     &frame_vaddr, &fdes);
	err = -EINVAL;
	if (*eh_err || fst_ehtab_frame(e, frame_vaddr))
		goto out;
	err = -ENOMEM;
	frame = kvmalloc(e->frame_len, GFP_KERNEL);
	if (!frame)
		goto out;
	err = fst_ehtab_in_read(in, frame, e->frame_len, e->frame_off);
	if (err)
		goto out;

	src.hdr = hdr;
	src.hdr_len = e->hdr_len;
	src.hdr_vaddr = e->hdr_vaddr;
	src.frame = frame;
	src.frame_len = e->frame_len;
	src.frame_vaddr = e->frame_vaddr;
	/* Each instruction is a byte at least; the CIE's run for each FDE. */
	o.work_max = 2 * e->frame_len + 64ULL * fdes + 4096;
	o.rows_max = fst_eh_rows_bound(e->frame_len, fdes);
	err = -ENOMEM;
	st = kmalloc(sizeof(*st), GFP_KERNEL);
	o.rules = kmalloc_array(o.rules_max, sizeof(*o.rules), GFP_KERNEL);
	o.hash = kmalloc_array(2 * o.rules_max, sizeof(*o.hash), GFP_KERNEL);
	if (!st || !o.rules || !o.hash)
		goto out;
	/* Count the rows, then build into an allocation of that size. */
	*eh_err = fst_eh_build(&src, &o, &t, st);
	err = *eh_err == FST_EH_E_ROWS || *eh_err == FST_EH_E_RULES ||
	      *eh_err == FST_EH_E_WORK ? -E2BIG : -EINVAL;
	if (*eh_err)
		goto out;
	rows = t.nr_rows;
	/* The second pass's last row starts there at most. */
	blocks = fst_eh_blocks(&t);
	bytes = fst_ehtab_size(rows, blocks, t.nr_rules);
	err = -ENOSPC;
	if (!budget->reserve(budget, bytes))
		goto out;
	reserved = bytes;
	err = -ENOMEM;
	et = kvzalloc(bytes, GFP_KERNEL);
	if (!et)
		goto out;
	o.start = (u32 *)(et + 1);
	o.rule = (u16 *)(o.start + rows + blocks + 1);
	o.rows_max = rows;
	cond_resched();
	*eh_err = fst_eh_build(&src, &o, &t, st);
	err = -EINVAL;
	if (*eh_err || t.nr_rules > o.rules_max || t.nr_rows > rows ||
	    fst_eh_blocks(&t) > blocks)
		goto out;
	fst_eh_index(&t, o.start + rows);
	et->t = t;
	et->t.rules = (struct fst_eh_rule *)((u8 *)et + bytes) - t.nr_rules;
	memcpy(et->t.rules, o.rules, t.nr_rules * sizeof(*o.rules));
	et->nr_segs = e->nr_segs;
	for (i = 0; i < e->nr_segs; i++) {
		et->seg[i].off = e->seg_off[i];
		et->seg[i].end = e->seg_end[i];
		et->seg[i].delta = e->seg_delta[i];
	}
	et->bytes = bytes;
	*out = et;
	et = NULL;
	err = 0;
out:
	if (err && reserved)
		budget->release(budget, reserved);
	kvfree(et);
	kfree(o.hash);
	kfree(o.rules);
	kfree(st);
	kvfree(frame);
	kvfree(hdr);
	kfree(e);
	return err;
}

/**
 * fst_ehtab_build() - build the unwind table of a mapped file
 * @file: the file
 * @budget: asked for the table's bytes before they are allocated
 * @out: set to the table
 * @eh_err: set to the builder's enum fst_eh_error when it refused the file
 *
 * Context: process context, may sleep; reads only the page cache.
 * Return: 0; -EAGAIN when pages it needs are not cached (readahead was
 * started where that is safe: try again later); -ENOEXEC for a file with
 * no .eh_frame_hdr or not for this architecture; -EINVAL when the
 * builder refused it (@eh_err says why); -E2BIG past the limits;
 * -ENOSPC when @budget said no; -ENOMEM. A table built is reserved in
 * @budget; nothing else is.
 */
int fst_ehtab_build(struct file *file, struct fst_ehtab_budget *budget,
		    struct fst_ehtab **out, int *eh_err)
{
	struct inode *inode = file_inode(file);
	struct timespec64 ct = fst_inode_ctime(inode);
	struct fst_ehtab_in in = { .file = file };
	int err;

	err = fst_ehtab_build_in(&in, budget, out, eh_err);
	if (!err) {
		(*out)->size = i_size_read(inode);
		(*out)->ctime_sec = ct.tv_sec;
		(*out)->ctime_nsec = ct.tv_nsec;
	}
	return err;
}

/*
 * The vDSO is a few pages: a bound on what is copied of an image that
 * says it is larger.
 */
#define FST_EHTAB_VDSO_MAX	(64U << 10)

#ifdef FST_ARCH_HAVE_VDSO_LEAF
/* Functions of a vDSO without CFI that the table may cover. */
#define FST_VDSO_FUNCS		32

/* A section of the ELF image @image (@len bytes) by name or type, or NULL. */
static const Elf64_Shdr *fst_vdso_section(const u8 *image, size_t len,
					  const char *name, u32 type)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)image;
	const Elf64_Shdr *sh, *strs;
	size_t nlen = name ? strlen(name) : 0;
	u16 i;

	if (eh->e_shentsize != sizeof(*sh) || !eh->e_shnum ||
	    eh->e_shoff > len ||
	    (u64)eh->e_shnum * sizeof(*sh) > len - eh->e_shoff ||
	    eh->e_shstrndx >= eh->e_shnum)
		return NULL;
	sh = (const Elf64_Shdr *)(image + eh->e_shoff);
	strs = &sh[eh->e_shstrndx];
	if (strs->sh_offset > len || strs->sh_size > len - strs->sh_offset)
		return NULL;
	for (i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_offset > len ||
		    sh[i].sh_size > len - sh[i].sh_offset)
			continue;
		if (!name && sh[i].sh_type == type)
			return &sh[i];
		if (name && sh[i].sh_name < strs->sh_size &&
		    strs->sh_size - sh[i].sh_name > nlen &&
		    !memcmp(image + strs->sh_offset + sh[i].sh_name, name,
			    nlen + 1))
			return &sh[i];
	}
	return NULL;
}

/*
 * The exported functions of a vDSO image without CFI that the
 * architecture proves frameless leaves (fst_arch_vdso_leaf()), as sorted,
 * disjoint ranges of image offsets in @r[]. Return: how many.
 */
static u32 fst_vdso_leaves(const u8 *image, size_t len,
			   u32 r[FST_VDSO_FUNCS][2])
{
	const Elf64_Shdr *text = fst_vdso_section(image, len, ".text", 0);
	const Elf64_Shdr *dyn = fst_vdso_section(image, len, NULL,
						 SHT_DYNSYM);
	const Elf64_Sym *sym;
	u32 n = 0, i, j, lo, hi;
	u64 nsyms, k;

	if (!text || !dyn || !(text->sh_flags & SHF_EXECINSTR) ||
	    text->sh_offset + text->sh_size > U32_MAX)
		return 0;
	sym = (const Elf64_Sym *)(image + dyn->sh_offset);
	nsyms = min_t(u64, dyn->sh_size / sizeof(*sym), 256);
	for (k = 0; k < nsyms && n < FST_VDSO_FUNCS; k++) {
		if (ELF64_ST_TYPE(sym[k].st_info) != STT_FUNC ||
		    !sym[k].st_size || sym[k].st_value < text->sh_addr ||
		    sym[k].st_value - text->sh_addr > text->sh_size ||
		    sym[k].st_size > text->sh_size -
				     (sym[k].st_value - text->sh_addr))
			continue;
		lo = text->sh_offset + (sym[k].st_value - text->sh_addr);
		hi = lo + sym[k].st_size;
		if (!fst_arch_vdso_leaf(image + lo, hi - lo))
			continue;
		/* Sorted insertion; an alias or an overlap is left out. */
		for (i = 0; i < n && r[i][0] < lo; i++)
			;
		if ((i < n && r[i][0] < hi) || (i && r[i - 1][1] > lo))
			continue;
		for (j = n; j > i; j--) {
			r[j][0] = r[j - 1][0];
			r[j][1] = r[j - 1][1];
		}
		r[i][0] = lo;
		r[i][1] = hi;
		n++;
	}
	return n;
}
#endif

/*
 * A vDSO without CFI: its exported functions that the architecture proves
 * frameless leaves (fst_vdso_leaves()) get one rule, CFA = SP, the return
 * address in its register, the frame pointer unchanged; the rest of its
 * code none (walked by frame pointer). Return: 0, -ENOEXEC (no function
 * proven), -ENOSPC, -ENOMEM.
 */
static int fst_ehtab_vdso_leaf(const u8 *image, size_t len,
			       struct fst_ehtab_budget *budget,
			       struct fst_ehtab **out)
{
#ifdef FST_ARCH_HAVE_VDSO_LEAF
	const struct fst_eh_rule leaf = {
		.kind = FST_EH_CFA, .reg = FST_ARCH_EH_CFI.sp,
		.ra_off = 0, .fp_off = FST_EH_FP_SAME,
	};
	const struct fst_eh_rule none = { .kind = FST_EH_NONE };
	u32 r[FST_VDSO_FUNCS][2];
	struct fst_ehtab *et;
	struct fst_eh_table t = { };
	u32 nr, rows = 0, blocks, i, *start;
	size_t bytes;

	nr = fst_vdso_leaves(image, len, r);
	if (!nr)
		return -ENOEXEC;
	/* A row at each start, and one at each end no next function starts at. */
	for (i = 0; i < nr; i++)
		rows += i + 1 < nr && r[i + 1][0] == r[i][1] ? 1 : 2;
	t.nr_rows = rows;
	t.nr_rules = 2;
	t.span = r[nr - 1][1];
	blocks = fst_eh_blocks(&t);
	bytes = fst_ehtab_size(rows, blocks, 2);
	if (!budget->reserve(budget, bytes))
		return -ENOSPC;
	et = kvzalloc(bytes, GFP_KERNEL);
	if (!et) {
		budget->release(budget, bytes);
		return -ENOMEM;
	}
	start = (u32 *)(et + 1);
	t.start = start;
	t.rule = (u16 *)(start + rows + blocks + 1);
	for (rows = 0, i = 0; i < nr; i++) {
		start[rows] = r[i][0];
		t.rule[rows++] = 0;
		if (i + 1 < nr && r[i + 1][0] == r[i][1])
			continue;
		start[rows] = r[i][1];
		t.rule[rows++] = 1;
	}
	t.rules = (struct fst_eh_rule *)((u8 *)et + bytes) - 2;
	t.rules[0] = leaf;
	t.rules[1] = none;
	fst_eh_index(&t, start + rows);
	et->t = t;
	/* The mapping is the image: its offsets are the table's. */
	et->nr_segs = 1;
	et->seg[0].off = r[0][0];
	et->seg[0].end = t.span;
	et->bytes = bytes;
	*out = et;
	return 0;
#else
	return -ENOEXEC;
#endif
}

/**
 * fst_ehtab_build_vdso() - build the unwind table of the current task's vDSO
 * @budget: asked for the table's bytes before they are allocated
 * @out: set to the table
 * @eh_err: as for fst_ehtab_build()
 *
 * The vDSO is the same code in every 64-bit process of this kernel, and
 * no file: its image is copied from the current task's mapping of it
 * (mm->context.vdso, on x86 and arm64), up to the end of its last
 * segment. A 32-bit task's vDSO is of another ELF class, refused.
 *
 * Context: process context of a user task, may sleep (faults its vDSO's
 * pages in, which are never on a filesystem).
 * Return: as fst_ehtab_build(); -ENOENT without a vDSO.
 */
int fst_ehtab_build_vdso(struct fst_ehtab_budget *budget,
			 struct fst_ehtab **out, int *eh_err)
{
	struct fst_ehtab_in in = { };
	const void __user *base;
	bool has_cfi = false;
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	u64 len = 0;
	u8 *image;
	int err;
	u16 i;

	*eh_err = FST_EH_OK;
	if (!current->mm || (current->flags & PF_KTHREAD))
		return -ENOENT;
	base = (const void __user *)current->mm->context.vdso;
	if (!base)
		return -ENOENT;
	if (copy_from_user(&eh, base, sizeof(eh)))
		return -ENOENT;
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_machine != FST_ARCH_EH_MACHINE ||
	    eh.e_phentsize != sizeof(ph) || eh.e_phnum > FST_EHTAB_PHDRS ||
	    eh.e_phoff > FST_EHTAB_VDSO_MAX)
		return -ENOEXEC;
	for (i = 0; i < eh.e_phnum; i++) {
		if (copy_from_user(&ph, base + eh.e_phoff + i * sizeof(ph),
				   sizeof(ph)))
			return -ENOEXEC;
		if (ph.p_type == PT_LOAD || ph.p_type == PT_GNU_EH_FRAME)
			len = max(len, ph.p_offset + ph.p_filesz);
		has_cfi |= ph.p_type == PT_GNU_EH_FRAME;
	}
	/* The section headers too, if it has no CFI: where .text is. */
	if (!has_cfi && eh.e_shentsize == sizeof(Elf64_Shdr) &&
	    eh.e_shoff <= FST_EHTAB_VDSO_MAX && eh.e_shnum <= 64)
		len = max(len, eh.e_shoff + (u64)eh.e_shnum * sizeof(Elf64_Shdr));
	if (!len || len > FST_EHTAB_VDSO_MAX)
		return -ENOEXEC;
	image = kvmalloc(len, GFP_KERNEL);
	if (!image)
		return -ENOMEM;
	err = -ENOEXEC;
	if (copy_from_user(image, base, len))
		goto out;
	if (has_cfi) {
		in.image = image;
		in.image_len = len;
		err = fst_ehtab_build_in(&in, budget, out, eh_err);
	} else {
		err = fst_ehtab_vdso_leaf(image, len, budget, out);
	}
out:
	kvfree(image);
	return err;
}

/**
 * fst_ehtab_free() - free a table
 * @et: the table, or NULL
 *
 * Context: process context, once no sampler can be reading it (after an
 * RCU grace period since it was unpublished).
 */
void fst_ehtab_free(struct fst_ehtab *et)
{
	kvfree(et);
}
