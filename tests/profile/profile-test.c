// SPDX-License-Identifier: GPL-2.0
/*
 * Unit checks of the profile model (user/profile/profile.h), run by
 * 20-svg.sh.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"

static int failed;

#define CHECK(name, cond)						\
	do {								\
		if (cond)						\
			printf("PASS profile-%s\n", name);		\
		else {							\
			printf("FAIL profile-%s: %s (line %d)\n", name,	\
			       #cond, __LINE__);			\
			failed = 1;					\
		}							\
	} while (0)

/* The profile written as folded text, for comparisons. */
static char *folded(const struct profile *p, unsigned int flags)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	profile_write_folded(p, f, flags);
	fclose(f);
	return buf;
}

static struct profile *from_text(const char *text,
				 struct profile_read_stats *st)
{
	struct profile *p = profile_new();
	FILE *f = fmemopen((void *)text, strlen(text), "r");

	profile_read_folded(p, f, "test", st);
	fclose(f);
	return p;
}

static void test_add_merge(void)
{
	const char *a[] = { "main", "foo", "bar" };
	const char *b[] = { "main", "foo" };
	struct profile *p = profile_new();
	struct profile_stack s;
	char *out;

	CHECK("add", profile_add(p, a, 3, 5) == 0);
	CHECK("add-merge", profile_add(p, a, 3, 7) == 0);
	CHECK("add-prefix", profile_add(p, b, 2, 1) == 0);
	CHECK("nstacks", profile_nstacks(p) == 2);
	profile_stack(p, 0, &s);
	CHECK("stack-count", s.count == 12 && s.count2 == 12 &&
	      s.nframes == 3);
	CHECK("interned", s.frames[0] == profile_intern(p, "main", 4) &&
	      profile_nnames(p) == 3);
	CHECK("name", !strcmp(profile_name(p, s.frames[2]), "bar") &&
	      profile_name_len(p, s.frames[2]) == 3);
	CHECK("total", profile_total(p) == 13 && profile_total2(p) == 13);
	CHECK("not-diff", !profile_is_diff(p));
	CHECK("empty-stack", profile_add(p, a, 0, 1) == -1 && errno == EINVAL);
	CHECK("overflow", profile_add(p, a, 3, UINT64_MAX - 12) == -1 &&
	      errno == EOVERFLOW && profile_total(p) == 13);
	out = folded(p, 0);
	CHECK("write-sorted", !strcmp(out, "main;foo 1\nmain;foo;bar 12\n"));
	free(out);
	CHECK("add-to-2^64", profile_add(p, a, 3, UINT64_MAX - 13) == 0 &&
	      profile_total(p) == UINT64_MAX);
	profile_free(p);
}

static void test_read(void)
{
	struct profile_read_stats st = { 0 };
	struct profile *p = from_text(
		"# flamestat: samples=10 dropped=2 freq=997 cpus=4 duration_ns=5000 cost_ns=812.5 title=a%20b future=1\n"
		"# a comment\n"
		"\n"
		"b;c 3\r\n"
		"a;b 2.5\n"
		"no count here\n"
		"a;b 4\n"
		"z;y;x 1.2.3\n"
		"b;c 1", &st);
	const struct profile_meta *m = profile_meta(p);
	char *out = folded(p, PROFILE_WRITE_HEADER);

	CHECK("read-lines", st.lines == 9);
	CHECK("read-stacks", st.stacks == 4);
	CHECK("read-ignored", st.ignored == 2);
	CHECK("read-comments", st.comments == 2);
	CHECK("read-rounded", st.rounded == 0);
	CHECK("meta-present", m->present == (PROFILE_META_SAMPLES |
		PROFILE_META_DROPPED | PROFILE_META_FREQ | PROFILE_META_CPUS |
		PROFILE_META_DURATION | PROFILE_META_COST |
		PROFILE_META_TITLE));
	CHECK("meta-values", m->samples == 10 && m->dropped == 2 &&
	      m->freq == 997 && m->cpus == 4 && m->duration_ns == 5000 &&
	      m->cost_ns == 812.5 && !strcmp(m->title, "a b"));
	CHECK("read-merge-round", !strcmp(out,
		"# flamestat: samples=10 dropped=2 freq=997 duration_ns=5000 cpus=4 cost_ns=812.5 title=a%20b\n"
		"a;b 6.5\nb;c 4\n"));
	free(out);
	profile_free(p);
}

