// SPDX-License-Identifier: GPL-2.0
/* The frame-string policy over the ELF, perf map and kallsyms symbolizers. */
#include "sym/symbolize.h"

#include "lib/util.h"
#include "sym/debuginfod.h"
#include "sym/demangle.h"
#include "sym/inline.h"
#include "sym/ksyms.h"
#include "sym/perfmap.h"

#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/utsname.h>
#include <time.h>

/* Interned strings live in chunks of this size (or bigger, for one). */
#define ARENA_CHUNK	((size_t)64 * 1024)

struct arena_chunk {
	struct arena_chunk *next;
	size_t used, size;
	char data[];
};

/*
 * The frame strings of recent frames: profiles repeat the same return
 * addresses in stack after stack. Direct-mapped, keyed by where the
 * address belongs (a file, or the kernel) and the address.
 */
#define MEMO_BITS	15

struct memo {
	const void *owner;
	uint64_t addr;
	const char *str;
	bool is_ret;
	bool resolved;
};

/*
 * The frames of a user address with inline frames or lines: every address
 * once (DWARF lookups are slow), open addressing, power-of-two size.
 */
struct chain {
	const void *owner;		/* NULL: empty slot */
	uint64_t addr;
	const char **frames;		/* in the arena, root first */
	uint32_t n;
	bool is_ret;
	bool resolved;
};

struct symbolizer {
	struct symbolize_opts opts;	/* paths owned */
	struct elfsym_cache *elf;
	struct perfmap_cache *perfmaps;
	struct ksyms *ksyms;		/* NULL until the first kernel frame */
	struct elfsym_file *vdso;	/* NULL until the first vDSO frame */
	struct elfsym_file *vdso32;	/* of compat tasks, once looked for */
	bool vdso32_tried;
	bool foreign_warned;
	/* Interned frame strings: open addressing, power-of-two size. */
	const char **strs;
	size_t nr_strs, cap_strs;
	struct arena_chunk *arena;
	struct strbuf scratch;
	struct memo *memo;		/* 1 << MEMO_BITS entries */
	struct chain *chains;		/* NULL until the first */
	size_t nr_chains, cap_chains;
	const char *one;		/* symbolize_user_frames()' lone frame */
	struct symbolize_stats stats;
};

static const char kernel_owner;	/* the memo's owner for kernel frames */

static struct memo *memo_slot(struct symbolizer *s, const void *owner,
			      uint64_t addr)
{
	uint64_t h = ((uint64_t)(uintptr_t)owner ^ addr) *
		     0x9e3779b97f4a7c15ULL;

	return &s->memo[h >> (64 - MEMO_BITS)];
}

static const struct memo *memo_find(struct symbolizer *s, const void *owner,
				    uint64_t addr, bool is_ret)
{
	const struct memo *m = memo_slot(s, owner, addr);

	if (m->owner == owner && m->addr == addr && m->is_ret == is_ret &&
	    m->str)
		return m;
	return NULL;
}

static const char *memo_put(struct symbolizer *s, const void *owner,
			    uint64_t addr, bool is_ret, bool resolved,
			    const char *str)
{
	*memo_slot(s, owner, addr) = (struct memo){
		.owner = owner, .addr = addr, .str = str, .is_ret = is_ret,
		.resolved = resolved,
	};
	return str;
}

