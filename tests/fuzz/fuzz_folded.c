// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: user/profile/profile_folded.c's reader of folded
 * stacks (the input of flamestat svg/diff/report and the module's text) on
 * arbitrary bytes, then what the renderer does with a profile: write it
 * back, iterate and sort its stacks, and read the written text again: it
 * must read without a malformed line, give as many stacks and the same
 * bytes once written again -- when every frame name is non-empty and free of
 * whitespace, as the module's always are. (Otherwise the folded format is
 * ambiguous: "a;f 12 5" reads back as a differential line, a stack of one
 * empty name as no stack; see docs/RELIABILITY.md.)
 */
#include <ctype.h>
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

/* Some frame name is empty or holds whitespace. */
static bool names_ambiguous(const struct profile *p)
{
	size_t i, j, n;

	for (i = 0; i < profile_nnames(p); i++) {
		const char *s = profile_name(p, (uint32_t)i);

		n = profile_name_len(p, (uint32_t)i);
		if (!n)
			return true;
		for (j = 0; j < n; j++)
			if (isspace((unsigned char)s[j]))
				return true;
	}
	return false;
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

	if (!p || !size)
		goto out;
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
	if (!q || !in || profile_read_folded(q, in, "again", &rs))
		abort();
	fclose(in);
	if (!names_ambiguous(p) &&
	    (rs.ignored || profile_nstacks(q) != profile_nstacks(p))) {
		fprintf(err, "our folded output reads back with %llu malformed lines, %zu of %zu stacks\n",
			(unsigned long long)rs.ignored, profile_nstacks(q),
			profile_nstacks(p));
		abort();
	}
	out2 = write_out(q, &len2);
	if (!names_ambiguous(p) && (len != len2 || memcmp(out, out2, len))) {
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
