// SPDX-License-Identifier: GPL-2.0
/*
 * flamestat record --interval (see record_interval.h): one profile per
 * interval into a directory, each written whole under a temporary name and
 * renamed into place, the oldest of them removed past --max-files.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/record_interval.h"
#include "lib/util.h"
#include "profile/profile.h"
#include "profile/snapshot.h"

enum {
	OPT_INTERVAL = 0x380, OPT_MAX_FILES,
};

const struct option interval_getopt_options[] = {
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "max-files", required_argument, NULL, OPT_MAX_FILES },
	{ NULL, 0, NULL, 0 },
};

const char interval_options_help[] =
"Continuous recording:\n"
"      --interval SECS    one profile every SECS seconds (1..86400) into the\n"
"                         directory -o DIR, named flamestat-TIME.EXT (TIME: the\n"
"                         interval's start, UTC, e.g. 20261126T104512Z; EXT\n"
"                         from --format, default folded); each sample is in\n"
"                         exactly one file; Ctrl-C or SIGTERM writes the last\n"
"                         interval and exits 0\n"
"      --max-files N      keep the newest N flamestat-TIME.EXT files of DIR,\n"
"                         removing older ones (default 100; 0: keep all)\n";

/* "flamestat-" "20261126T104512Z": the part of a name that sorts by time. */
#define STAMP_PREFIX	"flamestat-"
#define STAMP_LEN	(sizeof(STAMP_PREFIX) - 1 + 16)

void interval_init(struct rec_interval *iv)
{
	memset(iv, 0, sizeof(*iv));
	iv->max_files = INTERVAL_DEFAULT_MAX_FILES;
	iv->dirfd = -1;
}

int interval_handle_option(struct rec_interval *iv, int opt, const char *arg)
{
	uint64_t v;
	double d;

	switch (opt) {
	case OPT_INTERVAL:
		if (parse_double(arg, &d) || !(d >= INTERVAL_MIN_SECS) ||
		    d > INTERVAL_MAX_SECS) {
			fs_err("--interval '%s': expected a number of seconds from %d to %d",
			       arg, INTERVAL_MIN_SECS, INTERVAL_MAX_SECS);
			return -1;
		}
		iv->secs = d;
		return 0;
	case OPT_MAX_FILES:
		if (parse_u64(arg, 0, INTERVAL_MAX_FILES, &v)) {
			fs_err("--max-files '%s': expected a number of files, 0..%d (0: no limit)",
			       arg, INTERVAL_MAX_FILES);
			return -1;
		}
		iv->max_files = (unsigned int)v;
		iv->max_files_given = true;
		return 0;
	}
	return 1;
}

int interval_check_options(struct rec_interval *iv, const struct out_opts *out,
			   const char *raw_path)
{
	if (!iv->secs) {
		if (iv->max_files_given) {
			fs_err("--max-files goes with --interval");
			return -1;
		}
		return 0;
	}
	if (!out->path || !strcmp(out->path, "-")) {
		fs_err("--interval writes one file per interval into a directory: name it with -o DIR");
		return -1;
	}
	if (raw_path) {
		fs_err("--raw with --interval: use --format raw for one raw recording per interval");
		return -1;
	}
	return 0;
}

/*
 * Creates a new temporary file in the directory, never one that exists
 * (O_EXCL); its name is in @name. Returns the descriptor or -1 (errno).
 */
