// SPDX-License-Identifier: GPL-2.0
/* Merge stacks into a frame tree, prune narrow frames, assign positions. */
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "profile/profile.h"
#include "render/svg_int.h"

/*
 * Stacks are walked in sorted order (or input order for a flame chart)
 * keeping the path of open frames, as flamegraph.pl's merge does. A frame
 * is closed when the next stack leaves it; only then is its width known.
 * A closed frame narrower than the threshold is cut from the node array
 * together with its subtree (which, in pre-order, is everything after it)
 * and added to its parent's "(N more)" tally. So memory grows with the
 * visible graph, not with the input.
 */
struct walk {
	struct fg_layout *l;
	const struct profile *p;
	const struct svg_options *o;
	uint32_t *path;		/* node index per depth */
	uint64_t *bstart;	/* "before" position when a node opened */
	size_t path_cap;
	uint32_t depth;		/* depth of the deepest open node */
	uint64_t pos, posb;	/* samples so far: after, before */
	bool timed;		/* svg_timed_colors(): FG_ONCPU marked */
};

static uint32_t new_node(struct fg_layout *l)
{
	if (l->n == l->alloc) {
		l->alloc = l->alloc ? l->alloc * 2 : 4096;
		l->nodes = xreallocarray(l->nodes, l->alloc, sizeof(*l->nodes));
	}
	memset(&l->nodes[l->n], 0, sizeof(l->nodes[0]));
	return (uint32_t)l->n++;
}

static void note_delta(struct fg_layout *l, int64_t d)
{
	uint64_t a = d < 0 ? (uint64_t)0 - (uint64_t)d : (uint64_t)d;

	if (a > l->max_delta)
		l->max_delta = a;
}

static void close_top(struct walk *w)
{
	struct fg_layout *l = w->l;
	uint32_t ci = w->path[w->depth];
	struct fg_node *c = &l->nodes[ci], *par, *prev;

	c->width = w->pos - c->x;
	c->before = w->posb - w->bstart[w->depth];
	note_delta(l, c->self_delta);
	w->depth--;
	if ((double)c->width >= l->min_samples && c->width)
		return;
	par = &l->nodes[c->parent];
	if (!c->width) {
		l->n = ci;	/* nothing to show, nothing to count */
		return;
	}
	if (!w->o->flamechart) {
		par->more_w += c->width;
		par->more_before += c->before;
		par->more_n++;
		l->n = ci;
		return;
	}
	/* Flame chart: x is time, so merge runs of neighbours in place. */
	prev = ci ? &l->nodes[ci - 1] : NULL;
	if (prev && prev->name == FG_MORE && prev->parent == c->parent &&
	    prev->x + prev->width == c->x) {
		prev->width += c->width;
		prev->before += c->before;
		prev->more_n++;
		l->n = ci;
		return;
	}
	c->name = FG_MORE;
	c->more_n = 1;
	c->self_delta = 0;
	c->flags = 0;
	l->n = ci + 1;
}

/*
 * *acc += after - before, the counts being 64-bit: held within
 * +-INT64_MAX (so that negating stays defined), which only the shade and
 * the tooltip's share of a change past 2^63 units would notice.
 */
static void add_delta(int64_t *acc, uint64_t after, uint64_t before)
{
	__int128 v = (__int128)*acc + (__int128)after - (__int128)before;

	*acc = v > INT64_MAX ? INT64_MAX : v < -INT64_MAX ? -INT64_MAX :
	       (int64_t)v;
}

static uint32_t frame_at(const struct profile_stack *s, size_t i, bool rev)
{
	return s->frames[rev ? s->nframes - 1 - i : i];
}

static bool is_separator(const struct profile *p, uint32_t id)
{
	return profile_name_len(p, id) == 2 &&
	       !memcmp(profile_name(p, id), "--", 2);
}

/* Does @s go through an "[off-cpu:S]" frame? */
static bool is_offcpu(const struct profile *p, const struct profile_stack *s)
{
	size_t i;

	for (i = 0; i < s->nframes; i++)
		if (profile_offcpu_state(profile_name(p, s->frames[i]),
					 profile_name_len(p, s->frames[i])))
			return true;
	return false;
}

static void add_stack(struct walk *w, const struct profile_stack *s,
		      uint64_t count, uint64_t count2)
{
	struct fg_layout *l = w->l;
	bool rev = w->o->reverse, chain = w->o->palette == SVG_PAL_CHAIN ||
					  w->timed;
	uint32_t same = 0, d, ni;
	struct fg_node *par;

	while (same < w->depth && same < s->nframes &&
	       l->nodes[w->path[same + 1]].name == frame_at(s, same, rev))
		same++;
	while (w->depth > same)
		close_top(w);
	if (s->nframes + 1 > w->path_cap) {
		w->path_cap = (s->nframes + 1) * 2;
		w->path = xreallocarray(w->path, w->path_cap,
					sizeof(*w->path));
		w->bstart = xreallocarray(w->bstart, w->path_cap,
					  sizeof(*w->bstart));
	}
	for (d = same + 1; d <= s->nframes; d++) {
		ni = new_node(l);
		par = &l->nodes[w->path[d - 1]];
		l->nodes[ni].name = frame_at(s, d - 1, rev);
		l->nodes[ni].parent = w->path[d - 1];
		l->nodes[ni].depth = d;
		l->nodes[ni].x = w->pos;
		l->nodes[ni].flags = par->flags & FG_WAKER;
		if (chain && par->name != FG_ROOT &&
		    is_separator(w->p, par->name))
			l->nodes[ni].flags |= FG_WAKER;
		w->path[d] = ni;
		w->bstart[d] = w->posb;
		w->depth = d;
	}
	/* Every frame of an on-CPU stack, those shared included. */
	if (w->timed && !is_offcpu(w->p, s))
		for (d = 1; d <= w->depth; d++)
			l->nodes[w->path[d]].flags |= FG_ONCPU;
	add_delta(&l->nodes[w->path[w->depth]].self_delta, count2, count);
	w->pos += count2;
	w->posb += count;
}

