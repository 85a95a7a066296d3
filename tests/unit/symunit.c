// SPDX-License-Identifier: GPL-2.0
/* Unit tests of the symbolizer: demangling, perf maps, kallsyms, hostile ELF. */
#include "lib/util.h"
#include "sym/demangle.h"
#include "sym/elfsym.h"
#include "sym/ksyms.h"
#include "sym/perfmap.h"
#include "sym/procroot.h"

#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/*
 * usage: symunit FIXTURE_DIR BUILT_DIR TMP_DIR
 *        symunit --dump-vdso FILE
 * FIXTURE_DIR is tests/fixtures/symbolize, BUILT_DIR what its build.sh
 * made. Prints "PASS name" / "FAIL name: why" per check.
 */

static int failures;

__attribute__((format(printf, 3, 4)))
static void check(bool ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		printf("PASS %s\n", name);
		return;
	}
	failures++;
	printf("FAIL %s: ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static bool streq(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

/* --- demangling --- */

static void test_demangle(void)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "_ZN4fxns3VecplERKS0_", "fxns::Vec::operator+" },
		{ "_ZNK4fxns3VecplERKS0_", "fxns::Vec::operator+" },
		{ "_ZN4fxns5scaleIiEET_S1_", "fxns::scale<int>" },
		{ "_ZNSt6vectorIiSaIiEE9push_backERKi",
		  "std::vector<int, std::allocator<int> >::push_back" },
		{ "_Z3fooi.cold", "foo" },
		{ "_Z3fooi.constprop.0", "foo" },
		{ "_ZZ4mainENKUliE_clEi", "main::{lambda(int)#1}::operator()" },
		{ "_ZN4core3fmt5write17h0123456789abcdefE", "core::fmt::write" },
		{ "_ZN5tokio4task3raw4poll17h0123456789abcdefE.llvm.1234567",
		  "tokio::task::raw::poll" },
		{ "_ZN4core3ptr85drop_in_place$LT$std..rt..lang_start$LT$$LP$$RP$$GT$..$u7b$$u7b$closure$u7d$$u7d$$GT$17h0123456789abcdefE",
		  "core::ptr::drop_in_place<std::rt::lang_start<()>::{{closure}}>" },
		{ "_RNvNtCs1234_7mycrate4util3foo", "mycrate::util::foo" },
		{ "_RNvMs_NtCs1234_7mycrate4utilINtB4_3BufAhj10_E3len",
		  "<mycrate::util::Buf<[u8; 16]>>::len" },
		{ "main", NULL },
		{ "_Znotmangled", NULL },
		{ "_R", NULL },
		{ "_Z", NULL },
		{ "", NULL },
		{ "foo__bar", NULL },	/* not Ada: only _Z and _R are tried */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = demangle(cases[i].in);
		char name[64];

		snprintf(name, sizeof(name), "demangle-%zu", i);
		if (cases[i].out)
			check(streq(got, cases[i].out), name, "%s: got '%s', want '%s'",
			      cases[i].in, got ? got : "(null)", cases[i].out);
		else
			check(!got, name, "%s: got '%s', want no demangling",
			      cases[i].in, got);
		free(got);
	}
}

/* --- perf maps --- */

static uint64_t rnd_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/*
 * Random, heavily overlapping lines against the definition: the last line
 * covering an address names it.
 */