/* The stack (frame names joined by '|') and count of stack i. */
static void stack_text(const struct profile *p, size_t i, char *buf,
		       size_t size, uint64_t *count)
{
	struct profile_stack s;
	size_t j, n = 0;

	profile_stack(p, i, &s);
	buf[0] = '\0';
	for (j = 0; j < s.nframes && n < size; j++)
		n += (size_t)snprintf(buf + n, size - n, "%s%s", j ? "|" : "",
				      profile_name(p, s.frames[j]));
	*count = s.count2;
}

/*
 * Blank and empty frames as flamegraph.pl reads them (issue 16, item 2):
 * one blank separates the count, the others are the stack's; empty names
 * at the end vanish, elsewhere they are frames.
 */
static void test_blank_frames(void)
{
	static const struct {
		const char *line, *stack;
		uint64_t count;
	} t[] = {
		{ "a;b;  3", "a|b| ", 3 },		/* leaf of one blank */
		{ "a;b;   3", "a|b|  ", 3 },		/* of two */
		{ "a;b;\t 3", "a|b|\t", 3 },
		{ "a;b; 3", "a|b", 3 },			/* trailing ';' */
		{ "a;b;; 3", "a|b", 3 },
		{ "a;b  3", "a|b ", 3 },		/* blank ends a name */
		{ "a;;b 3", "a||b", 3 },		/* empty middle frame */
		{ ";a 3", "|a", 3 },			/* empty root frame */
		{ "a; ;b 3", "a| |b", 3 },
		{ "a;b;  1 3", "a|b| ", 3 },		/* differential */
		{ "a;b 1  3", "a|b 1 ", 3 },		/* not: "1 " ends no count */
	};
	struct profile_read_stats st;
	struct profile *p;
	char got[64], *out, *again;
	uint64_t c;
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		memset(&st, 0, sizeof(st));
		p = from_text(t[i].line, &st);
		got[0] = '\0';
		c = 0;
		if (profile_nstacks(p) == 1)
			stack_text(p, 0, got, sizeof(got), &c);
		if (st.stacks != 1 || strcmp(got, t[i].stack) || c != t[i].count)
			printf("  '%s': %llu stacks, '%s' %llu; want '%s' %llu\n",
			       t[i].line, (unsigned long long)st.stacks, got,
			       (unsigned long long)c, t[i].stack,
			       (unsigned long long)t[i].count);
		CHECK("blank-frames", st.stacks == 1 && !st.ignored &&
		      !strcmp(got, t[i].stack) && c == t[i].count);
		/* Written and read again: the same stack. */
		out = folded(p, 0);
		profile_free(p);
		p = from_text(out, NULL);
		again = folded(p, 0);
		CHECK("blank-frames-roundtrip", !strcmp(out, again));
		free(out);
		free(again);
		profile_free(p);
	}
	/* perf-vertx's unnamed JIT leaf: its samples are its own, not b's. */
	p = from_text("a;b;  3\na;b 1\n", NULL);
	out = folded(p, 0);
	CHECK("blank-leaf-kept", !strcmp(out, "a;b 1\na;b;  3\n") &&
	      profile_nstacks(p) == 2);
	free(out);
	profile_free(p);
	/* No stack at all: malformed, not counted. */
	memset(&st, 0, sizeof(st));
	p = from_text(" 3\n; 3\n;; 3\n", &st);
	CHECK("empty-stack-malformed", st.ignored == 3 && !profile_nstacks(p));
	profile_free(p);
}

