// SPDX-License-Identifier: GPL-2.0
/*
 * The unwind-table builder (ehframe.h): .eh_frame_hdr and .eh_frame in,
 * sorted rows and deduplicated rules out.
 *
 * The input is whatever file a process mapped, so it is hostile: every
 * read is bounds-checked against the bytes given, every count and offset
 * is range-checked before use, the work (CFI instructions interpreted,
 * the CIE's included, for each FDE) is bounded by the caller, and a
 * structure that cannot be read fails its FDE (counted, its code then
 * walks by frame pointer) or, when the index itself is bad, the table.
 *
 * The FDEs are taken in the order of .eh_frame_hdr's search table, which
 * is sorted by address: rows come out sorted with no sort. Only three
 * registers' rules are tracked (the CFA's, the return address's and the
 * frame pointer's): a walker that only knows SP, FP and PC in the frames
 * above the leaf can use no other.
 */
#ifdef __KERNEL__
#include <linux/errno.h>
#include <linux/string.h>
#endif

#include "ehframe.h"

/* DW_EH_PE_*: pointer encodings (LSB, "DWARF Extensions"). */
#define PE_OMIT		0xff
#define PE_FMT		0x0f
#define PE_ABSPTR	0x00
#define PE_ULEB128	0x01
#define PE_UDATA2	0x02
#define PE_UDATA4	0x03
#define PE_UDATA8	0x04
#define PE_SLEB128	0x09
#define PE_SDATA2	0x0a
#define PE_SDATA4	0x0b
#define PE_SDATA8	0x0c
#define PE_APP		0x70
#define PE_PCREL	0x10
#define PE_DATAREL	0x30
#define PE_INDIRECT	0x80

/* DW_CFA_* */
#define CFA_ADVANCE_LOC		0x40
#define CFA_OFFSET		0x80
#define CFA_RESTORE		0xc0
#define CFA_NOP			0x00
#define CFA_SET_LOC		0x01
#define CFA_ADVANCE_LOC1	0x02
#define CFA_ADVANCE_LOC2	0x03
#define CFA_ADVANCE_LOC4	0x04
#define CFA_OFFSET_EXTENDED	0x05
#define CFA_RESTORE_EXTENDED	0x06
#define CFA_UNDEFINED		0x07
#define CFA_SAME_VALUE		0x08
#define CFA_REGISTER		0x09
#define CFA_REMEMBER_STATE	0x0a
#define CFA_RESTORE_STATE	0x0b
#define CFA_DEF_CFA		0x0c
#define CFA_DEF_CFA_REGISTER	0x0d
#define CFA_DEF_CFA_OFFSET	0x0e
#define CFA_DEF_CFA_EXPRESSION	0x0f
#define CFA_EXPRESSION		0x10
#define CFA_OFFSET_EXTENDED_SF	0x11
#define CFA_DEF_CFA_SF		0x12
#define CFA_DEF_CFA_OFFSET_SF	0x13
#define CFA_VAL_OFFSET		0x14
#define CFA_VAL_OFFSET_SF	0x15
#define CFA_VAL_EXPRESSION	0x16
#define CFA_AARCH64_NEGATE_RA_STATE	0x2d
#define CFA_GNU_ARGS_SIZE	0x2e
#define CFA_GNU_NEG_OFFSET_EXT	0x2f

/* DW_OP_* of the expression shapes recognised. */
#define OP_DEREF	0x06
#define OP_AND		0x1a
#define OP_PLUS		0x22
#define OP_PLUS_UCONST	0x23
#define OP_SHL		0x24
#define OP_GE		0x2a
#define OP_LIT0		0x30
#define OP_LIT31	0x4f
#define OP_BREG0	0x70
#define OP_BREG31	0x8f
#define OP_BREGX	0x92

/* remember_state nesting: compilers use one level. */
#define EH_STATE_DEPTH	8
/* Augmentation strings: "zPLR" and the like. */
#define EH_AUG_MAX	8

const struct fst_eh_arch fst_eh_x86_64 = {
	.sp = 7, .fp = 6, .ra = 16, .pc = 16, .ptr_size = 8,
};

/* AArch64: x29 is the frame pointer, x30 the link register, 31 SP. */
const struct fst_eh_arch fst_eh_arm64 = {
	.sp = 31, .fp = 29, .ra = 30, .pc = 32, .ptr_size = 8,
	.ra_in_reg = true, .ra_signing = true,
};

/* A bounds-checked reader over @base, whose first byte is at @vaddr. */
struct eh_cur {
	const u8 *base, *p, *end;
	u64 vaddr;
	bool bad;
};

static void cur_init(struct eh_cur *c, const u8 *base, u32 len, u64 vaddr)
{
	c->base = base;
	c->p = base;
	c->end = base + len;
	c->vaddr = vaddr;
	c->bad = false;
}

static u64 cur_vaddr(const struct eh_cur *c)
{
	return c->vaddr + (u64)(c->p - c->base);
}

static bool cur_has(struct eh_cur *c, u64 n)
{
	if (c->bad || n > (u64)(c->end - c->p)) {
		c->bad = true;
		return false;
	}
	return true;
}

