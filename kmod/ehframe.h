/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Unwind tables built from an ELF file's .eh_frame (issue 24): for each
 * address range of the file's code, how to find the caller's frame from
 * the stack pointer, the frame pointer and the PC, without frame pointers.
 *
 * The compiler's call frame information (CFI) is a program per function
 * that a debugger interprets at each lookup. Interpreting it in the sample
 * path would cost hundreds of instructions a frame and unbounded work on
 * hostile input, so it is compiled once, in process context, into rows
 * like the kernel's own ORC tables: a sorted array of start offsets, each
 * with the index of a rule; a walker finds its row by binary search and
 * applies the rule in a few loads. Rules repeat (nearly every function
 * starts with "CFA = SP + 8"), so they are stored once and rows carry a
 * 16-bit index: 6 bytes a row.
 *
 * The builder only parses bytes handed to it and writes into arrays the
 * caller allocated: no allocation, no I/O, no locks, bounded work. The
 * same file is built into user space (tests/unwind/ehframe_user.h gives
 * it the kernel's types) for the test
 * that checks every row against libdw's reading of the same CFI and for
 * the fuzzer.
 */
#ifndef FLAMESTAT_EHFRAME_H
#define FLAMESTAT_EHFRAME_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include "ehframe_user.h"
#endif

/* How a rule finds the caller (struct fst_eh_rule's kind). */
enum fst_eh_kind {
	/* No CFI covers the address: walk by frame pointer. */
	FST_EH_NONE,
	/* CFA = reg + cfa_off. */
	FST_EH_CFA,
	/*
	 * CFA = *(reg + cfa_off) + add: a stack realigned, or switched, with
	 * the old stack pointer saved in it.
	 */
	FST_EH_DEREF,
	/*
	 * A PLT entry: CFA = SP + cfa_off, 8 more once the PC's offset in its
	 * 16-byte entry is at least reg (the push of the lazy binding).
	 */
	FST_EH_PLT,
	/*
	 * A signal frame (glibc's __restore_rt): the interrupted SP is at
	 * SP + cfa_off, its PC at SP + ra_off, its frame pointer at
	 * SP + fp_off, all in the ucontext on the stack.
	 */
	FST_EH_SIGNAL,
	/* The outermost frame (_start): the return address is undefined. */
	FST_EH_STOP,
	/* A rule the walker cannot follow; reg says why (enum fst_eh_unsup). */
	FST_EH_UNSUP,
	FST_EH_NR_KINDS
};

/* Why a rule is FST_EH_UNSUP. */
enum fst_eh_unsup {
	FST_EH_UNSUP_CFA,	/* no CFA rule, or an expression of no known shape */
	FST_EH_UNSUP_RA,	/* the return address not saved at CFA + n */
	FST_EH_UNSUP_CFI,	/* the FDE's program could not be read */
	FST_EH_NR_UNSUP
};

/* fp_off: the caller's frame pointer is unchanged (in the register). */
#define FST_EH_FP_SAME	0
/* fp_off: the caller's frame pointer cannot be recovered. */
#define FST_EH_FP_LOST	1

/*
 * One rule. Offsets are in bytes; registers are the architecture's DWARF
 * numbers. ra_off 0 means the return address is still in its register
 * (struct fst_eh_arch's ra_in_reg: AArch64's link register, in a leaf or a
 * prologue); on x86-64 it is never there.
 */
struct fst_eh_rule {
	s32 cfa_off;
	s16 ra_off;	/* the return address is at CFA + ra_off */
	s16 fp_off;	/* the caller's FP at CFA + fp_off, or FST_EH_FP_* */
	u8 kind;	/* enum fst_eh_kind */
	u8 reg;		/* CFA, DEREF: base register; PLT: threshold; UNSUP: why */
	s16 add;	/* DEREF: added to the value read */
};

/* Whether rule @r saves the caller's frame pointer at CFA + fp_off. */
static inline bool fst_eh_fp_saved(const struct fst_eh_rule *r)
{
	return r->fp_off != FST_EH_FP_SAME && r->fp_off != FST_EH_FP_LOST;
}

/*
 * A built table. Row i covers file addresses [base + start[i],
 * base + start[i + 1]); the last row is a FST_EH_NONE sentinel that ends
 * the covered range. Addresses are the file's own (ELF p_vaddr), not a
 * process's: a walker subtracts the mapping's load bias first.
 */
struct fst_eh_table {
	u64 base;
	u32 nr_rows;
	u32 nr_rules;
	u32 span;		/* the last row's start: the end of what is covered */
	u32 nr_blocks;		/* of lookup[], 0: none */
	u32 *start;
	u16 *rule;
	struct fst_eh_rule *rules;
	/*
	 * Optional (fst_eh_index()): lookup[b] is the row that covers offset
	 * b << FST_EH_BLOCK_SHIFT, nr_blocks + 1 of them, so that a lookup
	 * searches only the few rows of one block, as ORC's fast lookup
	 * table does.
	 */
	const u32 *lookup;
};

#define FST_EH_BLOCK_SHIFT	8

/* Entries of the lookup array of @t (fst_eh_index()): nr_blocks + 1. */
static inline u32 fst_eh_blocks(const struct fst_eh_table *t)
{
	return t->nr_rows ? (t->span >> FST_EH_BLOCK_SHIFT) + 1 : 0;
}

/* Why a whole table could not be built (counted by the caller). */
enum fst_eh_error {
	FST_EH_OK,
	FST_EH_E_HDR,		/* .eh_frame_hdr malformed or of unknown encoding */
	FST_EH_E_RANGE,		/* a pointer or length outside the data given */
	FST_EH_E_ORDER,		/* the FDEs are not sorted by address */
	FST_EH_E_SPAN,		/* the code covered spans 4 GiB or more */
	FST_EH_E_ROWS,		/* more rows than the caller allowed */
	FST_EH_E_RULES,		/* more distinct rules than the caller allowed */
	FST_EH_E_WORK,		/* more CFI instructions than the caller allowed */
	FST_EH_NR_ERRORS
};

/* Why an FDE was left out (its code walks by frame pointer), counted. */
enum fst_eh_fde_error {
	FST_EH_FDE_RANGE,	/* its length, CIE pointer or fields out of bounds */
	FST_EH_FDE_CIE,		/* its CIE malformed, or of an unknown version or augmentation */
	FST_EH_FDE_CFI,		/* an unknown CFA instruction or a bad operand */
	FST_EH_FDE_STATE,	/* remember_state nested too deep, or restored unbalanced */
	FST_EH_FDE_LOC,		/* set_loc backwards */
	FST_EH_FDE_OVERLAP,	/* starts inside the code of the FDE before it */
	FST_EH_NR_FDE_ERRORS
};

/* The architecture's DWARF register numbers, and what its CFI may say. */
struct fst_eh_arch {
	u8 sp, fp, ra, pc;	/* pc: the register PLT expressions read */
	u8 ptr_size;		/* 8 */
	/*
	 * A return address no rule mentions is still in its register (ra_off
	 * 0): AArch64's link register, until a prologue saves it. Elsewhere
	 * it is undefined, the end of the stack.
	 */
	bool ra_in_reg;
	/*
	 * DW_CFA_AARCH64_negate_ra_state (0x2d, which is SPARC's
	 * DW_CFA_GNU_window_save elsewhere) is understood: the return address
	 * is signed from here on (pointer authentication); the walker strips
	 * the signature from every return address anyway.
	 */
	bool ra_signing;
};

extern const struct fst_eh_arch fst_eh_x86_64;
extern const struct fst_eh_arch fst_eh_arm64;

/*
 * The bytes of one file handed to the builder. hdr is .eh_frame_hdr (the
 * PT_GNU_EH_FRAME segment), hdr_vaddr its address in the file; frame is
 * the file's bytes from frame_vaddr on, which must include the .eh_frame
 * that hdr points to (the rest of its segment will do: its end is found
 * from each FDE's length).
 */
struct fst_eh_src {
	const u8 *hdr;
	u32 hdr_len;
	u64 hdr_vaddr;
	const u8 *frame;
	u32 frame_len;
	u64 frame_vaddr;
	const struct fst_eh_arch *arch;
};

/*
 * The builder's output arrays and limits, the caller's. rows_max bounds
 * start[] and rule[] (fst_eh_rows_bound() is never exceeded); with start
 * and rule NULL the rows are counted only (nr_rows of the result is then
 * at least what a build into arrays writes), so that the arrays can be
 * allocated to size;
 * rules_max the rules (at most 65,535) and hash[] has 2 * rules_max
 * entries of scratch. work_max bounds the CFI instructions interpreted.
 */
struct fst_eh_out {
	u32 *start;
	u16 *rule;
	u32 rows_max;
	struct fst_eh_rule *rules;
	u16 *hash;
	u32 rules_max;
	u32 work_max;
};

/* What a build saw, for the stats and the tests. */
struct fst_eh_stats {
	u32 fdes;		/* listed in .eh_frame_hdr */
	u32 fdes_used;
	u32 fde_errors[FST_EH_NR_FDE_ERRORS];
	u32 unsup[FST_EH_NR_UNSUP];	/* rows by reason */
	u32 work;		/* CFI instructions interpreted */
};

/* At most this many rows come from @frame_len bytes of .eh_frame and @fdes FDEs. */
static inline u64 fst_eh_rows_bound(u32 frame_len, u32 fdes)
{
	/* Each row starts at an FDE or at a CFI instruction (>= 1 byte). */
	return (u64)frame_len + 2ULL * fdes + 1;
}

/*
 * Where the return address is saved at or above the CFA, the CFA is not
 * the caller's SP: the slot is in the caller's frame, and whatever pushed
 * it pops it before returning. glibc's _dl_runtime_resolve on AArch64
 * leaves the PLT's push of x16 and x30 out of its CFA and says x30 is at
 * CFA + 8: the caller's SP is CFA + 16. Were the CFA taken as that SP, the
 * caller's own frame would be read 16 bytes too low (its return address
 * from the wrong slot). So a rule whose return address lies at CFA + n,
 * n >= 0, has its CFA moved up past the 16-byte-aligned pair that holds
 * it, and its offsets moved with it: the same slots, the caller's real SP.
 * Only where a return address can be in a register before it is saved
 * (AArch64): elsewhere the call itself pushes it, below the CFA.
 */
static inline void fst_eh_ra_above_cfa(const struct fst_eh_arch *a,
				       struct fst_eh_rule *r)
{
	s32 adj;

	if (!a->ra_in_reg || r->kind != FST_EH_CFA || r->ra_off <= 0)
		return;
	adj = (r->ra_off + 8 + 15) & ~15;
	r->cfa_off += adj;
	r->ra_off -= adj;
	if (fst_eh_fp_saved(r)) {
		if (r->fp_off - adj < -0x8000 || r->fp_off - adj == FST_EH_FP_SAME ||
		    r->fp_off - adj == FST_EH_FP_LOST)
			r->fp_off = FST_EH_FP_LOST;
		else
			r->fp_off -= adj;
	}
}

int fst_eh_hdr(const u8 *hdr, u32 len, u64 vaddr,
	       const struct fst_eh_arch *arch, u64 *frame_vaddr, u32 *fdes);
int fst_eh_build(const struct fst_eh_src *src, const struct fst_eh_out *out,
		 struct fst_eh_table *tab, struct fst_eh_stats *st);
void fst_eh_index(struct fst_eh_table *t, u32 *lookup);

/*
 * Any context, the sample path included: the rule of file address @addr,
 * or NULL where the table covers nothing. Reads nothing but @t.
 */
static __always_inline const struct fst_eh_rule *
fst_eh_find(const struct fst_eh_table *t, u64 addr)
{
	u32 lo = 0, hi = t->nr_rows, mid, b;
	u64 off = addr - t->base;

	if (addr < t->base || off > 0xffffffffULL || !hi ||
	    off < t->start[0])
		return NULL;
	if (t->nr_blocks) {
		b = off >> FST_EH_BLOCK_SHIFT;
		/* Past the last block: the last row, the end of the table. */
		if (b >= t->nr_blocks)
			return &t->rules[t->rule[t->nr_rows - 1]];
		lo = t->lookup[b];
		hi = t->lookup[b + 1] + 1;
	}
	/* The last row whose start is <= off. */
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (t->start[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	return &t->rules[t->rule[lo]];
}

#endif /* FLAMESTAT_EHFRAME_H */
