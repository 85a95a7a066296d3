// SPDX-License-Identifier: GPL-2.0
/*
 * Names for the PLT stubs, "function@plt" as objdump and perf give them:
 * the linker leaves no symbol on them. Each stub jumps through a slot of
 * the GOT; the dynamic relocation of that slot (JUMP_SLOT in .rela.plt,
 * GLOB_DAT in .rela.dyn for .plt.got's stubs) names the function. The
 * slot is read from the stub's own instructions, not from its place in the
 * section, so that every layout is named alike: x86-64's lazy .plt (PLT0,
 * then 16-byte stubs), its IBT stubs in .plt.sec and its .plt.got; i386's
 * (jumps through %ebx, the GOT's address, in position-independent code);
 * AArch64's .plt (PLT0 of 32 bytes, then stubs of 16 bytes, or 24 with
 * BTI or pointer authentication: "bti c", adrp x16, ldr x17, add, br x17).
 * PLT0 and anything else that jumps through no relocated slot stays
 * nameless.
 */
#include "sym/elfsym.h"

#include "lib/util.h"
#include "sym/elfsym_int.h"

#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#ifndef R_AARCH64_GLOB_DAT
#define R_AARCH64_GLOB_DAT	1025
#define R_AARCH64_JUMP_SLOT	1026
#endif

/* Limits for a hostile file. */
#define MAX_SLOTS	(1U << 20)

/* A relocated GOT slot and the function whose address it receives. */
struct slot {
	uint64_t addr;
	const char *name;	/* in the file's string table */
};

struct plt_ctx {
	Elf *elf;
	unsigned int machine;
	struct slot *slots;
	size_t nr_slots, cap_slots;
	uint64_t got;		/* i386: the GOT's address, %ebx in PIC stubs */
	plt_add_fn *add;
	void *arg;
};

static bool jump_reloc(unsigned int machine, unsigned int type)
{
	if (machine == EM_X86_64)
		return type == R_X86_64_JUMP_SLOT || type == R_X86_64_GLOB_DAT;
	if (machine == EM_386)
		return type == R_386_JMP_SLOT || type == R_386_GLOB_DAT;
	return machine == EM_AARCH64 && (type == R_AARCH64_JUMP_SLOT ||
					 type == R_AARCH64_GLOB_DAT);
}

static void add_slot(struct plt_ctx *c, uint64_t addr, const char *name)
{
	if (c->nr_slots == c->cap_slots) {
		c->cap_slots = c->cap_slots ? c->cap_slots * 2 : 64;
		c->slots = xreallocarray(c->slots, c->cap_slots,
					 sizeof(*c->slots));
	}
	c->slots[c->nr_slots++] = (struct slot){ addr, name };
}

/* The relocations of one SHT_REL or SHT_RELA section. */
static void read_relocs(struct plt_ctx *c, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Scn *symscn = elf_getscn(c->elf, sh->sh_link);
	Elf_Data *data = elf_getdata(scn, NULL), *syms;
	bool rela = sh->sh_type == SHT_RELA;
	size_t entsize = gelf_fsize(c->elf, rela ? ELF_T_RELA : ELF_T_REL, 1,
				    EV_CURRENT);
	GElf_Shdr symsh;

	if (!data || !data->d_buf || !entsize || !symscn ||
	    !gelf_getshdr(symscn, &symsh) || symsh.sh_type != SHT_DYNSYM)
		return;
	syms = elf_getdata(symscn, NULL);
	if (!syms || !syms->d_buf)
		return;
	for (size_t i = 0; i < data->d_size / entsize && i <= INT_MAX &&
	     c->nr_slots < MAX_SLOTS; i++) {
		GElf_Rela r;
		GElf_Rel rl;
		GElf_Sym s;
		const char *name;
		size_t symi;

		if (rela ? !gelf_getrela(data, (int)i, &r) :
		    !gelf_getrel(data, (int)i, &rl))
			break;
		if (!rela)
			r = (GElf_Rela){ .r_offset = rl.r_offset,
					 .r_info = rl.r_info };
		/* libelf gives 32-bit files' r_info in the 64-bit form. */
		symi = GELF_R_SYM(r.r_info);
		if (!jump_reloc(c->machine, GELF_R_TYPE(r.r_info)) ||
		    !symi || symi > INT_MAX ||
		    !gelf_getsym(syms, (int)symi, &s))
			continue;
		name = elf_strptr(c->elf, symsh.sh_link, s.st_name);
		if (name && *name)
			add_slot(c, r.r_offset, name);
	}
}

static int slot_cmp(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return 0;
}