/* Little-endian, as every architecture the module supports. */
static u64 rd_u(struct eh_cur *c, unsigned int n)
{
	u64 v = 0;
	unsigned int i;

	if (!cur_has(c, n))
		return 0;
	for (i = 0; i < n; i++)
		v |= (u64)c->p[i] << (8 * i);
	c->p += n;
	return v;
}

static s64 rd_s(struct eh_cur *c, unsigned int n)
{
	u64 v = rd_u(c, n);
	unsigned int sh = 64 - 8 * n;

	return (s64)(v << sh) >> sh;
}

/*
 * A LEB128 number's bits, at most 10 bytes (64 bits); *@shift is set to
 * the bits read and *@last to the last byte, for the signed form.
 */
static u64 rd_leb(struct eh_cur *c, unsigned int *shift, u8 *last)
{
	u64 v = 0;
	u8 b;

	*shift = 0;
	do {
		if (!cur_has(c, 1) || *shift > 63) {
			c->bad = true;
			*last = 0;
			return 0;
		}
		b = *c->p++;
		v |= (u64)(b & 0x7f) << *shift;
		*shift += 7;
	} while (b & 0x80);
	*last = b;
	return v;
}

static u64 rd_uleb(struct eh_cur *c)
{
	unsigned int shift;
	u8 last;

	return rd_leb(c, &shift, &last);
}

static s64 rd_sleb(struct eh_cur *c)
{
	unsigned int shift;
	u8 last;
	u64 v = rd_leb(c, &shift, &last);

	if (shift < 64 && (last & 0x40))
		v |= ~0ULL << shift;
	return (s64)v;
}

/*
 * A pointer in encoding @enc. PC-relative ones are relative to the field's
 * own address; data-relative ones to @datarel (.eh_frame_hdr's address,
 * 0 where they are not allowed). Text-, function-relative and aligned
 * encodings are never used in .eh_frame by the toolchains: refused.
 * Indirect pointers (personality routines) are read, not followed.
 */
static bool rd_ptr(struct eh_cur *c, u8 enc, u64 datarel, u8 ptr_size,
		   u64 *out)
{
	u64 field = cur_vaddr(c), v;

	if (enc == PE_OMIT)
		return false;
	switch (enc & PE_FMT) {
	case PE_ABSPTR:
		v = rd_u(c, ptr_size);
		break;
	case PE_ULEB128:
		v = rd_uleb(c);
		break;
	case PE_UDATA2:
		v = rd_u(c, 2);
		break;
	case PE_UDATA4:
		v = rd_u(c, 4);
		break;
	case PE_UDATA8:
		v = rd_u(c, 8);
		break;
	case PE_SLEB128:
		v = (u64)rd_sleb(c);
		break;
	case PE_SDATA2:
		v = (u64)rd_s(c, 2);
		break;
	case PE_SDATA4:
		v = (u64)rd_s(c, 4);
		break;
	case PE_SDATA8:
		v = rd_u(c, 8);
		break;
	default:
		c->bad = true;
		return false;
	}
	switch (enc & PE_APP) {
	case 0:
		break;
	case PE_PCREL:
		v += field;
		break;
	case PE_DATAREL:
		if (!datarel) {
			c->bad = true;
			return false;
		}
		v += datarel;
		break;
	default:
		c->bad = true;
		return false;
	}
	*out = v;
	return !c->bad;
}

static int hdr_parse(const u8 *hdr, u32 len, u64 vaddr,
		     const struct fst_eh_arch *arch, u64 *frame_vaddr,
		     u32 *fdes, const u8 **table);

/**
 * fst_eh_hdr() - read .eh_frame_hdr's header
 * @hdr: its bytes
 * @len: how many
 * @vaddr: its address in the file
 * @arch: the file's architecture
 * @frame_vaddr: set to the address of .eh_frame
 * @fdes: set to the number of FDEs in the search table
 *
 * Only the binary-search table that every linker writes (4-byte entries
 * relative to the header) is accepted: without it the FDEs would have to
 * be sorted here.
 *
 * Context: any; reads nothing but @hdr.
 * Return: FST_EH_OK or FST_EH_E_HDR.
 */
int fst_eh_hdr(const u8 *hdr, u32 len, u64 vaddr,
	       const struct fst_eh_arch *arch, u64 *frame_vaddr, u32 *fdes)
{
	const u8 *table;

	return hdr_parse(hdr, len, vaddr, arch, frame_vaddr, fdes, &table);
}

static int hdr_parse(const u8 *hdr, u32 len, u64 vaddr,
		     const struct fst_eh_arch *arch, u64 *frame_vaddr,
		     u32 *fdes, const u8 **table)
{
	struct eh_cur c;
	u8 version, frame_enc, count_enc, table_enc;
	u64 count;

	cur_init(&c, hdr, len, vaddr);
	version = rd_u(&c, 1);
	frame_enc = rd_u(&c, 1);
	count_enc = rd_u(&c, 1);
	table_enc = rd_u(&c, 1);
	if (c.bad || version != 1 || table_enc != (PE_DATAREL | PE_SDATA4) ||
	    (count_enc & PE_INDIRECT) || (frame_enc & PE_INDIRECT))
		return FST_EH_E_HDR;
	if (!rd_ptr(&c, frame_enc, vaddr, arch->ptr_size, frame_vaddr) ||
	    !rd_ptr(&c, count_enc, vaddr, arch->ptr_size, &count))
		return FST_EH_E_HDR;
	/* Two 4-byte fields an entry, all within the header's bytes. */
	if (count > (u64)(c.end - c.p) / 8)
		return FST_EH_E_HDR;
	*fdes = (u32)count;
	*table = c.p;
	return FST_EH_OK;
}

