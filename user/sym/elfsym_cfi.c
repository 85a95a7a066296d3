// SPDX-License-Identifier: GPL-2.0
/*
 * Whether a frame-pointer walk finds the caller of the code at an address:
 * the object's own call frame information (.eh_frame, through libdw) says
 * how the canonical frame address (CFA) is computed there. From the frame
 * pointer (%rbp): the function has set up its frame record, and the walk
 * goes from there to its caller. From the stack pointer (or any other
 * register): no frame record of its own yet or at all (code built without
 * frame pointers, or the first and last instructions of a function), so
 * the frame pointer still holds the caller's, and the walk's next frame is
 * the caller's caller. AArch64 needs more than the CFA: elfsym_cfi_a64.c.
 * AArch32 (EM_ARM) has no rule: its unwind tables are .ARM.exidx, not
 * .eh_frame, and its frame pointer depends on the instruction set (r11 in
 * the APCS frames the module walks, r7 in Thumb code, which Debian's armhf
 * is).
 */
#include "sym/elfsym.h"

#include "lib/util.h"
#include "sym/elfsym_int.h"
#include "sym/fsprobe.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* DWARF register numbers of the frame pointer. */
#define X86_64_RBP	6
#define I386_EBP	5
#define A64_X29		29
#define A64_SP		31

/*
 * Code read for the AArch64 rule, in pages of the file (direct-mapped,
 * each allocated on first use): the leaves of a profile fall on few pages
 * of each object.
 */
#define CODE_PAGE	4096U
#define CODE_PAGES	64U

struct code_cache {
	uint64_t off[CODE_PAGES];	/* file offset of the page held */
	bool valid[CODE_PAGES];
	unsigned char *page[CODE_PAGES];
};

void cfi_source(struct elfsym_file *f, const struct ehandle *h)
{
	free(f->cfi_path);
	f->cfi_path = xstrdup(h->path);
	f->cfi_dev = h->dev;
	f->cfi_ino = h->ino;
}

void cfi_free(struct elfsym_file *f)
{
	code_free(f);
	if (f->cfi)
		dwarf_cfi_end(f->cfi);
	if (f->cfi_elf)
		elf_end(f->cfi_elf);
	free(f->cfi_image);
	free(f->cfi_path);
	f->cfi = NULL;
	f->cfi_elf = NULL;
	f->cfi_image = NULL;
	f->cfi_image_size = 0;
	f->cfi_path = NULL;
}

void code_free(struct elfsym_file *f)
{
	if (f->code)
		for (size_t i = 0; i < CODE_PAGES; i++)
			free(f->code->page[i]);
	free(f->code);
	f->code = NULL;
}

/* The file offset of @vaddr (by the segments), if @len bytes are there. */
static bool code_offset(const struct elfsym_file *f, uint64_t vaddr,
			size_t len, uint64_t *off)
{
	for (size_t i = 0; i < f->nr_segs; i++) {
		const struct seg *s = &f->segs[i];

		if (vaddr >= s->vaddr && vaddr - s->vaddr < s->end - s->off &&
		    len <= s->end - s->off - (vaddr - s->vaddr)) {
			*off = vaddr - s->vaddr + s->off;
			return true;
		}
	}
	return false;
}

/* The page of the file at @off (a multiple of CODE_PAGE), cached. */
static const unsigned char *code_page(struct elfsym_file *f, uint64_t off)
{
	struct code_cache *c = f->code;
	size_t slot = (size_t)(off / CODE_PAGE) % CODE_PAGES;
	unsigned char *page;
	ssize_t got = -1;
	struct stat st;
	int fd;

	if (!c)
		c = f->code = xcalloc(1, sizeof(*c));
	if (!c->page[slot])
		c->page[slot] = xmalloc(CODE_PAGE);
	page = c->page[slot];
	if (c->valid[slot] && c->off[slot] == off)
		return page;
	c->valid[slot] = false;
	memset(page, 0, CODE_PAGE);
	if (f->cfi_image) {
		if (off >= f->cfi_image_size)
			return NULL;
		got = (ssize_t)(f->cfi_image_size - off < CODE_PAGE ?
				f->cfi_image_size - off : CODE_PAGE);
		memcpy(page, (char *)f->cfi_image + off, (size_t)got);
	} else if (f->cfi_path && fsprobe_answers(f->cfi_path)) {
		/*
		 * The file the frame rules came from, or nothing; as
		 * eh_open() opens it, without parsing it again.
		 */
		fd = open(f->cfi_path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (fd >= 0) {
			if (!fstat(fd, &st) && S_ISREG(st.st_mode) &&
			    st.st_dev == f->cfi_dev && st.st_ino == f->cfi_ino)
				got = pread(fd, page, CODE_PAGE, (off_t)off);
			close(fd);
		}
	}
	if (got <= 0)
		return NULL;
	c->off[slot] = off;
	c->valid[slot] = true;
	return page;
}

bool cfi_code(struct elfsym_file *f, uint64_t vaddr, void *buf, size_t len)
{
	unsigned char *out = buf;
	uint64_t off;

	if (!code_offset(f, vaddr, len, &off))
		return false;
	while (len) {
		uint64_t base = off - off % CODE_PAGE;
		size_t in = CODE_PAGE - (size_t)(off - base);
		const unsigned char *p = code_page(f, base);

		if (!p)
			return false;
		if (in > len)
			in = len;
		memcpy(out, p + (off - base), in);
		out += in;
		off += in;
		len -= in;
	}
	return true;
}

/*
 * Whether libdw may look for the CFI in @elf (@size bytes) by itself: it
 * finds .eh_frame by the names of the sections, or, when no section is
 * named so, through PT_GNU_EH_FRAME. libelf 0.188 leaks in a damaged file
 * on the way (a compressed string table, the segment's way in a file that
 * has sections), so it gets a file only when the string table is plain and
 * in the file, and a .eh_frame section is there by name; or when there are
 * no sections at all (stripped of their headers), the segment's way.
 */
static bool cfi_findable(Elf *elf, uint64_t size)
{
	const char *names;
	GElf_Shdr sh;
	Elf_Data *data;
	size_t ndx, shnum;
	Elf_Scn *scn;

	if (elf_getshdrstrndx(elf, &ndx) || elf_getshdrnum(elf, &shnum))
		return false;
	if (!shnum)
		return true;
	scn = ndx && ndx < shnum ? elf_getscn(elf, ndx) : NULL;
	if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type != SHT_STRTAB ||
	    (sh.sh_flags & SHF_COMPRESSED) || sh.sh_offset > size ||
	    sh.sh_size > size - sh.sh_offset)
		return false;
	data = elf_getdata(scn, NULL);
	if (!data || !data->d_buf || data->d_size != sh.sh_size ||
	    !data->d_size || ((const char *)data->d_buf)[data->d_size - 1])
		return false;
	names = data->d_buf;
	for (scn = NULL; (scn = elf_nextscn(elf, scn));)
		if (gelf_getshdr(scn, &sh) && sh.sh_name < data->d_size &&
		    !strcmp(names + sh.sh_name, ".eh_frame") &&
		    sh.sh_type != SHT_NOBITS && sh.sh_offset <= size &&
		    sh.sh_size <= size - sh.sh_offset)
			return true;
	return false;
}

