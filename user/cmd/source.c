// SPDX-License-Identifier: GPL-2.0
/* Where a profile comes from, and the symbolization options (source.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/source.h"
#include "cmd/svg_cli.h"
#include "device/device.h"
#include "lib/util.h"

enum {
	OPT_COMM_PID = 0x200, OPT_PER_CPU_ROOT, OPT_DELIM, OPT_ADDRESSES,
	OPT_RAW_NAMES, OPT_NO_ANNOTATE, OPT_DEBUG_DIR, OPT_SYSROOT,
	OPT_PERFMAP_DIR, OPT_KALLSYMS, OPT_VERBOSE,
};

const struct option src_getopt_options[] = {
	{ "comm-pid", no_argument, NULL, OPT_COMM_PID },
	{ "cpu-root", no_argument, NULL, OPT_PER_CPU_ROOT },
	{ "delimiter", no_argument, NULL, OPT_DELIM },
	{ "addresses", no_argument, NULL, OPT_ADDRESSES },
	{ "raw-names", no_argument, NULL, OPT_RAW_NAMES },
	{ "no-annotate", no_argument, NULL, OPT_NO_ANNOTATE },
	{ "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
	{ "sysroot", required_argument, NULL, OPT_SYSROOT },
	{ "perfmap-dir", required_argument, NULL, OPT_PERFMAP_DIR },
	{ "kallsyms", required_argument, NULL, OPT_KALLSYMS },
	{ "verbose", no_argument, NULL, OPT_VERBOSE },
	{ NULL, 0, NULL, 0 },
};

const char src_options_help[] =
"Stack options:\n"
"  --comm-pid             root frame is comm-PID instead of comm\n"
"  --cpu-root             a cpu-N frame above comm (recorded with --per-cpu)\n"
"  --delimiter            a '-' frame between user and kernel frames\n"
"  --addresses            file+0xOFFSET and 0xADDR instead of names\n"
"  --raw-names            keep C++/Rust names mangled\n"
"  --no-annotate          no _[k] (kernel) and _[j] (JIT) suffixes\n"
"  --debug-dir DIR        separate debug files (default /usr/lib/debug)\n"
"  --sysroot DIR          prefix for recorded file paths\n"
"  --perfmap-dir DIR      where perf-PID.map files are (default /tmp)\n"
"  --kallsyms FILE        kernel symbols (default /proc/kallsyms)\n"
"  --verbose              say which files did or did not resolve\n";

void src_opts_init(struct src_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->sym.annotate = true;
}

int src_handle_option(struct src_opts *o, int opt, const char *arg)
{
	switch (opt) {
	case OPT_COMM_PID:
		o->fold.comm_pid = true;
		return 0;
	case OPT_PER_CPU_ROOT:
		o->fold.per_cpu = true;
		return 0;
	case OPT_DELIM:
		o->fold.delimiter = true;
		return 0;
	case OPT_ADDRESSES:
		o->sym.addresses = true;
		return 0;
	case OPT_RAW_NAMES:
		o->sym.raw = true;
		return 0;
	case OPT_NO_ANNOTATE:
		o->sym.annotate = false;
		return 0;
	case OPT_DEBUG_DIR:
		o->sym.debug_root = arg;
		return 0;
	case OPT_SYSROOT:
		o->sym.sysroot = arg;
		return 0;
	case OPT_PERFMAP_DIR:
		o->sym.perfmap_dir = arg;
		return 0;
	case OPT_KALLSYMS:
		o->sym.kallsyms = arg;
		return 0;
	case OPT_VERBOSE:
		o->verbose = true;
		return 0;
	}
	return 1;
}

struct option *getopt_concat(const struct option *a, const struct option *b,
			     const struct option *c)
{
	const struct option *t[3] = { a, b, c };
	struct option *all;
	size_t n = 0, i, k;

	for (k = 0; k < 3; k++)
		for (i = 0; t[k] && t[k][i].name; i++)
			n++;
	all = xcalloc(n + 1, sizeof(*all));
	n = 0;
	for (k = 0; k < 3; k++)
		for (i = 0; t[k] && t[k][i].name; i++)
			all[n++] = t[k][i];
	return all;
}

int src_fold_snapshot(const struct snapshot *s, bool live,
		      const struct src_opts *o, struct profile *p)
{
	struct symbolize_opts so = o->sym;
	struct fold_opts fo = o->fold;
	struct symbolizer *sym;
	int ret;

	so.local_vdso = snapshot_from_this_boot(s, live);
	fo.annotate = so.annotate;
	sym = symbolizer_new(&so);
	ret = fold_snapshot(s, sym, &fo, p);
	if (o->verbose)
		symbolizer_dump(sym, stderr);
	symbolizer_free(sym);
	return ret;
}

/* The snapshot to @fn, or folded into @p when there is no @fn. */
static int take(const struct snapshot *s, bool live, const struct src_opts *o,
		struct profile *p, src_snapshot_fn fn, void *ctx)
{
	if (fn)
		return fn(s, live, ctx) ? EXIT_FAIL : EXIT_OK;
	return src_fold_snapshot(s, live, o, p) ? EXIT_FAIL : EXIT_OK;
}

static int load_live(const struct src_opts *o, struct profile *p,
		     src_snapshot_fn fn, void *ctx)
{
	struct fs_dev dev;
	struct snapshot s;
	char err[256];
	size_t size;
	void *buf;
	int ret;

	ret = fs_dev_open(&dev, false);
	if (ret)
		return ret;
	if (fs_dev_snapshot(&dev, 0, &buf, &size)) {
		fs_dev_snapshot_perror("cannot take a snapshot of " FLAMESTAT_DEVICE);
		fs_dev_close(&dev);
		return EXIT_FAIL;
	}
	fs_dev_close(&dev);
	if (snapshot_parse(&s, buf, size, err, sizeof(err))) {
		fs_err("the module sent a bad snapshot: %s", err);
		return EXIT_FAIL;
	}
	ret = take(&s, true, o, p, fn, ctx);
	snapshot_free(&s);
	return ret;
}

int src_load_with(const char *path, const struct src_opts *o,
		  struct profile *p, src_snapshot_fn fn, void *ctx,
		  bool *took_snapshot)
{
	struct snapshot s;
	int ret;

	*took_snapshot = true;
	if (!path)
		return load_live(o, p, fn, ctx);
	if (strcmp(path, "-") && snapshot_file_is_raw(path)) {
		if (snapshot_load(&s, path))
			return EXIT_FAIL;
		ret = take(&s, false, o, p, fn, ctx);
		snapshot_free(&s);
		return ret;
	}
	*took_snapshot = false;
	return svg_read_path(p, path) ? EXIT_FAIL : EXIT_OK;
}

int src_load(const char *path, const struct src_opts *o, struct profile *p)
{
	bool took;

	return src_load_with(path, o, p, NULL, NULL, &took);
}
