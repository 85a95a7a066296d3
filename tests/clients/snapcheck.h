/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the device test clients: open/retry helpers, a seeded PRNG,
 * taking a binary snapshot through FLAMESTAT_IOC_SNAPSHOT/READ, and a strict
 * validator of the snapshot format of uapi/flamestat.h (bounds, record
 * order and references, and the counters: samples == recorded + dropped,
 * the STACK counts add up to recorded, one STACK per unique stack).
 */
#ifndef FS_SNAPCHECK_H
#define FS_SNAPCHECK_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "uapi/flamestat.h"

/* splitmix64: small, seedable, the same sequence on every machine. */
static inline uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, n), n > 0. */
static inline uint64_t rng_below(uint64_t *s, uint64_t n)
{
	return rng_next(s) % n;
}

/* The sampling period, as the module rounds it. */
static inline uint64_t snap_period_ns(const struct flamestat_snap_header *h)
{
	return (1000000000ULL + h->config.freq_hz / 2) / h->config.freq_hz;
}

/* The balance every reader may rely on; 0 when it holds. */
static inline int stats_balance_err(const struct flamestat_stats *st,
				    char *why, size_t whylen)
{
	unsigned long long sum = st->recorded;
	int i;

	for (i = 0; i < FLAMESTAT_MAX_DROPS; i++) {
		sum += st->dropped[i];
		if (i >= FLAMESTAT_NR_DROPS && st->dropped[i]) {
			snprintf(why, whylen, "unused drop slot %d is %llu", i,
				 (unsigned long long)st->dropped[i]);
			return -1;
		}
	}
	if (sum != st->samples) {
		snprintf(why, whylen,
			 "samples %llu != recorded %llu + dropped %llu",
			 (unsigned long long)st->samples,
			 (unsigned long long)st->recorded,
			 (unsigned long long)(sum - st->recorded));
		return -1;
	}
	sum = st->offcpu_recorded;
	for (i = 0; i < FLAMESTAT_MAX_OFFDROPS; i++) {
		sum += st->offcpu_dropped[i];
		if (i >= FLAMESTAT_NR_OFFDROPS && st->offcpu_dropped[i]) {
			snprintf(why, whylen, "unused off-CPU drop slot %d is %llu",
				 i, (unsigned long long)st->offcpu_dropped[i]);
			return -1;
		}
	}
	if (sum != st->offcpu_blocks) {
		snprintf(why, whylen,
			 "offcpu_blocks %llu != recorded %llu + dropped %llu",
			 (unsigned long long)st->offcpu_blocks,
			 (unsigned long long)st->offcpu_recorded,
			 (unsigned long long)(sum - st->offcpu_recorded));
		return -1;
	}
	if (st->offcpu_tasks > st->offcpu_tasks_max) {
		snprintf(why, whylen, "offcpu_tasks %llu > max %llu",
			 (unsigned long long)st->offcpu_tasks,
			 (unsigned long long)st->offcpu_tasks_max);
		return -1;
	}
	if (st->mem_used > st->mem_total) {
		snprintf(why, whylen, "mem_used %llu > mem_total %llu",
			 (unsigned long long)st->mem_used,
			 (unsigned long long)st->mem_total);
		return -1;
	}
	if (st->procs > st->procs_max) {
		snprintf(why, whylen, "procs %llu > procs_max %llu",
			 (unsigned long long)st->procs,
			 (unsigned long long)st->procs_max);
		return -1;
	}
	return 0;
}

/*
 * Takes a snapshot with @flags and reads it in pieces of @chunk bytes
 * (0: all at once). Returns a malloc'ed buffer and its size, or NULL with
 * errno set (the failing ioctl's); @outp: the flags the module gave back
 * (FLAMESTAT_SNAP_DEFLATED), if not NULL.
 */
