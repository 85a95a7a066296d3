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

#include "device.h"
#include "util.h"

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
	};

	if (reason < 0 || reason >= FLAMESTAT_NR_DROPS)
		return "unknown";
	return names[reason];
}

bool fs_module_loaded(void)
{
	return access("/sys/module/flamestat", F_OK) == 0;
}

static int read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");
	int ok;

	if (!f)
		return -1;
	ok = fgets(buf, (int)size, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

void fs_describe_load_policy(FILE *out)
{
	char buf[256];

	if (!read_line("/sys/kernel/security/lockdown", buf, sizeof(buf))) {
		if (strstr(buf, "[confidentiality]"))
			fprintf(out, "kernel lockdown: confidentiality (kernel stacks are withheld; unsigned modules refused)\n");
		else if (strstr(buf, "[integrity]"))
			fprintf(out, "kernel lockdown: integrity (unsigned modules refused)\n");
		else
			fprintf(out, "kernel lockdown: none\n");
	}
	if (!read_line("/sys/module/module/parameters/sig_enforce", buf,
		       sizeof(buf)))
		fprintf(out, "module signatures: %s\n",
			buf[0] == 'Y' ? "enforced (the module must be signed by a key the kernel trusts; see docs/SECURE-BOOT.md)" :
					"not enforced");
}

/* The module file beside the tool, or in the build tree it came from. */
static char *find_module_file(void)
{
	static const char *const rel[] = {
		"flamestat.ko",
		"../kmod/flamestat.ko",
		"../lib/flamestat/flamestat.ko",
	};
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;
	size_t i;

	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	for (i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		char *p = xasprintf("%s/%s", exe, rel[i]);

		if (!access(p, R_OK))
			return p;
		free(p);
	}
	return NULL;
}

static int run_modprobe(void)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0) {
			dup2(null, 1);
			dup2(null, 2);
		}
		execlp("modprobe", "modprobe", "flamestat", FS_LOAD_PARAMS,
		       (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* One line naming why finit_module failed and what to do. */
static int explain_load_error(const char *path, int err)
{
	switch (err) {
	case EKEYREJECTED:
	case ENOKEY:
	case EBADMSG:
		fs_err("the kernel refused %s: it is not signed by a trusted key (Secure Boot or module.sig_enforce); sign it and enroll the key, see docs/SECURE-BOOT.md",
		       path);
		return EXIT_NOMODULE;
	case EPERM:
		if (getuid() != 0 && geteuid() != 0) {
			fs_err("loading the module needs root: run flamestat with sudo");
			return EXIT_PERM;
		}
		fs_err("the kernel refused to load %s (lockdown or module loading disabled); see 'flamestat status' and docs/SECURE-BOOT.md",
		       path);
		return EXIT_NOMODULE;
	case ENOSYS:
		fs_err("this kernel cannot load modules (built without module support): flamestat needs a kernel with CONFIG_MODULES");
		return EXIT_NOMODULE;
	case ENOEXEC:
	case EINVAL:
		fs_err("%s was built for another kernel: rebuild it with 'make KVER=$(uname -r)' or reinstall flamestat-dkms",
		       path);
		return EXIT_NOMODULE;
	default:
		fs_err("cannot load %s: %s", path, strerror(err));
		return EXIT_NOMODULE;
	}
}

static int load_module(struct fs_dev *dev)
{
	char *path;
	int fd, err;

	if (geteuid() != 0) {
		fs_err("the flamestat module is not loaded, and loading it needs root: run 'sudo flamestat ...' or 'sudo modprobe flamestat'");
		return EXIT_PERM;
	}
	if (!run_modprobe()) {
		dev->loaded_module = true;
		return 0;
	}
	path = find_module_file();
	if (!path) {
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
		err = explain_load_error(path, err);
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
			fs_err("permission denied on %s: run as root, or as a member of the group the module was loaded with (group=GID)",
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

int fs_dev_get_stats(struct fs_dev *dev, struct flamestat_stats *st)
{
	return ioctl(dev->fd, FLAMESTAT_IOC_GET_STATS, st);
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
	unsigned char *buf;

	if (ioctl(dev->fd, FLAMESTAT_IOC_SNAPSHOT, &req))
		return -1;
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
	*bufp = buf;
	*sizep = req.size;
	return 0;
}
