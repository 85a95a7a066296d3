// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/flamestat: folded text for cat, text commands (start, stop, reset,
 * freq=N) for echo, and the versioned ioctl ABI of uapi/flamestat.h for the
 * tool. Also /sys/class/misc/flamestat/stats for cat users.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mount.h>
#include <linux/namei.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "device.h"
#include "output.h"
#include "session.h"

/* group= at load: also allowed to open the device; -1: root only. */
static int fst_gid = -1;

/*
 * Per-open state. Life: open -> (CLAIM) -> configure/start/stop by ioctl or
 * text writes -> read: text (a copy is taken at the first read and again
 * after a seek to 0) or binary (SNAPSHOT builds it, READ copies it out) ->
 * close (drops the claim and both copies).
 */
struct fst_open {
	struct fst_text text;	/* seq_file's m->lock */
	struct mutex lock;	/* snap, snap_size */
	void *snap;
	size_t snap_size;
	bool kaddr_ok;		/* decided at open, like /proc/kallsyms */
	bool claim_lost;	/* ctl_lock: root took our claim over */
};

/*
 * May the opener see raw kernel addresses? As for /proc/kallsyms: %pK
 * prints zeros when kptr_restrict forbids it (and is hashed when
 * kptr_restrict is 0, where CAP_SYSLOG decides), never under lockdown.
 */
static bool fst_kaddr_visible(void)
{
	char pk[24];

	/*
	 * Unaudited, as kallsyms asks. has_capability_noaudit() and
	 * security_capable() are not exported to modules before 5.17;
	 * ns_capable_noaudit() is on every kernel we build for (and marks the
	 * task PF_SUPERPRIV when it answers yes, as capable() does).
	 */
	if (fst_locked_down() ||
	    !ns_capable_noaudit(&init_user_ns, CAP_SYSLOG))
		return false;
	snprintf(pk, sizeof(pk), "%pK", &fst_gid);
	return strspn(pk, "0") != strlen(pk);
}

static bool fst_may_open(void)
{
#ifdef FST_HAVE_PERFMON_CAPABLE
	if (perfmon_capable())
		return true;
#else
	if (capable(CAP_SYS_ADMIN))
		return true;
#endif
	/* group= was given at load time, in the initial user namespace. */
	return fst_gid >= 0 && in_group_p(make_kgid(&init_user_ns, fst_gid));
}

static int fst_open(struct inode *inode, struct file *file)
{
	struct fst_open *op;
	int err;

	if (!fst_may_open())
		return -EPERM;
	op = kzalloc(sizeof(*op), FST_GFP_READER);
	if (!op)
		return -ENOMEM;
	mutex_init(&op->lock);
	op->kaddr_ok = fst_kaddr_visible();
	op->text.kaddr_ok = op->kaddr_ok;
	/* misc_open() left the miscdevice here; seq_open() wants it empty. */
	file->private_data = NULL;
	err = seq_open(file, &fst_text_seq_ops);
	if (err) {
		kfree(op);
		return err;
	}
	((struct seq_file *)file->private_data)->private = &op->text;
	return 0;
}

static struct fst_open *fst_open_of(struct file *file)
{
	struct seq_file *m = file->private_data;

	return container_of((struct fst_text *)m->private, struct fst_open,
			    text);
}

/*
 * ctl_lock held: may @file change the session? As fst_may_control(), and
 * never again once root took its claim over: its owner must learn that
 * the session is no longer its own, even after the claim is free again.
 */
static int fst_may_control_open(struct file *file)
{
	return fst_open_of(file)->claim_lost ? -EBUSY : fst_may_control(file);
}

static int fst_release(struct inode *inode, struct file *file)
{
	struct fst_open *op = fst_open_of(file);

	fst_release_file(file);
	if (op->text.have_copy)
		fst_copy_release(&op->text.copy);
	fst_snapshot_free(op->snap, op->snap_size);
	kfree(op);
	return seq_release(inode, file);
}

