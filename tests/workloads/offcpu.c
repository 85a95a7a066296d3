// SPDX-License-Identifier: GPL-2.0
/*
 * Blocking known by construction, for off-CPU profiles (issue 14): each
 * kind of wait in its own thread (its own comm) and its own noinline
 * function, and the truth measured around every blocking call.
 *
 *   part    thread(s)                 blocking function (state expected)
 *   sleep   off-sleep                 sleep_10ms, sleep_30ms: nanosleep of
 *                                     10 and 30 ms, alternately (S; 1:3)
 *   pipe    off-ping, off-pong        ping_read, pong_read: a pipe ping-pong;
 *                                     each side "thinks" (ping_think 1 ms,
 *                                     pong_think 2 ms of nanosleep) before
 *                                     it answers, so the reads block for
 *                                     milliseconds; the waker of each read
 *                                     is the other side's write (S)
 *   mutex   off-mholder, off-mwaiter  mutex_hold: the holder sleeps 5 ms
 *                                     with a pthread mutex held, then
 *                                     mutex_rest 1 ms without; mutex_wait:
 *                                     the waiter blocks in pthread_mutex_lock
 *                                     (futex), then mutex_pause 2 ms (S)
 *   disk    off-disk                  disk_write: 256 KiB buffered pwrite,
 *                                     disk_fsync: fsync (D: writeback) of -f
 *                                     FILE (a file on a block device, or a
 *                                     block device such as /dev/loop0)
 *   direct  off-direct                direct_write: 256 KiB O_DIRECT pwrite
 *                                     to -f FILE (D)
 *   short   off-short                 short_sleep: nanosleep of -s US
 *                                     microseconds (100), for min_block_us;
 *                                     with -L US every 8th call sleeps
 *                                     that long instead (blocks surely
 *                                     over the threshold, however fast
 *                                     the machine)
 *   spin    off-spin                  spin_work: ~-w MS of CPU, then
 *                                     spin_sleep: nanosleep of 10 ms (wall)
 *   storm   off-storm                 storm_read: a pipe ping-pong with no
 *                                     pause, one pair of threads per CPU
 *                                     (at most 8): context switches as
 *                                     fast as the CPUs go
 *
 * The blocking system calls are made with the syscall instruction in the
 * named function itself, so that function is the user leaf of its
 * off-CPU stack (through a glibc wrapper, which has no frame pointer, the
 * frame-pointer walk skips the function that called the wrapper).
 * mutex_wait calls pthread_mutex_lock through lock_mutex, which is the
 * frame lost that way: the stack reads ...;mutex_wait;libc.so.6+0x...
 *
 * At exit, one line per blocking function and one per thread:
 *
 *   func NAME comm=COMM state=S calls=N wall_ns=W off_ns=O max_ns=M
 *        under=U near=N near_ns=X over=V over_ns=Y long=L long_wall_ns=Z
 *        vcsw=S ivcsw=P
 *   thread COMM life_ns=L cpu_ns=C
 *
 * wall_ns is the CLOCK_MONOTONIC time inside the calls, off_ns the part
 * of it the thread was not running (wall minus CLOCK_THREAD_CPUTIME_ID
 * time: what an off-CPU profiler must find), max_ns the longest call's
 * off time. under/near/over count the calls whose off time is below 90%,
 * within 10%, above 110% of -t US (default 1000; near_ns and over_ns are
 * their off time): what a min_block_us of US must drop (under), may drop
 * (near) and must keep (over). long and long_wall_ns: the calls whose
 * wall time is at least 90% of -t, and their wall time: the most a
 * min_block_us of US can keep, by the monotonic clock alone (a kept block
 * lies inside one such call; under a loaded host a call's off time, wall
 * minus CPU clock, has read less than the block flamestat timed in it).
 * vcsw and ivcsw: the thread's voluntary and involuntary context
 * switches inside the calls (getrusage(RUSAGE_THREAD)).
 * life_ns is the thread's lifetime from its first instruction to its
 * last, cpu_ns its CPU time.
 *
 *   offcpu [-k] [-p PARTS] [-f FILE] [-t US] [-s US] [-L US] [-w MS] [-l LOOPS] [SECONDS]
 *
 * PARTS: comma-separated (default sleep,pipe,mutex); SECONDS: how long
 * each part runs (default 2); -l: iterations per part instead. -k: after
 * the truth, print "end" and wait until killed (profilers that read the
 * process's maps when they stop still find it).
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "common.h"

#define USAGE "offcpu [-k] [-p sleep,pipe,mutex,disk,direct,short,spin,storm] [-f FILE] [-t US] [-s US] [-L US] [-w MS] [-l LOOPS] [SECONDS]"
#define MS 1000000ULL
#define IO_SIZE (256UL << 10)
#define MAX_FUNCS 32
#define MAX_THREADS 16

static unsigned long long deadline;
static unsigned long loops;
static unsigned long long threshold_ns = 1000000ULL;
static unsigned long short_ns = 100000UL;
static unsigned long long_ns; /* -L: every 8th short_sleep, 0: none */
static unsigned long spin_ms = 5;
static const char *file;

