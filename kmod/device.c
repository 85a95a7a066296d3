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
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "device.h"
#include "kstack_cache.h"
#include "offcpu.h"
#include "output.h"
#include "procdb.h"
#include "session.h"

/*
 * group= at load, kept so that existing modprobe.d lines still load: its
 * members may also open the device, if the node's mode lets them through
 * the VFS. -1 (or any negative value): no such group.
 */
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

/*
 * May the opener use the device? The VFS has already checked the node's
 * mode (0600 root:root as the module creates it; the udev rule shipped
 * with flamestat makes it root:flamestat 0660). Then: CAP_PERFMON (or
 * CAP_SYS_ADMIN before 5.8), a member of the group= gid, or a member of
 * the node's own group when the node grants that group read and write.
 * The last is what lets a udev rule alone give a group the device.
 */
static bool fst_may_open(const struct inode *inode)
{
#ifdef FST_HAVE_PERFMON_CAPABLE
	if (perfmon_capable())
		return true;
#else
	if (capable(CAP_SYS_ADMIN))
		return true;
#endif
	/* group= was given at load time, in the initial user namespace. */
	if (fst_gid >= 0 && in_group_p(make_kgid(&init_user_ns, fst_gid)))
		return true;
	/* 0060: the group's read and write bits, as the rule's MODE="0660". */
	return (inode->i_mode & 0060) == 0060 && in_group_p(inode->i_gid);
}

