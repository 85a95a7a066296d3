// SPDX-License-Identifier: GPL-2.0
/* Per-file ELF symbol tables: loading with libelf, lookup by file offset. */
#include "sym/elfsym.h"

#include "lib/util.h"
#include "sym/demangle.h"

#include <uapi/flamestat.h>

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/*
 * Limits on what a (possibly hostile) file makes us allocate beyond its own
 * size. Real binaries are far below them.
 */
#define MAX_SECTIONS	(1U << 20)
#define MAX_SEGMENTS	4096
/* How far a lookup walks back over symbols that end before the address. */
#define MAX_WALK_BACK	32

/* A symbol kept for lookups. */
struct sym {
	uint64_t addr;
	uint64_t end;		/* exclusive */
	uint64_t cover_end;	/* max end of this and every earlier symbol */
	uint32_t name;		/* offset into file->names */
};

/* A PT_LOAD segment seen as a range of file offsets. */
struct seg {
	uint64_t off;
	uint64_t end;		/* exclusive */
	uint64_t vaddr;		/* of off */
	bool exec;
};

struct elfsym_file {
	struct elfsym_file *next;	/* hash chain */
	struct elfsym_cache *cache;
	char *path;			/* key: as recorded */
	unsigned char build_id[ELFSYM_BUILD_ID_MAX];	/* key */
	size_t build_id_len;
	uint64_t hash;
	enum elfsym_status status;
	char *symsrc;			/* file the symbols came from */
	bool layout_guessed;		/* segments reconstructed */
	struct seg *segs;
	size_t nr_segs;
	uint64_t *addrs;		/* syms[i].addr, searched alone */
	struct sym *syms;
	size_t nr_syms;
	char *names;			/* NUL-terminated names */
	char **demangled;		/* per symbol, filled on first use */
};

struct elfsym_cache {
	struct elfsym_opts opts;	/* strings owned */
	char *debug_root;
	struct elfsym_file **buckets;
	size_t nr_buckets;		/* power of two */
	size_t nr_files;
	struct elfsym_stats stats;
};

/* An opened ELF file (or image) and what identifies it on disk. */
struct ehandle {
	int fd;
	Elf *elf;
	char *path;
	dev_t dev;
	ino_t ino;
	unsigned char build_id[ELFSYM_BUILD_ID_MAX];
	size_t build_id_len;		/* stored bytes */
	size_t build_id_full;		/* bytes in the note */
};

/* Symbols being collected from one or two files. */
struct cand {
	uint64_t addr;
	uint64_t size;
	uint32_t name;			/* offset into the name pool */
	uint32_t name_len;
	uint8_t is_func;
	uint8_t bind_rank;		/* 2 global, 1 weak, 0 local */
	uint8_t underscores;
};

struct range {
	uint64_t start, end;
};

struct loader {
	struct cand *cands;
	size_t nr_cands, cap_cands;
	struct strbuf pool;
	struct range *exec;		/* executable sections */
	size_t nr_exec, cap_exec;
};

static uint64_t hash_key(const char *path, const unsigned char *bid,
			 size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;	/* FNV-1a */

	for (; *path; path++)
		h = (h ^ (unsigned char)*path) * 0x100000001b3ULL;
	h = (h ^ 0xff) * 0x100000001b3ULL;
	for (size_t i = 0; i < len; i++)
		h = (h ^ bid[i]) * 0x100000001b3ULL;
	return h;
}

struct elfsym_cache *elfsym_cache_new(const struct elfsym_opts *opts)
{
	struct elfsym_cache *c = xcalloc(1, sizeof(*c));
	const char *sysroot = opts && opts->sysroot ? opts->sysroot : "";

	/* libelf refuses to work until told which version we speak. */
	elf_version(EV_CURRENT);
	if (opts)
		c->opts.raw = opts->raw;
	c->opts.sysroot = xstrdup(sysroot);
	if (opts && opts->debug_root)
		c->debug_root = xstrdup(opts->debug_root);
	else
		c->debug_root = xasprintf("%s/usr/lib/debug", sysroot);
	c->nr_buckets = 64;
	c->buckets = xcalloc(c->nr_buckets, sizeof(struct elfsym_file *));
	return c;
}

