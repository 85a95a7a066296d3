// SPDX-License-Identifier: GPL-2.0
/* The renderer's options: defaults, flamegraph.pl's option names, checks. */
#include <errno.h>
#include <iconv.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "profile/profile.h"
#include "render/svg_int.h"

void svg_options_init(struct svg_options *o)
{
	*o = (struct svg_options){
		.width = 1200,
		.frame_height = 16,
		.font_size = 12,
		.font_width = 0.59,
		.min_width = 0.1,
		.font_type = "Verdana",
		.count_name = "samples",
		.name_type = "Function:",
		.palette = SVG_PAL_HOT,
		.kernel_hue = true,
		.fluid = true,
		.factor = 1,
		.search_color = "rgb(230,0,230)",
		.palette_file = "palette.map",
		.javascript = true,
	};
}

static const char *const palette_names[] = {
	[SVG_PAL_HOT] = "hot",		[SVG_PAL_MEM] = "mem",
	[SVG_PAL_IO] = "io",		[SVG_PAL_WAKEUP] = "wakeup",
	[SVG_PAL_CHAIN] = "chain",	[SVG_PAL_JAVA] = "java",
	[SVG_PAL_JS] = "js",		[SVG_PAL_PERL] = "perl",
	[SVG_PAL_RED] = "red",		[SVG_PAL_GREEN] = "green",
	[SVG_PAL_BLUE] = "blue",	[SVG_PAL_AQUA] = "aqua",
	[SVG_PAL_YELLOW] = "yellow",	[SVG_PAL_PURPLE] = "purple",
	[SVG_PAL_ORANGE] = "orange",
};

int svg_parse_palette(const char *name, enum svg_palette *out)
{
	size_t i;

	for (i = 0; i < sizeof(palette_names) / sizeof(palette_names[0]); i++) {
		if (!strcmp(name, palette_names[i])) {
			*out = (enum svg_palette)i;
			return 0;
		}
	}
	return -1;
}

enum {
	OPT_TITLE = 0x100, OPT_SUBTITLE, OPT_WIDTH, OPT_HEIGHT, OPT_MINWIDTH,
	OPT_FONTTYPE, OPT_FONTSIZE, OPT_FONTWIDTH, OPT_COUNTNAME,
	OPT_NAMETYPE, OPT_COLORS, OPT_BGCOLORS, OPT_HASH, OPT_RANDOM, OPT_CP,
	OPT_REVERSE, OPT_INVERTED, OPT_FLAMECHART, OPT_NEGATE, OPT_NOTES,
	OPT_FACTOR, OPT_TOTAL, OPT_SEARCHCOLOR, OPT_NOFLUID, OPT_NOKERNEL,
	OPT_NAMEATTR, OPT_ENCODING, OPT_DIFFUSION, OPT_TRUNC_LEFT,
	OPT_TRUNC_RIGHT, OPT_BASE, OPT_UICOLOR, OPT_NOSORT, OPT_NOJS,
	OPT_STROKECOLOR,
};

const struct option svg_getopt_options[] = {
	{ "title", required_argument, NULL, OPT_TITLE },
	{ "subtitle", required_argument, NULL, OPT_SUBTITLE },
	{ "width", required_argument, NULL, OPT_WIDTH },
	{ "height", required_argument, NULL, OPT_HEIGHT },
	{ "minwidth", required_argument, NULL, OPT_MINWIDTH },
	{ "fonttype", required_argument, NULL, OPT_FONTTYPE },
	{ "fontsize", required_argument, NULL, OPT_FONTSIZE },
	{ "fontwidth", required_argument, NULL, OPT_FONTWIDTH },
	{ "countname", required_argument, NULL, OPT_COUNTNAME },
	{ "nametype", required_argument, NULL, OPT_NAMETYPE },
	{ "colors", required_argument, NULL, OPT_COLORS },
	{ "color", required_argument, NULL, OPT_COLORS },
	{ "bgcolors", required_argument, NULL, OPT_BGCOLORS },
	{ "hash", no_argument, NULL, OPT_HASH },
	{ "random", no_argument, NULL, OPT_RANDOM },
	{ "cp", no_argument, NULL, OPT_CP },
	{ "reverse", no_argument, NULL, OPT_REVERSE },
	{ "inverted", no_argument, NULL, OPT_INVERTED },
	{ "flamechart", no_argument, NULL, OPT_FLAMECHART },
	{ "negate", no_argument, NULL, OPT_NEGATE },
	{ "notes", required_argument, NULL, OPT_NOTES },
	{ "factor", required_argument, NULL, OPT_FACTOR },
	{ "total", required_argument, NULL, OPT_TOTAL },
	{ "search-color", required_argument, NULL, OPT_SEARCHCOLOR },
	{ "no-fluid", no_argument, NULL, OPT_NOFLUID },
	{ "no-kernel-color", no_argument, NULL, OPT_NOKERNEL },
	{ "nameattr", required_argument, NULL, OPT_NAMEATTR },
	{ "encoding", required_argument, NULL, OPT_ENCODING },
	{ "colordiffusion", no_argument, NULL, OPT_DIFFUSION },
	{ "truncate-text-left", no_argument, NULL, OPT_TRUNC_LEFT },
	{ "truncate-text-right", no_argument, NULL, OPT_TRUNC_RIGHT },
	{ "base", required_argument, NULL, OPT_BASE },
	{ "uicolor", required_argument, NULL, OPT_UICOLOR },
	{ "stroke-color", required_argument, NULL, OPT_STROKECOLOR },
	{ "no-sort", no_argument, NULL, OPT_NOSORT },
	{ "no-javascript", no_argument, NULL, OPT_NOJS },
	{ NULL, 0, NULL, 0 },
};