static int tmp_create(struct rec_interval *iv, char *name, size_t size)
{
	int fd, tries;

	for (tries = 0; tries < 100; tries++) {
		snprintf(name, size, ".flamestat-%ld-%u.tmp", (long)getpid(),
			 iv->tmp_seq++);
		fd = openat(iv->dirfd, name,
			    O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1;
}

int interval_open(struct rec_interval *iv, const struct out_opts *out,
		  const struct src_opts *src, bool quiet)
{
	char tmp[64];
	int fd;

	if (!iv->secs)
		return 0;
	iv->dir = out->path;
	iv->out = out;
	iv->src = src;
	iv->quiet = quiet;
	iv->format = out->format == OUT_AUTO ? OUT_FOLDED : out->format;
	iv->dirfd = open(iv->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (iv->dirfd < 0) {
		if (errno == ENOENT || errno == ENOTDIR) {
			fs_err("-o '%s': %s: --interval writes its files into an existing directory",
			       iv->dir, errno == ENOENT ? "no such directory" :
			       "not a directory");
			return EXIT_USAGE;
		}
		fs_perror("-o '%s': cannot open the directory", iv->dir);
		return EXIT_FAIL;
	}
	/* What each interval will do: create a file there, here removed. */
	fd = tmp_create(iv, tmp, sizeof(tmp));
	if (fd < 0) {
		fs_perror("-o '%s': cannot create files in the directory",
			  iv->dir);
		interval_close(iv);
		return EXIT_FAIL;
	}
	close(fd);
	unlinkat(iv->dirfd, tmp, 0);
	return 0;
}

void interval_begin(struct rec_interval *iv, double now)
{
	if (!iv->secs)
		return;
	clock_gettime(CLOCK_REALTIME, &iv->began);
	iv->next = now + iv->secs;
}

double interval_wait(const struct rec_interval *iv, double now, double wait)
{
	double left;

	if (!iv->secs)
		return wait;
	left = iv->next > now ? iv->next - now : 0;
	return wait < 0 || left < wait ? left : wait;
}

static void stats_add(struct flamestat_stats *t, const struct flamestat_stats *s)
{
	int i;

	t->samples += s->samples;
	t->recorded += s->recorded;
	for (i = 0; i < FLAMESTAT_MAX_DROPS; i++)
		t->dropped[i] += s->dropped[i];
	t->overruns += s->overruns;
	t->kernel_truncated += s->kernel_truncated;
	t->user_truncated += s->user_truncated;
	t->user_fault += s->user_fault;
	t->user_compat += s->user_compat;
	t->idle_irq += s->idle_irq;
	t->unmapped_procs += s->unmapped_procs;
	/* The stacks written, the same stack once per file. */
	t->stacks += s->stacks;
	t->cost_ns += s->cost_ns;
	if (s->cost_max_ns > t->cost_max_ns)
		t->cost_max_ns = s->cost_max_ns;
	t->running_ns += s->running_ns;
	t->state = s->state;
	t->nr_cpus = s->nr_cpus;
	t->unwind_table += s->unwind_table;
	t->unwind_mixed += s->unwind_mixed;
	t->unwind_fp += s->unwind_fp;
	for (i = 0; i < FLAMESTAT_MAX_UNWIND_STOPS; i++)
		t->unwind_stop[i] += s->unwind_stop[i];
	/* What the module holds now, not counts: the latest. */
	t->unwind_tables = s->unwind_tables;
	t->unwind_bytes = s->unwind_bytes;
	t->unwind_uncached = s->unwind_uncached;
	memcpy(t->unwind_failed, s->unwind_failed, sizeof(t->unwind_failed));
	t->offcpu_blocks += s->offcpu_blocks;
	t->offcpu_recorded += s->offcpu_recorded;
	for (i = 0; i < FLAMESTAT_MAX_OFFDROPS; i++)
		t->offcpu_dropped[i] += s->offcpu_dropped[i];
	t->offcpu_ns += s->offcpu_ns;
	t->offcpu_tasks = s->offcpu_tasks;
	t->offcpu_tasks_max = s->offcpu_tasks_max;
}

/*
 * @name is one of ours: flamestat-YYYYMMDDTHHMMSSZ[_N].EXT, EXT this run's.
 * *seq: N, 0 without.
 */
static bool our_file(const char *name, const char *ext, unsigned long *seq)
{
	const char *p = name + sizeof(STAMP_PREFIX) - 1;
	int i;

	if (strncmp(name, STAMP_PREFIX, sizeof(STAMP_PREFIX) - 1))
		return false;
	for (i = 0; i < 16; i++) {
		char c = p[i], want = i == 8 ? 'T' : i == 15 ? 'Z' : 0;

		if (want ? c != want : c < '0' || c > '9')
			return false;
	}
	p += 16;
	*seq = 0;
	if (*p == '_') {
		char *end;

		if (p[1] < '1' || p[1] > '9')
			return false;
		*seq = strtoul(p + 1, &end, 10);
		p = end;
	}
	return *p == '.' && !strcmp(p + 1, ext);
}

struct our_entry {
	char *name;
	unsigned long seq;
};

/* Oldest first: the time in the name, then the number after it. */
static int our_cmp(const void *a, const void *b)
{
	const struct our_entry *x = a, *y = b;
	int c = strncmp(x->name, y->name, STAMP_LEN);

	if (c)
		return c;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * Removes the oldest of our files past max_files. Only regular files named
 * as this run names them; anything else in the directory stays.
 */
static void rotate(struct rec_interval *iv)
{
	const char *ext = out_format_ext(iv->format);
	struct our_entry *v = NULL;
	size_t n = 0, cap = 0, i;
	struct dirent *de;
	struct stat st;
	DIR *d;
	int fd;

	if (!iv->max_files)
		return;
	fd = openat(iv->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		fs_perror("cannot list %s to remove old files", iv->dir);
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d))) {
		unsigned long seq;

		if (!our_file(de->d_name, ext, &seq) ||
		    fstatat(iv->dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(st.st_mode))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			v = xreallocarray(v, cap, sizeof(*v));
		}
		v[n].name = xstrdup(de->d_name);
		v[n++].seq = seq;
	}
	closedir(d);
	if (v && n > iv->max_files) {
		qsort(v, n, sizeof(*v), our_cmp);
		for (i = 0; i < n - iv->max_files; i++)
			if (unlinkat(iv->dirfd, v[i].name, 0) && errno != ENOENT)
				fs_perror("cannot remove %s/%s", iv->dir,
					  v[i].name);
	}
	for (i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

/*
 * Moves @tmp to the interval's name, never over an existing file: a
 * second file of the same second (the clock set back) gets "_1", "_2", ...
 * after the time, which sort after the first. The name given is left in
 * @name.
 */
static int publish(struct rec_interval *iv, const char *tmp, char *name,
		   size_t size)
{
	const char *ext = out_format_ext(iv->format);
	char stamp[32];
	struct tm tm;
	struct stat st;
	unsigned int seq;

	gmtime_r(&iv->began.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	for (seq = 0; seq < 1000; seq++) {
		if (seq)
			snprintf(name, size, STAMP_PREFIX "%s_%u.%s", stamp,
				 seq, ext);
		else
			snprintf(name, size, STAMP_PREFIX "%s.%s", stamp, ext);
		if (!renameat2(iv->dirfd, tmp, iv->dirfd, name,
			       RENAME_NOREPLACE))
			return 0;
		if (errno == EEXIST)
			continue;
		if (errno != EINVAL && errno != ENOSYS)
			return -1;
		/* A file system without RENAME_NOREPLACE: look, then rename. */
		if (!fstatat(iv->dirfd, name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		if (errno != ENOENT)
			return -1;
		return renameat(iv->dirfd, tmp, iv->dirfd, name);
	}
	errno = EEXIST;
	return -1;
}

/* Writes @s (the interval's samples) as one file; 0 or -1 after reporting. */
static int write_interval(struct rec_interval *iv, const struct snapshot *s)
{
	struct out_opts o = *iv->out;
	char tmp[64], name[128], shown[4200];
	struct profile *p = NULL;
	FILE *f;
	int fd, err = 0;

	fd = tmp_create(iv, tmp, sizeof(tmp));
	if (fd < 0) {
		fs_perror("cannot create a file in %s", iv->dir);
		return -1;
	}
	snprintf(shown, sizeof(shown), "%s/%s", iv->dir, tmp);
	f = fdopen(fd, "w");
	if (!f) {
		fs_perror("cannot write %s", shown);
		close(fd);
		unlinkat(iv->dirfd, tmp, 0);
		return -1;
	}
	if (iv->format == OUT_RAW) {
		if (snapshot_write(s, f)) {
			fs_perror("cannot write %s", shown);
			err = -1;
		}
	} else {
		o.format = iv->format;
		o.path = shown;
		o.stream = f;
		/* The note on what the counts are: once is enough. */
		o.quiet = iv->quiet || iv->files;
		if (iv->format == OUT_PPROF) {
			/* From the snapshot itself, as record writes it. */
			if (out_write_pprof_snapshot(s, true, iv->src, &o))
				err = -1;
		} else {
			p = profile_new();
			if (src_fold_snapshot(s, true, iv->src, p) ||
			    out_write(p, &o))
				err = -1;
			profile_free(p);
		}
	}
	/* On disk before it has its name, so a crash leaves no torn file. */
	if (!err && fsync(fd)) {
		fs_perror("cannot write %s", shown);
		err = -1;
	}
	if (fclose(f) && !err) {
		fs_perror("cannot write %s", shown);
		err = -1;
	}
	if (!err && publish(iv, tmp, name, sizeof(name))) {
		fs_perror("cannot rename %s to a flamestat-TIME name", shown);
		err = -1;
	}
	if (err) {
		unlinkat(iv->dirfd, tmp, 0);
		return -1;
	}
	iv->files++;
	if (!iv->quiet) {
		const struct flamestat_stats *st = &s->hdr.stats;

		if (isatty(STDERR_FILENO))
			fputs("\r\033[K", stderr);
		fprintf(stderr, "%s: wrote %s/%s: %llu samples recorded, %llu periods, %.3f s\n",
			fs_progname, iv->dir, name,
			(unsigned long long)st->recorded,
			(unsigned long long)(st->samples + st->overruns),
			(double)st->running_ns / 1e9);
	}
	rotate(iv);
	return 0;
}

/*
 * Ends the interval: its samples leave the module in one snapshot that
 * empties the module's table as it copies it (FLAMESTAT_SNAP_CLEAR), so
 * each sample is in this interval or the next, never both, never neither.
 */
static int cut(struct rec_interval *iv, struct fs_dev *dev)
{
	struct timespec at;
	struct snapshot s;
	char err[256];
	size_t size;
	void *buf;
	int ret;

	clock_gettime(CLOCK_REALTIME, &at);
	if (fs_dev_snapshot(dev, FLAMESTAT_SNAP_CLEAR, &buf, &size)) {
		if (errno == EBUSY) {
			fs_err("another session took the profiler over (root's 'flamestat record --force'): stopping after %lu files",
			       iv->files);
			iv->status = EXIT_BUSY;
		} else {
			fs_dev_snapshot_perror("cannot read the samples");
			iv->status = EXIT_FAIL;
		}
		return -1;
	}
	if (snapshot_parse(&s, buf, size, err, sizeof(err))) {
		fs_err("the module sent a bad snapshot: %s", err);
		iv->status = EXIT_FAIL;
		return -1;
	}
	stats_add(&iv->total, &s.hdr.stats);
	ret = write_interval(iv, &s);
	snapshot_free(&s);
	if (ret) {
		iv->status = EXIT_FAIL;
		return -1;
	}
	iv->began = at;
	return 0;
}

int interval_tick(struct rec_interval *iv, struct fs_dev *dev, double now)
{
	if (!iv->secs || now < iv->next)
		return 0;
	if (cut(iv, dev))
		return -1;
	/*
	 * The next end on the grid of the start, at least half an interval
	 * after this one's: a cut that came late (the loop woke late) makes
	 * this interval longer, not the next one a sliver. The time it took
	 * to write the file does not count: the next interval began with
	 * the snapshot, at @now.
	 */
	do
		iv->next += iv->secs;
	while (iv->next < now + iv->secs / 2);
	return 0;
}

int interval_finish(struct rec_interval *iv, struct fs_dev *dev)
{
	if (iv->status)
		return iv->status;
	return cut(iv, dev) ? iv->status : EXIT_OK;
}

void interval_close(struct rec_interval *iv)
{
	if (iv->dirfd >= 0)
		close(iv->dirfd);
	iv->dirfd = -1;
}
