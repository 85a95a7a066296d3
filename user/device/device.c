// SPDX-License-Identifier: GPL-2.0
/* Talking to /dev/flamestat: open (loading the module), ioctls, snapshots. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "device/device.h"
#include "device/loadpolicy.h"
#include "profile/snapzip.h"
#include "lib/util.h"

/* Parameters for a module the tool loads itself: wait to be configured. */
#define FS_LOAD_PARAMS	"autostart=0"

const char *fs_drop_name(int reason)
{
	static const char *const names[FLAMESTAT_NR_DROPS] = {
		[FLAMESTAT_DROP_IDLE] = "idle",
		[FLAMESTAT_DROP_FILTERED] = "filtered",
		[FLAMESTAT_DROP_MODE] = "mode",
		[FLAMESTAT_DROP_NO_REGS] = "no-regs",
		[FLAMESTAT_DROP_CPU_TABLE_FULL] = "cpu-table-full",
		[FLAMESTAT_DROP_TABLE_FULL] = "table-full",
		[FLAMESTAT_DROP_PROBE] = "long-probe",
		[FLAMESTAT_DROP_EVICTED] = "evicted",
		[FLAMESTAT_DROP_THROTTLED] = "throttled",
	};

	if (reason < 0 || reason >= FLAMESTAT_NR_DROPS)
		return "unknown";
	return names[reason];
}

const char *fs_offdrop_name(int reason)
{
	static const char *const names[FLAMESTAT_NR_OFFDROPS] = {
		[FLAMESTAT_OFFDROP_SHORT] = "short",
		[FLAMESTAT_OFFDROP_FILTERED] = "filtered",
		[FLAMESTAT_OFFDROP_MODE] = "mode",
		[FLAMESTAT_OFFDROP_NO_SLOT] = "no-slot",
		[FLAMESTAT_OFFDROP_CPU_TABLE_FULL] = "cpu-table-full",
		[FLAMESTAT_OFFDROP_PROBE] = "long-probe",
		[FLAMESTAT_OFFDROP_UNFINISHED] = "unfinished",
		[FLAMESTAT_OFFDROP_TABLE_FULL] = "table-full",
		[FLAMESTAT_OFFDROP_EVICTED] = "evicted",
	};

	if (reason < 0 || reason >= FLAMESTAT_NR_OFFDROPS)
		return "unknown";
	return names[reason];
}

const char *fs_unwind_stop_name(int reason)
{
	static const char *const names[FLAMESTAT_NR_UNWIND_STOPS] = {
		[FLAMESTAT_UNWIND_STOP_NO_TABLE] = "no-table",
		[FLAMESTAT_UNWIND_STOP_UNSUP] = "unsupported-rule",
		[FLAMESTAT_UNWIND_STOP_REG] = "register",
		[FLAMESTAT_UNWIND_STOP_BAD] = "bad-rule",
	};

	if (reason < 0 || reason >= FLAMESTAT_NR_UNWIND_STOPS)
		return "unknown";
	return names[reason];
}

const char *fs_unwind_fail_name(int reason)
{
	static const char *const names[FLAMESTAT_NR_UNWIND_FAILS] = {
		[FLAMESTAT_UNWIND_FAIL_NONE] = "no-eh-frame",
		[FLAMESTAT_UNWIND_FAIL_BAD] = "malformed",
		[FLAMESTAT_UNWIND_FAIL_BIG] = "too-big",
		[FLAMESTAT_UNWIND_FAIL_MEM] = "no-memory",
	};

	if (reason < 0 || reason >= FLAMESTAT_NR_UNWIND_FAILS)
		return "unknown";
	return names[reason];
}

/*
 * "97.1% by unwind tables, 0.2% by tables and frame pointers, 2.7% by
 * frame pointers; 12 walks stopped early (no-table 12)", or "" when the
 * module counts none (a module before unwind tables, or no user stacks).
 */
