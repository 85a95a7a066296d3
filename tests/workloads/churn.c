// SPDX-License-Identifier: GPL-2.0
/*
 * churn: process and address-space churn for the sampler's process
 * database: fork storms, exec storms (each child a fresh address space),
 * threads that live a few milliseconds, and executable mappings that come
 * and go under a sampled thread (the program's own file mapped and
 * unmapped again, and anonymous "JIT" code written, run and unmapped).
 *
 *   churn [-m fork|exec|threads|mmap|all] [-j PAR] [SECONDS]
 *
 * Prints "churn forks=N execs=N threads=N maps=N jit=N" at the end; exits
 * non-zero if any child or thread failed.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "common.h"

#define USAGE "churn [-m fork|exec|threads|mmap|all] [-j PAR] [SECONDS]"

static unsigned long long end_ns;
static volatile unsigned long forks, execs, threads, maps, jits;
static volatile int failed;
static const char *self;
volatile unsigned long sink;

NOINLINE unsigned long churn_work(unsigned long iters, unsigned long seed)
{
	return spin_body(iters, seed);
}

static void *fork_loop(void *unused)
{
	pid_t pid;
	int st;

	(void)unused;
	while (now_ns() < end_ns) {
		pid = fork();
		if (pid == 0) {
			sink = churn_work(20000, (unsigned long)getpid());
			_exit(0);
		}
		if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
		    WEXITSTATUS(st)) {
			failed = 1;
			break;
		}
		__atomic_add_fetch(&forks, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void *exec_loop(void *unused)
{
	pid_t pid;
	int st;

	(void)unused;
	while (now_ns() < end_ns) {
		pid = fork();
		if (pid == 0) {
			execl(self, "churn-child", "-m", "child", (char *)NULL);
			_exit(127);
		}
		if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
		    WEXITSTATUS(st)) {
			failed = 1;
			break;
		}
		__atomic_add_fetch(&execs, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void *short_thread(void *arg)
{
	sink = churn_work(50000, (unsigned long)(uintptr_t)arg);
	return NULL;
}

static void *thread_loop(void *unused)
{
	pthread_t t[8];
	int i, n;

	(void)unused;
	while (now_ns() < end_ns) {
		for (n = 0; n < 8; n++)
			if (pthread_create(&t[n], NULL, short_thread, (void *)(uintptr_t)n))
				break;
		for (i = 0; i < n; i++)
			pthread_join(t[i], NULL);
		if (n < 8) {
			failed = 1;
			break;
		}
		__atomic_add_fetch(&threads, 8, __ATOMIC_RELAXED);
	}
	return NULL;
}

#if defined(__x86_64__) || defined(__i386__)
/* mov $imm32, %eax; ret */
static const unsigned char jit_code[] = { 0xb8, 0x2a, 0x00, 0x00, 0x00, 0xc3 };
#elif defined(__aarch64__)
/* mov w0, #42; ret */
static const unsigned char jit_code[] = { 0x40, 0x05, 0x80, 0x52, 0xc0, 0x03, 0x5f, 0xd6 };
#else
#error "churn: no JIT code for this architecture"
#endif

static void *mmap_loop(void *unused)
{
	long pg = sysconf(_SC_PAGESIZE);
	int fd = open(self, O_RDONLY | O_CLOEXEC);
	void *p;
	int (*fn)(void);

	(void)unused;
	if (fd < 0) {
		failed = 1;
		return NULL;
	}
	while (now_ns() < end_ns) {
		/* The program's own file, executable, mapped and unmapped. */
		p = mmap(NULL, (size_t)pg, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED) {
			failed = 1;
			break;
		}
		sink = churn_work(5000, (unsigned long)(uintptr_t)p);
		munmap(p, (size_t)pg);
		__atomic_add_fetch(&maps, 1, __ATOMIC_RELAXED);
		/* JIT-like: anonymous code, run, then unmapped. */
		p = mmap(NULL, (size_t)pg, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			failed = 1;
			break;
		}
		memcpy(p, jit_code, sizeof(jit_code));
		/* Nothing on x86; arm64's instruction cache is not coherent. */
		__builtin___clear_cache((char *)p, (char *)p + sizeof(jit_code));
		if (mprotect(p, (size_t)pg, PROT_READ | PROT_EXEC)) {
			failed = 1;
			break;
		}
		fn = (int (*)(void))p;
		if (fn() != 42)
			failed = 1;
		munmap(p, (size_t)pg);
		__atomic_add_fetch(&jits, 1, __ATOMIC_RELAXED);
	}
	close(fd);
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long long duration = 1000000000ULL;
	const char *mode = "all";
	unsigned long par = 1, i;
	pthread_t t[64];
	int opt, n = 0;

	while ((opt = getopt(argc, argv, "m:j:")) != -1) {
		if (opt == 'm')
			mode = optarg;
		else if (opt == 'j')
			par = parse_count(optarg, 8, USAGE);
		else
			die_usage(USAGE);
	}
	if (!strcmp(mode, "child")) {
		sink = churn_work(20000, (unsigned long)getpid());
		return 0;
	}
	if (optind < argc - 1 || !par)
		die_usage(USAGE);
	if (optind == argc - 1)
		duration = parse_seconds(argv[optind], USAGE);
	self = "/proc/self/exe";
	{
		static char path[4096];
		ssize_t l = readlink(self, path, sizeof(path) - 1);

		if (l > 0) {
			path[l] = '\0';
			self = path;
		}
	}
	end_ns = now_ns() + duration;
	for (i = 0; i < par; i++) {
		if (!strcmp(mode, "fork") || !strcmp(mode, "all"))
			pthread_create(&t[n++], NULL, fork_loop, NULL);
		if (!strcmp(mode, "exec") || !strcmp(mode, "all"))
			pthread_create(&t[n++], NULL, exec_loop, NULL);
		if (!strcmp(mode, "threads") || !strcmp(mode, "all"))
			pthread_create(&t[n++], NULL, thread_loop, NULL);
		if (!strcmp(mode, "mmap") || !strcmp(mode, "all"))
			pthread_create(&t[n++], NULL, mmap_loop, NULL);
	}
	if (!n)
		die_usage(USAGE);
	while (n--)
		pthread_join(t[n], NULL);
	printf("churn forks=%lu execs=%lu threads=%lu maps=%lu jit=%lu\n", forks,
	       execs, threads, maps, jits);
	return failed;
}
