/* SPDX-License-Identifier: GPL-2.0 */
/* The folded-stack profile model shared by record, report, svg and diff. */
#ifndef FLAMESTAT_PROFILE_H
#define FLAMESTAT_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * A profile is a set of unique stacks, each a sequence of interned frame
 * names (root first) with a count. Life: profile_new() -> any mix of
 * profile_add*() and profile_read_folded() -> iterate, render or write ->
 * profile_free(). Not thread-safe; one owner at a time.
 *
 * Every stack has two counts. For an ordinary profile count2 == count. A
 * differential profile (two count columns, flamegraph.pl's convention)
 * holds "before" in count and "after" in count2; a flame graph is drawn
 * with the widths of count2 and coloured by the change.
 *
 * Samples and periods. The sampler looks at each CPU once per sampling
 * period (1 s / freq): that look is a sample. A sample stands for its own
 * period plus those its CPU's timer missed by firing late and those it
 * skipped while throttled, up to its next firing: a stack's periods times
 * the period is the CPU time it had, its samples how often it was seen.
 * The counts are one or the other, as the metadata's unit says:
 * PROFILE_UNIT_PERIODS for a snapshot's stacks (one period per sample for
 * modules that did not record periods) and folded files whose header says
 * count=periods; PROFILE_UNIT_SAMPLES otherwise, which is also what any
 * other tool's counts are taken for. Widths, percentages and the folded
 * count column follow the counts, so with periods they follow CPU time.
 * Each stack also keeps its samples beside its count (profile_stack()'s
 * samples, one number per stack rather than a parallel array, so merging
 * adds both at once): the count itself for a profile of samples; for one
 * of periods, the samples they came with when they were added with
 * profile_add_sampled() (a snapshot), unknown for folded text, which has
 * one count column only (profile_has_samples()).
 *
 * Frame ids are dense (0 .. profile_nnames() - 1) and stable for the life of
 * the profile; stack indices are dense in insertion order and stable too.
 *
 * Counts are exact decimal fixed point: every count of a profile (count,
 * count2, samples, the totals, the events) is a uint64_t in units of
 * 10^-d, d = profile_decimals(), the most fractional digits any count
 * added so far had (folded text may have "0.5"; flamegraph.pl keeps
 * fractions), at most PROFILE_DECIMALS_MAX. A profile of whole counts has
 * d = 0 and its units are the counts themselves. When a count with more
 * digits arrives, the counts so far are multiplied by the power of ten
 * (exactly: only as far as the totals stay below 2^64; digits beyond that
 * are rounded and counted in profile_read_stats.rounded). Sums are exact
 * integer sums: a total that would pass UINT64_MAX is an error
 * (EOVERFLOW), never a rounding. Whatever prints a count divides by 10^d
 * (profile_fmt_count()); shares are ratios of units and need nothing.
 */
struct profile;

/* Most fractional digits a count keeps; more are rounded half up. */
#define PROFILE_DECIMALS_MAX 9u

/* Room profile_fmt_count() needs: 20 digits, 6 commas, '.', 9, NUL. */
#define PROFILE_COUNT_BUF 40

/* Bits of profile_meta.present. */
enum profile_meta_field {
	PROFILE_META_SAMPLES = 1u << 0,
	PROFILE_META_RECORDED = 1u << 1,
	PROFILE_META_DROPPED = 1u << 2,
	PROFILE_META_FREQ = 1u << 3,
	PROFILE_META_DURATION = 1u << 4,
	PROFILE_META_CPUS = 1u << 5,
	PROFILE_META_COST = 1u << 6,
	PROFILE_META_TITLE = 1u << 7,
	PROFILE_META_THROTTLED = 1u << 8,
	PROFILE_META_PERIODS = 1u << 9,
	PROFILE_META_FRAMELESS = 1u << 10,
	PROFILE_META_UNIT = 1u << 11,
	PROFILE_META_SAMPLE_PERIODS = 1u << 12,
	PROFILE_META_MODE = 1u << 13,
	PROFILE_META_BLOCKS = 1u << 14,
	PROFILE_META_UNWIND = 1u << 15,
};

/* What a profile's counts are (see above). */
enum profile_unit {
	PROFILE_UNIT_SAMPLES,	/* samples, or counts of unknown meaning */
	PROFILE_UNIT_PERIODS,	/* sampling periods: x the period, CPU time */
	/*
	 * Nanoseconds: off-CPU and wall-clock profiles, whose stacks are
	 * time (blocked, or on a CPU: periods x the period). Their samples
	 * are the samples and blocks behind the time.
	 */
	PROFILE_UNIT_NS,
};

