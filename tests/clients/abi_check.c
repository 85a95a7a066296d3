// SPDX-License-Identifier: GPL-2.0
/*
 * abi_check: drives /dev/flamestat with good and bad requests and checks
 * each answer: errno for every invalid ioctl argument, text command and
 * privilege, configuration unchanged after a rejected request, a new
 * frequency refused (EBUSY) while samples are held and accepted after a
 * reset, exclusive control, consistent partial reads, and the statistics
 * invariant.
 * Runs in the guest as root with the module loaded. Prints "ok - name" or
 * "not ok - name: detail" per check; exits 1 if any failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "uapi/flamestat.h"
#include "busy.h"
#include "tap.h"

/* Expect ioctl to fail with @err. */
static void expect_err(int fd, unsigned long cmd, void *arg, int err,
		       const char *name)
{
	int r = ioctl(fd, cmd, arg);
	int e = errno;

	if (r == -1 && e == err)
		result(1, "%s", name);
	else
		result(0, "%s: got %d (%s), want %s", name, r,
		       r ? strerror(e) : "success", strerror(err));
}

static int open_dev(int flags)
{
	int fd = open(FLAMESTAT_DEVICE, flags | O_CLOEXEC);

	if (fd < 0) {
		perror("open " FLAMESTAT_DEVICE);
		exit(2);
	}
	return fd;
}

static void get_config(int fd, struct flamestat_config *c)
{
	if (ioctl(fd, FLAMESTAT_IOC_GET_CONFIG, c)) {
		perror("GET_CONFIG");
		exit(2);
	}
}

static struct flamestat_stats get_stats(int fd)
{
	struct flamestat_stats st;

	if (ioctl(fd, FLAMESTAT_IOC_GET_STATS, &st)) {
		perror("GET_STATS");
		exit(2);
	}
	return st;
}

/* Sampling runs: waits (10 s at most) until the module holds samples. */
static bool wait_samples(int fd)
{
	int i;

	for (i = 0; i < 1000; i++) {
		if (get_stats(fd).samples)
			return true;
		usleep(10000);
	}
	return false;
}

/*
 * Invalid configuration number @i: mutates @c, returns its name and the
 * expected errno in @err; NULL past the last case.
 */
static const char *bad_config(int i, struct flamestat_config *c, int *err)
{
	*err = EINVAL;
	switch (i) {
	case 0:
		c->flags |= 1U << 31;
		return "config unknown flag";
	case 1:
		c->flags &= ~(FLAMESTAT_CFG_KERNEL | FLAMESTAT_CFG_USER);
		return "config neither kernel nor user";
	case 2:
		c->freq_hz = 0;
		return "config freq 0";
	case 3:
		c->freq_hz = FLAMESTAT_MAX_FREQ + 1;
		return "config freq max+1";
	case 4:
		c->kernel_depth = 0;
		return "config kernel_depth 0";
	case 5:
		c->kernel_depth = FLAMESTAT_MAX_KERNEL_DEPTH + 1;
		return "config kernel_depth max+1";
	case 6:
		c->user_depth = 0;
		return "config user_depth 0";
	case 7:
		c->user_depth = FLAMESTAT_MAX_USER_DEPTH + 1;
		return "config user_depth max+1";
	case 8:
		c->nr_pids = FLAMESTAT_MAX_PIDS + 1;
		return "config nr_pids max+1";
	case 9:
		c->flags |= FLAMESTAT_CFG_PID_TREE;
		c->nr_pids = 0;
		return "config pid_tree without pids";
	case 10:
		c->reserved[0] = 1;
		return "config reserved[0]";
	case 11:
		c->reserved[2] = 1;
		return "config reserved[2]";
	case 12:
		c->nr_pids = 0;
		c->pids[5] = 1;
		return "config pid beyond nr_pids";
	case 13:
		c->nr_pids = 1;
		c->pids[0] = 0;
		return "config pid 0";
	case 14:
		c->nr_pids = 1;
		c->pids[0] = 0xffffffffU;
		return "config pid too large";
	case 15:
		c->nr_pids = 1;
		c->pids[0] = 4000000;
		*err = ESRCH;
		return "config pid that does not exist";
	case 16:
		c->flags |= FLAMESTAT_CFG_CPUMASK;
		memset(c->cpus, 0, sizeof(c->cpus));
		return "config cpumask empty";
	case 17:
		c->flags |= FLAMESTAT_CFG_CPUMASK;
		c->cpus[FLAMESTAT_CPUMASK_WORDS - 1] = 1ULL << 63;
		return "config cpumask beyond nr_cpu_ids";
	case 18:
		c->flags &= ~FLAMESTAT_CFG_CPUMASK;
		c->cpus[0] = 1;
		return "config cpus without CPUMASK flag";
	}
	return NULL;
}

