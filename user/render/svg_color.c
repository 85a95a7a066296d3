// SPDX-License-Identifier: GPL-2.0
/* Frame colours: flamegraph.pl's palettes, picked by a hash of the name. */
#include <math.h>
#include <string.h>

#include "render/svg_int.h"

/*
 * Colours depend on the name only, never on order or chance, so the same
 * function has the same colour in every graph and output is reproducible.
 */
#define Q1 32			/* shades of the main component */
#define Q23 4			/* shades of the two others */
#define PAL_GREY 15		/* pseudo palette of "-" and "--" frames */

static uint64_t fnv1a(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
	/* FNV's low bits mix poorly; fold the high half in. */
	return h ^ (h >> 29) ^ (h >> 47);
}

/*
 * --hash: the first characters decide, each 32 times less than the one
 * before, so names sharing a prefix get neighbouring colours. A module
 * prefix ("libc.so`") is skipped as flamegraph.pl does.
 */
static double prefix_weight(const char *s, size_t len, bool backwards)
{
	const char *tick = backwards ? NULL : memchr(s, '`', len);
	double v = 0, scale = 1.0 / 32;
	size_t i, k;

	if (tick) {
		len -= (size_t)(tick + 1 - s);
		s = tick + 1;
	}
	for (k = 0; k < 3 && k < len; k++) {
		i = backwards ? len - 1 - k : k;
		v += scale * ((unsigned char)s[i] % 32);
		scale /= 32;
	}
	return v;
}

static unsigned int quantize(double v, unsigned int levels)
{
	unsigned int q = (unsigned int)(v * levels);

	return q < levels ? q : levels - 1;
}

static struct rgb rgb(int r, int g, int b)
{
	struct rgb c = { (uint8_t)r, (uint8_t)g, (uint8_t)b };

	return c;
}

static bool ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len >= n && !memcmp(s + len - n, suffix, n);
}

static bool contains(const char *s, size_t len, const char *needle)
{
	return memmem(s, len, needle, strlen(needle)) != NULL;
}

size_t svg_strip_annotation(const char *name, size_t len)
{
	if (len >= 4 && name[len - 4] == '_' && name[len - 3] == '[' &&
	    name[len - 1] == ']' && strchr("kijw", name[len - 2]))
		return len - 4;
	return len;
}

/* Java names: "java/lang/String.equals", "Ljava/...", with a package. */
static bool java_package(const char *s, size_t len)
{
	static const char *const pkgs[] = {
		"java/", "javax/", "jdk/", "net/", "org/", "com/", "io/",
		"sun/",
	};
	size_t i, n;

	if (len && s[0] == 'L') {
		s++;
		len--;
	}
	for (i = 0; i < sizeof(pkgs) / sizeof(pkgs[0]); i++) {
		n = strlen(pkgs[i]);
		if (len >= n && !memcmp(s, pkgs[i], n))
			return true;
	}
	return false;
}

/* The multi-language palettes pick one flat palette per frame. */
static enum svg_palette pick_flat(enum svg_palette pal, const char *s,
				  size_t len, bool waker)
{
	switch (pal) {
	case SVG_PAL_JAVA:
		if (ends_with(s, len, "_[j]"))
			return SVG_PAL_GREEN;
		if (ends_with(s, len, "_[i]"))
			return SVG_PAL_AQUA;
		if (java_package(s, len) || contains(s, len, ":::"))
			return SVG_PAL_GREEN;
		if (contains(s, len, "::"))
			return SVG_PAL_YELLOW;
		if (ends_with(s, len, "_[k]"))
			return SVG_PAL_ORANGE;
		return SVG_PAL_RED;
	case SVG_PAL_PERL:
		if (contains(s, len, "::"))
			return SVG_PAL_YELLOW;
		if (contains(s, len, "Perl") || contains(s, len, ".pl"))
			return SVG_PAL_GREEN;
		if (ends_with(s, len, "_[k]"))
			return SVG_PAL_ORANGE;
		return SVG_PAL_RED;
	case SVG_PAL_JS:
		if (ends_with(s, len, "_[j]"))
			return memchr(s, '/', len) ? SVG_PAL_GREEN
						   : SVG_PAL_AQUA;
		if (contains(s, len, "::"))
			return SVG_PAL_YELLOW;
		if (memchr(s, '/', len) && contains(s, len, ".js"))
			return SVG_PAL_GREEN;
		if (memchr(s, ':', len))
			return SVG_PAL_AQUA;
		if (len == 1 && s[0] == ' ')
			return SVG_PAL_GREEN;	/* missing symbol */
		if (contains(s, len, "_[k]"))
			return SVG_PAL_ORANGE;
		return SVG_PAL_RED;
	case SVG_PAL_WAKEUP:
		return SVG_PAL_AQUA;
	case SVG_PAL_CHAIN:
		return waker || contains(s, len, "_[w]") ? SVG_PAL_AQUA
							 : SVG_PAL_BLUE;
	default:
		return pal;
	}
}