const char svg_options_help[] =
"Graph options (flamegraph.pl's names and defaults):\n"
"      --title TEXT       heading (default \"Flame Graph\", \"Icicle Graph\"\n"
"                         with --inverted, \"Flame Chart\" with --flamechart)\n"
"      --subtitle TEXT    second heading line\n"
"      --width PX         image width, 21 or more (default 1200; the graph\n"
"                         still fills the browser window unless --no-fluid)\n"
"      --height PX        height of one frame, 2 or more (default 16)\n"
"      --minwidth PX|N%   frames narrower than this merge into one \"(N more)\"\n"
"                         block per parent (default 0.1 px)\n"
"      --fonttype FONT    font family (default Verdana)\n"
"      --fontsize PX      font size (default 12)\n"
"      --fontwidth F      mean glyph width / font size, to fit labels (0.59)\n"
"      --countname TEXT   unit of the counts (default samples)\n"
"      --nametype TEXT    label of the details bar (default \"Function:\")\n"
"      --colors PALETTE   hot (default), mem, io, wakeup, chain, java, js,\n"
"                         perl, red, green, blue, aqua, yellow, purple, orange;\n"
"                         any other name draws black frames, as flamegraph.pl\n"
"      --bgcolors COLOR   yellow, blue, green, grey gradient or #rrggbb\n"
"                         (default: the palette's)\n"
"      --hash             similar names get similar colours\n"
"      --random           each frame a random shade of its palette, new at\n"
"                         every run (default: the name's; --hash wins)\n"
"      --cp               consistent palette: names listed in ./palette.map\n"
"                         (flamegraph.pl's NAME->rgb(R,G,B) lines) keep that\n"
"                         colour, new names are added to the file\n"
"      --colordiffusion   the wider the frame, the redder (inferno's)\n"
"      --no-kernel-color  _[k] kernel frames in the hot palette like the rest\n"
"                         (default: their own aqua hue)\n"
"      --nameattr FILE    attributes of the frames of some functions, lines\n"
"                         of NAME<TAB>title=TEXT<TAB>href=URL... (also target,\n"
"                         id, class, g_extra, a_extra), as flamegraph.pl\n"
"      --encoding ENC     the input is in ENC (iconv -l lists them), not\n"
"                         UTF-8; the SVG is UTF-8 all the same\n"
"      --reverse          merge stacks from the leaf end\n"
"      --inverted         icicle graph: root at the top\n"
"      --flamechart       keep input order on the x axis, merge only\n"
"                         neighbouring identical frames\n"
"      --base NAME        only stacks through NAME, cut so that it is their\n"
"                         root (the leafmost if several; repeat for more\n"
"                         names, up to 32)\n"
"      --negate           differential: swap red and blue\n"
"      --notes TEXT       text kept in the SVG (its <desc> element)\n"
"      --factor F         multiply the counts shown by F (default 1)\n"
"      --total N          percentages of N when larger than the sum\n"
"                         (default 0: the sum)\n"
"      --search-color C   highlight of search matches (rgb(230,0,230))\n"
"      --uicolor #RRGGBB  colour of the title, buttons and details (black)\n"
"      --stroke-color C   outline every frame in CSS colour C (default none)\n"
"      --truncate-text-left   cut long labels on the left, \"..end\" (default:\n"
"                         on the right, \"start..\", --truncate-text-right)\n"
"      --no-fluid         fixed width instead of filling the window\n"
"      --no-javascript    static SVG: no script, so no zoom, search or details\n"
"      --no-sort          accepted for inferno scripts: merging does not\n"
"                         depend on the input order\n";