static int fst_open(struct inode *inode, struct file *file)
{
	struct fst_open *op;
	int err;

	if (!fst_may_open(inode))
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

enum fst_cmd_op {
	FST_CMD_START, FST_CMD_STOP, FST_CMD_RESET, FST_CMD_FREQ, FST_CMD_MODE
};

struct fst_cmd {
	enum fst_cmd_op op;
	u32 arg;
};

#define FST_MAX_CMDS	8

/* Parses "start", "stop", "reset", "freq=N", "mode=M", one per line. */
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
		} else if (!strncmp(line, "mode=", 5)) {
			int m = fst_mode_parse(line + 5);

			if (m < 0)
				return -EINVAL;
			cmds[*nr].op = FST_CMD_MODE;
			cmds[*nr].arg = m;
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
 * refuses (start under lockdown, EPERM; freq=N or mode=M while samples of
 * the old frequency or mode are held, EBUSY: see fst_set_config()) fails
 * the write, the
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
		case FST_CMD_MODE:
			err = fst_set_mode(cmds[i].arg);
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

/*
 * GET_STATS copies as much of struct flamestat_stats as the caller's size
 * asks for: tools built before a field was added pass a smaller one
 * (FLAMESTAT_IOC_GET_STATS_V1).
 */
static long fst_ioc_stats(void __user *arg, size_t size)
{
	struct flamestat_stats *st = kmalloc(sizeof(*st), GFP_KERNEL);
	long err = 0;

	if (!st)
		return -ENOMEM;
	fst_get_stats(st);
	if (copy_to_user(arg, st, size))
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
	/* No snapshot: what CLEAR took goes back, to be read next time. */
	if (err)
		fst_copy_restore(&copy);
	fst_copy_release(&copy);
	if (err)
		return err;
	req.flags &= ~FLAMESTAT_SNAP_DEFLATED;
	if (req.flags & FLAMESTAT_SNAP_DEFLATE) {
		size_t zsize;
		void *zbuf;

		/*
		 * Failing that (no zlib here, no memory), the plain one:
		 * CLEAR has taken the samples.
		 */
		if (!fst_snapshot_deflate(buf, size, &zbuf, &zsize)) {
			fst_snapshot_free(buf, size);
			buf = zbuf;
			size = zsize;
			req.flags |= FLAMESTAT_SNAP_DEFLATED;
		}
	}

	mutex_lock(&op->lock);
	fst_snapshot_free(op->snap, op->snap_size);
	op->snap = buf;
	op->snap_size = size;
	mutex_unlock(&op->lock);
	req.size = size;
	return copy_to_user(arg, &req, sizeof(req)) ? -EFAULT : 0;
}

/* Bytes readers copied out of binary snapshots since the load (stats). */
static atomic64_t fst_snapshot_read_bytes = ATOMIC64_INIT(0);

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
	atomic64_add(n, &fst_snapshot_read_bytes);
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

	if (_IOC_TYPE(cmd) == FLAMESTAT_IOC_MAGIC && _IOC_NR(cmd) ==
	    _IOC_NR(FLAMESTAT_IOC_GET_STATS) && _IOC_DIR(cmd) == _IOC_READ &&
	    _IOC_SIZE(cmd) >= FLAMESTAT_STATS_SIZE_V1 &&
	    _IOC_SIZE(cmd) <= sizeof(struct flamestat_stats) &&
	    _IOC_SIZE(cmd) % sizeof(u64) == 0)
		return fst_ioc_stats(uarg, _IOC_SIZE(cmd));

	switch (cmd) {
	case FLAMESTAT_IOC_VERSION:
		return fst_ioc_version(uarg);
	case FLAMESTAT_IOC_GET_CONFIG:
		return fst_ioc_get_config(uarg);
	case FLAMESTAT_IOC_SET_CONFIG:
		return fst_ioc_set_config(file, uarg);
	case FLAMESTAT_IOC_GET_STATS:
		return fst_ioc_stats(uarg, sizeof(struct flamestat_stats));
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
	static const char * const offdrop_names[FLAMESTAT_NR_OFFDROPS] = {
		[FLAMESTAT_OFFDROP_SHORT] = "short",
		[FLAMESTAT_OFFDROP_FILTERED] = "filtered",
		[FLAMESTAT_OFFDROP_MODE] = "mode",
		[FLAMESTAT_OFFDROP_NO_SLOT] = "no_slot",
		[FLAMESTAT_OFFDROP_CPU_TABLE_FULL] = "cpu_table_full",
		[FLAMESTAT_OFFDROP_PROBE] = "probe",
		[FLAMESTAT_OFFDROP_UNFINISHED] = "unfinished",
		[FLAMESTAT_OFFDROP_TABLE_FULL] = "table_full",
		[FLAMESTAT_OFFDROP_EVICTED] = "evicted",
	};
	static const char * const drop_names[FLAMESTAT_NR_DROPS] = {
		"idle", "filtered", "mode", "no_regs", "cpu_table_full",
		"table_full", "probe", "evicted", "throttled",
	};
	static const char * const stop_names[FLAMESTAT_NR_UNWIND_STOPS] = {
		[FLAMESTAT_UNWIND_STOP_NO_TABLE] = "no_table",
		[FLAMESTAT_UNWIND_STOP_UNSUP] = "unsupported",
		[FLAMESTAT_UNWIND_STOP_REG] = "register",
		[FLAMESTAT_UNWIND_STOP_BAD] = "bad",
	};
	static const char * const fail_names[FLAMESTAT_NR_UNWIND_FAILS] = {
		[FLAMESTAT_UNWIND_FAIL_NONE] = "none",
		[FLAMESTAT_UNWIND_FAIL_BAD] = "bad",
		[FLAMESTAT_UNWIND_FAIL_BIG] = "big",
		[FLAMESTAT_UNWIND_FAIL_MEM] = "memory",
	};
	struct flamestat_stats *st = kmalloc(sizeof(*st), GFP_KERNEL);
	u64 kept_tables, kept_bytes, kept_reused, eh_peak;
	struct fst_kcache_counts kc;
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
			   "overruns %llu\nkernel_truncated %llu\nuser_truncated %llu\nuser_fault %llu\nuser_compat %llu\nidle_irq %llu\nunmapped_procs %llu\nstacks %llu\nprocs %llu\nmem_used %llu\nmem_total %llu\ncost_ns %llu\ncost_max_ns %llu\nrunning_ns %llu\ncpus %u\nlockdown %u\nbuildid_uncached %llu\nmaps_busy %llu\nmaps_truncated %llu\nprobe_max %llu\nreader_mem %llu\nprocs_recycled %llu\nthrottled_now %u\n",
			   st->overruns, st->kernel_truncated,
			   st->user_truncated, st->user_fault, st->user_compat,
			   st->idle_irq, st->unmapped_procs, st->stacks,
			   st->procs, st->mem_used, st->mem_total, st->cost_ns,
			   st->cost_max_ns, st->running_ns, st->nr_cpus,
			   !!(st->state & FLAMESTAT_STATE_LOCKDOWN),
			   st->buildid_uncached, st->maps_busy,
			   st->maps_truncated, st->probe_max, st->reader_mem,
			   st->procs_recycled,
			   !!(st->state & FLAMESTAT_STATE_THROTTLED));
	n += sysfs_emit_at(buf, n, "offcpu_blocks %llu\noffcpu_recorded %llu\n",
			   st->offcpu_blocks, st->offcpu_recorded);
	for (i = 0; i < FLAMESTAT_NR_OFFDROPS; i++)
		n += sysfs_emit_at(buf, n, "offcpu_dropped_%s %llu\n",
				   offdrop_names[i], st->offcpu_dropped[i]);
	n += sysfs_emit_at(buf, n,
			   "offcpu_ns %llu\noffcpu_tasks %llu\noffcpu_tasks_max %llu\n",
			   st->offcpu_ns, st->offcpu_tasks,
			   st->offcpu_tasks_max);
	n += sysfs_emit_at(buf, n,
			   "unwind_table %llu\nunwind_mixed %llu\nunwind_fp %llu\n",
			   st->unwind_table, st->unwind_mixed, st->unwind_fp);
	for (i = 0; i < FLAMESTAT_NR_UNWIND_STOPS; i++)
		n += sysfs_emit_at(buf, n, "unwind_stop_%s %llu\n",
				   stop_names[i], st->unwind_stop[i]);
	n += sysfs_emit_at(buf, n,
			   "unwind_tables %llu\nunwind_bytes %llu\nunwind_uncached %llu\n",
			   st->unwind_tables, st->unwind_bytes,
			   st->unwind_uncached);
	for (i = 0; i < FLAMESTAT_NR_UNWIND_FAILS; i++)
		n += sysfs_emit_at(buf, n, "unwind_failed_%s %llu\n",
				   fail_names[i], st->unwind_failed[i]);
	/* Not in struct flamestat_stats: tables kept across records. */
	fst_procdb_eh_kept_stats(&kept_tables, &kept_bytes, &kept_reused,
				 &eh_peak);
	n += sysfs_emit_at(buf, n,
			   "unwind_kept_tables %llu\nunwind_kept_bytes %llu\nunwind_reused %llu\nunwind_peak_bytes %llu\nunwind_vdso_bytes %llu\n",
			   kept_tables, kept_bytes, kept_reused, eh_peak,
			   fst_procdb_eh_vdso_bytes());
	/* Since the module was loaded; not in struct flamestat_stats. */
	fst_kcache_counts(FST_KCACHE_SWITCH, &kc);
	n += sysfs_emit_at(buf, n,
			   "kstack_cache_hits %llu\nkstack_cache_walks %llu\nkstack_cache_wrong %llu\n",
			   kc.hits, kc.walks, kc.wrong);
	fst_kcache_counts(FST_KCACHE_SAMPLE, &kc);
	n += sysfs_emit_at(buf, n,
			   "kstack_cache_sample_hits %llu\nkstack_cache_sample_walks %llu\nkstack_cache_sample_wrong %llu\n",
			   kc.hits, kc.walks, kc.wrong);
	n += sysfs_emit_at(buf, n, "offcpu_recent_hits %llu\n",
			   fst_offcpu_recent_hits());
	n += sysfs_emit_at(buf, n, "snapshot_read_bytes %lld\n",
			   (long long)atomic64_read(&fst_snapshot_read_bytes));
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

/**
 * fst_device_register() - create /dev/flamestat
 * @gid: a group whose members may also open it, or negative for none
 *
 * The node is created root:root 0600 whatever @gid is; its group and mode
 * are for udev (the rule flamestat ships) or the administrator to set.
 *
 * Context: process context (module init).
 * Return: 0, or the error of misc_register().
 */
int fst_device_register(int gid)
{
	fst_gid = gid;
	return misc_register(&fst_misc);
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