/*
 * Colours are quantised into classes, (palette, 32 x 4 x 4 shades), so
 * that frames share CSS rules and the SVG stays small; which shade a name
 * gets still depends on the name alone.
 */
static uint32_t color_class(const struct svg_options *o, const char *name,
			    size_t len, bool waker, bool random, uint64_t r)
{
	enum svg_palette pal = o->palette;
	unsigned int q1, q2, q3;
	uint64_t h;

	if (len == 1 && name[0] == '-')
		return PAL_GREY << 9;	/* stack separators */
	if (len == 2 && !memcmp(name, "--", 2))
		return PAL_GREY << 9 | 1u << 4;
	if (pal == SVG_PAL_HOT && o->kernel_hue && ends_with(name, len, "_[k]"))
		pal = SVG_PAL_AQUA;	/* flamestat: kernel stands out */
	pal = pick_flat(pal, name, len, waker);
	if (o->hash) {
		q1 = quantize(prefix_weight(name, len, false), Q1);
		q2 = q3 = quantize(prefix_weight(name, len, true), Q23);
	} else {
		h = random ? r : fnv1a(name, len);
		q1 = (unsigned int)(h % Q1);
		q2 = (unsigned int)((h >> 8) % Q23);
		q3 = (unsigned int)((h >> 16) % Q23);
	}
	/* Flat palettes use one component: fewer classes. */
	if (pal != SVG_PAL_HOT && pal != SVG_PAL_MEM && pal != SVG_PAL_IO)
		q2 = q3 = 0;
	if (pal == SVG_PAL_BLACK)
		q1 = 0;
	return (uint32_t)pal << 9 | q1 << 4 | q2 << 2 | q3;
}

uint32_t svg_color_class(const struct svg_options *o, const char *name,
			 size_t len, bool waker)
{
	return color_class(o, name, len, waker, false, 0);
}

uint32_t svg_color_class_random(const struct svg_options *o,
				const char *name, size_t len, bool waker,
				uint64_t r)
{
	return color_class(o, name, len, waker, !o->hash, r);
}

struct rgb svg_class_color(uint32_t cls)
{
	unsigned int pal = cls >> 9;
	double v1 = (((cls >> 4) & 31) + 0.5) / Q1;
	double v2 = (((cls >> 2) & 3) + 0.5) / Q23;
	double v3 = ((cls & 3) + 0.5) / Q23;

	switch (pal) {
	case PAL_GREY:
		return (cls >> 4) & 1 ? rgb(160, 160, 160) : rgb(200, 200, 200);
	case SVG_PAL_HOT:
		return rgb(205 + (int)(50 * v3), (int)(230 * v1),
			   (int)(55 * v2));
	case SVG_PAL_MEM:
		return rgb(0, 190 + (int)(50 * v2), (int)(210 * v1));
	case SVG_PAL_IO:
		return rgb(80 + (int)(60 * v1), 80 + (int)(60 * v1),
			   190 + (int)(55 * v2));
	case SVG_PAL_RED:
		return rgb(200 + (int)(55 * v1), 50 + (int)(80 * v1),
			   50 + (int)(80 * v1));
	case SVG_PAL_GREEN:
		return rgb(50 + (int)(60 * v1), 200 + (int)(55 * v1),
			   50 + (int)(60 * v1));
	case SVG_PAL_BLUE:
		return rgb(80 + (int)(60 * v1), 80 + (int)(60 * v1),
			   205 + (int)(50 * v1));
	case SVG_PAL_YELLOW:
		return rgb(175 + (int)(55 * v1), 175 + (int)(55 * v1),
			   50 + (int)(20 * v1));
	case SVG_PAL_PURPLE:
		return rgb(190 + (int)(65 * v1), 80 + (int)(60 * v1),
			   190 + (int)(65 * v1));
	case SVG_PAL_AQUA:
		return rgb(50 + (int)(60 * v1), 165 + (int)(55 * v1),
			   165 + (int)(55 * v1));
	case SVG_PAL_ORANGE:
		return rgb(190 + (int)(65 * v1), 90 + (int)(65 * v1), 0);
	case SVG_PAL_BLACK:	/* flamegraph.pl's colour for no palette */
	default:
		return rgb(0, 0, 0);
	}
}