/* Read text; the return value of profile_read_folded(). */
static int read_text(struct profile *p, const char *text,
		     struct profile_read_stats *st)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int r = profile_read_folded(p, f, "test", st);

	fclose(f);
	return r;
}

/* 64-bit counts (issue 16, item 3): exact to 2^64 - 1, an error past. */
static void test_big_counts(void)
{
	struct profile_read_stats st = { 0 };
	struct profile *p = profile_new();
	char *out;
	int r;

	/* 2^53 + 1 is no double: it must stay exact. */
	r = read_text(p, "a 9007199254740993\nb 9007199254740993\n", &st);
	out = folded(p, 0);
	CHECK("count-past-2^53", !r && st.stacks == 2 &&
	      profile_total(p) == 18014398509481986ull &&
	      !strcmp(out, "a 9007199254740993\nb 9007199254740993\n"));
	free(out);
	profile_free(p);

	p = profile_new();
	memset(&st, 0, sizeof(st));
	r = read_text(p, "a 18446744073709551614\nb 1\n", &st);
	CHECK("sum-to-2^64-1", !r && profile_total(p) == UINT64_MAX);
	profile_free(p);

	/* Past 2^64: reading fails at that line; nothing after is read. */
	p = profile_new();
	memset(&st, 0, sizeof(st));
	r = read_text(p, "a 18446744073709551615\nb 1\nc 1\n", &st);
	CHECK("sum-past-2^64", r == -1 && st.lines == 2 &&
	      profile_nstacks(p) == 1 && !st.ignored);
	profile_free(p);
	p = profile_new();
	memset(&st, 0, sizeof(st));
	r = read_text(p, "a 1\nb 18446744073709551616\n", &st);
	CHECK("count-past-2^64", r == -1 && st.lines == 2 &&
	      profile_nstacks(p) == 1);
	profile_free(p);
	/* A second file adds to the first: the same check. */
	p = profile_new();
	r = read_text(p, "a 18446744073709551615\n", NULL);
	CHECK("sum-past-2^64-second-input", !r &&
	      read_text(p, "a 1\n", NULL) == -1 &&
	      profile_total(p) == UINT64_MAX);
	profile_free(p);
	/* Header totals too. */
	p = profile_new();
	r = read_text(p, "# flamestat: samples=18446744073709551615\na 1\n",
		      NULL);
	CHECK("meta-past-2^64", !r &&
	      read_text(p, "# flamestat: samples=1\na 1\n", NULL) == -1 &&
	      profile_meta(p)->samples == UINT64_MAX);
	profile_free(p);
}

