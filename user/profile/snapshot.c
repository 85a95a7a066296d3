// SPDX-License-Identifier: GPL-2.0
/* Parse, validate, load and save binary snapshots (see snapshot.h). */
#include <errno.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "lib/gzwrite.h"
#include "lib/outfile.h"
#include "lib/util.h"
#include "profile/snapshot.h"
#include "profile/snapzip.h"

struct parser {
	struct snapshot *s;
	char *err;
	size_t errlen;
	size_t cap_files, cap_procs, cap_ksyms, cap_stacks;
};

__attribute__((format(printf, 2, 3)))
static int perr(struct parser *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->err, p->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* A NUL-terminated string of @len bytes inside a record of @avail bytes. */
static bool str_ok(const char *s, uint64_t len, size_t avail)
{
	return len < avail && s[len] == '\0' && memchr(s, '\0', len) == NULL;
}

#define GROW(p, arr, nr, cap)						\
	do {								\
		if ((nr) == (cap)) {					\
			(cap) = (cap) ? 2 * (cap) : 64;			\
			(arr) = xreallocarray((arr), (cap), sizeof(*(arr))); \
		}							\
	} while (0)

static int cmp_file(const void *a, const void *b)
{
	const struct snap_file *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

static int cmp_proc(const void *a, const void *b)
{
	const struct snap_proc *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

static int cmp_ksym(const void *a, const void *b)
{
	const struct snap_ksym *x = a, *y = b;

	return (x->value > y->value) - (x->value < y->value);
}

static int cmp_map(const void *a, const void *b)
{
	const struct snap_map *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->generation < y->generation) - (x->generation > y->generation);
}

static struct snap_file *find_file(struct snapshot *s, uint32_t id)
{
	struct snap_file key = { .id = id };

	return s->nr_files ? bsearch(&key, s->files, s->nr_files, sizeof(key),
				     cmp_file) : NULL;
}

static struct snap_proc *find_proc(struct snapshot *s, uint32_t id)
{
	struct snap_proc key = { .id = id };

	return s->nr_procs ? bsearch(&key, s->procs, s->nr_procs, sizeof(key),
				     cmp_proc) : NULL;
}

static int parse_file(struct parser *p, const void *rec, size_t size)
{
	const struct flamestat_rec_file *r = rec;
	struct snapshot *s = p->s;
	struct snap_file *f;

	if (size < sizeof(*r) ||
	    !str_ok(r->path, r->path_len, size - sizeof(*r)))
		return perr(p, "bad FILE record");
	if (!r->file_id || r->build_id_size > FLAMESTAT_BUILD_ID_SIZE)
		return perr(p, "bad FILE record fields");
	GROW(p, s->files, s->nr_files, p->cap_files);
	f = &s->files[s->nr_files++];
	f->id = r->file_id;
	f->build_id_size = r->build_id_size;
	f->build_id = r->build_id;
	f->dev = r->dev;
	f->ino = r->ino;
	f->path = r->path;
	return 0;
}

static int parse_proc(struct parser *p, const void *rec, size_t size)
{
	const struct flamestat_rec_proc *r = rec;
	struct snapshot *s = p->s;
	struct snap_proc *pr;

	/* Modules before the root fields wrote 40-byte records. */
	if (size < offsetof(struct flamestat_rec_proc, mnt_ns) || !r->proc_id)
		return perr(p, "bad PROC record");
	GROW(p, s->procs, s->nr_procs, p->cap_procs);
	pr = &s->procs[s->nr_procs++];
	memset(pr, 0, sizeof(*pr));
	pr->id = r->proc_id;
	pr->tgid = r->tgid;
	pr->ns_tgid = r->ns_tgid;
	pr->flags = r->flags;
	memcpy(pr->comm, r->comm, sizeof(pr->comm));
	pr->comm[sizeof(pr->comm) - 1] = '\0';
	if (size >= offsetof(struct flamestat_rec_proc, root_ino) +
		    sizeof(r->root_ino)) {
		pr->mnt_ns = r->mnt_ns;
		pr->root_dev = r->root_dev;
		pr->root_ino = r->root_ino;
	} else {
		pr->flags &= ~(uint32_t)FLAMESTAT_PROCF_OWN_ROOT;
	}
	return 0;
}

static int parse_ksym(struct parser *p, const void *rec, size_t size)
{
	const struct flamestat_rec_ksym *r = rec;
	struct snapshot *s = p->s;
	struct snap_ksym *k;

	if (size < sizeof(*r) ||
	    !str_ok(r->name, r->name_len, size - sizeof(*r)))
		return perr(p, "bad KSYM record");
	GROW(p, s->ksyms, s->nr_ksyms, p->cap_ksyms);
	k = &s->ksyms[s->nr_ksyms++];
	k->value = r->value;
	k->offset = r->offset;
	k->name = r->name;
	return 0;
}

uint64_t snapshot_period_ns(uint32_t freq_hz)
{
	return freq_hz ? (1000000000ULL + freq_hz / 2) / freq_hz : 0;
}

const char *snapshot_mode_name(uint32_t mode)
{
	switch (mode) {
	case FLAMESTAT_MODE_CPU:
		return "cpu";
	case FLAMESTAT_MODE_OFFCPU:
		return "offcpu";
	case FLAMESTAT_MODE_WALL:
		return "wall";
	}
	return "unknown";
}

/* The state an off-CPU stack left in, from its flags; 0 when on-CPU. */
static int stack_state(struct parser *p, uint32_t flags, char *state)
{
	uint32_t off = flags & (FLAMESTAT_STACKF_OFFCPU |
				FLAMESTAT_STACKF_OFF_D |
				FLAMESTAT_STACKF_OFF_R);

	*state = 0;
	if (!off)
		return 0;
	if (off == FLAMESTAT_STACKF_OFFCPU)
		*state = 'S';
	else if (off == (FLAMESTAT_STACKF_OFFCPU | FLAMESTAT_STACKF_OFF_D))
		*state = 'D';
	else if (off == (FLAMESTAT_STACKF_OFFCPU | FLAMESTAT_STACKF_OFF_R))
		*state = 'R';
	else
		return perr(p, "bad STACK record (off-CPU flags %#x)", off);
	if (p->s->hdr.config.mode == FLAMESTAT_MODE_CPU)
		return perr(p, "bad STACK record (off-CPU in a CPU-time snapshot)");
	return 0;
}

/*
 * The frames, then what the record's size covers of: the periods the
 * samples stand for (modules since periods were recorded), the stack's
 * time in ns (modules with off-CPU time). What may follow is a newer
 * module's and is skipped. Three layouts, then: frames only, frames and
 * periods, frames, periods and time.
 */
static int parse_stack(struct parser *p, const void *rec, size_t size)
{
	const struct flamestat_rec_stack *r = rec;
	struct snapshot *s = p->s;
	struct snap_stack *st;
	uint64_t nf, words, periods, time_ns;
	char state;

	if (size < sizeof(*r))
		return perr(p, "bad STACK record");
	nf = (uint64_t)r->nr_kernel + r->nr_user;
	words = (size - sizeof(*r)) / 8;
	if (words < nf || !r->count)
		return perr(p, "bad STACK record");
	/* The waker's frames come after the periods and the time. */
	if (r->nr_waker && words < nf + 2 + r->nr_waker)
		return perr(p, "bad STACK record (waker frames past its end)");
	if (stack_state(p, r->flags, &state))
		return -1;
	/* Waker frames belong to off-CPU stacks, which have their time. */
	if (r->nr_waker && !state)
		return perr(p, "bad STACK record (waker frames on an on-CPU stack)");
	if (state && words < nf + 2)
		return perr(p, "bad STACK record (off-CPU stack without its time)");
	periods = r->count;
	if (words > nf) {
		memcpy(&periods, &r->frames[nf], sizeof(periods));
		if (periods < r->count)
			return perr(p, "bad STACK record (%llu periods for %llu samples)",
				    (unsigned long long)periods,
				    (unsigned long long)r->count);
	}
	if (words > nf + 1)
		memcpy(&time_ns, &r->frames[nf + 1], sizeof(time_ns));
	else
		time_ns = periods * snapshot_period_ns(s->hdr.config.freq_hz);
	GROW(p, s->stacks, s->nr_stacks, p->cap_stacks);
	st = &s->stacks[s->nr_stacks++];
	st->rec = r;
	st->proc = NULL;
	st->periods = periods;
	st->time_ns = time_ns;
	st->state = state;
	return 0;
}

/* Second pass: maps need their procs and files, which came before them. */
static int attach_maps(struct parser *p, const uint8_t *base, size_t size)
{
	struct snapshot *s = p->s;
	size_t off = s->hdr.header_size, i;
	size_t *caps = xcalloc(s->nr_procs ? s->nr_procs : 1, sizeof(*caps));

	while (off < size) {
		const struct flamestat_rec *r = (const void *)(base + off);
		const struct flamestat_rec_map *m = (const void *)r;
		struct snap_proc *pr;
		struct snap_map *sm;

		if (r->type == FLAMESTAT_REC_MAP) {
			if (r->size < sizeof(*m) || m->start >= m->end) {
				free(caps);
				return perr(p, "bad MAP record at offset %zu",
					    off);
			}
			pr = find_proc(s, m->proc_id);
			if (!pr) {
				free(caps);
				return perr(p, "MAP record for unknown process %u",
					    m->proc_id);
			}
			i = (size_t)(pr - s->procs);
			GROW(p, pr->maps, pr->nr_maps, caps[i]);
			sm = &pr->maps[pr->nr_maps++];
			sm->start = m->start;
			sm->end = m->end;
			sm->pgoff = m->pgoff;
			sm->flags = m->flags;
			sm->generation = m->generation;
			sm->file = m->file_id ? find_file(s, m->file_id) : NULL;
		}
		off += r->size;
	}
	free(caps);
	for (i = 0; i < s->nr_procs; i++)
		if (s->procs[i].nr_maps)
			qsort(s->procs[i].maps, s->procs[i].nr_maps,
			      sizeof(struct snap_map), cmp_map);
	for (i = 0; i < s->nr_stacks; i++)
		s->stacks[i].proc = s->stacks[i].rec->proc_id ?
			find_proc(s, s->stacks[i].rec->proc_id) : NULL;
	return 0;
}

int snapshot_parse(struct snapshot *s, void *raw, size_t size, char *err,
		   size_t errlen)
{
	struct parser p = { .s = s, .err = err, .errlen = errlen };
	const uint8_t *base = raw;
	uint32_t nr = 0;
	size_t off;
	int ret = -1;

	memset(s, 0, sizeof(*s));
	s->raw = raw;
	s->raw_size = size;
	if (size < SNAPSHOT_HEADER_SIZE_V1) {
		perr(&p, "too short for a snapshot (%zu bytes)", size);
		goto out;
	}
	/* Older modules' headers are shorter: their off-CPU counters are 0. */
	memcpy(&s->hdr, raw, SNAPSHOT_HEADER_SIZE_V1);
	if (s->hdr.magic != FLAMESTAT_SNAP_MAGIC) {
		perr(&p, "not a flamestat snapshot (bad magic)");
		goto out;
	}
	if (s->hdr.abi_version != FLAMESTAT_ABI_VERSION) {
		perr(&p, "snapshot of ABI version %u; this tool reads version %d",
		     s->hdr.abi_version, FLAMESTAT_ABI_VERSION);
		goto out;
	}
	if (s->hdr.header_size < SNAPSHOT_HEADER_SIZE_V1 ||
	    s->hdr.header_size % 8 || s->hdr.header_size > size ||
	    s->hdr.total_size != size) {
		perr(&p, "snapshot size mismatch (header says %llu, have %zu): truncated file?",
		     (unsigned long long)s->hdr.total_size, size);
		goto out;
	}
	memcpy(&s->hdr, raw, s->hdr.header_size < sizeof(s->hdr) ?
	       s->hdr.header_size : sizeof(s->hdr));
	if (s->hdr.config.mode >= FLAMESTAT_NR_MODES) {
		perr(&p, "snapshot of an unknown mode %u (a newer module's?)",
		     s->hdr.config.mode);
		goto out;
	}
	for (off = s->hdr.header_size; off < size; nr++) {
		const struct flamestat_rec *r = (const void *)(base + off);
		const void *rec = r;
		int e = 0;

		if (size - off < sizeof(*r) || r->size < sizeof(*r) ||
		    r->size % 8 || r->size > size - off) {
			perr(&p, "bad record size at offset %zu", off);
			goto out;
		}
		switch (r->type) {
		case FLAMESTAT_REC_FILE:
			e = parse_file(&p, rec, r->size);
			break;
		case FLAMESTAT_REC_PROC:
			e = parse_proc(&p, rec, r->size);
			break;
		case FLAMESTAT_REC_KSYM:
			e = parse_ksym(&p, rec, r->size);
			break;
		case FLAMESTAT_REC_STACK:
			e = parse_stack(&p, rec, r->size);
			break;
		case FLAMESTAT_REC_HOST:
			if (r->size < sizeof(s->host)) {
				e = perr(&p, "bad HOST record");
				break;
			}
			memcpy(&s->host, rec, sizeof(s->host));
			s->host.boot_id[sizeof(s->host.boot_id) - 1] = '\0';
			s->host.release[sizeof(s->host.release) - 1] = '\0';
			s->host.hostname[sizeof(s->host.hostname) - 1] = '\0';
			s->has_host = true;
			break;
		default:	/* MAP later; unknown types are skipped */
			break;
		}
		if (e)
			goto out;
		off += r->size;
	}
	if (nr != s->hdr.nr_records) {
		perr(&p, "snapshot has %u records, header says %u", nr,
		     s->hdr.nr_records);
		goto out;
	}
	/*
	 * qsort's and bsearch's base must not be NULL, even for no elements
	 * (C11 7.22.5): arrays of no records are NULL here.
	 */
	if (s->nr_files)
		qsort(s->files, s->nr_files, sizeof(*s->files), cmp_file);
	if (s->nr_procs)
		qsort(s->procs, s->nr_procs, sizeof(*s->procs), cmp_proc);
	if (s->nr_ksyms)
		qsort(s->ksyms, s->nr_ksyms, sizeof(*s->ksyms), cmp_ksym);
	if (attach_maps(&p, base, size))
		goto out;
	ret = 0;
out:
	if (ret)
		snapshot_free(s);
	return ret;
}

void snapshot_free(struct snapshot *s)
{
	size_t i;

	for (i = 0; i < s->nr_procs; i++)
		free(s->procs[i].maps);
	free(s->files);
	free(s->procs);
	free(s->ksyms);
	free(s->stacks);
	free(s->raw);
	memset(s, 0, sizeof(*s));
}

bool snapshot_file_is_raw(const char *path)
{
	/* Enough of a stream for its first bytes to inflate. */
	static uint8_t head[65536];
	FILE *f = fopen(path, "rb");
	uint32_t magic;
	size_t n;

	if (!f)
		return false;
	n = fread(head, 1, sizeof(head), f);
	fclose(f);
	if (n >= sizeof(magic)) {
		memcpy(&magic, head, sizeof(magic));
		if (magic == FLAMESTAT_SNAP_MAGIC)
			return true;
	}
	return snapzip_starts_snapshot(head, n);
}

int snapshot_load(struct snapshot *s, const char *path)
{
	struct strbuf sb = { 0 };
	char buf[65536], err[256];
	size_t n;
	FILE *f = fopen(path, "rb");

	if (!f) {
		fs_perror("cannot open %s", path);
		return -1;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		sb_add(&sb, buf, n);
	if (ferror(f)) {
		fs_perror("cannot read %s", path);
		fclose(f);
		sb_free(&sb);
		return -1;
	}
	fclose(f);
	if (!sb.buf)
		sb_grow(&sb, 0);
	if (snapzip_is_compressed(sb.buf, sb.len)) {
		void *plain;
		size_t size;

		n = snapzip_inflate(sb.buf, sb.len, &plain, &size, err, sizeof(err));
		sb_free(&sb);
		if (n) {
			fs_err("%s: %s", path, err);
			return -1;
		}
		sb.buf = plain;
		sb.len = size;
	}
	if (snapshot_parse(s, sb.buf, sb.len, err, sizeof(err))) {
		fs_err("%s: %s", path, err);
		return -1;
	}
	return 0;
}

static void read_boot_id(char *buf, size_t size)
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");

	buf[0] = '\0';
	if (!f)
		return;
	if (!fgets(buf, (int)size, f))
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

bool snapshot_from_this_boot(const struct snapshot *s, bool live)
{
	char id[48];

	if (live)
		return true;
	if (!s->has_host)
		return false;
	read_boot_id(id, sizeof(id));
	return id[0] && !strcmp(id, s->host.boot_id);
}

char *snapshot_foreign(const struct snapshot *s)
{
	struct utsname u;
	char id[48];

	if (!s->has_host || !s->host.boot_id[0])
		return NULL;
	read_boot_id(id, sizeof(id));
	if (!id[0] || !strcmp(id, s->host.boot_id))
		return NULL;
	if (!uname(&u) && s->host.hostname[0] &&
	    strcmp(u.nodename, s->host.hostname))
		return xasprintf("on host '%s' (this is '%s')",
				 s->host.hostname, u.nodename);
	return xasprintf("in another boot of this host (boot id %s, now %s)",
			 s->host.boot_id, id);
}

static void fill_host(struct flamestat_rec_host *h)
{
	struct utsname u;
	struct timespec ts;

	memset(h, 0, sizeof(*h));
	h->hdr.type = FLAMESTAT_REC_HOST;
	h->hdr.size = sizeof(*h);
	read_boot_id(h->boot_id, sizeof(h->boot_id));
	if (!uname(&u)) {
		snprintf(h->release, sizeof(h->release), "%s", u.release);
		snprintf(h->hostname, sizeof(h->hostname), "%s", u.nodename);
	}
	if (!clock_gettime(CLOCK_REALTIME, &ts))
		h->realtime_ns = (uint64_t)ts.tv_sec * 1000000000ULL +
				 (uint64_t)ts.tv_nsec;
}

int snapshot_write(const struct snapshot *s, FILE *f)
{
	struct flamestat_snap_header hdr = s->hdr;
	struct flamestat_rec_host host;
	const uint8_t *raw = s->raw;
	bool add = !s->has_host;
	struct gzwrite *w;

	if (add) {
		fill_host(&host);
		hdr.total_size += sizeof(host);
		hdr.nr_records++;
	}
	/* gzip'd: a quarter of the bytes; zcat gives the plain snapshot. */
	w = gzwrite_new(f);
	if (!w)
		return -1;
	errno = 0;
	/*
	 * The header as it came, whatever its size (an older or newer
	 * module's): only total_size and nr_records, before the config,
	 * change.
	 */
	if (gzwrite_add(w, &hdr, offsetof(struct flamestat_snap_header, config)) ||
	    gzwrite_add(w, raw + offsetof(struct flamestat_snap_header, config),
			  s->raw_size - offsetof(struct flamestat_snap_header, config)) ||
	    (add && gzwrite_add(w, &host, sizeof(host)))) {
		int err = errno;

		gzwrite_finish(w);
		errno = err ? err : EIO;
		return -1;
	}
	if (!gzwrite_finish(w) && !fflush(f))
		return 0;
	if (!errno)
		errno = EIO;
	return -1;
}

int snapshot_save(const struct snapshot *s, const char *path)
{
	struct outfile o;
	int r;

	if (outfile_open(&o, path))
		return -1;
	r = snapshot_write(s, o.f);
	if (r)
		fs_perror("cannot write %s", path);
	return outfile_close(&o, !r) ? -1 : 0;
}

/*
 * The module never records overlapping maps for one process, so the last
 * map starting at or below @addr is the only candidate.
 */
const struct snap_map *snap_proc_find_map(const struct snap_proc *p,
					  uint64_t addr)
{
	size_t lo = 0, hi = p->nr_maps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->maps[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && addr < p->maps[lo - 1].end)
		return &p->maps[lo - 1];
	return NULL;
}

const struct snap_ksym *snapshot_find_ksym(const struct snapshot *s,
					   uint64_t value)
{
	struct snap_ksym key = { .value = value };

	return s->nr_ksyms ? bsearch(&key, s->ksyms, s->nr_ksyms, sizeof(key),
				     cmp_ksym) : NULL;
}
