// SPDX-License-Identifier: GPL-2.0
/*
 * The binary snapshot (FLAMESTAT_IOC_SNAPSHOT): a header with the config and
 * exact counters, then FILE, PROC, MAP, KSYM and STACK records as declared in
 * uapi/flamestat.h. Built from a reader's private copy of the merged table,
 * with the process database frozen (db->lock) so that sizes computed in the
 * first pass hold in the second.
 *
 * Only what the stacks refer to is sent: the processes they name, the
 * mappings one of their user frames falls in and those mappings' files. A
 * process typically maps dozens of executable files and runs in a few;
 * the reader looks frames up with the same rule (uapi: maps never
 * overlap), so the others would be bytes it never uses.
 */
#include <linux/bitmap.h>
#include <linux/kallsyms.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "output.h"

#define FST_KSYM_WITHHELD	1	/* the one KSYM id under lockdown */

/* Distinct kernel frame values, in first-seen order. */
struct fst_ksymset {
	u64 *slot;		/* open addressing; 0 = empty */
	u32 *slot_id;		/* id (1-based) of each slot */
	u64 *val;		/* by id - 1 */
	u8 *is_ret;		/* by id - 1: first seen as a return address */
	char **name;		/* by id - 1, resolved once for both passes */
	u32 *offset;		/* by id - 1 */
	u32 size;		/* slots, a power of two, >= 2 * cap */
	u32 cap;		/* ids val[] and is_ret[] have room for */
	u32 nr;
};

/*
 * Sized by the distinct values met, not by every kernel frame of the
 * table (a full table has millions of frames and a few thousand distinct
 * PCs): starts small, doubles when half full.
 */
#define FST_KSYMSET_MIN	1024

static int fst_ksymset_grow(struct fst_ksymset *s, u32 cap)
{
	u32 size = roundup_pow_of_two(2 * cap), i;
	u64 *slot = kvcalloc(size, sizeof(u64), FST_GFP_READER);
	u32 *slot_id = kvcalloc(size, sizeof(u32), FST_GFP_READER);
	u64 *val = kvcalloc(cap, sizeof(u64), FST_GFP_READER);
	u8 *is_ret = kvcalloc(cap, 1, FST_GFP_READER);

	if (!slot || !slot_id || !val || !is_ret) {
		kvfree(slot);
		kvfree(slot_id);
		kvfree(val);
		kvfree(is_ret);
		return -ENOMEM;
	}
	if (s->nr) {
		memcpy(val, s->val, s->nr * sizeof(u64));
		memcpy(is_ret, s->is_ret, s->nr);
	}
	/* Rehash by id, so ids stay what they were. */
	for (i = 0; i < s->nr; i++) {
		u32 j = hash_64(val[i], ilog2(size));

		while (slot[j])
			j = (j + 1) & (size - 1);
		slot[j] = val[i];
		slot_id[j] = i + 1;
	}
	kvfree(s->slot);
	kvfree(s->slot_id);
	kvfree(s->val);
	kvfree(s->is_ret);
	s->slot = slot;
	s->slot_id = slot_id;
	s->val = val;
	s->is_ret = is_ret;
	s->size = size;
	s->cap = cap;
	return 0;
}

static int fst_ksymset_init(struct fst_ksymset *s)
{
	memset(s, 0, sizeof(*s));
	return fst_ksymset_grow(s, FST_KSYMSET_MIN);
}

/* Names and offsets, once every value is known. */
static int fst_ksymset_alloc_names(struct fst_ksymset *s)
{
	s->name = kvcalloc(max_t(u32, s->nr, 1), sizeof(char *),
			   FST_GFP_READER);
	s->offset = kvcalloc(max_t(u32, s->nr, 1), sizeof(u32),
			     FST_GFP_READER);
	return s->name && s->offset ? 0 : -ENOMEM;
}

static void fst_ksymset_free(struct fst_ksymset *s)
{
	u32 i;

	for (i = 0; s->name && i < s->nr; i++)
		kfree(s->name[i]);
	kvfree(s->name);
	kvfree(s->offset);
	kvfree(s->slot);
	kvfree(s->slot_id);
	kvfree(s->val);
	kvfree(s->is_ret);
}

