/* SPDX-License-Identifier: GPL-2.0 */
/* JSON string literals for the JSON the tool writes (speedscope). */
#ifndef FLAMESTAT_JSON_H
#define FLAMESTAT_JSON_H

#include <stddef.h>

#include "lib/util.h"

/*
 * Appends s[0..len) to sb as a JSON string, quotes included. Any bytes:
 * '"' and '\\' are escaped, control characters (NUL included) become
 * \n, \t, ... or \u00XX, and DEL, U+2028 and U+2029 \u escapes too (some
 * JavaScript parsers and line-based tools take them for line ends).
 * Well-formed UTF-8 is kept as it is; each byte that does not start a
 * well-formed sequence (stray continuation bytes, overlong forms,
 * surrogates, past U+10FFFF, cut short) becomes U+FFFD, so the output is
 * always valid UTF-8 and valid JSON.
 */
void json_add_string(struct strbuf *sb, const char *s, size_t len);

/* The length of the well-formed UTF-8 sequence at s[0..len), or 0. */
size_t json_utf8_len(const unsigned char *s, size_t len);

#endif
