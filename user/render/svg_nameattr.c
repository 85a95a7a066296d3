// SPDX-License-Identifier: GPL-2.0
/*
 * --nameattr: flamegraph.pl's file of per-function SVG attributes, one
 * function a line: its name, a tab, then tab-separated name=value pairs.
 * flamegraph.pl puts title (the tooltip and details text), id, class and
 * the raw attribute text g_extra on each frame of that name, and with
 * href wraps the frame in a link (target, default _top, and a_extra on
 * it). Here each entry becomes a JSON object that the script applies to
 * the frames: {"title":T,"href":U,"target":T,"g":[[name,value],...],
 * "a":[[name,value],...]}.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "render/svg_int.h"

struct nameattr_entry {
	char *name;
	size_t len;
	char *json;
	size_t line;		/* a later line for a name replaces it */
};

struct svg_nameattr {
	struct nameattr_entry *e;
	size_t n, alloc;
};

static bool name_start(char c)
{
	return c == '_' || c == ':' || (c >= 'a' && c <= 'z') ||
	       (c >= 'A' && c <= 'Z');
}

/* An XML attribute name (ASCII): the script sets it with setAttribute(). */
static bool attr_name_ok(const char *s, size_t len)
{
	size_t i;

	if (!len || !name_start(s[0]))
		return false;
	for (i = 1; i < len; i++)
		if (!name_start(s[i]) && s[i] != '.' && s[i] != '-' &&
		    !(s[i] >= '0' && s[i] <= '9'))
			return false;
	return true;
}

static void add_pair(struct strbuf *sb, const char *n, size_t nlen,
		     const char *v, size_t vlen)
{
	if (sb->len)
		sb_add(sb, ",", 1);
	sb_add(sb, "[", 1);
	svg_json_string(sb, n, nlen);
	sb_add(sb, ",", 1);
	svg_json_string(sb, v, vlen);
	sb_add(sb, "]", 1);
}

/*
 * g_extra, a_extra: raw attribute text, name="value" name='value' or
 * name=value, separated by blanks. Returns false (after a warning) on
 * text that is not that.
 */
static bool parse_extra(struct strbuf *pairs, const char *s, size_t len,
			const char *where)
{
	size_t i = 0, n0, n1, v0, v1;
	char q;

	for (;;) {
		while (i < len && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i == len)
			return true;
		n0 = i;
		while (i < len && s[i] != '=' && s[i] != ' ')
			i++;
		n1 = i;
		if (i == len || s[i] != '=' || !attr_name_ok(s + n0, n1 - n0))
			break;
		i++;
		if (i < len && (s[i] == '"' || s[i] == '\'')) {
			q = s[i++];
			v0 = i;
			while (i < len && s[i] != q)
				i++;
			if (i == len)
				break;
			v1 = i++;
		} else {
			v0 = i;
			while (i < len && s[i] != ' ' && s[i] != '\t')
				i++;
			v1 = i;
		}
		add_pair(pairs, s + n0, n1 - n0, s + v0, v1 - v0);
	}
	fs_warn("%s: '%.*s' is not attribute text (name=\"value\" ...); the rest is ignored",
		where, (int)(len - n0), s + n0);
	return false;
}

