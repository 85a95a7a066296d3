/* SPDX-License-Identifier: GPL-2.0 */
/* Internals shared by profile.c and profile_folded.c; not for other users. */
#ifndef FLAMESTAT_PROFILE_INT_H
#define FLAMESTAT_PROFILE_INT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct profile;

#define HASH_K 0x9e3779b97f4a7c15ull

static inline uint64_t mix64(uint64_t h)
{
	h ^= h >> 32;
	h *= 0xd6e8feb86659fd93ull;
	h ^= h >> 32;
	return h;
}

/*
 * Eight bytes at a time: name hashing dominates folded-file loading, so
 * it is inline in the reader's loop.
 */
static inline uint32_t profile_hash_bytes(const char *s, size_t len)
{
	uint64_t h = len * HASH_K;
	uint64_t w;

	while (len >= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * HASH_K;
		h ^= h >> 29;
		s += 8;
		len -= 8;
	}
	if (len) {
		/* The same word memcpy() would give, without its call. */
		w = 0;
		while (len--)
			w |= (uint64_t)(unsigned char)s[len] << (8 * len);
		h = (h ^ w) * HASH_K;
	}
	return (uint32_t)mix64(h);
}
/* profile_intern() with the hash already computed by the caller. */
uint32_t profile_intern_hashed(struct profile *p, const char *name,
			       size_t len, uint32_t hash);
/* rank[id] = position of name id in byte order; caller frees. */
uint32_t *profile_name_ranks(const struct profile *p);

#endif
