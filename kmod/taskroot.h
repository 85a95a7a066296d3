/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a sampled process finds its files: its root directory and mount
 * namespace, read by the scan worker so that the paths it records are the
 * process's own (a container's /usr/bin/x, not whatever the reader sees).
 */
#ifndef FLAMESTAT_TASKROOT_H
#define FLAMESTAT_TASKROOT_H

#include <linux/path.h>
#include <linux/types.h>

struct mm_struct;

struct fst_task_root {
	bool found;		/* a live task of the address space was found */
	bool own;		/* its root is not ours (chroot, container) */
	u64 root_dev;		/* of its root directory, when own */
	u64 root_ino;
	u64 mnt_ns;		/* inode of its mount namespace; 0: unknown */
	char *prefix;		/* its root as d_path() shows it to us */
	size_t prefix_len;	/* 1 when that is "/": nothing to strip */
	char *buf;		/* PATH_MAX, holds prefix */
};

int fst_task_root_get(struct fst_task_root *r, pid_t tgid,
		      struct mm_struct *mm);
void fst_task_root_put(struct fst_task_root *r);
const char *fst_task_root_relative(const struct fst_task_root *r,
				   const char *path);

#endif /* FLAMESTAT_TASKROOT_H */