static void check_config_invalid(int fd)
{
	struct flamestat_config base, c, after;
	const char *name;
	int i, err;

	get_config(fd, &base);
	for (i = 0; c = base, (name = bad_config(i, &c, &err)); i++) {
		expect_err(fd, FLAMESTAT_IOC_SET_CONFIG, &c, err, name);
		get_config(fd, &after);
		result(!memcmp(&base, &after, sizeof(base)),
		       "%s leaves the config unchanged", name);
	}
	expect_err(fd, FLAMESTAT_IOC_SET_CONFIG, NULL, EFAULT,
		   "SET_CONFIG NULL");
	expect_err(fd, FLAMESTAT_IOC_GET_CONFIG, NULL, EFAULT,
		   "GET_CONFIG NULL");
	expect_err(fd, FLAMESTAT_IOC_GET_STATS, NULL, EFAULT, "GET_STATS NULL");
	expect_err(fd, FLAMESTAT_IOC_VERSION, NULL, EFAULT, "VERSION NULL");
	expect_err(fd, FLAMESTAT_IOC_SNAPSHOT, NULL, EFAULT, "SNAPSHOT NULL");
	expect_err(fd, FLAMESTAT_IOC_READ, NULL, EFAULT, "READ NULL");
	get_config(fd, &after);
	result(!memcmp(&base, &after, sizeof(base)),
	       "NULL arguments leave the config unchanged");

	/*
	 * A new frequency is refused while samples are held (their counts
	 * would mix two periods); anything else changes at any time.
	 */
	result(wait_samples(fd), "samples held (sampling since load)");
	c = base;
	c.freq_hz = base.freq_hz == 499 ? 251 : 499;
	expect_err(fd, FLAMESTAT_IOC_SET_CONFIG, &c, EBUSY,
		   "SET_CONFIG with a new frequency while samples are held");
	get_config(fd, &after);
	result(!memcmp(&base, &after, sizeof(base)),
	       "the refused frequency leaves the config unchanged");
	c = base;
	c.kernel_depth = 64;
	c.user_depth = 200;
	result(!ioctl(fd, FLAMESTAT_IOC_SET_CONFIG, &c),
	       "SET_CONFIG with the same frequency, new depths, accepted");

	/* A valid change after a reset is applied, and read back as given. */
	result(!ioctl(fd, FLAMESTAT_IOC_STOP) && !ioctl(fd, FLAMESTAT_IOC_RESET),
	       "stop and reset");
	c.freq_hz = 499;
	result(!ioctl(fd, FLAMESTAT_IOC_SET_CONFIG, &c),
	       "valid SET_CONFIG after a reset accepted");
	get_config(fd, &after);
	result(after.freq_hz == 499 && after.kernel_depth == 64 &&
	       after.user_depth == 200, "SET_CONFIG is read back");
	c = base;
	c.flags |= FLAMESTAT_CFG_CPUMASK;
	memset(c.cpus, 0, sizeof(c.cpus));
	c.cpus[0] = 1;
	result(!ioctl(fd, FLAMESTAT_IOC_SET_CONFIG, &c),
	       "SET_CONFIG with CPU 0 only accepted");
	c = base;
	c.nr_pids = 1;
	c.pids[0] = (uint32_t)getpid();
	c.flags |= FLAMESTAT_CFG_PID_TREE;
	result(!ioctl(fd, FLAMESTAT_IOC_SET_CONFIG, &c),
	       "SET_CONFIG with own pid accepted");
	get_config(fd, &after);
	result(after.nr_pids == 1 && after.pids[0] == (uint32_t)getpid(),
	       "pid filter is read back in the caller's namespace");
	result(!ioctl(fd, FLAMESTAT_IOC_SET_CONFIG, &base),
	       "original config restored (nothing sampled since the reset)");
	result(!ioctl(fd, FLAMESTAT_IOC_START), "sampling again");
}