/* A seek to 0 makes the next read take a fresh copy. */
static loff_t fst_llseek(struct file *file, loff_t off, int whence)
{
	struct seq_file *m = file->private_data;
	struct fst_open *op = fst_open_of(file);
	loff_t ret = seq_lseek(file, off, whence);

	if (ret == 0) {
		mutex_lock(&m->lock);
		if (op->text.have_copy) {
			fst_copy_release(&op->text.copy);
			op->text.have_copy = false;
		}
		mutex_unlock(&m->lock);
	}
	return ret;
}

enum fst_cmd_op { FST_CMD_START, FST_CMD_STOP, FST_CMD_RESET, FST_CMD_FREQ };

struct fst_cmd {
	enum fst_cmd_op op;
	u32 arg;
};

#define FST_MAX_CMDS	8

/* Parses "start", "stop", "reset", "freq=N", one per line. */
static int fst_parse_cmds(char *buf, struct fst_cmd *cmds, int *nr)
{
	char *line;

	*nr = 0;
	while ((line = strsep(&buf, "\n"))) {
		line = strim(line);
		if (!*line)
			continue;
		if (*nr == FST_MAX_CMDS)
			return -EINVAL;
		if (!strcmp(line, "start")) {
			cmds[*nr].op = FST_CMD_START;
		} else if (!strcmp(line, "stop")) {
			cmds[*nr].op = FST_CMD_STOP;
		} else if (!strcmp(line, "reset")) {
			cmds[*nr].op = FST_CMD_RESET;
		} else if (!strncmp(line, "freq=", 5)) {
			cmds[*nr].op = FST_CMD_FREQ;
			if (kstrtou32(line + 5, 10, &cmds[*nr].arg) ||
			    cmds[*nr].arg < FLAMESTAT_MIN_FREQ ||
			    cmds[*nr].arg > FLAMESTAT_MAX_FREQ)
				return -EINVAL;
		} else {
			return -EINVAL;
		}
		(*nr)++;
	}
	return *nr ? 0 : -EINVAL;
}

/*
 * Every command is checked before any is applied. One that the session
 * refuses (start under lockdown, EPERM; freq=N while samples of the old
 * frequency are held, EBUSY: see fst_set_config()) fails the write, the
 * commands before it staying applied: "stop\nreset\nfreq=N\nstart"
 * changes the frequency whatever was sampled.
 */
static ssize_t fst_write(struct file *file, const char __user *ubuf,
			 size_t len, loff_t *ppos)
{
	struct fst_cmd cmds[FST_MAX_CMDS];
	char buf[128];
	int nr, i, err;

	if (!len)
		return 0;
	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	err = fst_parse_cmds(buf, cmds, &nr);
	if (err)
		return err;

	fst_ctl_lock();
	err = fst_may_control_open(file);
	for (i = 0; !err && i < nr; i++) {
		switch (cmds[i].op) {
		case FST_CMD_START:
			err = fst_start();
			break;
		case FST_CMD_STOP:
			fst_stop();
			break;
		case FST_CMD_RESET:
			err = fst_reset();
			break;
		case FST_CMD_FREQ:
			err = fst_set_freq(cmds[i].arg);
			break;
		}
	}
	fst_ctl_unlock();
	return err ?: len;
}

static long fst_ioc_set_config(struct file *file, void __user *arg)
{
	struct flamestat_config *u;
	struct fst_cfg *cfg;
	long err;

	u = kmalloc(sizeof(*u), GFP_KERNEL);
	cfg = kmalloc(sizeof(*cfg), GFP_KERNEL);
	if (!u || !cfg) {
		err = -ENOMEM;
		goto out;
	}
	if (copy_from_user(u, arg, sizeof(*u))) {
		err = -EFAULT;
		goto out;
	}
	err = fst_cfg_from_user(cfg, u);
	if (err)
		goto out;
	fst_ctl_lock();
	err = fst_may_control_open(file) ?: fst_set_config(cfg);
	fst_ctl_unlock();
out:
	kfree(u);
	kfree(cfg);
	return err;
}