/* Fractional counts (issue 16, item 4): exact decimal fixed point. */
static void test_fractions(void)
{
	struct profile_read_stats st = { 0 };
	struct profile *p = profile_new();
	struct profile_stack s;
	char buf[PROFILE_COUNT_BUF], *out, *text;
	size_t i, len = 0;
	uint64_t u;
	unsigned int d;
	bool rounded;
	FILE *f;

	/* flamegraph.pl's total of 670 halves is 335, not 670 or 0. */
	f = open_memstream(&text, &len);
	for (i = 0; i < 670; i++)
		fputs("f;g 0.5\n", f);
	fclose(f);
	read_text(p, text, &st);
	free(text);
	out = folded(p, 0);
	CHECK("halves", profile_decimals(p) == 1 && profile_total(p) == 3350 &&
	      !st.rounded && !strcmp(out, "f;g 335\n"));
	free(out);
	profile_free(p);

	/* Counts below 0.5 are samples still. */
	p = from_text("a 0.1\nb 0.2\n", NULL);
	CHECK("small-fractions", profile_total(p) == 3 &&
	      profile_decimals(p) == 1);
	profile_free(p);

	/* Written back as read: fractions keep their digits, integers none. */
	p = from_text("a 0.25\nb 0.5\nc 2\nd 3.0\ne 1.50\nf 7.\n", NULL);
	out = folded(p, 0);
	CHECK("fractions-written", profile_decimals(p) == 2 && !strcmp(out,
		"a 0.25\nb 0.5\nc 2\nd 3\ne 1.5\nf 7\n"));
	free(out);
	profile_free(p);
	p = from_text("a 3\nb 4.000\n", NULL);
	CHECK("integers-stay-integers", profile_decimals(p) == 0 &&
	      profile_total(p) == 7);
	profile_free(p);

	/* More digits later: the counts so far are rescaled, exactly. */
	p = from_text("a 1\nb 0.5\nc 0.001\na 2\n", NULL);
	profile_stack(p, 0, &s);
	CHECK("rescale", profile_decimals(p) == 3 && s.count == 3000 &&
	      profile_total(p) == 3501);
	profile_free(p);

	/* Past nine digits: rounded half up, counted, warned. */
	memset(&st, 0, sizeof(st));
	p = from_text("a 0.1234567894\nb 0.0000000005\nc 0.5\n", &st);
	CHECK("past-nine-digits", profile_decimals(p) == 9 && st.rounded == 2 &&
	      profile_total(p) == 123456789 + 1 + 500000000);
	profile_free(p);

	/* Decimals that do not fit beside the totals: rounded, not refused. */
	memset(&st, 0, sizeof(st));
	p = from_text("a 10000000000000000000\nb 0.5\nc 0.25\n", &st);
	CHECK("decimals-that-do-not-fit", profile_decimals(p) == 0 &&
	      st.rounded == 2 && !st.ignored &&
	      profile_total(p) == 10000000000000000001ull);
	profile_free(p);
	memset(&st, 0, sizeof(st));
	p = from_text("a 1000000000000000000\nb 0.05\n", &st);
	CHECK("decimals-partly-fit", profile_decimals(p) == 1 &&
	      st.rounded == 1 && profile_total(p) == 10000000000000000001ull);
	profile_free(p);

	/* Two columns with different decimals; events and diff scaling. */
	p = profile_new();
	profile_keep_order(p);
	read_text(p, "a 1 0.5\nb 2\n", NULL);
	out = folded(p, 0);
	CHECK("diff-fractions", profile_is_diff(p) && profile_decimals(p) == 1 &&
	      !strcmp(out, "a 1 0.5\nb 2 2\n") && profile_total(p) == 30 &&
	      profile_total2(p) == 25);
	free(out);
	{
		const struct profile_event *ev;

		CHECK("events-rescaled", profile_events(p, &ev) == 2 &&
		      ev[0].count == 10 && ev[0].count2 == 5 &&
		      ev[1].count == 20);
	}
	/* Cut as difffolded.pl -n cuts: 10 * 25 / 30 -> 8, 20 * 25 / 30 -> 16. */
	CHECK("scale-before-units", profile_scale_before(p, 25) == 0 &&
	      profile_total(p) == 24);
	profile_free(p);

	/* Whole counts added to a fractional profile are units too. */
	{
		const char *fr[] = { "x" };

		p = from_text("a 0.5\n", NULL);
		CHECK("add-whole-to-fractions", profile_add(p, fr, 1, 2) == 0 &&
		      profile_total(p) == 25);
		profile_free(p);
	}

	/* Formatting and parsing. */
	CHECK("fmt-count", !strcmp(profile_fmt_count(buf, 1234567, 0, true),
				   "1,234,567") &&
	      !strcmp(profile_fmt_count(buf, 1234567, 2, true), "12,345.67") &&
	      !strcmp(profile_fmt_count(buf, 5, 3, false), "0.005") &&
	      !strcmp(profile_fmt_count(buf, 50, 3, false), "0.05") &&
	      !strcmp(profile_fmt_count(buf, 3000, 3, false), "3") &&
	      !strcmp(profile_fmt_count(buf, UINT64_MAX, 0, false),
		      "18446744073709551615") &&
	      !strcmp(profile_fmt_count(buf, UINT64_MAX, 9, true),
		      "18,446,744,073.709551615"));
	CHECK("parse-count", !profile_parse_count("12.50", 5, &u, &d, NULL) &&
	      u == 125 && d == 1 &&
	      !profile_parse_count("18446744073709551615", 20, &u, &d, NULL) &&
	      u == UINT64_MAX && d == 0 &&
	      profile_parse_count("18446744073709551616", 20, &u, &d, NULL) &&
	      errno == EOVERFLOW &&
	      profile_parse_count("1e3", 3, &u, &d, NULL) && errno == EINVAL &&
	      profile_parse_count(".5", 2, &u, &d, NULL) && errno == EINVAL);
	rounded = false;
	CHECK("parse-count-rounds", !profile_parse_count("0.99999999999", 13,
							 &u, &d, &rounded) &&
	      u == 1000000000 && d == 9 && rounded);
}

