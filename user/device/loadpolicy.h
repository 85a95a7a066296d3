/* SPDX-License-Identifier: GPL-2.0 */
/* Would the kernel load the flamestat module? Secure Boot, lockdown, signatures. */
#ifndef FLAMESTAT_LOADPOLICY_H
#define FLAMESTAT_LOADPOLICY_H

#include <limits.h>
#include <stdio.h>

enum fs_tristate { FS_UNKNOWN = -1, FS_NO = 0, FS_YES = 1 };

/*
 * What decides whether the kernel accepts the module, read from sysfs,
 * securityfs, efivarfs (or mokutil), /proc/keys and modinfo. Signatures are
 * checked when module.sig_enforce is set or lockdown is on (Debian turns
 * lockdown on under Secure Boot); then only a module signed by a key the
 * kernel has loads.
 */
struct fs_load_policy {
	int efi;			/* booted with UEFI */
	int secure_boot;
	char lockdown[24];		/* none/integrity/confidentiality; "" unknown */
	int sig_enforce;		/* module.sig_enforce */
	int modules_supported;		/* CONFIG_MODULES (/proc/modules) */
	int modules_disabled;		/* kernel.modules_disabled */
	int installed;			/* modinfo found the module */
	char path[PATH_MAX];		/* the module file, when installed */
	char version[64];
	char signer[256];		/* "" when unsigned */
	int signer_known;		/* a key of the signer's name is loaded */
	/*
	 * Read for an unsigned module only: DKMS 3 signs what it builds,
	 * DKMS 2 (Debian 11, Ubuntu 20.04) does not; FS_UNKNOWN: no dkms.
	 */
	int dkms_signs;
	char dkms_version[32];
};

/*
 * Reads the policy. @module: a module file to judge (the insmod fallback),
 * or NULL for the flamestat module modprobe would load for this kernel.
 */
void fs_load_policy_read(struct fs_load_policy *p, const char *module);

/* Signatures are checked: enforced, or lockdown is on. */
int fs_load_policy_checks_signatures(const struct fs_load_policy *p);

/*
 * Why the kernel will (FS_YES) or may (FS_UNKNOWN) refuse the module, and
 * what to do, in one sentence in @buf; FS_NO (and "") when nothing here
 * stops it.
 */
int fs_load_policy_refusal(const struct fs_load_policy *p, char *buf,
			   size_t size);

/*
 * Runs @argv (PATH searched, LC_ALL=C, stdin and the other output on
 * /dev/null) and keeps what it writes on @which_fd (1 or 2) in @buf,
 * NUL-terminated and cut to @size. Returns its exit status (127: it could
 * not be run), or -1 when it could not be started.
 */
int fs_run_capture(char *const argv[], int which_fd, char *buf, size_t size);

/* The status lines: installed, secure boot, lockdown, signatures, verdict. */
void fs_load_policy_print(const struct fs_load_policy *p, FILE *out);

#endif
