// SPDX-License-Identifier: GPL-2.0
/* The pprof builder: id tables, samples and the gzip'd encoding (pprof_int.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/gzwrite.h"
#include "lib/util.h"
#include "pprof/pprof_int.h"

struct pp_slot {
	char *key;		/* NULL: free */
	size_t len;
	uint64_t hash;
	uint64_t id;
};

static uint64_t hash_bytes(const void *p, size_t len)
{
	const unsigned char *s = p;
	uint64_t h = 0xcbf29ce484222325ull;	/* FNV-1a */

	while (len--)
		h = (h ^ *s++) * 0x100000001b3ull;
	return h ^ (h >> 29);
}

static void table_grow(struct pp_table *t)
{
	size_t cap = t->cap ? t->cap * 2 : 256, i, j;
	struct pp_slot *slots = xcalloc(cap, sizeof(*slots));

	for (i = 0; i < t->cap; i++) {
		if (!t->slots[i].key)
			continue;
		j = t->slots[i].hash & (cap - 1);
		while (slots[j].key)
			j = (j + 1) & (cap - 1);
		slots[j] = t->slots[i];
	}
	free(t->slots);
	t->slots = slots;
	t->cap = cap;
}

/*
 * The id of @key, or @id after adding it (*added set). Keys are copied.
 */
static uint64_t table_get(struct pp_table *t, const void *key, size_t len,
			  uint64_t id, bool *added)
{
	uint64_t h = hash_bytes(key, len);
	size_t i;

	if (2 * (t->nr + 1) > t->cap)
		table_grow(t);
	i = h & (t->cap - 1);
	while (t->slots[i].key) {
		if (t->slots[i].hash == h && t->slots[i].len == len &&
		    !memcmp(t->slots[i].key, key, len)) {
			*added = false;
			return t->slots[i].id;
		}
		i = (i + 1) & (t->cap - 1);
	}
	t->slots[i].key = xmalloc(len ? len : 1);
	memcpy(t->slots[i].key, key, len);
	t->slots[i].len = len;
	t->slots[i].hash = h;
	t->slots[i].id = id;
	t->nr++;
	*added = true;
	return id;
}

