// SPDX-License-Identifier: GPL-2.0
/*
 * A read-only FUSE file system for the stalled-file-system guest test
 * (tests/guest/87-stuckfs.sh): it serves the files of one directory with
 * direct I/O, so every read() of them, the kernel's included, is a request
 * to this process and none is answered from the page cache. Stopped with
 * SIGSTOP it is a server that no longer answers (a hung NFS or FUSE
 * server); after SIGUSR1 every read fails with EIO (a failing device).
 *
 *   fsfuse DIR MOUNTPOINT     mount, serve in the foreground until unmounted
 */
#define FUSE_USE_VERSION 31
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define USAGE "fsfuse DIR MOUNTPOINT"

static const char *backing;
static volatile sig_atomic_t fail_reads;

static int real_path(char *buf, size_t size, const char *path)
{
	int n = snprintf(buf, size, "%s%s", backing, path);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static int fs_getattr(const char *path, struct stat *st,
		      struct fuse_file_info *fi)
{
	char p[PATH_MAX];
	int err = real_path(p, sizeof(p), path);

	(void)fi;
	if (err)
		return err;
	if (lstat(p, st))
		return -errno;
	st->st_mode &= ~0222;	/* read-only */
	return 0;
}

static int fs_readdir(const char *path, void *buf, fuse_fill_dir_t fill,
		      off_t off, struct fuse_file_info *fi,
		      enum fuse_readdir_flags flags)
{
	char p[PATH_MAX];
	struct dirent *e;
	DIR *d;
	int err = real_path(p, sizeof(p), path);

	(void)off;
	(void)fi;
	(void)flags;
	if (err)
		return err;
	d = opendir(p);
	if (!d)
		return -errno;
	while ((e = readdir(d)))
		if (fill(buf, e->d_name, NULL, 0, 0))
			break;
	closedir(d);
	return 0;
}

static int fs_open(const char *path, struct fuse_file_info *fi)
{
	char p[PATH_MAX];
	int err = real_path(p, sizeof(p), path), fd;

	if (err)
		return err;
	if ((fi->flags & O_ACCMODE) != O_RDONLY)
		return -EROFS;
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	fi->fh = (uint64_t)fd;
	fi->direct_io = 1;
	/*
	 * Without it every open() drops the file's cached pages, mapped ones
	 * included: a program running from here would fault them in again,
	 * and die of SIGBUS once reads fail.
	 */
	fi->keep_cache = 1;
	return 0;
}

static int fs_read(const char *path, char *buf, size_t size, off_t off,
		   struct fuse_file_info *fi)
{
	ssize_t n;

	(void)path;
	if (fail_reads)
		return -EIO;
	n = pread((int)fi->fh, buf, size, off);
	return n < 0 ? -errno : (int)n;
}

static int fs_release(const char *path, struct fuse_file_info *fi)
{
	(void)path;
	close((int)fi->fh);
	return 0;
}

static const struct fuse_operations ops = {
	.getattr = fs_getattr,
	.readdir = fs_readdir,
	.open = fs_open,
	.read = fs_read,
	.release = fs_release,
};

static void on_usr1(int sig)
{
	(void)sig;
	fail_reads = 1;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	char *args[] = { argv[0], "-f", "-s", "-o", "allow_other", NULL, NULL };

	if (argc != 3) {
		fprintf(stderr, "usage: %s\n", USAGE);
		return 2;
	}
	backing = argv[1];
	args[5] = argv[2];
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL)) {
		perror("fsfuse: sigaction");
		return 1;
	}
	return fuse_main(6, args, &ops, NULL);
}