/* ---- the truth ---- */

struct func {
	const char *name, *comm, *state;
	unsigned long long calls, wall, off, max, under, near, near_ns, over, over_ns;
	unsigned long long nr_long, long_wall;
	unsigned long long vcsw, ivcsw;
};
static struct func funcs[MAX_FUNCS];
static unsigned int nr_funcs;

struct thread_truth {
	char comm[16];
	unsigned long long life, cpu;
};
static struct thread_truth threads[MAX_THREADS];
static unsigned int nr_threads;
static pthread_mutex_t truth_lock = PTHREAD_MUTEX_INITIALIZER;

/* The truth of one function: registered once per thread that calls it. */
static struct func *func_new(const char *name, const char *comm, const char *state)
{
	struct func *f;

	pthread_mutex_lock(&truth_lock);
	if (nr_funcs == MAX_FUNCS) {
		fprintf(stderr, "offcpu: too many functions\n");
		exit(1);
	}
	f = &funcs[nr_funcs++];
	f->name = name;
	f->comm = comm;
	f->state = state;
	pthread_mutex_unlock(&truth_lock);
	return f;
}

/*
 * Where a call starts: both clocks, and the thread's context switches
 * (read outside the clocks' window): how many times the call left the
 * CPU, voluntarily (S, D) or preempted (R). The truth, wall minus thread
 * CPU time, and a profiler's switch-out to switch-in differ a little at
 * every switch (each side's clock is read at another point of the
 * scheduler), so the bench reports that difference per switch.
 */
struct t0 {
	unsigned long long wall, cpu;
	long vcsw, ivcsw;
};

static inline __attribute__((always_inline)) struct t0 t_start(void)
{
	struct rusage ru;
	struct t0 t;

	getrusage(RUSAGE_THREAD, &ru);
	t.vcsw = ru.ru_nvcsw;
	t.ivcsw = ru.ru_nivcsw;
	t.wall = now_ns();
	t.cpu = thread_cpu_ns();
	return t;
}

static inline __attribute__((always_inline)) void t_end(struct func *f, struct t0 t)
{
	unsigned long long cpu = thread_cpu_ns(), wall = now_ns();
	unsigned long long w = wall - t.wall, c = cpu - t.cpu;
	unsigned long long off = w > c ? w - c : 0;
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	f->vcsw += ru.ru_nvcsw - t.vcsw;
	f->ivcsw += ru.ru_nivcsw - t.ivcsw;
	f->calls++;
	f->wall += w;
	f->off += off;
	if (off > f->max)
		f->max = off;
	if (off * 10 < threshold_ns * 9) {
		f->under++;
	} else if (off * 10 > threshold_ns * 11) {
		f->over++;
		f->over_ns += off;
	} else {
		f->near++;
		f->near_ns += off;
	}
	if (w * 10 >= threshold_ns * 9) {
		f->nr_long++;
		f->long_wall += w;
	}
}

