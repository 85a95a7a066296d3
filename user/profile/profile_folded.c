// SPDX-License-Identifier: GPL-2.0
/* Reading and writing the folded text format ("a;b;c 12") and its header. */
#include "profile/profile.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "profile/profile_int.h"

#define META_PREFIX "# flamestat:"
#define MAX_REPORTED 10		/* malformed lines shown one by one */

struct reader {
	struct profile *p;
	const char *name;
	struct profile_read_stats *st;
	uint64_t lineno;
	uint64_t reported;
	struct profile_meta meta;
	uint64_t meta_line;	/* of the last "# flamestat:" line */
	uint32_t *ids;
	size_t ids_cap;
	bool failed;		/* an overflow: stop reading */
};

static void bad_line(struct reader *r, const char *why)
{
	r->st->ignored++;
	if (r->reported++ < MAX_REPORTED)
		fs_warn("%s:%" PRIu64 ": %s; line skipped", r->name, r->lineno,
			why);
}

static inline bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static inline bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * The count token ending at s[end]: flamegraph.pl's \d+(\.\d*)?, preceded
 * by a blank. Returns its start, or -1 when there is none.
 */
static ptrdiff_t count_token(const char *s, size_t end)
{
	size_t i = end;
	int dots = 0;

	while (i > 0 && (is_digit(s[i - 1]) || s[i - 1] == '.')) {
		if (s[i - 1] == '.')
			dots++;
		i--;
	}
	if (i == end || i == 0 || dots > 1 || !is_digit(s[i]) ||
	    !is_blank(s[i - 1]))
		return -1;
	return (ptrdiff_t)i;
}

/*
 * Past 64 bits: not a malformed line to skip but the end of the input, so
 * that no partial profile is drawn (profile_read_folded() fails).
 */
