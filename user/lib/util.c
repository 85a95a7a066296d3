// SPDX-License-Identifier: GPL-2.0
/* Error reporting, allocation and parsing helpers shared by the tool. */
#include "lib/util.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *fs_progname = "flamestat";

static void vreport(const char *tag, const char *fmt, va_list ap, int err)
{
	fprintf(stderr, "%s: %s", fs_progname, tag);
	vfprintf(stderr, fmt, ap);
	if (err)
		fprintf(stderr, ": %s", strerror(err));
	fputc('\n', stderr);
}

void fs_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("", fmt, ap, 0);
	va_end(ap);
}

void fs_perror(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	vreport("", fmt, ap, err);
	va_end(ap);
}

void fs_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("warning: ", fmt, ap, 0);
	va_end(ap);
}

void fs_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("note: ", fmt, ap, 0);
	va_end(ap);
}

static void *oom(size_t n)
{
	fprintf(stderr, "%s: out of memory allocating %zu bytes\n",
		fs_progname, n);
	exit(EXIT_FAIL);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	return p ? p : oom(n);
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	return p ? p : oom(n * size);
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	return q ? q : oom(n);
}

void *xreallocarray(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return oom(SIZE_MAX);
	return xrealloc(p, n * size);
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	struct strbuf sb = { 0 };
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return oom(0);
	sb_grow(&sb, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(sb.buf, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return sb.buf;
}

void sb_grow(struct strbuf *sb, size_t extra)
{
	size_t need = sb->len + extra + 1;

	if (need <= sb->cap)
		return;
	if (sb->cap * 2 > need)
		need = sb->cap * 2;
	if (need < 64)
		need = 64;
	sb->buf = xrealloc(sb->buf, need);
	sb->cap = need;
	sb->buf[sb->len] = '\0';
}

char *sb_reserve(struct strbuf *sb, size_t extra)
{
	sb_grow(sb, extra);
	return sb->buf;
}

void sb_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	sb_grow(sb, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
}

void sb_reset(struct strbuf *sb)
{
	sb->len = 0;
	if (sb->buf)
		sb->buf[0] = '\0';
}

void sb_free(struct strbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->cap = 0;
}

int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	/* strtoull would take a sign, blanks, and 0x or 0 prefixes (base 0). */
	if (!s || *s < '0' || *s > '9') {
		errno = EINVAL;
		return -1;
	}
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end) {
		errno = errno ? errno : EINVAL;
		return -1;
	}
	if (v < min || v > max) {
		errno = ERANGE;
		return -1;
	}
	*out = v;
	return 0;
}

int parse_double(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !*s) {
		errno = EINVAL;
		return -1;
	}
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v)) {
		errno = errno ? errno : EINVAL;
		return -1;
	}
	*out = v;
	return 0;
}

int parse_decimal(const char *s, double *out)
{
	size_t whole, frac = 0;

	if (!s) {
		errno = EINVAL;
		return -1;
	}
	/* DIGITS[.DIGITS] or .DIGITS: what strtod takes, less the rest. */
	whole = strspn(s, "0123456789");
	if (s[whole] == '.')
		frac = strspn(s + whole + 1, "0123456789");
	if (!whole && !frac) {
		errno = EINVAL;
		return -1;
	}
	if (s[whole + (s[whole] == '.' ? 1 + frac : 0)]) {
		errno = EINVAL;
		return -1;
	}
	return parse_double(s, out);
}

const char *fmt_share(char *buf, size_t size, uint64_t part, uint64_t whole)
{
	double pct = whole ? 100.0 * (double)part / (double)whole : 0;

	if (part && pct < 0.05)
		snprintf(buf, size, "<0.1%%");
	else if (part < whole && pct >= 99.95)
		snprintf(buf, size, ">99.9%%");
	else
		snprintf(buf, size, "%.1f%%", pct);
	return buf;
}

const char *path_basename(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

int path_has_suffix(const char *path, const char *suffix)
{
	size_t lp = strlen(path), ls = strlen(suffix);

	return lp >= ls && strcmp(path + lp - ls, suffix) == 0;
}

char *exe_relative_file(const char *rel)
{
	char exe[PATH_MAX], path[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int len;

	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	len = snprintf(path, sizeof(path), "%s/%s", exe, rel);
	if (len < 0 || (size_t)len >= sizeof(path) || access(path, R_OK))
		return NULL;
	return xstrdup(path);
}