static char *dup_opt(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

struct symbolizer *symbolizer_new(const struct symbolize_opts *opts)
{
	struct symbolizer *s = xcalloc(1, sizeof(*s));
	struct elfsym_opts eo = { 0 };

	if (opts)
		s->opts = *opts;
	s->opts.sysroot = dup_opt(s->opts.sysroot);
	s->opts.debug_root = dup_opt(s->opts.debug_root);
	s->opts.perfmap_dir = dup_opt(s->opts.perfmap_dir);
	s->opts.proc_root = dup_opt(s->opts.proc_root);
	s->opts.kallsyms = dup_opt(s->opts.kallsyms);
	s->opts.vdso_dir = dup_opt(s->opts.vdso_dir);
	s->opts.foreign = dup_opt(s->opts.foreign);
	eo.sysroot = s->opts.sysroot;
	eo.debug_root = s->opts.debug_root;
	eo.raw = s->opts.raw;
	s->opts.debuginfod_urls = dup_opt(s->opts.debuginfod_urls);
	eo.debuginfod = s->opts.debuginfod;
	eo.debuginfod_urls = s->opts.debuginfod_urls;
	s->elf = elfsym_cache_new(&eo);
	s->perfmaps = perfmap_cache_new(s->opts.perfmap_dir,
					s->opts.proc_root);
	s->memo = xcalloc((size_t)1 << MEMO_BITS, sizeof(*s->memo));
	s->cap_strs = 1024;
	s->strs = xcalloc(s->cap_strs, sizeof(*s->strs));
	return s;
}

void symbolizer_free(struct symbolizer *s)
{
	struct arena_chunk *c, *next;

	if (!s)
		return;
	elfsym_cache_free(s->elf);
	perfmap_cache_free(s->perfmaps);
	ksyms_free(s->ksyms);
	for (c = s->arena; c; c = next) {
		next = c->next;
		free(c);
	}
	free(s->strs);
	free(s->memo);
	free(s->chains);
	sb_free(&s->scratch);
	free((char *)s->opts.debuginfod_urls);
	free((char *)s->opts.sysroot);
	free((char *)s->opts.debug_root);
	free((char *)s->opts.perfmap_dir);
	free((char *)s->opts.proc_root);
	free((char *)s->opts.kallsyms);
	free((char *)s->opts.vdso_dir);
	free((char *)s->opts.foreign);
	free(s);
}

/* --- interning --- */

static uint64_t hash_str(const char *p, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)p[i]) * 0x100000001b3ULL;
	return h;
}

static char *arena_alloc(struct symbolizer *s, size_t n)
{
	struct arena_chunk *c = s->arena;

	if (!c || c->size - c->used < n) {
		size_t size = n > ARENA_CHUNK ? n : ARENA_CHUNK;

		c = xmalloc(sizeof(*c) + size);
		c->size = size;
		c->used = 0;
		c->next = s->arena;
		s->arena = c;
	}
	c->used += n;
	return c->data + c->used - n;
}

static void strs_grow(struct symbolizer *s)
{
	size_t cap = s->cap_strs * 2;
	const char **t = xcalloc(cap, sizeof(*t));

	for (size_t i = 0; i < s->cap_strs; i++) {
		const char *p = s->strs[i];
		size_t j;

		if (!p)
			continue;
		j = hash_str(p, strlen(p)) & (cap - 1);
		while (t[j])
			j = (j + 1) & (cap - 1);
		t[j] = p;
	}
	free(s->strs);
	s->strs = t;
	s->cap_strs = cap;
}

/*
 * Where a name ends in a blank and a number (flamegraph.pl's COUNT,
 * \d+(\.\d*)?), the index of that blank; else len. A folded line whose
 * leaf is "Function 42" reads as a two-column (differential) line.
 */
static size_t count_blank(const char *p, size_t len)
{
	size_t i = len, dots = 0;

	while (i > 0 && ((p[i - 1] >= '0' && p[i - 1] <= '9') ||
			 p[i - 1] == '.')) {
		dots += p[i - 1] == '.';
		i--;
	}
	if (i == len || i == 0 || dots > 1 || p[i] == '.' || p[i - 1] != ' ')
		return len;
	return i - 1;
}

/*
 * The stable copy of p[0..len), made safe for folded output: ';' is the
 * frame separator, control characters would break lines or terminals,
 * and the blank before a number that ends the name becomes '_'.
 */
static const char *intern(struct symbolizer *s, const char *p, size_t len)
{
	size_t i, blank = count_blank(p, len);
	char *copy;

	if (2 * (s->nr_strs + 1) > s->cap_strs)
		strs_grow(s);
	for (i = hash_str(p, len) & (s->cap_strs - 1); s->strs[i];
	     i = (i + 1) & (s->cap_strs - 1))
		if (!strncmp(s->strs[i], p, len) && !s->strs[i][len])
			return s->strs[i];
	copy = arena_alloc(s, len + 1);
	for (size_t k = 0; k < len; k++) {
		unsigned char ch = (unsigned char)p[k];

		copy[k] = ch == ';' ? ':' : (ch < 0x20 || ch == 0x7f) ? '?' :
			  k == blank ? '_' : (char)ch;
	}
	copy[len] = '\0';
	s->strs[i] = copy;
	s->nr_strs++;
	return copy;
}

