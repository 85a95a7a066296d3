/* SPDX-License-Identifier: GPL-2.0 */
/* Flame graph rendering: profile in, self-contained interactive SVG out. */
#ifndef FLAMESTAT_SVG_H
#define FLAMESTAT_SVG_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct profile;

/* flamegraph.pl's --colors palettes. */
enum svg_palette {
	SVG_PAL_HOT,
	SVG_PAL_MEM,
	SVG_PAL_IO,
	SVG_PAL_WAKEUP,
	SVG_PAL_CHAIN,
	SVG_PAL_JAVA,
	SVG_PAL_JS,
	SVG_PAL_PERL,
	SVG_PAL_RED,
	SVG_PAL_GREEN,
	SVG_PAL_BLUE,
	SVG_PAL_AQUA,
	SVG_PAL_YELLOW,
	SVG_PAL_PURPLE,
	SVG_PAL_ORANGE,
	SVG_PAL_BLACK = 16,	/* an unknown --colors: flamegraph.pl draws
				 * such frames rgb(0,0,0) (15: svg_color.c's
				 * grey) */
};

#define SVG_MAX_BASE 32

/*
 * Every renderer option, named after flamegraph.pl's. svg_options_init()
 * sets the defaults given in the comments; strings are borrowed, not
 * copied, and must outlive svg_render().
 */
struct svg_options {
	const char *title;	/* NULL: "Flame Graph", or "Icicle Graph"
				 * (inverted), "Flame Chart" (flamechart),
				 * "Differential Flame Graph" (diff input) */
	const char *subtitle;	/* NULL: none */
	unsigned int width;	/* image width, px: 1200 */
	unsigned int frame_height;	/* px per stack level: 16 */
	double font_size;	/* px: 12 */
	double font_width;	/* mean glyph width / font size: 0.59 */
	double min_width;	/* narrower frames merge into "(N more)": 0.1 */
	bool min_width_pct;	/* min_width is a % of all samples: false (px) */
	const char *font_type;	/* CSS font family: "Verdana" */
	const char *count_name;	/* unit of the counts: "samples" */
	const char *name_type;	/* details-bar label: "Function:" */
	enum svg_palette palette;	/* SVG_PAL_HOT */
	bool palette_set;	/* --colors given: off-CPU and wall-clock
				 * profiles drawn in it, not hot and cold */
	const char *bgcolors;	/* NULL: the palette's (yellow, blue, green,
				 * grey gradient or "#rrggbb") */
	bool hash;		/* colours from a prefix-weighted name hash, so
				 * similar names get similar colours: false */
	bool kernel_hue;	/* _[k] frames aqua in the hot palette: true */
	bool reverse;		/* merge from the leaf end: false */
	bool inverted;		/* icicle graph, root at the top: false */
	bool flamechart;	/* input order on x, no merging: false */
	bool negate;		/* differential: swap red and blue: false */
	bool fluid;		/* fill the browser window's width: true */
	const char *notes;	/* text kept in the SVG's <desc>: NULL */
	double factor;		/* counts shown are multiplied by this: 1 */
	uint64_t total;		/* percentages of this total if larger than
				 * the samples' sum: 0 (the sum); in units
				 * of 10^-total_decimals */
	unsigned int total_decimals;
	const char *search_color;	/* "rgb(230,0,230)" */
	bool random;		/* --random: each frame a random shade of its
				 * palette, as flamegraph.pl: false */
	bool cp;		/* --cp: a name's colour from palette_file
				 * when listed there; new names are added to
				 * it after drawing: false */
	const char *palette_file;	/* "palette.map" (flamegraph.pl's) */
	const char *nameattr;	/* --nameattr: file of per-function SVG
				 * attributes (flamegraph.pl's format): NULL */
	const char *encoding;	/* --encoding: what folded input is in, for
				 * the commands that read it: NULL (UTF-8) */
	bool color_diffusion;	/* inferno's --colordiffusion: the wider, the
				 * redder: false */
	bool truncate_left;	/* labels cut on the left, "..name_end"
				 * (inferno's default): false (flamegraph.pl:
				 * on the right) */
	const char *stroke_color;	/* CSS colour of an outline around
				 * every frame (inferno's --stroke-color):
				 * NULL (none) */
	const char *ui_color;	/* "#rrggbb" of the title, buttons and details
				 * bar (inferno's --uicolor): NULL (black) */
	bool javascript;	/* false: a static SVG, no script and no
				 * buttons (inferno's --no-javascript): true */
	const char *base[SVG_MAX_BASE];	/* inferno's --base: stacks are
				 * cut so that the leafmost of these names is
				 * their root; stacks without any are left out:
				 * none */
	size_t nbase;
};

void svg_options_init(struct svg_options *o);

/* "hot" -> SVG_PAL_HOT, ...; -1 for an unknown name (not "black"). */
int svg_parse_palette(const char *name, enum svg_palette *out);

/*
 * Write the flame graph of p to out. Returns 0; 1 when p has no samples
 * (an SVG saying so is still written, as flamegraph.pl does, and the
 * error is reported); -1 after reporting a write error.
 */
int svg_render(const struct profile *p, const struct svg_options *o,
	       FILE *out);

/*
 * Command-line options shared by every command that draws (svg, diff,
 * record): a getopt_long table terminated by a zero entry, its help text,
 * and the handler. svg_handle_option() returns 0 when it took opt, 1 when
 * opt is not a renderer option, -1 after reporting a bad value (exit with
 * EXIT_USAGE then). svg_options_check() validates option combinations
 * once all are parsed, with the same convention.
 */
extern const struct option svg_getopt_options[];
extern const char svg_options_help[];
int svg_handle_option(struct svg_options *o, int opt, const char *arg);
int svg_options_check(const struct svg_options *o);

#endif