/* Each part's thread: named, timed from its first instruction to its last. */
struct part {
	const char *comm;
	void (*fn)(const char *comm);
	pthread_t tid;
	struct thread_truth *truth;
};

static void *thread_main(void *arg)
{
	struct part *p = arg;
	unsigned long long life = now_ns();

	pthread_setname_np(pthread_self(), p->comm);
	p->fn(p->comm);
	p->truth->cpu = thread_cpu_ns();
	p->truth->life = now_ns() - life;
	return NULL;
}

/* Another iteration of a part? */
static int more(unsigned long i)
{
	return loops ? i < loops : now_ns() < deadline;
}

/* ---- system calls from the named functions ---- */

static inline __attribute__((always_inline)) long sys3(long nr, long a, long b, long c)
{
	long ret;

#if defined(__x86_64__)
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
#elif defined(__aarch64__)
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x8 __asm__("x8") = nr;

	__asm__ volatile("svc #0" : "+r"(x0) : "r"(x1), "r"(x2), "r"(x8) : "memory");
	ret = x0;
#else
	ret = syscall(nr, a, b, c);
#endif
	return ret;
}

static inline __attribute__((always_inline)) long sys4(long nr, long a, long b, long c, long d)
{
	long ret;

#if defined(__x86_64__)
	register long r10 __asm__("r10") = d;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10)
			 : "rcx", "r11", "memory");
#elif defined(__aarch64__)
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x8 __asm__("x8") = nr;

	__asm__ volatile("svc #0" : "+r"(x0) : "r"(x1), "r"(x2), "r"(x3), "r"(x8) : "memory");
	ret = x0;
#else
	ret = syscall(nr, a, b, c, d);
#endif
	return ret;
}

static inline __attribute__((always_inline)) void nsleep(unsigned long long ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000ULL), (long)(ns % 1000000000ULL) };

	sys4(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, (long)&ts, 0);
}

/* ---- sleep ---- */

NOINLINE void sleep_10ms(void)
{
	FORCE_FRAME();
	nsleep(10 * MS);
}

NOINLINE void sleep_30ms(void)
{
	FORCE_FRAME();
	nsleep(30 * MS);
}

static void part_sleep(const char *comm)
{
	struct func *f10 = func_new("sleep_10ms", comm, "S");
	struct func *f30 = func_new("sleep_30ms", comm, "S");
	struct t0 t;
	unsigned long i;

	for (i = 0; more(i); i++) {
		t = t_start();
		sleep_10ms();
		t_end(f10, t);
		t = t_start();
		sleep_30ms();
		t_end(f30, t);
	}
}

/* ---- pipe ping-pong ---- */

static int to_pong[2], to_ping[2];

NOINLINE long ping_write(char c)
{
	FORCE_FRAME();
	return sys3(SYS_write, to_pong[1], (long)&c, 1);
}

NOINLINE long ping_read(char *c)
{
	FORCE_FRAME();
	return sys3(SYS_read, to_ping[0], (long)c, 1);
}

NOINLINE void ping_think(void)
{
	FORCE_FRAME();
	nsleep(1 * MS);
}

NOINLINE long pong_write(char c)
{
	FORCE_FRAME();
	return sys3(SYS_write, to_ping[1], (long)&c, 1);
}

NOINLINE long pong_read(char *c)
{
	FORCE_FRAME();
	return sys3(SYS_read, to_pong[0], (long)c, 1);
}

NOINLINE void pong_think(void)
{
	FORCE_FRAME();
	nsleep(2 * MS);
}

static void part_ping(const char *comm)
{
	struct func *f = func_new("ping_read", comm, "S");
	struct t0 t;
	unsigned long i;
	char c;

	for (i = 0; more(i); i++) {
		if (ping_write('p') != 1)
			exit(1);
		t = t_start();
		if (ping_read(&c) != 1)
			exit(1);
		t_end(f, t);
		ping_think();
	}
	if (ping_write('q') != 1)
		exit(1);
}

static void part_pong(const char *comm)
{
	struct func *f = func_new("pong_read", comm, "S");
	struct t0 t;
	char c;

	for (;;) {
		t = t_start();
		if (pong_read(&c) != 1)
			exit(1);
		t_end(f, t);
		if (c == 'q')
			break;
		pong_think();
		if (pong_write('o') != 1)
			exit(1);
	}
}