/* Adds @v (never 0) if new; -ENOMEM when the set could not grow. */
static int fst_ksymset_add(struct fst_ksymset *s, u64 v, bool is_ret)
{
	u32 mask = s->size - 1, i = hash_64(v, ilog2(s->size));

	while (s->slot[i] && s->slot[i] != v)
		i = (i + 1) & mask;
	if (s->slot[i])
		return 0;
	if (s->nr == s->cap) {
		if (fst_ksymset_grow(s, 2 * s->cap))
			return -ENOMEM;
		return fst_ksymset_add(s, v, is_ret);
	}
	s->slot[i] = v;
	s->val[s->nr] = v;
	s->is_ret[s->nr] = is_ret;
	s->slot_id[i] = ++s->nr;
	return 0;
}

/* The id of @v, which fst_ksymset_add() added. */
static u32 fst_ksymset_id(const struct fst_ksymset *s, u64 v)
{
	u32 mask = s->size - 1, i = hash_64(v, ilog2(s->size));

	while (s->slot[i] && s->slot[i] != v)
		i = (i + 1) & mask;
	return s->slot_id[i];
}

struct fst_snap {
	struct fst_copy *copy;
	struct fst_procdb *db;
	bool kaddr_ok;
	bool hide_kernel;
	struct fst_ksymset ksyms;
	unsigned long *procs_used;	/* bit: slot (fst_procdb_slot()) */
	unsigned long *files_used;	/* bit id - 1 */
	u32 *map_base;			/* by slot: first bit in maps_used */
	unsigned long *maps_used;	/* bit map_base[proc] + map index */
	u8 *buf;			/* NULL in the sizing pass */
	size_t size;
	u32 nr_records;
};

#define fst_copy_for_each(copy, e, off)					\
	for ((off) = 1; (off) < (copy)->used &&				\
	     ((e) = (struct fst_entry *)&(copy)->arena[off], 1);		\
	     (off) += fst_entry_words(e))

/* Reserve a record of @bytes (rounded up to 8); NULL in the sizing pass. */
static void *fst_rec(struct fst_snap *s, u16 type, size_t bytes)
{
	struct flamestat_rec *r;

	bytes = ALIGN(bytes, 8);
	r = s->buf ? (void *)(s->buf + s->size) : NULL;
	s->size += bytes;
	s->nr_records++;
	if (r) {
		memset(r, 0, bytes);
		r->type = type;
		r->size = bytes;
	}
	return r;
}

static const struct fst_maps *fst_snap_maps(struct fst_snap *s,
					    struct fst_proc *p)
{
	return rcu_dereference_protected(p->maps,
					 lockdep_is_held(&s->db->lock));
}

static void fst_emit_files(struct fst_snap *s)
{
	struct flamestat_rec_file *r;
	unsigned long bit;

	for_each_set_bit(bit, s->files_used, s->db->nr_files) {
		struct fst_file *f = s->db->files[bit];
		size_t len = strlen(f->path);

		r = fst_rec(s, FLAMESTAT_REC_FILE, sizeof(*r) + len + 1);
		if (!r)
			continue;
		r->file_id = f->id;
		r->build_id_size = f->build_id_size;
		memcpy(r->build_id, f->build_id, sizeof(r->build_id));
		r->path_len = len;
		r->dev = f->dev;
		r->ino = f->ino;
		memcpy(r->path, f->path, len + 1);
	}
}

