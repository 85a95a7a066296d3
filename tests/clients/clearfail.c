// SPDX-License-Identifier: GPL-2.0
/*
 * clearfail: a CLEAR snapshot refused for want of readers' memory keeps
 * the session's samples. Run with sampling stopped, so that nothing
 * changes the counts but the snapshots:
 *
 *   clearfail
 *
 * Descriptors take and keep plain snapshots until one is refused ENOBUFS:
 * the readers' memory (reader_kb) then has less room than a copy of the
 * table and a snapshot together. Then, closing one holder at a time (a
 * snapshot's worth more room each), a CLEAR snapshot is asked for until
 * it succeeds. The room grows by a snapshot's size each step from below
 * copy + snapshot, so one attempt has room for the copy but not for the
 * snapshot: it fails after the module took the samples. After every
 * refusal, the stats must still count every sample, stack and nanosecond
 * of running time; the snapshot that succeeds must hold them all, and
 * the session must have none after it.
 *
 * Prints a line per attempt and "refused=N"; exits 1 on a loss, 2 when it
 * cannot run (no device, no refusal at all: reader_kb too large).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "snapcheck.h"

#define MAX_HOLDERS 4096

static int stats(int fd, struct flamestat_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (ioctl(fd, FLAMESTAT_IOC_GET_STATS, st)) {
		perror("clearfail: GET_STATS");
		return -1;
	}
	return 0;
}

/* 0 when @st counts what @want does. */
static int same_counts(const char *when, const struct flamestat_stats *st,
		       const struct flamestat_stats *want)
{
	if (st->recorded == want->recorded && st->stacks == want->stacks &&
	    st->samples == want->samples &&
	    st->running_ns == want->running_ns)
		return 0;
	printf("LOST %s: recorded %llu stacks %llu samples %llu running_ns %llu, "
	       "want %llu %llu %llu %llu\n", when,
	       (unsigned long long)st->recorded,
	       (unsigned long long)st->stacks,
	       (unsigned long long)st->samples,
	       (unsigned long long)st->running_ns,
	       (unsigned long long)want->recorded,
	       (unsigned long long)want->stacks,
	       (unsigned long long)want->samples,
	       (unsigned long long)want->running_ns);
	return -1;
}

int main(void)
{
	struct flamestat_snapshot req;
	struct flamestat_stats before, st;
	const struct flamestat_snap_header *h;
	int fd, holder[MAX_HOLDERS], n = 0, refused = 0, bad = 0;
	char why[256];
	size_t size;
	void *snap;

	fd = open(FLAMESTAT_DEVICE, O_RDWR);
	if (fd < 0) {
		perror("clearfail: " FLAMESTAT_DEVICE);
		return 2;
	}
	if (stats(fd, &before))
		return 2;
	if (before.state & FLAMESTAT_STATE_RUNNING || !before.recorded) {
		fputs("clearfail: needs samples, with sampling stopped\n",
		      stderr);
		return 2;
	}
	for (;;) {
		if (n == MAX_HOLDERS) {
			fputs("clearfail: no refusal: reader_kb too large\n",
			      stderr);
			return 2;
		}
		holder[n] = open(FLAMESTAT_DEVICE, O_RDONLY);
		if (holder[n] < 0) {
			perror("clearfail: " FLAMESTAT_DEVICE);
			return 2;
		}
		memset(&req, 0, sizeof(req));
		if (ioctl(holder[n], FLAMESTAT_IOC_SNAPSHOT, &req)) {
			if (errno != ENOBUFS) {
				perror("clearfail: plain snapshot");
				return 2;
			}
			close(holder[n]);
			break;
		}
		n++;
	}
	printf("holders=%d (plain snapshots kept until ENOBUFS)\n", n);
	for (;;) {
		snap = snap_take(fd, FLAMESTAT_SNAP_CLEAR, 0, &size);
		if (snap)
			break;
		if (errno != ENOBUFS) {
			perror("clearfail: CLEAR snapshot");
			return 2;
		}
		refused++;
		if (stats(fd, &st))
			return 2;
		printf("CLEAR refused with %d holders: recorded %llu stacks %llu\n",
		       n, (unsigned long long)st.recorded,
		       (unsigned long long)st.stacks);
		bad |= same_counts("after a refused CLEAR", &st, &before);
		if (!n) {
			fputs("clearfail: refused with no holder left\n", stderr);
			return 2;
		}
		close(holder[--n]);
	}
	if (snap_validate(snap, size, NULL, why, sizeof(why))) {
		printf("BAD SNAPSHOT: %s\n", why);
		return 1;
	}
	h = snap;
	printf("CLEAR taken with %d holders: %zu bytes, recorded %llu stacks %llu\n",
	       n, size, (unsigned long long)h->stats.recorded,
	       (unsigned long long)h->stats.stacks);
	bad |= same_counts("in the CLEAR snapshot", &h->stats, &before);
	if (stats(fd, &st))
		return 2;
	if (st.recorded || st.stacks || st.samples) {
		printf("NOT CLEARED: recorded %llu stacks %llu\n",
		       (unsigned long long)st.recorded,
		       (unsigned long long)st.stacks);
		bad = -1;
	}
	printf("refused=%d\n", refused);
	free(snap);
	while (n)
		close(holder[--n]);
	close(fd);
	return bad ? 1 : 0;
}
