/* SPDX-License-Identifier: GPL-2.0 */
/* Internals of the renderer: the laid-out frame tree and the colours. */
#ifndef FLAMESTAT_SVG_INT_H
#define FLAMESTAT_SVG_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "render/svg.h"

struct profile;
struct strbuf;

#define FG_ROOT UINT32_MAX		/* name of the "all" frame */
#define FG_MORE (UINT32_MAX - 1)	/* name of a "(N more)" block */

enum {
	FG_WAKER = 1,		/* below a "--" frame (chain palette) */
	/*
	 * Off-CPU and wall-clock profiles: some of the time under this frame
	 * is on a CPU (a stack without an "[off-cpu:S]" frame goes through it).
	 * Frames without it are all off-CPU time, drawn cold.
	 */
	FG_ONCPU = 2,
};

/*
 * Off-CPU and wall-clock profiles in the default palette: on-CPU frames
 * hot (kernel ones too: aqua is the wakers'), off-CPU ones blue, wakers
 * aqua, as FlameGraph's chain palette draws offwaketime's output.
 */
bool svg_timed_colors(const struct profile *p, const struct svg_options *o);

/*
 * One visible frame. x and width are in counts (count2: samples, or
 * periods for a recording), so the SVG can carry exact numbers and the
 * browser scales them; before is the second count: the count before, for
 * a differential profile, or the samples behind the periods (see
 * fg_layout.samples); self_delta matters for differential profiles only.
 */
struct fg_node {
	uint64_t x;
	uint64_t width;
	uint64_t before;	/* under this frame: before, or samples */
	int64_t self_delta;	/* after - before, of stacks ending here */
	uint64_t more_w;	/* narrow children merged, width */
	uint64_t more_before;
	uint32_t more_n;	/* and how many; for FG_MORE: its count */
	uint32_t name;		/* frame id, FG_ROOT or FG_MORE */
	uint32_t parent;
	uint32_t depth;		/* 0: the root */
	uint32_t flags;
};

struct fg_layout {
	struct fg_node *nodes;	/* pre-order, "(N more)" blocks last */
	size_t n, alloc;
	uint64_t total;		/* root width: the counts, or --total */
	bool samples;		/* before holds the samples of a profile of
				 * periods that knows them */
	uint32_t max_depth;
	uint64_t max_delta;	/* largest |self_delta|, at least 1 */
	double min_samples;	/* narrower frames were merged */
};

/*
 * --total in the units of p's counts (profile.h), rounded half up to its
 * decimals, into *units (0 for none). Returns 0, or -1 when it does not
 * fit 64 bits there.
 */
int svg_total_units(const struct svg_options *o, const struct profile *p,
		    uint64_t *units);

/* Merge, prune and place the frames of p as o asks. */
void fg_layout_build(struct fg_layout *l, const struct profile *p,
		     const struct svg_options *o);
void fg_layout_free(struct fg_layout *l);

struct rgb {
	uint8_t r, g, b;
};

/*
 * Colour class of a frame from its full name (annotation suffix included):
 * a small integer, the same for the same name, palette and options.
 */
uint32_t svg_color_class(const struct svg_options *o, const char *name,
			 size_t len, bool waker);
#define SVG_NCLASSES (17u << 9)	/* classes are below this */
struct rgb svg_class_color(uint32_t cls);
/*
 * --random: a class of the name's palette (by name, as above) with a
 * shade from r, any 64 random bits, instead of from the name.
 */
uint32_t svg_color_class_random(const struct svg_options *o,
				const char *name, size_t len, bool waker,
				uint64_t r);

/*
 * --colordiffusion: the shade of a frame from its share of the graph,
 * 0..SVG_DIFFUSION_LEVELS (the whole graph), and its colour: the wider,
 * the redder, as inferno (sqrt of the share, so that a half-width frame
 * is well red already).
 */
#define SVG_DIFFUSION_LEVELS 40
int svg_diffusion_level(uint64_t width, uint64_t total);
struct rgb svg_diffusion_color(int level);

/* --nameattr (svg_nameattr.c); load() reports errors, warns if warn. */
struct svg_nameattr;
struct svg_nameattr *svg_nameattr_load(const char *path, bool warn);
/* The JSON object of name's attributes, or NULL. */
const char *svg_nameattr_find(const struct svg_nameattr *m,
			      const char *name, size_t len);
void svg_nameattr_free(struct svg_nameattr *m);

/*
 * --cp's palette.map (svg_palmap.c). load(): an empty map when the file
 * does not exist, NULL after reporting an error. get(): 1 and *c when
 * name has a colour there, 0 when not listed, -1 when listed with a value
 * that is no colour. add(): name gets c unless listed. save(): sorted,
 * through a temporary file; -1 after reporting an error.
 */
struct svg_palmap;
struct svg_palmap *svg_palmap_load(const char *path);
int svg_palmap_get(const struct svg_palmap *m, const char *name, size_t len,
		   struct rgb *c);
void svg_palmap_add(struct svg_palmap *m, const char *name, size_t len,
		    struct rgb c);
int svg_palmap_save(const struct svg_palmap *m, const char *path);
void svg_palmap_free(struct svg_palmap *m);

/*
 * Differential shade: 0 unchanged, 1..SVG_DIFF_LEVELS grew (red),
 * negative shrank (blue); deeper for changes nearer the largest one.
 */
#define SVG_DIFF_LEVELS 24
int svg_diff_level(int64_t delta, uint64_t max_delta, bool negate);
struct rgb svg_diff_level_color(int level);
/* "#rrggbb", and nothing else. */
bool svg_is_hex_color(const char *s);
/* Background gradient stops as "#rrggbb"; -1 for a bad --bgcolors. */
int svg_bg_colors(const struct svg_options *o, char top[8], char bottom[8]);

/* Length of name without a trailing _[k], _[i], _[j] or _[w]. */
size_t svg_strip_annotation(const char *name, size_t len);

/* Text for XML character data/attributes, always well-formed UTF-8. */
void svg_xml_escape(struct strbuf *sb, const char *s, size_t len);
/* A JSON string literal that is also safe inside CDATA. */
void svg_json_string(struct strbuf *sb, const char *s, size_t len);
/* Code points of the escaped form's source; invalid bytes count as one. */
size_t svg_utf8_chars(const char *s, size_t len);
/* Byte length of the first n code points. */
size_t svg_utf8_prefix(const char *s, size_t len, size_t n);

#endif