static void file_free(struct elfsym_file *f)
{
	if (f->demangled) {
		for (size_t i = 0; i < f->nr_syms; i++)
			if (f->demangled[i] != f->names + f->syms[i].name)
				free(f->demangled[i]);
		free(f->demangled);
	}
	free(f->path);
	free(f->symsrc);
	free(f->segs);
	free(f->addrs);
	free(f->syms);
	free(f->names);
	free(f);
}

void elfsym_cache_free(struct elfsym_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nr_buckets; i++) {
		struct elfsym_file *f = c->buckets[i], *next;

		for (; f; f = next) {
			next = f->next;
			file_free(f);
		}
	}
	free(c->buckets);
	free((char *)c->opts.sysroot);
	free(c->debug_root);
	free(c);
}

/* --- opening files --- */

static void eh_close(struct ehandle *h)
{
	if (h->elf)
		elf_end(h->elf);
	if (h->fd >= 0)
		close(h->fd);
	free(h->path);
	memset(h, 0, sizeof(*h));
	h->fd = -1;
}

/* The GNU build-id note of an ELF file, from sections or else segments. */
static void note_build_id(struct ehandle *h, Elf_Data *data)
{
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;

	while (!h->build_id_full &&
	       (next = gelf_getnote(data, off, &nh, &name_off, &desc_off))) {
		const char *buf = data->d_buf;

		off = next;
		if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
		    memcmp(buf + name_off, ELF_NOTE_GNU, 4) || !nh.n_descsz)
			continue;
		h->build_id_full = nh.n_descsz;
		h->build_id_len = nh.n_descsz < ELFSYM_BUILD_ID_MAX ?
				  nh.n_descsz : ELFSYM_BUILD_ID_MAX;
		memcpy(h->build_id, buf + desc_off, h->build_id_len);
	}
}

static void read_build_id(struct ehandle *h)
{
	Elf_Scn *scn = NULL;
	size_t phnum;

	while (!h->build_id_full && (scn = elf_nextscn(h->elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		if (data && data->d_buf)
			note_build_id(h, data);
	}
	if (h->build_id_full || elf_getphdrnum(h->elf, &phnum))
		return;
	/* No section headers (sstrip): the PT_NOTE segments still say it. */
	for (size_t i = 0; i < phnum && i < MAX_SEGMENTS; i++) {
		GElf_Phdr ph;
		Elf_Data *data;

		if (!gelf_getphdr(h->elf, (int)i, &ph) ||
		    ph.p_type != PT_NOTE)
			continue;
		data = elf_getdata_rawchunk(h->elf, (int64_t)ph.p_offset,
					    ph.p_filesz, ph.p_align == 8 ?
					    ELF_T_NHDR8 : ELF_T_NHDR);
		if (data && data->d_buf)
			note_build_id(h, data);
		if (h->build_id_full)
			return;
	}
}

/* Check that h->elf is an ELF executable or shared object we can read. */
static bool eh_check(struct ehandle *h)
{
	GElf_Ehdr eh;

	if (!h->elf || elf_kind(h->elf) != ELF_K_ELF ||
	    !gelf_getehdr(h->elf, &eh))
		return false;
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)
		return false;
	read_build_id(h);
	return true;
}

/*
 * Open path as an ELF file. Returns 0, -ENOENT when there is no such
 * file, or -EINVAL when it is not a regular ELF file we can read.
 * O_NONBLOCK keeps a FIFO planted at the path from blocking us.
 */
static int eh_open(struct ehandle *h, const char *path)
{
	struct stat st;

	memset(h, 0, sizeof(*h));
	h->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (h->fd < 0)
		return errno == ENOENT || errno == ENOTDIR ? -ENOENT : -EINVAL;
	if (fstat(h->fd, &st) || !S_ISREG(st.st_mode)) {
		eh_close(h);
		return -EINVAL;
	}
	h->dev = st.st_dev;
	h->ino = st.st_ino;
	h->path = xstrdup(path);
	/* ELF_C_READ, not _MMAP: a file truncated under us must not SIGBUS. */
	h->elf = elf_begin(h->fd, ELF_C_READ, NULL);
	if (!eh_check(h)) {
		eh_close(h);
		return -EINVAL;
	}
	return 0;
}

static bool bid_matches(const unsigned char *want, size_t want_len,
			const struct ehandle *h)
{
	if (!want_len || !h->build_id_full)
		return false;
	if (want_len == h->build_id_full)
		return want_len <= ELFSYM_BUILD_ID_MAX &&
		       !memcmp(want, h->build_id, want_len);
	/* The module stores at most FLAMESTAT_BUILD_ID_SIZE bytes. */
	return want_len == FLAMESTAT_BUILD_ID_SIZE &&
	       h->build_id_full > want_len &&
	       !memcmp(want, h->build_id, want_len);
}

static Elf_Scn *find_section(Elf *elf, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, sh))
			continue;
		n = elf_strptr(elf, shstrndx, sh->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

static bool has_symtab(Elf *elf)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB &&
		    sh.sh_size)
			return true;
	}
	return false;
}