/* Interning, with the formatted string built in the scratch buffer. */
__attribute__((format(printf, 2, 3)))
static const char *internf(struct symbolizer *s, const char *fmt, ...)
{
	va_list ap;
	int n;

	sb_reset(&s->scratch);
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return "?";
	sb_grow(&s->scratch, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(s->scratch.buf, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return intern(s, s->scratch.buf, (size_t)n);
}

/* True when name can go out as it is. */
static bool is_clean(const char *name)
{
	const char *p;

	for (p = name; *p; p++) {
		unsigned char ch = (unsigned char)*p;

		if (ch == ';' || ch < 0x20 || ch == 0x7f)
			return false;
	}
	return count_blank(name, (size_t)(p - name)) == (size_t)(p - name);
}

/*
 * A name as it goes out: demangled when asked and mangled (only for names
 * that come undemangled: kernel and JIT), suffixed, cleaned. A mangled
 * name ends at the first space; the rest (" [module]") is kept as is.
 */
static const char *emit(struct symbolizer *s, const char *name,
			bool try_demangle, const char *suffix)
{
	char *dem = NULL;
	size_t len = 0;
	const char *out;

	if (try_demangle && !s->opts.raw && demangle_is_candidate(name)) {
		char *bare;

		len = strcspn(name, " ");
		bare = xstrndup(name, len);
		dem = demangle(bare);
		free(bare);
	}
	if (!dem && !*suffix && is_clean(name))
		return name;
	out = internf(s, "%s%s%s", dem ? dem : "", dem ? name + len : name,
		      suffix);
	free(dem);
	return out;
}

/* --- frames --- */

/*
 * A recording from elsewhere is about to be named from @what of this
 * machine: say it once.
 */
static void foreign_use(struct symbolizer *s, const char *what)
{
	if (!s->opts.foreign || s->foreign_warned)
		return;
	s->foreign_warned = true;
	fs_warn("the recording was taken %s, but its frames are named from this machine's %s: they may name the wrong functions (kernel addresses move at every boot with KASLR); name them where they were recorded, or give --kallsyms, --sysroot and --perfmap-dir with that machine's copies",
		s->opts.foreign, what);
}

static bool local_files(const struct symbolizer *s)
{
	return !s->opts.sysroot || !*s->opts.sysroot;
}

struct elfsym_file *symbolize_file(struct symbolizer *s, const char *path,
				   const unsigned char *build_id,
				   size_t build_id_len)
{
	if (local_files(s) && !s->opts.addresses)
		foreign_use(s, "files");
	return elfsym_open(s->elf, path, build_id, build_id_len);
}

struct elfsym_file *symbolize_file_inode(struct symbolizer *s,
					 const char *path, uint64_t dev,
					 uint64_t ino,
					 const unsigned char *build_id,
					 size_t build_id_len)
{
	if (local_files(s) && !s->opts.addresses)
		foreign_use(s, "files");
	return elfsym_open_inode(s->elf, path, build_id, build_id_len, dev,
				 ino);
}

struct elfsym_file *symbolize_file_in_root(struct symbolizer *s,
					   const struct procroot *root,
					   const char *comm, const char *path,
					   uint64_t dev, uint64_t ino,
					   const unsigned char *build_id,
					   size_t build_id_len)
{
	struct elfsym_file *f;
	char *where, *key;

	if (s->opts.sysroot && *s->opts.sysroot)
		return symbolize_file(s, path, build_id, build_id_len);
	if (!s->opts.addresses)
		foreign_use(s, "files");
	where = procroot_find(s->opts.proc_root, root, path, dev, ino);
	if (where) {
		f = elfsym_open(s->elf, where, build_id, build_id_len);
		free(where);
		return f;
	}
	fs_warn("%s: not found: it is in the root of process %u (%s), and no live process reaches it there%s; its frames stay file+offset",
		path, root->tgid, comm,
		build_id_len ? " (debug info is looked for by build-id)" : "");
	/* Not an absolute path: elfsym looks for no file, only debug info. */
	key = xasprintf("[root of %u]%s", root->tgid, path);
	f = elfsym_open(s->elf, key, build_id, build_id_len);
	free(key);
	return f;
}

static const char *user_frame(struct symbolizer *s, struct elfsym_file *file,
			      uint64_t off, bool is_ret, bool *resolved)
{
	const char *path = elfsym_file_path(file), *base;
	struct elfsym_result r;
	size_t len;

	*resolved = false;
	if (!s->opts.addresses && elfsym_file_lookup(file, off, is_ret, &r) &&
	    *r.name) {
		*resolved = true;
		return emit(s, r.name, false, "");
	}
	base = path_basename(path);
	len = strlen(base);
	if (path_has_suffix(base, " (deleted)"))
		len -= strlen(" (deleted)");
	return internf(s, "%.*s+0x%llx", (int)len, base,
		       (unsigned long long)off);
}

const char *symbolize_user(struct symbolizer *s, struct elfsym_file *file,
			   uint64_t off, bool is_ret)
{
	const struct memo *m = memo_find(s, file, off, is_ret);
	const char *str;
	bool resolved;

	s->stats.user++;
	if (m) {
		s->stats.user_resolved += m->resolved;
		return m->str;
	}
	str = user_frame(s, file, off, is_ret, &resolved);
	s->stats.user_resolved += resolved;
	return memo_put(s, file, off, is_ret, resolved, str);
}

/* --- inline frames and lines --- */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static size_t chain_slot(const struct chain *t, size_t cap, const void *owner,
			 uint64_t addr, bool is_ret)
{
	uint64_t h = (((uint64_t)(uintptr_t)owner ^ addr) * 2 + is_ret) *
		     0x9e3779b97f4a7c15ULL;
	size_t i = (size_t)(h >> 20) & (cap - 1);

	while (t[i].owner && (t[i].owner != owner || t[i].addr != addr ||
			      t[i].is_ret != is_ret))
		i = (i + 1) & (cap - 1);
	return i;
}

static struct chain *chain_get(struct symbolizer *s, const void *owner,
			       uint64_t addr, bool is_ret)
{
	if (2 * (s->nr_chains + 1) > s->cap_chains) {
		size_t cap = s->cap_chains ? 2 * s->cap_chains : 1024;
		struct chain *t = xcalloc(cap, sizeof(*t));

		for (size_t i = 0; i < s->cap_chains; i++)
			if (s->chains[i].owner)
				t[chain_slot(t, cap, s->chains[i].owner,
					     s->chains[i].addr,
					     s->chains[i].is_ret)] =
					s->chains[i];
		free(s->chains);
		s->chains = t;
		s->cap_chains = cap;
	}
	return &s->chains[chain_slot(s->chains, s->cap_chains, owner, addr,
				     is_ret)];
}

/* The frame string of one DWARF frame: lines and suffix as asked. */
static const char *dwarf_frame(struct symbolizer *s, const char *name,
			       bool demangle_it, const struct inline_frame *fr,
			       const char *suffix)
{
	if (!s->opts.lines || !fr->file)
		return emit(s, name, demangle_it, suffix);
	name = emit(s, name, demangle_it, "");
	if (fr->line)
		return internf(s, "%s (%s:%u)%s", name, fr->file, fr->line,
			       suffix);
	return internf(s, "%s (%s)%s", name, fr->file, suffix);
}

static void chain_fill(struct symbolizer *s, struct chain *c,
		       struct elfsym_file *file, uint64_t off, bool is_ret)
{
	const struct inline_frame *fr;
	const char *outer;
	bool resolved;
	size_t n = 0, k, keep;
	char *p;

	outer = user_frame(s, file, off, is_ret, &resolved);
	if (resolved)
		n = elfsym_file_inline(file, off, is_ret, &fr);
	keep = n && s->opts.inline_frames ? n : 1;
	/* Pointer-aligned room in the arena. */
	p = arena_alloc(s, keep * sizeof(char *) + sizeof(char *) - 1);
	p += (sizeof(char *) - (uintptr_t)p % sizeof(char *)) %
	     sizeof(char *);
	c->frames = (const char **)(void *)p;
	c->frames[0] = n ? dwarf_frame(s, outer, false, &fr[n - 1], "") :
		       outer;
	for (k = 1; k < keep; k++) {
		const struct inline_frame *f = &fr[n - 1 - k];

		c->frames[k] = dwarf_frame(s, f->name ? f->name : "??", true,
					   f, s->opts.annotate ? "_[i]" : "");
	}
	c->n = (uint32_t)keep;
	c->resolved = resolved;
}

size_t symbolize_user_frames(struct symbolizer *s, struct elfsym_file *file,
			     uint64_t off, bool is_ret,
			     const char *const **frames)
{
	struct chain *c;
	double t;

	if ((!s->opts.inline_frames && !s->opts.lines) || s->opts.addresses) {
		s->one = symbolize_user(s, file, off, is_ret);
		*frames = &s->one;
		return 1;
	}
	c = chain_get(s, file, off, is_ret);
	if (!c->owner) {
		t = now();
		c->owner = file;
		c->addr = off;
		c->is_ret = is_ret;
		chain_fill(s, c, file, off, is_ret);
		s->nr_chains++;
		s->stats.dwarf_seconds += now() - t;
	}
	s->stats.user++;
	s->stats.user_resolved += c->resolved;
	s->stats.inlined += c->n - 1;
	*frames = c->frames;
	return c->n;
}

const char *symbolize_anon(struct symbolizer *s, uint32_t tgid,
			   uint32_t ns_tgid, uint64_t addr, bool is_ret)
{
	struct perfmap_result r;

	s->stats.jit++;
	if (!s->opts.addresses && !s->opts.perfmap_dir)
		foreign_use(s, "perf maps (/tmp/perf-PID.map)");
	if (!s->opts.addresses &&
	    perfmap_lookup(s->perfmaps, tgid, ns_tgid, addr, is_ret, &r) &&
	    *r.name) {
		s->stats.jit_resolved++;
		return emit(s, r.name, true, s->opts.annotate ? "_[j]" : "");
	}
	return internf(s, "[anon]+0x%llx%s", (unsigned long long)addr,
		       s->opts.annotate ? "_[j]" : "");
}

/* Our own vDSO as an ELF image, its extent from /proc/self/maps. */
static struct elfsym_file *local_vdso(struct symbolizer *s)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	unsigned long long start, end;
	struct elfsym_file *f = NULL;
	size_t len = 0;
	char *line = NULL;
	FILE *maps;

	if (!base || !(maps = fopen("/proc/self/maps", "re")))
		return NULL;
	while (!f && getline(&line, &len, maps) > 0)
		if (strstr(line, "[vdso]") &&
		    sscanf(line, "%llx-%llx", &start, &end) == 2 &&
		    start == base && end > start)
			f = elfsym_open_image(s->elf, "[vdso]",
					      (const void *)(uintptr_t)base,
					      (size_t)(end - start));
	free(line);
	fclose(maps);
	return f;
}

const char *symbolize_vdso(struct symbolizer *s, uint64_t off, bool is_ret)
{
	struct elfsym_result r;

	s->stats.vdso++;
	if (!s->vdso && s->opts.local_vdso)
		s->vdso = local_vdso(s);
	if (s->vdso && !s->opts.addresses &&
	    elfsym_file_lookup(s->vdso, off, is_ret, &r) && *r.name) {
		s->stats.vdso_resolved++;
		return emit(s, r.name, false, "");
	}
	return internf(s, "[vdso]+0x%llx", (unsigned long long)off);
}

enum elfsym_cfa symbolize_vdso_cfa(struct symbolizer *s, uint64_t off)
{
	if (!s->vdso && s->opts.local_vdso)
		s->vdso = local_vdso(s);
	return s->vdso ? elfsym_file_cfa(s->vdso, off) : ELFSYM_CFA_UNKNOWN;
}

/* The build-id of our own vDSO, read from its image; 0: none. */
static size_t local_vdso_build_id(unsigned char *bid, size_t max)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)(uintptr_t)base;
	size_t len = 0, off = 0, next, name_off, desc_off, size = 0;
	const Elf64_Phdr *phdrs;
	Elf_Data *data;
	GElf_Phdr ph;
	GElf_Nhdr nh;
	char *copy;
	Elf *elf;

	if (!base || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_phentsize != sizeof(Elf64_Phdr))
		return 0;
	/* The kernel maps the whole image: its extent is its segments'. */
	phdrs = (const Elf64_Phdr *)(uintptr_t)(base + eh->e_phoff);
	for (int i = 0; i < eh->e_phnum; i++)
		if (phdrs[i].p_type == PT_LOAD &&
		    phdrs[i].p_offset + phdrs[i].p_filesz > size)
			size = phdrs[i].p_offset + phdrs[i].p_filesz;
	if (!size)
		return 0;
	/* libelf wants a writable image. */
	copy = xmalloc(size);
	memcpy(copy, (const void *)(uintptr_t)base, size);
	elf = elf_memory(copy, size);
	for (int i = 0; elf && i < eh->e_phnum && !len; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_NOTE)
			continue;
		data = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset,
					    ph.p_filesz, ELF_T_NHDR);
		while (data && !len &&
		       (next = gelf_getnote(data, off, &nh, &name_off,
					    &desc_off))) {
			off = next;
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    nh.n_descsz && nh.n_descsz <= max &&
			    !memcmp((char *)data->d_buf + name_off, "GNU", 4)) {
				len = nh.n_descsz;
				memcpy(bid, (char *)data->d_buf + desc_off, len);
			}
		}
	}
	if (elf)
		elf_end(elf);
	free(copy);
	return len;
}

