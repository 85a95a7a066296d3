// SPDX-License-Identifier: GPL-2.0
/*
 * devstress: concurrent users of /dev/flamestat. READERS processes read
 * the folded text in random piece sizes, take snapshots and read them in
 * random pieces, read the statistics and the configuration, all checked
 * (snapcheck.h: valid text, valid snapshots whose STACK counts add up to
 * recorded, samples == recorded + dropped on every read); with -w one more
 * process keeps changing the state: start, stop, reset, freq=N, new
 * configurations (kernel/user only, per-CPU, idle, depths), clearing
 * snapshots, claim and unclaim. A new frequency while samples are held
 * is refused (EBUSY, counted as refused); one after stop and reset must
 * be accepted.
 *
 *   devstress [-r READERS] [-w] [-t SECONDS] [-s SEED] [--tolerant]
 *             [--quiet-file PATH]
 *
 * --tolerant: the module may come and go (load/unload torture): every
 * operation opens the device afresh and an absent device (ENOENT, ENODEV,
 * ENXIO) is counted, not a failure. --quiet-file: while PATH exists, no
 * process opens the device (those holding it finish their operation), so
 * that a torture loop's rmmod gets its turn. SIGTERM ends the run early (with the
 * same report). Prints one line per process and a total
 * "devstress: ... failures=N"; exits 1 on any failure.
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "snapcheck.h"

static bool tolerant;
static const char *quiet_file;
static uint64_t rng;
static volatile sig_atomic_t stopping;
static pid_t kids[256];
static unsigned long nkids;

struct counts {
	unsigned long ops, text, snaps, stats, writes, absent, paused, failures;
	unsigned long refused;	/* new frequencies refused: samples held */
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static bool running_until(double end)
{
	return !stopping && now() < end;
}

static void on_term_child(int sig)
{
	(void)sig;
	stopping = 1;
}

static void on_term_parent(int sig)
{
	unsigned long i;

	(void)sig;
	for (i = 0; i < nkids; i++)
		kill(kids[i], SIGTERM);
}