/* Normal graphs: visible children side by side, then one "(N more)". */
static void place_children(struct fg_layout *l)
{
	uint64_t *cursor = xreallocarray(NULL, l->n, sizeof(*cursor));
	size_t i, n = l->n;
	struct fg_node *c;
	uint32_t mi;

	cursor[0] = l->nodes[0].x = 0;
	for (i = 1; i < n; i++) {
		c = &l->nodes[i];
		c->x = cursor[c->parent];
		cursor[c->parent] += c->width;
		cursor[i] = c->x;
	}
	for (i = 0; i < n; i++) {
		if (!l->nodes[i].more_n ||
		    (double)l->nodes[i].more_w < l->min_samples)
			continue;
		mi = new_node(l);
		c = &l->nodes[mi];
		c->name = FG_MORE;
		c->parent = (uint32_t)i;
		c->depth = l->nodes[i].depth + 1;
		c->x = cursor[i];
		c->width = l->nodes[i].more_w;
		c->before = l->nodes[i].more_before;
		c->more_n = l->nodes[i].more_n;
	}
	free(cursor);
}

/* Flame charts: runs that stayed narrower than the threshold go. */
static void drop_narrow_runs(struct fg_layout *l)
{
	uint32_t *newidx = xreallocarray(NULL, l->n, sizeof(*newidx));
	size_t i, j = 0;

	/* Only leaves go, so every parent kept has a new index already. */
	for (i = 0; i < l->n; i++) {
		struct fg_node c = l->nodes[i];

		if (c.name == FG_MORE && (double)c.width < l->min_samples)
			continue;
		if (i)
			c.parent = newidx[c.parent];
		newidx[i] = (uint32_t)j;
		l->nodes[j++] = c;
	}
	l->n = j;
	free(newidx);
}

void fg_layout_build(struct fg_layout *l, const struct profile *p,
		     const struct svg_options *o)
{
	struct walk w = { .l = l, .p = p, .o = o,
			  .timed = svg_timed_colors(p, o) };
	uint64_t sum = profile_total2(p);
	struct profile_stack s;
	size_t i, n, *order = NULL;
	const struct profile_event *ev;
	double px;

	memset(l, 0, sizeof(*l));
	l->max_delta = 1;
	/* Not a flame chart's events: they come from folded text only. */
	l->samples = !profile_is_diff(p) && !o->flamechart &&
		     profile_meta(p)->unit == PROFILE_UNIT_PERIODS &&
		     profile_has_samples(p);
	/* svg_render() refused a --total that does not fit. */
	if (svg_total_units(o, p, &l->total) || l->total < sum)
		l->total = sum;
	if (o->min_width_pct) {
		l->min_samples = (double)l->total * o->min_width / 100.0;
	} else {
		px = (double)o->width - 20.0;	/* 10 px pad each side */
		l->min_samples = px > 0 ? o->min_width * (double)l->total / px
					: 0;
	}
	w.path_cap = 64;
	w.path = xreallocarray(NULL, w.path_cap, sizeof(*w.path));
	w.bstart = xreallocarray(NULL, w.path_cap, sizeof(*w.bstart));
	w.path[0] = new_node(l);
	l->nodes[0].name = FG_ROOT;
	w.bstart[0] = 0;

	n = o->flamechart ? profile_events(p, &ev) : 0;
	if (o->flamechart && n) {
		for (i = 0; i < n; i++) {
			profile_stack(p, ev[i].stack, &s);
			add_stack(&w, &s, ev[i].count, ev[i].count2);
		}
	} else {
		/* Flame chart without recorded order: insertion order. */
		if (!o->flamechart)
			order = profile_sorted(p, o->reverse);
		n = profile_nstacks(p);
		for (i = 0; i < n; i++) {
			profile_stack(p, order ? order[i] : i, &s);
			add_stack(&w, &s, l->samples ? s.samples : s.count,
				  s.count2);
		}
	}
	while (w.depth > 0)
		close_top(&w);
	l->nodes[0].width = l->total;
	l->nodes[0].before = w.posb;
	note_delta(l, l->nodes[0].self_delta);

	if (o->flamechart)
		drop_narrow_runs(l);
	else
		place_children(l);
	for (i = 0; i < l->n; i++)
		if (l->nodes[i].depth > l->max_depth)
			l->max_depth = l->nodes[i].depth;
	free(order);
	free(w.path);
	free(w.bstart);
}

void fg_layout_free(struct fg_layout *l)
{
	free(l->nodes);
	memset(l, 0, sizeof(*l));
}
