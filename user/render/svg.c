// SPDX-License-Identifier: GPL-2.0
/* Write the laid-out flame graph as one self-contained interactive SVG. */
#include "render/svg.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "lib/util.h"
#include "profile/profile.h"
#include "render/svg_int.h"

/* Embedded by embed.sh from assets/. */
extern const char asset_flamegraph_js[];
extern const size_t asset_flamegraph_js_len;
extern const char asset_flamegraph_css[];
extern const size_t asset_flamegraph_css_len;

#define XPAD 10			/* px left and right of the frames */

/*
 * The document: frames sit in a nested <svg> whose viewBox is in frame
 * units and stretches horizontally, so each frame carries integer
 * positions and nothing else: <path d="M{x} 0h{width}"/>, a line as thick
 * as a frame (stroke-width in CSS). The browser does the scaling, with or
 * without the script (an <img> runs none), so these numbers must draw
 * right as they are: Chromium (Skia) and others paint path coordinates in
 * float32, which holds every integer up to 2^24 and no more, and garbles
 * or drops frames whose coordinates are far beyond (3e9 + 3e9 samples drew
 * no second frame). So a frame unit is a count (samples, or periods) when
 * the total is at most COORD_MAX, and the file stays as small as exact
 * counts make it; above, the counts are scaled to COORD_MAX units, rounded
 * (1/2^24 of the width, far below a pixel), and fsData carries the exact x
 * and width the script needs for zoom, tooltips and search (as strings
 * past 2^53, which a JavaScript number does not hold). Zooming does not
 * touch the viewBox: the script rewrites the visible frames relative to
 * the view, from the exact values (see flamegraph.js).
 * Frames of one depth share a row <g>, and within it frames of one
 * colour share a <g class> whose CSS rule gives the colour. The names, one
 * per frame in document order, are indices into fsData.names. This keeps
 * a frame near 30 bytes, a fifth or less of flamegraph.pl's, for the same
 * picture. Labels live outside in pixel
 * coordinates (text must not stretch); the static ones are for viewers
 * without JavaScript, the script redraws them.
 */
#define COORD_MAX ((uint64_t)1 << 24)
/* Beyond this a JavaScript number is no longer exact: write a string. */
#define JS_EXACT_MAX ((uint64_t)1 << 53)

struct writer {
	struct strbuf sb;
	const struct profile *p;
	const struct svg_options *o;
	struct fg_layout l;
	struct svg_nameattr *nameattr;	/* --nameattr's, or NULL */
	uint32_t *order;	/* node indices by depth, then x */
	uint32_t *row_start;	/* max_depth + 2 entries */
	uint32_t *key;		/* per node: colour group, see node_key() */
	uint32_t *cls;		/* frame id -> name index + 1; 0 = none yet */
	uint32_t *cls_id;	/* name index -> frame id */
	size_t ncls;
	bool diff;
	bool diffusion;		/* --colordiffusion: keys are shades */
	bool timed;		/* svg_timed_colors(): hot and cold sides */
	struct svg_palmap *palmap;	/* --cp */
	struct strbuf mapkey;	/* a waker's palette.map name */
	struct rgb *rgb;	/* key SVG_NCLASSES + i: colour rgb[i] */
	uint32_t *rgb_slot;	/* rgb index + 1 by colour; 0 free */
	size_t nrgb, rgb_alloc, rgb_mask;
	uint64_t rng;		/* --random */
	/*
	 * --stroke-color: frames are boxes, from box_top to box_top +
	 * box_height around the row's middle line, filled, and outlined.
	 */
	char box_top[16], box_height[16];
	double scale;		/* px per sample at the static width */
	bool scaled;		/* total > COORD_MAX: units are not counts */
	double top;		/* y of the frames area */
	double height;		/* of the whole image */
};

