// SPDX-License-Identifier: GPL-2.0
/*
 * --cp: flamegraph.pl's consistent palette, a file (palette.map) of
 * "NAME->rgb(R,G,B)" lines sorted by name. Names listed there keep their
 * colour; the others get theirs as usual and are added, and the file is
 * written back, so flamegraph.pl and flamestat can share one. A line is
 * split at its last "->" (flamegraph.pl splits at the first, which breaks
 * names such as "operator->"); values other than rgb(R,G,B) or #rrggbb
 * are kept as they are but not used.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/util.h"
#include "render/svg_int.h"

struct palmap_entry {
	char *name;
	size_t len;
	char *value;		/* as read, or "rgb(R,G,B)" */
	struct rgb c;
	bool ok;		/* value is a colour */
};

struct svg_palmap {
	struct palmap_entry *e;
	size_t n, alloc;
	uint32_t *slot;		/* entry index + 1; 0 free */
	size_t mask;
};

static uint32_t hash(const char *s, size_t len)
{
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

static size_t find_slot(const struct svg_palmap *m, const char *name,
			size_t len)
{
	size_t j = hash(name, len) & m->mask;
	const struct palmap_entry *e;

	for (; m->slot[j]; j = (j + 1) & m->mask) {
		e = &m->e[m->slot[j] - 1];
		if (e->len == len && !memcmp(e->name, name, len))
			break;
	}
	return j;
}

static void grow(struct svg_palmap *m)
{
	size_t i;

	free(m->slot);
	m->mask = m->mask ? 2 * m->mask + 1 : 255;
	m->slot = xcalloc(m->mask + 1, sizeof(*m->slot));
	for (i = 0; i < m->n; i++)
		m->slot[find_slot(m, m->e[i].name, m->e[i].len)] =
			(uint32_t)i + 1;
}

/* Set name's value, replacing an earlier one. */
static void set(struct svg_palmap *m, const char *name, size_t len,
		char *value, struct rgb c, bool ok)
{
	size_t j;
	struct palmap_entry *e;

	if ((m->n + 1) * 2 > m->mask)
		grow(m);
	j = find_slot(m, name, len);
	if (m->slot[j]) {
		e = &m->e[m->slot[j] - 1];
		free(e->value);
	} else {
		if (m->n == m->alloc) {
			m->alloc = m->alloc ? 2 * m->alloc : 256;
			m->e = xreallocarray(m->e, m->alloc, sizeof(*m->e));
		}
		e = &m->e[m->n++];
		e->name = xstrndup(name, len);
		e->len = len;
		m->slot[j] = (uint32_t)m->n;
	}
	e->value = value;
	e->c = c;
	e->ok = ok;
}

static bool parse_byte(const char **s, char end, uint8_t *out)
{
	unsigned int v = 0, digits = 0;

	while (**s == ' ')
		(*s)++;
	while (**s >= '0' && **s <= '9' && digits < 4) {
		v = v * 10 + (unsigned int)(*(*s)++ - '0');
		digits++;
	}
	while (**s == ' ')
		(*s)++;
	if (!digits || v > 255 || **s != end)
		return false;
	(*s)++;
	*out = (uint8_t)v;
	return true;
}

static bool parse_color(const char *s, struct rgb *c)
{
	unsigned int v;

	while (*s == ' ')
		s++;
	if (!strncmp(s, "rgb(", 4)) {
		s += 4;
		if (!parse_byte(&s, ',', &c->r) || !parse_byte(&s, ',', &c->g) ||
		    !parse_byte(&s, ')', &c->b))
			return false;
	} else if (s[0] == '#' && strspn(s + 1, "0123456789abcdefABCDEF") == 6) {
		v = (unsigned int)strtoul(s + 1, NULL, 16);
		c->r = (uint8_t)(v >> 16);
		c->g = (uint8_t)(v >> 8);
		c->b = (uint8_t)v;
		s += 7;
	} else {
		return false;
	}
	while (*s == ' ')
		s++;
	return !*s;
}

static const char *last_arrow(const char *s, size_t len)
{
	size_t i;

	for (i = len; i >= 2; i--)
		if (s[i - 2] == '-' && s[i - 1] == '>')
			return s + i - 2;
	return NULL;
}

struct svg_palmap *svg_palmap_load(const char *path)
{
	struct svg_palmap *m = xcalloc(1, sizeof(*m));
	char *line = NULL;
	size_t cap = 0, lineno = 0, dropped = 0, odd = 0;
	ssize_t got;
	FILE *f = fopen(path, "r");
	struct rgb c = { 0, 0, 0 };

	grow(m);
	if (!f) {
		if (errno == ENOENT)
			return m;	/* the first run: nothing yet */
		fs_err("--cp: cannot read %s: %s", path, strerror(errno));
		svg_palmap_free(m);
		return NULL;
	}
	while ((got = getline(&line, &cap, f)) >= 0) {
		size_t len = (size_t)got;
		const char *arrow;
		bool ok;

		lineno++;
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			len--;
		line[len] = '\0';
		arrow = last_arrow(line, len);
		if (!arrow) {
			if (len && !dropped++)
				fs_warn("--cp: %s:%zu has no '->' (NAME->rgb(R,G,B)): left out",
					path, lineno);
			continue;
		}
		ok = parse_color(arrow + 2, &c);
		if (!ok && !odd++)
			fs_warn("--cp: %s:%zu: '%s' is not rgb(R,G,B) or #rrggbb: kept, not used",
				path, lineno, arrow + 2);
		set(m, line, (size_t)(arrow - line), xstrdup(arrow + 2), c, ok);
	}
	free(line);
	if (ferror(f)) {
		fs_err("--cp: cannot read %s: %s", path, strerror(errno));
		fclose(f);
		svg_palmap_free(m);
		return NULL;
	}
	fclose(f);
	if (dropped > 1)
		fs_warn("--cp: %zu lines of %s without '->' left out", dropped,
			path);
	return m;
}

int svg_palmap_get(const struct svg_palmap *m, const char *name, size_t len,
		   struct rgb *c)
{
	size_t j = find_slot(m, name, len);
	const struct palmap_entry *e;

	if (!m->slot[j])
		return 0;
	e = &m->e[m->slot[j] - 1];
	if (!e->ok)
		return -1;
	*c = e->c;
	return 1;
}

void svg_palmap_add(struct svg_palmap *m, const char *name, size_t len,
		    struct rgb c)
{
	if (m->slot[find_slot(m, name, len)])
		return;
	set(m, name, len, xasprintf("rgb(%u,%u,%u)", c.r, c.g, c.b), c, true);
}

static int cmp_name(const void *a, const void *b)
{
	const struct palmap_entry *x = *(const struct palmap_entry *const *)a;
	const struct palmap_entry *y = *(const struct palmap_entry *const *)b;
	size_t n = x->len < y->len ? x->len : y->len;
	int r = memcmp(x->name, y->name, n);

	return r ? r : (x->len > y->len) - (x->len < y->len);
}

int svg_palmap_save(const struct svg_palmap *m, const char *path)
{
	const struct palmap_entry **order;
	char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	FILE *f = fopen(tmp, "w");
	size_t i;
	int ret;

	if (!f) {
		fs_err("--cp: cannot create %s: %s", tmp, strerror(errno));
		free(tmp);
		return -1;
	}
	/* Sorted by name, as flamegraph.pl's "sort keys" (bytes). */
	order = xreallocarray(NULL, m->n ? m->n : 1,
			      sizeof(const struct palmap_entry *));
	for (i = 0; i < m->n; i++)
		order[i] = &m->e[i];
	qsort(order, m->n, sizeof(const struct palmap_entry *), cmp_name);
	for (i = 0; i < m->n; i++) {
		fwrite(order[i]->name, 1, order[i]->len, f);
		fprintf(f, "->%s\n", order[i]->value);
	}
	free(order);
	ret = ferror(f) ? -1 : 0;
	if (fclose(f))
		ret = -1;
	if (ret || rename(tmp, path)) {
		fs_err("--cp: cannot write %s: %s", path, strerror(errno));
		unlink(tmp);
		ret = -1;
	}
	free(tmp);
	return ret;
}

void svg_palmap_free(struct svg_palmap *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->n; i++) {
		free(m->e[i].name);
		free(m->e[i].value);
	}
	free(m->e);
	free(m->slot);
	free(m);
}