/* run_cfi() and do_fde() return an FDE's enum fst_eh_fde_error as this. */
#define FDE_ERR(e)	((e) + 1)

/* A register's rule, for the three tracked. */
enum { R_UNDEF, R_SAME, R_OFF, R_EXPR, R_OTHER };

struct eh_reg {
	u8 how;
	s64 off;		/* R_OFF: CFA + off */
	const u8 *expr;		/* R_EXPR: its bytes */
	u32 expr_len;
};

enum { CFA_UNSET, CFA_REG, CFA_EXPR };

/* The registers tracked besides the CFA. */
enum { EH_RA, EH_FP, EH_NR_REGS };

struct eh_state {
	u8 cfa_how;
	u64 cfa_reg;
	s64 cfa_off;
	const u8 *cfa_expr;
	u32 cfa_expr_len;
	struct eh_reg r[EH_NR_REGS];	/* by EH_RA, EH_FP */
};

struct eh_cie {
	u32 off;		/* in .eh_frame, to find it again */
	u64 code_align;
	s64 data_align;
	u64 ra;
	u8 fde_enc;
	bool aug_z, signal;
	const u8 *insns, *insns_end;
};

/* The builder's state. */
struct eh_bld {
	const struct fst_eh_src *src;
	const struct fst_eh_out *out;
	struct fst_eh_stats *st;
	u64 base;
	u32 n;			/* rows */
	u32 last_start;		/* the last row's, when n > 0 */
	u16 last_rule;
	u32 nr_rules;
	struct eh_cie cie;	/* the last CIE read (FDEs share a few) */
	bool have_cie;
};

/* One record's bounds: [*body, *next) after its length field. */
static bool rd_record(const struct eh_bld *b, u32 off, struct eh_cur *c,
		      u64 *next)
{
	const struct fst_eh_src *s = b->src;
	u64 len;

	if (off >= s->frame_len)
		return false;
	cur_init(c, s->frame + off, s->frame_len - off, s->frame_vaddr + off);
	len = rd_u(c, 4);
	if (len == 0xffffffffULL)
		len = rd_u(c, 8);
	if (c->bad || !len || len > (u64)(c->end - c->p))
		return false;
	*next = (u64)(c->p - s->frame) + len;
	c->end = c->p + len;
	return true;
}

/* Reads the CIE at @off of .eh_frame into b->cie. */
static bool rd_cie(struct eh_bld *b, u32 off)
{
	struct eh_cie *cie = &b->cie;
	char aug[EH_AUG_MAX + 1];
	struct eh_cur c;
	u64 next, auglen, ignored;
	unsigned int i;
	u8 version;

	if (b->have_cie && cie->off == off)
		return true;
	b->have_cie = false;
	if (!rd_record(b, off, &c, &next) || rd_u(&c, 4) != 0)
		return false;
	version = rd_u(&c, 1);
	if (version != 1 && version != 3 && version != 4)
		return false;
	for (i = 0; ; i++) {
		if (i > EH_AUG_MAX || !cur_has(&c, 1))
			return false;
		aug[i] = (char)*c.p++;
		if (!aug[i])
			break;
	}
	if (version == 4) {
		/* address_size, segment_selector_size */
		if (rd_u(&c, 1) != b->src->arch->ptr_size || rd_u(&c, 1) != 0)
			return false;
	}
	cie->code_align = rd_uleb(&c);
	cie->data_align = rd_sleb(&c);
	cie->ra = version == 1 ? rd_u(&c, 1) : rd_uleb(&c);
	/* Bounded so that offsets and advances never overflow. */
	if (c.bad || !cie->code_align || cie->code_align > 256 ||
	    cie->data_align < -256 || cie->data_align > 256)
		return false;
	cie->fde_enc = PE_ABSPTR;
	cie->aug_z = aug[0] == 'z';
	cie->signal = false;
	if (cie->aug_z) {
		auglen = rd_uleb(&c);
		if (!cur_has(&c, auglen))
			return false;
		/* The data's length is known: letters we do not know end it. */
		c.end = c.p + auglen;
		for (i = 1; aug[i]; i++) {
			if (aug[i] == 'R') {
				cie->fde_enc = rd_u(&c, 1);
			} else if (aug[i] == 'L') {
				rd_u(&c, 1);
			} else if (aug[i] == 'P') {
				u8 enc = rd_u(&c, 1);

				if (c.bad || !rd_ptr(&c, enc & ~PE_INDIRECT, 0,
						     b->src->arch->ptr_size,
						     &ignored))
					return false;
			} else if (aug[i] == 'S') {
				cie->signal = true;
			} else {
				break;
			}
		}
		if (c.bad)
			return false;
		/* Instructions follow the augmentation data. */
		c.p = c.end;
		c.end = b->src->frame + next;
	} else if (aug[0]) {
		/* Without 'z' an unknown augmentation has unknown data. */
		return false;
	}
	cie->insns = c.p;
	cie->insns_end = c.end;
	cie->off = off;
	b->have_cie = true;
	return true;
}

