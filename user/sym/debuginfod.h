/* SPDX-License-Identifier: GPL-2.0 */
/* Fetching debug files by build-id from debuginfod servers (opt-in). */
#ifndef FLAMESTAT_DEBUGINFOD_H
#define FLAMESTAT_DEBUGINFOD_H

#include <stddef.h>
#include <stdio.h>

/*
 * A client of the debuginfod servers in $DEBUGINFOD_URLS (or the URLs
 * given), through elfutils' libdebuginfod, loaded with dlopen() on the
 * first fetch: flamestat neither needs the library nor touches the network
 * unless --debuginfod is given. Fetched files land in libdebuginfod's cache
 * ($DEBUGINFOD_CACHE_PATH, default ~/.cache/debuginfod_client), which later
 * runs reuse without a download.
 *
 * A download still going after a second is shown on stderr (a progress
 * line on a terminal, one line otherwise). A server that fails (no
 * connection, a timeout, an HTTP error other than "not found") is reported
 * once, and nothing more is asked of the servers in this run, so a
 * profile of many files does not wait for a dead server once per file.
 * Without a server (no URLs), that is said once and nothing is fetched.
 * Not thread-safe.
 */

struct debuginfod;

/* urls: space-separated, as $DEBUGINFOD_URLS; NULL: that variable. */
struct debuginfod *dinfod_new(const char *urls);
void dinfod_free(struct debuginfod *d);

/*
 * The path (malloc'd) of the debug file for a build-id, in the client's
 * cache, downloaded if needed; NULL when the servers do not have it, fail,
 * or there are none. Each build-id is asked about once.
 */
char *dinfod_find_debuginfo(struct debuginfod *d, const unsigned char *bid,
			    size_t len);

/* For verbose output: what was asked, found, and the time it took. */
void dinfod_dump(const struct debuginfod *d, FILE *out);

struct elfsym_cache;
/* dinfod_dump() of the cache's client, if it has one (--debuginfod). */
void elfsym_cache_dinfod_dump(const struct elfsym_cache *cache, FILE *out);

#endif
