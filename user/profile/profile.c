// SPDX-License-Identifier: GPL-2.0
/* Profile storage: interned frame names and merged stacks in hash tables. */
#include "profile/profile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "profile/profile_int.h"

/*
 * Names live back to back in one arena, NUL-terminated so profile_name()
 * can hand out C strings; stacks are runs of frame ids in another. Both
 * hash tables hold (hash << 32 | index + 1) per slot, 0 = empty, so a probe
 * rejects most mismatches without touching the entries, and are kept at
 * most half full, so probes stay short even for millions of frames.
 */
struct stack_rec {
	size_t off;		/* first frame id in p->frames */
	uint32_t nframes;
	uint32_t hash;
	uint64_t count;
	uint64_t count2;
	uint64_t samples;	/* behind count (profile.h) */
};

struct profile {
	char *names;		/* arena */
	size_t names_len, names_cap;
	size_t *name_off;	/* per id: offset in names */
	uint32_t *name_len;
	uint32_t *name_hash;
	size_t nnames, names_alloc;
	uint64_t *name_slots;
	size_t name_mask;

	uint32_t *frames;	/* arena of frame ids */
	size_t nframes_used, frames_cap;
	struct stack_rec *stacks;
	size_t nstacks, stacks_alloc;
	uint64_t *stack_slots;
	size_t stack_mask;

	uint64_t total, total2, total_samples;
	unsigned int decimals;	/* counts are in units of 10^-decimals */
	bool diff;
	/*
	 * Stacks added with their samples apart (profile_add_sampled()), and
	 * with one count only (samples = count: known for a profile of
	 * samples, not for one of periods).
	 */
	bool sampled, unsampled;

	bool keep_order;
	struct profile_event *events;
	size_t nevents, events_alloc;

	struct profile_meta meta;
};

static uint32_t hash_ids(const uint32_t *ids, size_t n)
{
	uint64_t h = n * HASH_K;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ ids[i]) * HASH_K + (h >> 23);
	return (uint32_t)mix64(h);
}

static inline uint64_t slot_val(uint32_t hash, size_t index)
{
	return (uint64_t)hash << 32 | (uint32_t)(index + 1);
}

struct profile *profile_new(void)
{
	struct profile *p = xcalloc(1, sizeof(*p));

	p->name_mask = 1023;
	p->name_slots = xcalloc(p->name_mask + 1, sizeof(*p->name_slots));
	p->stack_mask = 1023;
	p->stack_slots = xcalloc(p->stack_mask + 1, sizeof(*p->stack_slots));
	return p;
}

void profile_free(struct profile *p)
{
	if (!p)
		return;
	free(p->names);
	free(p->name_off);
	free(p->name_len);
	free(p->name_hash);
	free(p->name_slots);
	free(p->frames);
	free(p->stacks);
	free(p->stack_slots);
	free(p->events);
	free(p->meta.title);
	free(p->meta.frameless_top);
	free(p);
}

void profile_keep_order(struct profile *p)
{
	p->keep_order = true;
}

static void grow_names_table(struct profile *p)
{
	size_t mask = p->name_mask * 2 + 1, i, j;
	uint64_t *slots = xcalloc(mask + 1, sizeof(*slots));

	for (i = 0; i < p->nnames; i++) {
		for (j = p->name_hash[i] & mask; slots[j]; j = (j + 1) & mask)
			;
		slots[j] = slot_val(p->name_hash[i], i);
	}
	free(p->name_slots);
	p->name_slots = slots;
	p->name_mask = mask;
}

uint32_t profile_intern_hashed(struct profile *p, const char *name,
			       size_t len, uint32_t hash)
{
	size_t j;
	uint32_t id;

	for (j = hash & p->name_mask; p->name_slots[j];
	     j = (j + 1) & p->name_mask) {
		if (p->name_slots[j] >> 32 != hash)
			continue;
		id = (uint32_t)p->name_slots[j] - 1;
		if (p->name_len[id] == len &&
		    !memcmp(p->names + p->name_off[id], name, len))
			return id;
	}
	if (p->nnames >= UINT32_MAX - 1 || len >= UINT32_MAX) {
		fs_err("more than 4 billion distinct frame names");
		exit(EXIT_FAIL);
	}
	if (p->nnames == p->names_alloc) {
		p->names_alloc = p->names_alloc ? p->names_alloc * 2 : 1024;
		p->name_off = xreallocarray(p->name_off, p->names_alloc,
					    sizeof(*p->name_off));
		p->name_len = xreallocarray(p->name_len, p->names_alloc,
					    sizeof(*p->name_len));
		p->name_hash = xreallocarray(p->name_hash, p->names_alloc,
					     sizeof(*p->name_hash));
	}
	if (p->names_len + len + 1 > p->names_cap) {
		p->names_cap = (p->names_cap + len + 1) * 2;
		p->names = xrealloc(p->names, p->names_cap);
	}
	id = (uint32_t)p->nnames++;
	p->name_off[id] = p->names_len;
	p->name_len[id] = (uint32_t)len;
	p->name_hash[id] = hash;
	memcpy(p->names + p->names_len, name, len);
	p->names[p->names_len + len] = '\0';
	p->names_len += len + 1;
	p->name_slots[j] = slot_val(hash, id);
	if (p->nnames * 2 > p->name_mask)
		grow_names_table(p);
	return id;
}

