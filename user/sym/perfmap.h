/* SPDX-License-Identifier: GPL-2.0 */
/* Names for JIT code from /tmp/perf-PID.map files, loaded once per process. */
#ifndef FLAMESTAT_PERFMAP_H
#define FLAMESTAT_PERFMAP_H

#include <stdbool.h>
#include <stdint.h>

/*
 * A JIT (V8, the JVM with perf-map-agent, LuaJIT, .NET, ...) writes one
 * line per compiled function into /tmp/perf-PID.map, as perf documents:
 * "START SIZE name", START and SIZE in hex (a "0x" prefix is accepted),
 * name the rest of the line. Frames in anonymous executable mappings are
 * looked up there.
 *
 * Which file. The module records two pids per process: tgid, in the initial
 * pid namespace, and ns_tgid, the pid the process saw itself as and so put
 * in the file name. For a process (tgid, ns_tgid) the first of these that
 * exists is used:
 *   <dir>/perf-<tgid>.map
 *   <proc>/<tgid>/root/tmp/perf-<ns_tgid>.map  (a container's own /tmp,
 *                                  reachable while the process lives)
 *   <dir>/perf-<ns_tgid>.map
 * The last one is a guess: in a container, <ns_tgid> in the host's /tmp
 * may be another process's file. The second and third are tried only when
 * the two pids differ.
 *
 * Whose file. As perf does, a file is read only if it is a regular file
 * (not a symbolic link) owned by the reader (effective uid) or root; also
 * when owned by the process's owner (<proc>/<tgid> while it lives), who is
 * the JIT's user: root reading a user's JIT. Any other is ignored with a
 * warning naming it: anyone may write /tmp/perf-PID.map for a PID not
 * theirs, and its names would be taken for the process's own.
 *
 * Overlaps. JITs reuse code memory and append a new line for the new code,
 * so where lines overlap the later line wins; the earlier one keeps the
 * parts of its range no later line covers.
 *
 * Each file is read once per (tgid, ns_tgid), when first needed; a missing
 * file is remembered too. Names are owned by the cache. Not thread-safe.
 */

struct perfmap_cache;

struct perfmap_result {
	const char *name;	/* as written by the JIT */
	uint64_t offset;	/* of the address into the symbol */
};

struct perfmap_stats {
	unsigned long files;	/* files read */
	unsigned long entries;	/* lines kept */
	unsigned long bad_lines; /* lines that did not parse */
};

/* dir: NULL means "/tmp"; proc: NULL means "/proc". */
struct perfmap_cache *perfmap_cache_new(const char *dir, const char *proc);
void perfmap_cache_free(struct perfmap_cache *cache);

/*
 * Look addr up in the map of process (tgid, ns_tgid). is_return_addr:
 * look up addr - 1 (see elfsym.h); the offset is still addr's. Returns
 * false when there is no file or no line covers the address.
 */
bool perfmap_lookup(struct perfmap_cache *cache, uint32_t tgid,
		    uint32_t ns_tgid, uint64_t addr, bool is_return_addr,
		    struct perfmap_result *out);

void perfmap_cache_stats(const struct perfmap_cache *cache,
			 struct perfmap_stats *st);

#endif
