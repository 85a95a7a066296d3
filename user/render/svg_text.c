// SPDX-License-Identifier: GPL-2.0
/* Escaping frame names for XML and JSON, and counting UTF-8 characters. */
#include "lib/util.h"
#include "render/svg_int.h"

/*
 * Frame names come from any tool and may hold bytes that are not UTF-8 or
 * characters XML forbids. Browsers refuse a whole SVG over one such byte,
 * so every name goes through these and bad bytes become U+FFFD.
 */

/* Length of the valid UTF-8 sequence at s, or 0; *cp gets the code point. */
static size_t utf8_seq(const unsigned char *s, size_t len, uint32_t *cp)
{
	unsigned char c = s[0];
	size_t n, i;
	uint32_t v;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		v = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		v = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		v = c & 0x07;
	} else {
		return 0;
	}
	if (len < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = (v << 6) | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates and past U+10FFFF are not UTF-8. */
	if ((n == 3 && v < 0x800) || (n == 4 && v < 0x10000) ||
	    (v >= 0xd800 && v <= 0xdfff) || v > 0x10ffff)
		return 0;
	*cp = v;
	return n;
}

static bool xml_char_ok(uint32_t cp)
{
	if (cp < 0x20)
		return cp == '\t' || cp == '\n' || cp == '\r';
	return cp != 0xfffe && cp != 0xffff;
}

void svg_xml_escape(struct strbuf *sb, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, run = 0, n;
	uint32_t cp;

	sb_grow(sb, len);
	while (i < len) {
		n = utf8_seq(u + i, len - i, &cp);
		if (n && cp != '&' && cp != '<' && cp != '>' && cp != '"' &&
		    cp != '\'' && xml_char_ok(cp) && cp >= 0x20) {
			i += n;
			run += n;
			continue;
		}
		sb_add(sb, s + i - run, run);
		run = 0;
		switch (n ? cp : 0xfffd) {
		case '&':
			sb_adds(sb, "&amp;");
			break;
		case '<':
			sb_adds(sb, "&lt;");
			break;
		case '>':
			sb_adds(sb, "&gt;");
			break;
		case '"':
			sb_adds(sb, "&quot;");
			break;
		case '\'':
			sb_adds(sb, "&#39;");
			break;
		case '\t':
			sb_adds(sb, "&#9;");
			break;
		default:
			sb_adds(sb, "\xef\xbf\xbd");	/* U+FFFD */
		}
		i += n ? n : 1;
	}
	sb_add(sb, s + i - run, run);
}

void svg_json_string(struct strbuf *sb, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, n;
	uint32_t cp;

	sb_grow(sb, len + 2);
	sb_add(sb, "\"", 1);
	while (i < len) {
		n = utf8_seq(u + i, len - i, &cp);
		if (!n) {
			sb_adds(sb, "\\ufffd");
			i++;
			continue;
		}
		if (cp == '"' || cp == '\\') {
			sb_add(sb, "\\", 1);
			sb_add(sb, s + i, 1);
		} else if (cp < 0x20 || cp == '<' || cp == '>' || cp == '&' ||
			   cp == 0xfffe || cp == 0xffff) {
			/* '>' escaped so that "]]>" never ends the CDATA. */
			sb_addf(sb, "\\u%04x", (unsigned int)cp);
		} else {
			sb_add(sb, s + i, n);
		}
		i += n;
	}
	sb_add(sb, "\"", 1);
}

size_t svg_utf8_chars(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, chars = 0, n;
	uint32_t cp;

	while (i < len) {
		n = utf8_seq(u + i, len - i, &cp);
		i += n ? n : 1;
		chars++;
	}
	return chars;
}

size_t svg_utf8_prefix(const char *s, size_t len, size_t chars)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, n;
	uint32_t cp;

	while (i < len && chars--) {
		n = utf8_seq(u + i, len - i, &cp);
		i += n ? n : 1;
	}
	return i;
}