const char *fs_unwind_shares(char *buf, size_t size,
			     const struct flamestat_stats *st)
{
	uint64_t all = st->unwind_table + st->unwind_mixed + st->unwind_fp;
	uint64_t stops = 0;
	char a[16], b[16], c[16];
	size_t n;
	int i;

	buf[0] = '\0';
	if (!all)
		return buf;
	snprintf(buf, size,
		 "%s by unwind tables, %s by tables and frame pointers, %s by frame pointers",
		 fmt_share(a, sizeof(a), st->unwind_table, all),
		 fmt_share(b, sizeof(b), st->unwind_mixed, all),
		 fmt_share(c, sizeof(c), st->unwind_fp, all));
	for (i = 0; i < FLAMESTAT_NR_UNWIND_STOPS; i++)
		stops += st->unwind_stop[i];
	if (!stops)
		return buf;
	n = strlen(buf);
	snprintf(buf + n, size - n, "; %llu walks stopped early (",
		 (unsigned long long)stops);
	for (i = 0; i < FLAMESTAT_NR_UNWIND_STOPS; i++) {
		if (!st->unwind_stop[i])
			continue;
		n = strlen(buf);
		snprintf(buf + n, size - n, "%s%s %llu",
			 buf[n - 1] == '(' ? "" : ", ", fs_unwind_stop_name(i),
			 (unsigned long long)st->unwind_stop[i]);
	}
	n = strlen(buf);
	snprintf(buf + n, size - n, ")");
	return buf;
}

bool fs_module_loaded(void)
{
	return access("/sys/module/flamestat", F_OK) == 0;
}

int fs_module_cpu_max_percent(void)
{
	FILE *f = fopen("/sys/module/flamestat/parameters/cpu_max_percent",
			"re");
	char line[32];
	uint64_t v;
	int ret = -1;

	if (!f)
		return -1;
	if (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!parse_u64(line, 0, INT32_MAX, &v))
			ret = (int)v;
	}
	fclose(f);
	return ret;
}

/* The module file beside the tool, or in the build tree it came from. */
static char *find_module_file(void)
{
	static const char *const rel[] = {
		"flamestat.ko",
		"../kmod/flamestat.ko",
		"../lib/flamestat/flamestat.ko",
	};
	size_t i;

	for (i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		char *p = exe_relative_file(rel[i]);

		if (p)
			return p;
	}
	return NULL;
}

/*
 * The errno behind modprobe's "could not insert 'flamestat': <reason>", or
 * 0. The reason is strerror() (modprobe and this tool run with LC_ALL=C),
 * except for the two that kmod words itself.
 */
static int modprobe_errno(const char *msg)
{
	static const int candidates[] = {
		EKEYREJECTED, ENOKEY, EBADMSG, EPERM, EINVAL, ENOMEM, EBUSY,
		ENOSYS,
	};
	const char *p = strstr(msg, "could not insert");
	size_t i;

	if (!p || !(p = strstr(p, "': ")))
		return 0;
	p += 3;
	if (!strncmp(p, "Invalid module format", 21))
		return ENOEXEC;
	if (!strncmp(p, "Unknown symbol in module", 24))
		return ENOENT;
	for (i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++) {
		const char *text = strerror(candidates[i]);

		if (!strncmp(p, text, strlen(text)))
			return candidates[i];
	}
	return 0;
}

/*
 * One line naming why the kernel refused @path with @err (0: unknown;
 * @detail then says what modprobe said) and what to do.
 */