static long fst_ioc_get_config(void __user *arg)
{
	struct flamestat_config *u = kmalloc(sizeof(*u), GFP_KERNEL);
	long err = 0;

	if (!u)
		return -ENOMEM;
	fst_ctl_lock();
	fst_get_config(u);
	fst_ctl_unlock();
	if (copy_to_user(arg, u, sizeof(*u)))
		err = -EFAULT;
	kfree(u);
	return err;
}

static long fst_ioc_stats(void __user *arg)
{
	struct flamestat_stats *st = kmalloc(sizeof(*st), GFP_KERNEL);
	long err = 0;

	if (!st)
		return -ENOMEM;
	fst_get_stats(st);
	if (copy_to_user(arg, st, sizeof(*st)))
		err = -EFAULT;
	kfree(st);
	return err;
}

static long fst_ioc_snapshot(struct file *file, void __user *arg)
{
	struct fst_open *op = fst_open_of(file);
	struct flamestat_snapshot req;
	struct fst_copy copy;
	size_t size = 0;
	void *buf = NULL;
	long err;

	if (copy_from_user(&req, arg, sizeof(req)))
		return -EFAULT;
	if ((req.flags & ~FLAMESTAT_SNAP_ALL) || req.reserved)
		return -EINVAL;
	if (req.flags & FLAMESTAT_SNAP_CLEAR) {
		/* Clearing takes the samples away from everyone else. */
		fst_ctl_lock();
		err = fst_may_control_open(file);
		fst_ctl_unlock();
		if (err)
			return err;
	}
	err = fst_copy_take(&copy, req.flags & FLAMESTAT_SNAP_CLEAR);
	if (err)
		return err;
	err = fst_snapshot_build(&copy, op->kaddr_ok, &buf, &size);
	fst_copy_release(&copy);
	if (err)
		return err;

	mutex_lock(&op->lock);
	fst_snapshot_free(op->snap, op->snap_size);
	op->snap = buf;
	op->snap_size = size;
	mutex_unlock(&op->lock);
	req.size = size;
	return copy_to_user(arg, &req, sizeof(req)) ? -EFAULT : 0;
}

static long fst_ioc_read(struct file *file, void __user *arg)
{
	struct fst_open *op = fst_open_of(file);
	struct flamestat_read rd;
	long err = 0;
	u64 n;

	if (copy_from_user(&rd, arg, sizeof(rd)))
		return -EFAULT;
	mutex_lock(&op->lock);
	if (!op->snap) {
		err = -ENODATA;
		goto out;
	}
	if (rd.offset > op->snap_size) {
		err = -EINVAL;
		goto out;
	}
	n = min_t(u64, rd.len, op->snap_size - rd.offset);
	if (n && copy_to_user(u64_to_user_ptr(rd.buf),
			      (u8 *)op->snap + rd.offset, n)) {
		err = -EFAULT;
		goto out;
	}
	rd.copied = n;
	if (copy_to_user(arg, &rd, sizeof(rd)))
		err = -EFAULT;
out:
	mutex_unlock(&op->lock);
	return err;
}

static long fst_ioc_version(void __user *arg)
{
	struct flamestat_version v = {
		.abi_version = FLAMESTAT_ABI_VERSION,
		.nr_cpu_ids = nr_cpu_ids,
	};

	strscpy(v.module_version, FST_VERSION, sizeof(v.module_version));
	return copy_to_user(arg, &v, sizeof(v)) ? -EFAULT : 0;
}

/*
 * Root takes the session over from whichever file holds it: a member of
 * the flamestat group can hold it for as long as it keeps the file open,
 * and a hung tool forever.
 */
