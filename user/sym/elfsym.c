// SPDX-License-Identifier: GPL-2.0
/* The ELF symbol cache: entries by path and build-id, which file to trust. */
#include "sym/elfsym.h"

#include "lib/util.h"
#include "sym/debuginfod.h"
#include "sym/elfsym_int.h"

#include <errno.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>

#define BTRFS_MAGIC		0x9123683eL
#define OVERLAYFS_MAGIC		0x794c7630L

static uint64_t hash_key(const char *path, const unsigned char *bid,
			 size_t len, uint64_t dev, uint64_t ino)
{
	uint64_t h = 0xcbf29ce484222325ULL;	/* FNV-1a */

	for (; *path; path++)
		h = (h ^ (unsigned char)*path) * 0x100000001b3ULL;
	h = (h ^ 0xff) * 0x100000001b3ULL;
	for (size_t i = 0; i < len; i++)
		h = (h ^ bid[i]) * 0x100000001b3ULL;
	return (h ^ dev ^ (ino * 0x9e3779b97f4a7c15ULL)) * 0x100000001b3ULL;
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
	if (opts && opts->debuginfod)
		c->dinfod = dinfod_new(opts->debuginfod_urls);
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
	cfi_free(f);
	inline_free(f);
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
	dinfod_free(c->dinfod);
	free((char *)c->opts.sysroot);
	free(c->debug_root);
	free(c);
}

/* --- loading an entry --- */

/* The kernel's new_encode_dev(), which the module records. */
static uint64_t encode_dev(dev_t d)
{
	uint64_t maj = major(d), min = minor(d);

	return (min & 0xff) | (maj << 8) | ((min & ~0xffULL) << 12);
}

/*
 * Is the open file @h the inode the module recorded? True when that cannot
 * be told: nothing recorded, a sysroot (copies), overlayfs (its st_dev and
 * st_ino are not the real file's the module saw). On btrfs st_dev is the
 * subvolume's, not the super block's: the inode alone is compared.
 */
static bool same_inode(const struct elfsym_cache *c,
		       const struct elfsym_file *f, const struct ehandle *h)
{
	struct statfs sfs;
	bool dev_ok;

	if ((!f->rec_dev && !f->rec_ino) || c->opts.sysroot[0])
		return true;
	if (fstatfs(h->fd, &sfs))
		return true;
	if (sfs.f_type == OVERLAYFS_MAGIC)
		return true;
	dev_ok = sfs.f_type == BTRFS_MAGIC || encode_dev(h->dev) == f->rec_dev;
	return dev_ok && (uint64_t)h->ino == f->rec_ino;
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
	f->status = err == -ENOENT ? ELFSYM_MISSING :
		    err == -ETIMEDOUT ? ELFSYM_UNANSWERED : ELFSYM_NOT_ELF;

	if (!err && want_len && !bid_matches(want, want_len, &bin)) {
		/* Replaced since the recording: its symbols would lie. */
		f->status = ELFSYM_BUILD_ID_MISMATCH;
		c->stats.build_id_mismatch++;
		eh_close(&bin);
	} else if (!err && !want_len && deleted) {
		f->status = ELFSYM_UNVERIFIED;
		eh_close(&bin);
	} else if (!err && !want_len && !same_inode(c, f, &bin)) {
		/* Another file at the path, no build-id to say it is alike. */
		f->status = ELFSYM_INODE_MISMATCH;
		c->stats.inode_mismatch++;
		eh_close(&bin);
	}
	if (!want_len && bin.elf) {
		want = bin.build_id;
		want_len = bin.build_id_len;
	}

	if (bin.elf) {
		load_segments(f, bin.elf, false);
		cfi_source(f, &bin);
		/*
		 * No .symtab: a separate debug file, else MiniDebugInfo's
		 * (its .symtab holds what .dynsym lacks: merged).
		 */
		if (!has_symtab(bin.elf) &&
		    !debug_by_build_id(c, want, want_len, &dbg) &&
		    !debug_by_link(c, &bin, f->path, &dbg) &&
		    !debug_by_debuginfod(c, want, want_len, &dbg))
			minidebug_open(&bin, &dbg);
	} else if (debug_by_build_id(c, want, want_len, &dbg) ||
		   debug_by_debuginfod(c, want, want_len, &dbg)) {
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

/*
 * The entry for a key, or a new empty one linked in (*created set). The
 * device and inode are part of the key only without a build-id.
 */
static struct elfsym_file *cache_get(struct elfsym_cache *c, const char *key,
				     const unsigned char *bid, size_t len,
				     uint64_t dev, uint64_t ino, bool *created)
{
	uint64_t h;
	struct elfsym_file *f;

	if (len > ELFSYM_BUILD_ID_MAX)
		len = ELFSYM_BUILD_ID_MAX;
	if (!bid)
		len = 0;
	if (len)
		dev = ino = 0;
	h = hash_key(key, bid, len, dev, ino);
	for (f = c->buckets[h & (c->nr_buckets - 1)]; f; f = f->next)
		if (f->hash == h && f->build_id_len == len &&
		    f->rec_dev == dev && f->rec_ino == ino &&
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
	f->rec_dev = dev;
	f->rec_ino = ino;
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
	return elfsym_open_inode(c, path, build_id, build_id_len, 0, 0);
}

struct elfsym_file *elfsym_open_inode(struct elfsym_cache *c,
				      const char *path,
				      const unsigned char *build_id,
				      size_t build_id_len, uint64_t dev,
				      uint64_t ino)
{
	bool created;
	struct elfsym_file *f = cache_get(c, path, build_id, build_id_len,
					  dev, ino, &created);

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
	struct elfsym_file *f = cache_get(c, name, NULL, 0, 0, 0, &created);
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
	if (f->nr_segs)
		cfi_image(f, copy, size);	/* the entry keeps the copy */
	else
		free(copy);
	account(c, f);
	return f;
}

/* --- status and statistics --- */

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
	case ELFSYM_INODE_MISMATCH:
		return "file replaced since recording (another inode at the path, no build-id to compare), not used";
	case ELFSYM_UNANSWERED:
		return "its file system did not answer (a stalled NFS or FUSE server?)";
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
	r = memcmp(x->build_id, y->build_id, x->build_id_len);
	if (r)
		return r;
	if (x->rec_dev != y->rec_dev)
		return x->rec_dev < y->rec_dev ? -1 : 1;
	return (x->rec_ino > y->rec_ino) - (x->rec_ino < y->rec_ino);
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
		if (f->status == ELFSYM_OK && f->nr_plt)
			fprintf(out, "%zu symbols and %zu PLT stubs from %s%s\n",
				f->nr_syms - f->nr_plt, f->nr_plt, f->symsrc,
				f->layout_guessed ? " (layout guessed)" : "");
		else if (f->status == ELFSYM_OK)
			fprintf(out, "%zu symbols from %s%s\n", f->nr_syms,
				f->symsrc, f->layout_guessed ?
				" (layout guessed)" : "");
		else
			fprintf(out, "%s\n", elfsym_status_str(f->status));
	}
	free(all);
}