static void test_roundtrip(void)
{
	struct profile *p = from_text(
		"# flamestat: samples=7 recorded=9 title=x%25y\nq;r 3\nq 4\n", NULL);
	char *a = folded(p, PROFILE_WRITE_HEADER), *b;
	struct profile *p2 = from_text(a, NULL);

	b = folded(p2, PROFILE_WRITE_HEADER);
	CHECK("roundtrip", !strcmp(a, b));
	CHECK("title-percent", !strcmp(profile_meta(p2)->title, "x%y"));
	free(a);
	free(b);
	profile_free(p);
	profile_free(p2);
}

/* A bad value in the header is ignored and keeps what an earlier key said
 * (found by fuzz/folded: "cost_ns=9 cost_ns=-9" wrote back cost_ns=-9). */
static void test_bad_meta_value(void)
{
	struct profile *p = from_text(
		"# flamestat: cost_ns=9 samples=4 cost_ns=-9 samples=-1 cost_ns=nan\na 1\n",
		NULL);
	char *out = folded(p, PROFILE_WRITE_HEADER);

	CHECK("bad-meta-keeps-earlier", !strcmp(out,
		"# flamestat: samples=4 cost_ns=9\na 1\n"));
	free(out);
	profile_free(p);
}

/* Self-throttling: counted apart, added up over inputs, noted. */
static void test_throttle(void)
{
	static const char second[] =
		"# flamestat: samples=1 throttled=5 periods=50\nq 4\n";
	struct profile *p = from_text(
		"# flamestat: samples=7 throttled=25 periods=250\nq;r 3\n", NULL);
	FILE *f = fmemopen((void *)second, strlen(second), "r");
	struct profile *plain = from_text("# flamestat: samples=7\nq 7\n",
					  NULL);
	struct profile_meta m = { 0 };
	char *out, note[160] = "";

	profile_read_folded(p, f, "second", NULL);	/* a second input */
	fclose(f);
	out = folded(p, PROFILE_WRITE_HEADER);
	CHECK("throttle-merge", profile_meta(p)->throttled == 30 &&
	      profile_meta(p)->periods == 300);
	CHECK("throttle-write", !strcmp(out,
		"# flamestat: samples=8 throttled=30 periods=300\nq 4\nq;r 3\n"));
	CHECK("throttle-note", profile_throttle_note(profile_meta(p), note,
						     sizeof(note)) &&
	      !strcmp(note, "sampled below the requested rate on some CPUs: 10.0% of periods skipped by self-throttling"));
	CHECK("throttle-none", !profile_throttle_note(profile_meta(plain),
						      note, sizeof(note)));
	m.present = PROFILE_META_THROTTLED;
	m.throttled = 12;
	CHECK("throttle-note-count", profile_throttle_note(&m, note,
							   sizeof(note)) &&
	      !strcmp(note, "sampled below the requested rate on some CPUs: 12 periods skipped by self-throttling"));
	free(out);
	profile_free(p);
	profile_free(plain);
}

/*
 * Periods: a snapshot's stacks count the periods their samples stand for
 * and keep the samples beside; the header carries both totals and what
 * the counts are; time per count is the period when the counts are
 * periods, or samples that each stood for one.
 */
