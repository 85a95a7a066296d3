// SPDX-License-Identifier: GPL-2.0
/*
 * The frame rule of AArch64 (elfsym_file_cfa()), which the CFA alone does
 * not give. A frame-pointer walk there reads frame records, {x29, x30}
 * pairs, from x29 up: it finds the caller of the code at an address when
 * that code's own record is stored and x29 points at it. GCC keeps the CFA
 * on sp in the functions that set up a record ("stp x29, x30, [sp, -N]!;
 * mov x29, sp": .cfi_def_cfa_offset and .cfi_offset 29 and 30, no
 * .cfi_def_cfa_register), and moves it to x29 only where sp moves at run
 * time (alloca, variable-length arrays). So, with the CFA on sp:
 *
 * - x29 and x30 not both saved by the row, x30 next to x29 (a record): no
 *   record of its own yet, or none at all (a leaf, which GCC builds
 *   without one by default, or code built with -fomit-frame-pointer, which
 *   saves x30 alone). The walk misses the caller, whose return address is
 *   still in x30.
 * - Saved, but the row begins right after the store of the record and x29
 *   has not yet been pointed at it ("mov x29, sp", or "add x29, sp, #N",
 *   which GCC's scheduler may put a few instructions after the store): x29
 *   still holds the caller's record.
 * - Saved, but x29 was reloaded from the record before the row ends: GCC
 *   restores x29 and x30 ("ldp x29, x30, [sp]") before it pops a large
 *   frame and gives the .cfi_restore only after the pop.
 *
 * The last two are told from the code: the words before the row's start
 * and before the address, read from the file (cfi_code()). Everything
 * else with the record saved is a walk that finds the caller. With the CFA
 * on x29, the walk finds the caller too, but for the same reload: clang
 * gives no CFI for its epilogues, so its CFA stays on x29 after
 * "ldp x29, x30, [sp], #16", up to the ret.
 */
#include "sym/elfsym.h"

#include "lib/util.h"
#include "sym/elfsym_int.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdlib.h>
#include <string.h>

/* DWARF register numbers of AArch64. */
#define A64_X29		29
#define A64_X30		30
#define A64_SP		31

/* How far from the row's start "mov x29, sp" may be scheduled (words). */
#define SET_FP_WINDOW	32
/* How far back from the address an epilogue's reload is looked for. */
#define RELOAD_WINDOW	16