/* zlib's crc32 of a whole file, as .gnu_debuglink records it. */
static bool file_crc32(int fd, uint32_t *out)
{
	const size_t bufsz = 1 << 16;
	unsigned char *buf = xmalloc(bufsz);
	uLong crc = crc32(0L, Z_NULL, 0);
	off_t pos = 0;
	ssize_t n;

	while ((n = pread(fd, buf, bufsz, pos)) > 0) {
		crc = crc32(crc, buf, (uInt)n);
		pos += n;
	}
	free(buf);
	if (n < 0)
		return false;
	*out = (uint32_t)crc;
	return true;
}

static void hex_build_id(const unsigned char *bid, size_t len, char *out)
{
	static const char hex[] = "0123456789abcdef";

	for (size_t i = 0; i < len; i++) {
		out[2 * i] = hex[bid[i] >> 4];
		out[2 * i + 1] = hex[bid[i] & 15];
	}
	out[2 * len] = '\0';
}

/* <debug_root>/.build-id/xx/rest.debug, with a matching build-id. */
static bool debug_by_build_id(struct elfsym_cache *c, const unsigned char *bid,
			      size_t len, struct ehandle *out)
{
	char hex[2 * ELFSYM_BUILD_ID_MAX + 1];
	char *path;
	bool ok;

	if (len < 2 || len > ELFSYM_BUILD_ID_MAX)
		return false;
	hex_build_id(bid, len, hex);
	path = xasprintf("%s/.build-id/%.2s/%s.debug", c->debug_root, hex,
			 hex + 2);
	ok = !eh_open(out, path);
	free(path);
	if (ok && (!bid_matches(bid, len, out) || !has_symtab(out->elf))) {
		eh_close(out);
		ok = false;
	}
	return ok;
}

/*
 * The file .gnu_debuglink of bin names, in the places gdb looks, with the
 * same build-id or, when either file has none, the CRC32 the link records.
 */
static bool debug_by_link(struct elfsym_cache *c, struct ehandle *bin,
			  const char *recorded_path, struct ehandle *out)
{
	const unsigned char *d;
	GElf_Shdr sh;
	GElf_Ehdr eh;
	Elf_Data *data;
	Elf_Scn *scn;
	size_t nlen, crc_off;
	uint32_t crc;
	char *dir, *rdir;
	bool found = false;

	scn = find_section(bin->elf, ".gnu_debuglink", &sh);
	if (!scn || sh.sh_type == SHT_NOBITS ||
	    !(data = elf_getdata(scn, NULL)) || !data->d_buf ||
	    !gelf_getehdr(bin->elf, &eh))
		return false;
	d = data->d_buf;
	nlen = strnlen((const char *)d, data->d_size);
	crc_off = (nlen + 4) & ~(size_t)3;	/* past the NUL, 4-aligned */
	if (!nlen || nlen == data->d_size || crc_off + 4 > data->d_size ||
	    memchr(d, '/', nlen))
		return false;
	if (eh.e_ident[EI_DATA] == ELFDATA2MSB)
		crc = (uint32_t)d[crc_off] << 24 | (uint32_t)d[crc_off + 1] << 16 |
		      (uint32_t)d[crc_off + 2] << 8 | d[crc_off + 3];
	else
		crc = (uint32_t)d[crc_off + 3] << 24 |
		      (uint32_t)d[crc_off + 2] << 16 |
		      (uint32_t)d[crc_off + 1] << 8 | d[crc_off];

	dir = xstrdup(bin->path);
	*strrchr(dir, '/') = '\0';	/* bin->path always has a slash */
	rdir = xstrdup(recorded_path);
	*strrchr(rdir, '/') = '\0';
	for (int i = 0; i < 3 && !found; i++) {
		uint32_t got;
		const char *name = (const char *)d;
		char *p = i == 0 ? xasprintf("%s/%s", dir, name) :
			  i == 1 ? xasprintf("%s/.debug/%s", dir, name) :
			  xasprintf("%s%s/%s", c->debug_root, rdir, name);

		if (!eh_open(out, p)) {
			/*
			 * Equal build-ids say more than the CRC, and spare
			 * reading a big debug file whole; without them the
			 * CRC decides.
			 */
			found = !(out->dev == bin->dev &&
				  out->ino == bin->ino) &&
				has_symtab(out->elf) &&
				(bin->build_id_full && out->build_id_full ?
				 bid_matches(bin->build_id, bin->build_id_len,
					     out) :
				 file_crc32(out->fd, &got) && got == crc);
			if (!found)
				eh_close(out);
		}
		free(p);
	}
	free(dir);
	free(rdir);
	return found;
}