static void table_free(struct pp_table *t)
{
	size_t i;

	for (i = 0; i < t->cap; i++)
		free(t->slots[i].key);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

/* Room for one more entry in an array of *cap. */
static void *grow(void *arr, size_t nr, size_t *cap, size_t size)
{
	if (nr < *cap)
		return arr;
	*cap = *cap ? *cap * 2 : 64;
	return xreallocarray(arr, *cap, size);
}

void ppb_init(struct pp_builder *b)
{
	static const pp_profile init = PERFTOOLS__PROFILES__PROFILE__INIT;

	memset(b, 0, sizeof(*b));
	b->msg = init;
	ppb_str(b, "");
}

void ppb_free(struct pp_builder *b)
{
	pp_profile *m = &b->msg;
	size_t i;

	for (i = 0; i < m->n_string_table; i++)
		free(m->string_table[i]);
	free(m->string_table);
	for (i = 0; i < m->n_mapping; i++)
		free(m->mapping[i]);
	free(m->mapping);
	for (i = 0; i < m->n_function; i++)
		free(m->function[i]);
	free(m->function);
	for (i = 0; i < m->n_location; i++) {
		if (m->location[i]->n_line)
			free(m->location[i]->line[0]);
		free(m->location[i]->line);
		free(m->location[i]);
	}
	free(m->location);
	for (i = 0; i < m->n_sample; i++) {
		free(m->sample[i]->location_id);
		free(m->sample[i]->value);
		free(m->sample[i]->label);
		free(m->sample[i]);
	}
	free(m->sample);
	for (i = 0; i < m->n_sample_type; i++)
		free(m->sample_type[i]);
	free(m->sample_type);
	free(m->period_type);
	free(m->comment);
	for (i = 0; i < b->nr_labels; i++)
		free(b->label_pool[i]);
	free(b->label_pool);
	free(b->mapping_unnamed);
	table_free(&b->strings);
	table_free(&b->mappings);
	table_free(&b->functions);
	table_free(&b->locations);
	table_free(&b->labels);
}

int64_t ppb_strn(struct pp_builder *b, const char *s, size_t len)
{
	pp_profile *m = &b->msg;
	bool added;
	uint64_t id = table_get(&b->strings, s, len, m->n_string_table, &added);

	if (added) {
		m->string_table = grow(m->string_table, m->n_string_table,
				       &b->cap_strings, sizeof(void *));
		m->string_table[m->n_string_table++] = xstrndup(s, len);
	}
	return (int64_t)id;
}

int64_t ppb_str(struct pp_builder *b, const char *s)
{
	return ppb_strn(b, s, strlen(s));
}

size_t ppb_sample_type(struct pp_builder *b, const char *type,
		       const char *unit)
{
	static const pp_value_type init = PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
	pp_profile *m = &b->msg;
	pp_value_type *v = xmalloc(sizeof(*v));

	*v = init;
	v->type = ppb_str(b, type);
	v->unit = ppb_str(b, unit);
	m->sample_type = xreallocarray(m->sample_type, m->n_sample_type + 1,
				       sizeof(void *));
	m->sample_type[m->n_sample_type] = v;
	return m->n_sample_type++;
}

void ppb_comment(struct pp_builder *b, const char *text)
{
	pp_profile *m = &b->msg;

	m->comment = grow(m->comment, m->n_comment, &b->cap_comments,
			  sizeof(*m->comment));
	m->comment[m->n_comment++] = ppb_str(b, text);
}

uint64_t ppb_mapping(struct pp_builder *b, const struct pp_mapping_key *k)
{
	static const pp_mapping init = PERFTOOLS__PROFILES__MAPPING__INIT;
	pp_profile *m = &b->msg;
	int64_t key[5];
	pp_mapping *map;
	uint64_t id;
	bool added;
	size_t i;

	memset(key, 0, sizeof(key));
	key[0] = (int64_t)k->start;
	key[1] = (int64_t)k->limit;
	key[2] = (int64_t)k->offset;
	key[3] = ppb_str(b, k->file ? k->file : "");
	if (k->build_id_size) {
		char *hex = xmalloc(2 * k->build_id_size + 1);

		for (i = 0; i < k->build_id_size; i++)
			snprintf(hex + 2 * i, 3, "%02x", k->build_id[i]);
		key[4] = ppb_str(b, hex);
		free(hex);
	}
	id = table_get(&b->mappings, key, sizeof(key), m->n_mapping + 1,
		       &added);
	if (!added)
		return id;
	map = xmalloc(sizeof(*map));
	*map = init;
	map->id = id;
	map->memory_start = k->start;
	map->memory_limit = k->limit;
	map->file_offset = k->offset;
	map->filename = key[3];
	map->build_id = key[4];
	m->mapping = grow(m->mapping, m->n_mapping, &b->cap_mappings,
			  sizeof(void *));
	b->mapping_unnamed = xreallocarray(b->mapping_unnamed, b->cap_mappings,
					   sizeof(*b->mapping_unnamed));
	b->mapping_unnamed[m->n_mapping] = false;
	m->mapping[m->n_mapping++] = map;
	return id;
}

pp_mapping *ppb_mapping_get(struct pp_builder *b, uint64_t id)
{
	return id && id <= b->msg.n_mapping ? b->msg.mapping[id - 1] : NULL;
}

uint64_t ppb_function(struct pp_builder *b, const char *name,
		      const char *system_name)
{
	static const pp_function init = PERFTOOLS__PROFILES__FUNCTION__INIT;
	pp_profile *m = &b->msg;
	int64_t key[2];
	pp_function *fn;
	uint64_t id;
	bool added;

	memset(key, 0, sizeof(key));
	key[0] = ppb_str(b, name);
	key[1] = system_name ? ppb_str(b, system_name) : 0;
	id = table_get(&b->functions, key, sizeof(key), m->n_function + 1,
		       &added);
	if (!added)
		return id;
	fn = xmalloc(sizeof(*fn));
	*fn = init;
	fn->id = id;
	fn->name = key[0];
	fn->system_name = key[1];
	m->function = grow(m->function, m->n_function, &b->cap_functions,
			   sizeof(void *));
	m->function[m->n_function++] = fn;
	return id;
}

uint64_t ppb_location(struct pp_builder *b, uint64_t mapping,
		      uint64_t address, uint64_t function)
{
	static const pp_location init = PERFTOOLS__PROFILES__LOCATION__INIT;
	static const Perftools__Profiles__Line line_init =
		PERFTOOLS__PROFILES__LINE__INIT;
	pp_profile *m = &b->msg;
	uint64_t key[3] = { mapping, address, function };
	pp_location *loc;
	uint64_t id;
	bool added;

	id = table_get(&b->locations, key, sizeof(key), m->n_location + 1,
		       &added);
	if (!added)
		return id;
	loc = xmalloc(sizeof(*loc));
	*loc = init;
	loc->id = id;
	loc->mapping_id = mapping;
	loc->address = address;
	if (function) {
		loc->line = xmalloc(sizeof(void *));
		loc->line[0] = xmalloc(sizeof(*loc->line[0]));
		*loc->line[0] = line_init;
		loc->line[0]->function_id = function;
		loc->n_line = 1;
	} else if (mapping && mapping <= m->n_mapping) {
		b->mapping_unnamed[mapping - 1] = true;
	}
	m->location = grow(m->location, m->n_location, &b->cap_locations,
			   sizeof(void *));
	m->location[m->n_location++] = loc;
	return id;
}

static pp_label *label(struct pp_builder *b, const char *key, const char *str,
		       int64_t num)
{
	static const pp_label init = PERFTOOLS__PROFILES__LABEL__INIT;
	int64_t k[3];
	uint64_t id;
	bool added;
	pp_label *l;

	memset(k, 0, sizeof(k));
	k[0] = ppb_str(b, key);
	k[1] = str ? ppb_str(b, str) : 0;
	k[2] = num;
	id = table_get(&b->labels, k, sizeof(k), b->nr_labels, &added);
	if (!added)
		return b->label_pool[id];
	l = xmalloc(sizeof(*l));
	*l = init;
	l->key = k[0];
	l->str = k[1];
	l->num = str ? 0 : num;
	/*
	 * pprof reads a number label without a unit and with the value 0
	 * as no label at all (cpu 0): the unit is the key, as pprof takes a
	 * unit it is not given.
	 */
	l->num_unit = str ? 0 : k[0];
	b->label_pool = grow(b->label_pool, b->nr_labels, &b->cap_labels,
			     sizeof(void *));
	b->label_pool[b->nr_labels++] = l;
	return l;
}

pp_label *ppb_label_str(struct pp_builder *b, const char *key,
			const char *str)
{
	return label(b, key, str, 0);
}

pp_label *ppb_label_num(struct pp_builder *b, const char *key, int64_t num)
{
	return label(b, key, NULL, num);
}

int ppb_sample(struct pp_builder *b, const uint64_t *locs, size_t nlocs,
	       const uint64_t *values, pp_label *const *labels,
	       size_t nlabels)
{
	static const pp_sample init = PERFTOOLS__PROFILES__SAMPLE__INIT;
	pp_profile *m = &b->msg;
	size_t nv = m->n_sample_type, i;
	pp_sample *s;

	for (i = 0; i < nv; i++) {
		if (values[i] > (uint64_t)INT64_MAX ||
		    (int64_t)values[i] > INT64_MAX - b->sums[i]) {
			errno = EOVERFLOW;
			return -1;
		}
	}
	s = xmalloc(sizeof(*s));
	*s = init;
	s->location_id = xcalloc(nlocs ? nlocs : 1, sizeof(*s->location_id));
	memcpy(s->location_id, locs, nlocs * sizeof(*locs));
	s->n_location_id = nlocs;
	s->value = xcalloc(nv ? nv : 1, sizeof(*s->value));
	for (i = 0; i < nv; i++) {
		s->value[i] = (int64_t)values[i];
		b->sums[i] += (int64_t)values[i];
	}
	s->n_value = nv;
	if (nlabels) {
		s->label = xcalloc(nlabels, sizeof(void *));
		memcpy(s->label, labels, nlabels * sizeof(void *));
		s->n_label = nlabels;
	}
	m->sample = grow(m->sample, m->n_sample, &b->cap_samples,
			 sizeof(void *));
	m->sample[m->n_sample++] = s;
	return 0;
}

/* protobuf-c's output into a gzip stream to a FILE (lib/gzwrite.h). */
struct gz_sink {
	ProtobufCBuffer base;
	struct gzwrite *w;
	int err;		/* errno of the first failure; 0: none */
};

static void gz_append(ProtobufCBuffer *buf, size_t len, const uint8_t *data)
{
	struct gz_sink *g = (struct gz_sink *)buf;

	if (!g->err && gzwrite_add(g->w, data, len))
		g->err = errno ? errno : EIO;
}

int ppb_write(struct pp_builder *b, FILE *f)
{
	struct gz_sink *g = xcalloc(1, sizeof(*g));
	pp_profile *m = &b->msg;
	size_t i;
	int err;

	for (i = 0; i < m->n_mapping; i++)
		m->mapping[i]->has_functions = !b->mapping_unnamed[i];
	g->base.append = gz_append;
	/* pprof's format: a gzip wrapper, its mtime 0. */
	g->w = gzwrite_new(f);
	if (!g->w) {
		free(g);
		return -1;
	}
	perftools__profiles__profile__pack_to_buffer(m, &g->base);
	/* Finished (and freed) whatever came before. */
	if (gzwrite_finish(g->w) && !g->err)
		g->err = errno ? errno : EIO;
	if (!g->err && fflush(f))
		g->err = errno ? errno : EIO;
	err = g->err;
	free(g);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}