/*
 * What was measured (struct flamestat_config.mode): CPU time, time off a
 * CPU, or both (wall-clock time). Off-CPU stacks end in an "[off-cpu:S]"
 * frame (PROFILE_OFFCPU_FRAME), S, D or R their state.
 */
enum profile_mode {
	PROFILE_MODE_CPU,
	PROFILE_MODE_OFFCPU,
	PROFILE_MODE_WALL,
};

/* "cpu", "offcpu", "wall". */
const char *profile_mode_name(enum profile_mode m);
/* The mode named @name (len bytes); -1 when none is. */
int profile_mode_parse(const char *name, size_t len, enum profile_mode *m);

/*
 * The frame after an off-CPU stack's leaf: "[off-cpu:S]", D, R; then,
 * with the waker's stack, "--" and its frames suffixed "_[w]".
 */
#define PROFILE_OFFCPU_FRAME	"[off-cpu:%c]"
#define PROFILE_WAKER_DELIM	"--"
/* 'S', 'D' or 'R' when @name (len bytes) is such a frame; else 0. */
char profile_offcpu_state(const char *name, size_t len);

/* Room profile_fmt_ns() needs. */
#define PROFILE_TIME_BUF 32
/*
 * A time in ns in human units, three significant digits as a rule:
 * "812 ns", "12.5 us", "1.25 ms", "3.21 s". Returns buf.
 */
char *profile_fmt_ns(char *buf, size_t size, double ns);

/*
 * What flamestat's own folded header says about the recording, from
 * "# flamestat: count=periods samples=N sample_periods=N recorded=N
 * dropped=N throttled=N periods=N freq=HZ duration_ns=N cpus=N cost_ns=X
 * user_samples=N frameless=N frameless_top=TEXT title=TEXT" lines
 * (throttled and periods only when the sampler throttled itself; count
 * and sample_periods from flamestat versions that knew periods;
 * user_samples, frameless and frameless_top, one field, only from a
 * recording whose user leaves were looked at; "mode=offcpu count=ns
 * blocks=N blocks_lost=N" from off-CPU and wall-clock recordings, whose
 * folded text also starts with "# flamestat: mode offcpu, values in ns",
 * as the module's text output does). A field is meaningful only
 * when its bit is set in present. Texts are percent-encoded in the file
 * (%20 for a space) and decoded here; the profile owns the strings.
 */
struct profile_meta {
	unsigned int present;
	enum profile_unit unit;	/* what the counts are ("count=") */
	uint64_t samples;	/* samples in this profile */
	/*
	 * The sampling periods those samples stand for (>= samples): both
	 * totals, whichever the counts are.
	 */
	uint64_t sample_periods;
	uint64_t recorded;	/* samples the sampler took, kept or not */
	uint64_t dropped;	/* samples lost (table full, fault, ...) */
	/*
	 * Periods the sampler skipped on purpose, its own cost on a CPU being
	 * above the module's cpu_max_percent (neither recorded nor dropped),
	 * of all the periods of the recording, every CPU's.
	 */
	uint64_t throttled;
	uint64_t periods;
	uint64_t freq;		/* sampling frequency, Hz */
	uint64_t duration_ns;	/* wall time of the recording */
	uint64_t cpus;		/* CPUs sampled */
	double cost_ns;		/* mean sampler cost per sample, ns */
	char *title;
	/*
	 * Of the samples with a user stack (user_samples), those whose leaf
	 * is at an address where the frame pointer is not set up (no frame
	 * pointer in that code, or the first or last instructions of a
	 * function): the walk skipped the leaf function's caller. The
	 * leaves most often so, as "libc.so.6 memcpy 61.2%, ..." (shares of
	 * user_samples), or NULL.
	 */
	uint64_t user_samples;
	uint64_t frameless;
	char *frameless_top;
	enum profile_mode mode;	/* PROFILE_META_MODE; else CPU */
	/*
	 * Off-CPU blocks recorded in the stacks, and those lost (no room for
	 * a stack, still blocked at the end; not those left out on purpose).
	 */
	uint64_t blocks;
	uint64_t blocks_lost;
	/*
	 * Samples with a user stack by how the module walked it (stacks'
	 * UNWIND_* flags): unwind tables only, tables and frame pointers,
	 * frame pointers only; and those whose walk with tables stopped
	 * before the outermost frame ([incomplete]). Not from modules
	 * before unwind tables.
	 */
	uint64_t unwind_table;
	uint64_t unwind_mixed;
	uint64_t unwind_fp;
	uint64_t unwind_stopped;
};

