// SPDX-License-Identifier: GPL-2.0
/*
 * snapdump: takes one binary snapshot of /dev/flamestat, validates it
 * (tests/clients/snapcheck.h) and prints it one record per line, for guest
 * tests that check flags and raw frames with awk:
 *
 *   header flags=0x1 samples=N recorded=N dropped=N stacks=N user_fault=N ...
 *   file id=N path=PATH
 *   proc id=N tgid=N flags=0xF comm=NAME
 *   map proc=N file=N start=0xA end=0xB flags=0xF
 *   ksym value=0xV name=NAME
 *   stack count=N tgid=N proc=N flags=0xF nk=N nu=N comm=NAME k=0x..,.. u=0x..,..
 *
 *   snapdump [-c] [-o RAW]    -c: SNAP_CLEAR; -o: also save the raw bytes
 *   snapdump -z [-c] -o RAW   asks for it compressed (SNAP_DEFLATE), saves
 *                             what came and prints only "deflated N" or
 *                             "plain N" (N: its bytes; a plain one is
 *                             validated first)
 *
 * Exits 1 when the snapshot is invalid, 2 when it cannot be taken.
 */
#include <ctype.h>
#include <fcntl.h>
#include <unistd.h>

#include "snapcheck.h"

static void put_name(const char *s, size_t max)
{
	size_t i;

	for (i = 0; i < max && s[i]; i++)
		putchar(isgraph((unsigned char)s[i]) ? s[i] : '?');
	if (!i)
		putchar('-');
}

static void put_frames(const char *tag, const __u64 *f, unsigned int n)
{
	unsigned int i;

	printf(" %s=", tag);
	if (!n)
		putchar('-');
	for (i = 0; i < n; i++)
		printf("%s%#llx", i ? "," : "", (unsigned long long)f[i]);
}