static void test_periods(void)
{
	static const char second[] =
		"# flamestat: count=samples samples=3 sample_periods=4 freq=1000\nq 3\n";
	const char *a[] = { "m", "a" }, *b[] = { "m", "b" };
	struct profile_meta m = { 0 };
	struct profile *p = profile_new(), *back, *two;
	struct profile_stack s;
	char *out;
	FILE *f;

	CHECK("sampled-add", !profile_add_sampled(p, a, 2, 30, 10) &&
	      !profile_add_sampled(p, b, 2, 10, 10) &&
	      !profile_add_sampled(p, a, 2, 3, 1));
	m.present = PROFILE_META_UNIT | PROFILE_META_SAMPLES |
		    PROFILE_META_SAMPLE_PERIODS | PROFILE_META_FREQ;
	m.unit = PROFILE_UNIT_PERIODS;
	m.samples = 21;
	m.sample_periods = 43;
	m.freq = 1000;
	profile_set_meta(p, &m);
	profile_stack(p, 0, &s);
	CHECK("sampled-stack", s.count == 33 && s.count2 == 33 &&
	      s.samples == 11);
	CHECK("sampled-totals", profile_total(p) == 43 &&
	      profile_total_samples(p) == 21 && profile_has_samples(p));
	CHECK("period-ns", profile_count_ns(p) == 1000000 &&
	      profile_total_periods(p) == 43);
	out = folded(p, PROFILE_WRITE_HEADER);
	CHECK("periods-write", !strcmp(out,
		"# flamestat: count=periods samples=21 sample_periods=43 freq=1000\n"
		"m;a 33\nm;b 10\n"));
	/* Read back: the periods and both totals, not each stack's samples. */
	back = from_text(out, NULL);
	CHECK("periods-read", profile_meta(back)->unit == PROFILE_UNIT_PERIODS &&
	      profile_meta(back)->samples == 21 &&
	      profile_meta(back)->sample_periods == 43 &&
	      profile_total(back) == 43 && !profile_has_samples(back) &&
	      profile_count_ns(back) == 1000000);
	CHECK("periods-count-samples-unknown",
	      profile_count_samples(back) == -1 && profile_total(back) == 43);
	free(out);
	/* --count samples: samples counted, the periods' total kept. */
	CHECK("count-samples", profile_count_samples(p) == 0);
	out = folded(p, PROFILE_WRITE_HEADER);
	CHECK("count-samples-write", !strcmp(out,
		"# flamestat: count=samples samples=21 sample_periods=43 freq=1000\n"
		"m;a 11\nm;b 10\n"));
	CHECK("count-samples-no-time", profile_count_ns(p) == 0 &&
	      profile_has_samples(p) && profile_total(p) == 21 &&
	      profile_total_periods(p) == 43);
	profile_free(back);
	back = from_text(out, NULL);
	CHECK("count-samples-read", profile_count_ns(back) == 0 &&
	      profile_meta(back)->unit == PROFILE_UNIT_SAMPLES);
	free(out);
	profile_free(back);
	profile_free(p);

	/* Samples that each stood for one period are time; so are older ones. */
	p = from_text("# flamestat: count=samples samples=5 sample_periods=5 freq=997\nq 5\n",
		      NULL);
	CHECK("samples-one-period", profile_count_ns(p) == 1003009);
	profile_free(p);
	p = from_text("# flamestat: samples=5 freq=997\nq 5\n", NULL);
	CHECK("samples-before-periods", profile_count_ns(p) == 1003009 &&
	      profile_has_samples(p) && profile_total_periods(p) == 5);
	profile_free(p);
	p = from_text("q 5\n", NULL);
	CHECK("no-freq-no-time", profile_count_ns(p) == 0 &&
	      profile_total_periods(p) == 0);
	profile_free(p);

	/* Inputs of both units: added up, but no time. */
	two = from_text("# flamestat: count=periods samples=2 sample_periods=6 freq=1000\nq 6\n",
			NULL);
	f = fmemopen((void *)second, strlen(second), "r");
	profile_read_folded(two, f, "second", NULL);
	fclose(f);
	CHECK("mixed-units", profile_total(two) == 9 &&
	      profile_meta(two)->samples == 5 &&
	      profile_meta(two)->sample_periods == 10 &&
	      profile_count_ns(two) == 0);
	profile_free(two);
}