static void test_perfmap_overlaps(const char *tmp)
{
	enum { N = 300, SPAN = 8192 };
	static uint64_t start[N], size[N];
	char *dir = xasprintf("%s/pm", tmp), *path;
	struct perfmap_cache *c;
	int bad = 0;
	FILE *f;

	if (mkdir(dir, 0755) && errno != EEXIST) {
		check(false, "perfmap-overlaps", "mkdir %s: %s", dir,
		      strerror(errno));
		free(dir);
		return;
	}
	path = xasprintf("%s/perf-31337.map", dir);
	f = fopen(path, "w");
	for (int i = 0; f && i < N; i++) {
		start[i] = 0x10000 + rnd() % SPAN;
		size[i] = 1 + rnd() % (i % 10 ? 64 : 2048);
		fprintf(f, "%llx %llx line%d\n", (unsigned long long)start[i],
			(unsigned long long)size[i], i);
	}
	if (f)
		fclose(f);
	c = perfmap_cache_new(dir, "/nonexistent");
	for (uint64_t a = 0x10000 - 16; a < 0x10000 + SPAN + 2100; a++) {
		struct perfmap_result r;
		int want = -1;
		bool got;

		for (int i = 0; i < N; i++)
			if (a >= start[i] && a < start[i] + size[i])
				want = i;
		got = perfmap_lookup(c, 31337, 31337, a, false, &r);
		if (want < 0 ? got : !got || atoi(r.name + 4) != want ||
		    r.offset != a - start[want]) {
			if (!bad++)
				check(false, "perfmap-overlaps",
				      "at %#llx got %s+%llu, want line%d",
				      (unsigned long long)a,
				      got ? r.name : "nothing",
				      (unsigned long long)r.offset, want);
		}
	}
	if (!bad)
		check(true, "perfmap-overlaps", " ");
	perfmap_cache_free(c);
	free(path);
	free(dir);
}

/* --- files in a process's own root --- */

/* The kernel's new_encode_dev(), as the module records st_dev. */
static uint64_t kdev(dev_t d)
{
	uint64_t maj = major(d), min = minor(d);

	return (min & 0xff) | (maj << 8) | ((min & ~0xffULL) << 12);
}

/*
 * A fake /proc: 100/root and 200/root are links to one directory (the
 * container's root) holding bin/prog; 300/root to another directory with
 * a different bin/prog. procroot_find() must take the recorded file
 * through the recorded process, else through another with the same root,
 * and never a file of the same name that is not the recorded one.
 */
static void test_procroot(const char *tmp)
{
	char *proc = xasprintf("%s/fakeproc", tmp);
	char *ctr = xasprintf("%s/ctr", tmp), *other = xasprintf("%s/other", tmp);
	char *cmd = xasprintf("rm -rf %s %s %s && mkdir -p %s/100 %s/200 %s/300 %s/bin %s/bin && "
			      "echo a >%s/bin/prog && echo b >%s/bin/prog && "
			      "ln -s %s %s/100/root && ln -s %s %s/200/root && ln -s %s %s/300/root",
			      proc, ctr, other, proc, proc, proc, ctr, other, ctr, other,
			      ctr, proc, ctr, proc, other, proc);
	char *prog = xasprintf("%s/bin/prog", ctr), *got;
	char *want = xasprintf("%s/100/root/bin/prog", proc);
	struct procroot r = { .tgid = 100 };
	struct stat st, rst;

	if (system(cmd) || stat(prog, &st) || stat(ctr, &rst)) {
		check(false, "procroot-setup", "%s failed", cmd);
		goto out;
	}
	r.root_dev = kdev(rst.st_dev);
	r.root_ino = rst.st_ino;
	got = procroot_find(proc, &r, "/bin/prog", kdev(st.st_dev), st.st_ino);
	check(got && !strcmp(got, want),
	      "procroot-own-pid", "got %s", got ? got : "NULL");
	free(got);
	/* The recorded process is gone: 200 shares its root, 300 does not. */
	r.tgid = 400;
	got = procroot_find(proc, &r, "/bin/prog", kdev(st.st_dev), st.st_ino);
	check(got && (strstr(got, "/100/root/") || strstr(got, "/200/root/")),
	      "procroot-same-root", "got %s", got ? got : "NULL");
	free(got);
	/* Another file of that name (300's, or a rewritten one): refused. */
	got = procroot_find(proc, &r, "/bin/prog", kdev(st.st_dev),
			    st.st_ino + 1);
	check(!got, "procroot-other-file", "got %s", got ? got : "NULL");
	free(got);
	got = procroot_find(proc, &r, "bin/prog", kdev(st.st_dev), st.st_ino);
	check(!got, "procroot-relative-path", "got %s", got ? got : "NULL");
	free(got);
out:
	free(cmd);
	free(want);
	free(prog);
	free(ctr);
	free(other);
	free(proc);
}

/* --- kallsyms --- */