/* ---- contended mutex ---- */

static pthread_mutex_t contended = PTHREAD_MUTEX_INITIALIZER;
static atomic_int mutex_done;

NOINLINE void mutex_hold(void)
{
	FORCE_FRAME();
	nsleep(5 * MS);
}

NOINLINE void mutex_rest(void)
{
	FORCE_FRAME();
	nsleep(1 * MS);
}

NOINLINE void mutex_pause(void)
{
	FORCE_FRAME();
	nsleep(2 * MS);
}

/* The frame the walk loses (see the top): mutex_wait stays on the stack. */
NOINLINE void lock_mutex(void)
{
	FORCE_FRAME();
	pthread_mutex_lock(&contended);
}

NOINLINE void mutex_wait(void)
{
	FORCE_FRAME();
	lock_mutex();
}

static void part_mholder(const char *comm)
{
	unsigned long i;

	for (i = 0; more(i); i++) {
		pthread_mutex_lock(&contended);
		mutex_hold();
		pthread_mutex_unlock(&contended);
		mutex_rest();
	}
	atomic_store(&mutex_done, 1);
	(void)comm;
}

static void part_mwaiter(const char *comm)
{
	struct func *f = func_new("mutex_wait", comm, "S");
	struct t0 t;
	int done;

	/* Let the holder take it first. */
	mutex_pause();
	do {
		t = t_start();
		mutex_wait();
		t_end(f, t);
		done = atomic_load(&mutex_done);
		pthread_mutex_unlock(&contended);
		if (!done)
			mutex_pause();
	} while (!done);
}

/* ---- disk ---- */

static void *io_buf;

static int open_file(int flags)
{
	int fd = open(file, O_WRONLY | O_CREAT | flags, 0600);

	if (fd < 0) {
		fprintf(stderr, "offcpu: %s: %s\n", file, strerror(errno));
		exit(1);
	}
	return fd;
}

NOINLINE long disk_write(int fd, unsigned long off)
{
	FORCE_FRAME();
	return sys4(SYS_pwrite64, fd, (long)io_buf, IO_SIZE, (long)off);
}

NOINLINE long disk_fsync(int fd)
{
	FORCE_FRAME();
	return sys3(SYS_fsync, fd, 0, 0);
}

NOINLINE long direct_write(int fd, unsigned long off)
{
	FORCE_FRAME();
	return sys4(SYS_pwrite64, fd, (long)io_buf, IO_SIZE, (long)off);
}

/*
 * 16 buffers' worth of the file, written over and over: disk at [0, 4 MiB),
 * direct at [8, 12 MiB). Never the same range: an O_DIRECT write over
 * pages another thread dirtied fails to invalidate them, and the kernel
 * then reports EIO to the next fsync (dio_warn_stale_pagecache).
 */
#define IO_SPAN (16 * IO_SIZE)
#define DIRECT_BASE (2 * IO_SPAN)

static void part_disk(const char *comm)
{
	struct func *fw = func_new("disk_write", comm, "S");
	struct func *fs = func_new("disk_fsync", comm, "D");
	int fd = open_file(0);
	struct t0 t;
	unsigned long i;
	long r;

	for (i = 0; more(i); i++) {
		t = t_start();
		r = disk_write(fd, (i * IO_SIZE) % IO_SPAN);
		if (r != (long)IO_SIZE) {
			fprintf(stderr, "offcpu: write %s: %s\n", file,
				r < 0 ? strerror((int)-r) : "short write");
			exit(1);
		}
		t_end(fw, t);
		t = t_start();
		r = disk_fsync(fd);
		if (r) {
			fprintf(stderr, "offcpu: fsync %s: %s\n", file, strerror((int)-r));
			exit(1);
		}
		t_end(fs, t);
	}
	close(fd);
}