static void fst_emit_procs(struct fst_snap *s)
{
	struct flamestat_rec_proc *r;
	struct flamestat_rec_map *rm;
	unsigned long bit;
	u32 i;

	for_each_set_bit(bit, s->procs_used, s->db->max_procs) {
		struct fst_proc *p = &s->db->procs[bit];
		const struct fst_maps *maps = fst_snap_maps(s, p);

		r = fst_rec(s, FLAMESTAT_REC_PROC, sizeof(*r));
		if (r) {
			r->proc_id = p->id;
			r->tgid = p->tgid;
			r->ns_tgid = p->ns_tgid;
			r->flags =
			    (test_bit(FST_PROC_EXITED, &p->bits) ?
			     FLAMESTAT_PROCF_EXITED : 0) |
			    (test_bit(FST_PROC_COMPAT, &p->bits) ?
			     FLAMESTAT_PROCF_COMPAT : 0) |
			    (test_bit(FST_PROC_NOMAPS, &p->bits) || !maps ?
			     FLAMESTAT_PROCF_NOMAPS : 0) |
			    (test_bit(FST_PROC_OWN_ROOT, &p->bits) ?
			     FLAMESTAT_PROCF_OWN_ROOT : 0) |
			    (!test_bit(FST_PROC_ROOT_KNOWN, &p->bits) ?
			     FLAMESTAT_PROCF_ROOT_UNKNOWN : 0);
			memcpy(r->comm, p->comm, sizeof(r->comm));
			r->mnt_ns = p->mnt_ns;
			r->root_dev = p->root_dev;
			r->root_ino = p->root_ino;
		}
		for (i = 0; maps && i < maps->nr; i++) {
			const struct fst_map *m = &maps->map[i];

			if (!test_bit(s->map_base[bit] + i, s->maps_used))
				continue;
			rm = fst_rec(s, FLAMESTAT_REC_MAP, sizeof(*rm));
			if (!rm)
				continue;
			rm->proc_id = p->id;
			rm->file_id = m->file_id;
			rm->start = m->start;
			rm->end = m->end;
			rm->pgoff = m->pgoff;
			rm->flags = m->flags;
			rm->generation = m->generation;
		}
	}
}

static void fst_emit_ksyms(struct fst_snap *s)
{
	struct flamestat_rec_ksym *r;
	size_t len;
	u32 i;

	for (i = 0; i < s->ksyms.nr; i++) {
		const char *name = s->ksyms.name[i];

		/* An unknown address shows as itself when allowed. */
		if (!name && s->kaddr_ok && !s->hide_kernel)
			continue;
		if (!name)
			name = "[unknown]";
		len = strlen(name);
		r = fst_rec(s, FLAMESTAT_REC_KSYM, sizeof(*r) + len + 1);
		if (!r)
			continue;
		r->value = s->kaddr_ok && !s->hide_kernel ? s->ksyms.val[i] :
			   i + 1;
		r->offset = s->ksyms.offset[i];
		r->name_len = len;
		memcpy(r->name, name, len + 1);
	}
}

/* Names for every kernel frame value, looked up once: kallsyms may change. */
static int fst_ksymset_resolve(struct fst_snap *s)
{
	char buf[KSYM_NAME_LEN + 64];
	u32 i;
	int len;

	for (i = 0; i < s->ksyms.nr; i++) {
		if (s->hide_kernel)
			len = strscpy(buf, "[withheld]", sizeof(buf));
		else
			len = fst_ksym_name(s->ksyms.val[i] - s->ksyms.is_ret[i],
					    buf, sizeof(buf),
					   &s->ksyms.offset[i]);
		if (len < 0)
			continue;
		s->ksyms.name[i] = kstrdup(buf, FST_GFP_READER);
		if (!s->ksyms.name[i])
			return -ENOMEM;
		cond_resched();
	}
	return 0;
}

/* A kernel frame as a STACK record carries it. */
static u64 fst_snap_kframe(struct fst_snap *s, u64 v)
{
	if (s->hide_kernel)
		return FST_KSYM_WITHHELD;
	return s->kaddr_ok ? v : fst_ksymset_id(&s->ksyms, v);
}

static void fst_emit_stacks(struct fst_snap *s)
{
	u64 period = s->copy->cfg.period_ns;
	struct flamestat_rec_stack *r;
	const u64 *waker;
	struct fst_entry *e;
	u32 off, i, nk, nw;
	bool off_cpu;

	fst_copy_for_each(s->copy, e, off) {
		nk = s->hide_kernel && e->nr_kernel ? 1 : e->nr_kernel;
		nw = s->hide_kernel ? 0 : e->nr_waker;
		off_cpu = e->flags & FLAMESTAT_STACKF_OFFCPU;
		/*
		 * The frames, then the periods, the time and the waker's
		 * frames (the record grew at its end).
		 */
		r = fst_rec(s, FLAMESTAT_REC_STACK, sizeof(*r) +
			    (nk + e->nr_user + nw + 2) * sizeof(u64));
		if (!r)
			continue;
		r->count = e->count;
		/* Its slot reused since: no process record to refer to. */
		r->proc_id = fst_procdb_proc(s->db, e->proc_id) ?
			     e->proc_id : 0;
		r->tgid = e->tgid;
		r->cpu = e->cpu;
		r->nr_kernel = nk;
		r->nr_user = e->nr_user;
		r->nr_waker = nw;
		r->flags = e->flags;
		memcpy(r->comm, e->comm, sizeof(r->comm));
		for (i = 0; i < nk; i++)
			r->frames[i] = fst_snap_kframe(s, e->frames[i]);
		memcpy(&r->frames[nk], &e->frames[e->nr_kernel],
		       e->nr_user * sizeof(u64));
		i = nk + e->nr_user;
		/* Off-CPU: periods is the count, the entry's weight is ns. */
		r->frames[i] = off_cpu ? e->count : e->periods;
		r->frames[i + 1] = off_cpu ? e->periods : e->periods * period;
		/* The waker's frames last: the record grew at its end. */
		waker = &e->frames[e->nr_kernel + e->nr_user];
		for (i = 0; i < nw; i++)
			r->frames[nk + e->nr_user + 2 + i] =
				fst_snap_kframe(s, waker[i]);
	}
}