static int explain_load_error(const char *path, int err, const char *detail)
{
	struct fs_load_policy pol;
	char why[1024];

	switch (err) {
	case EPERM:
		if (getuid() != 0 && geteuid() != 0) {
			fs_err("loading the module needs root: run flamestat with sudo");
			return EXIT_PERM;
		}
		/* Lockdown refuses an unsigned module with EPERM. */
		__attribute__((fallthrough));
	case EKEYREJECTED:
	case ENOKEY:
	case EBADMSG:
	case 0:
		fs_load_policy_read(&pol, path);
		if (fs_load_policy_refusal(&pol, why, sizeof(why)) != FS_NO)
			fs_err("the kernel refused the module: %s", why);
		else if (err == EPERM)
			fs_err("the kernel refused to load %s (Operation not permitted; a security module may forbid loading modules): see 'flamestat status'",
			       path);
		else if (err)
			fs_err("the kernel refused %s: it is not signed by a key the kernel trusts (%s); see 'flamestat status' and SECURE-BOOT.md in flamestat's documentation",
			       path, strerror(err));
		else
			fs_err("cannot load %s: %s", path, detail);
		return EXIT_NOMODULE;
	case ENOSYS:
		fs_err("this kernel cannot load modules (built without module support): flamestat needs a kernel with CONFIG_MODULES");
		return EXIT_NOMODULE;
	case ENOEXEC:
	case EINVAL:
		fs_err("%s was built for another kernel: rebuild it with 'make KVER=$(uname -r)' or reinstall flamestat-dkms",
		       path);
		return EXIT_NOMODULE;
	case ENOENT:
		fs_err("the kernel refused %s: unknown symbol or unknown parameter (see dmesg): rebuild it for this kernel, or check the options in /etc/modprobe.d",
		       path);
		return EXIT_NOMODULE;
	default:
		fs_err("cannot load %s: %s", path, strerror(err));
		return EXIT_NOMODULE;
	}
}

/*
 * A kernel that loads no module at all (built without module support, or
 * kernel.modules_disabled=1): says why, in the words of 'flamestat
 * status', and returns true.
 */
static bool kernel_loads_no_module(const struct fs_load_policy *pol)
{
	char why[1024];

	if (pol->modules_supported != FS_NO && pol->modules_disabled != FS_YES)
		return false;
	fs_load_policy_refusal(pol, why, sizeof(why));
	fs_err("the flamestat module is not loaded, and the kernel will refuse the module: %s (see 'flamestat status')",
	       why);
	return true;
}

static int load_module(struct fs_dev *dev)
{
	struct fs_load_policy pol;
	char msg[1024], why[1024];
	char *path;
	int fd, err, rc;

	if (geteuid() != 0) {
		fs_load_policy_read(&pol, NULL);
		if (kernel_loads_no_module(&pol))
			return EXIT_NOMODULE;
		fs_err("the flamestat module is not loaded, and loading it needs root: run 'sudo flamestat ...' or 'sudo modprobe flamestat'");
		return EXIT_PERM;
	}
	rc = fs_run_capture((char *const[]){ "modprobe", "flamestat",
					     FS_LOAD_PARAMS, NULL },
			    2, msg, sizeof(msg));
	if (rc == 0) {
		dev->loaded_module = true;
		return 0;
	}
	msg[strcspn(msg, "\n")] = '\0';
	/* Installed for this kernel, so the kernel said no: say why. */
	fs_load_policy_read(&pol, NULL);
	if (kernel_loads_no_module(&pol))
		return EXIT_NOMODULE;
	if (pol.installed == FS_YES)
		return explain_load_error(pol.path, modprobe_errno(msg), msg);

	path = find_module_file();
	if (!path) {
		/* Lockdown or enforced signatures: an unsigned build will not do. */
		if (fs_load_policy_refusal(&pol, why, sizeof(why)) != FS_NO)
			fs_err("the flamestat module is not installed: install flamestat-dkms, or build it with 'make' and run the tool from the build tree; but note: %s",
			       why);
		else
			fs_err("the flamestat module is not installed: install flamestat-dkms, or build it with 'make' and run the tool from the build tree");
		return EXIT_NOMODULE;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fs_perror("cannot open %s", path);
		free(path);
		return EXIT_NOMODULE;
	}
	err = syscall(SYS_finit_module, fd, FS_LOAD_PARAMS, 0) ? errno : 0;
	close(fd);
	if (err && err != EEXIST) {
		err = explain_load_error(path, err, strerror(err));
		free(path);
		return err;
	}
	free(path);
	dev->loaded_module = true;
	return 0;
}

