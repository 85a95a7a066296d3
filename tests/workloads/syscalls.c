// SPDX-License-Identifier: GPL-2.0
/*
 * Syscall-heavy workload: the time goes to the kernel. The syscall
 * instruction is issued from our own frame-pointer functions (not libc's
 * wrappers, which have none), so the user stack is always main ->
 * syscall_loop -> raw_read or raw_getppid.
 *
 *   syscalls [-m read|getppid] [-l LOOPS] [SECONDS]
 *
 * read (default): read(2) of 1 MiB from /dev/zero. Kernel hot path:
 *   entry_SYSCALL_64 -> do_syscall_64 -> ksys_read -> vfs_read ->
 *   read_iter_zero -> iov_iter_zero / clear_user (zeroing user pages).
 * getppid: the cheapest syscall; the time is the syscall entry and exit
 *   path itself (entry_SYSCALL_64, do_syscall_64, syscall_exit_to_user_mode).
 */
#include <fcntl.h>
#include <sys/syscall.h>

#include "common.h"

#define USAGE "syscalls [-m read|getppid] [-l LOOPS] [SECONDS]"
#define BUF_SIZE (1UL << 20)
/* Syscalls between two looks at the clock. */
#define BATCH 64

volatile long sink;

NOINLINE long raw_read(int fd, void *buf, unsigned long len)
{
	long ret;

	FORCE_FRAME();
#if defined(__x86_64__)
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"((long)SYS_read), "D"((long)fd), "S"(buf), "d"(len)
			 : "rcx", "r11", "memory");
#elif defined(__aarch64__)
	register long x0 __asm__("x0") = fd;
	register long x1 __asm__("x1") = (long)buf;
	register long x2 __asm__("x2") = (long)len;
	register long x8 __asm__("x8") = SYS_read;

	__asm__ volatile("svc #0" : "+r"(x0) : "r"(x1), "r"(x2), "r"(x8) : "memory");
	ret = x0;
#else
	ret = syscall(SYS_read, fd, buf, len);
#endif
	return ret;
}

NOINLINE long raw_getppid(void)
{
	long ret;

	FORCE_FRAME();
#if defined(__x86_64__)
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"((long)SYS_getppid)
			 : "rcx", "r11", "memory");
#elif defined(__aarch64__)
	register long x0 __asm__("x0");
	register long x8 __asm__("x8") = SYS_getppid;

	__asm__ volatile("svc #0" : "=r"(x0) : "r"(x8) : "memory");
	ret = x0;
#else
	ret = syscall(SYS_getppid);
#endif
	return ret;
}

/* One batch of syscalls; returns -1 after a failed read. */
NOINLINE long syscall_loop(int fd, char *buf, unsigned long n)
{
	unsigned long i;
	long r, sum = 0;

	for (i = 0; i < n; i++) {
		r = fd >= 0 ? raw_read(fd, buf, BUF_SIZE) : raw_getppid();
		if (r < 0)
			return -1;
		sum += r;
	}
	sink = sum;
	return sum;
}

int main(int argc, char **argv)
{
	unsigned long long end, duration = 1000000000ULL;
	unsigned long loops = 0;
	const char *mode = "read";
	char *buf = NULL;
	int opt, fd = -1;

	while ((opt = getopt(argc, argv, "m:l:")) != -1) {
		if (opt == 'm')
			mode = optarg;
		else if (opt == 'l')
			loops = parse_count(optarg, 1UL << 40, USAGE);
		else
			die_usage(USAGE);
	}
	if (optind < argc - 1)
		die_usage(USAGE);
	if (optind == argc - 1)
		duration = parse_seconds(argv[optind], USAGE);
	if (!strcmp(mode, "read")) {
		fd = open("/dev/zero", O_RDONLY);
		buf = malloc(BUF_SIZE);
		if (fd < 0 || !buf) {
			perror("syscalls: /dev/zero");
			return 1;
		}
	} else if (strcmp(mode, "getppid")) {
		die_usage(USAGE);
	}

	if (loops) {
		if (syscall_loop(fd, buf, loops) < 0)
			goto fail;
	} else {
		end = now_ns() + duration;
		do {
			if (syscall_loop(fd, buf, BATCH) < 0)
				goto fail;
		} while (now_ns() < end);
	}
	free(buf);
	return 0;
fail:
	perror("syscalls: read");
	return 1;
}
