// SPDX-License-Identifier: GPL-2.0
/*
 * The symbolizer reads the ELF files the module recorded. One on a stalled
 * NFS or FUSE server would block the tool in the kernel, where no signal
 * but SIGKILL reaches it (FUSE waits killably once a request is queued):
 * `flamestat record` would never finish. So the first file of each mount
 * is opened and read by a child process, with a deadline.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/util.h"
#include "sym/fsprobe.h"

/* A mount point, and whether its file system answered (once asked). */
struct mount {
	char *dir;
	bool asked;
	bool answered;
};

static struct mount *mounts;
static size_t nr_mounts;
static bool mounts_read;

/* Mount points in mountinfo escape a space as "\040" (octal). */
static char *unescape(const char *s)
{
	char *out = xmalloc(strlen(s) + 1), *o = out;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
				      (s[3] - '0'));
			s += 4;
		} else {
			*o++ = *s++;
		}
	}
	*o = '\0';
	return out;
}

/* The mount points, read once; "/" alone when mountinfo is unreadable. */
static void read_mounts(void)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL, dir[4096];
	size_t cap = 0;

	mounts_read = true;
	while (f && getline(&line, &cap, f) > 0) {
		/* id parent major:minor root MOUNTPOINT ... */
		if (sscanf(line, "%*s %*s %*s %*s %4095s", dir) != 1)
			continue;
		mounts = xreallocarray(mounts, nr_mounts + 1, sizeof(*mounts));
		mounts[nr_mounts++] = (struct mount){ .dir = unescape(dir) };
	}
	free(line);
	if (f)
		fclose(f);
	if (!nr_mounts) {
		mounts = xmalloc(sizeof(*mounts));
		mounts[nr_mounts++] = (struct mount){ .dir = xstrdup("/") };
	}
}

/* The mount @path is on: the longest mount point that is a prefix of it
 * by whole components (the last one listed when mounts are stacked). */
static struct mount *mount_of(const char *path)
{
	struct mount *best = NULL;
	size_t best_len = 0;

	if (!mounts_read)
		read_mounts();
	for (size_t i = 0; i < nr_mounts; i++) {
		const char *d = mounts[i].dir;
		size_t len = strlen(d);

		if (len == 1 ? path[0] != '/' :
		    strncmp(path, d, len) || (path[len] != '/' && path[len]))
			continue;
		if (!best || len >= best_len) {
			best = &mounts[i];
			best_len = len;
		}
	}
	return best ? best : &mounts[0];
}

/* Open and read the first bytes of @path in a child; true if it finished
 * in time, whatever the result. */
static bool probe(const char *path)
{
	struct pollfd pfd;
	int fds[2], rc, status;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC))
		return true;	/* cannot ask: read it as before */
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return true;
	}
	if (pid == 0) {
		char buf[64];
		int fd;

		/* Only async-signal-safe calls here. */
		close(fds[0]);
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (fd >= 0) {
			ssize_t n = read(fd, buf, sizeof(buf));

			(void)n;
		}
		_exit(0);
	}
	close(fds[1]);
	/* The write end closes when the child exits: POLLHUP. */
	pfd = (struct pollfd){ .fd = fds[0], .events = POLLIN };
	do
		rc = poll(&pfd, 1, FSPROBE_TIMEOUT_MS);
	while (rc < 0 && errno == EINTR);
	close(fds[0]);
	if (rc > 0) {
		waitpid(pid, &status, 0);
		return true;
	}
	/*
	 * A child stuck in a killable wait dies; one the kernel holds
	 * uninterruptibly (a request the server already took) stays until
	 * the server answers, and is reaped by init after we exit.
	 */
	kill(pid, SIGKILL);
	waitpid(pid, &status, WNOHANG);
	return false;
}

bool fsprobe_answers(const char *path)
{
	struct mount *m = mount_of(path);

	if (!m->asked) {
		m->asked = true;
		m->answered = probe(path);
		if (!m->answered)
			fs_warn("%s did not answer a read within %d s (a stalled NFS or FUSE server?): frames in its files stay file+offset",
				m->dir, FSPROBE_TIMEOUT_MS / 1000);
	}
	return m->answered;
}
