// SPDX-License-Identifier: GPL-2.0
/*
 * io_uring workload: the time goes to io_uring's io-wq workers, kernel
 * workers that run with this process's mm. Raw io_uring_setup and
 * io_uring_enter (no liburing), the SQ and CQ rings and the SQE array
 * mmapped from the ring fd. DEPTH reads of 1 MiB from /dev/zero into
 * buffers of ours are kept in flight, each flagged IOSQE_ASYNC, which
 * makes io_uring punt it to an io-wq worker instead of trying it inline;
 * the worker zeroes our pages. We wait for completions, check that the
 * start of each buffer was zeroed (and poison it again), and resubmit.
 *
 *   iouring [SECONDS]
 *
 * Prints "pid PID", then, once a worker has completed a read, one line
 * "worker TID comm=COMM flags=0xF" per io-wq worker found (flags: its PF_*
 * flags, /proc/TID/stat field 9), and at the end "reads N" (reads
 * completed). Exits 1, saying why, when io_uring is missing or refused
 * (ENOSYS, or EPERM from kernel.io_uring_disabled) or a read fails.
 *
 * Workers: threads of this process named "iou-wrk-TID" (TID: the thread
 * that set the ring up) with PF_IO_WORKER 0x10 from 5.12 (and in 5.10
 * stable since 5.10.162, which took io_uring from 5.15), PF_USER_WORKER
 * 0x4000 too from 6.4; before that, kernel threads "io_wqe_worker-N/NODE"
 * (comm cut to "io_wqe_worker-N", PF_KTHREAD 0x200000, N 1 for the
 * unbound ones that take these reads) that borrow our mm. Hot path:
 * io_wqe_worker (io_wq_worker from 6.4) -> io_worker_handle_work ->
 * io_wq_submit_work -> io_issue_sqe -> io_read -> read_iter_zero ->
 * iov_iter_zero / clear_user.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/io_uring.h>

#include "common.h"

#define USAGE "iouring [SECONDS]"
/* Reads in flight, each with its own buffer. */
#define DEPTH 4
#define ENTRIES 8
#define BUF_SIZE (1UL << 20)
/* Bytes of each buffer checked for zeros and poisoned again. */
#define CHECK_LEN (64UL << 10)

struct ring {
	int fd;
	/* SQ ring */
	unsigned int *sq_head, *sq_tail, *sq_mask, *sq_array;
	struct io_uring_sqe *sqes;
	/* CQ ring */
	unsigned int *cq_head, *cq_tail, *cq_mask;
	struct io_uring_cqe *cqes;
};

static void fail(const char *what)
{
	fprintf(stderr, "iouring: %s: %s\n", what, strerror(errno));
	exit(1);
}

/*
 * io_uring_enter(2), the syscall issued from our own frame (not libc's
 * syscall(), which has none), so the submitter's user stack is main ->
 * ring_enter. Returns -1 with errno set on failure.
 */
NOINLINE long ring_enter(int fd, unsigned int to_submit,
			 unsigned int min_complete, unsigned int flags)
{
	long ret;

	FORCE_FRAME();
#if defined(__x86_64__)
	register long r10 __asm__("r10") = flags;
	register long r8 __asm__("r8") = 0;	/* sig */
	register long r9 __asm__("r9") = 0;	/* sigsz */

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"((long)__NR_io_uring_enter), "D"((long)fd),
			   "S"((long)to_submit), "d"((long)min_complete),
			   "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	if (ret < 0 && ret > -4096) {
		errno = (int)-ret;
		ret = -1;
	}
#elif defined(__aarch64__)
	register long x0 __asm__("x0") = fd;
	register long x1 __asm__("x1") = to_submit;
	register long x2 __asm__("x2") = min_complete;
	register long x3 __asm__("x3") = flags;
	register long x4 __asm__("x4") = 0;	/* sig */
	register long x5 __asm__("x5") = 0;	/* sigsz */
	register long x8 __asm__("x8") = __NR_io_uring_enter;

	__asm__ volatile("svc #0"
			 : "+r"(x0)
			 : "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5), "r"(x8)
			 : "memory");
	ret = x0;
	if (ret < 0 && ret > -4096) {
		errno = (int)-ret;
		ret = -1;
	}