/*
 * The running kernel's 32-bit vDSO from DIR/vdso32.so, if DIR's 64-bit
 * vDSO is the build of our own (so DIR is the running kernel's): x86's
 * vdso64.so or arm64's vdso.so.
 */
static struct elfsym_file *vdso32_in(struct symbolizer *s, const char *dir,
				     const unsigned char *bid, size_t len)
{
	static const char *const names[] = { "vdso64.so", "vdso.so" };
	struct elfsym_file *f = NULL;
	char *p;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		p = xasprintf("%s/%s", dir, names[i]);
		f = elfsym_open(s->elf, p, bid, len);
		free(p);
		if (elfsym_file_status(f) == ELFSYM_OK)
			break;
	}
	if (elfsym_file_status(f) != ELFSYM_OK)
		return NULL;
	p = xasprintf("%s/vdso32.so", dir);
	f = elfsym_open(s->elf, p, NULL, 0);
	free(p);
	return elfsym_file_status(f) == ELFSYM_OK ? f : NULL;
}

static struct elfsym_file *local_vdso32(struct symbolizer *s)
{
	unsigned char bid[ELFSYM_BUILD_ID_MAX];
	struct elfsym_file *f = NULL;
	size_t len = local_vdso_build_id(bid, sizeof(bid));
	struct utsname u;
	char *dir;