/* Is @m's mode one whose counts are times in ns (offcpu, wall)? */
bool profile_meta_timed(const struct profile_meta *m);

/*
 * One stack, as returned by profile_stack(); valid until the next add. The
 * counts are in units of 10^-profile_decimals().
 */
struct profile_stack {
	const uint32_t *frames;	/* frame ids, root first */
	size_t nframes;
	uint64_t count;		/* before, for a differential profile */
	uint64_t count2;	/* after; equals count otherwise */
	/*
	 * The samples behind count: count itself for a profile of samples;
	 * meaningful for a profile of periods when profile_has_samples().
	 */
	uint64_t samples;
};

/* What profile_read_folded() saw. Counters add up over several calls. */
struct profile_read_stats {
	uint64_t lines;		/* lines read, of any kind */
	uint64_t stacks;	/* stack lines accepted */
	uint64_t comments;	/* '#' lines, headers included */
	uint64_t ignored;	/* malformed lines, reported and skipped */
	/*
	 * Counts whose digits were rounded away: past PROFILE_DECIMALS_MAX,
	 * or past the decimals that fit beside the totals in 64 bits.
	 */
	uint64_t rounded;
};

/* profile_write_folded() flags. */
enum {
	PROFILE_WRITE_HEADER = 1u << 0,	/* "# flamestat:" line first */
};

/* Never NULL: allocation failure exits (xmalloc). */
struct profile *profile_new(void);
void profile_free(struct profile *p);

/*
 * Record every added line in input order besides merging, so that a flame
 * chart (time order, no merging) can be drawn. Off by default; call before
 * adding anything.
 */
void profile_keep_order(struct profile *p);

/* Intern a frame name of len bytes (need not be NUL-terminated). */
uint32_t profile_intern(struct profile *p, const char *name, size_t len);

/*
 * Add count samples of the stack frames[0..nframes) (root first). Identical
 * stacks merge: counts add. The counts of these functions are whole
 * counts (made units of the profile's decimals here). Returns 0, or -1
 * with errno EINVAL for an empty stack or EOVERFLOW when a total would
 * pass UINT64_MAX units (nothing is added then).
 */
int profile_add(struct profile *p, const char *const *frames, size_t nframes,
		uint64_t count);
/* Same with two counts; makes the profile differential. */
int profile_add2(struct profile *p, const char *const *frames,
		 size_t nframes, uint64_t count, uint64_t count2);
/* Same with frame ids from profile_intern(); the fast path. */
int profile_add_ids(struct profile *p, const uint32_t *ids, size_t nframes,
		    uint64_t count, uint64_t count2, bool diff);
/*
 * Same with counts in units of 10^-decimals (decimals <=
 * PROFILE_DECIMALS_MAX): the profile takes as many of those decimals as
 * fit beside its totals (profile_raise_decimals()); when it cannot take
 * them all, the counts are rounded half up to its decimals and *rounded
 * (if not NULL) is set when that changed them. Returns as profile_add().
 */
int profile_add_ids_dec(struct profile *p, const uint32_t *ids,
			size_t nframes, uint64_t count, uint64_t count2,
			unsigned int decimals, bool diff, bool *rounded);
/*
 * Add a stack of @samples samples that stand for @periods sampling periods
 * (a snapshot's stack; periods >= samples): the periods are its count,
 * the samples are kept beside. For a profile whose metadata's unit is
 * PROFILE_UNIT_PERIODS. Returns as profile_add().
 */
int profile_add_sampled(struct profile *p, const char *const *frames,
			size_t nframes, uint64_t periods, uint64_t samples);
/*
 * Say that the profile's samples are known even if no stack is added:
 * a snapshot of no samples (an interval in which nothing ran) still has
 * its samples, 0, and folds with --count samples.
 */
void profile_mark_sampled(struct profile *p);

