/* SPDX-License-Identifier: GPL-2.0 */
/*
 * flamestat record --interval: continuous recording, one profile per
 * interval written into a directory. Each file holds the samples of its
 * interval and no other (the module's snapshot-and-clear), the oldest of
 * these files go past --max-files. cmd_record.c calls in at a few hooks:
 * options, the directory check before sampling, each turn of its loop and
 * the end.
 */
#ifndef FLAMESTAT_RECORD_INTERVAL_H
#define FLAMESTAT_RECORD_INTERVAL_H

#include <getopt.h>
#include <stdbool.h>
#include <time.h>

#include "cmd/output.h"
#include "cmd/source.h"
#include "device/device.h"

#define INTERVAL_MIN_SECS		1
#define INTERVAL_MAX_SECS		86400
#define INTERVAL_MAX_FILES		1000000
#define INTERVAL_DEFAULT_MAX_FILES	100

/*
 * Life: options (interval_handle_option, interval_check_options), then
 * interval_open() before the module is touched, interval_begin() when
 * sampling starts, interval_tick() on each turn of the sampling loop,
 * interval_finish() once sampling stopped, interval_close().
 */
struct rec_interval {
	double secs;		/* --interval; 0: not continuous */
	unsigned int max_files;	/* --max-files; 0: no limit */
	bool max_files_given;
	/* The run: set by interval_open() and interval_begin(). */
	const char *dir;	/* -o */
	int dirfd;
	enum out_format format;
	const struct out_opts *out;
	const struct src_opts *src;
	bool quiet;
	double next;		/* CLOCK_MONOTONIC end of this interval */
	struct timespec began;	/* CLOCK_REALTIME start: the file's name */
	unsigned long files;	/* written so far */
	unsigned int tmp_seq;
	int status;		/* exit status of a failure that stopped it */
	struct flamestat_stats total;	/* the intervals' counters added */
};

/* getopt_long entries (codes 0x380..) and their help text. */
extern const struct option interval_getopt_options[];
extern const char interval_options_help[];

void interval_init(struct rec_interval *iv);
/* 0: taken; 1: not one of ours; -1: bad value (reported). */
int interval_handle_option(struct rec_interval *iv, int opt, const char *arg);
/* Options that go together, once all are parsed: 0, or -1 after saying why. */
int interval_check_options(struct rec_interval *iv, const struct out_opts *out,
			   const char *raw_path);
/*
 * The directory must exist and take new files, before anything is sampled:
 * 0, or the exit status (EXIT_USAGE: none there; EXIT_FAIL: cannot write
 * in it) after saying why. Nothing to do without --interval.
 */
int interval_open(struct rec_interval *iv, const struct out_opts *out,
		  const struct src_opts *src, bool quiet);
/* Sampling started at @now (CLOCK_MONOTONIC seconds). */
void interval_begin(struct rec_interval *iv, double now);
/*
 * At @now, the current interval ends if due: its samples are taken (and
 * cleared) and written. 0, or -1 when that failed (reported; status set):
 * the recording must stop.
 */
int interval_tick(struct rec_interval *iv, struct fs_dev *dev, double now);
/* @wait (seconds; < 0: none) shortened to the end of the interval. */
double interval_wait(const struct rec_interval *iv, double now, double wait);
/*
 * Sampling stopped: the last, partial interval is written. 0 or the exit
 * status, after reporting.
 */
int interval_finish(struct rec_interval *iv, struct fs_dev *dev);
void interval_close(struct rec_interval *iv);

#endif
