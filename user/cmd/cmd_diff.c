// SPDX-License-Identifier: GPL-2.0
/* flamestat diff: a differential flame graph of two folded profiles. */
#include <ctype.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/svg_cli.h"
#include "lib/util.h"
#include "profile/profile.h"
#include "render/svg.h"

static void usage(FILE *out)
{
	fprintf(out,
"Usage: flamestat diff [OPTIONS] BEFORE AFTER > diff.svg\n"
"\n"
"Compare two folded profiles. Frames are as wide as in AFTER and coloured\n"
"by how their own samples changed: red grew, blue shrank, white the same,\n"
"deeper for larger changes (flamegraph.pl's differential graph). Stacks\n"
"that vanished have no width in AFTER: swap the files and add --negate to\n"
"see them. The tooltip gives the self and total change.\n"
"\n"
"Options:\n"
"  -n, --normalize        scale BEFORE to AFTER's total first, to compare\n"
"                         shares rather than raw counts (runs of different\n"
"                         length or frequency); each stack's count is cut\n"
"                         to an integer, as difffolded.pl -n does\n"
"  -s, --strip-hex        replace hex addresses in names (0x7f3a...) with\n"
"                         0x..., so that stacks through unsymbolized code\n"
"                         match across runs (difffolded.pl -s)\n"
"      --folded           write the merged two-column folded text (BEFORE\n"
"                         AFTER counts, like difffolded.pl) instead of SVG\n"
"  -o, --output FILE      write FILE instead of standard output\n"
"  -h, --help             this text\n"
"\n"
"%s"
"\n"
"Long options also take one dash, as flamegraph.pl's: -title T, -width 800.\n"
"\n"
"Examples:\n"
"  flamestat diff before.folded after.folded > diff.svg\n"
"  flamestat diff -n base.folded patched.folded -o diff.svg\n"
"  flamestat diff --negate after.folded before.folded > shrunk.svg\n"
"  flamestat diff --folded a.folded b.folded | flamestat svg > diff.svg\n"
"\n"
"Exit status: 0 written, 1 unreadable input, no stacks or write error,\n"
"2 bad option. See flamestat-diff(1).\n",
		svg_options_help);
}

/*
 * difffolded.pl -s: s/0x[0-9a-fA-F]+/0x.../g on the stack. No frame
 * separator is a hex digit, so name by name is the same.
 */
static void strip_hex(struct strbuf *sb, const char *s, size_t len)
{
	size_t i = 0, j;

	sb_reset(sb);
	while (i < len) {
		if (i + 2 < len && s[i] == '0' && s[i + 1] == 'x' &&
		    isxdigit((unsigned char)s[i + 2])) {
			for (j = i + 2; j < len && isxdigit((unsigned char)s[j]);)
				j++;
			sb_adds(sb, "0x...");
			i = j;
		} else {
			sb_add(sb, s + i, 1);
			i++;
		}
	}
}

/*
 * Add every stack of src to dst in one of the two count columns, in
 * src's decimals (dst takes the larger of both inputs'), with -s's names.
 * Returns 0, or -1 after saying so when the column passes 64 bits in
 * those units.
 */
static int add_side(struct profile *dst, const struct profile *src,
		    const char *path, bool after, bool striphex)
{
	size_t i, j, n = profile_nnames(src);
	uint32_t *map = xreallocarray(NULL, n ? n : 1, sizeof(*map));
	uint32_t *ids = NULL;
	size_t cap = 0, rounded = 0;
	unsigned int dec = profile_decimals(src);
	struct profile_stack s;
	struct strbuf sb = { 0 };
	int ret = 0;
	bool r;

	for (i = 0; i < n; i++) {
		const char *name = profile_name(src, (uint32_t)i);
		size_t len = profile_name_len(src, (uint32_t)i);

		if (striphex) {
			strip_hex(&sb, name, len);
			name = sb.buf ? sb.buf : "";
			len = sb.len;
		}
		map[i] = profile_intern(dst, name, len);
	}
	sb_free(&sb);
	for (i = 0; i < profile_nstacks(src); i++) {
		profile_stack(src, i, &s);
		if (s.nframes > cap) {
			cap = s.nframes * 2;
			ids = xreallocarray(ids, cap, sizeof(*ids));
		}
		for (j = 0; j < s.nframes; j++)
			ids[j] = map[s.frames[j]];
		/*
		 * Each column's total is its input's, which fit; only the
		 * other input's decimals can make it pass 64 bits.
		 */
		r = false;
		if (profile_add_ids_dec(dst, ids, s.nframes,
					after ? 0 : s.count,
					after ? s.count : 0, dec, true, &r)) {
			fs_err("%s: its counts with %u decimal%s (the other input's) pass 18446744073709551615 units, the most 64 bits hold",
			       path, profile_decimals(dst),
			       profile_decimals(dst) == 1 ? "" : "s");
			ret = -1;
			break;
		}
		rounded += r;
	}
	if (rounded)
		fs_warn("%s: %zu counts rounded to %u decimals to fit 64 bits beside the other input's",
			path, rounded, profile_decimals(dst));
	free(ids);
	free(map);
	return ret;
}