#else
	ret = syscall(__NR_io_uring_enter, fd, to_submit, min_complete, flags,
		      NULL, 0);
#endif
	return ret;
}

/* The ring, its SQ and CQ rings and SQEs mapped. */
static void ring_setup(struct ring *r)
{
	struct io_uring_params p;
	size_t sq_len, cq_len;
	char *sq, *cq;

	memset(&p, 0, sizeof(p));
	r->fd = (int)syscall(__NR_io_uring_setup, ENTRIES, &p);
	if (r->fd < 0)
		fail(errno == ENOSYS ? "io_uring_setup (no io_uring in this kernel)" :
		     errno == EPERM ? "io_uring_setup (kernel.io_uring_disabled?)" :
		     "io_uring_setup");
	sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned int);
	cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	/* One mapping for both rings from 5.4 (IORING_FEAT_SINGLE_MMAP). */
	if (p.features & IORING_FEAT_SINGLE_MMAP) {
		if (cq_len > sq_len)
			sq_len = cq_len;
		cq_len = sq_len;
	}
	sq = mmap(NULL, sq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		  r->fd, IORING_OFF_SQ_RING);
	if (sq == MAP_FAILED)
		fail("mmap SQ ring");
	if (p.features & IORING_FEAT_SINGLE_MMAP) {
		cq = sq;
	} else {
		cq = mmap(NULL, cq_len, PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_CQ_RING);
		if (cq == MAP_FAILED)
			fail("mmap CQ ring");
	}
	r->sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe),
		       PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd,
		       IORING_OFF_SQES);
	if (r->sqes == MAP_FAILED)
		fail("mmap SQEs");
	r->sq_head = (unsigned int *)(sq + p.sq_off.head);
	r->sq_tail = (unsigned int *)(sq + p.sq_off.tail);
	r->sq_mask = (unsigned int *)(sq + p.sq_off.ring_mask);
	r->sq_array = (unsigned int *)(sq + p.sq_off.array);
	r->cq_head = (unsigned int *)(cq + p.cq_off.head);
	r->cq_tail = (unsigned int *)(cq + p.cq_off.tail);
	r->cq_mask = (unsigned int *)(cq + p.cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
}

/* Queue (not yet submit) a forced-async read of @buf from @fd, tagged @slot. */
static void queue_read(struct ring *r, int fd, void *buf, unsigned int slot)
{
	unsigned int tail = *r->sq_tail, idx = tail & *r->sq_mask;
	struct io_uring_sqe *sqe = &r->sqes[idx];

	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_READ;
	sqe->flags = IOSQE_ASYNC;
	sqe->fd = fd;
	sqe->addr = (uintptr_t)buf;
	sqe->len = BUF_SIZE;
	sqe->off = 0;
	sqe->user_data = slot;
	r->sq_array[idx] = idx;
	/* The SQE before the tail that publishes it. */
	__atomic_store_n(r->sq_tail, tail + 1, __ATOMIC_RELEASE);
}

/*
 * Poison the start of a buffer, so that a read must zero it again. Words
 * of ~i (never 0), not a constant: GCC makes a constant fill a call to
 * libc's memset, whose missing frame would hide poison() in the stacks.
 */
NOINLINE void poison(unsigned long *w)
{
	unsigned long i;

	FORCE_FRAME();
	for (i = 0; i < CHECK_LEN / sizeof(*w); i++)
		w[i] = ~i;
	__asm__ volatile("" : : "r"(w) : "memory");
}

/* True when the first @len bytes of a buffer are zero. */
NOINLINE int zeroed(const unsigned long *w, unsigned long len)
{
	unsigned long i, acc = 0;

	FORCE_FRAME();
	for (i = 0; i < len / sizeof(*w); i++)
		acc |= w[i];
	return !acc;
}

/* Does @dir/@name/comm start with @prefix? The comm, without newline, in @comm. */
static int comm_is(const char *dir, const char *name, const char *prefix,
		   char *comm, size_t size)
{
	char path[300];
	FILE *f;
	int ok = 0;

	snprintf(path, sizeof(path), "%s/%s/comm", dir, name);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fgets(comm, (int)size, f)) {
		comm[strcspn(comm, "\n")] = '\0';
		ok = !strncmp(comm, prefix, strlen(prefix));
	}
	fclose(f);
	return ok;
}