uint32_t profile_intern(struct profile *p, const char *name, size_t len)
{
	return profile_intern_hashed(p, name, len,
				     profile_hash_bytes(name, len));
}

static void grow_stack_table(struct profile *p)
{
	size_t mask = p->stack_mask * 2 + 1, i, j;
	uint64_t *slots = xcalloc(mask + 1, sizeof(*slots));

	for (i = 0; i < p->nstacks; i++) {
		for (j = p->stacks[i].hash & mask; slots[j];
		     j = (j + 1) & mask)
			;
		slots[j] = slot_val(p->stacks[i].hash, i);
	}
	free(p->stack_slots);
	p->stack_slots = slots;
	p->stack_mask = mask;
}

static void add_event(struct profile *p, uint32_t stack, uint64_t count,
		      uint64_t count2)
{
	if (p->nevents == p->events_alloc) {
		p->events_alloc = p->events_alloc ? p->events_alloc * 2 : 1024;
		p->events = xreallocarray(p->events, p->events_alloc,
					  sizeof(*p->events));
	}
	p->events[p->nevents].stack = stack;
	p->events[p->nevents].count = count;
	p->events[p->nevents].count2 = count2;
	p->nevents++;
}

static const uint64_t pow10_tab[PROFILE_DECIMALS_MAX + 1] = {
	1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
	1000000000,
};

uint64_t profile_pow10(unsigned int d)
{
	return pow10_tab[d < PROFILE_DECIMALS_MAX ? d : PROFILE_DECIMALS_MAX];
}

unsigned int profile_decimals(const struct profile *p)
{
	return p->decimals;
}

unsigned int profile_raise_decimals(struct profile *p, unsigned int want)
{
	unsigned int k;
	uint64_t f;
	size_t i;

	if (want > PROFILE_DECIMALS_MAX)
		want = PROFILE_DECIMALS_MAX;
	if (want <= p->decimals)
		return p->decimals;
	/* Every count is at most its total: checking the totals suffices. */
	for (k = want - p->decimals; k; k--) {
		f = pow10_tab[k];
		if (p->total <= UINT64_MAX / f && p->total2 <= UINT64_MAX / f &&
		    p->total_samples <= UINT64_MAX / f)
			break;
	}
	if (!k)
		return p->decimals;
	f = pow10_tab[k];
	for (i = 0; i < p->nstacks; i++) {
		p->stacks[i].count *= f;
		p->stacks[i].count2 *= f;
		p->stacks[i].samples *= f;
	}
	for (i = 0; i < p->nevents; i++) {
		p->events[i].count *= f;
		p->events[i].count2 *= f;
	}
	p->total *= f;
	p->total2 *= f;
	p->total_samples *= f;
	p->decimals += k;
	return p->decimals;
}

/*
 * v in units of 10^-dec as units of the profile's decimals: exact when it
 * has as many or more (EOVERFLOW past 64 bits), else rounded half up
 * (*rounded set when that changed it).
 */
static int to_units(const struct profile *p, uint64_t v, unsigned int dec,
		    uint64_t *out, bool *rounded)
{
	uint64_t f, q;

	if (dec <= p->decimals) {
		f = pow10_tab[p->decimals - dec];
		if (v > UINT64_MAX / f) {
			errno = EOVERFLOW;
			return -1;
		}
		*out = v * f;
		return 0;
	}
	f = pow10_tab[dec - p->decimals];
	q = v / f + (v % f >= f / 2);	/* f >= 10: no overflow */
	if (v % f && rounded)
		*rounded = true;
	*out = q;
	return 0;
}