static long fst_ioc_claim_force(struct file *file)
{
	struct file *prev;

	if (!(file->f_mode & FMODE_WRITE))
		return -EBADF;
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	fst_ctl_lock();
	prev = fst_claim_force(file);
	if (prev)
		fst_open_of(prev)->claim_lost = true;
	fst_ctl_unlock();
	return 0;
}

static long fst_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;
	long err;

	switch (cmd) {
	case FLAMESTAT_IOC_VERSION:
		return fst_ioc_version(uarg);
	case FLAMESTAT_IOC_GET_CONFIG:
		return fst_ioc_get_config(uarg);
	case FLAMESTAT_IOC_SET_CONFIG:
		return fst_ioc_set_config(file, uarg);
	case FLAMESTAT_IOC_GET_STATS:
		return fst_ioc_stats(uarg);
	case FLAMESTAT_IOC_SNAPSHOT:
		return fst_ioc_snapshot(file, uarg);
	case FLAMESTAT_IOC_READ:
		return fst_ioc_read(file, uarg);
	case FLAMESTAT_IOC_CLAIM_FORCE:
		return fst_ioc_claim_force(file);
	case FLAMESTAT_IOC_START:
	case FLAMESTAT_IOC_STOP:
	case FLAMESTAT_IOC_RESET:
	case FLAMESTAT_IOC_CLAIM:
	case FLAMESTAT_IOC_UNCLAIM:
		break;
	default:
		return -ENOTTY;
	}

	fst_ctl_lock();
	err = fst_may_control_open(file);
	if (err)
		goto out;
	switch (cmd) {
	case FLAMESTAT_IOC_START:
		err = fst_start();
		break;
	case FLAMESTAT_IOC_STOP:
		fst_stop();
		break;
	case FLAMESTAT_IOC_RESET:
		err = fst_reset();
		break;
	case FLAMESTAT_IOC_CLAIM:
		fst_claim(file);
		break;
	case FLAMESTAT_IOC_UNCLAIM:
		err = fst_unclaim(file);
		break;
	}
out:
	fst_ctl_unlock();
	return err;
}

static const struct file_operations fst_fops = {
	.owner = THIS_MODULE,
	.open = fst_open,
	.release = fst_release,
	.read = seq_read,
	.llseek = fst_llseek,
	.write = fst_write,
	.unlocked_ioctl = fst_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

/* /sys/class/misc/flamestat/stats: the counters, "name value" per line. */
static ssize_t stats_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	static const char * const drop_names[FLAMESTAT_NR_DROPS] = {
		"idle", "filtered", "mode", "no_regs", "cpu_table_full",
		"table_full", "probe",
	};
	struct flamestat_stats *st = kmalloc(sizeof(*st), GFP_KERNEL);
	int i, n;

	if (!st)
		return -ENOMEM;
	fst_get_stats(st);
	n = sysfs_emit(buf,
		       "running %u\nsamples %llu\nrecorded %llu\n",
		       !!(st->state & FLAMESTAT_STATE_RUNNING), st->samples,
		       st->recorded);
	for (i = 0; i < FLAMESTAT_NR_DROPS; i++)
		n += sysfs_emit_at(buf, n, "dropped_%s %llu\n", drop_names[i],
				   st->dropped[i]);
	n += sysfs_emit_at(buf, n,
			   "overruns %llu\nkernel_truncated %llu\nuser_truncated %llu\nuser_fault %llu\nuser_compat %llu\nidle_irq %llu\nunmapped_procs %llu\nstacks %llu\nprocs %llu\nmem_used %llu\nmem_total %llu\ncost_ns %llu\ncost_max_ns %llu\nrunning_ns %llu\ncpus %u\nlockdown %u\nbuildid_uncached %llu\nmaps_busy %llu\nmaps_truncated %llu\nprobe_max %llu\nreader_mem %llu\n",
			   st->overruns, st->kernel_truncated,
			   st->user_truncated, st->user_fault, st->user_compat,
			   st->idle_irq, st->unmapped_procs, st->stacks,
			   st->procs, st->mem_used, st->mem_total, st->cost_ns,
			   st->cost_max_ns, st->running_ns, st->nr_cpus,
			   !!(st->state & FLAMESTAT_STATE_LOCKDOWN),
			   st->buildid_uncached, st->maps_busy,
			   st->maps_truncated, st->probe_max, st->reader_mem);
	kfree(st);
	return n;
}

