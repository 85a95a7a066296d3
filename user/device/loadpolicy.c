// SPDX-License-Identifier: GPL-2.0
/* Would the kernel load the flamestat module? Secure Boot, lockdown, signatures. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "device/loadpolicy.h"
#include "lib/util.h"

#define SECURE_BOOT_VAR \
	"/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c"
#define DKMS_MOK_PUB	"/var/lib/dkms/mok.pub"
#define SECURE_BOOT_DOC	"SECURE-BOOT.md in flamestat's documentation"

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

int fs_run_capture(char *const argv[], int which_fd, char *buf, size_t size)
{
	int pipefd[2], status;
	size_t len = 0;
	ssize_t n;
	pid_t pid;

	if (size)
		buf[0] = '\0';
	if (pipe2(pipefd, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return -1;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		if (null >= 0) {
			dup2(null, 0);
			dup2(null, which_fd == 1 ? 2 : 1);
		}
		dup2(pipefd[1], which_fd);
		/* Messages to parse, not to translate. */
		setenv("LC_ALL", "C", 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(pipefd[1]);
	/* Read to the end (a full pipe would block the child); keep what fits. */
	for (;;) {
		char scratch[512];
		size_t room = size > len + 1 ? size - len - 1 : 0;

		n = room ? read(pipefd[0], buf + len, room) :
			   read(pipefd[0], scratch, sizeof(scratch));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (room)
			len += (size_t)n;
	}
	if (size)
		buf[len] = '\0';
	close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static void read_secure_boot(struct fs_load_policy *p)
{
	char out[256];
	unsigned char v[5];
	ssize_t n = -1;
	int fd;

	p->efi = access("/sys/firmware/efi", F_OK) ? FS_NO : FS_YES;
	p->secure_boot = p->efi == FS_NO ? FS_NO : FS_UNKNOWN;
	if (p->efi == FS_NO)
		return;
	/* 4 bytes of attributes, then the value. */
	fd = open(SECURE_BOOT_VAR, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, v, sizeof(v));
		close(fd);
	}
	if (n == (ssize_t)sizeof(v)) {
		p->secure_boot = v[4] == 1 ? FS_YES : FS_NO;
		return;
	}
	/* efivarfs not mounted, or not readable: ask mokutil. */
	if (fs_run_capture((char *const[]){ "mokutil", "--sb-state", NULL },
			   1, out, sizeof(out)) >= 0) {
		if (strstr(out, "SecureBoot enabled"))
			p->secure_boot = FS_YES;
		else if (strstr(out, "SecureBoot disabled"))
			p->secure_boot = FS_NO;
	}
}

/* A key whose description is "@signer: ..." is loaded (asymmetric, X.509). */
static int signer_key_loaded(const char *signer)
{
	FILE *f = fopen("/proc/keys", "re");
	size_t len = strlen(signer);
	int found = FS_NO;
	char line[1024];

	if (!f)
		return FS_UNKNOWN;
	while (fgets(line, sizeof(line), f)) {
		/* ID FLAGS USAGE TIMEOUT PERM UID GID TYPE DESCRIPTION: SUMMARY */
		char type[16];
		int off = -1;

		if (sscanf(line, "%*s %*s %*s %*s %*s %*s %*s %15s %n", type,
			   &off) != 1 || off < 0)
			continue;
		/* The type column is cut to 9 characters ("asymmetri"). */
		if (strncmp(type, "asymmetri", 9))
			continue;
		if (!strncmp(line + off, signer, len) && line[off + len] == ':') {
			found = FS_YES;
			break;
		}
	}
	fclose(f);
	return found;
}

/*
 * Fills dkms_version and dkms_signs from 'dkms --version' ("dkms-3.0.10"):
 * signing came with DKMS 3, so an unsigned module asks for different
 * advice under DKMS 2.
 */
static void read_dkms(struct fs_load_policy *p)
{
	char out[256];
	const char *v;
	int rc;

	p->dkms_signs = FS_UNKNOWN;
	rc = fs_run_capture((char *const[]){ "dkms", "--version", NULL }, 1,
			    out, sizeof(out));
	if (rc != 0)
		return;
	v = out + strcspn(out, "0123456789");
	if (!*v)
		return;
	snprintf(p->dkms_version, sizeof(p->dkms_version), "%.*s",
		 (int)strspn(v, "0123456789."), v);
	p->dkms_signs = atoi(v) >= 3 ? FS_YES : FS_NO;
}