/* profile_add_ids() with the samples behind count, all in units. */
static int add_ids(struct profile *p, const uint32_t *ids, size_t nframes,
		   uint64_t count, uint64_t count2, uint64_t samples, bool diff)
{
	struct stack_rec *s;
	uint32_t hash, idx;
	size_t j;

	if (!nframes || nframes > UINT32_MAX) {
		errno = EINVAL;
		return -1;
	}
	if (!diff)
		count2 = count;
	/* Exact sums: an error only where 64 bits end. */
	if (count > UINT64_MAX - p->total ||
	    count2 > UINT64_MAX - p->total2 ||
	    samples > UINT64_MAX - p->total_samples) {
		errno = EOVERFLOW;
		return -1;
	}
	hash = hash_ids(ids, nframes);
	for (j = hash & p->stack_mask; p->stack_slots[j];
	     j = (j + 1) & p->stack_mask) {
		if (p->stack_slots[j] >> 32 != hash)
			continue;
		idx = (uint32_t)p->stack_slots[j] - 1;
		s = &p->stacks[idx];
		if (s->nframes == nframes &&
		    !memcmp(p->frames + s->off, ids, nframes * sizeof(*ids)))
			goto found;
	}
	if (p->nstacks >= UINT32_MAX - 1) {
		errno = EOVERFLOW;
		return -1;
	}
	if (p->nstacks == p->stacks_alloc) {
		p->stacks_alloc = p->stacks_alloc ? p->stacks_alloc * 2 : 1024;
		p->stacks = xreallocarray(p->stacks, p->stacks_alloc,
					  sizeof(*p->stacks));
	}
	if (p->nframes_used + nframes > p->frames_cap) {
		p->frames_cap = (p->frames_cap + nframes) * 2;
		p->frames = xreallocarray(p->frames, p->frames_cap,
					  sizeof(*p->frames));
	}
	memcpy(p->frames + p->nframes_used, ids, nframes * sizeof(*ids));
	idx = (uint32_t)p->nstacks++;
	s = &p->stacks[idx];
	s->off = p->nframes_used;
	s->nframes = (uint32_t)nframes;
	s->hash = hash;
	s->count = s->count2 = s->samples = 0;
	p->nframes_used += nframes;
	p->stack_slots[j] = slot_val(hash, idx);
	if (p->nstacks * 2 > p->stack_mask)
		grow_stack_table(p);
found:
	s = &p->stacks[idx];
	s->count += count;
	s->count2 += count2;
	s->samples += samples;
	p->total += count;
	p->total2 += count2;
	p->total_samples += samples;
	if (diff)
		p->diff = true;
	if (p->keep_order)
		add_event(p, idx, count, count2);
	return 0;
}

int profile_add_ids_dec(struct profile *p, const uint32_t *ids,
			size_t nframes, uint64_t count, uint64_t count2,
			unsigned int decimals, bool diff, bool *rounded)
{
	uint64_t c, c2;
	int ret;

	if (!nframes) {
		errno = EINVAL;
		return -1;
	}
	if (!diff)
		count2 = count;
	if (decimals > PROFILE_DECIMALS_MAX) {
		errno = EINVAL;
		return -1;
	}
	profile_raise_decimals(p, decimals);
	if (to_units(p, count, decimals, &c, rounded) ||
	    to_units(p, count2, decimals, &c2, rounded))
		return -1;
	ret = add_ids(p, ids, nframes, c, c2, c, diff);
	if (!ret)
		p->unsampled = true;
	return ret;
}

int profile_add_ids(struct profile *p, const uint32_t *ids, size_t nframes,
		    uint64_t count, uint64_t count2, bool diff)
{
	return profile_add_ids_dec(p, ids, nframes, count, count2, 0, diff,
				   NULL);
}

/* samples: UINT64_MAX when not given apart (samples = count). */
static int add_names(struct profile *p, const char *const *frames,
		     size_t nframes, uint64_t count, uint64_t count2,
		     uint64_t samples, bool diff)
{
	uint32_t stackbuf[128], *ids = stackbuf;
	size_t i;
	int ret;

	if (!nframes) {
		errno = EINVAL;
		return -1;
	}
	if (nframes > 128)
		ids = xreallocarray(NULL, nframes, sizeof(*ids));
	for (i = 0; i < nframes; i++)
		ids[i] = profile_intern(p, frames[i], strlen(frames[i]));
	if (samples == UINT64_MAX) {
		ret = profile_add_ids(p, ids, nframes, count, count2, diff);
	} else if (to_units(p, count, 0, &count, NULL) ||
		   to_units(p, samples, 0, &samples, NULL)) {
		ret = -1;
	} else {
		ret = add_ids(p, ids, nframes, count, count, samples, diff);
		if (!ret)
			p->sampled = true;
	}
	if (ids != stackbuf)
		free(ids);
	return ret;
}