static void test_ksyms(const char *fix)
{
	char *path = xasprintf("%s/kallsyms.txt", fix);
	char *zero = xasprintf("%s/kallsyms-restricted.txt", fix);
	struct ksyms *ks = ksyms_load(path);
	struct ksym_result r;
	bool ok;

	check(ksyms_state(ks) == KSYMS_OK && ksyms_count(ks) == 12,
	      "ksyms-load", "state %d, %zu symbols, want 12",
	      ksyms_state(ks), ksyms_count(ks));
	ok = ksyms_lookup(ks, 0xffffffffc0001123ULL, false, &r);
	check(ok && streq(r.name, "mod_fn2 [fxmod]") &&
	      streq(r.module, "fxmod") && r.offset == 0x23, "ksyms-module",
	      "got %s module %s +%#llx", ok ? r.name : "nothing",
	      r.module ? r.module : "-", (unsigned long long)r.offset);
	ok = ksyms_lookup(ks, 0xffffffff81001084ULL, false, &r);
	check(ok && streq(r.name, "local_fn") && !r.module && r.offset == 4,
	      "ksyms-core", "got %s +%#llx", ok ? r.name : "nothing",
	      (unsigned long long)r.offset);
	ok = ksyms_lookup(ks, 0xffffffff81001080ULL, true, &r);
	check(ok && streq(r.name, "weak_fn") && r.offset == 0x40,
	      "ksyms-return-address", "got %s +%#llx",
	      ok ? r.name : "nothing", (unsigned long long)r.offset);
	ksyms_free(ks);

	ks = ksyms_load(zero);
	check(ksyms_state(ks) == KSYMS_RESTRICTED && !ksyms_count(ks) &&
	      !ksyms_lookup(ks, 0xffffffff81001000ULL, false, &r),
	      "ksyms-restricted", "state %d", ksyms_state(ks));
	ksyms_free(ks);
	ks = ksyms_load("/nonexistent/kallsyms");
	check(ksyms_state(ks) == KSYMS_UNREADABLE, "ksyms-unreadable",
	      "state %d", ksyms_state(ks));
	ksyms_free(ks);
	free(path);
	free(zero);
}

/* --- the ELF cache --- */

static void test_cache(const char *built)
{
	char *pie = xasprintf("%s/fx_pie", built);
	struct elfsym_opts o = { .debug_root = "/nonexistent" };
	struct elfsym_cache *c = elfsym_cache_new(&o);
	static const unsigned char bogus[20] = { 1, 2, 3 };
	struct elfsym_result r;
	struct elfsym_stats st;

	for (uint64_t off = 0; off < 0x3000; off++)
		elfsym_lookup(c, pie, NULL, 0, off, off & 1, &r);
	elfsym_cache_stats(c, &st);
	check(st.files == 1 && st.lookups == 0x3000, "elfsym-loaded-once",
	      "%lu files for 0x3000 lookups", st.files);
	check(!elfsym_lookup(c, pie, NULL, 0, 0, true, &r) && !r.name,
	      "elfsym-return-address-zero", "resolved to %s", r.name);
	check(!elfsym_lookup(c, pie, NULL, 0, 0x100000, false, &r),
	      "elfsym-offset-past-segments", "resolved to %s", r.name);
	check(!elfsym_lookup(c, pie, bogus, sizeof(bogus), 0x1140, false,
			     &r) &&
	      elfsym_file_status(elfsym_open(c, pie, bogus, sizeof(bogus))) ==
	      ELFSYM_BUILD_ID_MISMATCH, "elfsym-build-id-key",
	      "a wrong build-id resolved to %s", r.name);
	elfsym_cache_stats(c, &st);
	check(st.files == 2 && st.build_id_mismatch == 1,
	      "elfsym-build-id-stats", "%lu files, %lu mismatches", st.files,
	      st.build_id_mismatch);
	elfsym_cache_free(c);
	free(pie);
}

/* --- hostile files --- */

struct blob {
	unsigned char *p;
	size_t n;
};

static bool read_blob(const char *path, struct blob *b)
{
	FILE *f = fopen(path, "rb");
	long n;

	if (!f)
		return false;
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) <= 0 ||
	    fseek(f, 0, SEEK_SET)) {
		fclose(f);
		return false;
	}
	b->n = (size_t)n;
	b->p = xmalloc(b->n);
	if (fread(b->p, 1, b->n, f) != b->n) {
		fclose(f);
		free(b->p);
		return false;
	}
	fclose(f);
	return true;
}