/* One line (without its newline) into e; -1 when it has no tab. */
static int parse_line(const char *line, size_t len, const char *where,
		      bool warn, struct nameattr_entry *e)
{
	const char *tab = memchr(line, '\t', len), *f, *end = line + len;
	const char *eq, *v;
	struct strbuf json = { 0 }, g = { 0 }, a = { 0 };
	const char *title = NULL, *href = NULL, *target = NULL;
	size_t tlen = 0, hlen = 0, tglen = 0, nlen, vlen;

	if (!tab)
		return -1;
	for (f = tab + 1; f < end; f = f + nlen + 1) {
		const char *next = memchr(f, '\t', (size_t)(end - f));

		nlen = next ? (size_t)(next - f) : (size_t)(end - f);
		if (!nlen)
			continue;
		eq = memchr(f, '=', nlen);
		if (!eq) {
			if (warn)
				fs_warn("%s: '%.*s' is not name=value; ignored",
					where, (int)nlen, f);
			continue;
		}
		v = eq + 1;
		vlen = nlen - (size_t)(v - f);
		/* Optional double quotes around the value, as inferno. */
		if (vlen >= 2 && v[0] == '"' && v[vlen - 1] == '"') {
			v++;
			vlen -= 2;
		}
#define IS(k) ((size_t)(eq - f) == strlen(k) && !memcmp(f, k, strlen(k)))
		if (IS("title")) {
			title = v;
			tlen = vlen;
		} else if (IS("href")) {
			href = v;
			hlen = vlen;
		} else if (IS("target")) {
			target = v;
			tglen = vlen;
		} else if (IS("id") || IS("class")) {
			add_pair(&g, f, (size_t)(eq - f), v, vlen);
		} else if (IS("g_extra")) {
			struct strbuf tmp = { 0 };

			parse_extra(&tmp, v, vlen, where);
			if (tmp.len) {
				if (g.len)
					sb_add(&g, ",", 1);
				sb_add(&g, tmp.buf, tmp.len);
			}
			sb_free(&tmp);
		} else if (IS("a_extra")) {
			struct strbuf tmp = { 0 };

			parse_extra(&tmp, v, vlen, where);
			if (tmp.len) {
				if (a.len)
					sb_add(&a, ",", 1);
				sb_add(&a, tmp.buf, tmp.len);
			}
			sb_free(&tmp);
		} else if (warn) {
			fs_warn("%s: unknown attribute '%.*s' (title, href, target, id, class, g_extra, a_extra); ignored",
				where, (int)(eq - f), f);
		}
#undef IS
		if (!next)
			break;
	}
	sb_add(&json, "{", 1);
	if (title) {
		sb_adds(&json, "\"title\":");
		svg_json_string(&json, title, tlen);
		sb_add(&json, ",", 1);
	}
	if (href) {
		sb_adds(&json, "\"href\":");
		svg_json_string(&json, href, hlen);
		sb_adds(&json, ",\"target\":");
		if (target)
			svg_json_string(&json, target, tglen);
		else
			sb_adds(&json, "\"_top\"");
		sb_add(&json, ",", 1);
	}
	sb_adds(&json, "\"g\":[");
	if (g.len)
		sb_add(&json, g.buf, g.len);
	sb_adds(&json, "],\"a\":[");
	if (a.len && href)
		sb_add(&json, a.buf, a.len);
	sb_adds(&json, "]}");
	sb_free(&g);
	sb_free(&a);
	e->name = xstrndup(line, (size_t)(tab - line));
	e->len = (size_t)(tab - line);
	e->json = json.buf;
	return 0;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct nameattr_entry *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->name, y->name, n);

	if (c)
		return c;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

struct svg_nameattr *svg_nameattr_load(const char *path, bool warn)
{
	struct svg_nameattr *m;
	char *line = NULL, where[64];
	size_t cap = 0, lineno = 0, i, out;
	ssize_t got;
	FILE *f = fopen(path, "r");

	if (!f) {
		fs_err("--nameattr '%s': %s", path, strerror(errno));
		return NULL;
	}
	m = xcalloc(1, sizeof(*m));
	while ((got = getline(&line, &cap, f)) >= 0) {
		size_t len = (size_t)got;

		lineno++;
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			len--;
		if (!len)
			continue;
		if (m->n == m->alloc) {
			m->alloc = m->alloc ? 2 * m->alloc : 64;
			m->e = xreallocarray(m->e, m->alloc, sizeof(*m->e));
		}
		snprintf(where, sizeof(where), "%.40s:%zu",
			 strrchr(path, '/') ? strrchr(path, '/') + 1 : path,
			 lineno);
		if (parse_line(line, len, where, warn, &m->e[m->n])) {
			fs_err("--nameattr '%s': line %zu has no tab: expected NAME<TAB>name=value<TAB>...",
			       path, lineno);
			free(line);
			fclose(f);
			svg_nameattr_free(m);
			return NULL;
		}
		m->e[m->n++].line = lineno;
	}
	free(line);
	if (ferror(f)) {
		fs_err("--nameattr '%s': %s", path, strerror(errno));
		fclose(f);
		svg_nameattr_free(m);
		return NULL;
	}
	fclose(f);
	/* The last line of a name wins, as in flamegraph.pl's hash. */
	qsort(m->e, m->n, sizeof(*m->e), cmp_entry);
	for (i = out = 0; i < m->n; i++) {
		if (i + 1 < m->n && m->e[i].len == m->e[i + 1].len &&
		    !memcmp(m->e[i].name, m->e[i + 1].name, m->e[i].len)) {
			free(m->e[i].name);
			free(m->e[i].json);
			continue;
		}
		m->e[out++] = m->e[i];
	}
	m->n = out;
	return m;
}

const char *svg_nameattr_find(const struct svg_nameattr *m,
			      const char *name, size_t len)
{
	struct nameattr_entry key = { .name = (char *)name, .len = len };
	size_t lo = 0, hi = m ? m->n : 0, mid;
	int c;

	/* line 0 sorts first: compare names only. */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		key.line = m->e[mid].line;
		c = cmp_entry(&key, &m->e[mid]);
		if (!c)
			return m->e[mid].json;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

void svg_nameattr_free(struct svg_nameattr *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->n; i++) {
		free(m->e[i].name);
		free(m->e[i].json);
	}
	free(m->e);
	free(m);
}