/* Fills installed, path, version and signer from modinfo. */
static void read_module(struct fs_load_policy *p, const char *module)
{
	char out[8192], *line, *save = NULL;
	int rc;

	rc = fs_run_capture((char *const[]){ "modinfo", (char *)module, NULL },
			    1, out, sizeof(out));
	if (rc < 0 || rc == 127) {
		p->installed = FS_UNKNOWN;
		return;
	}
	if (rc) {
		p->installed = FS_NO;
		return;
	}
	p->installed = FS_YES;
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':'), *val;

		if (!colon)
			continue;
		*colon = '\0';
		val = colon + 1 + strspn(colon + 1, " \t");
		if (!strcmp(line, "filename"))
			snprintf(p->path, sizeof(p->path), "%s", val);
		else if (!strcmp(line, "version"))
			snprintf(p->version, sizeof(p->version), "%s", val);
		else if (!strcmp(line, "signer"))
			snprintf(p->signer, sizeof(p->signer), "%s", val);
	}
	if (p->signer[0])
		p->signer_known = signer_key_loaded(p->signer);
	else
		read_dkms(p);
}

void fs_load_policy_read(struct fs_load_policy *p, const char *module)
{
	char buf[256];
	char *open_br, *close_br;

	memset(p, 0, sizeof(*p));
	p->signer_known = FS_UNKNOWN;
	p->dkms_signs = FS_UNKNOWN;
	read_secure_boot(p);

	/* "none [integrity] confidentiality": the bracketed one is in force. */
	if (!read_line("/sys/kernel/security/lockdown", buf, sizeof(buf)) &&
	    (open_br = strchr(buf, '[')) && (close_br = strchr(open_br, ']'))) {
		*close_br = '\0';
		snprintf(p->lockdown, sizeof(p->lockdown), "%s", open_br + 1);
	}

	/* Absent: the kernel does not verify module signatures at all. */
	p->sig_enforce = FS_NO;
	if (!read_line("/sys/module/module/parameters/sig_enforce", buf,
		       sizeof(buf)))
		p->sig_enforce = buf[0] == 'Y' ? FS_YES : FS_NO;

	p->modules_supported = access("/proc/modules", F_OK) ? FS_NO : FS_YES;
	p->modules_disabled = FS_UNKNOWN;
	if (!read_line("/proc/sys/kernel/modules_disabled", buf, sizeof(buf)))
		p->modules_disabled = buf[0] == '1' ? FS_YES : FS_NO;

	read_module(p, module ? module : "flamestat");
}

int fs_load_policy_checks_signatures(const struct fs_load_policy *p)
{
	if (p->sig_enforce == FS_YES)
		return FS_YES;
	if (!p->lockdown[0])
		return FS_UNKNOWN;
	return strcmp(p->lockdown, "none") ? FS_YES : FS_NO;
}

