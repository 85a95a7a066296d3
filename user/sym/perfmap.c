// SPDX-License-Identifier: GPL-2.0
/* Parser and lookup for /tmp/perf-PID.map files written by JIT compilers. */
#include "sym/perfmap.h"

#include "lib/util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A line of the file. */
struct entry {
	uint64_t start, end;	/* [start, end) */
	size_t line;		/* later lines win */
	size_t name;		/* offset into map->names */
};

/* A piece of the address space and the line that owns it. */
struct piece {
	uint64_t start, end;
	uint32_t entry;
};

struct pmap {
	struct pmap *next;		/* hash chain */
	uint32_t tgid, ns_tgid;		/* key */
	struct entry *entries;
	struct piece *pieces;		/* sorted, disjoint */
	size_t nr_pieces;
	char *names;
};

#define NR_BUCKETS 256

struct perfmap_cache {
	char *dir;
	char *proc;
	struct pmap *buckets[NR_BUCKETS];
	struct perfmap_stats stats;
};

struct perfmap_cache *perfmap_cache_new(const char *dir, const char *proc)
{
	struct perfmap_cache *c = xcalloc(1, sizeof(*c));

	c->dir = xstrdup(dir ? dir : "/tmp");
	c->proc = xstrdup(proc ? proc : "/proc");
	return c;
}

void perfmap_cache_free(struct perfmap_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < NR_BUCKETS; i++) {
		struct pmap *m = c->buckets[i], *next;

		for (; m; m = next) {
			next = m->next;
			free(m->entries);
			free(m->pieces);
			free(m->names);
			free(m);
		}
	}
	free(c->dir);
	free(c->proc);
	free(c);
}

/* A hex number (optional 0x) followed by blanks; NULL if there is none. */
static const char *parse_hex(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	int digits = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	for (; isxdigit((unsigned char)*s); s++, digits++) {
		int d = isdigit((unsigned char)*s) ? *s - '0' :
			tolower((unsigned char)*s) - 'a' + 10;

		if (digits == 16)
			return NULL;	/* more than 64 bits */
		v = v << 4 | (uint64_t)d;
	}
	if (!digits || (*s != ' ' && *s != '\t'))
		return NULL;
	while (*s == ' ' || *s == '\t')
		s++;
	*out = v;
	return s;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* A max-heap of entry indexes ordered by line: the newest on top. */
struct heap {
	uint32_t *v;
	size_t n;
};

static void heap_push(struct heap *h, const struct entry *e, uint32_t idx)
{
	size_t i = h->n++;

	while (i) {
		size_t parent = (i - 1) / 2;

		if (e[h->v[parent]].line >= e[idx].line)
			break;
		h->v[i] = h->v[parent];
		i = parent;
	}
	h->v[i] = idx;
}

static void heap_pop(struct heap *h, const struct entry *e)
{
	uint32_t last = h->v[--h->n];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && e[h->v[c + 1]].line > e[h->v[c]].line)
			c++;
		if (e[last].line >= e[h->v[c]].line)
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	if (h->n)
		h->v[i] = last;
}

/*
 * Cut the address space at every start and end, and give each piece to
 * the newest line covering it: a sweep with a heap of the lines open.
 */
static void build_pieces(struct pmap *m, size_t n)
{
	const struct entry *e = m->entries;
	uint64_t *pts = xreallocarray(NULL, 2 * n, sizeof(*pts));
	struct heap h = { xreallocarray(NULL, n, sizeof(uint32_t)), 0 };
	size_t np = 0, next = 0;

	for (size_t i = 0; i < n; i++) {
		pts[2 * i] = e[i].start;
		pts[2 * i + 1] = e[i].end;
	}
	qsort(pts, 2 * n, sizeof(*pts), u64_cmp);
	m->pieces = xreallocarray(NULL, 2 * n, sizeof(*m->pieces));
	for (size_t p = 0; p + 1 < 2 * n; p++) {
		uint64_t at = pts[p], to = pts[p + 1];
		struct piece *last;

		if (at == to)
			continue;
		while (next < n && e[next].start <= at)
			heap_push(&h, e, (uint32_t)next++);
		while (h.n && e[h.v[0]].end <= at)
			heap_pop(&h, e);
		if (!h.n)
			continue;
		last = np ? &m->pieces[np - 1] : NULL;
		if (last && last->entry == h.v[0] && last->end == at)
			last->end = to;
		else
			m->pieces[np++] = (struct piece){ at, to, h.v[0] };
	}
	m->nr_pieces = np;
	free(pts);
	free(h.v);
}

