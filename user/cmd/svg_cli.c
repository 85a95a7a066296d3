// SPDX-License-Identifier: GPL-2.0
/* Input and output files for the commands that draw flame graphs. */
#include <errno.h>
#include <iconv.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/svg_cli.h"
#include "lib/outfile.h"
#include "lib/util.h"
#include "profile/profile.h"
#include "render/svg.h"

/*
 * --encoding: a stream that reads another and gives its text converted to
 * UTF-8 by iconv(3), so the whole input, separators and counts too, may be
 * in any encoding iconv knows (UTF-16 as well as Latin-1). Bytes that are
 * not text in that encoding become U+FFFD, counted for one warning.
 */
struct conv {
	FILE *in;
	iconv_t cd;
	char buf[16384];
	size_t len;		/* unconverted bytes at buf */
	bool eof, flushed;
	uint64_t bad;
};

static ssize_t conv_read(void *cookie, char *out, size_t size)
{
	struct conv *c = cookie;
	char *o = out, *i;
	size_t ol = size, il, r, got;
	bool bad;
	int err;

	while (o == out) {
		if (!c->eof && c->len < sizeof(c->buf)) {
			got = fread(c->buf + c->len, 1,
				    sizeof(c->buf) - c->len, c->in);
			if (!got && ferror(c->in))
				return -1;
			c->eof = !got;
			c->len += got;
		}
		if (!c->len) {
			/* The end: a stateful encoding's shift back. */
			if (!c->flushed)
				iconv(c->cd, NULL, NULL, &o, &ol);
			c->flushed = true;
			break;
		}
		i = c->buf;
		il = c->len;
		r = iconv(c->cd, &i, &il, &o, &ol);
		err = r == (size_t)-1 ? errno : 0;
		/* Not text in the encoding, or cut off at the end. */
		bad = err == EILSEQ || (err == EINVAL && c->eof);
		if (bad && ol < 3) {
			bad = false;
			err = E2BIG;	/* no room for U+FFFD: next time */
		}
		if (bad) {
			*o++ = (char)0xef;	/* U+FFFD */
			*o++ = (char)0xbf;
			*o++ = (char)0xbd;
			ol -= 3;
			i++;
			il--;
			c->bad++;
		} else if (err && err != EINVAL && err != E2BIG) {
			return -1;
		}
		memmove(c->buf, i, il);
		c->len = il;
		if (err == E2BIG)
			break;
		/* EINVAL: a sequence continues in the input not read yet. */
	}
	return (ssize_t)(size - ol);
}

static int conv_close(void *cookie)
{
	struct conv *c = cookie;

	iconv_close(c->cd);
	free(c);
	return 0;
}

static int read_converted(struct profile *p, FILE *in, const char *name,
			  const char *encoding)
{
	cookie_io_functions_t io = { .read = conv_read, .close = conv_close };
	struct conv *c = xcalloc(1, sizeof(*c));
	FILE *f;
	int ret;

	c->in = in;
	c->cd = iconv_open("UTF-8", encoding);
	if (c->cd == (iconv_t)-1) {
		/* Checked with the option: only out of memory here. */
		fs_perror("--encoding '%s'", encoding);
		free(c);
		return -1;
	}
	f = fopencookie(c, "r", io);
	if (!f) {
		fs_perror("cannot read %s", name);
		conv_close(c);
		return -1;
	}
	ret = profile_read_folded(p, f, name, NULL);
	if (c->bad)
		fs_warn("%s: %" PRIu64 " byte%s not %s text, replaced by U+FFFD",
			name, c->bad, c->bad == 1 ? "" : "s", encoding);
	if (ferror(f) && !ret) {
		fs_perror("cannot read %s", name);
		ret = -1;
	}
	fclose(f);
	return ret;
}

int svg_read_path_enc(struct profile *p, const char *path,
		      const char *encoding)
{
	bool std = !strcmp(path, "-");
	FILE *f = std ? stdin : fopen(path, "r");
	const char *name = std ? "<stdin>" : path;
	int ret;

	if (!f) {
		fs_perror("cannot open %s", path);
		return -1;
	}
	if (encoding)
		ret = read_converted(p, f, name, encoding);
	else
		ret = profile_read_folded(p, f, name, NULL);
	if (!std)
		fclose(f);
	return ret;
}

int svg_read_path(struct profile *p, const char *path)
{
	return svg_read_path_enc(p, path, NULL);
}

int svg_output_open(struct svg_output *out, const char *path)
{
	struct outfile o;

	memset(out, 0, sizeof(*out));
	if (outfile_open(&o, path))
		return -1;
	out->f = o.f;
	out->path = o.path;
	out->tmp = o.tmp;
	return 0;
}

int svg_output_close(struct svg_output *out, bool ok)
{
	struct outfile o = { .f = out->f, .path = out->path, .tmp = out->tmp };

	memset(out, 0, sizeof(*out));
	return outfile_close(&o, ok);
}

struct option *svg_getopt_merge(const struct option *own)
{
	size_t a = 0, b = 0;
	struct option *all;

	while (own[a].name)
		a++;
	while (svg_getopt_options[b].name)
		b++;
	all = xreallocarray(NULL, a + b + 1, sizeof(*all));
	memcpy(all, own, a * sizeof(*all));
	memcpy(all + a, svg_getopt_options, (b + 1) * sizeof(*all));
	return all;
}