/* A 12-byte rule's hash, for interning. */
static u32 rule_hash(const struct fst_eh_rule *r)
{
	u32 h = (u32)r->cfa_off * 0x9e3779b1U;

	h ^= ((u32)(u16)r->ra_off << 16 | (u16)r->fp_off) * 0x85ebca77U;
	h ^= ((u32)(u16)r->add << 16 | (u32)r->kind << 8 | r->reg) *
	     0xc2b2ae3dU;
	return h ^ (h >> 15);
}

static bool rule_same(const struct fst_eh_rule *a, const struct fst_eh_rule *b)
{
	return a->cfa_off == b->cfa_off && a->ra_off == b->ra_off &&
	       a->fp_off == b->fp_off && a->kind == b->kind &&
	       a->reg == b->reg && a->add == b->add;
}

/* The index of rule @r, added if new; negative: FST_EH_E_RULES. */
static int rule_intern(struct eh_bld *b, const struct fst_eh_rule *r)
{
	const struct fst_eh_out *o = b->out;
	u32 slots = 2 * o->rules_max, i = rule_hash(r) & 0x7fffffffU;
	u32 tries;

	for (tries = 0; tries < slots; tries++, i++) {
		u16 *slot = &o->hash[i % slots];

		if (!*slot) {
			if (b->nr_rules >= o->rules_max)
				return -FST_EH_E_RULES;
			o->rules[b->nr_rules] = *r;
			b->nr_rules++;
			*slot = (u16)b->nr_rules;
			return *slot - 1;
		}
		if (rule_same(&o->rules[*slot - 1], r))
			return *slot - 1;
	}
	return -FST_EH_E_RULES;
}

/*
 * Rule @r from file address @addr on. A row that starts where the last one
 * does replaces it; one with the last one's rule merges into it. Without
 * output arrays (out->start NULL) rows are only counted, and a replaced
 * row that would merge into the one before it still counts: the count is
 * an upper bound of the rows a second pass writes.
 * Return: 0 or a negative enum fst_eh_error.
 */
static int emit(struct eh_bld *b, u64 addr, const struct fst_eh_rule *r)
{
	const struct fst_eh_out *o = b->out;
	u64 off = addr - b->base;
	int idx;

	if (addr < b->base)
		return -FST_EH_E_ORDER;
	if (off > 0xffffffffULL)
		return -FST_EH_E_SPAN;
	idx = rule_intern(b, r);
	if (idx < 0)
		return idx;
	if (b->n && b->last_start == off) {
		b->last_rule = (u16)idx;
		if (!o->start)
			return 0;
		o->rule[b->n - 1] = (u16)idx;
		if (b->n > 1 && o->rule[b->n - 2] == idx) {
			b->n--;
			b->last_start = o->start[b->n - 1];
		}
		return 0;
	}
	if (b->n && b->last_start > off)
		return -FST_EH_E_ORDER;
	if (b->n && b->last_rule == idx)
		return 0;
	if (b->n >= o->rows_max)
		return -FST_EH_E_ROWS;
	if (o->start) {
		o->start[b->n] = (u32)off;
		o->rule[b->n] = (u16)idx;
	}
	b->last_start = (u32)off;
	b->last_rule = (u16)idx;
	b->n++;
	return 0;
}

/* [DW_OP_breg<reg> k] or [DW_OP_bregx reg k] at the start of @c. */
static bool op_breg(struct eh_cur *c, u64 *reg, s64 *k)
{
	u8 op;

	if (!cur_has(c, 1))
		return false;
	op = *c->p++;
	if (op >= OP_BREG0 && op <= OP_BREG31)
		*reg = op - OP_BREG0;
	else if (op == OP_BREGX)
		*reg = rd_uleb(c);
	else
		return false;
	*k = rd_sleb(c);
	return !c->bad;
}

static bool op_is(struct eh_cur *c, u8 op)
{
	if (!cur_has(c, 1) || *c->p != op)
		return false;
	c->p++;
	return true;
}

/* A single [DW_OP_breg<reg> k]: the register's address is reg + k. */
static bool expr_breg(const u8 *e, u32 len, u64 reg, s64 *k)
{
	struct eh_cur c;
	u64 r;

	cur_init(&c, e, len, 0);
	return op_breg(&c, &r, k) && r == reg && c.p == c.end;
}

/* The CFA part of a rule, from the state's CFA rule. */
static void rule_cfa(const struct eh_bld *b, const struct eh_state *s,
		     struct fst_eh_rule *r)
{
	const struct fst_eh_arch *a = b->src->arch;
	struct eh_cur c;
	u64 reg, pc_reg;
	s64 k, pc_k;
	u8 lit;