static void overflow(struct reader *r, const char *what)
{
	unsigned int d = profile_decimals(r->p);

	r->failed = true;
	if (d)
		fs_err("%s:%" PRIu64 ": %s past 18446744073709551615 units of 10^-%u (the counts have %u decimal%s), the most 64 bits hold",
		       r->name, r->lineno, what, d, d, d == 1 ? "" : "s");
	else
		fs_err("%s:%" PRIu64 ": %s past 18446744073709551615, the most 64 bits hold",
		       r->name, r->lineno, what);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The title value is percent-encoded so that it can hold spaces. */
static char *percent_decode(const char *s, size_t len)
{
	char *out = xmalloc(len + 1), *o = out;
	size_t i;

	for (i = 0; i < len; i++) {
		if (s[i] == '%' && i + 2 < len &&
		    hexval(s[i + 1]) >= 0 && hexval(s[i + 2]) >= 0) {
			*o++ = (char)(hexval(s[i + 1]) * 16 + hexval(s[i + 2]));
			i += 2;
		} else {
			*o++ = s[i];
		}
	}
	*o = '\0';
	return out;
}

/*
 * "# flamestat: mode offcpu, values in ns", the line that starts the
 * folded text of off-CPU and wall-clock recordings (the module's and
 * ours). True when @s is one; a mode this tool does not know is warned
 * about and leaves the metadata as it was.
 */
static bool parse_mode_line(struct reader *r, const char *s, size_t len)
{
	static const char head[] = META_PREFIX " mode ";
	static const char tail[] = ", values in ns";
	size_t h = strlen(head), t = strlen(tail);
	enum profile_mode m;

	if (len < h + t || memcmp(s, head, h) ||
	    memcmp(s + len - t, tail, t))
		return false;
	if (profile_mode_parse(s + h, len - h - t, &m)) {
		fs_warn("%s:%" PRIu64 ": unknown mode in '%.*s'; ignored",
			r->name, r->lineno, (int)len, s);
		return true;
	}
	r->meta.mode = m;
	r->meta.unit = PROFILE_UNIT_NS;
	r->meta.present |= PROFILE_META_MODE | PROFILE_META_UNIT;
	return true;
}

static void parse_meta(struct reader *r, const char *s, size_t len)
{
	static const struct {
		const char *key;
		unsigned int bit;
		size_t off;
	} keys[] = {
		{ "samples", PROFILE_META_SAMPLES,
		  offsetof(struct profile_meta, samples) },
		{ "sample_periods", PROFILE_META_SAMPLE_PERIODS,
		  offsetof(struct profile_meta, sample_periods) },
		{ "recorded", PROFILE_META_RECORDED,
		  offsetof(struct profile_meta, recorded) },
		{ "dropped", PROFILE_META_DROPPED,
		  offsetof(struct profile_meta, dropped) },
		{ "throttled", PROFILE_META_THROTTLED,
		  offsetof(struct profile_meta, throttled) },
		{ "periods", PROFILE_META_PERIODS,
		  offsetof(struct profile_meta, periods) },
		{ "freq", PROFILE_META_FREQ,
		  offsetof(struct profile_meta, freq) },
		{ "duration_ns", PROFILE_META_DURATION,
		  offsetof(struct profile_meta, duration_ns) },
		{ "cpus", PROFILE_META_CPUS,
		  offsetof(struct profile_meta, cpus) },
		{ "user_samples", PROFILE_META_FRAMELESS,
		  offsetof(struct profile_meta, user_samples) },
		{ "frameless", PROFILE_META_FRAMELESS,
		  offsetof(struct profile_meta, frameless) },
		{ "blocks", PROFILE_META_BLOCKS,
		  offsetof(struct profile_meta, blocks) },
		{ "blocks_lost", PROFILE_META_BLOCKS,
		  offsetof(struct profile_meta, blocks_lost) },
		{ "unwind_table", PROFILE_META_UNWIND,
		  offsetof(struct profile_meta, unwind_table) },
		{ "unwind_mixed", PROFILE_META_UNWIND,
		  offsetof(struct profile_meta, unwind_mixed) },
		{ "unwind_fp", PROFILE_META_UNWIND,
		  offsetof(struct profile_meta, unwind_fp) },
		{ "unwind_stopped", PROFILE_META_UNWIND,
		  offsetof(struct profile_meta, unwind_stopped) },
	};
	size_t i = strlen(META_PREFIX), k;

	if (parse_mode_line(r, s, len))
		return;

	while (i < len) {
		size_t start, eq, end;
		char val[64];

		while (i < len && is_blank(s[i]))
			i++;
		start = i;
		while (i < len && !is_blank(s[i]))
			i++;
		end = i;
		if (start == end)
			break;
		for (eq = start; eq < end && s[eq] != '='; eq++)
			;
		if (eq == end)
			continue;	/* not key=value: a comment word */
		if (eq - start == 5 && !memcmp(s + start, "title", 5)) {
			free(r->meta.title);
			r->meta.title = percent_decode(s + eq + 1, end - eq - 1);
			r->meta.present |= PROFILE_META_TITLE;
			continue;
		}
		if (eq - start == 13 && !memcmp(s + start, "frameless_top", 13)) {
			free(r->meta.frameless_top);
			r->meta.frameless_top = percent_decode(s + eq + 1,
							       end - eq - 1);
			continue;
		}
		if (end - eq - 1 >= sizeof(val))
			goto bad;
		memcpy(val, s + eq + 1, end - eq - 1);
		val[end - eq - 1] = '\0';
		/* What the counts are: "samples", "periods" or "ns". */
		if (eq - start == 5 && !memcmp(s + start, "count", 5)) {
			if (!strcmp(val, "samples"))
				r->meta.unit = PROFILE_UNIT_SAMPLES;
			else if (!strcmp(val, "periods"))
				r->meta.unit = PROFILE_UNIT_PERIODS;
			else if (!strcmp(val, "ns"))
				r->meta.unit = PROFILE_UNIT_NS;
			else
				goto bad;
			r->meta.present |= PROFILE_META_UNIT;
			continue;
		}
		if (eq - start == 4 && !memcmp(s + start, "mode", 4)) {
			if (profile_mode_parse(val, strlen(val), &r->meta.mode))
				goto bad;
			r->meta.present |= PROFILE_META_MODE;
			continue;
		}
		if (eq - start == 7 && !memcmp(s + start, "cost_ns", 7)) {
			double cost;

			/* A bad value keeps what an earlier one said. */
			if (parse_double(val, &cost) || !(cost >= 0))
				goto bad;
			r->meta.cost_ns = cost;
			r->meta.present |= PROFILE_META_COST;
			continue;
		}
		for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			uint64_t v;

			if (strlen(keys[k].key) != eq - start ||
			    memcmp(keys[k].key, s + start, eq - start))
				continue;
			if (parse_u64(val, 0, UINT64_MAX, &v))
				goto bad;
			memcpy((char *)&r->meta + keys[k].off, &v, sizeof(v));
			r->meta.present |= keys[k].bit;
			break;
		}
		/* Unknown keys are skipped: newer writers may add some. */
		continue;
bad:
		fs_warn("%s:%" PRIu64 ": bad value in '%.*s' of the flamestat header; ignored",
			r->name, r->lineno, (int)(end - start), s + start);
	}
}

