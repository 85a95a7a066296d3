// SPDX-License-Identifier: GPL-2.0
/*
 * kaddr_check: who sees raw kernel addresses. Changes its own capabilities
 * with capset(2) (uid stays 0), opens /dev/flamestat and checks what it is
 * given against EXPECT:
 *
 *   visible  open works; the snapshot has raw kernel frames (kernel
 *            addresses) and no KADDR_HIDDEN flag
 *   hidden   open works; KADDR_HIDDEN is set, every kernel frame is a KSYM
 *            id with a name, names are real symbols, and neither the
 *            snapshot's kernel frames nor the text hold a kernel address
 *   denied   open fails with EPERM or EACCES
 *
 *   kaddr_check [--keep CAPS | --drop CAPS] [--drop-after-open CAPS] EXPECT
 *     CAPS: comma-separated of syslog, perfmon, sys_admin
 *
 * Needs kernel stacks in the table (run a syscall workload first).
 * Prints "ok - ..." / "not ok - ..." lines; exits 1 if a check failed.
 */
#include <fcntl.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "snapcheck.h"
#include "tap.h"

static uint64_t parse_caps(const char *s)
{
	uint64_t m = 0;
	char buf[128], *tok, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "syslog"))
			m |= 1ULL << CAP_SYSLOG;
		else if (!strcmp(tok, "perfmon"))
			m |= 1ULL << CAP_PERFMON;
		else if (!strcmp(tok, "sys_admin"))
			m |= 1ULL << CAP_SYS_ADMIN;
		else {
			fprintf(stderr, "kaddr_check: unknown capability %s\n", tok);
			exit(2);
		}
	}
	return m;
}

/* Effective and permitted sets become @keep (all 64 bits). */
static void set_caps(uint64_t keep)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &hdr, d)) {
		perror("capget");
		exit(2);
	}
	d[0].effective &= (uint32_t)keep;
	d[0].permitted &= (uint32_t)keep;
	d[0].inheritable &= (uint32_t)keep;
	d[1].effective &= (uint32_t)(keep >> 32);
	d[1].permitted &= (uint32_t)(keep >> 32);
	d[1].inheritable &= (uint32_t)(keep >> 32);
	if (syscall(SYS_capset, &hdr, d)) {
		perror("capset");
		exit(2);
	}
}

static bool is_kaddr(uint64_t v)
{
	return v >= 0xffff800000000000ULL;
}

/* "0xffff" followed by 12 hex digits anywhere in @t. */
static bool text_has_kaddr(const char *t, size_t len)
{
	size_t i, j;

	for (i = 0; i + 18 <= len; i++) {
		if (strncmp(t + i, "0xffff", 6))
			continue;
		for (j = 6; j < 18 && strchr("0123456789abcdef", t[i + j]); j++)
			;
		if (j == 18)
			return true;
	}
	return false;
}

int main(int argc, char **argv)
{
	uint64_t keep = ~0ULL, after = 0;
	const char *expect = NULL;
	struct snap_summary sum;
	const struct flamestat_snap_header *h;
	const uint8_t *p, *end;
	char why[300], *text;
	size_t size, len = 0, cap = 1 << 16;
	unsigned long named = 0, unknown = 0, kaddr_frames = 0, other_frames = 0;
	void *snap;
	ssize_t r;
	int i, fd;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--keep") && i + 1 < argc)
			keep = parse_caps(argv[++i]);
		else if (!strcmp(argv[i], "--drop") && i + 1 < argc)
			keep = ~parse_caps(argv[++i]);
		else if (!strcmp(argv[i], "--drop-after-open") && i + 1 < argc)
			after = parse_caps(argv[++i]);
		else if (!expect)
			expect = argv[i];
		else
			expect = NULL, i = argc;
	}
	if (!expect || (strcmp(expect, "visible") && strcmp(expect, "hidden") &&
			strcmp(expect, "denied"))) {
		fprintf(stderr, "usage: kaddr_check [--keep CAPS | --drop CAPS] [--drop-after-open CAPS] visible|hidden|denied\n");
		return 2;
	}
	if (keep != ~0ULL)
		set_caps(keep);
	fd = open(FLAMESTAT_DEVICE, O_RDONLY | O_CLOEXEC);
	if (!strcmp(expect, "denied")) {
		result(fd < 0 && (errno == EPERM || errno == EACCES),
		       "open refused (%s)", fd < 0 ? strerror(errno) : "it worked");
		return tap_failures ? 1 : 0;
	}
	if (fd < 0) {
		result(false, "open: %s", strerror(errno));
		return 1;
	}
	result(true, "open");
	if (after)
		set_caps(~after);

	snap = snap_take(fd, 0, 0, &size);
	if (!snap) {
		result(false, "snapshot: %s", strerror(errno));
		return 1;
	}
	if (snap_validate(snap, size, &sum, why, sizeof(why)))
		result(false, "snapshot valid: %s", why);
	else
		result(true, "snapshot valid");
	result(sum.kernel_frames > 0, "snapshot has kernel frames (%llu)",
	       (unsigned long long)sum.kernel_frames);
	h = snap;
	p = (const uint8_t *)snap + sizeof(*h);
	end = (const uint8_t *)snap + size;
	for (; p < end; p += ((const struct flamestat_rec *)p)->size) {
		const struct flamestat_rec *rec = (const void *)p;

		if (rec->type == FLAMESTAT_REC_KSYM) {
			const struct flamestat_rec_ksym *k = (const void *)rec;

			if (!strcmp(k->name, "[unknown]"))
				unknown++;
			else
				named++;
		} else if (rec->type == FLAMESTAT_REC_STACK) {
			const struct flamestat_rec_stack *s = (const void *)rec;
			unsigned int j;

			for (j = 0; j < s->nr_kernel; j++) {
				if (is_kaddr(s->frames[j]))
					kaddr_frames++;
				else
					other_frames++;
			}
		}
	}
	if (!strcmp(expect, "visible")) {
		result(!(h->flags & FLAMESTAT_SNAPF_KADDR_HIDDEN),
		       "KADDR_HIDDEN not set (flags %#x)", h->flags);
		result(kaddr_frames > 0 && !other_frames,
		       "kernel frames are kernel addresses (%lu, %lu others)",
		       kaddr_frames, other_frames);
	} else {
		result(h->flags & FLAMESTAT_SNAPF_KADDR_HIDDEN,
		       "KADDR_HIDDEN set (flags %#x)", h->flags);
		result(!kaddr_frames, "no kernel address in kernel frames (%lu)",
		       kaddr_frames);
		result(named > 0, "KSYM records name symbols (%lu named, %lu unknown)",
		       named, unknown);
	}
	free(snap);

	text = malloc(cap);
	while (text) {
		if (len + 65536 > cap)
			text = realloc(text, cap *= 2);
		if (!text)
			break;
		r = read(fd, text + len, 65536);
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	result(text && folded_validate(text, len, why, sizeof(why)) > 0,
	       "text read (%zu bytes)", len);
	if (text && !strcmp(expect, "hidden"))
		result(!text_has_kaddr(text, len), "no kernel address in the text");
	if (text)
		result(strstr(text, "_[k]") != NULL, "text has kernel frames");
	free(text);
	close(fd);
	printf("%d failed\n", tap_failures);
	return tap_failures ? 1 : 0;
}