static inline void *snap_take_flags(int fd, uint32_t flags, size_t chunk,
				    size_t *sizep, uint32_t *outp)
{
	struct flamestat_snapshot s = { .flags = flags };
	struct flamestat_read rd = { 0 };
	uint8_t *buf;
	size_t off = 0;
	int e;

	if (ioctl(fd, FLAMESTAT_IOC_SNAPSHOT, &s))
		return NULL;
	buf = malloc(s.size ? s.size : 1);
	if (!buf)
		return NULL;
	if (!chunk)
		chunk = s.size;
	while (off < s.size) {
		rd.buf = (uintptr_t)(buf + off);
		rd.offset = off;
		rd.len = chunk;
		rd.copied = 0;
		if (ioctl(fd, FLAMESTAT_IOC_READ, &rd)) {
			e = errno;
			free(buf);
			errno = e;
			return NULL;
		}
		if (!rd.copied || rd.copied > chunk || off + rd.copied > s.size) {
			free(buf);
			errno = EPROTO;
			return NULL;
		}
		off += rd.copied;
	}
	*sizep = s.size;
	if (outp)
		*outp = s.flags;
	return buf;
}

static inline void *snap_take(int fd, uint32_t flags, size_t chunk,
			      size_t *sizep)
{
	return snap_take_flags(fd, flags, chunk, sizep, NULL);
}

/* What snap_validate() learnt, for callers that check more. */
struct snap_summary {
	uint32_t flags;		/* header flags */
	uint64_t stacks;
	uint64_t counted;	/* sum of on-CPU STACK counts */
	uint64_t off_counted;	/* sum of off-CPU STACK counts */
	uint64_t off_ns;	/* and of their time */
	uint64_t procs;
	uint64_t maps;
	uint64_t files;
	uint64_t ksyms;
	uint64_t kernel_frames;
	uint64_t max_nu;
	uint64_t max_nk;
};

#define SNAP_MAX_IDS	(1U << 20)