int svg_diff_level(int64_t delta, uint64_t max_delta, bool negate)
{
	double f;
	int level;

	if (negate)
		delta = -delta;
	if (!delta || !max_delta)
		return 0;
	f = (double)(delta < 0 ? -delta : delta) / (double)max_delta;
	/* Any change shows, however small: at least level 1. */
	level = 1 + (int)(f * (SVG_DIFF_LEVELS - 1) + 0.5);
	if (level > SVG_DIFF_LEVELS)
		level = SVG_DIFF_LEVELS;
	return delta > 0 ? level : -level;
}

struct rgb svg_diff_level_color(int level)
{
	int a = level < 0 ? -level : level;
	/* The larger the change, the deeper the colour. */
	int v = 210 - 210 * a / SVG_DIFF_LEVELS;

	if (!level)
		return rgb(255, 255, 255);
	return level > 0 ? rgb(255, v, v) : rgb(v, v, 255);
}

int svg_diffusion_level(uint64_t width, uint64_t total)
{
	int level;

	if (!total)
		return 0;
	level = (int)(sqrt((double)width / (double)total) *
		      SVG_DIFFUSION_LEVELS);
	return level > SVG_DIFFUSION_LEVELS ? SVG_DIFFUSION_LEVELS : level;
}

struct rgb svg_diffusion_color(int level)
{
	int c = 100 + 150 * (SVG_DIFFUSION_LEVELS - level) /
		SVG_DIFFUSION_LEVELS;

	return level ? rgb(255, c, c) : rgb(250, 250, 250);
}

bool svg_is_hex_color(const char *s)
{
	size_t i;

	if (strlen(s) != 7 || s[0] != '#')
		return false;
	for (i = 1; i < 7; i++)
		if (!strchr("0123456789abcdefABCDEF", s[i]))
			return false;
	return true;
}

int svg_bg_colors(const struct svg_options *o, char top[8], char bottom[8])
{
	const char *bg = o->bgcolors;
	const char *t, *b;

	if (!bg) {
		switch (o->palette) {
		case SVG_PAL_MEM:
			bg = "green";
			break;
		case SVG_PAL_IO:
		case SVG_PAL_WAKEUP:
		case SVG_PAL_CHAIN:
			bg = "blue";
			break;
		case SVG_PAL_RED:
		case SVG_PAL_GREEN:
		case SVG_PAL_BLUE:
		case SVG_PAL_AQUA:
		case SVG_PAL_YELLOW:
		case SVG_PAL_PURPLE:
		case SVG_PAL_ORANGE:
			bg = "grey";
			break;
		default:
			bg = "yellow";
		}
	}
	if (!strcmp(bg, "yellow")) {
		t = "#eeeeee";
		b = "#eeeeb0";
	} else if (!strcmp(bg, "blue")) {
		t = "#eeeeee";
		b = "#e0e0ff";
	} else if (!strcmp(bg, "green")) {
		t = "#eef2ee";
		b = "#e0ffe0";
	} else if (!strcmp(bg, "grey") || !strcmp(bg, "gray")) {
		t = "#f8f8f8";
		b = "#e8e8e8";
	} else if (svg_is_hex_color(bg)) {
		t = b = bg;
	} else {
		return -1;
	}
	memcpy(top, t, 8);
	memcpy(bottom, b, 8);
	return 0;
}