int profile_add(struct profile *p, const char *const *frames, size_t nframes,
		uint64_t count)
{
	return add_names(p, frames, nframes, count, count, UINT64_MAX, false);
}

int profile_add2(struct profile *p, const char *const *frames,
		 size_t nframes, uint64_t count, uint64_t count2)
{
	return add_names(p, frames, nframes, count, count2, UINT64_MAX, true);
}

int profile_add_sampled(struct profile *p, const char *const *frames,
			size_t nframes, uint64_t periods, uint64_t samples)
{
	if (samples == UINT64_MAX) {
		errno = EOVERFLOW;
		return -1;
	}
	return add_names(p, frames, nframes, periods, periods, samples,
			 false);
}

void profile_mark_sampled(struct profile *p)
{
	p->sampled = true;
}

size_t profile_nstacks(const struct profile *p)
{
	return p->nstacks;
}

void profile_stack(const struct profile *p, size_t i, struct profile_stack *s)
{
	const struct stack_rec *r = &p->stacks[i];

	s->frames = p->frames + r->off;
	s->nframes = r->nframes;
	s->count = r->count;
	s->count2 = r->count2;
	s->samples = r->samples;
}

size_t profile_nnames(const struct profile *p)
{
	return p->nnames;
}

const char *profile_name(const struct profile *p, uint32_t id)
{
	return p->names + p->name_off[id];
}

size_t profile_name_len(const struct profile *p, uint32_t id)
{
	return p->name_len[id];
}

uint64_t profile_total(const struct profile *p)
{
	return p->total;
}

uint64_t profile_total2(const struct profile *p)
{
	return p->total2;
}

bool profile_is_diff(const struct profile *p)
{
	return p->diff;
}

bool profile_has_samples(const struct profile *p)
{
	if (p->diff)
		return false;
	if (p->meta.unit == PROFILE_UNIT_SAMPLES)
		return true;
	return p->sampled && !p->unsampled;
}

uint64_t profile_total_samples(const struct profile *p)
{
	return p->total_samples;
}

const char *profile_mode_name(enum profile_mode m)
{
	switch (m) {
	case PROFILE_MODE_OFFCPU:
		return "offcpu";
	case PROFILE_MODE_WALL:
		return "wall";
	default:
		return "cpu";
	}
}

int profile_mode_parse(const char *name, size_t len, enum profile_mode *m)
{
	static const enum profile_mode all[] = {
		PROFILE_MODE_CPU, PROFILE_MODE_OFFCPU, PROFILE_MODE_WALL,
	};
	size_t i;

	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		const char *n = profile_mode_name(all[i]);

		if (strlen(n) == len && !memcmp(n, name, len)) {
			*m = all[i];
			return 0;
		}
	}
	return -1;
}

bool profile_meta_timed(const struct profile_meta *m)
{
	return (m->present & PROFILE_META_MODE) && m->mode != PROFILE_MODE_CPU;
}

char profile_offcpu_state(const char *name, size_t len)
{
	/* "[off-cpu:X]": 11 bytes, X at 9. */
	if (len != 11 || memcmp(name, "[off-cpu:", 9) || name[10] != ']')
		return 0;
	if (name[9] == 'S' || name[9] == 'D' || name[9] == 'R')
		return name[9];
	return 0;
}

char *profile_fmt_ns(char *buf, size_t size, double ns)
{
	static const struct {
		double scale;
		const char *unit;
	} units[] = { { 1e9, "s" }, { 1e6, "ms" }, { 1e3, "us" } };
	size_t i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		double v = ns / units[i].scale;

		/* 999.96 ms would print as 1000.0 ms: say 1.00 s instead. */
		if (ns < units[i].scale * 0.99995)
			continue;
		snprintf(buf, size, v >= 99.95 ? "%.0f %s" : v >= 9.995 ?
			 "%.1f %s" : "%.2f %s", v, units[i].unit);
		return buf;
	}
	snprintf(buf, size, "%.0f ns", ns);
	return buf;
}

uint64_t profile_period_ns(const struct profile_meta *m)
{
	if (!(m->present & PROFILE_META_FREQ) || !m->freq ||
	    m->freq > 1000000000)
		return 0;
	return (1000000000 + m->freq / 2) / m->freq;
}