/* --- collecting symbols --- */

static void add_exec_range(struct loader *ld, uint64_t start, uint64_t size)
{
	if (!size || start + size < start)
		return;
	if (ld->nr_exec == ld->cap_exec) {
		ld->cap_exec = ld->cap_exec ? ld->cap_exec * 2 : 16;
		ld->exec = xreallocarray(ld->exec, ld->cap_exec,
					 sizeof(*ld->exec));
	}
	ld->exec[ld->nr_exec++] = (struct range){ start, start + size };
}

static void add_cand(struct loader *ld, const GElf_Sym *s, const char *name)
{
	size_t len = strcspn(name, "@");
	struct cand *c;
	uint8_t u = 0;

	/* "memcpy@@GLIBC_2.14" names memcpy; "@" alone is no name. */
	if (!len || ld->pool.len + len + 1 > UINT32_MAX)
		return;
	if (ld->nr_cands == ld->cap_cands) {
		ld->cap_cands = ld->cap_cands ? ld->cap_cands * 2 : 1024;
		ld->cands = xreallocarray(ld->cands, ld->cap_cands,
					  sizeof(*ld->cands));
	}
	while (u < len && u < 255 && name[u] == '_')
		u++;
	c = &ld->cands[ld->nr_cands++];
	c->addr = s->st_value;
	c->size = s->st_size;
	c->name = (uint32_t)ld->pool.len;
	c->name_len = (uint32_t)len;
	c->is_func = GELF_ST_TYPE(s->st_info) != STT_NOTYPE;
	switch (GELF_ST_BIND(s->st_info)) {
	case STB_GLOBAL:
	case STB_GNU_UNIQUE:
		c->bind_rank = 2;
		break;
	case STB_WEAK:
		c->bind_rank = 1;
		break;
	default:
		c->bind_rank = 0;
	}
	c->underscores = u;
	sb_add(&ld->pool, name, len);
	sb_add(&ld->pool, "", 1);
}

/*
 * Add the function symbols of every SHT_SYMTAB and SHT_DYNSYM section of
 * elf. Returns how many came from a SHT_SYMTAB.
 */
static size_t collect(struct loader *ld, Elf *elf)
{
	size_t shnum, from_symtab = 0;
	Elf_Scn *scn = NULL;
	bool *exec;

	if (elf_getshdrnum(elf, &shnum) || shnum > MAX_SECTIONS)
		return 0;
	exec = xcalloc(shnum ? shnum : 1, sizeof(*exec));
	while ((scn = elf_nextscn(elf, scn))) {
		size_t idx = elf_ndxscn(scn);
		GElf_Shdr sh;

		if (idx < shnum && gelf_getshdr(scn, &sh) &&
		    (sh.sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) ==
		    (SHF_ALLOC | SHF_EXECINSTR)) {
			exec[idx] = true;
			add_exec_range(ld, sh.sh_addr, sh.sh_size);
		}
	}
	while ((scn = elf_nextscn(elf, scn))) {
		size_t entsize = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
		Elf_Data *data;
		GElf_Shdr sh;
		size_t n;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf || !entsize)
			continue;
		n = data->d_size / entsize;
		for (size_t i = 1; i < n; i++) {
			const char *name;
			GElf_Sym s;
			int type;

			if (i > INT_MAX || !gelf_getsym(data, (int)i, &s))
				break;
			type = GELF_ST_TYPE(s.st_info);
			if (s.st_shndx == SHN_UNDEF || !s.st_value)
				continue;
			if (type == STT_NOTYPE) {
				if (s.st_shndx >= shnum || !exec[s.st_shndx])
					continue;
			} else if (type != STT_FUNC && type != STT_GNU_IFUNC) {
				continue;
			}
			name = elf_strptr(elf, sh.sh_link, s.st_name);
			if (!name || !*name ||
			    (type == STT_NOTYPE &&
			     (name[0] == '.' || name[0] == '$')))
				continue;
			add_cand(ld, &s, name);
			if (sh.sh_type == SHT_SYMTAB)
				from_symtab++;
		}
	}
	free(exec);
	return from_symtab;
}