static void check_unknown_ioctls(int fd)
{
	char buf[64] = { 0 };
	unsigned int nr;

	/* Same numbers with the wrong size or direction are other ioctls. */
	expect_err(fd, _IOW(FLAMESTAT_IOC_MAGIC, 2, char[10]), buf, ENOTTY,
		   "SET_CONFIG with a wrong size");
	expect_err(fd, _IOW(FLAMESTAT_IOC_MAGIC, 1, struct flamestat_config),
		   buf, ENOTTY, "GET_CONFIG with the wrong direction");
	expect_err(fd, _IO(FLAMESTAT_IOC_MAGIC, 3) | (1U << 30), buf, ENOTTY,
		   "START with a direction bit");
	for (nr = 12; nr < 256; nr += 17)
		expect_err(fd, _IO(FLAMESTAT_IOC_MAGIC, nr), buf, ENOTTY,
			   "unknown ioctl nr");
	expect_err(fd, _IO('T', 1), buf, ENOTTY, "foreign magic");
}

static void check_snapshot(int fd)
{
	struct flamestat_snapshot s = { 0 };
	struct flamestat_read rd = { 0 };
	struct flamestat_snap_header h;
	int fd2 = open_dev(O_RDWR);

	rd.len = 8;
	rd.buf = (unsigned long)&h;
	expect_err(fd2, FLAMESTAT_IOC_READ, &rd, ENODATA,
		   "READ before any SNAPSHOT");
	close(fd2);
	s.flags = 1U << 7;
	expect_err(fd, FLAMESTAT_IOC_SNAPSHOT, &s, EINVAL,
		   "SNAPSHOT unknown flag");
	s.flags = FLAMESTAT_SNAP_DEFLATED;
	expect_err(fd, FLAMESTAT_IOC_SNAPSHOT, &s, EINVAL,
		   "SNAPSHOT DEFLATED is an answer, not a request");
	s.flags = 0;
	s.reserved = 1;
	expect_err(fd, FLAMESTAT_IOC_SNAPSHOT, &s, EINVAL,
		   "SNAPSHOT reserved field");
	s.reserved = 0;
	result(!ioctl(fd, FLAMESTAT_IOC_SNAPSHOT, &s) && s.size >= sizeof(h),
	       "SNAPSHOT gives a size (%llu)", (unsigned long long)s.size);
	rd.buf = (unsigned long)&h;
	rd.offset = 0;
	rd.len = sizeof(h);
	result(!ioctl(fd, FLAMESTAT_IOC_READ, &rd) && rd.copied == sizeof(h) &&
	       h.magic == FLAMESTAT_SNAP_MAGIC && h.total_size == s.size &&
	       h.abi_version == FLAMESTAT_ABI_VERSION,
	       "READ gives a valid header");
	rd.offset = s.size + 1;
	expect_err(fd, FLAMESTAT_IOC_READ, &rd, EINVAL, "READ past the end");
	rd.offset = s.size;
	result(!ioctl(fd, FLAMESTAT_IOC_READ, &rd) && rd.copied == 0,
	       "READ at the end copies nothing");
	rd.offset = 0;
	rd.buf = 0;
	rd.len = 16;
	expect_err(fd, FLAMESTAT_IOC_READ, &rd, EFAULT, "READ to NULL buffer");
	rd.buf = (unsigned long)-4096L;
	expect_err(fd, FLAMESTAT_IOC_READ, &rd, EFAULT,
		   "READ to a kernel address");
	rd.len = 0;
	rd.buf = 0;
	result(!ioctl(fd, FLAMESTAT_IOC_READ, &rd) && rd.copied == 0,
	       "READ of 0 bytes");
}

static int write_str(int fd, const char *s)
{
	ssize_t n = write(fd, s, strlen(s));

	return n == (ssize_t)strlen(s) ? 0 : errno;
}

static bool running(int fd)
{
	return get_stats(fd).state & FLAMESTAT_STATE_RUNNING;
}

