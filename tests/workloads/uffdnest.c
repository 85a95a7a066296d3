// SPDX-License-Identifier: GPL-2.0
/*
 * Two page faults that block in the same kernel frames, one nested in the
 * way back to user space of the other: the kernel-stack cache's trap
 * (kmod/kstack_cache.c). A worker thread reads a page of a userfaultfd
 * region, and blocks in handle_userfault() under a page fault taken in
 * user space, until the handler thread fills the page. Having slept, it
 * owes its rseq area an update on the way back to user space; that area
 * lies on another page of the region, emptied again before each round,
 * so the kernel's read of it (__rseq_handle_notify_resume(), a
 * get_user()) faults in the kernel and blocks in the same frames, with
 * the first fault's return to user space above them.
 *
 *   uffdnest [ROUNDS]        (default 200)
 *
 * Prints "rounds N faults F" (F: faults the handler served, two a round
 * when the nested one happens). Exits 1, saying why, when userfaultfd or
 * rseq is missing or refused.
 */
#include <fcntl.h>
#include <linux/rseq.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/rseq.h>
#include <sys/syscall.h>

#include "common.h"

#define USAGE "uffdnest [ROUNDS]"
#define RSEQ_SIG_OURS 0x53053053

static long page;
static char *region;		/* two pages: the one read, the rseq one */
static int uffd;
static unsigned long faults;
static unsigned long rounds = 200;

static void fail(const char *what)
{
	fprintf(stderr, "uffdnest: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* Fills every page the worker faults on, until the worker is done. */
static void *handler(void *arg)
{
	struct uffdio_copy copy;
	struct uffd_msg msg;
	struct pollfd pfd = { .fd = uffd, .events = POLLIN };
	char *zero = arg;

	for (;;) {
		if (poll(&pfd, 1, -1) < 0)
			fail("poll");
		if (read(uffd, &msg, sizeof(msg)) != sizeof(msg))
			fail("read userfaultfd");
		if (msg.event != UFFD_EVENT_PAGEFAULT)
			continue;
		copy = (struct uffdio_copy) {
			.dst = msg.arg.pagefault.address & ~(page - 1),
			.src = (unsigned long)zero,
			.len = page,
		};
		if (ioctl(uffd, UFFDIO_COPY, &copy) && errno != EEXIST)
			fail("UFFDIO_COPY");
		__atomic_add_fetch(&faults, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

/* glibc's own rseq registration gives way to ours, on the second page. */
static void rseq_move(void)
{
	struct rseq *ours = (struct rseq *)(region + page);

	/* glibc registers its area whole, __rseq_size (20) is its used part. */
	if (__rseq_size &&
	    syscall(__NR_rseq, (char *)__builtin_thread_pointer() + __rseq_offset,
		    sizeof(*ours), RSEQ_FLAG_UNREGISTER, RSEQ_SIG))
		fail("rseq unregister (glibc's)");
	if (syscall(__NR_rseq, ours, sizeof(*ours), 0, RSEQ_SIG_OURS))
		fail("rseq register");
}

/* A read, as the kernel's first access to the rseq area is. */
static NOINLINE char touch(volatile char *p)
{
	return *p;
}

static void *worker(void *arg)
{
	unsigned long i;

	(void)arg;
	rseq_move();
	for (i = 0; i < rounds; i++) {
		/*
		 * Both pages empty: the read and the rseq update fault, both
		 * reads (a write fault blocks from another call site).
		 */
		if (madvise(region, 2 * page, MADV_DONTNEED))
			fail("madvise");
		touch(region);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct uffdio_register reg;
	struct uffdio_api api = { .api = UFFD_API };
	pthread_t h, w;
	char *zero;

	if (argc > 2)
		die_usage(USAGE);
	if (argc == 2)
		rounds = parse_count(argv[1], 1000000, USAGE);
	page = sysconf(_SC_PAGESIZE);
	uffd = syscall(__NR_userfaultfd, O_CLOEXEC);
	if (uffd < 0)
		fail("userfaultfd");
	if (ioctl(uffd, UFFDIO_API, &api))
		fail("UFFDIO_API");
	region = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	zero = mmap(NULL, page, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED || zero == MAP_FAILED)
		fail("mmap");
	reg = (struct uffdio_register) {
		.range = { .start = (unsigned long)region, .len = 2 * page },
		.mode = UFFDIO_REGISTER_MODE_MISSING,
	};
	if (ioctl(uffd, UFFDIO_REGISTER, &reg))
		fail("UFFDIO_REGISTER");
	if (pthread_create(&h, NULL, handler, zero) ||
	    pthread_create(&w, NULL, worker, NULL))
		fail("pthread_create");
	pthread_join(w, NULL);
	printf("rounds %lu faults %lu\n", rounds,
	       __atomic_load_n(&faults, __ATOMIC_RELAXED));
	return 0;
}