static const char *slot_name(const struct plt_ctx *c, uint64_t addr)
{
	struct slot key = { .addr = addr };
	const struct slot *s = bsearch(&key, c->slots, c->nr_slots,
				       sizeof(*c->slots), slot_cmp);

	return s ? s->name : NULL;
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/*
 * x86: "jmp *slot": ff 25 with a 32-bit displacement from the next
 * instruction (x86-64) or an absolute address (i386), or ff a3 with a
 * displacement from %ebx (i386 PIC). The stub starts before it at its
 * endbr64 (endbr32) and bnd prefix, if any. *start: offset of the stub.
 */
static uint64_t x86_slot(const struct plt_ctx *c, const unsigned char *b,
			 size_t i, uint64_t addr, size_t *start)
{
	static const unsigned char endbr[3] = { 0xf3, 0x0f, 0x1e };
	uint32_t disp = le32(b + i + 2);
	uint64_t slot;

	if (b[i] != 0xff || (b[i + 1] != 0x25 && b[i + 1] != 0xa3))
		return 0;
	if (c->machine == EM_X86_64) {
		if (b[i + 1] != 0x25)
			return 0;
		slot = addr + i + 6 + (uint64_t)(int64_t)(int32_t)disp;
	} else if (b[i + 1] == 0x25) {
		slot = disp;
	} else {
		slot = (uint32_t)(c->got + (uint64_t)(int64_t)(int32_t)disp);
	}
	*start = i;
	if (*start && b[*start - 1] == 0xf2)
		--*start;
	if (*start >= 4 && !memcmp(b + *start - 4, endbr, 3) &&
	    (b[*start - 1] == 0xfa || b[*start - 1] == 0xfb))
		*start -= 4;
	return slot;
}

/*
 * AArch64: "adrp x16, page; ldr x17, [x16, #off]" with the slot at
 * page + off; the stub starts at the adrp or at a "bti c" before it.
 */
static uint64_t a64_slot(const unsigned char *b, size_t i, uint64_t addr,
			 size_t *start)
{
	uint32_t adrp = le32(b + i), ldr = le32(b + i + 4);
	uint64_t imm;

	if ((adrp & 0x9f00001fU) != 0x90000010U ||
	    (ldr & 0xffc003ffU) != 0xf9400211U)
		return 0;
	imm = ((adrp >> 29) & 3) | ((adrp >> 5) & 0x7ffff) << 2;
	if (imm & (1U << 20))
		imm |= ~(uint64_t)0x1fffff;	/* 21 bits, signed */
	*start = i;
	if (i >= 4 && le32(b + i - 4) == 0xd503245fU)
		*start -= 4;
	return ((addr + i) & ~(uint64_t)0xfff) + (imm << 12) +
	       (uint64_t)((ldr >> 10) & 0xfff) * 8;
}

/* The stubs of one section: found in order, each up to the next. */
static void scan_section(struct plt_ctx *c, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	const unsigned char *b;
	const char *name = NULL;
	size_t size, step, len, prev = 0, start;

	if (!data || !data->d_buf || data->d_size != sh->sh_size)
		return;
	b = data->d_buf;
	size = data->d_size;
	step = c->machine == EM_AARCH64 ? 4 : 1;
	len = c->machine == EM_AARCH64 ? 8 : 6;
	for (size_t i = 0; i + len <= size; i += step) {
		const char *n;
		uint64_t slot = c->machine == EM_AARCH64 ?
				a64_slot(b, i, sh->sh_addr, &start) :
				x86_slot(c, b, i, sh->sh_addr, &start);

		if (!slot || !(n = slot_name(c, slot)))
			continue;
		if (name && start > prev)
			c->add(c->arg, sh->sh_addr + prev, start - prev, name);
		name = n;
		prev = start;
		i += len - step;
	}
	if (name)
		c->add(c->arg, sh->sh_addr + prev, size - prev, name);
}

void plt_stubs(Elf *elf, plt_add_fn *add, void *arg)
{
	struct plt_ctx c = { .elf = elf, .add = add, .arg = arg };
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Ehdr eh;
	GElf_Shdr sh;

	if (!gelf_getehdr(elf, &eh) || elf_getshdrstrndx(elf, &shstrndx))
		return;
	c.machine = eh.e_machine;
	if (c.machine != EM_X86_64 && c.machine != EM_386 &&
	    c.machine != EM_AARCH64)
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_REL || sh.sh_type == SHT_RELA)
			read_relocs(&c, scn, &sh);
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strcmp(name, ".got.plt"))
			c.got = sh.sh_addr;
	}
	if (!c.nr_slots) {
		free(c.slots);
		return;
	}
	qsort(c.slots, c.nr_slots, sizeof(*c.slots), slot_cmp);
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && (!strcmp(name, ".plt") || !strcmp(name, ".plt.sec") ||
			     !strcmp(name, ".plt.got") ||
			     !strcmp(name, ".plt.bnd")))
			scan_section(&c, scn, &sh);
	}
	free(c.slots);
}