/* The mappings (and so the files) that some user frame falls in. */
static int fst_snap_collect_maps(struct fst_snap *s)
{
	const struct fst_maps *maps;
	unsigned long bit;
	struct fst_entry *e;
	u64 nr_maps = 0;
	u32 off, i, slot;

	s->map_base = kvcalloc(s->db->max_procs, sizeof(u32), FST_GFP_READER);
	if (!s->map_base)
		return -ENOMEM;
	for_each_set_bit(bit, s->procs_used, s->db->max_procs) {
		maps = fst_snap_maps(s, &s->db->procs[bit]);
		s->map_base[bit] = nr_maps;
		nr_maps += maps ? maps->nr : 0;
	}
	/* bitmap_zalloc() counts bits in an unsigned int. */
	if (nr_maps > U32_MAX)
		return -E2BIG;
	s->maps_used = bitmap_zalloc(max_t(u32, nr_maps, 1), FST_GFP_READER);
	if (!s->maps_used)
		return -ENOMEM;
	fst_copy_for_each(s->copy, e, off) {
		if (!e->nr_user || !fst_procdb_proc(s->db, e->proc_id))
			continue;
		slot = fst_procdb_slot(s->db, e->proc_id);
		maps = fst_snap_maps(s, &s->db->procs[slot]);
		for (i = 0; maps && i < e->nr_user; i++) {
			const struct fst_map *m =
				fst_maps_find(maps, e->frames[e->nr_kernel + i]);

			if (!m)
				continue;
			__set_bit(s->map_base[slot] + (m - maps->map),
				  s->maps_used);
			if (fst_procdb_file(s->db, m->file_id))
				__set_bit(m->file_id - 1, s->files_used);
		}
		cond_resched();
	}
	return 0;
}

/* Sizing pass: which procs, maps, files and kernel frame values are used. */
static int fst_snap_collect(struct fst_snap *s)
{
	struct fst_entry *e;
	const u64 *waker;
	u32 off, i;
	bool ret0;
	int err;

	fst_copy_for_each(s->copy, e, off) {
		if (fst_procdb_proc(s->db, e->proc_id))
			__set_bit(fst_procdb_slot(s->db, e->proc_id),
				  s->procs_used);
	}
	err = fst_ksymset_init(&s->ksyms);
	if (err)
		return err;
	if (s->hide_kernel) {
		err = fst_ksymset_add(&s->ksyms, FST_KSYM_WITHHELD, false);
	} else {
		fst_copy_for_each(s->copy, e, off) {
			/*
			 * Return addresses but the interrupted PC of a
			 * sample: an off-CPU stack's first frame, and every
			 * waker frame (after the user part), are returns.
			 */
			ret0 = e->flags & FLAMESTAT_STACKF_OFFCPU;
			waker = &e->frames[e->nr_kernel + e->nr_user];
			for (i = 0; i < e->nr_kernel && !err; i++)
				err = fst_ksymset_add(&s->ksyms, e->frames[i],
						      i > 0 || ret0);
			for (i = 0; i < e->nr_waker && !err; i++)
				err = fst_ksymset_add(&s->ksyms, waker[i],
						      true);
			if (err)
				break;
			cond_resched();
		}
	}
	if (!err)
		err = fst_ksymset_alloc_names(&s->ksyms);
	if (!err)
		err = fst_ksymset_resolve(s);
	if (err)
		return err;
	return fst_snap_collect_maps(s);
}