static void part_direct(const char *comm)
{
	struct func *f = func_new("direct_write", comm, "D");
	int fd = open_file(O_DIRECT);
	struct t0 t;
	unsigned long i;
	long r;

	for (i = 0; more(i); i++) {
		t = t_start();
		r = direct_write(fd, DIRECT_BASE + (i * IO_SIZE) % IO_SPAN);
		if (r != (long)IO_SIZE) {
			fprintf(stderr, "offcpu: O_DIRECT write %s: %s\n", file,
				r < 0 ? strerror((int)-r) : "short write");
			exit(1);
		}
		t_end(f, t);
	}
	close(fd);
}

/* ---- short blocks, and a thread that both runs and sleeps ---- */

NOINLINE void short_sleep(unsigned long ns)
{
	FORCE_FRAME();
	nsleep(ns);
}

static void part_short(const char *comm)
{
	struct func *f = func_new("short_sleep", comm, "S");
	struct t0 t;
	unsigned long i;

	for (i = 0; more(i); i++) {
		t = t_start();
		short_sleep(long_ns && i % 8 == 7 ? long_ns : short_ns);
		t_end(f, t);
	}
}

volatile unsigned long spin_sink;

NOINLINE void spin_work(void)
{
	unsigned long long end = thread_cpu_ns() + spin_ms * MS;

	FORCE_FRAME();
	do
		spin_sink = spin_body(SPIN_ITERS / 20, spin_sink);
	while (thread_cpu_ns() < end);
}

NOINLINE void spin_sleep(void)
{
	FORCE_FRAME();
	nsleep(10 * MS);
}

static void part_spin(const char *comm)
{
	struct func *f = func_new("spin_sleep", comm, "S");
	struct t0 t;
	unsigned long i;

	for (i = 0; more(i); i++) {
		spin_work();
		t = t_start();
		spin_sleep();
		t_end(f, t);
	}
}

/* ---- a switch storm ---- */

struct storm_side {
	int rd, wr, first;
	pthread_t tid;
};

NOINLINE long storm_read(int fd, char *c)
{
	FORCE_FRAME();
	return sys3(SYS_read, fd, (long)c, 1);
}

NOINLINE long storm_write(int fd, char c)
{
	FORCE_FRAME();
	return sys3(SYS_write, fd, (long)&c, 1);
}

static void *storm_thread(void *arg)
{
	struct storm_side *s = arg;
	struct func *f = func_new("storm_read", "off-storm", "S");
	unsigned long i;
	struct t0 t;
	char c = 's';

	pthread_setname_np(pthread_self(), "off-storm");
	for (i = 0; c != 'q'; i++) {
		if (s->first)
			c = more(i) ? 's' : 'q';
		if ((s->first || i) && storm_write(s->wr, c) != 1)
			exit(1);
		if (c == 'q')
			break;
		t = t_start();
		if (storm_read(s->rd, &c) != 1)
			exit(1);
		t_end(f, t);
	}
	/* The side that did not start answers the last 'q' it read. */
	if (!s->first)
		storm_write(s->wr, 'q');
	return NULL;
}

static void part_storm(const char *comm)
{
	static struct storm_side sides[16];
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int a[2], b[2], i, pairs = cpus < 1 ? 1 : cpus > 8 ? 8 : (int)cpus;

	for (i = 0; i < pairs; i++) {
		if (pipe(a) || pipe(b)) {
			perror("offcpu: pipe");
			exit(1);
		}
		sides[2 * i] = (struct storm_side){ .rd = b[0], .wr = a[1], .first = 1 };
		sides[2 * i + 1] = (struct storm_side){ .rd = a[0], .wr = b[1], .first = 0 };
	}
	for (i = 0; i < 2 * pairs; i++)
		if (pthread_create(&sides[i].tid, NULL, storm_thread, &sides[i])) {
			perror("offcpu: pthread_create");
			exit(1);
		}
	for (i = 0; i < 2 * pairs; i++)
		pthread_join(sides[i].tid, NULL);
	(void)comm;
}

/* ---- main ---- */