	r->kind = FST_EH_UNSUP;
	r->reg = FST_EH_UNSUP_CFA;
	if (s->cfa_how == CFA_REG) {
		if (s->cfa_reg > 0xff || s->cfa_off < -0x80000000LL ||
		    s->cfa_off > 0x7fffffffLL)
			return;
		r->kind = FST_EH_CFA;
		r->reg = (u8)s->cfa_reg;
		r->cfa_off = (s32)s->cfa_off;
		return;
	}
	if (s->cfa_how != CFA_EXPR)
		return;
	cur_init(&c, s->cfa_expr, s->cfa_expr_len, 0);
	if (!op_breg(&c, &reg, &k) || reg > 0xff || k < -0x8000 || k > 0x7fff)
		return;
	/* Stack realignment: CFA = *(reg + k) [+ add]. */
	if (op_is(&c, OP_DEREF)) {
		u64 add = 0;

		if (c.p != c.end) {
			if (!op_is(&c, OP_PLUS_UCONST))
				return;
			add = rd_uleb(&c);
			if (c.bad || c.p != c.end || add > 0x7fff)
				return;
		}
		r->kind = FST_EH_DEREF;
		r->reg = (u8)reg;
		r->cfa_off = (s32)k;
		r->add = (s16)add;
		return;
	}
	/*
	 * PLT: SP + k, plus 8 once ((PC & 15) >= lit): [breg<sp> k;
	 * breg<pc> 0; lit15; and; lit<n>; ge; lit3; shl; plus].
	 */
	if (reg != a->sp || !op_breg(&c, &pc_reg, &pc_k) || pc_reg != a->pc ||
	    pc_k || !op_is(&c, OP_LIT0 + 15) || !op_is(&c, OP_AND) ||
	    !cur_has(&c, 1))
		return;
	lit = *c.p++;
	if (lit < OP_LIT0 || lit > OP_LIT0 + 15 || !op_is(&c, OP_GE) ||
	    !op_is(&c, OP_LIT0 + 3) || !op_is(&c, OP_SHL) ||
	    !op_is(&c, OP_PLUS) || c.p != c.end)
		return;
	r->kind = FST_EH_PLT;
	r->reg = lit - OP_LIT0;
	r->cfa_off = (s32)k;
}

/* The rule a walker follows in state @s. */
static void rule_of(const struct eh_bld *b, const struct eh_state *s,
		    struct fst_eh_rule *r)
{
	const struct fst_eh_arch *a = b->src->arch;
	s64 k;

	memset(r, 0, sizeof(*r));
	if (s->r[EH_RA].how == R_UNDEF) {
		r->kind = FST_EH_STOP;
		return;
	}
	rule_cfa(b, s, r);
	if (r->kind == FST_EH_UNSUP)
		return;
	/*
	 * A signal frame: the interrupted SP (the CFA), PC and FP are saved
	 * in the ucontext, each at a fixed offset from this frame's SP.
	 */
	if (b->cie.signal && r->kind == FST_EH_DEREF && r->reg == a->sp &&
	    s->r[EH_RA].how == R_EXPR &&
	    expr_breg(s->r[EH_RA].expr, s->r[EH_RA].expr_len, a->sp, &k) &&
	    k >= -0x8000 && k <= 0x7fff) {
		r->kind = FST_EH_SIGNAL;
		r->ra_off = (s16)k;
		r->fp_off = FST_EH_FP_LOST;
		if (s->r[EH_FP].how == R_EXPR &&
		    expr_breg(s->r[EH_FP].expr, s->r[EH_FP].expr_len, a->sp, &k) &&
		    k >= -0x8000 && k <= 0x7fff && k != FST_EH_FP_LOST)
			r->fp_off = (s16)k;
		return;
	}
	/* Still in the link register: ra_off 0 says so. */
	if (s->r[EH_RA].how == R_SAME && a->ra_in_reg) {
		r->ra_off = 0;
		goto fp;
	}
	if (s->r[EH_RA].how != R_OFF || !s->r[EH_RA].off || s->r[EH_RA].off < -0x8000 ||
	    s->r[EH_RA].off > 0x7fff) {
		memset(r, 0, sizeof(*r));
		r->kind = FST_EH_UNSUP;
		r->reg = FST_EH_UNSUP_RA;
		return;
	}
	r->ra_off = (s16)s->r[EH_RA].off;
fp:
	if (s->r[EH_FP].how == R_SAME)
		r->fp_off = FST_EH_FP_SAME;
	else if (s->r[EH_FP].how == R_OFF && s->r[EH_FP].off >= -0x8000 &&
		 s->r[EH_FP].off <= 0x7fff && s->r[EH_FP].off != FST_EH_FP_SAME &&
		 s->r[EH_FP].off != FST_EH_FP_LOST)
		r->fp_off = (s16)s->r[EH_FP].off;
	else
		r->fp_off = FST_EH_FP_LOST;
	fst_eh_ra_above_cfa(a, r);
}

/* Which tracked register DWARF register @reg is: EH_RA, EH_FP or -1. */
static int reg_idx(const struct eh_bld *b, u64 reg)
{
	if (reg == b->cie.ra)
		return EH_RA;
	if (reg == b->src->arch->fp)
		return EH_FP;
	return -1;
}

/*
 * The FDE's position and the state its rows come from while a CFI
 * program runs.
 */
struct eh_run {
	u64 loc, end;
	struct eh_state s;
	struct eh_state *init;		/* after the CIE's instructions */
	struct eh_state stack[EH_STATE_DEPTH];
	unsigned int depth;
	bool emit;			/* FDE program: rows are written */
};