static void fst_snap_emit_all(struct fst_snap *s)
{
	fst_emit_files(s);
	fst_emit_procs(s);
	fst_emit_ksyms(s);
	fst_emit_stacks(s);
}

/**
 * fst_snapshot_build() - serialise a reader's copy into a binary snapshot
 * @copy: the copy
 * @kaddr_ok: the reader may see raw kernel addresses; if not, kernel frames
 *	become KSYM ids
 * @bufp: the new snapshot, freed with fst_snapshot_free()
 * @sizep: its size
 *
 * Context: process context; takes the process database's lock.
 * Return: 0, -ENOMEM, -ENOBUFS when readers hold reader_kb already, or
 * -EIO if the two passes disagree (a bug).
 */
int fst_snapshot_build(struct fst_copy *copy, bool kaddr_ok, void **bufp,
		       size_t *sizep)
{
	struct fst_snap s = {
		.copy = copy,
		.db = copy->procdb,
		.kaddr_ok = kaddr_ok,
		.hide_kernel = copy->lockdown || fst_locked_down(),
	};
	struct flamestat_snap_header *h;
	int err = -ENOMEM;

	s.procs_used = bitmap_zalloc(s.db->max_procs, FST_GFP_READER);
	s.files_used = bitmap_zalloc(s.db->max_files, FST_GFP_READER);
	if (!s.procs_used || !s.files_used)
		goto out_free;

	mutex_lock(&s.db->lock);
	err = fst_snap_collect(&s);
	if (err)
		goto out_unlock;
	/* Sizing pass (buf == NULL), then the real one. */
	s.size = sizeof(*h);
	fst_snap_emit_all(&s);
	/*
	 * Charged to the reader and to reader_kb until the descriptor drops
	 * it (fst_snapshot_free()); may fail, never wakes the OOM killer.
	 */
	err = fst_reader_charge(s.size);
	if (err)
		goto out_unlock;
	s.buf = __vmalloc(s.size, FST_GFP_READER | __GFP_ZERO);
	if (!s.buf) {
		fst_reader_uncharge(s.size);
		err = -ENOMEM;
		goto out_unlock;
	}
	*sizep = s.size;
	s.size = sizeof(*h);
	s.nr_records = 0;
	fst_snap_emit_all(&s);
	err = 0;
out_unlock:
	mutex_unlock(&s.db->lock);
	if (err)
		goto out_free;
	if (WARN_ON_ONCE(s.size != *sizep)) {
		fst_snapshot_free(s.buf, *sizep);
		err = -EIO;
		goto out_free;
	}

	h = (struct flamestat_snap_header *)s.buf;
	h->magic = FLAMESTAT_SNAP_MAGIC;
	h->abi_version = FLAMESTAT_ABI_VERSION;
	h->header_size = sizeof(*h);
	h->total_size = s.size;
	h->flags = (!kaddr_ok || s.hide_kernel ?
		    FLAMESTAT_SNAPF_KADDR_HIDDEN : 0) |
		   (s.hide_kernel ? FLAMESTAT_SNAPF_LOCKDOWN : 0);
	h->nr_records = s.nr_records;
	h->boottime_ns = copy->boottime_ns;
	fst_cfg_to_user(&copy->cfg, &h->config);
	fst_stats_fill(&h->stats, &copy->counts);
	h->stats.stacks = copy->nr_entries;
	h->stats.running_ns = copy->running_ns;
	h->stats.nr_cpus = copy->nr_cpus;
	*bufp = s.buf;
out_free:
	fst_ksymset_free(&s.ksyms);
	kvfree(s.map_base);
	bitmap_free(s.maps_used);
	bitmap_free(s.procs_used);
	bitmap_free(s.files_used);
	return err;
}

/**
 * fst_snapshot_free() - free a snapshot fst_snapshot_build() made
 * @buf: the snapshot, or NULL
 * @size: its size
 *
 * Context: process context.
 */
void fst_snapshot_free(void *buf, size_t size)
{
	if (!buf)
		return;
	vfree(buf);
	fst_reader_uncharge(size);
}