uint64_t profile_count_ns(const struct profile *p)
{
	const struct profile_meta *m = &p->meta;
	uint64_t samples;

	if (p->diff)
		return 0;
	if (m->unit == PROFILE_UNIT_NS)
		return 1;
	if (m->unit == PROFILE_UNIT_PERIODS ||
	    !(m->present & PROFILE_META_SAMPLE_PERIODS))
		return profile_period_ns(m);
	/* Samples: time only if each stood for one period. */
	if (m->present & PROFILE_META_SAMPLES)
		samples = m->samples;
	else if (p->total % pow10_tab[p->decimals])
		return 0;	/* a fraction of a sample is no sample */
	else
		samples = p->total / pow10_tab[p->decimals];
	return m->sample_periods == samples ? profile_period_ns(m) : 0;
}

uint64_t profile_total_periods(const struct profile *p)
{
	const struct profile_meta *m = &p->meta;

	/* Nanoseconds: periods only of the on-CPU part, no total here. */
	if (p->diff || m->unit == PROFILE_UNIT_NS)
		return 0;
	if (m->unit != PROFILE_UNIT_PERIODS &&
	    (m->present & PROFILE_META_SAMPLE_PERIODS)) {
		/* The header's whole periods, in the counts' units. */
		if (m->sample_periods > UINT64_MAX / pow10_tab[p->decimals])
			return 0;
		return m->sample_periods * pow10_tab[p->decimals];
	}
	if (m->unit == PROFILE_UNIT_PERIODS || profile_count_ns(p))
		return p->total;
	return 0;
}

int profile_count_samples(struct profile *p)
{
	size_t i;

	if (p->diff || p->meta.unit == PROFILE_UNIT_SAMPLES)
		return 0;
	if (!profile_has_samples(p)) {
		errno = ENODATA;
		return -1;
	}
	for (i = 0; i < p->nstacks; i++)
		p->stacks[i].count = p->stacks[i].count2 =
			p->stacks[i].samples;
	/* Events (a flame chart's) come from folded text only: none here. */
	if (!(p->meta.present & PROFILE_META_SAMPLE_PERIODS)) {
		p->meta.sample_periods = p->total;
		p->meta.present |= PROFILE_META_SAMPLE_PERIODS;
	}
	/* Times in ns are no periods: the samples keep no periods' total. */
	if (p->meta.unit == PROFILE_UNIT_NS)
		p->meta.present &= ~(unsigned int)PROFILE_META_SAMPLE_PERIODS;
	p->total = p->total2 = p->total_samples;
	p->meta.unit = PROFILE_UNIT_SAMPLES;
	p->meta.present |= PROFILE_META_UNIT;
	p->unsampled = true;
	return 0;
}

size_t profile_events(const struct profile *p,
		      const struct profile_event **events)
{
	*events = p->events;
	return p->nevents;
}

/*
 * Sorting compares names once (to give each id a rank), then sorts stacks
 * by rank sequences, most significant frame first: a group of stacks that
 * agree up to some depth is sorted by the rank at that depth with a radix
 * sort, and each run of equal ranks becomes a group one level deeper.
 * Prefixes shared by thousands of stacks are thus looked at once per
 * stack, not once per comparison.
 */
struct sort_ctx {
	const struct profile *p;
	const uint32_t *rank;
	bool reversed;
};

static int cmp_name_ids(const void *a, const void *b, void *arg)
{
	const struct profile *p = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	size_t lx = p->name_len[x], ly = p->name_len[y];
	int c = memcmp(p->names + p->name_off[x], p->names + p->name_off[y],
		       lx < ly ? lx : ly);

	if (c)
		return c;
	return lx < ly ? -1 : lx > ly;
}

/* Rank of frame `level` of stack i, plus one; 0 once the stack ended. */
static inline uint32_t level_key(const struct sort_ctx *c, size_t i,
				 size_t level)
{
	const struct stack_rec *s = &c->p->stacks[i];
	const uint32_t *f = c->p->frames + s->off;

	if (level >= s->nframes)
		return 0;
	return 1 + c->rank[f[c->reversed ? s->nframes - 1 - level : level]];
}

static int cmp_from(const struct sort_ctx *c, size_t a, size_t b,
		    size_t level)
{
	uint32_t ka, kb;

	for (;; level++) {
		ka = level_key(c, a, level);
		kb = level_key(c, b, level);
		if (ka != kb)
			return ka < kb ? -1 : 1;
		if (!ka)
			return 0;
	}
}

uint32_t *profile_name_ranks(const struct profile *p)
{
	uint32_t *ids = xreallocarray(NULL, p->nnames ? p->nnames : 1,
				      sizeof(*ids));
	uint32_t *rank = xreallocarray(NULL, p->nnames ? p->nnames : 1,
				       sizeof(*rank));
	size_t i;

	for (i = 0; i < p->nnames; i++)
		ids[i] = (uint32_t)i;
	qsort_r(ids, p->nnames, sizeof(*ids), cmp_name_ids, (void *)p);
	for (i = 0; i < p->nnames; i++)
		rank[ids[i]] = (uint32_t)i;
	free(ids);
	return rank;
}