static void add_u64(struct strbuf *sb, uint64_t v)
{
	char buf[24], *e = buf + sizeof(buf), *s = e;

	do {
		*--s = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	sb_add(sb, s, (size_t)(e - s));
}

static void add_i64(struct strbuf *sb, int64_t v)
{
	if (v < 0) {
		sb_add(sb, "-", 1);
		add_u64(sb, (uint64_t)0 - (uint64_t)v);
	} else {
		add_u64(sb, (uint64_t)v);
	}
}

/* A count for the script: a JSON number, or a string past 2^53. */
static void add_js_u64(struct strbuf *sb, uint64_t v)
{
	if (v > JS_EXACT_MAX)
		sb_add(sb, "\"", 1);
	add_u64(sb, v);
	if (v > JS_EXACT_MAX)
		sb_add(sb, "\"", 1);
}

static void add_js_i64(struct strbuf *sb, int64_t v)
{
	uint64_t a = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;

	if (a > JS_EXACT_MAX)
		sb_add(sb, "\"", 1);
	add_i64(sb, v);
	if (a > JS_EXACT_MAX)
		sb_add(sb, "\"", 1);
}

/*
 * Position v (a count, 0 to the total) in frame units: the count itself,
 * or for a larger total v * 2^24 / total rounded. Both ends of a frame go
 * through this, and a frame's end is its right neighbour's x, so frames
 * still tile without gaps or overlaps. Doubles: the ratio is good to 2^-52
 * and the conversions are monotonic, so a width is never negative (a frame
 * under a unit wide may round to nothing: it is not visible anyway).
 */
static uint64_t coord(const struct writer *w, uint64_t v)
{
	if (!w->scaled)
		return v;
	return (uint64_t)llround((double)v / (double)w->l.total *
				 (double)COORD_MAX);
}

/* One decimal: enough for pixels, and far cheaper than printf. */
static void add_px(struct strbuf *sb, double v)
{
	int64_t t = (int64_t)llround(v * 10);

	if (t < 0) {
		sb_add(sb, "-", 1);
		t = -t;
	}
	add_u64(sb, (uint64_t)t / 10);
	if (t % 10) {
		char d[2] = { '.', (char)('0' + t % 10) };

		sb_add(sb, d, 2);
	}
}

static void add_grouped(struct strbuf *sb, uint64_t v)
{
	char buf[PROFILE_COUNT_BUF];

	sb_adds(sb, profile_fmt_count(buf, v, 0, true));
}

/* A count of p's, exactly: "1,234", or "0.5" with decimals. */
static void add_count(struct strbuf *sb, const struct profile *p,
		      uint64_t units)
{
	char buf[PROFILE_COUNT_BUF];

	sb_adds(sb, profile_fmt_count(buf, units, profile_decimals(p), true));
}

static void add_text(struct strbuf *sb, const char *s)
{
	svg_xml_escape(sb, s, strlen(s));
}

#define KEY_ROOT UINT32_MAX
#define KEY_MORE (UINT32_MAX - 1)
#define KEY_DIFF0 64		/* diff: key = level + KEY_DIFF0 */

/* The key of a colour that is no class (palette.map's): one per colour. */
static uint32_t rgb_key(struct writer *w, struct rgb c)
{
	uint32_t v = (uint32_t)c.r << 16 | (uint32_t)c.g << 8 | c.b;
	size_t j, i;

	if ((w->nrgb + 1) * 2 > w->rgb_mask) {
		free(w->rgb_slot);
		w->rgb_mask = w->rgb_mask ? 2 * w->rgb_mask + 1 : 255;
		w->rgb_slot = xcalloc(w->rgb_mask + 1, sizeof(*w->rgb_slot));
		for (i = 0; i < w->nrgb; i++) {
			struct rgb o = w->rgb[i];
			uint32_t ov = (uint32_t)o.r << 16 | (uint32_t)o.g << 8 | o.b;

			for (j = (size_t)(ov * 2654435761u) & w->rgb_mask;
			     w->rgb_slot[j];
			     j = (j + 1) & w->rgb_mask)
				;
			w->rgb_slot[j] = (uint32_t)i + 1;
		}
	}
	for (j = (size_t)(v * 2654435761u) & w->rgb_mask; w->rgb_slot[j];
	     j = (j + 1) & w->rgb_mask) {
		struct rgb o = w->rgb[w->rgb_slot[j] - 1];

		if (o.r == c.r && o.g == c.g && o.b == c.b)
			return SVG_NCLASSES + w->rgb_slot[j] - 1;
	}
	if (w->nrgb == w->rgb_alloc) {
		w->rgb_alloc = w->rgb_alloc ? 2 * w->rgb_alloc : 64;
		w->rgb = xreallocarray(w->rgb, w->rgb_alloc, sizeof(*w->rgb));
	}
	w->rgb[w->nrgb++] = c;
	w->rgb_slot[j] = (uint32_t)w->nrgb;
	return SVG_NCLASSES + (uint32_t)w->nrgb - 1;
}

/* xorshift64*: --random's shades, seeded afresh by every run. */
static uint64_t next_random(struct writer *w)
{
	w->rng ^= w->rng >> 12;
	w->rng ^= w->rng << 25;
	w->rng ^= w->rng >> 27;
	return w->rng * 0x2545f4914f6cdd1dull;
}

/*
 * The colour of a frame named name: its class, or with --cp its colour in
 * palette.map, where a name not listed yet is added with its class's
 * colour (as flamegraph.pl, under the name it colours: a waker's with
 * _[w], and never the grey "-" and "--").
 */
static uint32_t name_key(struct writer *w, const char *name, size_t len,
			 bool waker)
{
	const struct svg_options *o = w->o;
	bool grey = (len == 1 && name[0] == '-') ||
		    (len == 2 && !memcmp(name, "--", 2));
	const char *mk = name;
	size_t mlen = len;
	uint32_t cls;
	struct rgb c;
	int got = 0;

	if (w->palmap && !grey) {
		/* (fold names the waker's frames so already) */
		if (waker && !(len >= 4 && !memcmp(name + len - 4, "_[w]", 4))) {
			sb_reset(&w->mapkey);
			sb_add(&w->mapkey, name, len);
			sb_adds(&w->mapkey, "_[w]");
			mk = w->mapkey.buf;
			mlen = w->mapkey.len;
		}
		got = svg_palmap_get(w->palmap, mk, mlen, &c);
		if (got > 0)
			return rgb_key(w, c);
	}
	cls = o->random ? svg_color_class_random(o, name, len, waker,
						 next_random(w)) :
			  svg_color_class(o, name, len, waker);
	if (w->palmap && !grey && !got)
		svg_palmap_add(w->palmap, mk, mlen, svg_class_color(cls));
	return cls;
}

bool svg_timed_colors(const struct profile *p, const struct svg_options *o)
{
	return profile_meta_timed(profile_meta(p)) &&
	       profile_meta(p)->unit == PROFILE_UNIT_NS &&
	       !o->palette_set && !profile_is_diff(p);
}

/* svg_timed_colors(): the palette of the frame's side, hot or cold. */
static uint32_t timed_key(struct writer *w, const struct fg_node *n,
			  const char *name, size_t len)
{
	const struct svg_options *o = w->o;
	struct svg_options side = *o;
	uint32_t key;

	if (n->flags & FG_ONCPU)
		side.kernel_hue = false;
	else
		side.palette = SVG_PAL_CHAIN;
	w->o = &side;
	key = name_key(w, name, len, (n->flags & FG_WAKER) != 0);
	w->o = o;
	return key;
}

static uint32_t node_key(struct writer *w, const struct fg_node *n,
			 uint32_t *cache)
{
	const char *name;
	size_t len;

	if (n->name == FG_ROOT)
		return KEY_ROOT;
	if (n->name == FG_MORE)
		return KEY_MORE;
	name = profile_name(w->p, n->name);
	len = profile_name_len(w->p, n->name);
	if (w->diffusion && !(len == 1 && name[0] == '-') &&
	    !(len == 2 && !memcmp(name, "--", 2)))
		return (uint32_t)svg_diffusion_level(n->width, w->l.total) +
		       KEY_DIFF0;
	if (w->diffusion)	/* grey, as ever: keys below the shades */
		return (uint32_t)(len == 1 ? 0 : 1);
	if (w->diff)
		return (uint32_t)(svg_diff_level(n->self_delta, w->l.max_delta,
						 w->o->negate) + KEY_DIFF0);
	/*
	 * Off-CPU and wall-clock: a name is hot where on-CPU time goes
	 * through it and cold elsewhere, so not one colour per name.
	 */
	if (w->timed)
		return timed_key(w, n, name, len);
	/* A random shade for each frame, unless --cp keeps the first. */
	if ((n->flags & FG_WAKER) || (w->o->random && !w->palmap))
		return name_key(w, name, len, (n->flags & FG_WAKER) != 0);
	if (!cache[n->name])
		cache[n->name] = 1 + name_key(w, name, len, false);
	return cache[n->name] - 1;
}

/* Keys as dense bucket numbers for counting sorts: colours, then root, more. */
static uint32_t nkeys(const struct writer *w)
{
	return (w->diff || w->diffusion ? 2 * KEY_DIFF0 :
		SVG_NCLASSES + (uint32_t)w->nrgb) + 2;
}

static struct rgb key_color(const struct writer *w, uint32_t key)
{
	if (w->diffusion)
		return key >= KEY_DIFF0 ?
		       svg_diffusion_color((int)key - KEY_DIFF0) :
		       svg_class_color(svg_color_class(w->o, key ? "--" : "-",
						       key ? 2 : 1, false));
	if (w->diff)
		return svg_diff_level_color((int)key - KEY_DIFF0);
	if (key >= SVG_NCLASSES)
		return w->rgb[key - SVG_NCLASSES];
	return svg_class_color(key);
}

static uint32_t bucket(const struct writer *w, uint32_t key)
{
	uint32_t n = nkeys(w);

	return key == KEY_ROOT ? n - 2 : key == KEY_MORE ? n - 1 : key;
}

/*
 * Document order: rows by depth, in a row colour groups, in a group x.
 * Nodes are in pre-order, so within a depth their indices already follow
 * x (the "(N more)" blocks, appended last, follow x among themselves and
 * form their own group); two stable counting sorts, by colour then by
 * depth, give the order without a single comparison.
 */
static void sort_rows(struct writer *w)
{
	struct fg_layout *l = &w->l;
	uint32_t rows = l->max_depth + 1, nk, d, k;
	size_t nn = profile_nnames(w->p), i;
	uint32_t *cache = xcalloc(nn ? nn : 1, sizeof(*cache));
	uint32_t *count;
	uint32_t *tmp = xreallocarray(NULL, l->n ? l->n : 1, sizeof(*tmp));

	w->key = xreallocarray(NULL, l->n ? l->n : 1, sizeof(*w->key));
	for (i = 0; i < l->n; i++)
		w->key[i] = node_key(w, &l->nodes[i], cache);
	free(cache);
	/* --cp adds keys as it goes: their number is known only now. */
	nk = nkeys(w);
	count = xcalloc(nk + 1, sizeof(*count));
	for (i = 0; i < l->n; i++)
		count[bucket(w, w->key[i]) + 1]++;
	for (k = 0; k < nk; k++)
		count[k + 1] += count[k];
	for (i = 0; i < l->n; i++)
		tmp[count[bucket(w, w->key[i])]++] = (uint32_t)i;
	free(count);

	w->row_start = xcalloc(rows + 1, sizeof(*w->row_start));
	w->order = xreallocarray(NULL, l->n ? l->n : 1, sizeof(*w->order));
	for (i = 0; i < l->n; i++)
		w->row_start[l->nodes[i].depth + 1]++;
	for (d = 0; d < rows; d++)
		w->row_start[d + 1] += w->row_start[d];
	count = xreallocarray(NULL, rows, sizeof(*count));
	memcpy(count, w->row_start, rows * sizeof(*count));
	for (i = 0; i < l->n; i++)
		w->order[count[l->nodes[tmp[i]].depth]++] = tmp[i];
	free(count);
	free(tmp);
}

static void assign_classes(struct writer *w)
{
	size_t i, nn = profile_nnames(w->p);
	uint32_t name;

	w->cls = xcalloc(nn ? nn : 1, sizeof(*w->cls));
	w->cls_id = xreallocarray(NULL, nn ? nn : 1, sizeof(*w->cls_id));
	for (i = 0; i < w->l.n; i++) {
		name = w->l.nodes[w->order[i]].name;
		if (name == FG_ROOT || name == FG_MORE || w->cls[name])
			continue;
		w->cls_id[w->ncls] = name;
		w->cls[name] = (uint32_t)++w->ncls;
	}
}

static void add_color(struct strbuf *sb, struct rgb c)
{
	sb_addf(sb, "#%02x%02x%02x", c.r, c.g, c.b);
}

static void add_key_class(struct strbuf *sb, const struct writer *w,
			  uint32_t key)
{
	if (key == KEY_ROOT)
		sb_adds(sb, "root");
	else if (key == KEY_MORE)
		sb_adds(sb, "more");
	else
		sb_addf(sb, "%c%u", w->diff || w->diffusion ? 'd' : 'c', key);
}

/* flamegraph.pl's root is named "", in palette.map too. */
static struct rgb root_color(struct writer *w)
{
	struct rgb c = svg_class_color(svg_color_class(w->o, "all", 3, false));

	if (w->diffusion)
		return svg_diffusion_color(SVG_DIFFUSION_LEVELS);
	if (w->diff)
		return svg_diff_level_color(0);
	if (w->palmap && svg_palmap_get(w->palmap, "", 0, &c) <= 0)
		svg_palmap_add(w->palmap, "", 0, c);
	return c;
}

static void write_style(struct writer *w)
{
	const struct svg_options *o = w->o;
	struct strbuf *sb = &w->sb;
	char top[8], bottom[8];
	uint32_t key;
	char *used;
	size_t i;
	/* A frame's colour: its line's, or with an outline its box's fill. */
	const char paint = o->stroke_color ? 'f' : 's';

	svg_bg_colors(o, top, bottom);
	sb_addf(sb, "<defs><linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\"><stop stop-color=\"%s\" offset=\"5%%\"/><stop stop-color=\"%s\" offset=\"95%%\"/></linearGradient></defs>\n",
		top, bottom);
	sb_adds(sb, "<style type=\"text/css\"><![CDATA[\n");
	sb_addf(sb, "text{font-family:%s;font-size:%gpx}\n#title{font-size:%gpx}\n#frames path{stroke-width:%upx}\n#frames path.m{stroke:%s}\n",
		o->font_type, o->font_size, o->font_size + 5,
		o->frame_height - 1, o->search_color);
	sb_add(sb, asset_flamegraph_css, asset_flamegraph_css_len);
	if (o->ui_color)
		sb_addf(sb, "#title,#details,#unzoom,#search,#ignorecase,#matched{fill:%s}\n",
			o->ui_color);
	if (o->stroke_color)
		sb_addf(sb, "#frames path{fill:inherit;stroke:%s;stroke-width:1px;vector-effect:non-scaling-stroke}\n#frames path:hover{stroke-opacity:1;fill-opacity:0.6}\n#frames path.m{fill:%s}\n#frames .more{fill:#c4c4c4}\n",
			o->stroke_color, o->search_color);
	sb_adds(sb, paint == 'f' ? ".root{fill:" : ".root{stroke:");
	add_color(sb, root_color(w));
	sb_adds(sb, "}\n");
	/* One rule per colour in use, in key order. */
	used = xcalloc(nkeys(w), 1);
	for (i = 0; i < w->l.n; i++)
		if (w->key[i] < KEY_MORE)
			used[w->key[i]] = 1;
	for (key = 0; key < nkeys(w) - 2; key++) {
		if (!used[key])
			continue;
		sb_add(sb, ".", 1);
		add_key_class(sb, w, key);
		sb_adds(sb, paint == 'f' ? "{fill:" : "{stroke:");
		add_color(sb, key_color(w, key));
		sb_adds(sb, "}\n");
	}
	free(used);
	sb_adds(sb, "]]></style>\n");
}

static const char *default_title(const struct writer *w)
{
	const struct profile_meta *m = profile_meta(w->p);

	if (w->o->title)
		return w->o->title;
	if ((m->present & PROFILE_META_TITLE) && m->title && *m->title)
		return m->title;
	if (w->o->flamechart)
		return "Flame Chart";
	if (w->o->inverted)
		return "Icicle Graph";
	if (w->diff)
		return "Differential Flame Graph";
	if (profile_meta_timed(m))
		return m->mode == PROFILE_MODE_WALL ?
		       "Wall-Clock Time Flame Graph" : "Off-CPU Time Flame Graph";
	return "Flame Graph";
}

static void add_duration(struct strbuf *sb, uint64_t ns)
{
	if (ns >= 10000000000ull)
		sb_addf(sb, "%.0f s", (double)ns / 1e9);
	else if (ns >= 1000000)
		sb_addf(sb, "%.2f s", (double)ns / 1e9);
	else
		sb_addf(sb, "%.3f ms", (double)ns / 1e6);
}

/* CPU time: milliseconds below a second. */
static void add_cpu_time(struct strbuf *sb, double ns)
{
	if (ns >= 1e9)
		sb_addf(sb, "%.2f s", ns / 1e9);
	else
		sb_addf(sb, "%.2f ms", ns / 1e6);
}

/*
 * The samples behind the counts, in their units: the counts themselves,
 * unless they are periods; then the stacks', or the header's total.
 * UINT64_MAX: unknown.
 */
static uint64_t samples_total(const struct profile *p)
{
	const struct profile_meta *m = profile_meta(p);
	uint64_t f = profile_pow10(profile_decimals(p));

	if (m->unit != PROFILE_UNIT_PERIODS)
		return profile_total2(p);
	if (profile_has_samples(p))
		return profile_total_samples(p);
	if ((m->present & PROFILE_META_SAMPLES) && m->samples < UINT64_MAX / f)
		return m->samples * f;
	return UINT64_MAX;
}

/*
 * "12,345 samples (14.02 s of CPU time), 10.00 s at 997 Hz on 4 CPUs, 12
 * dropped (0.10%), sampler 850 ns/sample (0.02% CPU)": what a reader
 * needs to trust the graph, from the "# flamestat:" header when the input
 * has one. The CPU time is the periods' (the counts', or the header's
 * total when the counts are samples) times the period.
 */
static void meta_line(const struct writer *w, struct strbuf *sb)
{
	const struct profile_meta *m = profile_meta(w->p);
	const char *unit = w->o->count_name;
	uint64_t samples = samples_total(w->p);
	uint64_t periods = profile_total_periods(w->p);
	uint64_t period_ns = profile_period_ns(m);
	unsigned int dec = profile_decimals(w->p);
	double seen, whole;	/* samples, as counts rather than units */
	bool offcpu = m->unit == PROFILE_UNIT_NS &&
		      m->mode == PROFILE_MODE_OFFCPU;

	if (w->diff) {
		uint64_t a = profile_total(w->p), b = profile_total2(w->p);

		sb_adds(sb, "before ");
		add_count(sb, w->p, a);
		sb_adds(sb, ", after ");
		add_count(sb, w->p, b);
		sb_addf(sb, " %s", unit);
		if (a)
			sb_addf(sb, " (%+.2f%%)",
				100.0 * ((double)b - (double)a) / (double)a);
		return;
	}
	if (!(m->present & ~PROFILE_META_TITLE))
		return;
	if (m->unit == PROFILE_UNIT_NS) {
		char t[PROFILE_TIME_BUF];

		/* "5.01 s of wall-clock time, 6 blocks (1 lost)" */
		sb_addf(sb, "%s of %s time", profile_fmt_ns(t, sizeof(t),
			profile_count_double(profile_total2(w->p), dec)),
			m->mode == PROFILE_MODE_WALL ? "wall-clock" :
			m->mode == PROFILE_MODE_OFFCPU ? "off-CPU" : "");
		if (m->present & PROFILE_META_BLOCKS) {
			sb_adds(sb, ", ");
			add_grouped(sb, m->blocks);
			sb_adds(sb, " blocks");
			if (m->blocks_lost) {
				sb_adds(sb, " (");
				add_grouped(sb, m->blocks_lost);
				sb_adds(sb, " lost)");
			}
		}
		samples = profile_total2(w->p);
	} else if (samples != UINT64_MAX) {
		add_count(sb, w->p, samples);
		sb_addf(sb, " %s", m->unit == PROFILE_UNIT_PERIODS ?
			"samples" : unit);
	} else {
		add_count(sb, w->p, profile_total2(w->p));
		sb_adds(sb, " periods");
	}
	if (periods && period_ns) {
		sb_adds(sb, " (");
		add_cpu_time(sb, profile_count_double(periods, dec) *
			     (double)period_ns);
		sb_adds(sb, " of CPU time)");
	}
	if (samples == UINT64_MAX)
		samples = profile_total2(w->p);
	whole = profile_count_double(samples, dec);
	if (m->present & PROFILE_META_DURATION) {
		sb_adds(sb, ", ");
		add_duration(sb, m->duration_ns);
	}
	/* Off-CPU time alone: no timer ran, nothing was sampled. */
	if ((m->present & PROFILE_META_FREQ) && !offcpu)
		sb_addf(sb, " at %" PRIu64 " Hz", m->freq);
	if (m->present & PROFILE_META_CPUS)
		sb_addf(sb, " on %" PRIu64 " CPU%s", m->cpus,
			m->cpus == 1 ? "" : "s");
	if (offcpu)
		return;
	if (m->present & PROFILE_META_DROPPED) {
		sb_adds(sb, ", ");
		add_grouped(sb, m->dropped);
		sb_adds(sb, " dropped");
		seen = (m->present & PROFILE_META_RECORDED) ?
			(double)m->recorded : whole + (double)m->dropped;
		if (seen > 0)
			sb_addf(sb, " (%.2f%%)",
				100.0 * (double)m->dropped / seen);
	}
	if (m->present & PROFILE_META_COST) {
		sb_addf(sb, ", sampler %.0f ns/sample", m->cost_ns);
		seen = (m->present & PROFILE_META_RECORDED) ?
			(double)m->recorded : whole;
		if ((m->present & PROFILE_META_DURATION) &&
		    (m->present & PROFILE_META_CPUS) && m->duration_ns &&
		    m->cpus)
			sb_addf(sb, " (%.3f%% CPU)",
				100.0 * m->cost_ns * seen /
				((double)m->duration_ns * (double)m->cpus));
	}
}

static double row_y(const struct writer *w, uint32_t depth)
{
	uint32_t level = w->o->inverted ? depth : w->l.max_depth - depth;

	return (double)level * w->o->frame_height;
}

static void write_frames(struct writer *w)
{
	const struct svg_options *o = w->o;
	struct strbuf *sb = &w->sb;
	const struct fg_layout *l = &w->l;
	uint64_t h = (uint64_t)(l->max_depth + 1) * o->frame_height;
	uint32_t d, i, key;

	sb_adds(sb, "<svg id=\"frames\" x=\"10\" y=\"");
	add_px(sb, w->top);
	sb_adds(sb, "\" width=\"");
	add_px(sb, (double)o->width - 2 * XPAD);
	sb_adds(sb, "\" height=\"");
	add_u64(sb, h);
	sb_adds(sb, "\" viewBox=\"0 0 ");
	add_u64(sb, coord(w, l->total));
	sb_add(sb, " ", 1);
	add_u64(sb, h);
	sb_adds(sb, "\" preserveAspectRatio=\"none\">\n");
	for (d = 0; d <= l->max_depth; d++) {
		/* Paths run along the middle of the row. */
		sb_adds(sb, "<g transform=\"translate(0,");
		add_px(sb, row_y(w, d) + (o->frame_height - 1) / 2.0);
		sb_adds(sb, ")\">\n");
		for (i = w->row_start[d]; i < w->row_start[d + 1]; i++) {
			const struct fg_node *n = &l->nodes[w->order[i]];

			key = w->key[w->order[i]];
			if (i == w->row_start[d] ||
			    key != w->key[w->order[i - 1]]) {
				if (i != w->row_start[d])
					sb_adds(sb, "</g>\n");
				sb_adds(sb, "<g class=\"");
				add_key_class(sb, w, key);
				sb_adds(sb, "\">");
			}
			/* One line per colour group: a frame is ~27 bytes. */
			sb_adds(sb, "<path d=\"M");
			add_u64(sb, coord(w, n->x));
			if (o->stroke_color) {
				/* A filled box: the outline needs its edges. */
				sb_adds(sb, " ");
				sb_adds(sb, w->box_top);
				sb_adds(sb, "h");
				add_u64(sb, coord(w, n->x + n->width) -
					    coord(w, n->x));
				sb_adds(sb, "v");
				sb_adds(sb, w->box_height);
				sb_adds(sb, "h-");
				add_u64(sb, coord(w, n->x + n->width) -
					    coord(w, n->x));
				sb_adds(sb, "z\"/>");
				continue;
			}
			sb_adds(sb, " 0h");
			add_u64(sb, coord(w, n->x + n->width) - coord(w, n->x));
			sb_adds(sb, "\"/>");
		}
		if (w->row_start[d + 1] > w->row_start[d])
			sb_adds(sb, "</g>\n");
		sb_adds(sb, "</g>\n");
	}
	sb_adds(sb, "</svg>\n");
}

/* Label text for node n: the name, cut to fit with "..", or nothing. */
static void write_label(struct writer *w, const struct fg_node *n)
{
	const struct svg_options *o = w->o;
	double px = (double)n->width * w->scale;
	size_t chars = (size_t)(px / (o->font_size * o->font_width));
	char more[48];
	const char *name;
	size_t len, have, cut;

	if (chars < 3)
		return;
	if (n->name == FG_ROOT) {
		name = "all";
		len = 3;
	} else if (n->name == FG_MORE) {
		len = (size_t)snprintf(more, sizeof(more), "(%u more)",
				       n->more_n);
		name = more;
	} else {
		name = profile_name(w->p, n->name);
		len = svg_strip_annotation(name,
					   profile_name_len(w->p, n->name));
	}
	have = svg_utf8_chars(name, len);
	sb_adds(&w->sb, "<text x=\"");
	add_px(&w->sb, XPAD + (double)n->x * w->scale + 3);
	sb_adds(&w->sb, "\" y=\"");
	add_px(&w->sb, w->top + row_y(w, n->depth) +
		       (o->frame_height - 1) / 2.0 + o->font_size * 0.35);
	sb_adds(&w->sb, "\">");
	if (have <= chars) {
		svg_xml_escape(&w->sb, name, len);
	} else if (o->truncate_left) {
		sb_adds(&w->sb, "..");
		cut = svg_utf8_prefix(name, len, have - (chars - 2));
		svg_xml_escape(&w->sb, name + cut, len - cut);
	} else {
		cut = svg_utf8_prefix(name, len, chars - 2);
		svg_xml_escape(&w->sb, name, cut);
		sb_adds(&w->sb, "..");
	}
	sb_adds(&w->sb, "</text>\n");
}

/* One number per frame, in document order. */
static void write_frame_array(struct writer *w, const char *key, int what)
{
	struct strbuf *sb = &w->sb;
	const struct fg_node *n;
	size_t i;

	sb_addf(sb, ",\n\"%s\":[", key);
	for (i = 0; i < w->l.n; i++) {
		n = &w->l.nodes[w->order[i]];
		if (i)
			sb_add(sb, ",", 1);
		if (what == 'f')
			add_u64(sb, n->name == FG_ROOT ? 0 :
				    n->name == FG_MORE ? n->more_n :
				    w->cls[n->name] - 1);
		else if (what == 'b')
			add_js_u64(sb, n->before);
		else if (what == 'x')
			add_js_u64(sb, n->x);
		else if (what == 'w')
			add_js_u64(sb, n->width);
		else
			add_js_i64(sb, n->self_delta);
	}
	sb_add(sb, "]", 1);
}

static void write_data(struct writer *w)
{
	const struct svg_options *o = w->o;
	struct strbuf *sb = &w->sb;
	uint64_t count_ns = profile_count_ns(w->p);
	const char *name, *count_name = o->count_name;
	size_t k, len;

	/*
	 * Periods are not samples: the tooltips give their time (and the
	 * samples, when known) instead, or call them periods.
	 */
	if (profile_meta(w->p)->unit == PROFILE_UNIT_PERIODS && !w->diff &&
	    !strcmp(count_name, "samples"))
		count_name = count_ns ? "" : "periods";
	/* Nanoseconds: the time (countns 1) says it all, "1.25 s, 12.30%". */
	if (profile_meta(w->p)->unit == PROFILE_UNIT_NS && !w->diff &&
	    !strcmp(count_name, "samples"))
		count_name = "";

	sb_adds(sb, "<script type=\"text/ecmascript\"><![CDATA[\nvar fsData = {\"names\":[");
	for (k = 0; k < w->ncls; k++) {
		name = profile_name(w->p, w->cls_id[k]);
		len = svg_strip_annotation(name,
				profile_name_len(w->p, w->cls_id[k]));
		if (k)
			sb_add(sb, ",", 1);
		svg_json_string(sb, name, len);
	}
	sb_add(sb, "]", 1);
	/* f: name index; for a "(N more)" block, N. */
	write_frame_array(w, "f", 'f');
	if (w->diff) {
		write_frame_array(w, "b", 'b');
		write_frame_array(w, "d", 'd');
	}
	/* s: the samples behind a frame's periods. */
	if (w->l.samples)
		write_frame_array(w, "s", 'b');
	/* x, w: the exact counts, when the paths have scaled units. */
	if (w->scaled) {
		write_frame_array(w, "x", 'x');
		write_frame_array(w, "w", 'w');
	}
	/* attrs: --nameattr's, by name index. */
	if (w->nameattr) {
		bool first = true;
		const char *json;

		sb_adds(sb, ",\n\"attrs\":{");
		for (k = 0; k < w->ncls; k++) {
			json = svg_nameattr_find(w->nameattr,
					profile_name(w->p, w->cls_id[k]),
					profile_name_len(w->p, w->cls_id[k]));
			if (!json)
				continue;
			sb_addf(sb, "%s\"%zu\":%s", first ? "" : ",", k, json);
			first = false;
		}
		sb_add(sb, "}", 1);
	}
	if (o->truncate_left)
		sb_adds(sb, ",\n\"truncleft\":true");
	/* box: --stroke-color's frames are boxes, [top, height] in the row. */
	if (o->stroke_color)
		sb_addf(sb, ",\n\"box\":[\"%s\",\"%s\"]", w->box_top,
			w->box_height);
	sb_adds(sb, ",\n\"total\":");
	add_js_u64(sb, w->l.total);
	/* decimals: counts are in units of 10^-decimals (profile.h). */
	if (profile_decimals(w->p))
		sb_addf(sb, ",\"decimals\":%u", profile_decimals(w->p));
	/* countns: the CPU time of a count, for the tooltips. */
	if (count_ns) {
		sb_adds(sb, ",\"countns\":");
		add_u64(sb, count_ns);
	}
	sb_adds(sb, ",\"countname\":");
	svg_json_string(sb, count_name, strlen(count_name));
	sb_adds(sb, ",\"nametype\":");
	svg_json_string(sb, o->name_type, strlen(o->name_type));
	sb_addf(sb, ",\"factor\":%.17g,\"fontsize\":%g,\"fontwidth\":%g,\"frameheight\":%u,\"xpad\":%d,\"inverted\":%s,\"diff\":%s,\"negate\":%s,\"fluid\":%s,\"width\":%u};\n]]></script>\n",
		o->factor, o->font_size, o->font_width, o->frame_height, XPAD,
		o->inverted ? "true" : "false", w->diff ? "true" : "false",
		o->negate ? "true" : "false", o->fluid ? "true" : "false",
		o->width);
	sb_adds(sb, "<script type=\"text/ecmascript\"><![CDATA[\n");
	sb_add(sb, asset_flamegraph_js, asset_flamegraph_js_len);
	sb_adds(sb, "]]></script>\n");
}

static void write_head(struct writer *w, double height)
{
	struct strbuf *sb = &w->sb;

	sb_adds(sb, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n");
	sb_addf(sb, "<svg version=\"1.1\" id=\"flamegraph\" width=\"%u\" height=\"", w->o->width);
	add_px(sb, height);
	sb_addf(sb, "\" viewBox=\"0 0 %u ", w->o->width);
	add_px(sb, height);
	sb_adds(sb, "\" xmlns=\"http://www.w3.org/2000/svg\">\n");
	sb_adds(sb, "<!-- Flame graph by flamestat. Click a frame to zoom, Ctrl-F to search. -->\n");
	if (w->o->notes) {
		sb_adds(sb, "<desc id=\"notes\">");
		add_text(sb, w->o->notes);
		sb_adds(sb, "</desc>\n");
	}
}

static void write_text(struct strbuf *sb, const char *id, const char *cls,
		       const char *x, double y, const char *text)
{
	sb_addf(sb, "<text id=\"%s\"%s%s%s x=\"%s\" y=\"", id,
		cls ? " class=\"" : "", cls ? cls : "", cls ? "\"" : "", x);
	add_px(sb, y);
	sb_adds(sb, "\">");
	add_text(sb, text);
	sb_adds(sb, "</text>\n");
}

/*
 * What the reader must know before trusting the widths (the sampler
 * throttled itself): a line of its own under the title, in red.
 */
static void write_notice(struct strbuf *sb, const char *id, double y,
			 const char *text)
{
	sb_adds(sb, "<text id=\"");
	sb_adds(sb, id);
	sb_adds(sb, "\" x=\"50%\" y=\"");
	add_px(sb, y);
	sb_adds(sb, "\" text-anchor=\"middle\" fill=\"#b00000\">");
	add_text(sb, text);
	sb_adds(sb, "</text>\n");
}

static int flush(struct writer *w, FILE *out)
{
	if (fwrite(w->sb.buf, 1, w->sb.len, out) != w->sb.len ||
	    fflush(out)) {
		fs_perror("cannot write the SVG");
		return -1;
	}
	return 0;
}

static int render_empty(struct writer *w, FILE *out)
{
	char x[16];

	write_head(w, w->o->font_size * 5);
	snprintf(x, sizeof(x), "%u", w->o->width / 2);
	sb_adds(&w->sb, "<text x=\"");
	sb_adds(&w->sb, x);
	sb_adds(&w->sb, "\" y=\"");
	add_px(&w->sb, w->o->font_size * 2);
	sb_adds(&w->sb, "\" text-anchor=\"middle\">ERROR: no stack counts in the input</text>\n</svg>\n");
	fs_err("no stack counts in the input: nothing to draw (is it folded, 'frame;frame;... COUNT' per line?)");
	return flush(w, out) ? -1 : 1;
}

/*
 * --base: each stack from the leafmost frame named one of o->base (with
 * or without its _[k]-like suffix) to its leaf; stacks without one are
 * left out. inferno's --base, which it applies to its sorted input only.
 */
static bool base_name(const struct svg_options *o, const char *name,
		      size_t len)
{
	size_t i, n, strip = svg_strip_annotation(name, len);

	for (i = 0; i < o->nbase; i++) {
		n = strlen(o->base[i]);
		if ((n == len || n == strip) && !memcmp(o->base[i], name, n))
			return true;
	}
	return false;
}

static struct profile *base_cut(const struct profile *p,
				const struct svg_options *o)
{
	struct profile *q = profile_new();
	size_t nn = profile_nnames(p), i, j, k;
	bool *is_base = xcalloc(nn ? nn : 1, sizeof(*is_base));
	uint32_t *map = xreallocarray(NULL, nn ? nn : 1, sizeof(*map));
	const char **names = NULL;
	uint32_t *ids = NULL;
	size_t cap = 0;
	struct profile_stack s;
	bool sampled = profile_has_samples(p), diff = profile_is_diff(p);

	for (i = 0; i < nn; i++) {
		is_base[i] = base_name(o, profile_name(p, (uint32_t)i),
				       profile_name_len(p, (uint32_t)i));
		map[i] = profile_intern(q, profile_name(p, (uint32_t)i),
					profile_name_len(p, (uint32_t)i));
	}
	for (i = 0; i < profile_nstacks(p); i++) {
		profile_stack(p, i, &s);
		for (j = s.nframes; j > 0 && !is_base[s.frames[j - 1]]; j--)
			;
		if (!j)
			continue;
		if (s.nframes > cap) {
			cap = 2 * s.nframes;
			ids = xreallocarray(ids, cap, sizeof(*ids));
			names = xreallocarray(names, cap, sizeof(*names));
		}
		for (k = j - 1; k < s.nframes; k++) {
			ids[k - j + 1] = map[s.frames[k]];
			names[k - j + 1] = profile_name(p, s.frames[k]);
		}
		/* Fewer frames and the same counts: no limit is passed. */
		if (sampled)
			profile_add_sampled(q, names, s.nframes - j + 1,
					    s.count2, s.samples);
		else
			profile_add_ids(q, ids, s.nframes - j + 1, s.count,
					s.count2, diff);
	}
	profile_set_meta(q, profile_meta(p));
	free(names);
	free(ids);
	free(map);
	free(is_base);
	return q;
}

static int render(const struct profile *p, const struct svg_options *o,
		  FILE *out)
{
	struct writer w = { .p = p, .o = o, .diff = profile_is_diff(p),
			    .diffusion = o->color_diffusion,
			    .timed = svg_timed_colors(p, o) };
	struct strbuf meta = { 0 };
	double fs = o->font_size, bottom = fs * 2 + 10, y;
	char xbuf[32], note[160], fp_note[160];
	char tbuf[PROFILE_COUNT_BUF], sbuf[PROFILE_COUNT_BUF];
	uint64_t total;
	bool throttled = profile_throttle_note(profile_meta(p), note,
					       sizeof(note));
	bool frameless = profile_frameless_note(profile_meta(p), true,
						fp_note, sizeof(fp_note));
	size_t i;
	int ret;

	if (!profile_total2(p)) {
		ret = render_empty(&w, out);
		sb_free(&w.sb);
		return ret;
	}
	if (svg_total_units(o, p, &total)) {
		fs_err("--total: too large for counts of %u decimals (2^64 units of 10^-%u at most)",
		       profile_decimals(p), profile_decimals(p));
		sb_free(&w.sb);
		return -1;
	}
	if (total && total < profile_total2(p))
		fs_warn("--total %s is less than the input's %s counts; ignored",
			profile_fmt_count(tbuf, o->total, o->total_decimals,
					  false),
			profile_fmt_count(sbuf, profile_total2(p),
					  profile_decimals(p), false));
	if (o->cp) {
		w.palmap = svg_palmap_load(o->palette_file);
		if (!w.palmap)
			return -1;
	}
	if (o->nameattr && o->javascript) {
		w.nameattr = svg_nameattr_load(o->nameattr, false);
		if (!w.nameattr) {
			svg_palmap_free(w.palmap);
			return -1;
		}
	}
	if (o->random && getrandom(&w.rng, sizeof(w.rng), GRND_NONBLOCK) !=
	    (ssize_t)sizeof(w.rng))
		w.rng = (uint64_t)time(NULL) ^ (uint64_t)getpid() << 32;
	w.rng |= 1;		/* xorshift: never 0 */
	fg_layout_build(&w.l, p, o);
	sort_rows(&w);
	assign_classes(&w);
	meta_line(&w, &meta);
	w.scale = ((double)o->width - 2 * XPAD) / (double)w.l.total;
	w.scaled = w.l.total > COORD_MAX;
	snprintf(w.box_top, sizeof(w.box_top), "%g",
		 -(double)(o->frame_height - 1) / 2.0);
	snprintf(w.box_height, sizeof(w.box_height), "%u",
		 o->frame_height - 1);
	w.top = fs * 3 + (o->subtitle ? fs * 2 : 0) + (meta.len ? fs * 1.5 : 0) +
		(throttled ? fs * 1.5 : 0) + (frameless ? fs * 1.5 : 0);
	w.height = w.top + (double)(w.l.max_depth + 1) * o->frame_height +
		   bottom;
	sb_grow(&w.sb, 48 * w.l.n + 65536);

	write_head(&w, w.height);
	write_style(&w);
	sb_adds(&w.sb, "<rect id=\"background\" x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" fill=\"url(#background)\"/>\n");
	write_text(&w.sb, "title", NULL, "50%", fs * 2, default_title(&w));
	y = fs * 2;
	if (o->subtitle) {
		y += fs * 2;
		write_text(&w.sb, "subtitle", NULL, "50%", y, o->subtitle);
	}
	if (meta.len) {
		y += fs * 1.5;
		write_text(&w.sb, "meta", NULL, "50%", y, meta.buf);
	}
	if (throttled) {
		y += fs * 1.5;
		write_notice(&w.sb, "notice", y, note);
	}
	if (frameless) {
		y += fs * 1.5;
		write_notice(&w.sb, "notice-frameless", y, fp_note);
	}
	/* Buttons and the details bar: the script's; none without it. */
	if (o->javascript) {
		write_text(&w.sb, "unzoom", "hide", "10", fs * 2, "Reset Zoom");
		snprintf(xbuf, sizeof(xbuf), "%d", (int)o->width - XPAD - 100);
		write_text(&w.sb, "search", NULL, xbuf, fs * 2, "Search");
		snprintf(xbuf, sizeof(xbuf), "%d", (int)o->width - XPAD - 16);
		write_text(&w.sb, "ignorecase", NULL, xbuf, fs * 2, "ic");
	}
	write_frames(&w);
	sb_adds(&w.sb, "<g id=\"labels\">\n");
	for (i = 0; i < w.l.n; i++)
		write_label(&w, &w.l.nodes[w.order[i]]);
	sb_adds(&w.sb, "</g>\n");
	if (o->javascript) {
		write_text(&w.sb, "details", NULL, "10", w.height - bottom / 2,
			   " ");
		snprintf(xbuf, sizeof(xbuf), "%d", (int)o->width - XPAD - 100);
		write_text(&w.sb, "matched", "hide", xbuf,
			   w.height - bottom / 2, " ");
		write_data(&w);
	}
	sb_adds(&w.sb, "</svg>\n");
	ret = flush(&w, out);
	/* As flamegraph.pl: the palette is written back after the graph. */
	if (w.palmap && svg_palmap_save(w.palmap, o->palette_file))
		ret = -1;

	sb_free(&meta);
	sb_free(&w.sb);
	sb_free(&w.mapkey);
	free(w.order);
	free(w.row_start);
	free(w.cls);
	free(w.cls_id);
	free(w.key);
	free(w.rgb);
	free(w.rgb_slot);
	svg_palmap_free(w.palmap);
	svg_nameattr_free(w.nameattr);
	fg_layout_free(&w.l);
	return ret;
}

int svg_render(const struct profile *p, const struct svg_options *o,
	       FILE *out)
{
	struct profile *q;
	int ret;

	if (!o->nbase)
		return render(p, o, out);
	q = base_cut(p, o);
	ret = render(q, o, out);
	profile_free(q);
	return ret;
}
