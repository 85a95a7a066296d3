// SPDX-License-Identifier: GPL-2.0
/* Input and output files for the commands that draw flame graphs. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/svg_cli.h"
#include "lib/util.h"
#include "profile/profile.h"
#include "render/svg.h"

int svg_read_path(struct profile *p, const char *path)
{
	bool std = !strcmp(path, "-");
	FILE *f = std ? stdin : fopen(path, "r");
	int ret;

	if (!f) {
		fs_perror("cannot open %s", path);
		return -1;
	}
	ret = profile_read_folded(p, f, std ? "<stdin>" : path, NULL);
	if (!std)
		fclose(f);
	return ret;
}

int svg_output_open(struct svg_output *out, const char *path)
{
	struct stat st;

	memset(out, 0, sizeof(*out));
	if (!path || !strcmp(path, "-")) {
		out->f = stdout;
		return 0;
	}
	out->path = xstrdup(path);
	/*
	 * Only a regular file (or a new one) is replaced by renaming a
	 * temporary file over it: renaming over /dev/null, a FIFO or a
	 * terminal would replace the device node itself. Those are written
	 * in place.
	 */
	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		out->f = fopen(path, "w");
		if (!out->f) {
			fs_perror("cannot open %s", path);
			free(out->path);
			return -1;
		}
		return 0;
	}
	out->tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	out->f = fopen(out->tmp, "w");
	if (!out->f) {
		fs_perror("cannot create %s", out->tmp);
		free(out->path);
		free(out->tmp);
		return -1;
	}
	return 0;
}

int svg_output_close(struct svg_output *out, bool ok)
{
	int ret = 0;

	if (!out->path) {
		if (fflush(stdout)) {
			fs_perror("cannot write standard output");
			ret = -1;
		}
		return ok ? ret : -1;
	}
	if (fclose(out->f)) {
		fs_perror("cannot write %s", out->tmp ? out->tmp : out->path);
		ok = false;
		ret = -1;
	}
	if (!out->tmp) {
		free(out->path);
		return ok ? ret : -1;
	}
	if (ok && rename(out->tmp, out->path)) {
		fs_perror("cannot rename %s to %s", out->tmp, out->path);
		ok = false;
		ret = -1;
	}
	if (!ok)
		unlink(out->tmp);
	free(out->path);
	free(out->tmp);
	return ok ? ret : -1;
}

struct option *svg_getopt_merge(const struct option *own)
{
	size_t a = 0, b = 0;
	struct option *all;

	while (own[a].name)
		a++;
	while (svg_getopt_options[b].name)
		b++;
	all = xreallocarray(NULL, a + b + 1, sizeof(*all));
	memcpy(all, own, a * sizeof(*all));
	memcpy(all + a, svg_getopt_options, (b + 1) * sizeof(*all));
	return all;
}
