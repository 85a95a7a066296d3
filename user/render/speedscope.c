// SPDX-License-Identifier: GPL-2.0
/* A profile in speedscope's JSON file format (see speedscope.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"
#include "lib/util.h"
#include "render/speedscope.h"

#define SPEEDSCOPE_SCHEMA "https://www.speedscope.app/file-format-schema.json"

/* Written out whenever this much is buffered. */
#define FLUSH_AT ((size_t)64 * 1024)

typedef unsigned __int128 u128;

/* The stacks of one root frame: a run of the sorted stacks. */
struct ss_profile {
	uint32_t root;		/* the root frame's id */
	size_t first, n;	/* order[first .. first + n) */
	u128 total;		/* the sum of its weights */
};

struct ss_writer {
	const struct profile *p;
	FILE *f;
	struct strbuf sb;
	uint64_t ns;		/* ns per whole count; 0: unit "none" */
	unsigned int decimals;
	int err;		/* errno of the first write error */
};

static void flush(struct ss_writer *w, bool force)
{
	if (!w->sb.len || (!force && w->sb.len < FLUSH_AT))
		return;
	if (!w->err && fwrite(w->sb.buf, 1, w->sb.len, w->f) != w->sb.len)
		w->err = errno ? errno : EIO;
	sb_reset(&w->sb);
}

/*
 * The weight of @units: nanoseconds, rounded half up to whole ones, or
 * the units themselves (printed with the profile's decimals).
 */
static u128 weight(const struct ss_writer *w, uint64_t units)
{
	u128 pow = profile_pow10(w->decimals);

	if (!w->ns)
		return units;
	return ((u128)units * w->ns + pow / 2) / pow;
}

static void put_u128(struct strbuf *sb, u128 v)
{
	char buf[40], *s = buf + sizeof(buf);

	do {
		*--s = (char)('0' + (unsigned int)(v % 10));
		v /= 10;
	} while (v);
	sb_add(sb, s, (size_t)(buf + sizeof(buf) - s));
}

static void put_weight(struct ss_writer *w, u128 v)
{
	char buf[PROFILE_COUNT_BUF];

	/* Without ns, v is a sum of counts: within the profile's total. */
	if (!w->ns && w->decimals)
		sb_adds(&w->sb, profile_fmt_count(buf, (uint64_t)v,
						  w->decimals, false));
	else
		put_u128(&w->sb, v);
}

/*
 * {"name":"vfs_read_[k]","file":"[kernel]"}; an off-CPU stack's waker
 * frames ("try_to_wake_up_[w]") are the kernel's too.
 */
static void put_frame(struct strbuf *sb, const char *name, size_t len)
{
	const char *end, *mod = NULL, *q;

	sb_adds(sb, "{\"name\":");
	json_add_string(sb, name, len);
	if (len > 4 && (!memcmp(name + len - 4, "_[k]", 4) ||
			!memcmp(name + len - 4, "_[w]", 4))) {
		/* "ext4_file_read_iter [ext4]_[k]": the module's name. */
		end = name + len - 4;
		if (end[-1] == ']')
			for (q = end - 1; q > name && !mod; q--)
				if (q[0] == '[' && q[-1] == ' ')
					mod = q;
		sb_adds(sb, ",\"file\":");
		if (mod)
			json_add_string(sb, mod, (size_t)(end - mod));
		else
			sb_adds(sb, "\"[kernel]\"");
	}
	sb_adds(sb, "}");
}

static int profile_cmp(const void *a, const void *b, void *arg)
{
	const struct ss_profile *x = a, *y = b;
	const struct profile *p = arg;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return strcmp(profile_name(p, x->root), profile_name(p, y->root));
}

/* The runs of stacks with the same root frame, heaviest first. */
static struct ss_profile *split(const struct ss_writer *w,
				const size_t *order, size_t n, size_t *nprof)
{
	struct ss_profile *v = NULL;
	struct profile_stack s;
	size_t i, cap = 0, np = 0;

	for (i = 0; i < n; i++) {
		profile_stack(w->p, order[i], &s);
		if (!np || v[np - 1].root != s.frames[0]) {
			if (np == cap) {
				cap = cap ? cap * 2 : 16;
				v = xreallocarray(v, cap, sizeof(*v));
			}
			v[np++] = (struct ss_profile){ .root = s.frames[0],
						       .first = i };
		}
		v[np - 1].n++;
		v[np - 1].total += weight(w, s.count);
	}
	if (np)
		qsort_r(v, np, sizeof(*v), profile_cmp, (void *)w->p);
	*nprof = np;
	return v;
}

