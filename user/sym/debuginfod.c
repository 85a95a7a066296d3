// SPDX-License-Identifier: GPL-2.0
/* A debuginfod client over libdebuginfod, loaded only when asked for. */
#include "sym/debuginfod.h"

#include "lib/util.h"

#include <dlfcn.h>
#include <elfutils/debuginfod.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A download is "long", and shown, after this many seconds. */
#define PROGRESS_AFTER	1.0
/* Build-ids remembered as asked (a miss is not asked again). */
#define MAX_ASKED	4096

struct debuginfod {
	char *urls;			/* NULL: $DEBUGINFOD_URLS */
	bool tried;			/* library loaded, client begun */
	bool off;			/* no library, no servers, or failed */
	void *lib;			/* dlopen() handle */
	debuginfod_client *client;
	__typeof__(debuginfod_begin) *begin;
	__typeof__(debuginfod_end) *end;
	__typeof__(debuginfod_find_debuginfo) *find;
	__typeof__(debuginfod_set_progressfn) *set_progressfn;
	/* The fetch under way, for the progress function. */
	const char *hex;
	double start, last;
	bool shown, tty;
	/* Build-ids asked about, as hex strings. */
	char **asked;
	size_t nr_asked;
	unsigned long found, missing, failed;
	double seconds;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct debuginfod *dinfod_new(const char *urls)
{
	struct debuginfod *d = xcalloc(1, sizeof(*d));

	d->urls = urls ? xstrdup(urls) : NULL;
	return d;
}

void dinfod_free(struct debuginfod *d)
{
	if (!d)
		return;
	if (d->client)
		d->end(d->client);
	/* libdebuginfod leaves curl's global state set up: never dlclose. */
	for (size_t i = 0; i < d->nr_asked; i++)
		free(d->asked[i]);
	free(d->asked);
	free(d->urls);
	free(d);
}

/* The client whose fetch is under way (the progress function's). */
static struct debuginfod *fetching;

static void mib(char *buf, size_t size, long bytes)
{
	snprintf(buf, size, "%.1f MiB", (double)bytes / (1024.0 * 1024.0));
}

/*
 * Called by libdebuginfod while it waits and downloads: a is the bytes so
 * far, b the total when the server said it (else 0 or less). Returns 0:
 * go on (Ctrl-C still ends the run).
 */
static int progress(debuginfod_client *client, long a, long b)
{
	struct debuginfod *d = fetching;
	char got[32], total[32];
	double t = now();

	(void)client;
	if (!d || t - d->start < PROGRESS_AFTER)
		return 0;
	if (!d->tty) {
		if (!d->shown)
			fs_note("debuginfod: downloading the debug file of build-id %s ...",
				d->hex);
		d->shown = true;
		return 0;
	}
	if (d->shown && t - d->last < 0.2)
		return 0;
	d->shown = true;
	d->last = t;
	mib(got, sizeof(got), a > 0 ? a : 0);
	if (b > 0)
		mib(total, sizeof(total), b);
	fprintf(stderr, "\r%s: debuginfod: build-id %.16s...: %s%s%s, %.0f s\033[K",
		fs_progname, d->hex, got, b > 0 ? " of " : "",
		b > 0 ? total : "", t - d->start);
	fflush(stderr);
	return 0;
}

/* dlopen() libdebuginfod and begin a client; false (said once) if not. */
static bool load(struct debuginfod *d)
{
	const char *urls;

	d->tried = true;
	if (d->urls && setenv(DEBUGINFOD_URLS_ENV_VAR, d->urls, 1))
		return false;
	urls = getenv(DEBUGINFOD_URLS_ENV_VAR);
	if (!urls || !urls[strspn(urls, " \t")]) {
		fs_warn("--debuginfod: no server to ask: DEBUGINFOD_URLS is not set (or give --debuginfod=URL); no debug file is fetched");
		return false;
	}
	d->lib = dlopen(DEBUGINFOD_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!d->lib) {
		fs_warn("--debuginfod: cannot load %s (%s): install libdebuginfod1; no debug file is fetched",
			DEBUGINFOD_SONAME, dlerror());
		return false;
	}
	*(void **)&d->begin = dlsym(d->lib, "debuginfod_begin");
	*(void **)&d->end = dlsym(d->lib, "debuginfod_end");
	*(void **)&d->find = dlsym(d->lib, "debuginfod_find_debuginfo");
	*(void **)&d->set_progressfn = dlsym(d->lib,
					     "debuginfod_set_progressfn");
	if (!d->begin || !d->end || !d->find || !d->set_progressfn) {
		fs_warn("--debuginfod: %s lacks the functions flamestat needs; no debug file is fetched",
			DEBUGINFOD_SONAME);
		return false;
	}
	d->client = d->begin();
	if (!d->client) {
		fs_warn("--debuginfod: cannot start a debuginfod client; no debug file is fetched");
		return false;
	}
	d->set_progressfn(d->client, progress);
	d->tty = isatty(STDERR_FILENO);
	return true;
}

/* True the first time a build-id is seen (then it is remembered). */
static bool first_ask(struct debuginfod *d, const char *hex)
{
	for (size_t i = 0; i < d->nr_asked; i++)
		if (!strcmp(d->asked[i], hex))
			return false;
	if (d->nr_asked < MAX_ASKED) {
		d->asked = xreallocarray(d->asked, d->nr_asked + 1,
					 sizeof(*d->asked));
		d->asked[d->nr_asked++] = xstrdup(hex);
	}
	return true;
}

char *dinfod_find_debuginfo(struct debuginfod *d, const unsigned char *bid,
			    size_t len)
{
	static const char digits[] = "0123456789abcdef";
	char hex[2 * 64 + 1], *path = NULL;
	double t;
	int fd;

	if (!d || d->off || !len || len > 64)
		return NULL;
	if (!d->tried && !load(d)) {
		d->off = true;
		return NULL;
	}
	for (size_t i = 0; i < len; i++) {
		hex[2 * i] = digits[bid[i] >> 4];
		hex[2 * i + 1] = digits[bid[i] & 15];
	}
	hex[2 * len] = '\0';
	if (!first_ask(d, hex))
		return NULL;
	d->hex = hex;
	d->start = now();
	d->shown = false;
	fetching = d;
	fd = d->find(d->client, bid, (int)len, &path);
	fetching = NULL;
	t = now();
	d->seconds += t - d->start;
	if (d->shown && d->tty)
		fprintf(stderr, "\r%s: debuginfod: build-id %.16s...: %s in %.1f s\033[K\n",
			fs_progname, hex, fd >= 0 ? "done" : "failed",
			t - d->start);
	if (fd >= 0) {
		close(fd);
		d->found++;
		return path;	/* malloc'd by libdebuginfod */
	}
	free(path);
	if (fd == -ENOENT) {
		d->missing++;	/* the servers answered: they do not have it */
		return NULL;
	}
	d->failed++;
	d->off = true;
	fs_warn("debuginfod: cannot fetch the debug file of build-id %s from %s: %s; not asking the servers again in this run",
		hex, getenv(DEBUGINFOD_URLS_ENV_VAR), strerror(-fd));
	return NULL;
}

void dinfod_dump(const struct debuginfod *d, FILE *out)
{
	if (!d)
		return;
	fprintf(out, "debuginfod: %lu debug files fetched or cached, %lu not on the servers, %lu failed, %.3f s%s\n",
		d->found, d->missing, d->failed, d->seconds,
		d->off && d->failed ? " (stopped after a failure)" :
		d->off ? " (not used: no server or no library)" : "");
}