/* Text that ends up inside CSS: no way out of the declaration. */
static bool css_safe(const char *s)
{
	return *s && !strpbrk(s, ";{}<>&\"\\\n\r");
}

static int bad(const char *opt, const char *arg, const char *want)
{
	fs_err("--%s '%s': %s", opt, arg, want);
	return -1;
}

/*
 * Integers as Perl's Getopt::Long takes them for flamegraph.pl ("=i"):
 * decimal, an optional '+'; no hex or octal. Fractions ("=f") likewise,
 * but decimal only here: no exponent, hex, inf or nan (parse_decimal()).
 */
static int parse_dec_float(const char *s, double *out)
{
	return parse_decimal(*s == '+' ? s + 1 : s, out);
}

static int parse_dec(const char *s, uint64_t min, uint64_t max,
		     uint64_t *out)
{
	uint64_t v = 0;

	if (*s == '+')
		s++;
	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (UINT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	if (v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static bool encoding_known(const char *enc)
{
	iconv_t cd = iconv_open("UTF-8", enc);
	bool known = cd != (iconv_t)-1;

	/* glibc's iconv_close() fails (EBADF) on -1; -fanalyzer wants it. */
	iconv_close(cd);
	return known;
}

static const char palette_list[] =
	"hot, mem, io, wakeup, chain, java, js, perl, red, green, blue, aqua, yellow, purple, orange";

int svg_handle_option(struct svg_options *o, int opt, const char *arg)
{
	unsigned int dec;
	uint64_t v;
	double d;
	size_t n;
	char num[64];

	switch (opt) {
	case OPT_TITLE:
		o->title = arg;
		break;
	case OPT_SUBTITLE:
		o->subtitle = arg;
		break;
	case OPT_WIDTH:
		/* Frames need a pixel between the 10 px margins. */
		if (parse_dec(arg, 21, 1000000, &v))
			return bad("width", arg, "expected pixels, 21 to 1000000");
		o->width = (unsigned int)v;
		break;
	case OPT_HEIGHT:
		/* A frame is drawn 1 px less high than its row. */
		if (parse_dec(arg, 2, 1000, &v))
			return bad("height", arg, "expected pixels, 2 to 1000");
		o->frame_height = (unsigned int)v;
		break;
	case OPT_MINWIDTH:
		n = strlen(arg);
		o->min_width_pct = n && arg[n - 1] == '%';
		if (o->min_width_pct)
			n--;
		if (n >= sizeof(num))
			return bad("minwidth", arg, "expected pixels or N%");
		memcpy(num, arg, n);
		num[n] = '\0';
		if (parse_dec_float(num, &d) || d < 0 ||
		    (o->min_width_pct && d > 100))
			return bad("minwidth", arg,
				   "expected pixels (0.1) or a percentage (0.5%)");
		o->min_width = d;
		break;
	case OPT_FONTTYPE:
		if (!css_safe(arg))
			return bad("fonttype", arg,
				   "expected a font family name without ;{}<>&\"\\");
		o->font_type = arg;
		break;
	case OPT_FONTSIZE:
		if (parse_dec_float(arg, &d) || d <= 0 || d > 1000)
			return bad("fontsize", arg,
				   "expected pixels, more than 0 up to 1000");
		o->font_size = d;
		break;
	case OPT_FONTWIDTH:
		if (parse_dec_float(arg, &d) || d <= 0 || d > 10)
			return bad("fontwidth", arg, "expected a ratio such as 0.59");
		o->font_width = d;
		break;
	case OPT_COUNTNAME:
		o->count_name = arg;
		break;
	case OPT_NAMETYPE:
		o->name_type = arg;
		break;
	case OPT_COLORS:
		o->palette_set = true;
		/* flamegraph.pl draws frames of no palette it knows black. */
		if (svg_parse_palette(arg, &o->palette)) {
			fs_warn("--colors '%s': no such palette, frames drawn black as flamegraph.pl does; palettes: %s",
				arg, palette_list);
			o->palette = SVG_PAL_BLACK;
		}
		break;
	case OPT_BGCOLORS:
		o->bgcolors = arg;
		break;
	case OPT_HASH:
		o->hash = true;
		break;
	case OPT_RANDOM:
		o->random = true;
		break;
	case OPT_CP:
		o->cp = true;
		break;
	case OPT_DIFFUSION:
		o->color_diffusion = true;
		break;
	case OPT_NAMEATTR:
		o->nameattr = arg;
		break;
	case OPT_ENCODING:
		if (!encoding_known(arg))
			return bad("encoding", arg,
				   "unknown encoding ('iconv -l' lists them)");
		o->encoding = arg;
		break;
	case OPT_TRUNC_LEFT:
	case OPT_TRUNC_RIGHT:
		o->truncate_left = opt == OPT_TRUNC_LEFT;
		break;
	case OPT_BASE:
		if (!*arg)
			return bad("base", arg, "expected a function name");
		if (o->nbase == SVG_MAX_BASE)
			return bad("base", arg, "at most 32 names");
		o->base[o->nbase++] = arg;
		break;
	case OPT_UICOLOR:
		if (!svg_is_hex_color(arg))
			return bad("uicolor", arg, "expected #rrggbb");
		o->ui_color = arg;
		break;
	case OPT_NOSORT:
		break;
	case OPT_NOJS:
		o->javascript = false;
		break;
	case OPT_REVERSE:
		o->reverse = true;
		break;
	case OPT_INVERTED:
		o->inverted = true;
		break;
	case OPT_FLAMECHART:
		o->flamechart = true;
		break;
	case OPT_NEGATE:
		o->negate = true;
		break;
	case OPT_NOTES:
		o->notes = arg;
		break;
	case OPT_FACTOR:
		if (parse_dec_float(arg, &d) || d <= 0)
			return bad("factor", arg, "expected a positive number");
		o->factor = d;
		break;
	case OPT_TOTAL:
		/*
		 * A count like the input's, fractions included, up to 2^64 - 1
		 * units; 0 is the sum, as in flamegraph.pl.
		 */
		if (profile_parse_count(arg, strlen(arg), &v, &dec, NULL))
			return bad("total", arg,
				   "expected a count, 0 for the samples' sum");
		o->total = v;
		o->total_decimals = dec;
		break;
	case OPT_SEARCHCOLOR:
		if (!css_safe(arg))
			return bad("search-color", arg,
				   "expected a CSS colour such as #e600e6");
		o->search_color = arg;
		break;
	case OPT_STROKECOLOR:
		if (!css_safe(arg))
			return bad("stroke-color", arg,
				   "expected a CSS colour such as #000000");
		/* inferno's "none", its default: no outline. */
		o->stroke_color = strcmp(arg, "none") ? arg : NULL;
		break;
	case OPT_NOFLUID:
		o->fluid = false;
		break;
	case OPT_NOKERNEL:
		o->kernel_hue = false;
		break;
	default:
		return 1;
	}
	return 0;
}

int svg_total_units(const struct svg_options *o, const struct profile *p,
		    uint64_t *units)
{
	unsigned int d = profile_decimals(p), od = o->total_decimals;
	uint64_t f;

	*units = 0;
	if (!o->total)
		return 0;
	if (od > d) {
		f = profile_pow10(od - d);
		*units = o->total / f + (o->total % f >= f / 2);
		return 0;
	}
	f = profile_pow10(d - od);
	if (o->total > UINT64_MAX / f)
		return -1;
	*units = o->total * f;
	return 0;
}

int svg_options_check(const struct svg_options *o)
{
	struct svg_nameattr *m;
	char a[8], b[8];

	if (svg_bg_colors(o, a, b)) {
		fs_err("--bgcolors '%s': expected yellow, blue, green, grey or #rrggbb",
		       o->bgcolors);
		return -1;
	}
	if (o->nameattr) {
		/* Read now for its errors; svg_render() reads it again. */
		m = svg_nameattr_load(o->nameattr, true);
		if (!m)
			return -1;
		svg_nameattr_free(m);
		if (!o->javascript)
			fs_warn("--nameattr with --no-javascript: the script applies the attributes, so they are left out");
	}
	if (o->nbase && o->flamechart) {
		fs_err("--base cuts and merges stacks: not with --flamechart");
		return -1;
	}
	return 0;
}