static inline int snap_fail(char *why, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static inline int snap_fail(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return -1;
}

/* A NUL-terminated string of exactly @len bytes within [@p, @end). */
static inline bool snap_str_ok(const char *p, const char *end, uint32_t len)
{
	return len < (uint64_t)(end - p) && p[len] == '\0' &&
	       strlen(p) == len;
}

/*
 * Checks every rule of the format. Returns 0, or -1 with a reason in @why.
 * @sum may be NULL.
 */
static inline int snap_validate(const void *raw, size_t size,
				struct snap_summary *sum, char *why,
				size_t whylen)
{
	const struct flamestat_snap_header *h = raw;
	const uint8_t *p = raw, *end = p + size;
	struct snap_summary local;
	uint8_t *proc_seen = NULL, *file_seen = NULL;
	uint64_t *ksym_vals = NULL;
	uint64_t nksym = 0;
	uint32_t nrec = 0;
	int ret = -1;
	char sbuf[160];

	if (!sum)
		sum = &local;
	memset(sum, 0, sizeof(*sum));
	if (size < sizeof(*h))
		return snap_fail(why, whylen, "%zu bytes: shorter than the header", size);
	if (h->magic != FLAMESTAT_SNAP_MAGIC || h->abi_version != FLAMESTAT_ABI_VERSION ||
	    h->header_size != sizeof(*h))
		return snap_fail(why, whylen, "bad magic %#x, abi %u or header size %u",
				 h->magic, h->abi_version, h->header_size);
	if (h->total_size != size)
		return snap_fail(why, whylen, "total_size %llu, read %zu",
				 (unsigned long long)h->total_size, size);
	if (h->flags & ~(FLAMESTAT_SNAPF_KADDR_HIDDEN | FLAMESTAT_SNAPF_LOCKDOWN))
		return snap_fail(why, whylen, "unknown header flags %#x", h->flags);
	if ((h->flags & FLAMESTAT_SNAPF_LOCKDOWN) &&
	    !(h->flags & FLAMESTAT_SNAPF_KADDR_HIDDEN))
		return snap_fail(why, whylen, "LOCKDOWN without KADDR_HIDDEN");
	if (stats_balance_err(&h->stats, sbuf, sizeof(sbuf)))
		return snap_fail(why, whylen, "header stats: %s", sbuf);
	sum->flags = h->flags;

	proc_seen = calloc(SNAP_MAX_IDS, 1);
	file_seen = calloc(SNAP_MAX_IDS, 1);
	ksym_vals = calloc(SNAP_MAX_IDS, sizeof(uint64_t));
	if (!proc_seen || !file_seen || !ksym_vals) {
		snap_fail(why, whylen, "out of memory");
		goto out;
	}
	p += sizeof(*h);
	while (p < end) {
		const struct flamestat_rec *r = (const void *)p;
		uint64_t i;

		if ((size_t)(end - p) < sizeof(*r)) {
			snap_fail(why, whylen, "record %u: truncated header", nrec);
			goto out;
		}
		if (r->size < sizeof(*r) || r->size % 8 || r->size > (size_t)(end - p) ||
		    r->reserved) {
			snap_fail(why, whylen, "record %u: size %u (type %u, reserved %u) at offset %td",
				  nrec, r->size, r->type, r->reserved, p - (const uint8_t *)raw);
			goto out;
		}
		switch (r->type) {
		case FLAMESTAT_REC_FILE: {
			const struct flamestat_rec_file *f = (const void *)r;

			if (r->size < sizeof(*f) || !f->file_id || f->file_id >= SNAP_MAX_IDS ||
			    file_seen[f->file_id] || f->build_id_size > FLAMESTAT_BUILD_ID_SIZE ||
			    !snap_str_ok(f->path, (const char *)p + r->size, f->path_len)) {
				snap_fail(why, whylen, "record %u: bad FILE (id %u)", nrec, f->file_id);
				goto out;
			}
			file_seen[f->file_id] = 1;
			sum->files++;
			break;
		}
		case FLAMESTAT_REC_PROC: {
			const struct flamestat_rec_proc *pr = (const void *)r;

			/* The root fields came later (40-byte records before). */
			bool roots = r->size >= sizeof(*pr);

			if (r->size < offsetof(struct flamestat_rec_proc, mnt_ns) ||
			    !pr->proc_id || pr->proc_id >= SNAP_MAX_IDS ||
			    proc_seen[pr->proc_id] ||
			    (pr->flags & ~(FLAMESTAT_PROCF_EXITED | FLAMESTAT_PROCF_COMPAT |
					   FLAMESTAT_PROCF_NOMAPS | FLAMESTAT_PROCF_OWN_ROOT |
					   FLAMESTAT_PROCF_ROOT_UNKNOWN)) ||
			    /* A root is known, and then it is ours or its own. */
			    (roots && (pr->flags & FLAMESTAT_PROCF_ROOT_UNKNOWN) &&
			     (pr->flags & FLAMESTAT_PROCF_OWN_ROOT ||
			      pr->mnt_ns || pr->root_dev || pr->root_ino)) ||
			    (roots && !(pr->flags & FLAMESTAT_PROCF_OWN_ROOT) &&
			     (pr->root_dev || pr->root_ino)) ||
			    (roots && (pr->flags & FLAMESTAT_PROCF_OWN_ROOT) &&
			     !pr->root_ino) ||
			    !memchr(pr->comm, '\0', sizeof(pr->comm))) {
				snap_fail(why, whylen, "record %u: bad PROC (id %u)", nrec, pr->proc_id);
				goto out;
			}
			proc_seen[pr->proc_id] = 1;
			sum->procs++;
			break;
		}
		case FLAMESTAT_REC_MAP: {
			const struct flamestat_rec_map *m = (const void *)r;

			if (r->size < sizeof(*m) || !m->proc_id || m->proc_id >= SNAP_MAX_IDS ||
			    !proc_seen[m->proc_id] || m->start >= m->end ||
			    (m->file_id && (m->file_id >= SNAP_MAX_IDS || !file_seen[m->file_id])) ||
			    (m->flags & ~(FLAMESTAT_MAPF_ANON | FLAMESTAT_MAPF_VDSO))) {
				snap_fail(why, whylen, "record %u: bad MAP (proc %u, file %u, %#llx-%#llx)",
					  nrec, m->proc_id, m->file_id,
					  (unsigned long long)m->start, (unsigned long long)m->end);
				goto out;
			}
			sum->maps++;
			break;
		}
		case FLAMESTAT_REC_KSYM: {
			const struct flamestat_rec_ksym *k = (const void *)r;

			if (r->size < sizeof(*k) || nksym >= SNAP_MAX_IDS ||
			    !snap_str_ok(k->name, (const char *)p + r->size, k->name_len)) {
				snap_fail(why, whylen, "record %u: bad KSYM", nrec);
				goto out;
			}
			ksym_vals[nksym++] = k->value;
			sum->ksyms++;
			break;
		}
		case FLAMESTAT_REC_STACK: {
			const struct flamestat_rec_stack *s = (const void *)r;
			uint64_t nf;

			if (r->size < sizeof(*s)) {
				snap_fail(why, whylen, "record %u: short STACK", nrec);
				goto out;
			}
			nf = (uint64_t)s->nr_kernel + s->nr_user;
			/*
			 * The frames, then the periods the samples stand for
			 * (an off-CPU stack's: its count), then its time in ns
			 * (an on-CPU stack's: the periods times the period),
			 * then the waker's frames (off-CPU stacks only).
			 */
			if (r->size != sizeof(*s) + (nf + 2 + s->nr_waker) * 8 || !s->count ||
			    s->frames[nf] < s->count ||
			    ((s->flags & FLAMESTAT_STACKF_OFFCPU) ?
			     s->frames[nf] != s->count :
			     s->frames[nf + 1] != s->frames[nf] * snap_period_ns(h)) ||
			    s->nr_kernel > FLAMESTAT_MAX_KERNEL_DEPTH ||
			    s->nr_user > FLAMESTAT_MAX_USER_DEPTH ||
			    s->nr_waker > FLAMESTAT_MAX_KERNEL_DEPTH || s->pad ||
			    (s->nr_waker && !(s->flags & FLAMESTAT_STACKF_OFFCPU)) ||
			    (s->flags & (FLAMESTAT_STACKF_OFF_D | FLAMESTAT_STACKF_OFF_R) &&
			     !(s->flags & FLAMESTAT_STACKF_OFFCPU)) ||
			    (s->flags & FLAMESTAT_STACKF_OFFCPU &&
			     h->config.mode == FLAMESTAT_MODE_CPU) ||
			    (!(s->flags & FLAMESTAT_STACKF_OFFCPU) &&
			     h->config.mode == FLAMESTAT_MODE_OFFCPU) ||
			    (s->proc_id && (s->proc_id >= SNAP_MAX_IDS || !proc_seen[s->proc_id])) ||
			    (s->flags & FLAMESTAT_STACKF_WAKER_TRUNCATED && !s->nr_waker) ||
			    (s->flags & FLAMESTAT_STACKF_UNWIND_STOPPED &&
			     !(s->flags & (FLAMESTAT_STACKF_UNWIND_TABLE |
					   FLAMESTAT_STACKF_UNWIND_FP))) ||
			    (s->flags & ~0x7fffU) || !memchr(s->comm, '\0', sizeof(s->comm))) {
				snap_fail(why, whylen,
					  "record %u: bad STACK (count %llu, nk %u, nu %u, proc %u, flags %#x, size %u)",
					  nrec, (unsigned long long)s->count, s->nr_kernel,
					  s->nr_user, s->proc_id, s->flags, r->size);
				goto out;
			}
			if (!nf) {
				snap_fail(why, whylen, "record %u: STACK without frames", nrec);
				goto out;
			}
			if ((h->flags & FLAMESTAT_SNAPF_LOCKDOWN) && s->nr_kernel > 1) {
				snap_fail(why, whylen, "record %u: %u kernel frames under lockdown",
					  nrec, s->nr_kernel);
				goto out;
			}
			/* Kernel frames: the stack's, then its waker's. */
			for (i = 0; i < (uint64_t)s->nr_kernel + s->nr_waker; i++) {
				uint64_t v = s->frames[i < s->nr_kernel ? i : i + s->nr_user + 2], j;

				if (!(h->flags & FLAMESTAT_SNAPF_KADDR_HIDDEN))
					continue;
				/* Hidden: an id that a KSYM record (before) names. */
				for (j = 0; j < nksym && ksym_vals[j] != v; j++)
					;
				if (j == nksym || v >= (1ULL << 32)) {
					snap_fail(why, whylen,
						  "record %u: kernel frame %#llx has no KSYM record (addresses hidden)",
						  nrec, (unsigned long long)v);
					goto out;
				}
			}
			sum->stacks++;
			if (s->flags & FLAMESTAT_STACKF_OFFCPU) {
				sum->off_counted += s->count;
				sum->off_ns += s->frames[nf + 1];
			} else {
				sum->counted += s->count;
			}
			sum->kernel_frames += s->nr_kernel;
			if (s->nr_user > sum->max_nu)
				sum->max_nu = s->nr_user;
			if (s->nr_kernel > sum->max_nk)
				sum->max_nk = s->nr_kernel;
			break;
		}
		default:
			/* Readers skip types they do not know; the module emits none. */
			snap_fail(why, whylen, "record %u: unknown type %u", nrec, r->type);
			goto out;
		}
		p += r->size;
		nrec++;
	}
	if (nrec != h->nr_records) {
		snap_fail(why, whylen, "%u records, header says %u", nrec, h->nr_records);
		goto out;
	}
	if (sum->counted != h->stats.recorded) {
		snap_fail(why, whylen, "STACK counts add up to %llu, recorded is %llu",
			  (unsigned long long)sum->counted,
			  (unsigned long long)h->stats.recorded);
		goto out;
	}
	if (sum->off_counted != h->stats.offcpu_recorded ||
	    sum->off_ns != h->stats.offcpu_ns) {
		snap_fail(why, whylen,
			  "off-CPU STACK counts add up to %llu and %llu ns, offcpu_recorded is %llu, offcpu_ns %llu",
			  (unsigned long long)sum->off_counted,
			  (unsigned long long)sum->off_ns,
			  (unsigned long long)h->stats.offcpu_recorded,
			  (unsigned long long)h->stats.offcpu_ns);
		goto out;
	}
	if (sum->stacks != h->stats.stacks) {
		snap_fail(why, whylen, "%llu STACK records, stats.stacks is %llu",
			  (unsigned long long)sum->stacks,
			  (unsigned long long)h->stats.stacks);
		goto out;
	}
	ret = 0;
out:
	free(proc_seen);
	free(file_seen);
	free(ksym_vals);
	return ret;
}

/*
 * Checks folded text: every line is "STACK COUNT\n" with exactly one
 * space, a non-empty stack, a positive count. Returns the sum of the
 * counts, or -1 with the reason in @why.
 */
static inline long long folded_validate(const char *t, size_t len, char *why,
					size_t whylen)
{
	static const char hdr[] = "# flamestat: mode ";
	long long total = 0;
	size_t line = 0;

	/* Off-CPU and wall-clock text says so on its first line. */
	if (len > sizeof(hdr) && !memcmp(t, hdr, sizeof(hdr) - 1)) {
		const char *nl = memchr(t, '\n', len);

		if (!nl) {
			snap_fail(why, whylen, "header line without newline");
			return -1;
		}
		len -= (size_t)(nl + 1 - t);
		t = nl + 1;
	}
	while (len) {
		const char *nl = memchr(t, '\n', len), *sp;
		size_t l;
		char *e;
		unsigned long long c;

		line++;
		if (!nl) {
			snap_fail(why, whylen, "line %zu: no newline at the end", line);
			return -1;
		}
		l = nl - t;
		sp = memchr(t, ' ', l);
		if (!sp || sp == t || memchr(sp + 1, ' ', nl - sp - 1) || sp + 1 == nl ||
		    memchr(t, '\0', l)) {
			snap_fail(why, whylen, "line %zu: not 'STACK COUNT': %.*s", line,
				  (int)(l > 120 ? 120 : l), t);
			return -1;
		}
		errno = 0;
		c = strtoull(sp + 1, &e, 10);
		if (errno || e != nl || !c) {
			snap_fail(why, whylen, "line %zu: bad count: %.*s", line,
				  (int)(l > 120 ? 120 : l), t);
			return -1;
		}
		total += (long long)c;
		len -= l + 1;
		t = nl + 1;
	}
	return total;
}

#endif /* FS_SNAPCHECK_H */
