/* SPDX-License-Identifier: GPL-2.0 */
/* Internals shared by profile.c and profile_folded.c; not for other users. */
#ifndef FLAMESTAT_PROFILE_INT_H
#define FLAMESTAT_PROFILE_INT_H

#include <stddef.h>
#include <stdint.h>

struct profile;

uint32_t profile_hash_bytes(const char *s, size_t len);
/* profile_intern() with the hash already computed by the caller. */
uint32_t profile_intern_hashed(struct profile *p, const char *name,
			       size_t len, uint32_t hash);
/* rank[id] = position of name id in byte order; caller frees. */
uint32_t *profile_name_ranks(const struct profile *p);

#endif