static void check_text_commands(int fd)
{
	static const char *const bad[] = {
		"bogus\n", "freq=0\n", "freq=20001\n", "freq=abc\n",
		"freq=\n", "start\nbogus\n", "stop now\n", "\n\n",
		"START\n", "freq=99 start\n",
	};
	struct flamestat_config base, after;
	char big[300];
	size_t i;
	int e;

	wait_samples(fd);
	write_str(fd, "stop\n");
	get_config(fd, &base);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		e = write_str(fd, bad[i]);
		get_config(fd, &after);
		result(e == EINVAL && !running(fd) &&
		       !memcmp(&base, &after, sizeof(base)),
		       "write '%.*s' rejected (EINVAL), state unchanged",
		       (int)strcspn(bad[i], "\n"), bad[i]);
	}
	memset(big, 's', sizeof(big));
	result(write(fd, big, sizeof(big)) < 0 && errno == EINVAL,
	       "300-byte write rejected");
	result(write(fd, big, 0) == 0, "empty write is a no-op");
	e = write_str(fd, "freq=251\n");
	get_config(fd, &after);
	result(e == EBUSY && !memcmp(&base, &after, sizeof(base)),
	       "write freq=251 with samples held refused (EBUSY), config unchanged");
	result(!write_str(fd, "reset\nfreq=251\n") && (get_config(fd, &after),
							after.freq_hz == 251),
	       "write reset, freq=251 applied");
	result(!write_str(fd, "start\n") && running(fd), "write start");
	result(!write_str(fd, "stop\n") && !running(fd), "write stop");
	result(!write_str(fd, "reset\nfreq=997\nstart\n") && running(fd) &&
	       (get_config(fd, &after), after.freq_hz == 997),
	       "three commands in one write");
	result(!write_str(fd, "reset\n") && running(fd),
	       "reset keeps sampling");
	result(wait_samples(fd), "samples held again");
	e = write_str(fd, "stop\nfreq=499\nstart\n");
	get_config(fd, &after);
	result(e == EBUSY && !running(fd) && after.freq_hz == 997,
	       "write stop, freq=499, start with samples held: EBUSY at freq=499, stop applied, start not");
	result(!write_str(fd, "freq=997\nstart\n") && running(fd),
	       "the same frequency is accepted with samples held");
	result(!ioctl(fd, FLAMESTAT_IOC_SET_CONFIG, &base),
	       "config restored");
}

static void check_claim(void)
{
	int a = open_dev(O_RDWR), b = open_dev(O_RDWR), ro;
	struct flamestat_config c;

	get_config(b, &c);
	result(!ioctl(a, FLAMESTAT_IOC_CLAIM), "CLAIM");
	result(!ioctl(a, FLAMESTAT_IOC_CLAIM), "CLAIM again by the holder");
	expect_err(b, FLAMESTAT_IOC_CLAIM, NULL, EBUSY, "CLAIM while held");
	expect_err(b, FLAMESTAT_IOC_START, NULL, EBUSY, "START while held");
	expect_err(b, FLAMESTAT_IOC_STOP, NULL, EBUSY, "STOP while held");
	expect_err(b, FLAMESTAT_IOC_RESET, NULL, EBUSY, "RESET while held");
	expect_err(b, FLAMESTAT_IOC_SET_CONFIG, &c, EBUSY,
		   "SET_CONFIG while held");
	expect_err(b, FLAMESTAT_IOC_UNCLAIM, NULL, EBUSY,
		   "UNCLAIM by another file while held");
	result(write_str(b, "stop\n") == EBUSY, "text command while held");
	result(!ioctl(b, FLAMESTAT_IOC_GET_CONFIG, &c),
	       "GET_CONFIG still allowed while held");
	close(a);
	result(!ioctl(b, FLAMESTAT_IOC_CLAIM), "claim dropped on close");
	result(!ioctl(b, FLAMESTAT_IOC_UNCLAIM), "UNCLAIM by the holder");
	expect_err(b, FLAMESTAT_IOC_UNCLAIM, NULL, EINVAL,
		   "UNCLAIM without a claim");
	close(b);

	ro = open_dev(O_RDONLY);
	expect_err(ro, FLAMESTAT_IOC_START, NULL, EBADF, "START on O_RDONLY");
	expect_err(ro, FLAMESTAT_IOC_CLAIM, NULL, EBADF, "CLAIM on O_RDONLY");
	expect_err(ro, FLAMESTAT_IOC_CLAIM_FORCE, NULL, EBADF,
		   "CLAIM_FORCE on O_RDONLY");
	result(!ioctl(ro, FLAMESTAT_IOC_GET_CONFIG, &c),
	       "GET_CONFIG on O_RDONLY");
	close(ro);

	/* Root takes a claim over; the former holder never controls again. */
	a = open_dev(O_RDWR);
	b = open_dev(O_RDWR);
	result(!ioctl(a, FLAMESTAT_IOC_CLAIM), "CLAIM before a takeover");
	result(!ioctl(b, FLAMESTAT_IOC_CLAIM_FORCE), "CLAIM_FORCE takes it over");
	expect_err(a, FLAMESTAT_IOC_STOP, NULL, EBUSY,
		   "STOP by the former holder");
	expect_err(a, FLAMESTAT_IOC_UNCLAIM, NULL, EBUSY,
		   "UNCLAIM by the former holder");
	result(!ioctl(b, FLAMESTAT_IOC_UNCLAIM), "UNCLAIM by the new holder");
	expect_err(a, FLAMESTAT_IOC_CLAIM, NULL, EBUSY,
		   "the former holder may not claim again, even with the claim free");
	expect_err(a, FLAMESTAT_IOC_START, NULL, EBUSY,
		   "nor control the session");
	close(a);
	close(b);
}