static void read_line(struct reader *r, const char *s, size_t len)
{
	uint64_t count, count2 = 0, f;
	unsigned int dec, dec2 = 0;
	bool diff = false, rounded = false;
	ptrdiff_t t1, t2;
	size_t end, i, start, n;

	r->lineno++;
	r->st->lines++;
	if (memchr(s, '\0', len)) {
		bad_line(r, "contains a NUL byte");
		return;
	}
	while (len && (s[len - 1] == '\r' || is_blank(s[len - 1])))
		len--;
	if (!len)
		return;
	if (s[0] == '#') {
		r->st->comments++;
		if (len >= strlen(META_PREFIX) &&
		    !memcmp(s, META_PREFIX, strlen(META_PREFIX))) {
			parse_meta(r, s, len);
			r->meta_line = r->lineno;
		}
		return;
	}
	t1 = count_token(s, len);
	if (t1 < 0) {
		bad_line(r, "no sample count at the end (expected 'frame;frame;... COUNT')");
		return;
	}
	if (profile_parse_count(s + t1, len - (size_t)t1, &count, &dec,
				&rounded))
		goto too_big;
	/*
	 * flamegraph.pl's /^(.*)\s+?(COUNT)$/: exactly one blank separates
	 * the count; any more belong to the stack ("a;b;  3" has a leaf
	 * frame of one space).
	 */
	end = (size_t)t1 - 1;
	t2 = count_token(s, end);
	if (t2 >= 0) {
		/* Two columns: before after, as difffolded.pl writes. */
		count2 = count;
		dec2 = dec;
		if (profile_parse_count(s + t2, end - (size_t)t2, &count, &dec,
					&rounded))
			goto too_big;
		diff = true;
		end = (size_t)t2 - 1;
		/* The two columns in the units of the one with more decimals. */
		if (dec < dec2) {
			f = profile_pow10(dec2 - dec);
			if (count > UINT64_MAX / f)
				goto too_big;
			count *= f;
			dec = dec2;
		} else if (dec2 < dec) {
			f = profile_pow10(dec - dec2);
			if (count2 > UINT64_MAX / f)
				goto too_big;
			count2 *= f;
		}
	}
	/* Trailing empty frames vanish, as with Perl's split. */
	while (end && s[end - 1] == ';')
		end--;
	if (!end) {
		bad_line(r, "no stack before the count");
		return;
	}
	for (n = 0, start = 0; start <= end; start = i + 1) {
		const char *sep = memchr(s + start, ';', end - start);

		i = sep ? (size_t)(sep - s) : end;
		if (n == r->ids_cap) {
			r->ids_cap = r->ids_cap ? r->ids_cap * 2 : 256;
			r->ids = xreallocarray(r->ids, r->ids_cap,
					       sizeof(*r->ids));
		}
		r->ids[n++] = profile_intern_hashed(r->p, s + start, i - start,
				profile_hash_bytes(s + start, i - start));
	}
	if (profile_add_ids_dec(r->p, r->ids, n, count, count2, dec, diff,
				&rounded)) {
		if (errno == EOVERFLOW) {
			overflow(r, "the counts add up");
			return;
		}
		bad_line(r, "empty stack");
		return;
	}
	if (rounded)
		r->st->rounded++;
	r->st->stacks++;
	return;
too_big:
	overflow(r, "a count goes");
}

static const char *unit_name(enum profile_unit u)
{
	return u == PROFILE_UNIT_PERIODS ? "sampling periods" :
	       u == PROFILE_UNIT_NS ? "nanoseconds" : "samples";
}

