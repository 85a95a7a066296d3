/* SPDX-License-Identifier: GPL-2.0 */
/* Talking to /dev/flamestat: open (loading the module), ioctls, snapshots. */
#ifndef FLAMESTAT_DEVICE_H
#define FLAMESTAT_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "uapi/flamestat.h"

struct fs_dev {
	int fd;
	bool loaded_module;	/* this process loaded it */
	bool no_deflate;	/* the module lacks FLAMESTAT_SNAP_DEFLATE */
	struct flamestat_version version;
};

/*
 * Opens the device read-write, loading the module first if @load and it is
 * not loaded (modprobe, else insmod of the flamestat.ko beside the tool or
 * in the build tree, with autostart=0). On failure prints one line naming
 * the cause and the fix (for a refused module: Secure Boot, lockdown or
 * enforced signatures, see loadpolicy.h) and returns the exit status
 * (EXIT_PERM, EXIT_NOMODULE, EXIT_ABI, ...); 0 on success.
 */
int fs_dev_open(struct fs_dev *dev, bool load);
void fs_dev_close(struct fs_dev *dev);

/*
 * Thin ioctl wrappers: 0, or -1 with errno set (and nothing printed).
 * fs_dev_get_stats() asks a module older than the off-CPU counters with
 * FLAMESTAT_IOC_GET_STATS_V1 (they are 0 then).
 */
int fs_dev_get_config(struct fs_dev *dev, struct flamestat_config *cfg);
int fs_dev_set_config(struct fs_dev *dev, const struct flamestat_config *cfg);
int fs_dev_get_stats(struct fs_dev *dev, struct flamestat_stats *st);
int fs_dev_cmd(struct fs_dev *dev, unsigned long cmd);

/*
 * fs_perror() for a failed fs_dev_set_config() of @cfg (errno as it left
 * it): for EBUSY to a new frequency, says that the module holds samples
 * taken at its current one and how to start afresh.
 */
void fs_dev_set_config_perror(struct fs_dev *dev,
			      const struct flamestat_config *cfg,
			      const char *what);
/* fs_perror() for a failed fs_dev_snapshot(), saying what ENOBUFS means. */
void fs_dev_snapshot_perror(const char *what);
/*
 * Takes a snapshot and reads it whole into a malloc'ed buffer; waits up to
 * 10 s while other readers hold the module's reader memory (ENOBUFS). Asks
 * for it compressed (FLAMESTAT_SNAP_DEFLATE) and inflates it; a module
 * without that gives it plain.
 */
int fs_dev_snapshot(struct fs_dev *dev, unsigned int flags, void **buf,
		    size_t *size);

bool fs_module_loaded(void);

/*
 * The loaded module's parameter cpu_max_percent: the share of a CPU the
 * sampler may take before it throttles itself there (0, or 100 and more:
 * never). -1 when it cannot be read (no module, or one without it).
 */
int fs_module_cpu_max_percent(void);

/* Names of enum flamestat_drop values, for messages and reports. */
const char *fs_drop_name(int reason);
/* Names of enum flamestat_offcpu_drop values. */
const char *fs_offdrop_name(int reason);
/* Names of enum flamestat_unwind_stop and flamestat_unwind_fail values. */
const char *fs_unwind_stop_name(int reason);
const char *fs_unwind_fail_name(int reason);
/*
 * How the user stacks of @st were walked, as shares: by unwind tables,
 * both, frame pointers, and the walks that stopped early by reason. ""
 * when @st counts none. Returns @buf.
 */
const char *fs_unwind_shares(char *buf, size_t size,
			     const struct flamestat_stats *st);

#endif