/* Rows up to @to, which is later than the current row's start. */
static int run_advance(struct eh_bld *b, struct eh_run *x, u64 to)
{
	struct fst_eh_rule r;
	int err;

	if (!x->emit)
		return FDE_ERR(FST_EH_FDE_CIE);	/* advances only in an FDE */
	if (x->loc < x->end) {
		rule_of(b, &x->s, &r);
		err = emit(b, x->loc, &r);
		if (err)
			return err;
	}
	x->loc = to;
	return 0;
}

/*
 * Runs the CFI program [p, end). Return: 0; a positive enum
 * fst_eh_fde_error (the FDE is left out); a negative enum fst_eh_error
 * (the table fails).
 */
static int run_cfi(struct eh_bld *b, struct eh_run *x, const u8 *p,
		   const u8 *end)
{
	const struct eh_cie *cie = &b->cie;
	struct eh_cur c;
	u64 reg, v, delta;
	int i;
	s64 sv;
	u8 op;
	int err;

	cur_init(&c, p, (u32)(end - p), 0);
	while (c.p < c.end) {
		if (++b->st->work > b->out->work_max)
			return -FST_EH_E_WORK;
		op = *c.p++;
		switch (op & 0xc0) {
		case CFA_ADVANCE_LOC:
			delta = op & 0x3f;
			goto advance;
		case CFA_OFFSET:
			reg = op & 0x3f;
			v = rd_uleb(&c);
			goto offset;
		case CFA_RESTORE:
			reg = op & 0x3f;
			goto restore;
		}
		switch (op) {
		case CFA_NOP:
		case CFA_GNU_ARGS_SIZE:
			if (op == CFA_GNU_ARGS_SIZE)
				rd_uleb(&c);
			break;
		case CFA_SET_LOC:
			/* An address: relative encodings make no sense here. */
			if (!rd_ptr(&c, cie->fde_enc & ~PE_APP, 0,
				    b->src->arch->ptr_size, &v))
				return FDE_ERR(FST_EH_FDE_CFI);
			if (v < x->loc)
				return FDE_ERR(FST_EH_FDE_LOC);
			delta = (v - x->loc) / cie->code_align;
			goto advance;
		case CFA_ADVANCE_LOC1:
			delta = rd_u(&c, 1);
			goto advance;
		case CFA_ADVANCE_LOC2:
			delta = rd_u(&c, 2);
			goto advance;
		case CFA_ADVANCE_LOC4:
			delta = rd_u(&c, 4);
			goto advance;
		case CFA_OFFSET_EXTENDED:
			reg = rd_uleb(&c);
			v = rd_uleb(&c);
			goto offset;
		case CFA_GNU_NEG_OFFSET_EXT:
			reg = rd_uleb(&c);
			v = rd_uleb(&c);
			if (c.bad || v > 0xffffffffULL)
				return FDE_ERR(FST_EH_FDE_CFI);
			sv = -(s64)v;
			goto offset_sf;
		case CFA_OFFSET_EXTENDED_SF:
			reg = rd_uleb(&c);
			sv = rd_sleb(&c);
			goto offset_sf;
		case CFA_RESTORE_EXTENDED:
			reg = rd_uleb(&c);
			goto restore;
		case CFA_UNDEFINED:
		case CFA_SAME_VALUE:
			i = reg_idx(b, rd_uleb(&c));
			if (i >= 0) {
				memset(&x->s.r[i], 0, sizeof(x->s.r[i]));
				x->s.r[i].how = op == CFA_UNDEFINED ? R_UNDEF : R_SAME;
			}
			break;
		case CFA_REGISTER:
		case CFA_VAL_OFFSET:
		case CFA_VAL_OFFSET_SF:
			i = reg_idx(b, rd_uleb(&c));
			if (op == CFA_VAL_OFFSET_SF)
				rd_sleb(&c);
			else
				rd_uleb(&c);
			if (i >= 0) {
				memset(&x->s.r[i], 0, sizeof(x->s.r[i]));
				x->s.r[i].how = R_OTHER;
			}
			break;
		case CFA_REMEMBER_STATE:
			if (x->depth >= EH_STATE_DEPTH)
				return FDE_ERR(FST_EH_FDE_STATE);
			x->stack[x->depth++] = x->s;
			break;
		case CFA_RESTORE_STATE:
			if (!x->depth)
				return FDE_ERR(FST_EH_FDE_STATE);
			x->s = x->stack[--x->depth];
			break;
		case CFA_DEF_CFA:
			x->s.cfa_how = CFA_REG;
			x->s.cfa_reg = rd_uleb(&c);
			x->s.cfa_off = (s64)rd_uleb(&c);
			break;
		case CFA_DEF_CFA_SF:
			x->s.cfa_how = CFA_REG;
			x->s.cfa_reg = rd_uleb(&c);
			sv = rd_sleb(&c);
			if (sv < -0x100000000LL || sv > 0x100000000LL)
				return FDE_ERR(FST_EH_FDE_CFI);
			x->s.cfa_off = sv * cie->data_align;
			break;
		/*
		 * As libgcc's unwinder, which C++ exceptions go through: a new
		 * CFA register makes the rule register + offset again, with
		 * the last offset set (hand-written assembly switches back from
		 * an expression so); a new offset keeps an expression.
		 */
		case CFA_DEF_CFA_REGISTER:
			x->s.cfa_how = CFA_REG;
			x->s.cfa_reg = rd_uleb(&c);
			break;
		case CFA_DEF_CFA_OFFSET:
			x->s.cfa_off = (s64)rd_uleb(&c);
			break;
		case CFA_DEF_CFA_OFFSET_SF:
			sv = rd_sleb(&c);
			if (sv < -0x100000000LL || sv > 0x100000000LL)
				return FDE_ERR(FST_EH_FDE_CFI);
			x->s.cfa_off = sv * cie->data_align;
			break;
		case CFA_DEF_CFA_EXPRESSION:
			v = rd_uleb(&c);
			if (!cur_has(&c, v))
				return FDE_ERR(FST_EH_FDE_CFI);
			x->s.cfa_how = CFA_EXPR;
			x->s.cfa_expr = c.p;
			x->s.cfa_expr_len = (u32)v;
			c.p += v;
			break;
		case CFA_EXPRESSION:
		case CFA_VAL_EXPRESSION:
			i = reg_idx(b, rd_uleb(&c));
			v = rd_uleb(&c);
			if (!cur_has(&c, v))
				return FDE_ERR(FST_EH_FDE_CFI);
			if (i >= 0) {
				x->s.r[i].how = op == CFA_EXPRESSION ? R_EXPR :
					       R_OTHER;
				x->s.r[i].off = 0;
				x->s.r[i].expr = c.p;
				x->s.r[i].expr_len = (u32)v;
			}
			c.p += v;
			break;
		case CFA_AARCH64_NEGATE_RA_STATE:
			/* No operand; where it means anything else, refused. */
			if (!b->src->arch->ra_signing)
				return FDE_ERR(FST_EH_FDE_CFI);
			break;
		default:
			return FDE_ERR(FST_EH_FDE_CFI);
		}
		if (c.bad)
			return FDE_ERR(FST_EH_FDE_CFI);
		continue;
advance:
		if (c.bad)
			return FDE_ERR(FST_EH_FDE_CFI);
		/* Past the FDE's end nothing more is emitted. */
		if (!delta || (x->emit && x->loc >= x->end))
			continue;
		if (x->emit && delta > (x->end - x->loc) / cie->code_align)
			err = run_advance(b, x, x->end);
		else
			err = run_advance(b, x, x->loc + delta * cie->code_align);
		if (err)
			return err;
		continue;
offset:
		if (c.bad || v > 0xffffffffULL)
			return FDE_ERR(FST_EH_FDE_CFI);
		sv = (s64)v * cie->data_align;
		goto set_offset;
offset_sf:
		if (c.bad || sv < -0x100000000LL || sv > 0x100000000LL)
			return FDE_ERR(FST_EH_FDE_CFI);
		sv *= cie->data_align;
set_offset:
		i = reg_idx(b, reg);
		if (i >= 0) {
			memset(&x->s.r[i], 0, sizeof(x->s.r[i]));
			x->s.r[i].how = R_OFF;
			x->s.r[i].off = sv;
		}
		continue;
restore:
		if (c.bad || !x->init)
			return FDE_ERR(FST_EH_FDE_CFI);
		i = reg_idx(b, reg);
		if (i >= 0)
			x->s.r[i] = x->init->r[i];
	}
	return c.bad ? FDE_ERR(FST_EH_FDE_CFI) : 0;
}

