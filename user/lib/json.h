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
 * Well-formed UTF-8 is kept as it is; ill-formed bytes become U+FFFD, one
 * for each maximal subpart (Unicode's recommended practice, as the
 * WHATWG decoder of browsers: a start of a sequence cut short is one
 * U+FFFD, any other bad byte one each), so the output is always valid
 * UTF-8 and valid JSON, and reads as a browser would read the name.
 */
void json_add_string(struct strbuf *sb, const char *s, size_t len);

/*
 * The length of the well-formed UTF-8 sequence at s[0..len) (len > 0),
 * or 0 with *bad the length of its maximal subpart (at least 1).
 */
size_t json_utf8_len(const unsigned char *s, size_t len, size_t *bad);

#endif