/* Would adding src's totals to p's pass 64 bits? */
static bool meta_overflows(const struct profile_meta *d,
			   const struct profile_meta *src)
{
	static const size_t sums[] = {
		offsetof(struct profile_meta, samples),
		offsetof(struct profile_meta, sample_periods),
		offsetof(struct profile_meta, recorded),
		offsetof(struct profile_meta, dropped),
		offsetof(struct profile_meta, throttled),
		offsetof(struct profile_meta, periods),
		offsetof(struct profile_meta, user_samples),
		offsetof(struct profile_meta, frameless),
		offsetof(struct profile_meta, blocks),
		offsetof(struct profile_meta, blocks_lost),
		offsetof(struct profile_meta, unwind_table),
		offsetof(struct profile_meta, unwind_mixed),
		offsetof(struct profile_meta, unwind_fp),
		offsetof(struct profile_meta, unwind_stopped),
	};
	uint64_t a, b;
	size_t i;

	for (i = 0; i < sizeof(sums) / sizeof(sums[0]); i++) {
		memcpy(&a, (const char *)d + sums[i], sizeof(a));
		memcpy(&b, (const char *)src + sums[i], sizeof(b));
		if (a > UINT64_MAX - b)
			return true;
	}
	return false;
}

int profile_read_folded(struct profile *p, FILE *f, const char *name,
			struct profile_read_stats *stats)
{
	struct profile_read_stats local = { 0 };
	struct reader r = { .p = p, .name = name, .st = stats ? stats : &local };
	size_t cap = 1 << 20, len = 0, got, pos;
	char *buf = xmalloc(cap);
	const char *nl;
	int ret = 0;
	uint64_t rounded0 = r.st->rounded;
	bool meta_ok;