/*
 * The FDE at @off of .eh_frame. Return: as run_cfi(); its rows are
 * written only when it returns 0 (the caller rolls them back otherwise).
 */
static int do_fde(struct eh_bld *b, u32 off, u64 *pend)
{
	const struct fst_eh_src *s = b->src;
	struct eh_state init;
	struct eh_run x;
	struct eh_cur c;
	u64 next, cie_field, cie_ptr, begin, range, auglen;
	int err;

	if (!rd_record(b, off, &c, &next))
		return FDE_ERR(FST_EH_FDE_RANGE);
	cie_field = (u64)(c.p - s->frame);
	cie_ptr = rd_u(&c, 4);
	if (c.bad || !cie_ptr || cie_ptr > cie_field)
		return FDE_ERR(FST_EH_FDE_RANGE);
	if (!rd_cie(b, (u32)(cie_field - cie_ptr)))
		return FDE_ERR(FST_EH_FDE_CIE);
	if (!rd_ptr(&c, b->cie.fde_enc, 0, s->arch->ptr_size, &begin) ||
	    !rd_ptr(&c, b->cie.fde_enc & PE_FMT, 0, s->arch->ptr_size, &range))
		return FDE_ERR(FST_EH_FDE_RANGE);
	if (b->cie.aug_z) {
		auglen = rd_uleb(&c);
		if (!cur_has(&c, auglen))
			return FDE_ERR(FST_EH_FDE_RANGE);
		c.p += auglen;
	}
	if (!range)
		return 0;
	if (begin + range < begin)
		return FDE_ERR(FST_EH_FDE_RANGE);
	if (begin < b->base || (b->n && begin - b->base < b->last_start))
		return FDE_ERR(FST_EH_FDE_OVERLAP);

	memset(&x, 0, sizeof(x));
	x.loc = begin;
	x.end = begin + range;
	x.s.r[EH_RA].how = s->arch->ra_in_reg ? R_SAME : R_UNDEF;
	x.s.r[EH_FP].how = R_SAME;
	err = run_cfi(b, &x, b->cie.insns, b->cie.insns_end);
	if (err)
		return err < 0 ? err : FDE_ERR(FST_EH_FDE_CIE);
	init = x.s;
	x.init = &init;
	x.depth = 0;
	x.emit = true;
	/* The gap since the last FDE's code walks by frame pointer. */
	if (*pend && begin > *pend) {
		struct fst_eh_rule none = { .kind = FST_EH_NONE };

		err = emit(b, *pend, &none);
		if (err)
			return err;
	}
	err = run_cfi(b, &x, c.p, c.end);
	if (err)
		return err;
	err = run_advance(b, &x, x.end);
	if (err)
		return err;
	*pend = x.end;
	return 0;
}

