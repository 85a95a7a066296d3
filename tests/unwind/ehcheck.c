// SPDX-License-Identifier: GPL-2.0
/*
 * ehcheck: builds the module's unwind table (kmod/ehframe.c, compiled for
 * user space) from ELF files and checks every row against libdw's own
 * reading of the same call frame information.
 *
 *   ehcheck [--quiet] FILE...       check; exit 1 on any disagreement
 *   ehcheck --build FILE...          build only, best of 5, and print
 *                                    the figures (make bench)
 *   ehcheck --seed OUT MAX FILE      write FILE's .eh_frame_hdr and
 *                                    .eh_frame (MAX bytes at most) as a
 *                                    fuzzer input
 *
 * For each row the first, the middle and the last address it covers are
 * looked up in both: the kind and offsets of the CFA rule, the return
 * address's rule and the frame pointer's must say the same thing (what
 * the table cannot express must be marked unsupported there, and be an
 * expression libdw shows as one). Addresses no FDE covers must have no
 * rule. Prints one line a file:
 *
 *   PASS FILE fdes=N rows=N rules=N bytes=N text=N unsup=... build_us=N
 *
 * or FAIL with the first disagreements.
 */
#include "ehframe.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_REPORTS	8

struct img {
	unsigned char *data;
	size_t size;
	struct fst_eh_src src;
	uint64_t text;		/* bytes of executable PT_LOAD */
};

static int load(const char *path, struct img *im)
{
	Elf *e = NULL;
	GElf_Phdr ph, eh = { 0 };
	GElf_Ehdr ehdr;
	size_t n, i;
	u64 frame_vaddr;
	u32 fdes;
	int fd, found = 0, rc = -1;
	struct stat sb;

	memset(im, 0, sizeof(*im));
	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &sb)) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		goto out;
	}
	im->size = (size_t)sb.st_size;
	im->data = malloc(im->size ? im->size : 1);
	if (!im->data || pread(fd, im->data, im->size, 0) != (ssize_t)im->size) {
		fprintf(stderr, "%s: cannot read\n", path);
		goto out;
	}
	e = elf_memory((char *)im->data, im->size);
	if (!e || elf_kind(e) != ELF_K_ELF || elf_getphdrnum(e, &n)) {
		fprintf(stderr, "%s: not an ELF file\n", path);
		goto end;
	}
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(e, (int)i, &ph))
			continue;
		if (ph.p_type == PT_GNU_EH_FRAME) {
			eh = ph;
			found = 1;
		}
		if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X))
			im->text += ph.p_filesz;
	}
	if (!found || eh.p_offset + eh.p_filesz > im->size) {
		fprintf(stderr, "%s: no PT_GNU_EH_FRAME\n", path);
		goto end;
	}
	/* The module reads its own architecture's files; this tool either. */
	if (!gelf_getehdr(e, &ehdr) ||
	    (ehdr.e_machine != EM_X86_64 && ehdr.e_machine != EM_AARCH64)) {
		fprintf(stderr, "%s: neither x86-64 nor AArch64\n", path);
		goto end;
	}
	im->src.arch = ehdr.e_machine == EM_AARCH64 ? &fst_eh_arm64 :
						      &fst_eh_x86_64;
	im->src.hdr = im->data + eh.p_offset;
	im->src.hdr_len = (u32)eh.p_filesz;
	im->src.hdr_vaddr = eh.p_vaddr;
	if (fst_eh_hdr(im->src.hdr, im->src.hdr_len, im->src.hdr_vaddr,
		       im->src.arch, &frame_vaddr, &fdes)) {
		fprintf(stderr, "%s: bad .eh_frame_hdr\n", path);
		goto end;
	}
	/* .eh_frame runs to the end of the segment that holds it at most. */
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    frame_vaddr < ph.p_vaddr ||
		    frame_vaddr >= ph.p_vaddr + ph.p_filesz ||
		    ph.p_offset + ph.p_filesz > im->size)
			continue;
		im->src.frame = im->data + ph.p_offset + (frame_vaddr - ph.p_vaddr);
		im->src.frame_len = (u32)(ph.p_vaddr + ph.p_filesz - frame_vaddr);
		im->src.frame_vaddr = frame_vaddr;
		rc = 0;
	}
	if (rc)
		fprintf(stderr, "%s: .eh_frame in no segment\n", path);