/*
 * Periods against samples compare time with how often: where timers fired
 * late the periods are more. Only flamestat's header says which a file
 * has (count=); say so when the two differ.
 */
static void same_unit(const struct profile *a, const char *pa,
		      const struct profile *b, const char *pb)
{
	const struct profile_meta *ma = profile_meta(a), *mb = profile_meta(b);

	if (!(ma->present & mb->present & PROFILE_META_UNIT) ||
	    ma->unit == mb->unit)
		return;
	fs_warn("%s counts %s, %s %s: where timers fired late the periods are more than the samples; fold both recordings with the same --count",
		pa, ma->unit == PROFILE_UNIT_PERIODS ? "sampling periods" :
		"samples", pb, mb->unit == PROFILE_UNIT_PERIODS ?
		"sampling periods" : "samples");
}

static int load(struct profile *p, const char *path, const char *encoding)
{
	if (svg_read_path_enc(p, path, encoding))
		return -1;
	if (profile_is_diff(p)) {
		fs_err("%s already has two count columns: give flamestat diff two ordinary profiles, or draw it with flamestat svg",
		       path);
		return -1;
	}
	return 0;
}

int do_diff(int argc, char **argv)
{
	static const struct option own[] = {
		{ "normalize", no_argument, NULL, 'n' },
		{ "strip-hex", no_argument, NULL, 's' },
		{ "folded", no_argument, NULL, 'F' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct option *longopts = svg_getopt_merge(own);
	struct profile *before, *after, *d = NULL;
	bool normalize = false, folded = false, striphex = false;
	const char *output = NULL;
	struct svg_options o;
	struct svg_output out;
	int c, r, ret = EXIT_OK;

	svg_options_init(&o);
	while ((c = getopt_long_only(argc, argv, "nso:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			normalize = true;
			break;
		case 's':
			striphex = true;
			break;
		case 'F':
			folded = true;
			break;
		case 'o':
			output = optarg;
			break;
		case 'h':
			usage(stdout);
			free(longopts);
			return EXIT_OK;
		default:
			r = svg_handle_option(&o, c, optarg);
			if (r == 0)
				break;
			if (r > 0)
				fs_err("unknown option; 'flamestat diff --help' lists them");
			free(longopts);
			return EXIT_USAGE;
		}
	}
	free(longopts);
	if (argc - optind != 2) {
		fs_err("expected two folded files, BEFORE and AFTER; 'flamestat diff --help' shows examples");
		return EXIT_USAGE;
	}
	if (svg_options_check(&o))
		return EXIT_USAGE;
	if (o.flamechart) {
		fs_err("--flamechart needs one profile in time order; a differential graph merges two");
		return EXIT_USAGE;
	}

	before = profile_new();
	after = profile_new();
	if (load(before, argv[optind], o.encoding) ||
	    load(after, argv[optind + 1], o.encoding)) {
		ret = EXIT_FAIL;
		goto out_free;
	}
	same_unit(before, argv[optind], after, argv[optind + 1]);
	d = profile_new();
	if (add_side(d, before, argv[optind], false, striphex) ||
	    add_side(d, after, argv[optind + 1], true, striphex)) {
		ret = EXIT_FAIL;
		goto out_free;
	}
	if (normalize && profile_scale_before(d, profile_total2(d))) {
		fs_err("-n: BEFORE's counts scaled to AFTER's total pass 18446744073709551615 units, the most 64 bits hold");
		ret = EXIT_FAIL;
		goto out_free;
	}
	if (svg_output_open(&out, output)) {
		ret = EXIT_FAIL;
		goto out_free;
	}
	if (folded) {
		r = profile_write_folded(d, out.f, 0);
		if (r)
			fs_perror("cannot write the folded stacks");
	} else {
		r = svg_render(d, &o, out.f);
	}
	if (svg_output_close(&out, r >= 0) || r)
		ret = EXIT_FAIL;
out_free:
	profile_free(d);
	profile_free(after);
	profile_free(before);
	return ret;
}
