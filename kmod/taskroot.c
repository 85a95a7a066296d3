// SPDX-License-Identifier: GPL-2.0
/*
 * A sampled process's root directory and mount namespace, for the scan
 * worker (process context, never a reader's).
 *
 * The worker is a kernel thread: its root and mount namespace are init's,
 * so d_path() there shows a file as the host sees it, or, on a mount the
 * host cannot reach (another mount namespace), from the root of that
 * namespace. A process in a chroot or a container names the same file
 * relative to its own root, which is what its own tools and
 * /proc/PID/root/... use. So the process's root is printed with the same
 * d_path() and stripped from the front of its files' paths; a file outside
 * its root (an inherited descriptor, overlayfs's real file) keeps the path
 * the host sees.
 */
#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/fs_struct.h>
#include <linux/kdev_t.h>
#include <linux/namei.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "taskroot.h"

/*
 * A thread of process @tgid (initial pid namespace) still on @mm: its
 * root, referenced, and its thread id. The leader may have exited before
 * its threads, so every thread is asked. Returns 0 or -ESRCH.
 */
static int fst_task_root_path(pid_t tgid, struct mm_struct *mm,
			      struct path *root, pid_t *tid)
{
	struct task_struct *leader, *t;

	*tid = 0;
	rcu_read_lock();
	leader = pid_task(find_pid_ns(tgid, &init_pid_ns), PIDTYPE_TGID);
	if (leader) {
		for_each_thread(leader, t) {
			/* task_lock() guards ->mm and ->fs, as for /proc/PID/root. */
			task_lock(t);
			if (t->mm == mm && t->fs) {
				get_fs_root(t->fs, root);
				*tid = task_pid_nr(t);
			}
			task_unlock(t);
			if (*tid)
				break;
		}
	}
	rcu_read_unlock();
	return *tid ? 0 : -ESRCH;
}

/**
 * fst_task_root_get() - read where a process's paths start
 * @r: filled in; fst_task_root_put() it after use
 * @tgid: the process, in the initial pid namespace
 * @mm: its address space, to tell it from a later process with the tgid
 *
 * The mount namespace is read as /proc/TID/ns/mnt's inode, the number
 * `readlink /proc/PID/ns/mnt` shows (struct mnt_namespace is private to
 * fs/): 0 when /proc is not mounted where the worker looks.
 *
 * Context: process context, the scan worker (init's root, credentials and
 * namespaces); may sleep. Takes no lock of ours; reads no file.
 * Return: 0, or -ESRCH when no task of @tgid runs on @mm any more (@r then
 * says nothing is known).
 */
int fst_task_root_get(struct fst_task_root *r, pid_t tgid,
		      struct mm_struct *mm)
{
	struct path root, ours, ns;
	char name[32];
	pid_t tid;
	char *p;

	memset(r, 0, sizeof(*r));
	if (fst_task_root_path(tgid, mm, &root, &tid))
		return -ESRCH;
	r->found = true;
	get_fs_root(current->fs, &ours);
	r->own = !path_equal(&root, &ours);
	path_put(&ours);
	if (r->own) {
		struct inode *inode = d_inode(root.dentry);

		r->root_dev = new_encode_dev(inode->i_sb->s_dev);
		r->root_ino = inode->i_ino;
		r->buf = __getname();
		p = r->buf ? d_path(&root, r->buf, PATH_MAX) : ERR_PTR(-ENOMEM);
		if (!IS_ERR(p)) {
			r->prefix = p;
			r->prefix_len = strlen(p);
		}
	}
	/* A last reference to a mount is put off to a worker (mntput). */
	path_put(&root);

	snprintf(name, sizeof(name), "/proc/%d/ns/mnt", tid);
	if (!kern_path(name, LOOKUP_FOLLOW, &ns)) {
		r->mnt_ns = d_inode(ns.dentry)->i_ino;
		path_put(&ns);
	}
	return 0;
}

/**
 * fst_task_root_put() - release what fst_task_root_get() took
 * @r: as filled in by fst_task_root_get()
 *
 * Context: process context.
 */
void fst_task_root_put(struct fst_task_root *r)
{
	if (r->buf)
		__putname(r->buf);
	r->buf = NULL;
	r->prefix = NULL;
}

/**
 * fst_task_root_relative() - a path as the process itself names it
 * @r: the process's root, from fst_task_root_get() with @r->own set
 * @path: a file's path from d_path() in the worker
 *
 * Context: any.
 * Return: @path without the process's root in front ("/usr/bin/x"), or
 * NULL when the file lies outside that root or the root could not be
 * printed: the caller keeps the path the host sees.
 */
const char *fst_task_root_relative(const struct fst_task_root *r,
				   const char *path)
{
	if (!r->own || !r->prefix)
		return NULL;
	/* Its root is the top of its own mount namespace: nothing to strip. */
	if (r->prefix_len == 1)
		return path;
	if (strncmp(path, r->prefix, r->prefix_len) ||
	    path[r->prefix_len] != '/')
		return NULL;
	return path + r->prefix_len;
}