static uint32_t word(const unsigned char *p)
{
	/* AArch64 code is little-endian, whatever the data's order. */
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* "add x29, sp, #imm{, lsl #12}" (and "mov x29, sp"): its offset. */
static bool is_set_fp(uint32_t w, int64_t *imm)
{
	if ((w & 0xff8003ffU) != 0x910003fdU)
		return false;
	*imm = (int64_t)((w >> 10) & 0xfff) << ((w >> 22) & 1 ? 12 : 0);
	return true;
}

/* The record's store: "stp x29, x30, [...]" (any addressing mode). */
static bool is_store_record(uint32_t w)
{
	return (w & 0xfe400000U) == 0xa8000000U && (w & 0x1f) == A64_X29 &&
	       ((w >> 10) & 0x1f) == A64_X30;
}

/* A load into x29: ldp/ldnp with x29 in either place, ldr x29. */
static bool is_load_fp(uint32_t w)
{
	if ((w & 0xfe400000U) == 0xa8400000U)
		return (w & 0x1f) == A64_X29 || ((w >> 10) & 0x1f) == A64_X29;
	if ((w & 0xffc00000U) == 0xf9400000U ||
	    (w & 0xffe00400U) == 0xf8400400U)
		return (w & 0x1f) == A64_X29;
	return false;
}

/* Code before it is not on the way to what follows: ret, b, br. */
static bool is_barrier(uint32_t w)
{
	return (w & 0xfffffc1fU) == 0xd65f0000U ||	/* ret */
	       w == 0xd65f0bffU || w == 0xd65f0fffU ||	/* retaa, retab */
	       (w & 0xfc000000U) == 0x14000000U ||	/* b */
	       (w & 0xfffffc1fU) == 0xd61f0000U;	/* br */
}

/*
 * Where the row saves a register: at CFA + *off. libdw gives an offset
 * rule as DW_OP_call_frame_cfa, then DW_OP_plus_uconst (two's complement
 * for a negative offset) unless it is 0.
 */
static bool saved_at(Dwarf_Frame *frame, int reg, int64_t *off)
{
	Dwarf_Op mem[3], *ops = NULL;
	size_t nops = 0;

	if (dwarf_frame_register(frame, reg, mem, &ops, &nops) || !ops ||
	    !nops || ops[0].atom != DW_OP_call_frame_cfa)
		return false;
	if (nops == 1) {
		*off = 0;
		return true;
	}
	if (nops == 2 && ops[1].atom == DW_OP_plus_uconst) {
		*off = (int64_t)ops[1].number;
		return true;
	}
	return false;
}

/*
 * Was x29 loaded, between @start (the row's) and @vaddr, on the way to
 * @vaddr? -1: the code cannot be read.
 */
static int a64_reloaded(struct elfsym_file *f, uint64_t start, uint64_t vaddr)
{
	unsigned char code[4 * RELOAD_WINDOW];
	uint64_t from = vaddr - start > sizeof(code) ? vaddr - sizeof(code) :
			start;
	size_t n = (size_t)((vaddr - from) / 4);

	if (n && !cfi_code(f, from, code, 4 * n))
		return -1;
	for (size_t i = n; i-- > 0;) {
		uint32_t w = word(code + 4 * i);

		if (is_barrier(w))
			break;
		if (is_load_fp(w))
			return 1;
	}
	return 0;
}

enum elfsym_cfa a64_frame_record(struct elfsym_file *f, Dwarf_Frame *frame,
				 uint64_t vaddr, bool cfa_on_fp)
{
	unsigned char code[4 * SET_FP_WINDOW];
	Dwarf_Addr start, end;
	int64_t k, k30, cfa_off, imm;
	Dwarf_Op *ops;
	size_t nops, n;
	bool set = false;
	int r;

	if (dwarf_frame_info(frame, &start, &end, NULL) < 0 || start > vaddr ||
	    (start & 3) || (vaddr & 3))
		return ELFSYM_CFA_UNKNOWN;
	if (cfa_on_fp) {
		r = a64_reloaded(f, start, vaddr);
		return r < 0 ? ELFSYM_CFA_UNKNOWN :
		       r ? ELFSYM_CFA_NO_FP : ELFSYM_CFA_FP;
	}
	if (!saved_at(frame, A64_X29, &k) || !saved_at(frame, A64_X30, &k30) ||
	    k30 != k + 8)
		return ELFSYM_CFA_NO_FP;
	if (dwarf_frame_cfa(frame, &ops, &nops) || nops != 1)
		return ELFSYM_CFA_UNKNOWN;
	cfa_off = ops[0].atom == DW_OP_bregx ? (int64_t)ops[0].number2 :
		  (int64_t)ops[0].number;

	/*
	 * A row that begins with the record stored: is x29 set in it, before
	 * the address, to the record (CFA + k: sp + imm is CFA - cfa_off +
	 * imm)? Other rows with the record saved come after that one.
	 */
	if (start >= 4 && cfi_code(f, start - 4, code, 4) &&
	    is_store_record(word(code))) {
		n = (size_t)((vaddr - start) / 4);
		if (n > SET_FP_WINDOW)
			n = SET_FP_WINDOW;
		if (n && !cfi_code(f, start, code, 4 * n))
			return ELFSYM_CFA_UNKNOWN;
		for (size_t i = 0; i < n && !set; i++)
			set = is_set_fp(word(code + 4 * i), &imm) &&
			      imm - cfa_off == k;
		if (!set)
			return ELFSYM_CFA_NO_FP;
	}

	/* An epilogue's reload of x29 before the row ends. */
	r = a64_reloaded(f, start, vaddr);
	return r < 0 ? ELFSYM_CFA_UNKNOWN : r ? ELFSYM_CFA_NO_FP : ELFSYM_CFA_FP;
}