/* devtmpfs creates the node at once; udev may take a moment to adjust it. */
static int open_retry(int tries)
{
	struct timespec ts = { 0, 50L * 1000 * 1000 };
	int fd = -1;

	while (tries-- > 0) {
		fd = open(FLAMESTAT_DEVICE, O_RDWR | O_CLOEXEC);
		if (fd >= 0 || (errno != ENOENT && errno != ENXIO &&
				errno != ENODEV))
			break;
		nanosleep(&ts, NULL);
	}
	return fd;
}

int fs_dev_open(struct fs_dev *dev, bool load)
{
	int err;

	memset(dev, 0, sizeof(*dev));
	dev->fd = open(FLAMESTAT_DEVICE, O_RDWR | O_CLOEXEC);
	if (dev->fd < 0 && (errno == ENOENT || errno == ENXIO ||
			    errno == ENODEV)) {
		if (fs_module_loaded()) {
			fs_err("the module is loaded but %s is missing: is devtmpfs mounted on /dev?",
			       FLAMESTAT_DEVICE);
			return EXIT_NOMODULE;
		}
		if (!load) {
			fs_err("the flamestat module is not loaded: run 'sudo modprobe flamestat' (or 'flamestat record', which loads it)");
			return EXIT_NOMODULE;
		}
		err = load_module(dev);
		if (err)
			return err;
		dev->fd = open_retry(40);
	}
	if (dev->fd < 0) {
		if (errno == EACCES || errno == EPERM) {
			fs_err("permission denied on %s: run as root, or as a member of the device's group (flamestat, from its udev rule; see flamestat(4))",
			       FLAMESTAT_DEVICE);
			return EXIT_PERM;
		}
		fs_perror("cannot open %s", FLAMESTAT_DEVICE);
		return EXIT_FAIL;
	}
	if (ioctl(dev->fd, FLAMESTAT_IOC_VERSION, &dev->version)) {
		fs_perror("%s does not answer the flamestat ABI (wrong device?)",
			  FLAMESTAT_DEVICE);
		fs_dev_close(dev);
		return EXIT_ABI;
	}
	if (dev->version.abi_version != FLAMESTAT_ABI_VERSION) {
		fs_err("the loaded module speaks ABI %u but this tool speaks ABI %d: load the module from the same flamestat version (rmmod flamestat; reinstall)",
		       dev->version.abi_version, FLAMESTAT_ABI_VERSION);
		fs_dev_close(dev);
		return EXIT_ABI;
	}
	return 0;
}

void fs_dev_close(struct fs_dev *dev)
{
	if (dev->fd >= 0)
		close(dev->fd);
	dev->fd = -1;
}

int fs_dev_get_config(struct fs_dev *dev, struct flamestat_config *cfg)
{
	return ioctl(dev->fd, FLAMESTAT_IOC_GET_CONFIG, cfg);
}

int fs_dev_set_config(struct fs_dev *dev, const struct flamestat_config *cfg)
{
	return ioctl(dev->fd, FLAMESTAT_IOC_SET_CONFIG, cfg);
}

/*
 * Older modules know GET_STATS only by its older, smaller sizes (before
 * unwind tables: V2; before the off-CPU counters: V1): ENOTTY for this
 * one. The counters they lack are 0.
 */
int fs_dev_get_stats(struct fs_dev *dev, struct flamestat_stats *st)
{
	if (!ioctl(dev->fd, FLAMESTAT_IOC_GET_STATS, st))
		return 0;
	if (errno != ENOTTY)
		return -1;
	memset(st, 0, sizeof(*st));
	if (!ioctl(dev->fd, FLAMESTAT_IOC_GET_STATS_V2, st))
		return 0;
	if (errno != ENOTTY)
		return -1;
	memset(st, 0, sizeof(*st));
	return ioctl(dev->fd, FLAMESTAT_IOC_GET_STATS_V1, st);
}

