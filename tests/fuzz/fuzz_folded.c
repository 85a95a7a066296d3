// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: user/profile/profile_folded.c's reader of folded
 * stacks (the input of flamestat svg/diff/report and the module's text) on
 * arbitrary bytes, then what the renderer does with a profile: write it
 * back, iterate and sort its stacks, and read the written text again: it
 * must read without a malformed line, give as many stacks, the same
 * totals (as numbers: "0.5" twice is written "1") and the same bytes once
 * written again -- blank frames and names with blanks included (one blank
 * separates the count, so "a;b;  3" has the leaf " "), unless a stack of
 * a one-column profile ends in a blank and a number, or any stack in an
 * empty name.
 * (Those the folded format cannot say: "a;f 12 5" reads back as a
 * differential line, "a; 5" as a; see docs/DESIGN.md.) Also: a count
 * written with profile_fmt_count() parses back to the same value.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *write_out(const struct profile *p, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		abort();
	if (profile_write_folded(p, f, PROFILE_WRITE_HEADER))
		abort();
	fclose(f);
	return buf;
}

/* The bytes of a failing case, escaped, for the log the suite shows. */
static void dump(FILE *f, const char *what, const char *s, size_t len)
{
	size_t i;

	fprintf(f, "--- %s (%zu bytes) ---\n", what, len);
	for (i = 0; i < len && i < 2048; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\n' || (c >= 0x20 && c < 0x7f))
			fputc(c, f);
		else
			fprintf(f, "\\x%02x", c);
	}
	fprintf(f, "%s\n--- end ---\n", i < len ? "..." : "");
}

/*
 * Some stack the folded text cannot say: one ending in an empty name, or
 * in a one-column profile one ending in a blank and a number (it would
 * read back as a second count column).
 */
static bool stacks_ambiguous(const struct profile *p)
{
	struct profile_stack st;
	size_t i, n, k, dots;
	const char *s;

	for (i = 0; i < profile_nstacks(p); i++) {
		profile_stack(p, i, &st);
		s = profile_name(p, st.frames[st.nframes - 1]);
		n = profile_name_len(p, st.frames[st.nframes - 1]);
		if (!n)
			return true;
		if (profile_is_diff(p))
			continue;
		for (k = n, dots = 0; k > 0 && ((s[k - 1] >= '0' &&
		     s[k - 1] <= '9') || s[k - 1] == '.'); k--)
			dots += s[k - 1] == '.';
		/* \d+(\.\d*)? after a blank (';' is none) */
		if (k < n && k > 0 && dots <= 1 && s[k] >= '0' && s[k] <= '9' &&
		    (s[k - 1] == ' ' || s[k - 1] == '\t'))
			return true;
	}
	return false;
}

/* The same total as numbers: a in units of 10^-da, b of 10^-db. */
static bool same_value(uint64_t a, unsigned int da, uint64_t b,
		       unsigned int db)
{
	return (unsigned __int128)a * profile_pow10(db) ==
	       (unsigned __int128)b * profile_pow10(da);
}

/* A count formatted and parsed again is the same number. */
static void check_count_text(const uint8_t *data, size_t size)
{
	char buf[PROFILE_COUNT_BUF], plain[PROFILE_COUNT_BUF];
	uint64_t v = 0, u = 0;
	unsigned int d, du = 0;
	size_t i, n;

	if (size < 9)
		return;
	memcpy(&v, data, 8);
	d = data[8] % (PROFILE_DECIMALS_MAX + 1);
	profile_fmt_count(buf, v, d, true);
	for (i = n = 0; buf[i]; i++)
		if (buf[i] != ',')
			plain[n++] = buf[i];
	plain[n] = '\0';
	if (strcmp(plain, profile_fmt_count(buf, v, d, false)) ||
	    profile_parse_count(plain, n, &u, &du, NULL) || du > d ||
	    !same_value(u, du, v, d)) {
		fprintf(stderr, "count %llu at %u decimals written '%s' reads back as %llu at %u\n",
			(unsigned long long)v, d, plain, (unsigned long long)u,
			du);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *devnull;
	struct profile_read_stats rs = { 0 };
	struct profile *p = profile_new(), *q;
	struct profile_stack st;
	FILE *in, *err = stderr;
	char *out, *out2;
	size_t len, len2, i, *order;
	bool ambiguous;

	if (!p || !size)
		goto out;
	check_count_text(data, size);
	in = fmemopen((void *)data, size, "r");
	if (!in)
		goto out;
	/* Malformed lines are reported on stderr: keep the log readable. */
	if (!devnull)
		devnull = fopen("/dev/null", "w");
	if (!devnull)
		abort();
	stderr = devnull;
	if (profile_read_folded(p, in, "fuzz", NULL)) {
		fclose(in);
		goto restore;
	}
	fclose(in);
	for (i = 0; i < profile_nstacks(p); i++)
		profile_stack(p, i, &st);
	order = profile_sorted(p, false);
	free(order);
	order = profile_sorted(p, true);
	free(order);
	(void)profile_total(p);

	/* What we write, we read back the same. */
	out = write_out(p, &len);
	q = profile_new();
	in = fmemopen(out, len ? len : 1, "r");
	if (!q || !in)
		abort();
	/* An ambiguous stack may read back as something else. */
	ambiguous = stacks_ambiguous(p);
	if (profile_read_folded(q, in, "again", &rs) && !ambiguous) {
		fprintf(err, "our folded output does not read back\n");
		dump(err, "input", (const char *)data, size);
		dump(err, "written", out, len);
		abort();
	}
	fclose(in);
	if (!ambiguous &&
	    (rs.ignored || profile_nstacks(q) != profile_nstacks(p) ||
	     !same_value(profile_total(p), profile_decimals(p),
			 profile_total(q), profile_decimals(q)) ||
	     !same_value(profile_total2(p), profile_decimals(p),
			 profile_total2(q), profile_decimals(q)) ||
	     profile_decimals(q) > profile_decimals(p))) {
		fprintf(err, "our folded output reads back with %llu malformed lines, %zu of %zu stacks, totals %llu/10^%u, %llu/10^%u\n",
			(unsigned long long)rs.ignored, profile_nstacks(q),
			profile_nstacks(p),
			(unsigned long long)profile_total(q),
			profile_decimals(q),
			(unsigned long long)profile_total(p),
			profile_decimals(p));
		dump(err, "input", (const char *)data, size);
		dump(err, "written", out, len);
		abort();
	}
	out2 = write_out(q, &len2);
	if (!ambiguous && (len != len2 || memcmp(out, out2, len))) {
		fprintf(err, "folded output does not read back the same\n");
		dump(err, "written", out, len);
		dump(err, "written again", out2, len2);
		abort();
	}
	free(out);
	free(out2);
	profile_free(q);
restore:
	stderr = err;
out:
	profile_free(p);
	return 0;
}