	for (;;) {
		if (len == cap) {
			/* One line longer than the buffer: make room. */
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
		pos = 0;
		while (!r.failed &&
		       (nl = memchr(buf + pos, '\n', len - pos))) {
			read_line(&r, buf + pos, (size_t)(nl - (buf + pos)));
			pos = (size_t)(nl - buf) + 1;
		}
		if (r.failed) {
			ret = -1;
			break;
		}
		memmove(buf, buf + pos, len - pos);
		len -= pos;
		if (got)
			continue;
		if (ferror(f)) {
			fs_perror("cannot read %s", name);
			ret = -1;
		} else if (len) {
			read_line(&r, buf, len);	/* no final newline */
			if (r.failed)
				ret = -1;
		}
		break;
	}
	if (r.reported > MAX_REPORTED)
		fs_warn("%s: %" PRIu64 " more malformed lines skipped",
			name, r.reported - MAX_REPORTED);
	if (r.st->rounded > rounded0)
		fs_warn("%s: %" PRIu64 " counts rounded to %u decimal%s (at most %u are kept, fewer where the totals would pass 64 bits)",
			name, r.st->rounded - rounded0, profile_decimals(p),
			profile_decimals(p) == 1 ? "" : "s",
			PROFILE_DECIMALS_MAX);
	meta_ok = !meta_overflows(profile_meta(p), &r.meta);
	if (!meta_ok && !ret)
		fs_err("%s:%" PRIu64 ": the header's totals and those of the inputs before it add up past 18446744073709551615, the most 64 bits hold",
		       name, r.meta_line);
	if (!meta_ok)
		ret = -1;
	if ((profile_meta(p)->present & r.meta.present & PROFILE_META_UNIT) &&
	    profile_meta(p)->unit != r.meta.unit)
		fs_warn("%s counts %s, the input before it %s: their sums are neither, and no time is shown",
			name, unit_name(r.meta.unit),
			unit_name(profile_meta(p)->unit));
	if (meta_ok)
		profile_merge_meta(p, &r.meta);
	free(r.meta.title);
	free(r.meta.frameless_top);
	free(r.ids);
	free(buf);
	return ret;
}

static void put_title(FILE *f, const char *t)
{
	const unsigned char *s = (const unsigned char *)t;

	for (; *s; s++) {
		if (*s <= ' ' || *s == '%' || *s == 0x7f)
			fprintf(f, "%%%02X", *s);
		else
			fputc(*s, f);
	}
}

static void write_header(const struct profile *p, FILE *f)
{
	const struct profile_meta *m = profile_meta(p);

	fputs(META_PREFIX, f);
	if (profile_meta_timed(m))
		fprintf(f, " mode=%s", profile_mode_name(m->mode));
	if (m->present & PROFILE_META_UNIT)
		fprintf(f, " count=%s", m->unit == PROFILE_UNIT_PERIODS ?
			"periods" : m->unit == PROFILE_UNIT_NS ? "ns" :
			"samples");
	if (m->present & PROFILE_META_SAMPLES)
		fprintf(f, " samples=%" PRIu64, m->samples);
	if (m->present & PROFILE_META_SAMPLE_PERIODS)
		fprintf(f, " sample_periods=%" PRIu64, m->sample_periods);
	if (m->present & PROFILE_META_RECORDED)
		fprintf(f, " recorded=%" PRIu64, m->recorded);
	if (m->present & PROFILE_META_DROPPED)
		fprintf(f, " dropped=%" PRIu64, m->dropped);
	if (m->present & PROFILE_META_THROTTLED)
		fprintf(f, " throttled=%" PRIu64, m->throttled);
	if (m->present & PROFILE_META_PERIODS)
		fprintf(f, " periods=%" PRIu64, m->periods);
	if (m->present & PROFILE_META_FREQ)
		fprintf(f, " freq=%" PRIu64, m->freq);
	if (m->present & PROFILE_META_DURATION)
		fprintf(f, " duration_ns=%" PRIu64, m->duration_ns);
	if (m->present & PROFILE_META_CPUS)
		fprintf(f, " cpus=%" PRIu64, m->cpus);
	if (m->present & PROFILE_META_COST)
		fprintf(f, " cost_ns=%.17g", m->cost_ns);
	if (m->present & PROFILE_META_BLOCKS)
		fprintf(f, " blocks=%" PRIu64 " blocks_lost=%" PRIu64,
			m->blocks, m->blocks_lost);
	if (m->present & PROFILE_META_UNWIND)
		fprintf(f, " unwind_table=%" PRIu64 " unwind_mixed=%" PRIu64
			" unwind_fp=%" PRIu64 " unwind_stopped=%" PRIu64,
			m->unwind_table, m->unwind_mixed, m->unwind_fp,
			m->unwind_stopped);
	if (m->present & PROFILE_META_FRAMELESS) {
		fprintf(f, " user_samples=%" PRIu64 " frameless=%" PRIu64,
			m->user_samples, m->frameless);
		if (m->frameless_top) {
			fputs(" frameless_top=", f);
			put_title(f, m->frameless_top);
		}
	}
	if ((m->present & PROFILE_META_TITLE) && m->title) {
		fputs(" title=", f);
		put_title(f, m->title);
	}
	fputc('\n', f);
}

int profile_write_folded(const struct profile *p, FILE *f, unsigned int flags)
{
	size_t *order = profile_sorted(p, false);
	size_t i, j, n = profile_nstacks(p);
	bool diff = profile_is_diff(p);
	unsigned int d = profile_decimals(p);
	char c1[PROFILE_COUNT_BUF], c2[PROFILE_COUNT_BUF];
	struct profile_stack s;
	const struct profile_meta *m = profile_meta(p);

	/*
	 * Times, not counts: said first, in the words of the module's text
	 * output, whether the header is asked for or not. (--count samples
	 * made them counts again.)
	 */
	if (profile_meta_timed(m) && m->unit == PROFILE_UNIT_NS)
		fprintf(f, META_PREFIX " mode %s, values in ns\n",
			profile_mode_name(m->mode));
	if (flags & PROFILE_WRITE_HEADER)
		write_header(p, f);
	for (i = 0; i < n; i++) {
		profile_stack(p, order[i], &s);
		for (j = 0; j < s.nframes; j++) {
			if (j)
				fputc(';', f);
			fwrite(profile_name(p, s.frames[j]), 1,
			       profile_name_len(p, s.frames[j]), f);
		}
		/* One blank: a frame of blanks before it reads back. */
		if (diff)
			fprintf(f, " %s %s\n",
				profile_fmt_count(c1, s.count, d, false),
				profile_fmt_count(c2, s.count2, d, false));
		else if (!d)
			fprintf(f, " %" PRIu64 "\n", s.count);
		else
			fprintf(f, " %s\n",
				profile_fmt_count(c1, s.count, d, false));
	}
	free(order);
	if (fflush(f) || ferror(f)) {
		if (!errno)
			errno = EIO;
		return -1;
	}
	return 0;
}