/*
 * Read folded stacks: "frame;frame;frame COUNT" per line, or "... COUNT
 * COUNT2" for a differential profile, as flamegraph.pl reads them: a
 * count is digits with an optional fraction (\d+(\.\d*)?), the last
 * token of the line, and exactly one blank (space or tab) separates it
 * from the text before it; any other blanks belong to that text. So
 * "a;b;  3" is the stack a, b, " " (a frame of one space: FlameGraph's
 * collapsed perf-vertx test data has such lines), not a;b.
 * That text is the stack when it does not itself end in a blank and a
 * count (then that count is COUNT and the line differential). It is split
 * on ';'; empty names at its start or in its middle are frames, empty
 * ones at its end vanish (Perl's split): "a;;b" is a, "", b and "a;b;" is
 * a;b. Unlike flamegraph.pl, blanks and '\r' after the count are allowed
 * (CRLF files), and a line whose stack is empty (" 3", "; 3") is reported
 * as malformed rather than counted in the root alone.
 *
 * Fractions are kept exactly (see the fixed point above), to
 * PROFILE_DECIMALS_MAX digits; digits past that are rounded half up and
 * counted in stats->rounded with one warning. "# flamestat:" lines fill
 * the metadata, other '#' lines and blank lines are comments. Malformed
 * lines are reported on stderr as "NAME:LINE: why" (the first 10, then a
 * count) and skipped. A count or a sum of counts past UINT64_MAX units is
 * no malformed line but an error: reading stops there with "NAME:LINE:
 * ..." on stderr, so that no partial profile is drawn. name is used in
 * messages only. stats may be NULL. Returns 0, or -1 after reporting a
 * read error or an overflow.
 */
int profile_read_folded(struct profile *p, FILE *f, const char *name,
			struct profile_read_stats *stats);

/*
 * Write one line per unique stack, sorted by frame names, so the same
 * profile always gives the same bytes. Differential profiles get two count
 * columns. The counts are written as they are, periods for a profile of
 * periods (profile_count_samples() first for samples), in decimal as
 * profile_fmt_count() without grouping: whole counts as integers, others
 * with the digits they need ("0.5", "2.25"). One blank separates the
 * stack from its count, so a frame of blanks reads back the same. With
 * PROFILE_WRITE_HEADER the metadata comes first as one "# flamestat:"
 * line. Returns 0, or -1 with errno set on a write error.
 */
int profile_write_folded(const struct profile *p, FILE *f, unsigned int flags);

/* Iteration. */
size_t profile_nstacks(const struct profile *p);
void profile_stack(const struct profile *p, size_t i, struct profile_stack *s);
size_t profile_nnames(const struct profile *p);
const char *profile_name(const struct profile *p, uint32_t id);
size_t profile_name_len(const struct profile *p, uint32_t id);
uint64_t profile_total(const struct profile *p);	/* sum of count */
uint64_t profile_total2(const struct profile *p);	/* sum of count2 */
bool profile_is_diff(const struct profile *p);

/* d: the counts are in units of 10^-d (see above). */
unsigned int profile_decimals(const struct profile *p);
/* 10^d, for d <= PROFILE_DECIMALS_MAX. */
uint64_t profile_pow10(unsigned int d);
/*
 * Make the profile's counts have up to want decimals (at most
 * PROFILE_DECIMALS_MAX): every count is multiplied by the same power of
 * ten, as far as the totals stay within 64 bits. Returns the decimals the
 * profile has then (never fewer than before).
 */
unsigned int profile_raise_decimals(struct profile *p, unsigned int want);
/*
 * A count of units of 10^-decimals as decimal text into buf (at least
 * PROFILE_COUNT_BUF bytes): "12", "0.5", "1234.25", trailing zeros of
 * the fraction dropped; with grouped, thousands separated by commas as
 * flamegraph.pl prints them ("1,234.25"). Returns buf.
 */
char *profile_fmt_count(char *buf, uint64_t units, unsigned int decimals,
			bool grouped);
/* The same count as a double, for times and shares of other totals. */
double profile_count_double(uint64_t units, unsigned int decimals);
/*
 * Parse a count, flamegraph.pl's \d+(\.\d*)? (len bytes of s, nothing
 * else): *units in units of 10^-*decimals, *decimals the fraction's
 * digits without its trailing zeros, at most PROFILE_DECIMALS_MAX (more
 * are rounded half up, and *rounded is set when that changed the value;
 * rounded may be NULL). Returns 0, -1 with errno EINVAL when s is no
 * count, or EOVERFLOW when it needs more than 64 bits.
 */
int profile_parse_count(const char *s, size_t len, uint64_t *units,
			unsigned int *decimals, bool *rounded);

/*
 * Are profile_stack()'s samples known? Always for an ordinary profile of
 * samples; for one of periods, when every stack came with its samples
 * (profile_add_sampled(): a snapshot, not folded text). Never for a
 * differential profile.
 */
