// SPDX-License-Identifier: GPL-2.0
/*
 * Reaching a container's files from the host: /proc/PID/root is the root
 * directory of process PID, whatever its mount namespace, for a reader
 * allowed to ptrace it (root, or its owner).
 */
#include <dirent.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "lib/util.h"
#include "sym/procroot.h"

/* The kernel's new_encode_dev(), which the module records. */
static uint64_t encode_dev(dev_t d)
{
	uint64_t maj = major(d), min = minor(d);

	return (min & 0xff) | (maj << 8) | ((min & ~0xffULL) << 12);
}

static bool same_file(const char *path, uint64_t dev, uint64_t ino)
{
	struct stat st;

	return !stat(path, &st) && encode_dev(st.st_dev) == dev &&
	       (uint64_t)st.st_ino == ino;
}

/* /proc/PID/root/PATH, if it is the recorded file. */
static char *try_pid(const char *proc_root, const char *pid,
		     const char *path, uint64_t dev, uint64_t ino)
{
	char *p = xasprintf("%s/%s/root%s", proc_root, pid, path);

	if (same_file(p, dev, ino))
		return p;
	free(p);
	return NULL;
}

char *procroot_find(const char *proc_root, const struct procroot *r,
		    const char *path, uint64_t dev, uint64_t ino)
{
	char pid[16], *found, *root;
	struct dirent *de;
	DIR *d;

	if (!proc_root)
		proc_root = "/proc";
	if (path[0] != '/')
		return NULL;
	snprintf(pid, sizeof(pid), "%u", r->tgid);
	found = try_pid(proc_root, pid, path, dev, ino);
	if (found)
		return found;
	/* Gone: another process in the same root (a container's others). */
	d = opendir(proc_root);
	if (!d)
		return NULL;
	while (!found && (de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		root = xasprintf("%s/%s/root", proc_root, de->d_name);
		if (same_file(root, r->root_dev, r->root_ino))
			found = try_pid(proc_root, de->d_name, path, dev, ino);
		free(root);
	}
	closedir(d);
	return found;
}