/*
 * The module keeps its frequency while it holds samples taken at it
 * since the last reset: counts at two frequencies cannot be added.
 */
void fs_dev_set_config_perror(struct fs_dev *dev,
			      const struct flamestat_config *cfg,
			      const char *what)
{
	struct flamestat_config cur;
	struct flamestat_stats st;
	int e = errno;

	if (e == EBUSY && !fs_dev_get_config(dev, &cur) &&
	    cur.freq_hz != cfg->freq_hz && !fs_dev_get_stats(dev, &st) &&
	    st.samples) {
		fs_err("%s: the module holds %llu samples taken at %u Hz since its last reset, and samples at %u Hz cannot be added to them: stop and reset it first ('echo stop > %s; echo reset > %s'), or use 'flamestat record', which resets",
		       what, (unsigned long long)st.samples, cur.freq_hz,
		       cfg->freq_hz, FLAMESTAT_DEVICE, FLAMESTAT_DEVICE);
		return;
	}
	errno = e;
	fs_perror("%s", what);
}

void fs_dev_snapshot_perror(const char *what)
{
	if (errno == ENOBUFS)
		fs_err("%s: other readers of %s hold all the memory its module lets readers have (module parameter reader_kb, /sys/module/flamestat/parameters/reader_kb); retry when they are done, or load it with a larger reader_kb",
		       what, FLAMESTAT_DEVICE);
	else
		fs_perror("%s", what);
}

int fs_dev_cmd(struct fs_dev *dev, unsigned long cmd)
{
	return ioctl(dev->fd, cmd, 0);
}

int fs_dev_snapshot(struct fs_dev *dev, unsigned int flags, void **bufp,
		    size_t *sizep)
{
	struct flamestat_snapshot req = { .flags = flags };
	struct flamestat_read rd = { 0 };
	struct timespec pause = { 0, 100000000 };
	unsigned char *buf;
	int tries = 0;

	/* Compressed, a quarter of the bytes, where the module can. */
	if (!dev->no_deflate)
		req.flags |= FLAMESTAT_SNAP_DEFLATE;
	/*
	 * ENOBUFS: other readers hold all the memory the module lets
	 * readers have (reader_kb); theirs is freed as they finish. A
	 * recording is worth waiting 10 s for. EINVAL to DEFLATE: a module
	 * older than it, which changed nothing (CLEAR included).
	 */
	while (ioctl(dev->fd, FLAMESTAT_IOC_SNAPSHOT, &req)) {
		if (errno == EINVAL && (req.flags & FLAMESTAT_SNAP_DEFLATE)) {
			dev->no_deflate = true;
			req.flags = flags;
			continue;
		}
		if (errno != ENOBUFS || ++tries > 100)
			return -1;
		nanosleep(&pause, NULL);
	}
	buf = xmalloc(req.size);
	while (rd.offset < req.size) {
		rd.buf = (unsigned long)(buf + rd.offset);
		rd.len = req.size - rd.offset;
		if (ioctl(dev->fd, FLAMESTAT_IOC_READ, &rd)) {
			int err = errno;

			free(buf);
			errno = err;
			return -1;
		}
		if (!rd.copied)
			break;
		rd.offset += rd.copied;
	}
	if (rd.offset != req.size) {
		free(buf);
		errno = EIO;
		return -1;
	}
	if (req.flags & FLAMESTAT_SNAP_DEFLATED) {
		char err[256];
		void *plain;
		size_t size;

		if (snapzip_inflate(buf, req.size, &plain, &size, err, sizeof(err))) {
			fs_err("the module's compressed snapshot: %s", err);
			free(buf);
			errno = EIO;
			return -1;
		}
		free(buf);
		*bufp = plain;
		*sizep = size;
		return 0;
	}
	*bufp = buf;
	*sizep = req.size;
	return 0;
}
