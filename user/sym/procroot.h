/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Files of processes with their own root (chroot, container): the module
 * records their paths as the process names them, relative to its root.
 */
#ifndef FLAMESTAT_PROCROOT_H
#define FLAMESTAT_PROCROOT_H

#include <stdint.h>

/* The process that mapped the file, as its PROC record says. */
struct procroot {
	uint32_t tgid;		/* initial pid namespace */
	uint64_t root_dev;	/* its root directory, st_dev form */
	uint64_t root_ino;
};

/*
 * A path under proc_root ("/proc") that opens the file recorded as @path
 * (relative to @r's root) with device @dev and inode @ino: through
 * /proc/TGID/root while that process lives, else through any live
 * process with the same root. Every candidate is checked to be that very
 * file, so a process that exited and a recycled pid cannot lend another
 * file of the same name. Returns a malloc'ed path, or NULL when no live
 * process reaches it.
 */
char *procroot_find(const char *proc_root, const struct procroot *r,
		    const char *path, uint64_t dev, uint64_t ino);

#endif