end:
	elf_end(e);
out:
	if (fd >= 0)
		close(fd);
	return rc;
}

struct out_bufs {
	struct fst_eh_out o;
};

static int build(const struct img *im, struct out_bufs *ob,
		 struct fst_eh_table *t, struct fst_eh_stats *st, double *us)
{
	u64 frame_vaddr, rows;
	u32 fdes;
	struct timespec a, b;
	int err;

	memset(ob, 0, sizeof(*ob));
	if (fst_eh_hdr(im->src.hdr, im->src.hdr_len, im->src.hdr_vaddr,
		       im->src.arch, &frame_vaddr, &fdes))
		return FST_EH_E_HDR;
	ob->o.rows_max = (u32)fst_eh_rows_bound(im->src.frame_len, fdes);
	ob->o.rules_max = 0xfffe;
	ob->o.rules = calloc(ob->o.rules_max, sizeof(struct fst_eh_rule));
	ob->o.hash = calloc(2ULL * ob->o.rules_max, sizeof(u16));
	ob->o.work_max = 1U << 30;
	if (!ob->o.rules || !ob->o.hash) {
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	/* As the module builds: count the rows, then fill arrays of that size. */
	clock_gettime(CLOCK_MONOTONIC, &a);
	err = fst_eh_build(&im->src, &ob->o, t, st);
	if (err)
		return err;
	rows = t->nr_rows;
	ob->o.rows_max = (u32)rows;
	ob->o.start = calloc(rows ? rows : 1, sizeof(u32));
	ob->o.rule = calloc(rows ? rows : 1, sizeof(u16));
	if (!ob->o.start || !ob->o.rule) {
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	err = fst_eh_build(&im->src, &ob->o, t, st);
	clock_gettime(CLOCK_MONOTONIC, &b);
	*us = (double)(b.tv_sec - a.tv_sec) * 1e6 +
	      (double)(b.tv_nsec - a.tv_nsec) / 1e3;
	return err;
}

static void free_bufs(struct out_bufs *ob)
{
	free(ob->o.start);
	free(ob->o.rule);
	free(ob->o.rules);
	free(ob->o.hash);
}

static int is_breg(const Dwarf_Op *op, int *reg, int64_t *k)
{
	if (op->atom >= DW_OP_breg0 && op->atom <= DW_OP_breg31) {
		*reg = op->atom - DW_OP_breg0;
		*k = (int64_t)op->number;
		return 1;
	}
	if (op->atom == DW_OP_bregx) {
		*reg = (int)op->number;
		*k = (int64_t)op->number2;
		return 1;
	}
	return 0;
}

/* libdw's "CFA + n" register rule: [call_frame_cfa] or [.., plus_uconst n]. */
static int cfa_plus(const Dwarf_Op *ops, size_t n, int64_t *k)
{
	if (n == 1 && ops[0].atom == DW_OP_call_frame_cfa) {
		*k = 0;
		return 1;
	}
	if (n == 2 && ops[0].atom == DW_OP_call_frame_cfa &&
	    ops[1].atom == DW_OP_plus_uconst) {
		*k = (int64_t)ops[1].number;
		return 1;
	}
	return 0;
}

/* libdw's expression rule [call_frame_cfa; breg<reg> k] (pushed CFA unused). */
static int cfa_breg(const Dwarf_Op *ops, size_t n, int want, int64_t *k)
{
	int reg;

	return n == 2 && ops[0].atom == DW_OP_call_frame_cfa &&
	       is_breg(&ops[1], &reg, k) && reg == want;
}

/*
 * What libdw says at @addr, as the rule the table should hold there;
 * returns 0 when no FDE covers it. @unsup: set when the table should mark
 * it unsupported.
 */
static int expected(Dwarf_CFI *cfi, const struct fst_eh_arch *a,
		    uint64_t addr, struct fst_eh_rule *r)
{
	Dwarf_Frame *f;
	Dwarf_Op *ops, mem[3];
	size_t n;
	Dwarf_Addr s, e;
	bool sig;
	int reg, rc = 1, ra_ok, ra_sig, ra_reg;
	int64_t k, k2, ra_k;

	memset(r, 0, sizeof(*r));
	if (dwarf_cfi_addrframe(cfi, addr, &f))
		return 0;
	dwarf_frame_info(f, &s, &e, &sig);
	ops = NULL;
	n = 0;
	dwarf_frame_register(f, a->ra, mem, &ops, &n);
	if (n == 0 && ops == mem) {
		r->kind = FST_EH_STOP;
		goto out;
	}
	/* The return address's rule, kept aside until the CFA is known. */
	k2 = 0;
	/* Still in the link register (AArch64): "same value". */
	ra_reg = a->ra_in_reg && n == 0 && ops == NULL;
	ra_ok = cfa_plus(ops, n, &k2) && k2 && k2 >= -0x8000 && k2 <= 0x7fff;
	ra_k = k2;
	ra_sig = !ra_ok && cfa_breg(ops, n, a->sp, &k2);

	if (dwarf_frame_cfa(f, &ops, &n)) {
		/*
		 * libdw refuses a CFA register set after an expression
		 * (libgcrypt's assembly does it); libgcc, which C++
		 * exceptions use, takes it, and so does the table.
		 */
		rc = 2;
		goto out;
	}
	if (!n) {
		r->kind = FST_EH_UNSUP;
		r->reg = FST_EH_UNSUP_CFA;
		goto out;
	}
	if (n == 1 && ops[0].atom == DW_OP_bregx) {
		r->kind = FST_EH_CFA;
		r->reg = (u8)ops[0].number;
		r->cfa_off = (s32)(int64_t)ops[0].number2;
	} else if ((n == 2 || (n == 3 && ops[2].atom == DW_OP_plus_uconst &&
				ops[2].number <= 0x7fff)) &&
		   is_breg(&ops[0], &reg, &k) && ops[1].atom == DW_OP_deref) {
		r->kind = FST_EH_DEREF;
		r->reg = (u8)reg;
		r->cfa_off = (s32)k;
		r->add = n == 3 ? (s16)ops[2].number : 0;
	} else if (n == 9 && is_breg(&ops[0], &reg, &k) && reg == a->sp &&
		   ops[2].atom == DW_OP_lit15 && ops[3].atom == DW_OP_and &&
		   ops[4].atom >= DW_OP_lit0 && ops[4].atom <= DW_OP_lit15 &&
		   ops[5].atom == DW_OP_ge && ops[6].atom == DW_OP_lit3 &&
		   ops[7].atom == DW_OP_shl && ops[8].atom == DW_OP_plus) {
		r->kind = FST_EH_PLT;
		r->reg = (u8)(ops[4].atom - DW_OP_lit0);
		r->cfa_off = (s32)k;
	} else {
		r->kind = FST_EH_UNSUP;
		r->reg = FST_EH_UNSUP_CFA;
		goto out;
	}
	if (sig && r->kind == FST_EH_DEREF && r->reg == a->sp && ra_sig) {
		r->kind = FST_EH_SIGNAL;
		r->ra_off = (s16)k2;
		ops = NULL;
		n = 0;
		dwarf_frame_register(f, a->fp, mem, &ops, &n);
		r->fp_off = cfa_breg(ops, n, a->sp, &k) ? (s16)k : FST_EH_FP_LOST;
		goto out;
	}
	if (ra_reg) {
		ra_ok = 1;
		ra_k = 0;
	}
	if (!ra_ok) {
		memset(r, 0, sizeof(*r));
		r->kind = FST_EH_UNSUP;
		r->reg = FST_EH_UNSUP_RA;
		goto out;
	}
	r->ra_off = (s16)ra_k;
	ops = NULL;
	n = 0;
	dwarf_frame_register(f, a->fp, mem, &ops, &n);
	if (n == 0 && ops == NULL)
		r->fp_off = FST_EH_FP_SAME;
	else if (cfa_plus(ops, n, &k) && k >= -0x8000 && k <= 0x7fff &&
		 k != FST_EH_FP_SAME && k != FST_EH_FP_LOST)
		r->fp_off = (s16)k;
	else
		r->fp_off = FST_EH_FP_LOST;
	/* The table's one deliberate change to what the CFI says. */
	fst_eh_ra_above_cfa(a, r);
out:
	free(f);
	return rc;
}

static const char *const kind_names[] = {
	"none", "cfa", "deref", "plt", "signal", "stop", "unsup",
};

static void show(char *buf, size_t len, const struct fst_eh_rule *r)
{
	if (!r) {
		snprintf(buf, len, "(no rule)");
		return;
	}
	snprintf(buf, len, "%s reg=%u cfa%+d add%+d ra%+d fp%+d",
		 r->kind < FST_EH_NR_KINDS ? kind_names[r->kind] : "?",
		 r->reg, r->cfa_off, r->add, r->ra_off, r->fp_off);
}

static int same(const struct fst_eh_rule *got, const struct fst_eh_rule *want)
{
	if (!got)
		return 0;
	return got->kind == want->kind && got->reg == want->reg &&
	       got->cfa_off == want->cfa_off && got->ra_off == want->ra_off &&
	       got->fp_off == want->fp_off && got->add == want->add;
}

static int check_addr(const char *path, Dwarf_CFI *cfi,
		      const struct fst_eh_arch *a,
		      const struct fst_eh_table *t, uint64_t addr,
		      unsigned long *bad, unsigned long *checked,
		      unsigned long *unknown)
{
	const struct fst_eh_rule *got = fst_eh_find(t, addr);
	struct fst_eh_rule want;
	char g[96], w[96];
	int covered = expected(cfi, a, addr, &want);

	(*checked)++;
	if (covered == 2) {
		(*unknown)++;
		return 0;
	}
	if (!covered) {
		if (!got || got->kind == FST_EH_NONE)
			return 0;
	} else if (same(got, &want)) {
		return 0;
	}
	if ((*bad)++ < MAX_REPORTS) {
		show(g, sizeof(g), got);
		show(w, sizeof(w), covered ? &want : NULL);
		printf("# %s: %#" PRIx64 ": table says %s, libdw %s\n", path,
		       addr, g, w);
	}
	return 1;
}

static int check_file(const char *path, int quiet)
{
	struct img im;
	struct out_bufs ob;
	struct fst_eh_table t;
	struct fst_eh_stats st;
	Dwarf_CFI *cfi;
	Elf *e;
	unsigned long bad = 0, checked = 0, fde_err = 0, unknown = 0;
	struct fst_eh_table plain;
	u32 *lookup;
	double us;
	u32 i;
	int err, k;

	if (load(path, &im)) {
		printf("FAIL ehcheck/%s: cannot read its unwind information\n", path);
		free(im.data);
		return 1;
	}
	err = build(&im, &ob, &t, &st, &us);
	if (err) {
		printf("FAIL ehcheck/%s: build failed (error %d)\n", path, err);
		free_bufs(&ob);
		free(im.data);
		return 1;
	}
	e = elf_memory((char *)im.data, im.size);
	cfi = e ? dwarf_getcfi_elf(e) : NULL;
	if (!cfi) {
		printf("FAIL ehcheck/%s: libdw cannot read its CFI\n", path);
		elf_end(e);
		free_bufs(&ob);
		free(im.data);
		return 1;
	}
	for (k = 0; k < FST_EH_NR_FDE_ERRORS; k++)
		fde_err += st.fde_errors[k];
	/* Rows strictly increasing, indices in range: the table's own shape. */
	for (i = 0; i < t.nr_rows; i++) {
		if ((i && t.start[i] <= t.start[i - 1]) ||
		    t.rule[i] >= t.nr_rules) {
			printf("FAIL ehcheck/%s: row %u out of order or rule out of range\n",
			       path, i);
			return 1;
		}
	}
	/*
	 * The fast lookup array (fst_eh_index()) must find what the plain
	 * binary search finds, everywhere: every address of the covered
	 * range and a little around it (every 7th one past 4 MiB).
	 */
	lookup = malloc(((size_t)fst_eh_blocks(&t) + 1) * sizeof(*lookup));
	if (!lookup) {
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	plain = t;
	fst_eh_index(&t, lookup);
	if (t.nr_rows) {
		uint64_t a, end = t.base + t.span + 64;
		uint64_t step = t.span > (4U << 20) ? 7 : 1;

		for (a = t.base + t.start[0] - 64; a < end; a += step) {
			if (fst_eh_find(&t, a) == fst_eh_find(&plain, a))
				continue;
			if (bad++ < MAX_REPORTS)
				printf("# %s: %#" PRIx64 ": indexed lookup differs\n",
				       path, a);
		}
	}
	for (i = 0; i + 1 < t.nr_rows; i++) {
		uint64_t lo = t.base + t.start[i], hi = t.base + t.start[i + 1];

		check_addr(path, cfi, im.src.arch, &t, lo, &bad, &checked, &unknown);
		check_addr(path, cfi, im.src.arch, &t, lo + (hi - lo) / 2, &bad, &checked, &unknown);
		check_addr(path, cfi, im.src.arch, &t, hi - 1, &bad, &checked, &unknown);
	}
	/* Just outside the covered range: no rule. */
	if (t.nr_rows) {
		check_addr(path, cfi, im.src.arch, &t, t.base + t.start[0] - 1, &bad, &checked, &unknown);
		check_addr(path, cfi, im.src.arch, &t, t.base + t.start[t.nr_rows - 1], &bad,
			   &checked, &unknown);
	}
	if (bad || fde_err || st.fdes_used == 0) {
		printf("FAIL ehcheck/%s: %lu of %lu addresses disagree with libdw; %lu FDEs left out (range %u cie %u cfi %u state %u loc %u overlap %u); %u of %u FDEs used\n",
		       path, bad, checked, fde_err,
		       st.fde_errors[FST_EH_FDE_RANGE], st.fde_errors[FST_EH_FDE_CIE],
		       st.fde_errors[FST_EH_FDE_CFI], st.fde_errors[FST_EH_FDE_STATE],
		       st.fde_errors[FST_EH_FDE_LOC], st.fde_errors[FST_EH_FDE_OVERLAP],
		       st.fdes_used, st.fdes);
	} else if (!quiet) {
		unsigned long kinds[FST_EH_NR_KINDS] = { 0 }, on_fp = 0;

		for (i = 0; i < t.nr_rows; i++) {
			const struct fst_eh_rule *r = &t.rules[t.rule[i]];

			kinds[r->kind]++;
			on_fp += r->kind == FST_EH_CFA && r->reg == im.src.arch->fp;
		}
		printf("PASS ehcheck/%s fdes=%u rows=%u rules=%u bytes=%zu text=%" PRIu64
		       " build_us=%.0f checked=%lu libdw_refused=%lu",
		       path, st.fdes, t.nr_rows, t.nr_rules,
		       (size_t)t.nr_rows * 6 + (size_t)t.nr_rules * sizeof(struct fst_eh_rule),
		       im.text, us, checked, unknown);
		for (k = 0; k < FST_EH_NR_KINDS; k++)
			printf(" %s=%lu", kind_names[k], kinds[k]);
		printf(" cfa_on_fp=%lu unsup_cfa=%u unsup_ra=%u\n", on_fp,
		       st.unsup[FST_EH_UNSUP_CFA], st.unsup[FST_EH_UNSUP_RA]);
	}
	dwarf_cfi_end(cfi);
	elf_end(e);
	free(lookup);
	free_bufs(&ob);
	free(im.data);
	return bad || fde_err || !st.fdes_used;
}

/*
 * The fuzzer's input (tests/fuzz/fuzz_ehframe.c): u32 hdr_len (top bit:
 * AArch64), u64 hdr_vaddr, u64 frame_vaddr, hdr, frame; at most @max
 * bytes of frame.
 */
static int write_seed(const char *out, const char *path, u32 max)
{
	struct img im;
	FILE *f;
	u32 len, flag;
	int rc = 1;

	if (load(path, &im))
		return 1;
	f = fopen(out, "wb");
	len = im.src.hdr_len;
	/* The top bit: AArch64's CFI (the fuzzer reads it so). */
	flag = len | (im.src.arch == &fst_eh_arm64 ? 0x80000000U : 0);
	if (im.src.frame_len < max)
		max = im.src.frame_len;
	if (f && fwrite(&flag, 4, 1, f) == 1 &&
	    fwrite(&im.src.hdr_vaddr, 8, 1, f) == 1 &&
	    fwrite(&im.src.frame_vaddr, 8, 1, f) == 1 &&
	    fwrite(im.src.hdr, 1, len, f) == len &&
	    fwrite(im.src.frame, 1, max, f) == max)
		rc = 0;
	if (f && fclose(f))
		rc = 1;
	free(im.data);
	return rc;
}

/* Build only, five times: the fastest build's time and the table's size. */
static int bench_file(const char *path)
{
	struct img im;
	struct out_bufs ob;
	struct fst_eh_table t;
	struct fst_eh_stats st;
	double us, best = 0;
	size_t bytes;
	int i, err = 0;

	if (load(path, &im)) {
		free(im.data);
		return 1;
	}
	for (i = 0; i < 5 && !err; i++) {
		err = build(&im, &ob, &t, &st, &us);
		if (!err && (!i || us < best))
			best = us;
		if (!err && i < 4)
			free_bufs(&ob);
	}
	if (err) {
		printf("%s: build failed (error %d)\n", path, err);
		free_bufs(&ob);
		free(im.data);
		return 1;
	}
	/* As the module holds it: rows, rules and the fast lookup array. */
	bytes = (size_t)t.nr_rows * 6 + (size_t)t.nr_rules * sizeof(struct fst_eh_rule) +
		((size_t)fst_eh_blocks(&t) + 1) * sizeof(u32);
	printf("%s fdes=%u rows=%u rules=%u frame_bytes=%u bytes=%zu text=%" PRIu64
	       " per_mib=%.0f build_ms=%.2f\n", path, st.fdes, t.nr_rows,
	       t.nr_rules, im.src.frame_len, bytes, im.text,
	       im.text ? (double)bytes * 1048576.0 / (double)im.text : 0.0,
	       best / 1000.0);
	free_bufs(&ob);
	free(im.data);
	return 0;
}

int main(int argc, char **argv)
{
	int i = 1, quiet = 0, rc = 0;

	elf_version(EV_CURRENT);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 5 && !strcmp(argv[1], "--seed"))
		return write_seed(argv[2], argv[4], (u32)strtoul(argv[3], NULL, 0));
	if (argc > 2 && !strcmp(argv[1], "--build")) {
		for (i = 2; i < argc; i++)
			rc |= bench_file(argv[i]);
		return rc;
	}
	if (argc > 1 && !strcmp(argv[1], "--quiet")) {
		quiet = 1;
		i++;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: ehcheck [--quiet] FILE... | --seed OUT MAX FILE\n");
		return 2;
	}
	for (; i < argc; i++)
		rc |= check_file(argv[i], quiet);
	return rc;
}