static void failf(struct counts *c, const char *who, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void failf(struct counts *c, const char *who, const char *fmt, ...)
{
	va_list ap;

	c->failures++;
	if (c->failures > 10)
		return;
	printf("FAIL %s: ", who);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static bool absent_errno(int e)
{
	return e == ENOENT || e == ENODEV || e == ENXIO;
}

static int dev_open(struct counts *c, const char *who, int flags)
{
	int fd;

	if (quiet_file && !access(quiet_file, F_OK)) {
		c->paused++;
		usleep(5000);
		return -1;
	}
	fd = open(FLAMESTAT_DEVICE, flags | O_CLOEXEC);

	if (fd >= 0)
		return fd;
	if (tolerant && absent_errno(errno)) {
		c->absent++;
		usleep(1000);
		return -1;
	}
	failf(c, who, "open: %s", strerror(errno));
	usleep(10000);
	return -1;
}

static void do_text(struct counts *c, const char *who, int fd)
{
	size_t cap = 1 << 16, len = 0, chunk = 1 + rng_below(&rng, 3) * 4096 +
					       rng_below(&rng, 300);
	char *buf = malloc(cap), why[200];
	ssize_t r;

	if (lseek(fd, 0, SEEK_SET)) {
		failf(c, who, "lseek 0: %s", strerror(errno));
		free(buf);
		return;
	}
	while (buf) {
		if (len + chunk > cap) {
			cap = 2 * (len + chunk);
			buf = realloc(buf, cap);
			if (!buf)
				break;
		}
		r = read(fd, buf + len, chunk);
		if (r < 0) {
			failf(c, who, "text read: %s", strerror(errno));
			break;
		}
		if (!r) {
			if (folded_validate(buf, len, why, sizeof(why)) < 0)
				failf(c, who, "text: %s", why);
			c->text++;
			break;
		}
		len += (size_t)r;
	}
	free(buf);
}

static void do_snapshot(struct counts *c, const char *who, int fd, uint32_t flags)
{
	size_t size, chunk = rng_below(&rng, 2) ? 0 : 1 + rng_below(&rng, 10000);
	char why[300];
	void *s = snap_take(fd, flags, chunk, &size);

	if (!s) {
		if (errno != EBUSY || !(flags & FLAMESTAT_SNAP_CLEAR))
			failf(c, who, "snapshot: %s", strerror(errno));
		return;
	}
	if (snap_validate(s, size, NULL, why, sizeof(why)))
		failf(c, who, "snapshot (%zu bytes): %s", size, why);
	c->snaps++;
	free(s);
}

static void do_stats(struct counts *c, const char *who, int fd)
{
	struct flamestat_stats st;
	char why[200];

	if (ioctl(fd, FLAMESTAT_IOC_GET_STATS, &st)) {
		failf(c, who, "GET_STATS: %s", strerror(errno));
		return;
	}
	if (stats_balance_err(&st, why, sizeof(why)))
		failf(c, who, "stats: %s", why);
	c->stats++;
}

static void reader(const char *who, double end, struct counts *c)
{
	struct flamestat_config cfg;
	struct flamestat_version v;
	int fd = -1;

	while (running_until(end)) {
		if (fd < 0 && (fd = dev_open(c, who, O_RDONLY)) < 0)
			continue;
		switch (rng_below(&rng, 8)) {
		case 0: case 1: case 2:
			do_text(c, who, fd);
			break;
		case 3: case 4:
			do_snapshot(c, who, fd, 0);
			break;
		case 5: case 6:
			do_stats(c, who, fd);
			break;
		default:
			if (ioctl(fd, FLAMESTAT_IOC_GET_CONFIG, &cfg) ||
			    ioctl(fd, FLAMESTAT_IOC_VERSION, &v))
				failf(c, who, "GET_CONFIG/VERSION: %s", strerror(errno));
			break;
		}
		c->ops++;
		/* Tolerant: let the module go between operations. */
		if (tolerant || !rng_below(&rng, 50)) {
			close(fd);
			fd = -1;
		}
	}
	if (fd >= 0)
		close(fd);
}

static void random_config(struct flamestat_config *c)
{
	static const uint32_t freqs[] = { 97, 499, 997, 1999, 4001 };

	memset(c, 0, sizeof(*c));
	c->flags = (uint32_t)rng_below(&rng, 3) + 1;	/* KERNEL, USER or both */
	if (!rng_below(&rng, 3))
		c->flags |= FLAMESTAT_CFG_PERCPU;
	if (!rng_below(&rng, 4))
		c->flags |= FLAMESTAT_CFG_IDLE;
	c->freq_hz = freqs[rng_below(&rng, 5)];
	c->kernel_depth = (uint16_t)(1 + rng_below(&rng, FLAMESTAT_MAX_KERNEL_DEPTH));
	c->user_depth = (uint16_t)(1 + rng_below(&rng, FLAMESTAT_MAX_USER_DEPTH));
	/* Any mode: another one than the session's is refused (EBUSY) unless empty. */
	c->mode = (uint32_t)rng_below(&rng, FLAMESTAT_NR_MODES);
	if (c->mode != FLAMESTAT_MODE_CPU) {
		if (rng_below(&rng, 2) && (c->flags & FLAMESTAT_CFG_KERNEL))
			c->flags |= FLAMESTAT_CFG_WAKER;
		c->min_block_us = (uint32_t)rng_below(&rng, 3) * 50;
	}
}

static void writer(const char *who, double end, struct counts *c)
{
	struct flamestat_config cfg;
	char cmd[32];
	int fd = -1, r = 0;
	const char *what = "";

	while (running_until(end)) {
		if (fd < 0 && (fd = dev_open(c, who, O_RDWR)) < 0)
			continue;
		switch (rng_below(&rng, 10)) {
		case 0: case 1:
			what = "start";
			r = ioctl(fd, FLAMESTAT_IOC_START);
			break;
		case 2:
			what = "stop";
			r = ioctl(fd, FLAMESTAT_IOC_STOP);
			break;
		case 3:
			what = "reset";
			r = ioctl(fd, FLAMESTAT_IOC_RESET);
			break;
		case 4:
			/* Half of them a new session: never refused. */
			snprintf(cmd, sizeof(cmd), "%sfreq=%u\nstart\n",
				 rng_below(&rng, 2) ? "stop\nreset\n" : "",
				 (unsigned int)(97 + rng_below(&rng, 3000)));
			what = cmd;
			r = write(fd, cmd, strlen(cmd)) == (ssize_t)strlen(cmd) ? 0 : -1;
			if (r && errno == EBUSY && cmd[0] == 'f') {
				c->refused++;
				r = 0;
			}
			break;
		case 5: case 6:
			random_config(&cfg);
			what = "SET_CONFIG";
			r = ioctl(fd, FLAMESTAT_IOC_SET_CONFIG, &cfg);
			if (r && errno == EBUSY) {
				c->refused++;
				r = 0;
			}
			break;
		case 7:
			do_snapshot(c, who, fd, FLAMESTAT_SNAP_CLEAR);
			what = "";
			r = 0;
			break;
		case 8:
			what = "CLAIM/UNCLAIM";
			r = ioctl(fd, FLAMESTAT_IOC_CLAIM);
			if (!r) {
				do_stats(c, who, fd);
				r = ioctl(fd, FLAMESTAT_IOC_UNCLAIM);
			}
			break;
		default:
			do_stats(c, who, fd);
			what = "";
			r = 0;
			break;
		}
		if (r)
			failf(c, who, "%s: %s", what, strerror(errno));
		c->writes++;
		c->ops++;
		if (tolerant) {
			close(fd);
			fd = -1;
		}
		usleep((useconds_t)rng_below(&rng, 20000));
	}
	/* Leave it sampling with the default configuration. */
	if (fd < 0)
		fd = dev_open(c, who, O_RDWR);
	if (fd >= 0) {
		memset(&cfg, 0, sizeof(cfg));
		cfg.flags = FLAMESTAT_CFG_KERNEL | FLAMESTAT_CFG_USER;
		cfg.freq_hz = FLAMESTAT_DEFAULT_FREQ;
		cfg.kernel_depth = cfg.user_depth = FLAMESTAT_DEFAULT_DEPTH;
		if (ioctl(fd, FLAMESTAT_IOC_STOP) ||
		    ioctl(fd, FLAMESTAT_IOC_RESET) ||
		    ioctl(fd, FLAMESTAT_IOC_SET_CONFIG, &cfg) ||
		    ioctl(fd, FLAMESTAT_IOC_START))
			if (!tolerant || !absent_errno(errno))
				failf(c, who, "final config/start: %s", strerror(errno));
		close(fd);
	}
}

int main(int argc, char **argv)
{
	unsigned long nreaders = 8, i, nproc;
	double secs = 10, end;
	uint64_t seed = 1;
	bool with_writer = false;
	struct counts total = { 0 };
	int pipefd[2], st, rc = 0;

	for (i = 1; i < (unsigned long)argc; i++) {
		if (!strcmp(argv[i], "-r") && i + 1 < (unsigned long)argc)
			nreaders = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "-t") && i + 1 < (unsigned long)argc)
			secs = strtod(argv[++i], NULL);
		else if (!strcmp(argv[i], "-s") && i + 1 < (unsigned long)argc)
			seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "-w"))
			with_writer = true;
		else if (!strcmp(argv[i], "--tolerant"))
			tolerant = true;
		else if (!strcmp(argv[i], "--quiet-file") && i + 1 < (unsigned long)argc)
			quiet_file = argv[++i];
		else {
			fprintf(stderr, "usage: devstress [-r READERS] [-w] [-t SECONDS] [-s SEED] [--tolerant] [--quiet-file PATH]\n");
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (pipe(pipefd)) {
		perror("pipe");
		return 2;
	}
	end = now() + secs;
	nproc = nreaders + with_writer;
	if (nproc > 256) {
		fprintf(stderr, "devstress: at most 255 readers\n");
		return 2;
	}
	signal(SIGTERM, on_term_parent);
	for (i = 0; i < nproc; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("fork");
			return 2;
		}
		if (pid)
			kids[nkids++] = pid;
		if (!pid) {
			struct counts c = { 0 };
			char who[32];
			bool w = with_writer && i == nreaders;

			signal(SIGTERM, on_term_child);
			close(pipefd[0]);
			rng = seed * 1000003 + i;
			snprintf(who, sizeof(who), w ? "writer" : "reader %lu", i);
			if (w)
				writer(who, end, &c);
			else
				reader(who, end, &c);
			printf("%s: ops=%lu text=%lu snapshots=%lu stats=%lu writes=%lu absent=%lu paused=%lu refused=%lu failures=%lu\n",
			       who, c.ops, c.text, c.snaps, c.stats, c.writes, c.absent,
			       c.paused, c.refused, c.failures);
			if (write(pipefd[1], &c, sizeof(c)) != sizeof(c))
				_exit(3);
			_exit(c.failures ? 1 : 0);
		}
	}
	close(pipefd[1]);
	for (i = 0; i < nproc; i++) {
		struct counts c;
		ssize_t r;

		do
			r = read(pipefd[0], &c, sizeof(c));
		while (r < 0 && errno == EINTR);
		if (r == sizeof(c)) {
			total.ops += c.ops;
			total.text += c.text;
			total.snaps += c.snaps;
			total.stats += c.stats;
			total.writes += c.writes;
			total.absent += c.absent;
			total.paused += c.paused;
			total.failures += c.failures;
			total.refused += c.refused;
		} else {
			total.failures++;
		}
	}
	for (;;) {
		pid_t w = wait(&st);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			break;
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			rc = 1;
	}
	printf("devstress: %lu readers%s, %.0f s: ops=%lu text=%lu snapshots=%lu stats=%lu writes=%lu absent=%lu paused=%lu refused=%lu failures=%lu\n",
	       nreaders, with_writer ? " + writer" : "", secs, total.ops, total.text,
	       total.snaps, total.stats, total.writes, total.absent, total.paused,
	       total.refused, total.failures);
	return rc || total.failures ? 1 : 0;
}