static unsigned long hostile_files, hostile_resolved, hostile_cfa;

/*
 * Write n bytes of p as a file and look offsets up in it, names and frame
 * rules; must not crash.
 */
static void try_file(const char *path, const unsigned char *p, size_t n)
{
	struct elfsym_opts o = { .debug_root = "/nonexistent" };
	struct elfsym_cache *c;
	struct elfsym_result r;
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(p, 1, n, f) != n) {
		if (f)
			fclose(f);
		return;
	}
	fclose(f);
	c = elfsym_cache_new(&o);
	for (uint64_t off = 0; off < 0x2400; off += 7)
		if (elfsym_lookup(c, path, NULL, 0, off, off & 8, &r))
			hostile_resolved += r.name[0] != '\0';
	/* the same bytes as an in-memory image */
	elfsym_lookup(c, path, NULL, 0, 0x1140, false, &r);
	if (elfsym_file_lookup(elfsym_open_image(c, "[img]", p, n), 0x1140,
			       false, &r))
		hostile_resolved++;
	for (uint64_t off = 0; off < 0x2400; off += 29) {
		hostile_cfa += elfsym_file_cfa(elfsym_open(c, path, NULL, 0),
					       off) != ELFSYM_CFA_UNKNOWN;
		hostile_cfa += elfsym_file_cfa(elfsym_open_image(c, "[img]",
								 p, n),
					       off) != ELFSYM_CFA_UNKNOWN;
	}
	elfsym_cache_free(c);
	hostile_files++;
}

