/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A parsed binary snapshot (kmod/uapi/flamestat.h): from the device, or
 * from a raw .fstat file saved by `flamestat record`. Parsing validates
 * every record, so a corrupt or hostile file is an error, never a crash.
 */
#ifndef FLAMESTAT_SNAPSHOT_H
#define FLAMESTAT_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <stdio.h>

#include "uapi/flamestat.h"

struct snap_file {
	uint32_t id;
	uint32_t build_id_size;
	const uint8_t *build_id;
	uint64_t dev;
	uint64_t ino;
	const char *path;
};

struct snap_map {
	uint64_t start;
	uint64_t end;
	uint64_t pgoff;
	uint32_t flags;		/* FLAMESTAT_MAPF_* */
	uint32_t generation;
	const struct snap_file *file;	/* NULL: anonymous, vdso or unknown */
};

struct snap_proc {
	uint32_t id;
	uint32_t tgid;
	uint32_t ns_tgid;
	uint32_t flags;		/* FLAMESTAT_PROCF_* */
	char comm[FLAMESTAT_COMM_LEN];
	uint64_t mnt_ns;	/* 0: unknown (or an older module) */
	uint64_t root_dev;	/* with FLAMESTAT_PROCF_OWN_ROOT */
	uint64_t root_ino;
	struct snap_map *maps;	/* sorted by start, non-overlapping */
	size_t nr_maps;
};

struct snap_ksym {
	uint64_t value;
	uint32_t offset;
	const char *name;
};

struct snap_stack {
	const struct flamestat_rec_stack *rec;	/* points into raw */
	const struct snap_proc *proc;		/* NULL: none recorded */
	/*
	 * The sampling periods its rec->count samples stand for (>= count):
	 * the u64 after the frames, or the count for records without it
	 * (modules before it, .fstat files they wrote).
	 */
	uint64_t periods;
	/*
	 * Its time in ns: the u64 after the periods, or for records without
	 * it (modules before off-CPU time) the periods x the sampling period
	 * as the module rounds it. Off-CPU stacks: the time blocked.
	 */
	uint64_t time_ns;
	/* 0 on-CPU; 'S', 'D' or 'R': off-CPU, the state it left in. */
	char state;
};

struct snapshot {
	void *raw;		/* owned */
	size_t raw_size;
	/*
	 * The header's fields that header_size covers; the rest zero (the
	 * off-CPU counters of modules before them).
	 */
	struct flamestat_snap_header hdr;
	struct snap_file *files;	/* sorted by id */
	size_t nr_files;
	struct snap_proc *procs;	/* sorted by id */
	size_t nr_procs;
	struct snap_ksym *ksyms;	/* sorted by value */
	size_t nr_ksyms;
	struct snap_stack *stacks;	/* in snapshot order */
	size_t nr_stacks;
	bool has_host;
	struct flamestat_rec_host host;	/* when has_host */
};

/*
 * Takes ownership of @raw (malloc'ed). Returns 0, or -1 with a message in
 * @err naming the first problem (and @raw freed).
 */
int snapshot_parse(struct snapshot *s, void *raw, size_t size, char *err,
		   size_t errlen);
/*
 * Reads and parses a .fstat file, gzip'd (as snapshot_write() saves them)
 * or plain (as older versions did); prints errors itself.
 */
int snapshot_load(struct snapshot *s, const char *path);
/*
 * Writes the raw bytes gzip'd (zcat gives the module's format), to be
 * loaded again with snapshot_load(), adding a HOST record (this machine's
 * boot_id, release, hostname) if there is none:
 * to @f, flushed (0, or -1 with errno set, nothing printed), or to @path, replaced
 * atomically (lib/outfile.h; 0, or -1 after reporting).
 */
int snapshot_write(const struct snapshot *s, FILE *f);
int snapshot_save(const struct snapshot *s, const char *path);
void snapshot_free(struct snapshot *s);

/* Was @s taken on this machine during the running boot? */
bool snapshot_from_this_boot(const struct snapshot *s, bool live);

/*
 * When @s says (its HOST record) it was taken on another host or in
 * another boot than the running one: what to tell the user, as "on host
 * 'a' (this is 'b')" or "in another boot of this host"; free it. NULL when
 * it is from this boot, or does not say (no HOST record, no boot id here).
 */
char *snapshot_foreign(const struct snapshot *s);

/*
 * The smallest header a snapshot may have: that of modules before the
 * off-CPU counters were appended to struct flamestat_stats.
 */
#define SNAPSHOT_HEADER_SIZE_V1 \
	(offsetof(struct flamestat_snap_header, stats) + FLAMESTAT_STATS_SIZE_V1)

/* The sampling period of @freq_hz in ns, rounded as the module rounds it. */
uint64_t snapshot_period_ns(uint32_t freq_hz);

/* "cpu", "offcpu" or "wall"; "unknown" for other values. */
const char *snapshot_mode_name(uint32_t mode);

/* Does the file start with the snapshot magic, once inflated if gzip'd? */
bool snapshot_file_is_raw(const char *path);

const struct snap_map *snap_proc_find_map(const struct snap_proc *p,
					  uint64_t addr);
const struct snap_ksym *snapshot_find_ksym(const struct snapshot *s,
					   uint64_t value);

#endif