/* Sort by address, then best alias first (see elfsym.h). */
static int cand_cmp(const void *a, const void *b, void *arg)
{
	const struct cand *x = a, *y = b;
	const char *pool = arg;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->is_func != y->is_func)
		return x->is_func ? -1 : 1;
	if (!x->size != !y->size)
		return x->size ? -1 : 1;
	if (x->bind_rank != y->bind_rank)
		return x->bind_rank > y->bind_rank ? -1 : 1;
	if (x->underscores != y->underscores)
		return x->underscores < y->underscores ? -1 : 1;
	if (x->name_len != y->name_len)
		return x->name_len < y->name_len ? -1 : 1;
	return strcmp(pool + x->name, pool + y->name);
}

static int range_cmp(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return 0;
}

/* End of the executable section holding addr, or 0 when none does. */
static uint64_t exec_end(const struct loader *ld, uint64_t addr)
{
	size_t lo = 0, hi = ld->nr_exec;
	uint64_t end = 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ld->exec[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Sections may nest or repeat across files: take the widest. */
	for (size_t i = lo; i-- > 0 && lo - i <= 8;)
		if (ld->exec[i].end > addr && ld->exec[i].end > end)
			end = ld->exec[i].end;
	return end;
}

/* Turn the candidates into the file's sorted, alias-free table. */
static void finish_syms(struct elfsym_file *f, struct loader *ld)
{
	size_t n = 0;
	uint64_t cover = 0;

	if (ld->nr_cands)
		qsort_r(ld->cands, ld->nr_cands, sizeof(*ld->cands), cand_cmp,
			ld->pool.buf);
	if (ld->nr_exec)
		qsort(ld->exec, ld->nr_exec, sizeof(*ld->exec), range_cmp);
	f->syms = xreallocarray(NULL, ld->nr_cands, sizeof(*f->syms));
	for (size_t i = 0; i < ld->nr_cands; i++) {
		const struct cand *c = &ld->cands[i];
		uint64_t end, limit = exec_end(ld, c->addr);
		size_t j = i + 1;

		if (i && c->addr == ld->cands[i - 1].addr)
			continue;	/* an alias of a better name */
		while (j < ld->nr_cands && ld->cands[j].addr == c->addr)
			j++;
		if (c->size) {
			end = c->addr + c->size < c->addr ?
			      UINT64_MAX : c->addr + c->size;
		} else if (j < ld->nr_cands) {
			end = ld->cands[j].addr;
		} else {
			end = limit;	/* last symbol: to its section end */
		}
		if (limit && end > limit)
			end = limit;
		if (end <= c->addr)
			continue;
		if (end > cover)
			cover = end;
		f->syms[n++] = (struct sym){
			.addr = c->addr, .end = end, .cover_end = cover,
			.name = c->name,
		};
	}
	f->nr_syms = n;
	/* A dense array of addresses keeps the binary search in cache. */
	f->addrs = xreallocarray(NULL, n, sizeof(*f->addrs));
	for (size_t i = 0; i < n; i++)
		f->addrs[i] = f->syms[i].addr;
	f->names = ld->pool.buf;
	ld->pool.buf = NULL;
	sb_free(&ld->pool);
}

/* --- program headers --- */

static int seg_cmp(const void *a, const void *b)
{
	const struct seg *x = a, *y = b;

	if (x->exec != y->exec)
		return x->exec ? -1 : 1;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return 0;
}

/*
 * The PT_LOAD segments as file offset ranges. guess: the file offsets in
 * the headers are not the original ones (a separate debug file); rebuild
 * them as described in elfsym.h.
 */
static void load_segments(struct elfsym_file *f, Elf *elf, bool guess)
{
	uint64_t prev_end = 0;
	size_t phnum;

	if (elf_getphdrnum(elf, &phnum) || !phnum)
		return;
	if (phnum > MAX_SEGMENTS)
		phnum = MAX_SEGMENTS;
	f->segs = xreallocarray(NULL, phnum, sizeof(*f->segs));
	for (size_t i = 0; i < phnum; i++) {
		uint64_t off, size;
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (guess) {
			uint64_t align = ph.p_align, want;

			if (align < 4096 || (align & (align - 1)))
				align = 4096;
			want = ph.p_vaddr & (align - 1);
			if (prev_end <= want)
				off = want;
			else
				off = ((prev_end - want + align - 1) &
				       ~(align - 1)) + want;
			size = ph.p_memsz;
		} else {
			off = ph.p_offset;
			size = ph.p_filesz;
		}
		if (!size || off + size < off ||
		    ph.p_vaddr + size < ph.p_vaddr)
			continue;
		prev_end = off + size;
		f->segs[f->nr_segs++] = (struct seg){
			.off = off, .end = off + size, .vaddr = ph.p_vaddr,
			.exec = ph.p_flags & PF_X,
		};
	}
	qsort(f->segs, f->nr_segs, sizeof(*f->segs), seg_cmp);
}

/* --- loading an entry --- */

/* Symbols from bin (may be closed) and dbg (may be closed) into f. */
static void load_symbols(struct elfsym_file *f, struct ehandle *bin,
			 struct ehandle *dbg)
{
	struct loader ld = { 0 };

	if (dbg->elf)
		collect(&ld, dbg->elf);
	if (bin->elf)
		collect(&ld, bin->elf);
	finish_syms(f, &ld);
	free(ld.cands);
	free(ld.exec);
	if (f->nr_syms) {
		f->status = ELFSYM_OK;
		f->symsrc = xstrdup(dbg->elf ? dbg->path : bin->path);
	} else {
		f->status = ELFSYM_NO_SYMBOLS;
	}
}

static void load_file(struct elfsym_cache *c, struct elfsym_file *f)
{
	struct ehandle bin = { .fd = -1 }, dbg = { .fd = -1 };
	const char *del = " (deleted)";
	const unsigned char *want = f->build_id;
	size_t want_len = f->build_id_len;
	size_t plen = strlen(f->path);
	bool deleted = path_has_suffix(f->path, del);
	char *path;
	int err;

	if (deleted)
		plen -= strlen(del);
	path = xasprintf("%s%.*s", c->opts.sysroot, (int)plen, f->path);
	/* The module records absolute paths; anything else is not a file. */
	err = f->path[0] == '/' ? eh_open(&bin, path) : -ENOENT;
	free(path);
	f->status = err == -ENOENT ? ELFSYM_MISSING : ELFSYM_NOT_ELF;

	if (!err && want_len && !bid_matches(want, want_len, &bin)) {
		/* Replaced since the recording: its symbols would lie. */
		f->status = ELFSYM_BUILD_ID_MISMATCH;
		c->stats.build_id_mismatch++;
		eh_close(&bin);
	} else if (!err && !want_len && deleted) {
		f->status = ELFSYM_UNVERIFIED;
		eh_close(&bin);
	}
	if (!want_len && bin.elf) {
		want = bin.build_id;
		want_len = bin.build_id_len;
	}

	if (bin.elf) {
		load_segments(f, bin.elf, false);
		if (!has_symtab(bin.elf) &&
		    !debug_by_build_id(c, want, want_len, &dbg))
			debug_by_link(c, &bin, f->path, &dbg);
	} else if (debug_by_build_id(c, want, want_len, &dbg)) {
		load_segments(f, dbg.elf, true);
		f->layout_guessed = true;
	}
	if (bin.elf || dbg.elf) {
		load_symbols(f, &bin, &dbg);
		if (f->status == ELFSYM_OK && dbg.elf)
			c->stats.debug_files++;
	}
	if (!f->nr_segs && f->status == ELFSYM_OK)
		f->status = ELFSYM_NOT_ELF;	/* nothing maps offsets */
	eh_close(&bin);
	eh_close(&dbg);
}

static void cache_grow(struct elfsym_cache *c)
{
	size_t n = c->nr_buckets * 2;
	struct elfsym_file **b = xcalloc(n, sizeof(struct elfsym_file *));

	for (size_t i = 0; i < c->nr_buckets; i++) {
		struct elfsym_file *f = c->buckets[i], *next;

		for (; f; f = next) {
			next = f->next;
			f->next = b[f->hash & (n - 1)];
			b[f->hash & (n - 1)] = f;
		}
	}
	free(c->buckets);
	c->buckets = b;
	c->nr_buckets = n;
}

/* The entry for a key, or a new empty one linked in (*created set). */
static struct elfsym_file *cache_get(struct elfsym_cache *c, const char *key,
				     const unsigned char *bid, size_t len,
				     bool *created)
{
	uint64_t h;
	struct elfsym_file *f;

	if (len > ELFSYM_BUILD_ID_MAX)
		len = ELFSYM_BUILD_ID_MAX;
	if (!bid)
		len = 0;
	h = hash_key(key, bid, len);
	for (f = c->buckets[h & (c->nr_buckets - 1)]; f; f = f->next)
		if (f->hash == h && f->build_id_len == len &&
		    !memcmp(f->build_id, bid ? bid : f->build_id, len) &&
		    !strcmp(f->path, key)) {
			*created = false;
			return f;
		}
	if (c->nr_files >= c->nr_buckets)
		cache_grow(c);
	f = xcalloc(1, sizeof(*f));
	f->cache = c;
	f->path = xstrdup(key);
	if (len)
		memcpy(f->build_id, bid, len);
	f->build_id_len = len;
	f->hash = h;
	f->next = c->buckets[h & (c->nr_buckets - 1)];
	c->buckets[h & (c->nr_buckets - 1)] = f;
	c->nr_files++;
	c->stats.files++;
	*created = true;
	return f;
}

static void account(struct elfsym_cache *c, const struct elfsym_file *f)
{
	if (f->status == ELFSYM_OK) {
		c->stats.with_symbols++;
		c->stats.symbols += f->nr_syms;
	}
}

struct elfsym_file *elfsym_open(struct elfsym_cache *c, const char *path,
				const unsigned char *build_id,
				size_t build_id_len)
{
	bool created;
	struct elfsym_file *f = cache_get(c, path, build_id, build_id_len,
					  &created);

	if (created) {
		load_file(c, f);
		account(c, f);
	}
	return f;
}

struct elfsym_file *elfsym_open_image(struct elfsym_cache *c,
				      const char *name, const void *image,
				      size_t size)
{
	struct ehandle h = { .fd = -1 };
	struct ehandle none = { .fd = -1 };
	bool created;
	struct elfsym_file *f = cache_get(c, name, NULL, 0, &created);
	char *copy;

	if (!created)
		return f;
	f->status = ELFSYM_NOT_ELF;
	/* libelf wants a writable image; a copy also outlives the caller's. */
	copy = xmalloc(size);
	memcpy(copy, image, size);
	h.elf = elf_memory(copy, size);
	h.path = xstrdup(name);
	if (eh_check(&h)) {
		load_segments(f, h.elf, false);
		load_symbols(f, &h, &none);
		if (!f->nr_segs)
			f->status = ELFSYM_NOT_ELF;
	}
	eh_close(&h);
	free(copy);
	account(c, f);
	return f;
}

/* --- lookups --- */

static bool offset_to_vaddr(const struct elfsym_file *f, uint64_t off,
			    uint64_t *vaddr)
{
	for (size_t i = 0; i < f->nr_segs; i++)
		if (off >= f->segs[i].off && off < f->segs[i].end) {
			*vaddr = off - f->segs[i].off + f->segs[i].vaddr;
			return true;
		}
	return false;
}

static const struct sym *find_sym(const struct elfsym_file *f, uint64_t addr)
{
	const uint64_t *a = f->addrs;
	size_t lo = 0, n = f->nr_syms;

	if (!n || a[0] > addr)
		return NULL;
	/*
	 * Branch-free: the largest i with a[i] <= addr. Random frames make
	 * the branches of a classic binary search mispredict half the time.
	 */
	while (n > 1) {
		size_t half = n / 2;

		lo = a[lo + half] <= addr ? lo + half : lo;
		n -= half;
	}
	lo++;
	/*
	 * syms[lo - 1] starts at or before addr. Usually it covers addr;
	 * if not, an earlier, longer symbol may (one function nested in
	 * another's range). cover_end says when no earlier one can.
	 */
	for (size_t i = lo; i-- > 0 && lo - i <= MAX_WALK_BACK;) {
		if (f->syms[i].cover_end <= addr)
			break;
		if (f->syms[i].end > addr)
			return &f->syms[i];
	}
	return NULL;
}

static const char *sym_name(struct elfsym_file *f, const struct sym *s)
{
	size_t i = (size_t)(s - f->syms);
	char *raw = f->names + s->name;

	if (f->cache->opts.raw)
		return raw;
	if (!f->demangled)
		f->demangled = xcalloc(f->nr_syms, sizeof(*f->demangled));
	if (!f->demangled[i]) {
		char *d = demangle(raw);

		f->demangled[i] = d ? d : raw;
	}
	return f->demangled[i];
}

bool elfsym_file_lookup(struct elfsym_file *f, uint64_t off, bool is_ret,
			struct elfsym_result *out)
{
	uint64_t vaddr, look;
	const struct sym *s;

	memset(out, 0, sizeof(*out));
	f->cache->stats.lookups++;
	if (is_ret && !off)
		return false;
	look = is_ret ? off - 1 : off;
	if (!offset_to_vaddr(f, look, &vaddr))
		return false;
	out->vaddr = is_ret ? vaddr + 1 : vaddr;
	s = find_sym(f, vaddr);
	if (!s)
		return false;
	out->name = sym_name(f, s);
	out->offset = out->vaddr - s->addr;
	f->cache->stats.resolved++;
	return true;
}

bool elfsym_lookup(struct elfsym_cache *c, const char *path,
		   const unsigned char *build_id, size_t build_id_len,
		   uint64_t off, bool is_ret, struct elfsym_result *out)
{
	return elfsym_file_lookup(elfsym_open(c, path, build_id, build_id_len),
				  off, is_ret, out);
}

enum elfsym_status elfsym_file_status(const struct elfsym_file *f)
{
	return f->status;
}

const char *elfsym_file_path(const struct elfsym_file *f)
{
	return f->path;
}

const char *elfsym_status_str(enum elfsym_status s)
{
	switch (s) {
	case ELFSYM_OK:
		return "ok";
	case ELFSYM_MISSING:
		return "file not found";
	case ELFSYM_NOT_ELF:
		return "not a readable ELF file";
	case ELFSYM_NO_SYMBOLS:
		return "no symbols (stripped, no debug file found)";
	case ELFSYM_BUILD_ID_MISMATCH:
		return "file replaced since recording (build-id differs), no debug file";
	case ELFSYM_UNVERIFIED:
		return "deleted since recording and no build-id to verify a replacement";
	}
	return "?";
}

void elfsym_cache_stats(const struct elfsym_cache *c, struct elfsym_stats *st)
{
	*st = c->stats;
}

static int file_cmp(const void *a, const void *b)
{
	const struct elfsym_file *x = *(const struct elfsym_file *const *)a;
	const struct elfsym_file *y = *(const struct elfsym_file *const *)b;
	int r = strcmp(x->path, y->path);

	if (r)
		return r;
	if (x->build_id_len != y->build_id_len)
		return x->build_id_len < y->build_id_len ? -1 : 1;
	return memcmp(x->build_id, y->build_id, x->build_id_len);
}

void elfsym_cache_dump(const struct elfsym_cache *c, FILE *out)
{
	struct elfsym_file **all = xcalloc(c->nr_files,
					   sizeof(struct elfsym_file *));
	char hex[2 * ELFSYM_BUILD_ID_MAX + 1];
	size_t n = 0;

	for (size_t i = 0; i < c->nr_buckets; i++)
		for (struct elfsym_file *f = c->buckets[i]; f; f = f->next)
			all[n++] = f;
	qsort(all, n, sizeof(struct elfsym_file *), file_cmp);
	for (size_t i = 0; i < n; i++) {
		const struct elfsym_file *f = all[i];

		hex_build_id(f->build_id, f->build_id_len, hex);
		fprintf(out, "%s [%s]: ", f->path, f->build_id_len ? hex : "-");
		if (f->status == ELFSYM_OK)
			fprintf(out, "%zu symbols from %s%s\n", f->nr_syms,
				f->symsrc, f->layout_guessed ?
				" (layout guessed)" : "");
		else
			fprintf(out, "%s\n", elfsym_status_str(f->status));
	}
	free(all);
}