int fs_load_policy_refusal(const struct fs_load_policy *p, char *buf,
			   size_t size)
{
	int checks = fs_load_policy_checks_signatures(p);
	char why[96];

	buf[0] = '\0';
	if (p->modules_supported == FS_NO) {
		snprintf(buf, size, "this kernel was built without module support (no /proc/modules)");
		return FS_YES;
	}
	if (p->modules_disabled == FS_YES) {
		snprintf(buf, size, "module loading is disabled until the next boot (kernel.modules_disabled=1)");
		return FS_YES;
	}
	if (checks == FS_NO)
		return FS_NO;
	if (checks == FS_UNKNOWN) {
		/* No securityfs: lockdown cannot be read; Secure Boot implies it on Debian. */
		if (p->secure_boot != FS_YES)
			return FS_NO;
		snprintf(why, sizeof(why), "Secure Boot is on (so lockdown probably is)");
	} else if (p->sig_enforce == FS_YES) {
		snprintf(why, sizeof(why), "module signatures are enforced%s",
			 p->secure_boot == FS_YES ? " (Secure Boot)" : " (module.sig_enforce)");
	} else {
		snprintf(why, sizeof(why), "kernel lockdown (%s) admits only signed modules",
			 p->lockdown);
	}
	if (p->installed != FS_YES) {
		snprintf(buf, size, "%s: the module must be signed by a key the kernel trusts (see %s)",
			 why, SECURE_BOOT_DOC);
		return FS_UNKNOWN;
	}
	if (!p->signer[0] && p->dkms_signs == FS_NO) {
		snprintf(buf, size, "%s and %s is not signed: DKMS %s does not sign modules (DKMS 3 does): sign it with the kernel's sign-file and a key you enroll with 'mokutil --import', or give DKMS a sign_tool (see %s)",
			 why, p->path, p->dkms_version, SECURE_BOOT_DOC);
		return checks == FS_YES ? FS_YES : FS_UNKNOWN;
	}
	if (!p->signer[0]) {
		snprintf(buf, size, "%s and %s is not signed: let DKMS sign it (install openssl, then reinstall flamestat-dkms) and enroll DKMS's key with 'mokutil --import %s' (see %s)",
			 why, p->path, DKMS_MOK_PUB, SECURE_BOOT_DOC);
		return checks == FS_YES ? FS_YES : FS_UNKNOWN;
	}
	if (p->signer_known == FS_YES)
		return FS_NO;
	if (p->signer_known == FS_NO) {
		snprintf(buf, size, "%s and %s is signed by \"%s\", a key the kernel does not have: enroll it (DKMS's: 'mokutil --import %s', reboot, confirm in MokManager; see %s)",
			 why, p->path, p->signer, DKMS_MOK_PUB, SECURE_BOOT_DOC);
		return checks == FS_YES ? FS_YES : FS_UNKNOWN;
	}
	snprintf(buf, size, "%s; %s is signed by \"%s\" and loads only if that key is enrolled ('mokutil --test-key %s'; see %s)",
		 why, p->path, p->signer, DKMS_MOK_PUB, SECURE_BOOT_DOC);
	return FS_UNKNOWN;
}

void fs_load_policy_print(const struct fs_load_policy *p, FILE *out)
{
	char why[1024];
	struct utsname u;
	int verdict;

	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "?");
	if (p->installed == FS_YES)
		fprintf(out, "installed:  %s (version %s, %s%s%s)\n", p->path,
			p->version[0] ? p->version : "unknown",
			p->signer[0] ? "signed by \"" : "not signed",
			p->signer, p->signer[0] ? "\"" : "");
	else if (p->installed == FS_NO)
		fprintf(out, "installed:  no flamestat module for kernel %s: install flamestat-dkms and linux-headers-%s, or build it with 'make'\n",
			u.release, u.release);
	else
		fprintf(out, "installed:  unknown (modinfo did not run)\n");

	fprintf(out, "secure boot: %s\n",
		p->efi == FS_NO ? "off (not booted with UEFI)" :
		p->secure_boot == FS_YES ? "on" :
		p->secure_boot == FS_NO ? "off" : "unknown (efivarfs not readable, no mokutil)");

	if (!p->lockdown[0])
		fprintf(out, "lockdown:   unknown (securityfs is not mounted on /sys/kernel/security)\n");
	else if (!strcmp(p->lockdown, "confidentiality"))
		fprintf(out, "lockdown:   confidentiality (only signed modules load; kernel stacks are withheld)\n");
	else if (!strcmp(p->lockdown, "integrity"))
		fprintf(out, "lockdown:   integrity (only signed modules load)\n");
	else
		fprintf(out, "lockdown:   %s\n", p->lockdown);

	fprintf(out, "signatures: %s\n",
		p->sig_enforce == FS_YES ? "enforced (only modules signed by a key the kernel trusts load)" :
		fs_load_policy_checks_signatures(p) == FS_YES ? "checked because of lockdown" :
		"not enforced (an unsigned module loads and taints the kernel)");
	if (p->installed == FS_YES && p->signer[0])
		fprintf(out, "signer key: %s\n",
			p->signer_known == FS_YES ? "loaded in the kernel" :
			p->signer_known == FS_NO ? "not loaded in the kernel (not enrolled)" :
			"unknown (/proc/keys not readable)");

	verdict = fs_load_policy_refusal(p, why, sizeof(why));
	if (verdict == FS_YES)
		fprintf(out, "verdict:    the kernel will refuse the module: %s\n", why);
	else if (verdict == FS_UNKNOWN)
		fprintf(out, "verdict:    the kernel may refuse the module: %s\n", why);
	else if (p->installed == FS_YES)
		fprintf(out, "verdict:    it can be loaded: 'sudo modprobe flamestat', or 'flamestat record' loads it\n");
	else
		fprintf(out, "verdict:    nothing in the kernel's policy stops it once it is installed\n");
}
