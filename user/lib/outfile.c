// SPDX-License-Identifier: GPL-2.0
/* Output files replaced atomically, removed on failure or signal (outfile.h). */
#include "lib/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/util.h"

/*
 * The temporary files not yet in place, for outfile_discard_all() to
 * remove from a signal handler: a slot is set before the file exists
 * and cleared before its name is freed.
 */
#define OUTFILE_MAX	16
static char *volatile pending[OUTFILE_MAX];

static void pending_set(const char *old, char *tmp)
{
	for (int i = 0; i < OUTFILE_MAX; i++) {
		if (pending[i] == old) {
			pending[i] = tmp;
			return;
		}
	}
}

void outfile_discard_all(void)
{
	int saved = errno;

	for (int i = 0; i < OUTFILE_MAX; i++)
		if (pending[i])
			unlink(pending[i]);
	errno = saved;
}

static void on_fatal_signal(int sig)
{
	outfile_discard_all();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Killed by these, remove the temporary files first (unless handled). */
static void catch_fatal_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	static bool done;
	struct sigaction sa, old;

	if (done)
		return;
	done = true;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fatal_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (!sigaction(sigs[i], NULL, &old) &&
		    old.sa_handler == SIG_DFL)
			sigaction(sigs[i], &sa, NULL);
}

int outfile_open(struct outfile *o, const char *path)
{
	const char *base;
	struct stat st;
	mode_t mode, mask;
	char *tmp;
	int fd;

	memset(o, 0, sizeof(*o));
	if (!path || !strcmp(path, "-")) {
		o->f = stdout;
		return 0;
	}
	/*
	 * Only a regular file (or a new one) is replaced by renaming a
	 * temporary file over it: renaming over /dev/null, a FIFO or a
	 * terminal would replace the device node itself. Those are written
	 * in place.
	 */
	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		o->f = fopen(path, "we");
		if (!o->f) {
			fs_perror("cannot open %s", path);
			return -1;
		}
		o->path = xstrdup(path);
		return 0;
	}
	if (!stat(path, &st)) {
		mode = st.st_mode & 07777;
	} else {
		mask = umask(0);
		umask(mask);
		mode = 0644 & ~mask;
	}
	base = path_basename(path);
	if (!*base) {
		errno = EISDIR;
		fs_perror("cannot create %s", path);
		return -1;
	}
	tmp = xasprintf("%.*s.%s.XXXXXX", (int)(base - path), path, base);
	/* Registered first: a signal may come as soon as the file exists. */
	catch_fatal_signals();
	pending_set(NULL, tmp);
	/* O_EXCL: a name that exists, a symbolic link too, is not opened. */
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		pending_set(tmp, NULL);
		fs_perror("cannot create %s", path);
		free(tmp);
		return -1;
	}
	if (fchmod(fd, mode) || !(o->f = fdopen(fd, "w"))) {
		fs_perror("cannot create %s", path);
		close(fd);
		unlink(tmp);
		pending_set(tmp, NULL);
		free(tmp);
		return -1;
	}
	o->path = xstrdup(path);
	o->tmp = tmp;
	return 0;
}

int outfile_close(struct outfile *o, bool ok)
{
	int ret = 0;

	if (!o->path) {
		if (fflush(stdout)) {
			fs_perror("cannot write standard output");
			ret = -1;
		}
		return ok ? ret : -1;
	}
	if (fclose(o->f)) {
		if (ok)
			fs_perror("cannot write %s", o->path);
		ok = false;
	}
	o->f = NULL;
	if (o->tmp && ok && rename(o->tmp, o->path)) {
		fs_perror("cannot rename %s to %s", o->tmp, o->path);
		ok = false;
	}
	if (o->tmp && !ok)
		unlink(o->tmp);
	if (o->tmp)
		pending_set(o->tmp, NULL);
	free(o->path);
	free(o->tmp);
	o->path = o->tmp = NULL;
	return ok ? 0 : -1;
}