/**
 * fst_eh_index() - add the fast lookup array to a built table
 * @t: the table, built into arrays
 * @lookup: room for fst_eh_blocks(@t) + 1 entries
 *
 * Context: any.
 */
void fst_eh_index(struct fst_eh_table *t, u32 *lookup)
{
	u32 nb = fst_eh_blocks(t), b, r = 0;

	for (b = 0; b <= nb; b++) {
		u64 at = (u64)b << FST_EH_BLOCK_SHIFT;

		while (r + 1 < t->nr_rows && t->start[r + 1] <= at)
			r++;
		lookup[b] = r;
	}
	t->lookup = lookup;
	t->nr_blocks = nb;
}

/**
 * fst_eh_build() - compile a file's .eh_frame into an unwind table
 * @src: the file's bytes (see struct fst_eh_src)
 * @out: where the rows and rules go, and the limits
 * @tab: set to the table, whose arrays are @out's
 * @st: what the build saw (zeroed here)
 *
 * FDEs that cannot be read are left out, counted by reason in @st, and
 * their code walks by frame pointer; the table as a whole fails only when
 * the index cannot be read or a limit of @out is reached.
 *
 * Context: any; no allocation, no locks, no I/O. Work is bounded by
 * @out->work_max CFI instructions plus the FDEs' headers.
 * Return: FST_EH_OK or an enum fst_eh_error.
 */
int fst_eh_build(const struct fst_eh_src *src, const struct fst_eh_out *out,
		 struct fst_eh_table *tab, struct fst_eh_stats *st)
{
	struct fst_eh_rule none = { .kind = FST_EH_NONE };
	struct eh_bld b;
	struct eh_cur hc;
	u64 frame_vaddr, pend = 0, loc, fde;
	const u8 *table;
	u32 fdes, i, n0, start0 = 0;
	u16 rule0 = 0;
	int err;

	memset(st, 0, sizeof(*st));
	memset(tab, 0, sizeof(*tab));
	if (out->rules_max > 0xfffe)
		return FST_EH_E_RULES;
	err = hdr_parse(src->hdr, src->hdr_len, src->hdr_vaddr, src->arch,
			&frame_vaddr, &fdes, &table);
	if (err)
		return err;
	st->fdes = fdes;
	memset(&b, 0, sizeof(b));
	b.src = src;
	b.out = out;
	b.st = st;
	memset(out->hash, 0, 2ULL * out->rules_max * sizeof(*out->hash));

	/* The header's table follows its four fields. */
	cur_init(&hc, src->hdr, src->hdr_len, src->hdr_vaddr);
	hc.p = table;
	for (i = 0; i < fdes; i++) {
		if (!rd_ptr(&hc, PE_DATAREL | PE_SDATA4, src->hdr_vaddr, 4,
			    &loc) ||
		    !rd_ptr(&hc, PE_DATAREL | PE_SDATA4, src->hdr_vaddr, 4,
			    &fde))
			return FST_EH_E_HDR;
		if (!i)
			b.base = loc;
		if (fde < src->frame_vaddr ||
		    fde - src->frame_vaddr >= src->frame_len) {
			st->fde_errors[FST_EH_FDE_RANGE]++;
			continue;
		}
		/* Rolled back if the FDE is left out. */
		n0 = b.n;
		start0 = b.last_start;
		rule0 = b.last_rule;
		err = do_fde(&b, (u32)(fde - src->frame_vaddr), &pend);
		if (err < 0)
			return -err;
		if (err > 0) {
			st->fde_errors[err - 1 < FST_EH_NR_FDE_ERRORS ?
				       err - 1 : FST_EH_FDE_CFI]++;
			b.n = n0;
			b.last_start = start0;
			b.last_rule = rule0;
			if (n0 && out->start) {
				out->start[n0 - 1] = start0;
				out->rule[n0 - 1] = rule0;
			}
			continue;
		}
		st->fdes_used++;
	}
	if (pend) {
		err = emit(&b, pend, &none);
		if (err)
			return -err;
	}
	for (i = 0; out->start && i < b.n; i++) {
		const struct fst_eh_rule *r = &out->rules[out->rule[i]];

		if (r->kind == FST_EH_UNSUP && r->reg < FST_EH_NR_UNSUP)
			st->unsup[r->reg]++;
	}
	tab->base = b.base;
	tab->span = b.n ? b.last_start : 0;
	tab->nr_rows = b.n;
	tab->nr_rules = b.nr_rules;
	tab->start = out->start;
	tab->rule = out->rule;
	tab->rules = out->rules;
	return FST_EH_OK;
}