/*
 * The CFI of f->cfi_elf (@size bytes), and the registers that matter for
 * its machine.
 */
static void cfi_init(struct elfsym_file *f, uint64_t size)
{
	GElf_Ehdr eh;

	if (!f->cfi_elf || !gelf_getehdr(f->cfi_elf, &eh) ||
	    !cfi_findable(f->cfi_elf, size))
		return;
	if (eh.e_machine == EM_X86_64) {
		f->cfi_fp = X86_64_RBP;
	} else if (eh.e_machine == EM_386) {
		f->cfi_fp = I386_EBP;
	} else if (eh.e_machine == EM_AARCH64) {
		f->cfi_fp = A64_X29;
	} else {
		return;		/* EM_ARM among them: see the top */
	}
	f->cfi_machine = eh.e_machine;
	f->cfi = dwarf_getcfi_elf(f->cfi_elf);
}

/*
 * Opens the file the segments came from, if it is still the same one
 * (device and inode), and reads its .eh_frame and .eh_frame_hdr. Those stay
 * in memory; the descriptor is closed, so that a profile of thousands of
 * files does not hold thousands of them open.
 */
static void cfi_load(struct elfsym_file *f)
{
	struct ehandle h = { .fd = -1 };
	struct stat st;

	f->cfi_tried = true;
	if (!f->cfi_path || eh_open(&h, f->cfi_path))
		return;
	/*
	 * An Elf of its own: through the one eh_check() read the notes with,
	 * libelf 0.188 leaked section data of damaged files (symunit's
	 * hostile files, under valgrind).
	 */
	if (h.dev == f->cfi_dev && h.ino == f->cfi_ino &&
	    !fstat(h.fd, &st)) {
		f->cfi_elf = elf_begin(h.fd, ELF_C_READ, NULL);
		cfi_init(f, (uint64_t)st.st_size);
		/* Nothing more is read from the file: libdw keeps what it read. */
		if (f->cfi_elf)
			elf_cntl(f->cfi_elf, ELF_C_FDDONE);
	}
	eh_close(&h);
}

void cfi_image(struct elfsym_file *f, void *copy, size_t size)
{
	f->cfi_tried = true;
	f->cfi_image = copy;
	f->cfi_image_size = size;
	f->cfi_elf = elf_memory(copy, size);
	cfi_init(f, size);
}

/* Of a CFA rule: the register it starts from, -1 when none. */
static int cfa_register(const Dwarf_Op *ops, size_t nops)
{
	if (!nops)
		return -1;
	if (ops[0].atom == DW_OP_bregx)
		return ops[0].number > 1024 ? -1 : (int)ops[0].number;
	if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31)
		return ops[0].atom - DW_OP_breg0;
	return -1;
}

enum elfsym_cfa elfsym_file_cfa(struct elfsym_file *f, uint64_t file_offset)
{
	enum elfsym_cfa ret = ELFSYM_CFA_UNKNOWN;
	Dwarf_Frame *frame = NULL;
	Dwarf_Op *ops;
	size_t nops;
	uint64_t vaddr;
	int reg;

	if (!f->cfi_tried)
		cfi_load(f);
	if (!f->cfi || !elfsym_offset_to_vaddr(f, file_offset, &vaddr))
		return ELFSYM_CFA_UNKNOWN;
	if (dwarf_cfi_addrframe(f->cfi, vaddr, &frame))
		return ELFSYM_CFA_UNKNOWN;
	if (!dwarf_frame_cfa(frame, &ops, &nops)) {
		reg = cfa_register(ops, nops);
		if (f->cfi_machine == EM_AARCH64 &&
		    (reg == A64_X29 || reg == A64_SP))
			ret = a64_frame_record(f, frame, vaddr, reg == A64_X29);
		else if (reg == (int)f->cfi_fp)
			ret = ELFSYM_CFA_FP;
		else if (reg >= 0)
			ret = ELFSYM_CFA_NO_FP;
	}
	free(frame);
	return ret;
}