static void load(struct perfmap_cache *c, struct pmap *m, FILE *f)
{
	struct strbuf names = { 0 };
	size_t n = 0, cap = 0, lineno = 0, len = 0;
	char *line = NULL;
	ssize_t got;

	c->stats.files++;
	while ((got = getline(&line, &len, f)) > 0) {
		uint64_t start, size;
		const char *p;
		size_t nlen = (size_t)got;

		lineno++;
		while (nlen && (line[nlen - 1] == '\n' || line[nlen - 1] == '\r'))
			line[--nlen] = '\0';
		p = parse_hex(line, &start);
		p = p ? parse_hex(p, &size) : NULL;
		if (!p || !*p || !size || start + size < start ||
		    n >= UINT32_MAX || strlen(p) != nlen - (size_t)(p - line)) {
			if (nlen)	/* blank lines are no error */
				c->stats.bad_lines++;
			continue;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			m->entries = xreallocarray(m->entries, cap,
						   sizeof(*m->entries));
		}
		m->entries[n++] = (struct entry){
			.start = start, .end = start + size, .line = lineno,
			.name = names.len,
		};
		sb_add(&names, p, strlen(p) + 1);
	}
	free(line);
	c->stats.entries += n;
	m->names = names.buf;
	if (!n)
		return;
	qsort(m->entries, n, sizeof(*m->entries), entry_cmp);
	build_pieces(m, n);
}

/*
 * Whose map may name a process's code. perf's rule (dso__load()): the
 * reader's (effective uid) or root's, since anyone may write /tmp/perf-PID.map
 * for another user's PID. Also the live process's owner (the owner of
 * <proc>/<tgid>, its effective uid), which is who a JIT runs as: root
 * reading a user's JIT map, or a container's user seen from the host.
 */
static bool owner_ok(const struct perfmap_cache *c, uid_t uid, uint32_t tgid)
{
	struct stat st;
	char *path;
	bool ok;

	if (uid == 0 || uid == geteuid())
		return true;
	path = xasprintf("%s/%u", c->proc, tgid);
	ok = !stat(path, &st) && st.st_uid == uid;
	free(path);
	return ok;
}

/*
 * Open a perf map only if it is a regular file (a FIFO must not hang us;
 * not a symbolic link, whoever owns its target) owned as owner_ok() says.
 * A file that is there but refused is warned about.
 */
static FILE *open_map(const struct perfmap_cache *c, const char *path,
		      uint32_t tgid)
{
	struct stat st;
	FILE *f;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);

	if (fd < 0) {
		if (errno == ELOOP)
			fs_warn("%s: a symbolic link, not a regular file; ignored", path);
		return NULL;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		fs_warn("%s: not a regular file; ignored", path);
		close(fd);
		return NULL;
	}
	if (!owner_ok(c, st.st_uid, tgid)) {
		fs_warn("%s: owned by uid %u, not by you, root or process %u's owner; ignored (anyone may write a perf map for another user's process)",
			path, (unsigned int)st.st_uid, tgid);
		close(fd);
		return NULL;
	}
	f = fdopen(fd, "r");
	if (!f)
		close(fd);
	return f;
}

static struct pmap *get_map(struct perfmap_cache *c, uint32_t tgid,
			    uint32_t ns_tgid)
{
	size_t b = (tgid * 2654435761U ^ ns_tgid) % NR_BUCKETS;
	struct pmap *m;
	FILE *f = NULL;
	char *path;

	for (m = c->buckets[b]; m; m = m->next)
		if (m->tgid == tgid && m->ns_tgid == ns_tgid)
			return m;
	m = xcalloc(1, sizeof(*m));
	m->tgid = tgid;
	m->ns_tgid = ns_tgid;
	m->next = c->buckets[b];
	c->buckets[b] = m;

	path = xasprintf("%s/perf-%u.map", c->dir, tgid);
	f = open_map(c, path, tgid);
	free(path);
	if (!f && ns_tgid && ns_tgid != tgid) {
		/* Inside its mount namespace a JIT writes to its own /tmp. */
		path = xasprintf("%s/%u/root/tmp/perf-%u.map", c->proc, tgid,
				 ns_tgid);
		f = open_map(c, path, tgid);
		free(path);
	}
	if (!f && ns_tgid && ns_tgid != tgid) {
		path = xasprintf("%s/perf-%u.map", c->dir, ns_tgid);
		f = open_map(c, path, tgid);
		free(path);
	}
	if (f) {
		load(c, m, f);
		fclose(f);
	}
	return m;
}

bool perfmap_lookup(struct perfmap_cache *c, uint32_t tgid, uint32_t ns_tgid,
		    uint64_t addr, bool is_ret, struct perfmap_result *out)
{
	struct pmap *m = get_map(c, tgid, ns_tgid);
	uint64_t look = is_ret ? addr - 1 : addr;
	size_t lo = 0, hi = m->nr_pieces;
	const struct entry *e;

	out->name = NULL;
	out->offset = 0;
	if (is_ret && !addr)
		return false;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->pieces[mid].start <= look)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || m->pieces[lo - 1].end <= look)
		return false;
	e = &m->entries[m->pieces[lo - 1].entry];
	out->name = m->names + e->name;
	out->offset = addr - e->start;
	return true;
}

void perfmap_cache_stats(const struct perfmap_cache *c,
			 struct perfmap_stats *st)
{
	*st = c->stats;
}
