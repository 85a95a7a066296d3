// SPDX-License-Identifier: GPL-2.0
/* JSON string literals, any bytes in, valid UTF-8 out (see json.h). */
#include "lib/json.h"

/*
 * The rules of Unicode's table 3-7 (well-formed UTF-8 byte sequences):
 * the second byte's range depends on the first, which rules out overlong
 * forms (E0 80..9F, F0 80..8F), surrogates (ED A0..BF) and code points
 * past U+10FFFF (F4 90..BF, F5..FF).
 */
size_t json_utf8_len(const unsigned char *s, size_t len, size_t *bad)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t n, i;

	*bad = 1;
	if (c < 0x80)
		return 1;
	if (c < 0xc2)
		return 0;	/* continuation byte, or overlong C0/C1 */
	if (c < 0xe0) {
		n = 2;
	} else if (c < 0xf0) {
		n = 3;
		if (c == 0xe0)
			lo = 0xa0;
		else if (c == 0xed)
			hi = 0x9f;
	} else if (c < 0xf5) {
		n = 4;
		if (c == 0xf0)
			lo = 0x90;
		else if (c == 0xf4)
			hi = 0x8f;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if (i == len || s[i] < lo || s[i] > hi) {
			*bad = i;	/* the maximal subpart: a start cut short */
			return 0;
		}
		lo = 0x80;
		hi = 0xbf;
	}
	return n;
}

void json_add_string(struct strbuf *sb, const char *str, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, run, n, bad;
	char esc[6] = { '\\', 'u', '0', '0', 0, 0 };

	sb_add(sb, "\"", 1);
	while (i < len) {
		/* The longest run that needs no escape, in one append. */
		for (run = i; run < len; run++)
			if (s[run] < 0x20 || s[run] >= 0x7f || s[run] == '"' ||
			    s[run] == '\\')
				break;
		sb_add(sb, str + i, run - i);
		i = run;
		if (i == len)
			break;
		switch (s[i]) {
		case '"':
			sb_add(sb, "\\\"", 2);
			break;
		case '\\':
			sb_add(sb, "\\\\", 2);
			break;
		case '\n':
			sb_add(sb, "\\n", 2);
			break;
		case '\r':
			sb_add(sb, "\\r", 2);
			break;
		case '\t':
			sb_add(sb, "\\t", 2);
			break;
		case '\b':
			sb_add(sb, "\\b", 2);
			break;
		case '\f':
			sb_add(sb, "\\f", 2);
			break;
		default:
			if (s[i] < 0x80) {	/* other controls and DEL */
				esc[4] = hex[s[i] >> 4];
				esc[5] = hex[s[i] & 15];
				sb_add(sb, esc, 6);
				break;
			}
			n = json_utf8_len(s + i, len - i, &bad);
			if (!n) {
				sb_add(sb, "\xef\xbf\xbd", 3);	/* U+FFFD */
				i += bad;
				continue;
			}
			/* U+2028 and U+2029: E2 80 A8/A9. */
			if (n == 3 && s[i] == 0xe2 && s[i + 1] == 0x80 &&
			    (s[i + 2] == 0xa8 || s[i + 2] == 0xa9))
				sb_add(sb, s[i + 2] == 0xa8 ? "\\u2028" :
				       "\\u2029", 6);
			else
				sb_add(sb, str + i, n);
			i += n;
			continue;
		}
		i++;
	}
	sb_add(sb, "\"", 1);
}