/* LSD radix sort of (key << 32 | payload) on the key's bytes. */
static void radix_u64(uint64_t *v, uint64_t *tmp, size_t n)
{
	size_t count[256], i, shift, sum;
	uint64_t *src = v, *dst = tmp, *t;

	for (shift = 32; shift < 64; shift += 8) {
		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[(src[i] >> shift) & 0xff]++;
		if (count[(src[0] >> shift) & 0xff] == n)
			continue;	/* all equal in this byte */
		for (sum = 0, i = 0; i < 256; i++) {
			size_t k = count[i];

			count[i] = sum;
			sum += k;
		}
		for (i = 0; i < n; i++)
			dst[count[(src[i] >> shift) & 0xff]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
}

struct group {
	size_t lo, hi, level;
};

size_t *profile_sorted(const struct profile *p, bool reversed)
{
	size_t n = p->nstacks, *order = xreallocarray(NULL, n ? n : 1,
						     sizeof(*order));
	struct sort_ctx c = { .p = p, .reversed = reversed };
	uint64_t *keys = xreallocarray(NULL, n ? n : 1, sizeof(*keys));
	uint64_t *tmp = xreallocarray(NULL, n ? n : 1, sizeof(*tmp));
	size_t *moved = xreallocarray(NULL, n ? n : 1, sizeof(*moved));
	struct group *todo = NULL, g;
	size_t ntodo = 0, todo_cap = 0, i, j, run;

	c.rank = profile_name_ranks(p);
	for (i = 0; i < n; i++)
		order[i] = i;
	if (n > 1) {
		todo = xreallocarray(NULL, 64, sizeof(*todo));
		todo_cap = 64;
		todo[ntodo++] = (struct group){ 0, n, 0 };
	}
	while (ntodo) {
		g = todo[--ntodo];
		if (g.hi - g.lo < 24) {
			/* Small groups: insertion sort from this level on. */
			for (i = g.lo + 1; i < g.hi; i++) {
				size_t v = order[i];

				for (j = i; j > g.lo &&
				     cmp_from(&c, order[j - 1], v, g.level) > 0;
				     j--)
					order[j] = order[j - 1];
				order[j] = v;
			}
			continue;
		}
		for (i = g.lo; i < g.hi; i++)
			keys[i - g.lo] = (uint64_t)level_key(&c, order[i],
							      g.level) << 32 |
					 (i - g.lo);
		radix_u64(keys, tmp, g.hi - g.lo);
		for (i = g.lo; i < g.hi; i++)
			moved[i] = order[g.lo + (uint32_t)keys[i - g.lo]];
		memcpy(order + g.lo, moved + g.lo,
		       (g.hi - g.lo) * sizeof(*order));
		/* Runs of one rank go one level deeper; ended stacks are done. */
		for (i = g.lo; i < g.hi; i = run) {
			uint32_t k = (uint32_t)(keys[i - g.lo] >> 32);

			for (run = i + 1; run < g.hi &&
			     (uint32_t)(keys[run - g.lo] >> 32) == k; run++)
				;
			if (!k || run - i < 2)
				continue;
			if (ntodo == todo_cap) {
				todo_cap *= 2;
				todo = xreallocarray(todo, todo_cap,
						     sizeof(*todo));
			}
			todo[ntodo++] = (struct group){ i, run, g.level + 1 };
		}
	}
	free(todo);
	free(moved);
	free(tmp);
	free(keys);
	free((void *)c.rank);
	return order;
}

/* v * num / den, cut to a whole unit as difffolded.pl's int() cuts. */
static uint64_t scale_cut(uint64_t v, uint64_t num, uint64_t den)
{
	/* 128-bit intermediate: v * num can pass 2^64 for byte counts. */
	unsigned __int128 x = (unsigned __int128)v * num;

	return (uint64_t)(x / den);
}

int profile_scale_before(struct profile *p, uint64_t target)
{
	uint64_t old = p->total;
	unsigned __int128 sum = 0;
	size_t i;

	if (!old || old == target)
		return 0;
	/* Checked first, so that nothing changes on failure. */
	for (i = 0; i < p->nstacks; i++)
		sum += scale_cut(p->stacks[i].count, target, old);
	if (sum > UINT64_MAX) {
		errno = EOVERFLOW;
		return -1;
	}
	p->total = (uint64_t)sum;
	for (i = 0; i < p->nstacks; i++)
		p->stacks[i].count = scale_cut(p->stacks[i].count, target,
						 old);
	for (i = 0; i < p->nevents; i++)
		p->events[i].count = scale_cut(p->events[i].count, target,
						 old);
	return 0;
}

char *profile_fmt_count(char *buf, uint64_t units, unsigned int decimals,
			bool grouped)
{
	char digits[24], *o = buf;
	uint64_t f = profile_pow10(decimals), ip = units / f, fp = units % f;
	int n = snprintf(digits, sizeof(digits), "%llu",
			 (unsigned long long)ip), i;

	for (i = 0; i < n; i++) {
		if (grouped && i && (n - i) % 3 == 0)
			*o++ = ',';
		*o++ = digits[i];
	}
	if (fp) {
		/* The fraction's digits, leading zeros kept, trailing not. */
		n = snprintf(digits, sizeof(digits), "%0*llu", (int)decimals,
			     (unsigned long long)fp);
		while (n > 0 && digits[n - 1] == '0')
			n--;
		*o++ = '.';
		memcpy(o, digits, (size_t)n);
		o += n;
	}
	*o = '\0';
	return buf;
}

double profile_count_double(uint64_t units, unsigned int decimals)
{
	uint64_t f = profile_pow10(decimals), whole = units / f;
	uint64_t frac = units % f;

	/* Whole part and fraction apart: exact for whole counts to 2^53. */
	return (double)whole + (double)frac / (double)f;
}

int profile_parse_count(const char *s, size_t len, uint64_t *units,
			unsigned int *decimals, bool *rounded)
{
	uint64_t v = 0, frac = 0;
	size_t i = 0, dot, end;
	unsigned int d = 0;
	bool up = false, lost = false;

	while (i < len && s[i] >= '0' && s[i] <= '9') {
		if (v > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10) {
			errno = EOVERFLOW;
			return -1;
		}
		v = v * 10 + (uint64_t)(s[i] - '0');
		i++;
	}
	if (!i || (i < len && s[i] != '.')) {
		errno = EINVAL;
		return -1;
	}
	dot = i;
	for (i = dot + 1; i < len; i++) {
		if (s[i] < '0' || s[i] > '9') {
			errno = EINVAL;
			return -1;
		}
	}
	/* The fraction without trailing zeros: "2.50" is 2.5, "3.0" is 3. */
	end = len;
	while (end > dot + 1 && s[end - 1] == '0')
		end--;
	for (i = dot + 1; i < end; i++) {
		if (d < PROFILE_DECIMALS_MAX) {
			frac = frac * 10 + (uint64_t)(s[i] - '0');
			d++;
		} else {
			/* Digits past the last kept: half up, and lost. */
			if (i == dot + 1 + PROFILE_DECIMALS_MAX)
				up = s[i] >= '5';
			lost = true;
		}
	}
	if (v > (UINT64_MAX - frac - up) / pow10_tab[d]) {
		errno = EOVERFLOW;
		return -1;
	}
	*units = v * pow10_tab[d] + frac + up;
	*decimals = d;
	if (lost && rounded)
		*rounded = true;
	return 0;
}

const struct profile_meta *profile_meta(const struct profile *p)
{
	return &p->meta;
}

void profile_set_meta(struct profile *p, const struct profile_meta *m)
{
	char *title = NULL, *top = NULL;

	if (m->present & PROFILE_META_TITLE)
		title = xstrdup(m->title ? m->title : "");
	if ((m->present & PROFILE_META_FRAMELESS) && m->frameless_top)
		top = xstrdup(m->frameless_top);
	free(p->meta.title);
	free(p->meta.frameless_top);
	p->meta = *m;
	p->meta.title = title;
	p->meta.frameless_top = top;
}

void profile_merge_meta(struct profile *p, const struct profile_meta *src)
{
	struct profile_meta *d = &p->meta;
	unsigned int had = d->present;
	bool mixed = false;

	if (src->present & PROFILE_META_SAMPLES)
		d->samples += src->samples;
	if (src->present & PROFILE_META_SAMPLE_PERIODS)
		d->sample_periods += src->sample_periods;
	if ((src->present & PROFILE_META_UNIT) && !(had & PROFILE_META_UNIT))
		d->unit = src->unit;
	/* Samples added to periods are neither: no time to show. */
	if ((src->present & PROFILE_META_UNIT) && (had & PROFILE_META_UNIT) &&
	    src->unit != d->unit) {
		d->unit = PROFILE_UNIT_SAMPLES;
		mixed = true;
	}
	if (src->present & PROFILE_META_RECORDED)
		d->recorded += src->recorded;
	if (src->present & PROFILE_META_DROPPED)
		d->dropped += src->dropped;
	if (src->present & PROFILE_META_THROTTLED)
		d->throttled += src->throttled;
	if (src->present & PROFILE_META_PERIODS)
		d->periods += src->periods;
	if ((src->present & PROFILE_META_FREQ) && !(had & PROFILE_META_FREQ))
		d->freq = src->freq;
	if ((src->present & PROFILE_META_DURATION) &&
	    !(had & PROFILE_META_DURATION))
		d->duration_ns = src->duration_ns;
	if ((src->present & PROFILE_META_CPUS) && !(had & PROFILE_META_CPUS))
		d->cpus = src->cpus;
	if ((src->present & PROFILE_META_COST) && !(had & PROFILE_META_COST))
		d->cost_ns = src->cost_ns;
	if ((src->present & PROFILE_META_TITLE) &&
	    !(had & PROFILE_META_TITLE))
		d->title = xstrdup(src->title ? src->title : "");
	if ((src->present & PROFILE_META_MODE) && !(had & PROFILE_META_MODE))
		d->mode = src->mode;
	if (src->present & PROFILE_META_BLOCKS) {
		d->blocks += src->blocks;
		d->blocks_lost += src->blocks_lost;
	}
	if (src->present & PROFILE_META_UNWIND) {
		d->unwind_table += src->unwind_table;
		d->unwind_mixed += src->unwind_mixed;
		d->unwind_fp += src->unwind_fp;
		d->unwind_stopped += src->unwind_stopped;
	}
	if (src->present & PROFILE_META_FRAMELESS) {
		d->user_samples += src->user_samples;
		d->frameless += src->frameless;
		if (!d->frameless_top && src->frameless_top)
			d->frameless_top = xstrdup(src->frameless_top);
	}
	d->present |= src->present;
	if (mixed)
		d->present &= ~(unsigned int)PROFILE_META_FREQ;
}

bool profile_throttle_note(const struct profile_meta *m, char *buf,
			   size_t size)
{
	char share[16];

	if (!(m->present & PROFILE_META_THROTTLED) || !m->throttled)
		return false;
	/* Without periods (or fewer than were skipped: not ours), a count. */
	if ((m->present & PROFILE_META_PERIODS) && m->periods >= m->throttled)
		snprintf(buf, size, "sampled below the requested rate on some CPUs: %s of periods skipped by self-throttling",
			 fmt_share(share, sizeof(share), m->throttled,
				   m->periods));
	else
		snprintf(buf, size, "sampled below the requested rate on some CPUs: %llu periods skipped by self-throttling",
			 (unsigned long long)m->throttled);
	return true;
}

bool profile_unwind_note(const struct profile_meta *m, char *buf,
			 size_t size)
{
	uint64_t all = m->unwind_table + m->unwind_mixed + m->unwind_fp;
	char a[16], b[16], c[16], d[16];
	int n;

	if (!(m->present & PROFILE_META_UNWIND) || !all)
		return false;
	n = snprintf(buf, size, "user stacks: %s by unwind tables, %s by tables and frame pointers, %s by frame pointers",
		     fmt_share(a, sizeof(a), m->unwind_table, all),
		     fmt_share(b, sizeof(b), m->unwind_mixed, all),
		     fmt_share(c, sizeof(c), m->unwind_fp, all));
	if (m->unwind_stopped && n > 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n,
			 "; %s stopped before their outermost frame ([incomplete])",
			 fmt_share(d, sizeof(d), m->unwind_stopped, all));
	return true;
}

bool profile_frameless_note(const struct profile_meta *m, bool brief,
			    char *buf, size_t size)
{
	char share[16];

	if (!(m->present & PROFILE_META_FRAMELESS) || !m->frameless ||
	    m->frameless > m->user_samples ||
	    (double)m->frameless <
	    PROFILE_FRAMELESS_NOTE_MIN * (double)m->user_samples)
		return false;
	fmt_share(share, sizeof(share), m->frameless, m->user_samples);
	if (brief)
		snprintf(buf, size, "%s of the user stacks end in code without a frame pointer: their leaf's caller is missing",
			 share);
	else
		snprintf(buf, size, "%s of the samples with a user stack have their leaf in code without a frame pointer%s%s%s: the caller of such a function is missing from its stack and its time shows in the caller's caller (docs/GUIDE.md, \"Code without frame pointers\")",
			 share, m->frameless_top ? " (" : "",
			 m->frameless_top ? m->frameless_top : "",
			 m->frameless_top ? ")" : "");
	return true;
}