	if (!len)
		return NULL;
	if (s->opts.vdso_dir)
		return vdso32_in(s, s->opts.vdso_dir, bid, len);
	if (uname(&u))
		return NULL;
	dir = xasprintf("/lib/modules/%s/vdso", u.release);
	f = vdso32_in(s, dir, bid, len);
	free(dir);
	if (!f) {
		dir = xasprintf("%s/lib/modules/%s/vdso", s->opts.debug_root ?
				s->opts.debug_root : "/usr/lib/debug",
				u.release);
		f = vdso32_in(s, dir, bid, len);
		free(dir);
	}
	return f;
}

static struct elfsym_file *vdso32(struct symbolizer *s)
{
	if (!s->vdso32_tried && s->opts.local_vdso) {
		s->vdso32 = local_vdso32(s);
		s->vdso32_tried = true;
	}
	return s->vdso32;
}

const char *symbolize_vdso32(struct symbolizer *s, uint64_t off, bool is_ret)
{
	struct elfsym_file *f = vdso32(s);
	struct elfsym_result r;

	s->stats.vdso++;
	if (f && !s->opts.addresses && elfsym_file_lookup(f, off, is_ret, &r) &&
	    *r.name) {
		s->stats.vdso_resolved++;
		return emit(s, r.name, false, "");
	}
	return internf(s, "[vdso]+0x%llx", (unsigned long long)off);
}