/* Reads the whole text with reads of @chunk bytes. */
static char *read_all(int fd, size_t chunk, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	ssize_t r;

	for (;;) {
		if (n + chunk > cap)
			buf = realloc(buf, cap *= 2);
		r = read(fd, buf + n, chunk);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	*len = n;
	return buf;
}

static void check_text_reads(int ctl)
{
	size_t chunks[] = { 1, 7, 100, 4096, 1 << 20 };
	char *ref, *got;
	size_t rlen, glen, i;
	int fd;

	/* Stopped, so that every read sees the same samples. */
	write_str(ctl, "start\n");
	burn_cpu_ms(1000);
	write_str(ctl, "stop\n");
	fd = open_dev(O_RDONLY);
	ref = read_all(fd, 65536, &rlen);
	close(fd);
	result(rlen > 0, "text read returns stacks (%zu bytes)", rlen);
	for (i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++) {
		fd = open_dev(O_RDONLY);
		got = read_all(fd, chunks[i], &glen);
		result(glen == rlen && !memcmp(ref, got, rlen),
		       "reads of %zu bytes give the same text", chunks[i]);
		free(got);
		close(fd);
	}
	fd = open_dev(O_RDONLY);
	free(read_all(fd, 13, &glen));
	result(lseek(fd, 0, SEEK_SET) == 0, "lseek to 0");
	got = read_all(fd, 4096, &glen);
	result(glen == rlen && !memcmp(ref, got, rlen),
	       "read after lseek(0) gives the text again");
	free(got);
	close(fd);
	free(ref);
}

static void check_stats(int fd)
{
	struct flamestat_stats st;
	unsigned long long sum;
	int i;

	write_str(fd, "start\n");
	usleep(300000);
	result(!ioctl(fd, FLAMESTAT_IOC_GET_STATS, &st), "GET_STATS");
	for (sum = st.recorded, i = 0; i < FLAMESTAT_MAX_DROPS; i++)
		sum += st.dropped[i];
	result(st.samples > 0 && sum == st.samples,
	       "samples (%llu) == recorded + dropped (%llu)",
	       (unsigned long long)st.samples, sum);
	for (i = FLAMESTAT_NR_DROPS; i < FLAMESTAT_MAX_DROPS; i++)
		if (st.dropped[i])
			break;
	result(i == FLAMESTAT_MAX_DROPS, "unused drop slots are zero");
}

static void check_unprivileged(void)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		int fd;

		if (setgid(65534) || setuid(65534))
			_exit(3);
		fd = open(FLAMESTAT_DEVICE, O_RDONLY);
		_exit(fd < 0 && (errno == EACCES || errno == EPERM) ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	result(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "open as uid 65534 refused (EACCES/EPERM)");
}

int main(void)
{
	struct flamestat_version v;
	int fd = open_dev(O_RDWR);

	result(!ioctl(fd, FLAMESTAT_IOC_VERSION, &v) &&
	       v.abi_version == FLAMESTAT_ABI_VERSION,
	       "VERSION reports ABI %d", FLAMESTAT_ABI_VERSION);
	check_config_invalid(fd);
	check_unknown_ioctls(fd);
	check_snapshot(fd);
	check_text_commands(fd);
	check_claim();
	check_text_reads(fd);
	check_stats(fd);
	check_unprivileged();
	close(fd);
	printf("%d failed\n", tap_failures);
	return tap_failures ? 1 : 0;
}