#ifndef DEVICE_ATTR_ADMIN_RO	/* 5.8 */
#define DEVICE_ATTR_ADMIN_RO(_name) DEVICE_ATTR(_name, 0400, _name##_show, NULL)
#endif
static DEVICE_ATTR_ADMIN_RO(stats);

static struct attribute *fst_attrs[] = {
	&dev_attr_stats.attr,
	NULL,
};
ATTRIBUTE_GROUPS(fst);

static struct miscdevice fst_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "flamestat",
	.fops = &fst_fops,
	.groups = fst_groups,
	.mode = 0600,
};

/*
 * With group=GID the node becomes root:GID 0660. devtmpfs creates it
 * root:root, and no miscdevice field names a group, so set it on the node
 * the way chown(2) would. Process context (module init).
 */
static void fst_device_set_group(void)
{
	struct iattr attr = {
		.ia_valid = ATTR_GID | ATTR_MODE,
		.ia_gid = make_kgid(&init_user_ns, fst_gid),
		.ia_mode = S_IFCHR | 0660,
	};
	struct path path;
	struct inode *inode;
	int err;

	if (!gid_valid(attr.ia_gid)) {
		pr_warn("group=%d is not a valid gid; /dev/flamestat stays root-only\n",
			fst_gid);
		return;
	}
	err = kern_path(FLAMESTAT_DEVICE, 0, &path);
	if (err) {
		pr_warn("group=%d: %s not found (%d); set its group by hand or with a udev rule\n",
			fst_gid, FLAMESTAT_DEVICE, err);
		return;
	}
	inode = d_inode(path.dentry);
	if (!S_ISCHR(inode->i_mode) || inode->i_rdev != fst_misc.this_device->devt) {
		pr_warn("%s is not this device; group not set\n",
			FLAMESTAT_DEVICE);
		goto out;
	}
	err = mnt_want_write(path.mnt);
	if (err)
		goto out_warn;
	inode_lock(inode);
#if defined(FST_HAVE_NOTIFY_CHANGE_IDMAP)
	err = notify_change(&nop_mnt_idmap, path.dentry, &attr, NULL);
#elif defined(FST_HAVE_NOTIFY_CHANGE_USERNS)
	err = notify_change(&init_user_ns, path.dentry, &attr, NULL);
#else
	err = notify_change(path.dentry, &attr, NULL);
#endif
	inode_unlock(inode);
	mnt_drop_write(path.mnt);
out_warn:
	if (err)
		pr_warn("group=%d: could not change %s (%d)\n", fst_gid,
			FLAMESTAT_DEVICE, err);
out:
	path_put(&path);
}

/**
 * fst_device_register() - create /dev/flamestat
 * @gid: a group also allowed to open it (the node becomes root:@gid 0660),
 *	or -1 for root only
 *
 * Context: process context (module init).
 * Return: 0, or the error of misc_register().
 */
int fst_device_register(int gid)
{
	int err;

	fst_gid = gid;
	if (fst_gid >= 0)
		fst_misc.mode = 0660;
	err = misc_register(&fst_misc);
	if (err)
		return err;
	if (fst_gid >= 0)
		fst_device_set_group();
	return 0;
}

/**
 * fst_device_unregister() - remove /dev/flamestat
 *
 * Context: process context (module exit); no file is open any more.
 */
void fst_device_unregister(void)
{
	misc_deregister(&fst_misc);
}
