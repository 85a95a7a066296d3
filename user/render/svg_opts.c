// SPDX-License-Identifier: GPL-2.0
/* The renderer's options: defaults, flamegraph.pl's option names, checks. */
#include <errno.h>
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
	{ NULL, 0, NULL, 0 },
};

const char svg_options_help[] =
"Graph options (flamegraph.pl's names and defaults):\n"
"      --title TEXT       heading (default \"Flame Graph\", \"Icicle Graph\"\n"
"                         with --inverted, \"Flame Chart\" with --flamechart)\n"
"      --subtitle TEXT    second heading line\n"
"      --width PX         image width (default 1200; the graph still fills\n"
"                         the browser window unless --no-fluid)\n"
"      --height PX        height of one frame (default 16)\n"
"      --minwidth PX|N%   frames narrower than this merge into one \"(N more)\"\n"
"                         block per parent (default 0.1 px)\n"
"      --fonttype FONT    font family (default Verdana)\n"
"      --fontsize PX      font size (default 12)\n"
"      --fontwidth F      mean glyph width / font size, to fit labels (0.59)\n"
"      --countname TEXT   unit of the counts (default samples)\n"
"      --nametype TEXT    label of the details bar (default \"Function:\")\n"
"      --colors PALETTE   hot (default), mem, io, wakeup, chain, java, js,\n"
"                         perl, red, green, blue, aqua, yellow, purple, orange\n"
"      --bgcolors COLOR   yellow, blue, green, grey gradient or #rrggbb\n"
"                         (default: the palette's)\n"
"      --hash             similar names get similar colours\n"
"      --no-kernel-color  _[k] kernel frames in the hot palette like the rest\n"
"                         (default: their own aqua hue)\n"
"      --reverse          merge stacks from the leaf end\n"
"      --inverted         icicle graph: root at the top\n"
"      --flamechart       keep input order on the x axis, merge only\n"
"                         neighbouring identical frames\n"
"      --negate           differential: swap red and blue\n"
"      --notes TEXT       text kept in the SVG (its <desc> element)\n"
"      --factor F         multiply the counts shown by F (default 1)\n"
"      --total N          percentages of N when larger than the sum\n"
"      --search-color C   highlight of search matches (rgb(230,0,230))\n"
"      --no-fluid         fixed width instead of filling the window\n"
"      --cp, --random     accepted for flamegraph.pl scripts and ignored:\n"
"                         colours always follow the name\n";

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
		if (parse_u64(arg, 100, 1000000, &v))
			return bad("width", arg, "expected pixels, 100 to 1000000");
		o->width = (unsigned int)v;
		break;
	case OPT_HEIGHT:
		if (parse_u64(arg, 2, 1000, &v))
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
		if (parse_double(num, &d) || d < 0 ||
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
		if (parse_double(arg, &d) || d < 1 || d > 200)
			return bad("fontsize", arg, "expected pixels, 1 to 200");
		o->font_size = d;
		break;
	case OPT_FONTWIDTH:
		if (parse_double(arg, &d) || d <= 0 || d > 10)
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
		if (svg_parse_palette(arg, &o->palette))
			return bad("colors", arg,
				   "expected hot, mem, io, wakeup, chain, java, js, perl, red, green, blue, aqua, yellow, purple or orange");
		break;
	case OPT_BGCOLORS:
		o->bgcolors = arg;
		break;
	case OPT_HASH:
		o->hash = true;
		break;
	case OPT_RANDOM:
	case OPT_CP:
		fs_warn("--%s ignored: colours are always derived from the name, the same in every graph",
			opt == OPT_CP ? "cp" : "random");
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
		if (parse_double(arg, &d) || d <= 0)
			return bad("factor", arg, "expected a positive number");
		o->factor = d;
		break;
	case OPT_TOTAL:
		/* A count like the input's, fractions included. */
		if (profile_parse_count(arg, strlen(arg), &v, &dec, NULL) ||
		    !v)
			return bad("total", arg, "expected a positive count");
		o->total = v;
		o->total_decimals = dec;
		break;
	case OPT_SEARCHCOLOR:
		if (!css_safe(arg))
			return bad("search-color", arg,
				   "expected a CSS colour such as #e600e6");
		o->search_color = arg;
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
	char a[8], b[8];

	if (svg_bg_colors(o, a, b)) {
		fs_err("--bgcolors '%s': expected yellow, blue, green, grey or #rrggbb",
		       o->bgcolors);
		return -1;
	}
	return 0;
}