enum elfsym_cfa symbolize_vdso32_cfa(struct symbolizer *s, uint64_t off)
{
	struct elfsym_file *f = vdso32(s);

	return f ? elfsym_file_cfa(f, off) : ELFSYM_CFA_UNKNOWN;
}

static const char *kernel_addr(struct symbolizer *s, uint64_t addr)
{
	return internf(s, "0x%llx%s", (unsigned long long)addr,
		       s->opts.annotate ? "_[k]" : "");
}

static const char *kernel_frame(struct symbolizer *s, uint64_t addr,
				bool is_ret, bool *resolved)
{
	struct ksym_result r;

	*resolved = false;
	if (s->opts.addresses)
		return kernel_addr(s, addr);
	if (!s->ksyms && !s->opts.kallsyms)
		foreign_use(s, "kernel symbols (/proc/kallsyms)");
	if (!s->ksyms)
		s->ksyms = ksyms_load(s->opts.kallsyms);
	if (!ksyms_lookup(s->ksyms, addr, is_ret, &r))
		return kernel_addr(s, addr);
	*resolved = true;
	return emit(s, r.name, true, s->opts.annotate ? "_[k]" : "");
}

const char *symbolize_kernel(struct symbolizer *s, uint64_t addr, bool is_ret)
{
	const struct memo *m = memo_find(s, &kernel_owner, addr, is_ret);
	const char *str;
	bool resolved;

	s->stats.kernel++;
	if (m) {
		s->stats.kernel_resolved += m->resolved;
		return m->str;
	}
	str = kernel_frame(s, addr, is_ret, &resolved);
	s->stats.kernel_resolved += resolved;
	return memo_put(s, &kernel_owner, addr, is_ret, resolved, str);
}