/* Print "worker TID comm=COMM flags=0xF" for each task of @dir named @prefix*. */
static int print_tasks(const char *dir, const char *prefix)
{
	char comm[64];
	struct dirent *d;
	DIR *dp;
	int n = 0, tid;

	dp = opendir(dir);
	if (!dp)
		return 0;
	while ((d = readdir(dp))) {
		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		if (!comm_is(dir, d->d_name, prefix, comm, sizeof(comm)))
			continue;
		tid = atoi(d->d_name);
		printf("worker %d comm=%s flags=%#x\n", tid, comm, task_flags(tid));
		n++;
	}
	closedir(dp);
	return n;
}

/*
 * The io-wq workers: threads of ours named iou-wrk-PID, else (before
 * 5.12 and 5.10.162) the io_wqe_worker kthreads of the whole system.
 */
static int print_workers(void)
{
	char prefix[32];
	int n;

	snprintf(prefix, sizeof(prefix), "iou-wrk-%d", (int)getpid());
	n = print_tasks("/proc/self/task", prefix);
	if (!n)
		n = print_tasks("/proc", "io_wqe_worker");
	fflush(stdout);
	return n;
}

int main(int argc, char **argv)
{
	unsigned long long end, duration = 1000000000ULL, reads = 0;
	unsigned int head, tail, slot, inflight = 0, queued = 0;
	char *bufs[DEPTH];
	struct ring r;
	int zero, listed = 0, stop = 0;
	long ret;

	if (argc > 2)
		die_usage(USAGE);
	if (argc == 2)
		duration = parse_seconds(argv[1], USAGE);

	zero = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	if (zero < 0)
		fail("/dev/zero");
	for (slot = 0; slot < DEPTH; slot++) {
		bufs[slot] = mmap(NULL, BUF_SIZE, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (bufs[slot] == MAP_FAILED)
			fail("mmap buffer");
	}
	ring_setup(&r);
	printf("pid %d\n", (int)getpid());
	fflush(stdout);

	end = now_ns() + duration;
	for (slot = 0; slot < DEPTH; slot++) {
		poison((unsigned long *)bufs[slot]);
		queue_read(&r, zero, bufs[slot], slot);
		queued++;
	}
	while (inflight + queued) {
		/* Submit what is queued, wait for at least one completion. */
		ret = ring_enter(r.fd, queued, 1, IORING_ENTER_GETEVENTS);
		if (ret < 0) {
			if (errno == EINTR || errno == EAGAIN || errno == EBUSY)
				continue;
			fail("io_uring_enter");
		}
		inflight += (unsigned int)ret;
		queued -= (unsigned int)ret;
		if (!stop && now_ns() >= end)
			stop = 1;
		head = *r.cq_head;
		tail = __atomic_load_n(r.cq_tail, __ATOMIC_ACQUIRE);
		for (; head != tail; head++) {
			struct io_uring_cqe *cqe = &r.cqes[head & *r.cq_mask];
			int res = cqe->res;

			slot = (unsigned int)cqe->user_data;
			inflight--;
			if (res < 0 || slot >= DEPTH) {
				errno = res < 0 ? -res : EINVAL;
				fail("read from /dev/zero (completion)");
			}
			if (!zeroed((unsigned long *)bufs[slot],
				    (unsigned long)res < CHECK_LEN ? (unsigned long)res : CHECK_LEN)) {
				fprintf(stderr, "iouring: a read completed but did not zero the buffer\n");
				return 1;
			}
			reads++;
			if (stop)
				continue;
			poison((unsigned long *)bufs[slot]);
			queue_read(&r, zero, bufs[slot], slot);
			queued++;
		}
		/* The CQEs consumed before the head that frees them. */
		__atomic_store_n(r.cq_head, head, __ATOMIC_RELEASE);
		/* A worker has run: it has its name now. */
		if (!listed && reads)
			listed = print_workers();
	}
	printf("reads %llu\n", reads);
	if (!listed) {
		fprintf(stderr, "iouring: no io-wq worker found (iou-wrk-%d or io_wqe_worker*)\n",
			(int)getpid());
		return 1;
	}
	close(r.fd);
	return 0;
}