static void put64(unsigned char *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static void put32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void put16(unsigned char *p, uint16_t v)
{
	memcpy(p, &v, 2);
}

/* Section header i of a 64-bit little-endian file, or NULL. */
static unsigned char *shdr(struct blob *b, size_t i)
{
	Elf64_Ehdr eh;
	size_t at;

	memcpy(&eh, b->p, sizeof(eh));
	at = eh.e_shoff + i * sizeof(Elf64_Shdr);
	if (i >= eh.e_shnum || at + sizeof(Elf64_Shdr) > b->n)
		return NULL;
	return b->p + at;
}

static size_t find_shdr(struct blob *b, uint32_t type)
{
	for (size_t i = 1; shdr(b, i); i++) {
		Elf64_Shdr sh;

		memcpy(&sh, shdr(b, i), sizeof(sh));
		if (sh.sh_type == type)
			return i;
	}
	return 0;
}

/* The section named @name, or 0. */
static size_t find_shdr_named(struct blob *b, const char *name)
{
	Elf64_Ehdr eh;
	Elf64_Shdr str, sh;
	size_t len = strlen(name) + 1;

	memcpy(&eh, b->p, sizeof(eh));
	if (!shdr(b, eh.e_shstrndx))
		return 0;
	memcpy(&str, shdr(b, eh.e_shstrndx), sizeof(str));
	for (size_t i = 1; shdr(b, i); i++) {
		memcpy(&sh, shdr(b, i), sizeof(sh));
		if (sh.sh_name < str.sh_size && str.sh_offset < b->n &&
		    str.sh_offset + sh.sh_name + len <= b->n &&
		    !memcmp(b->p + str.sh_offset + sh.sh_name, name, len))
			return i;
	}
	return 0;
}

static void test_hostile(const char *built, const char *tmp)
{
	char *src = xasprintf("%s/fx_pie", built);
	char *path = xasprintf("%s/hostile.elf", tmp);
	struct blob orig, b;
	Elf64_Ehdr eh;
	size_t symtab, strtab, dynsym;

	if (!read_blob(src, &orig) || orig.n < sizeof(eh)) {
		check(false, "hostile-elf", "cannot read %s", src);
		free(src);
		free(path);
		return;
	}
	memcpy(&eh, orig.p, sizeof(eh));
	symtab = find_shdr(&orig, SHT_SYMTAB);
	dynsym = find_shdr(&orig, SHT_DYNSYM);
	strtab = 0;
	if (symtab) {
		Elf64_Shdr sh;

		memcpy(&sh, shdr(&orig, symtab), sizeof(sh));
		strtab = sh.sh_link;
	}
	check(symtab && dynsym && strtab && eh.e_phnum, "hostile-setup",
	      "fixture lacks .symtab/.dynsym/phdrs");
	b.n = orig.n;
	b.p = xmalloc(b.n);

	/* Truncated at every 97 bytes, and around every header. */
	for (size_t n = 0; n < orig.n; n += 97)
		try_file(path, orig.p, n);
	for (size_t n = eh.e_shoff; n < orig.n; n += 13)
		try_file(path, orig.p, n);

#define MUTATE(stmt) do {			\
		memcpy(b.p, orig.p, b.n);	\
		stmt;				\
		try_file(path, b.p, b.n);	\
	} while (0)

	MUTATE(put64(b.p + offsetof(Elf64_Ehdr, e_shoff), b.n - 10));
	MUTATE(put64(b.p + offsetof(Elf64_Ehdr, e_shoff), UINT64_MAX - 7));
	MUTATE(put16(b.p + offsetof(Elf64_Ehdr, e_shnum), 0xffff));
	MUTATE(put16(b.p + offsetof(Elf64_Ehdr, e_shstrndx), 9999));
	MUTATE(put16(b.p + offsetof(Elf64_Ehdr, e_shentsize), 7));
	MUTATE(put64(b.p + offsetof(Elf64_Ehdr, e_phoff), b.n - 4));
	MUTATE(put16(b.p + offsetof(Elf64_Ehdr, e_phnum), 0xffff));
	MUTATE(put16(b.p + offsetof(Elf64_Ehdr, e_phentsize), 3));
	MUTATE(b.p[EI_CLASS] = ELFCLASS32);
	MUTATE(b.p[EI_DATA] = ELFDATA2MSB);
	for (size_t s = 1; s < eh.e_shnum; s++) {
		unsigned char *h = shdr(&orig, s);
		size_t at = h ? (size_t)(h - orig.p) : 0;

		if (!h)
			break;
		MUTATE(put64(b.p + at + offsetof(Elf64_Shdr, sh_size),
			     UINT64_MAX / 2));
		MUTATE(put64(b.p + at + offsetof(Elf64_Shdr, sh_offset),
			     b.n - 8));
		MUTATE(put32(b.p + at + offsetof(Elf64_Shdr, sh_link), 9999));
		MUTATE(put64(b.p + at + offsetof(Elf64_Shdr, sh_entsize), 0));
		MUTATE(put32(b.p + at + offsetof(Elf64_Shdr, sh_type),
			     SHT_SYMTAB));
		MUTATE(put32(b.p + at + offsetof(Elf64_Shdr, sh_type),
			     SHT_NOTE));
		MUTATE(put64(b.p + at + offsetof(Elf64_Shdr, sh_addr),
			     UINT64_MAX - 16));
	}
	for (size_t p = 0; p < eh.e_phnum; p++) {
		size_t at = eh.e_phoff + p * sizeof(Elf64_Phdr);

		if (at + sizeof(Elf64_Phdr) > orig.n)
			break;
		MUTATE(put64(b.p + at + offsetof(Elf64_Phdr, p_offset),
			     UINT64_MAX - 0x10));
		MUTATE(put64(b.p + at + offsetof(Elf64_Phdr, p_filesz),
			     UINT64_MAX));
		MUTATE(put64(b.p + at + offsetof(Elf64_Phdr, p_vaddr),
			     UINT64_MAX - 0x100));
	}
	/* Every symbol huge, or its name out of bounds. */
	for (int what = 0; what < 3 && symtab; what++) {
		Elf64_Shdr sh;

		memcpy(b.p, orig.p, b.n);
		memcpy(&sh, shdr(&orig, symtab), sizeof(sh));
		for (size_t i = 0; i < sh.sh_size / sizeof(Elf64_Sym) &&
		     sh.sh_offset + (i + 1) * sizeof(Elf64_Sym) <= b.n; i++) {
			unsigned char *s = b.p + sh.sh_offset +
					   i * sizeof(Elf64_Sym);

			if (what == 0)
				put64(s + offsetof(Elf64_Sym, st_size),
				      UINT64_MAX);
			else if (what == 1)
				put32(s + offsetof(Elf64_Sym, st_name),
				      0xfffffff0U);
			else
				put16(s + offsetof(Elf64_Sym, st_shndx),
				      (uint16_t)(0xff00 + i));
		}
		try_file(path, b.p, b.n);
	}
	/* Random bytes over the headers and the symbol tables. */
	for (int round = 0; round < 300; round++) {
		memcpy(b.p, orig.p, b.n);
		for (int k = 0; k < 24; k++) {
			size_t at;

			switch (k % 3) {
			case 0:
				at = rnd() % 1024;
				break;
			case 1:
				at = eh.e_shoff + rnd() % (b.n - eh.e_shoff);
				break;
			default:
				at = rnd() % b.n;
			}
			if (at < b.n)
				b.p[at] = (unsigned char)rnd();
		}
		try_file(path, b.p, b.n);
	}
	/* Random bytes over the frame rules (.eh_frame, .eh_frame_hdr). */
	for (int which = 0; which < 2; which++) {
		size_t i = find_shdr_named(&orig, which ? ".eh_frame_hdr" :
					   ".eh_frame");
		Elf64_Shdr sh;

		check(i != 0, "hostile-eh-frame-setup", "no %s in %s",
		      which ? ".eh_frame_hdr" : ".eh_frame", src);
		if (!i)
			continue;
		memcpy(&sh, shdr(&orig, i), sizeof(sh));
		if (!sh.sh_size || sh.sh_offset + sh.sh_size > orig.n)
			continue;
		for (int round = 0; round < 150; round++) {
			memcpy(b.p, orig.p, b.n);
			for (int k = 0; k < 1 + round % 16; k++)
				b.p[sh.sh_offset + rnd() % sh.sh_size] =
					(unsigned char)rnd();
			try_file(path, b.p, b.n);
		}
	}
	check(hostile_files > 400, "hostile-elf",
	      "only %lu files tried", hostile_files);
	printf("# %lu hostile files, %lu lookups resolved, %lu frame rules found\n",
	       hostile_files, hostile_resolved, hostile_cfa);
	remove(path);
	free(b.p);
	free(orig.p);
	free(src);
	free(path);
}

