/* SPDX-License-Identifier: GPL-2.0 */
/* Error reporting, exit statuses and allocation helpers shared by the tool. */
#ifndef FLAMESTAT_UTIL_H
#define FLAMESTAT_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Exit statuses; documented in flamestat(1). Each failure cause has its own. */
enum fs_exit {
	EXIT_OK = 0,
	EXIT_FAIL = 1,		/* runtime failure (I/O, bad input file, ...) */
	EXIT_USAGE = 2,		/* bad option or argument, unknown command */
	EXIT_PERM = 3,		/* not root / no permission on the device */
	EXIT_NOMODULE = 4,	/* module missing or cannot be loaded */
	EXIT_ABI = 5,		/* module speaks another ABI version */
	EXIT_BUSY = 6,		/* another session controls the profiler */
	EXIT_CHILD = 7,		/* the profiled command could not be started */
	EXIT_INTERRUPTED = 130,	/* Ctrl-C; output was still written */
};

extern const char *fs_progname;	/* "flamestat" or "flamestat record", ... */

/* "flamestat record: <message>" on stderr. */
void fs_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Same, with ": strerror(errno)" appended. */
void fs_perror(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fs_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "flamestat fold: note: <message>": what the user should know, no fault. */
void fs_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Allocation that exits with a message on failure. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
void *xreallocarray(void *p, size_t n, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * @rel (a path relative to the directory of the running tool, from
 * /proc/self/exe) when that file is readable, allocated; else NULL.
 */
char *exe_relative_file(const char *rel);

/* A growable byte buffer, always NUL-terminated. */
struct strbuf {
	char *buf;
	size_t len;
	size_t cap;
};
void sb_grow(struct strbuf *sb, size_t extra);
/* sb_grow(), then the buffer: never NULL. */
char *sb_reserve(struct strbuf *sb, size_t extra)
	__attribute__((returns_nonnull));

/*
 * Inline: the SVG writer appends a few bytes at a time, hundreds of
 * thousands of times, mostly string literals whose length the compiler
 * knows; only growing is a call.
 */
static inline void sb_add(struct strbuf *sb, const char *s, size_t n)
{
	char *buf = sb->buf && sb->len + n + 1 <= sb->cap ? sb->buf :
		    sb_reserve(sb, n);

	memcpy(buf + sb->len, s, n);
	sb->len += n;
	buf[sb->len] = '\0';
}

static inline void sb_adds(struct strbuf *sb, const char *s)
{
	sb_add(sb, s, strlen(s));
}
void sb_addf(struct strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void sb_reset(struct strbuf *sb);
void sb_free(struct strbuf *sb);

/*
 * Strict number parsing for options and arguments: the whole string must
 * be a decimal number in [min, max], digits only: no sign, no blanks, no
 * 0x or leading-0 octal ("010" is ten). Returns 0, or -1 with errno
 * EINVAL/ERANGE.
 */
int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* Any finite strtod() number (exponents too): for files we wrote. */
int parse_double(const char *s, double *out);
/*
 * For options: DIGITS[.DIGITS] or .DIGITS, decimal only (no sign, blanks,
 * exponent, hex, inf or nan); the caller checks the range.
 */
int parse_decimal(const char *s, double *out);

/*
 * @part of @whole as a percentage with one decimal, "12.5%", into @buf;
 * "<0.1%" and ">99.9%" for shares that would round to 0 or 100 but are
 * not. Returns @buf.
 */
const char *fmt_share(char *buf, size_t size, uint64_t part, uint64_t whole);

const char *path_basename(const char *path);
int path_has_suffix(const char *path, const char *suffix);

#endif