static void put_profile(struct ss_writer *w, const struct ss_profile *sp,
			const size_t *order, const uint32_t *index)
{
	static const char *const units[] = { "none", "nanoseconds" };
	struct profile_stack s;
	size_t i, j;

	sb_adds(&w->sb, "{\"type\":\"sampled\",\"name\":");
	if (sp)
		json_add_string(&w->sb, profile_name(w->p, sp->root),
				profile_name_len(w->p, sp->root));
	else
		sb_adds(&w->sb, "\"no samples\"");
	sb_addf(&w->sb, ",\"unit\":\"%s\",\"startValue\":0,\"endValue\":",
		units[w->ns ? 1 : 0]);
	put_weight(w, sp ? sp->total : 0);
	sb_adds(&w->sb, ",\n\"samples\":[");
	for (i = 0; sp && i < sp->n; i++) {
		profile_stack(w->p, order[sp->first + i], &s);
		sb_adds(&w->sb, i ? ",\n[" : "\n[");
		for (j = 0; j < s.nframes; j++) {
			if (j)
				sb_add(&w->sb, ",", 1);
			put_u128(&w->sb, index[s.frames[j]]);
		}
		sb_add(&w->sb, "]", 1);
		flush(w, false);
	}
	sb_adds(&w->sb, "],\n\"weights\":[");
	for (i = 0; sp && i < sp->n; i++) {
		profile_stack(w->p, order[sp->first + i], &s);
		if (i)
			sb_add(&w->sb, ",", 1);
		put_weight(w, weight(w, s.count));
		flush(w, false);
	}
	sb_adds(&w->sb, "]}");
}

int speedscope_write(const struct profile *p, const char *name, FILE *f)
{
	struct ss_writer w = { .p = p, .f = f };
	size_t n = profile_nstacks(p), nnames = profile_nnames(p);
	size_t *order, nprof, i, j, nframes = 0;
	struct ss_profile *prof;
	uint32_t *index, *ids;
	struct profile_stack s;

	if (profile_is_diff(p)) {
		fs_err("speedscope has no differential profiles: write the before and after profiles apart");
		errno = 0;
		return -1;
	}
	w.ns = profile_count_ns(p);
	w.decimals = profile_decimals(p);
	order = profile_sorted(p, false);
	prof = split(&w, order, n, &nprof);

	/* Frame indices in order of first use, profile by profile. */
	index = xreallocarray(NULL, nnames ? nnames : 1, sizeof(*index));
	ids = xreallocarray(NULL, nnames ? nnames : 1, sizeof(*ids));
	memset(index, 0xff, (nnames ? nnames : 1) * sizeof(*index));
	for (i = 0; i < nprof; i++) {
		for (j = 0; j < prof[i].n; j++) {
			profile_stack(p, order[prof[i].first + j], &s);
			for (size_t k = 0; k < s.nframes; k++) {
				uint32_t id = s.frames[k];

				if (index[id] == UINT32_MAX) {
					index[id] = (uint32_t)nframes;
					ids[nframes++] = id;
				}
			}
		}
	}

	sb_adds(&w.sb, "{\"$schema\":\"" SPEEDSCOPE_SCHEMA "\",\n"
		"\"exporter\":\"flamestat " FLAMESTAT_VERSION "\",\n"
		"\"name\":");
	json_add_string(&w.sb, name, strlen(name));
	sb_adds(&w.sb, ",\n\"activeProfileIndex\":0,\n"
		"\"shared\":{\"frames\":[");
	for (i = 0; i < nframes; i++) {
		sb_adds(&w.sb, i ? ",\n" : "\n");
		put_frame(&w.sb, profile_name(p, ids[i]),
			  profile_name_len(p, ids[i]));
		flush(&w, false);
	}
	sb_adds(&w.sb, "]},\n\"profiles\":[\n");
	/* No stacks: one empty profile, as speedscope needs one. */
	for (i = 0; i < (nprof ? nprof : 1); i++) {
		if (i)
			sb_adds(&w.sb, ",\n");
		put_profile(&w, nprof ? &prof[i] : NULL, order, index);
	}
	sb_adds(&w.sb, "]}\n");
	flush(&w, true);
	if (!w.err && ferror(f))
		w.err = EIO;
	sb_free(&w.sb);
	free(ids);
	free(index);
	free(prof);
	free(order);
	errno = w.err;
	return w.err ? -1 : 0;
}
