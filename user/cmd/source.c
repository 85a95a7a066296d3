// SPDX-License-Identifier: GPL-2.0
/* Where a profile comes from, and the symbolization options (source.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/source.h"
#include "cmd/svg_cli.h"
#include "device/device.h"
#include "lib/util.h"

enum {
	OPT_COMM_PID = 0x200, OPT_PER_CPU_ROOT, OPT_DELIM, OPT_ADDRESSES,
	OPT_RAW_NAMES, OPT_NO_ANNOTATE, OPT_DEBUG_DIR, OPT_SYSROOT,
	OPT_PERFMAP_DIR, OPT_KALLSYMS, OPT_VERBOSE, OPT_INLINE, OPT_LINES,
	OPT_DEBUGINFOD,
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
	{ "inline", no_argument, NULL, OPT_INLINE },
	{ "lines", no_argument, NULL, OPT_LINES },
	{ "debuginfod", optional_argument, NULL, OPT_DEBUGINFOD },
	{ NULL, 0, NULL, 0 },
};

const char src_options_help[] =
"Stack options:\n"
"  --comm-pid             root frame is comm-PID instead of comm\n"
"  --cpu-root             a cpu-N frame above comm (recorded with --per-cpu)\n"
"  --delimiter            a '-' frame between user and kernel frames\n"
"  --addresses            file+0xOFFSET and 0xADDR instead of names\n"
"  --raw-names            keep C++/Rust names mangled\n"
"  --no-annotate          no _[k] (kernel), _[j] (JIT), _[i] (inline) suffixes\n"
"  --debug-dir DIR        separate debug files (default /usr/lib/debug)\n"
"  --sysroot DIR          prefix for recorded file paths\n"
"  --perfmap-dir DIR      where perf-PID.map files are (default /tmp)\n"
"  --kallsyms FILE        kernel symbols (default /proc/kallsyms)\n"
"  --inline               add the functions inlined into each user frame,\n"
"                         from DWARF (marked _[i]; slower)\n"
"  --lines                end frames DWARF covers in \" (file.c:LINE)\"\n"
"  --debuginfod[=URLS]    fetch missing debug files by build-id from\n"
"                         debuginfod servers (URLS, else $DEBUGINFOD_URLS)\n"
"  --verbose              say which files did or did not resolve, and\n"
"                         what --inline, --lines and --debuginfod cost\n";

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
	case OPT_INLINE:
		o->sym.inline_frames = true;
		return 0;
	case OPT_LINES:
		o->sym.lines = true;
		return 0;
	case OPT_DEBUGINFOD:
		if (arg && !arg[strspn(arg, " \t")]) {
			fs_err("--debuginfod=: no URL given");
			return -1;
		}
		o->sym.debuginfod = true;
		o->sym.debuginfod_urls = arg;
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

/*
 * Files replaced since the recording name no frame (elfsym.h): say so,
 * once; --verbose lists them.
 */
static void replaced_warn(const struct symbolizer *sym, bool verbose)
{
	struct symbolize_stats st;
	unsigned long n;

	symbolizer_stats(sym, &st);
	n = st.replaced_files;
	if (!n)
		return;
	fs_warn("%lu file%s replaced since the recording (another build-id, or without one another file at the path): not used for names, %s frames stay FILE+0xOFFSET%s",
		n, n == 1 ? " was" : "s were", n == 1 ? "its" : "their",
		verbose ? "" : " (--verbose names them)");
}

int src_fold_snapshot(const struct snapshot *s, bool live,
		      const struct src_opts *o, struct profile *p)
{
	struct symbolize_opts so = o->sym;
	struct fold_opts fo = o->fold;
	struct symbolizer *sym;
	char *foreign;
	int ret;

	so.local_vdso = snapshot_from_this_boot(s, live);
	foreign = live ? NULL : snapshot_foreign(s);
	so.foreign = foreign;
	fo.annotate = so.annotate;
	sym = symbolizer_new(&so);
	free(foreign);
	ret = fold_snapshot(s, sym, &fo, p);
	replaced_warn(sym, o->verbose);
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
	/* Named as a recording but not one: not read as folded text. */
	if (path_has_suffix(path, ".fstat")) {
		struct stat st;

		if (stat(path, &st))
			fs_perror("cannot open %s", path);
		else if (!st.st_size)
			fs_err("%s: empty file, not a flamestat recording", path);
		else
			fs_err("%s: not a flamestat recording (no snapshot magic at its start)",
			       path);
		return EXIT_FAIL;
	}
	return svg_read_path(p, path) ? EXIT_FAIL : EXIT_OK;
}

int src_load(const char *path, const struct src_opts *o, struct profile *p)
{
	bool took;

	return src_load_with(path, o, p, NULL, NULL, &took);
}