const char *symbolize_kernel_named(struct symbolizer *s, const char *name,
				   uint64_t addr)
{
	s->stats.kernel++;
	if (s->opts.addresses || !name || !*name)
		return kernel_addr(s, addr);
	s->stats.kernel_resolved++;
	return emit(s, name, true, s->opts.annotate ? "_[k]" : "");
}

const char *symbolize_unknown(struct symbolizer *s, uint64_t addr)
{
	s->stats.unknown++;
	return internf(s, "[unknown]+0x%llx", (unsigned long long)addr);
}

void symbolizer_stats(const struct symbolizer *s, struct symbolize_stats *st)
{
	struct elfsym_stats es;

	*st = s->stats;
	elfsym_cache_stats(s->elf, &es);
	st->replaced_files = es.build_id_mismatch + es.inode_mismatch;
}

void symbolizer_dump(const struct symbolizer *s, FILE *out)
{
	const struct symbolize_stats *t = &s->stats;
	struct perfmap_stats ps;
	struct elfsym_stats es;

	elfsym_cache_stats(s->elf, &es);
	perfmap_cache_stats(s->perfmaps, &ps);
	fprintf(out, "symbols: user frames %lu (%lu resolved), JIT %lu (%lu), "
		"vDSO %lu (%lu), kernel %lu (%lu), unmapped %lu\n",
		t->user, t->user_resolved, t->jit, t->jit_resolved, t->vdso,
		t->vdso_resolved, t->kernel, t->kernel_resolved, t->unknown);
	fprintf(out, "symbols: %lu files, %lu with symbols (%lu from debug "
		"files, %lu replaced since recording), %lu symbols\n",
		es.files, es.with_symbols, es.debug_files,
		es.build_id_mismatch + es.inode_mismatch, es.symbols);
	elfsym_cache_dump(s->elf, out);
	if (s->opts.inline_frames || s->opts.lines) {
		struct inline_stats is;

		inline_cache_stats(s->elf, &is);
		fprintf(out, "inline: %lu of %lu files with DWARF, %lu of %lu "
			"addresses covered, %lu inlined frames in the stacks "
			"(%lu distinct), %.1f ms\n", is.with_dwarf, is.files,
			is.covered, is.lookups, t->inlined, is.inlined,
			t->dwarf_seconds * 1e3);
		inline_cache_dump(s->elf, out);
	}
	elfsym_cache_dinfod_dump(s->elf, out);
	if (s->ksyms)
		fprintf(out, "kallsyms: %s, %zu symbols\n",
			ksyms_state_str(ksyms_state(s->ksyms)),
			ksyms_count(s->ksyms));
	if (ps.files || t->jit)
		fprintf(out, "perf maps: %lu files, %lu entries, %lu bad "
			"lines\n", ps.files, ps.entries, ps.bad_lines);
}
