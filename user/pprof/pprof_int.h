/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pprof builder shared by pprof_snap.c and pprof_profile.c: tables that
 * give each distinct string, mapping, function and location one id, the
 * samples, and the gzipped encoding. Not for other users.
 */
#ifndef FLAMESTAT_PPROF_INT_H
#define FLAMESTAT_PPROF_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "profile.pb-c.h"

typedef Perftools__Profiles__Profile pp_profile;
typedef Perftools__Profiles__Mapping pp_mapping;
typedef Perftools__Profiles__Location pp_location;
typedef Perftools__Profiles__Function pp_function;
typedef Perftools__Profiles__Sample pp_sample;
typedef Perftools__Profiles__Label pp_label;
typedef Perftools__Profiles__ValueType pp_value_type;

/* Byte-string keys to ids; open addressing, power-of-two size. */
struct pp_table {
	struct pp_slot *slots;
	size_t nr, cap;
};

/*
 * Life: ppb_init() -> sample types, comments, then ids and samples in any
 * order -> ppb_write() -> ppb_free(). Every id is dense from 1 (strings
 * from 0, the empty string) in the order of first use, so the same input
 * gives the same bytes.
 */
struct pp_builder {
	pp_profile msg;		/* its arrays are the tables' entries */
	struct pp_table strings, mappings, functions, locations, labels;
	size_t cap_strings, cap_mappings, cap_functions, cap_locations;
	size_t cap_samples, cap_labels, cap_comments;
	pp_label **label_pool;	/* every label, shared by samples */
	size_t nr_labels;
	bool *mapping_unnamed;	/* a location of the mapping has no line */
	/* Each value column's sum so far, to refuse what pprof cannot add. */
	int64_t sums[4];
};

void ppb_init(struct pp_builder *b);
void ppb_free(struct pp_builder *b);

/* The string's index in the string table ("" is 0). */
int64_t ppb_str(struct pp_builder *b, const char *s);
int64_t ppb_strn(struct pp_builder *b, const char *s, size_t len);

/* A value column (at most 4): sample_type[i] = type/unit. Returns i. */
size_t ppb_sample_type(struct pp_builder *b, const char *type,
		       const char *unit);
void ppb_comment(struct pp_builder *b, const char *text);

/*
 * A mapping with these fields; equal fields give the same id. @build_id:
 * raw bytes, written as lowercase hex as perf and pprof show them.
 */
struct pp_mapping_key {
	uint64_t start, limit, offset;
	const char *file;
	const uint8_t *build_id;
	size_t build_id_size;
};
uint64_t ppb_mapping(struct pp_builder *b, const struct pp_mapping_key *k);
pp_mapping *ppb_mapping_get(struct pp_builder *b, uint64_t id);

/* A function: name and system_name (NULL: none). */
uint64_t ppb_function(struct pp_builder *b, const char *name,
		      const char *system_name);
/*
 * A location: @address in @mapping (0: none), one line of @function (0:
 * unresolved, no line; the mapping then has_functions = false).
 */
uint64_t ppb_location(struct pp_builder *b, uint64_t mapping,
		      uint64_t address, uint64_t function);

/* Labels, shared by every sample that has the same one. */
pp_label *ppb_label_str(struct pp_builder *b, const char *key,
			const char *str);
/* A number label; its unit is the key (so that 0 is a value). */
pp_label *ppb_label_num(struct pp_builder *b, const char *key, int64_t num);

/*
 * A sample: @locs leaf first, one value per sample type, the labels.
 * Values are pprof's int64: a value or a column's sum past INT64_MAX is
 * refused (-1, errno EOVERFLOW, nothing added).
 */
int ppb_sample(struct pp_builder *b, const uint64_t *locs, size_t nlocs,
	       const uint64_t *values, pp_label *const *labels,
	       size_t nlabels);

/*
 * The profile as gzip'd protobuf to @f. Returns 0, or -1 with errno set
 * (a write error; ENOMEM-like zlib failures as EIO).
 */
int ppb_write(struct pp_builder *b, FILE *f);

#endif