/* An image that is not ELF, and one cut short. */
static void test_bad_images(void)
{
	static const unsigned char junk[64] = "\177ELF garbage";
	struct elfsym_cache *c = elfsym_cache_new(NULL);
	struct elfsym_result r;
	struct elfsym_file *f = elfsym_open_image(c, "[junk]", junk,
						  sizeof(junk));

	check(elfsym_file_status(f) == ELFSYM_NOT_ELF &&
	      !elfsym_file_lookup(f, 0x10, false, &r), "elfsym-bad-image",
	      "status %d", elfsym_file_status(f));
	elfsym_cache_free(c);
}

static int dump_vdso(const char *out)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	unsigned long long start, end;
	size_t len = 0;
	char *line = NULL;
	FILE *maps = fopen("/proc/self/maps", "re"), *f;
	int rc = EXIT_FAIL;

	while (maps && base && getline(&line, &len, maps) > 0) {
		if (!strstr(line, "[vdso]") ||
		    sscanf(line, "%llx-%llx", &start, &end) != 2 ||
		    start != base)
			continue;
		f = fopen(out, "wb");
		if (f && fwrite((void *)(uintptr_t)start, 1, end - start, f) ==
		    end - start)
			rc = EXIT_OK;
		if (f)
			fclose(f);
	}
	free(line);
	if (maps)
		fclose(maps);
	return rc;
}

int main(int argc, char **argv)
{
	fs_progname = "symunit";
	if (argc == 3 && !strcmp(argv[1], "--dump-vdso"))
		return dump_vdso(argv[2]);
	if (argc != 4) {
		fputs("usage: symunit FIXTURE_DIR BUILT_DIR TMP_DIR\n"
		      "       symunit --dump-vdso FILE\n", stderr);
		return EXIT_USAGE;
	}
	test_demangle();
	test_perfmap_overlaps(argv[3]);
	test_procroot(argv[3]);
	test_ksyms(argv[1]);
	test_cache(argv[2]);
	test_bad_images();
	test_hostile(argv[2], argv[3]);
	return failures ? EXIT_FAIL : EXIT_OK;
}