static void test_diff(void)
{
	const char *a[] = { "m", "f" };
	struct profile *p = from_text("m;f 10 20\nm;g 10\nm;h 30 0\n", NULL);
	char *out = folded(p, 0);

	CHECK("diff-flag", profile_is_diff(p));
	CHECK("diff-totals", profile_total(p) == 50 && profile_total2(p) == 30);
	/* A one-count line in a two-count profile is "unchanged". */
	CHECK("diff-write", !strcmp(out, "m;f 10 20\nm;g 10 10\nm;h 30 0\n"));
	free(out);
	CHECK("add2", profile_add2(p, a, 2, 1, 2) == 0 &&
	      profile_total2(p) == 32);
	CHECK("scale-before-ok", profile_scale_before(p, profile_total2(p)) == 0);
	/* 11, 10, 30 of 51 scaled to 32 and cut: 6 + 6 + 18. */
	CHECK("scale-before", profile_total(p) == 30);
	profile_free(p);
}

static void test_order(void)
{
	struct profile *p = profile_new();
	const struct profile_event *ev;
	size_t n;
	FILE *f;
	const char *text = "b 1\na 2\nb 3\n";

	profile_keep_order(p);
	f = fmemopen((void *)text, strlen(text), "r");
	profile_read_folded(p, f, "order", NULL);
	fclose(f);
	n = profile_events(p, &ev);
	CHECK("events", n == 3 && ev[0].stack == ev[2].stack &&
	      ev[0].count == 1 && ev[1].count == 2 && ev[2].count == 3);
	CHECK("events-merged", profile_nstacks(p) == 2);
	profile_free(p);
}

static void test_sorted(void)
{
	struct profile *p = from_text("b;a 1\na;b 1\na 1\nab 1\na;a 1\n", NULL);
	size_t *o = profile_sorted(p, false), *r = profile_sorted(p, true);
	struct profile_stack s;
	char got[64] = "";
	size_t i;

	for (i = 0; i < profile_nstacks(p); i++) {
		profile_stack(p, o[i], &s);
		strcat(got, profile_name(p, s.frames[0]));
		strcat(got, s.nframes > 1 ? profile_name(p, s.frames[1]) : "");
		strcat(got, " ");
	}
	CHECK("sorted", !strcmp(got, "a aa ab ab ba "));
	profile_stack(p, r[0], &s);
	CHECK("sorted-reversed", s.nframes == 1 ||
	      !strcmp(profile_name(p, s.frames[s.nframes - 1]), "a"));
	free(o);
	free(r);
	profile_free(p);
}

/* Many stacks: merging, rehashing and ids stay right past table growth. */
static void test_many(void)
{
	struct profile *p = profile_new();
	char n1[32], n2[32];
	const char *f[2] = { n1, n2 };
	int i, ok = 1;

	for (i = 0; i < 200000; i++) {
		snprintf(n1, sizeof(n1), "f%d", i % 1000);
		snprintf(n2, sizeof(n2), "g%d", i % 5000);
		if (profile_add(p, f, 2, 1))
			ok = 0;
	}
	CHECK("many-add", ok);
	CHECK("many-stacks", profile_nstacks(p) == 5000);
	CHECK("many-names", profile_nnames(p) == 6000);
	CHECK("many-total", profile_total(p) == 200000);
	profile_free(p);
}

int main(void)
{
	test_add_merge();
	test_read();
	test_roundtrip();
	test_bad_meta_value();
	test_blank_frames();
	test_big_counts();
	test_fractions();
	test_throttle();
	test_periods();
	test_diff();
	test_order();
	test_sorted();
	test_many();
	return failed;
}