static const struct {
	const char *part, *comm;
	void (*fn)(const char *comm);
} table[] = {
	{ "sleep", "off-sleep", part_sleep },
	{ "pipe", "off-ping", part_ping },
	{ "pipe", "off-pong", part_pong },
	{ "mutex", "off-mholder", part_mholder },
	{ "mutex", "off-mwaiter", part_mwaiter },
	{ "disk", "off-disk", part_disk },
	{ "direct", "off-direct", part_direct },
	{ "short", "off-short", part_short },
	{ "spin", "off-spin", part_spin },
	{ "storm", "off-storm", part_storm },
};
#define NR_TABLE (sizeof(table) / sizeof(table[0]))

/* Is PART in the comma-separated list PARTS? */
static int wanted(const char *parts, const char *part)
{
	size_t n = strlen(part);
	const char *p = parts;

	while ((p = strstr(p, part))) {
		if ((p == parts || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return 1;
		p += n;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct part parts[MAX_THREADS];
	const char *want = "sleep,pipe,mutex";
	unsigned long long duration = 2000000000ULL;
	unsigned int i, n = 0;
	int opt, keep = 0;

	while ((opt = getopt(argc, argv, "kp:f:t:s:L:w:l:")) != -1) {
		switch (opt) {
		case 'k': keep = 1; break;
		case 'p': want = optarg; break;
		case 'f': file = optarg; break;
		case 't': threshold_ns = parse_count(optarg, 60000000, USAGE) * 1000ULL; break;
		case 's': short_ns = parse_count(optarg, 1000000, USAGE) * 1000UL; break;
		case 'L': long_ns = parse_count(optarg, 1000000, USAGE) * 1000UL; break;
		case 'w': spin_ms = parse_count(optarg, 10000, USAGE); break;
		case 'l': loops = parse_count(optarg, 1UL << 30, USAGE); break;
		default: die_usage(USAGE);
		}
	}
	if (optind < argc - 1)
		die_usage(USAGE);
	if (optind == argc - 1)
		duration = parse_seconds(argv[optind], USAGE);
	for (i = 0; i < NR_TABLE; i++)
		if (wanted(want, table[i].part))
			n++;
	if (!n || ((wanted(want, "disk") || wanted(want, "direct")) && !file))
		die_usage(USAGE);
	if (pipe(to_pong) || pipe(to_ping) || posix_memalign(&io_buf, 4096, IO_SIZE)) {
		perror("offcpu");
		return 1;
	}
	memset(io_buf, 0x5a, IO_SIZE);

	deadline = now_ns() + duration;
	n = 0;
	for (i = 0; i < NR_TABLE; i++) {
		if (!wanted(want, table[i].part))
			continue;
		parts[n].comm = table[i].comm;
		parts[n].fn = table[i].fn;
		parts[n].truth = &threads[nr_threads++];
		snprintf(parts[n].truth->comm, sizeof(parts[n].truth->comm), "%s", table[i].comm);
		if (pthread_create(&parts[n].tid, NULL, thread_main, &parts[n])) {
			perror("offcpu: pthread_create");
			return 1;
		}
		n++;
	}
	for (i = 0; i < n; i++)
		pthread_join(parts[i].tid, NULL);

	for (i = 0; i < nr_funcs; i++) {
		struct func *f = &funcs[i];

		printf("func %s comm=%s state=%s calls=%llu wall_ns=%llu off_ns=%llu max_ns=%llu"
		       " under=%llu near=%llu near_ns=%llu over=%llu over_ns=%llu"
		       " long=%llu long_wall_ns=%llu vcsw=%llu ivcsw=%llu\n",
		       f->name, f->comm, f->state, f->calls, f->wall, f->off, f->max,
		       f->under, f->near, f->near_ns, f->over, f->over_ns,
		       f->nr_long, f->long_wall, f->vcsw, f->ivcsw);
	}
	for (i = 0; i < nr_threads; i++)
		printf("thread %s life_ns=%llu cpu_ns=%llu\n", threads[i].comm,
		       threads[i].life, threads[i].cpu);
	if (keep) {
		printf("end\n");
		fflush(stdout);
		for (;;)
			pause();
	}
	return 0;
}