int main(int argc, char **argv)
{
	const struct flamestat_snap_header *h;
	const uint8_t *p, *end;
	uint32_t flags = 0, out = 0;
	const char *raw = NULL;
	char why[300];
	size_t size;
	void *buf;
	int fd, i;
	unsigned long long dropped = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-c"))
			flags |= FLAMESTAT_SNAP_CLEAR;
		else if (!strcmp(argv[i], "-z"))
			flags |= FLAMESTAT_SNAP_DEFLATE;
		else if (!strcmp(argv[i], "-o") && i + 1 < argc)
			raw = argv[++i];
		else
			break;
	}
	if (i < argc || ((flags & FLAMESTAT_SNAP_DEFLATE) && !raw)) {
		fprintf(stderr, "usage: snapdump [-c] [-o RAW] | snapdump -z [-c] -o RAW\n");
		return 2;
	}
	fd = open(FLAMESTAT_DEVICE, (flags & FLAMESTAT_SNAP_CLEAR ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	if (fd < 0) {
		perror("snapdump: open " FLAMESTAT_DEVICE);
		return 2;
	}
	buf = snap_take_flags(fd, flags, 0, &size, &out);
	if (!buf) {
		perror("snapdump: snapshot");
		return 2;
	}
	close(fd);
	if (raw) {
		FILE *f = fopen(raw, "w");

		if (!f || fwrite(buf, 1, size, f) != size || fclose(f)) {
			perror(raw);
			return 2;
		}
	}
	if (out & FLAMESTAT_SNAP_DEFLATED) {
		if (!(flags & FLAMESTAT_SNAP_DEFLATE)) {
			printf("invalid: DEFLATED without DEFLATE asked\n");
			return 1;
		}
		printf("deflated %zu\n", size);
		return 0;
	}
	if (snap_validate(buf, size, NULL, why, sizeof(why))) {
		printf("invalid %s\n", why);
		return 1;
	}
	if (flags & FLAMESTAT_SNAP_DEFLATE) {
		printf("plain %zu\n", size);
		return 0;
	}
	h = buf;
	for (i = 0; i < FLAMESTAT_MAX_DROPS; i++)
		dropped += h->stats.dropped[i];
	printf("header flags=%#x samples=%llu recorded=%llu dropped=%llu stacks=%llu user_fault=%llu user_truncated=%llu user_compat=%llu kernel_truncated=%llu unmapped_procs=%llu procs=%llu\n",
	       h->flags, (unsigned long long)h->stats.samples,
	       (unsigned long long)h->stats.recorded, dropped,
	       (unsigned long long)h->stats.stacks,
	       (unsigned long long)h->stats.user_fault,
	       (unsigned long long)h->stats.user_truncated,
	       (unsigned long long)h->stats.user_compat,
	       (unsigned long long)h->stats.kernel_truncated,
	       (unsigned long long)h->stats.unmapped_procs,
	       (unsigned long long)h->stats.procs);
	p = (const uint8_t *)buf + sizeof(*h);
	end = (const uint8_t *)buf + size;
	while (p < end) {
		const struct flamestat_rec *r = (const void *)p;

		switch (r->type) {
		case FLAMESTAT_REC_FILE: {
			const struct flamestat_rec_file *f = (const void *)r;

			printf("file id=%u build_id=", f->file_id);
			if (!f->build_id_size)
				printf("none");
			for (__u32 i = 0; i < f->build_id_size &&
			     i < FLAMESTAT_BUILD_ID_SIZE; i++)
				printf("%02x", f->build_id[i]);
			printf(" path=");
			put_name(f->path, f->path_len);
			putchar('\n');
			break;
		}
		case FLAMESTAT_REC_MAP: {
			const struct flamestat_rec_map *m = (const void *)r;

			printf("map proc=%u file=%u start=%#llx end=%#llx flags=%#x\n",
			       m->proc_id, m->file_id,
			       (unsigned long long)m->start,
			       (unsigned long long)m->end, m->flags);
			break;
		}
		case FLAMESTAT_REC_PROC: {
			const struct flamestat_rec_proc *pr = (const void *)r;

			printf("proc id=%u tgid=%u flags=%#x", pr->proc_id,
			       pr->tgid, pr->flags);
			/* Root fields: in records of 64 bytes and more. */
			if (r->size >= 64)
				printf(" mnt_ns=%llu root=%llu:%llu",
				       (unsigned long long)pr->mnt_ns,
				       (unsigned long long)pr->root_dev,
				       (unsigned long long)pr->root_ino);
			printf(" comm=");
			put_name(pr->comm, sizeof(pr->comm));
			putchar('\n');
			break;
		}
		case FLAMESTAT_REC_KSYM: {
			const struct flamestat_rec_ksym *k = (const void *)r;

			printf("ksym value=%#llx name=", (unsigned long long)k->value);
			put_name(k->name, k->name_len);
			putchar('\n');
			break;
		}
		case FLAMESTAT_REC_STACK: {
			const struct flamestat_rec_stack *s = (const void *)r;

			uint64_t nf = (uint64_t)s->nr_kernel + s->nr_user;
			/* Modules before the periods: each sample is one. */
			uint64_t periods = r->size >= sizeof(*s) + (nf + 1) * 8 ?
					   s->frames[nf] : s->count;
			/* Modules before off-CPU time: no time. */
			uint64_t ns = r->size >= sizeof(*s) + (nf + 2) * 8 ?
				      s->frames[nf + 1] : 0;

			printf("stack count=%llu periods=%llu ns=%llu tgid=%u proc=%u flags=%#x nk=%u nu=%u nw=%u comm=",
			       (unsigned long long)s->count,
			       (unsigned long long)periods, (unsigned long long)ns,
			       s->tgid, s->proc_id, s->flags, s->nr_kernel, s->nr_user,
			       s->nr_waker);
			put_name(s->comm, sizeof(s->comm));
			put_frames("k", s->frames, s->nr_kernel);
			put_frames("u", s->frames + s->nr_kernel, s->nr_user);
			if (s->nr_waker)
				put_frames("w", s->frames + nf + 2, s->nr_waker);
			putchar('\n');
			break;
		}
		}
		p += r->size;
	}
	free(buf);
	return 0;
}