bool profile_has_samples(const struct profile *p);
/* Sum of the stacks' samples; meaningful when profile_has_samples(). */
uint64_t profile_total_samples(const struct profile *p);

/*
 * The sampling period of m's frequency in ns, rounded as the module rounds
 * it ((1e9 + freq / 2) / freq); 0 when m gives no frequency.
 */
uint64_t profile_period_ns(const struct profile_meta *m);
/*
 * The CPU time one (whole) count stands for, in ns, so that units u stand
 * for profile_count_double(u, profile_decimals(p)) times it: the sampling
 * period, when the frequency is known and the counts are periods, or
 * samples that each stood for one period (the header says so:
 * sample_periods equals samples; or it predates periods, and then each
 * sample is taken for one period, as the module then had it). 0 when the
 * counts are not time: no frequency, samples that stood for more periods,
 * or a differential profile.
 */
uint64_t profile_count_ns(const struct profile *p);
/*
 * The periods the profile's samples stand for, in the counts' units: the
 * counts' total for a profile of periods, the header's sample_periods for
 * one of samples, or the samples themselves when each stood for one
 * period (as profile_count_ns() takes them); 0 when not known.
 */
uint64_t profile_total_periods(const struct profile *p);

/*
 * Make the counts samples: each stack's count becomes its samples, the
 * unit PROFILE_UNIT_SAMPLES; the periods' total stays in the metadata
 * (sample_periods). For output that should count samples (--count
 * samples). Returns 0, or -1 when the samples are not known (a folded file
 * of periods); nothing is changed then.
 */
int profile_count_samples(struct profile *p);

/*
 * Stack indices sorted by frame names (strcmp, frame by frame, a prefix
 * before its extensions); reversed compares leaf first. Caller frees.
 */
size_t *profile_sorted(const struct profile *p, bool reversed);

/*
 * With profile_keep_order(): the added lines in order, as stack indices
 * with the counts of that line. Returns the number of entries.
 */
struct profile_event {
	uint32_t stack;
	uint64_t count;
	uint64_t count2;
};
size_t profile_events(const struct profile *p,
		      const struct profile_event **events);

/*
 * Scale the first count column to the total target (units of the
 * profile's decimals), each stack's count cut to a whole unit as
 * difffolded.pl -n does (int($count * $total2 / $total1); exact here, in
 * 128-bit integers, where difffolded.pl multiplies doubles), so that a
 * differential graph compares shares rather than raw sample counts. The
 * cut counts may add up to a little less than target. Returns 0, or -1
 * with errno EOVERFLOW when the counts would add up past UINT64_MAX
 * (nothing changed).
 */
int profile_scale_before(struct profile *p, uint64_t target);

/* Metadata: read, replace field by field, merge another file's. */
const struct profile_meta *profile_meta(const struct profile *p);
void profile_set_meta(struct profile *p, const struct profile_meta *m);
/*
 * Fold src into p's metadata: samples, sample_periods, recorded, dropped,
 * throttled and periods add up (several recordings of the same kind); the
 * other fields keep the first value seen. Inputs whose counts are of
 * different units (count=) make the unit PROFILE_UNIT_SAMPLES and drop the
 * frequency: their sums are no time.
 */
void profile_merge_meta(struct profile *p, const struct profile_meta *src);

/*
 * When the sampler throttled itself (m->throttled > 0), the note a report
 * or a graph of the profile shows, "sampled below the requested rate on
 * some CPUs: 12.5% of periods skipped by self-throttling", into buf, and
 * true; else false and buf untouched.
 */
bool profile_throttle_note(const struct profile_meta *m, char *buf,
			   size_t size);

/* Shares of the user samples below this get no frameless note. */
#define PROFILE_FRAMELESS_NOTE_MIN	0.01

/*
 * When at least PROFILE_FRAMELESS_NOTE_MIN of the samples with a user
 * stack have their leaf where no frame pointer is set up, the note saying
 * what that does to the stacks, into buf, and true; else false and buf
 * untouched. @brief: one short line, for a graph; otherwise the whole
 * sentence, with the leaves and where the guide explains it.
 */
/*
 * "user stacks: 98.2% by unwind tables, ...; 0.3% stopped early
 * ([incomplete])" into @buf; false when @m does not say.
 */
bool profile_unwind_note(const struct profile_meta *m, char *buf,
			 size_t size);
bool profile_frameless_note(const struct profile_meta *m, bool brief,
			    char *buf, size_t size);

#endif
