// SPDX-License-Identifier: GPL-2.0
/*
 * mksnap: writes a binary snapshot (kmod/uapi/flamestat.h) from a text
 * description, so that the tool's fold, report and symbolization can be
 * tested on the host, without the module. One directive per line:
 *
 *   header flags=lockdown,kaddr_hidden freq=997 samples=N recorded=N
 *          idle=N filtered=N mode=N table_full=N cpu_table_full=N
 *          throttled=N overruns=N state=running,lockdown,throttled
 *          running_ns=N cpus=N cost_ns=N
 *          measure=cpu|offcpu|wall min_block_us=N waker=1 layout=v1
 *          blocks=N offrecorded=N short=N offfiltered=N offmode=N
 *          noslot=N offcpu_table_full=N offprobe=N unfinished=N
 *          offcpu_ns=N offtasks=N offtasks_max=N
 *   file ID PATH [build_id=HEX] [dev=N] [ino=N]     (dev: st_dev)
 *   proc ID tgid=N ns_tgid=N comm=NAME [flags=exited,nomaps,compat]
 *   map PROC FILE START END PGOFF [anon|vdso]
 *   ksym VALUE OFFSET NAME...
 *   host boot_id=ID hostname=NAME release=R    (the tool's HOST record)
 *   stack COUNT proc=ID tgid=N comm=NAME [cpu=N] [flags=kt,ut,uf,...]
 *         [periods=N [time=NS]] k=ADDR,ADDR... u=ADDR,ADDR...
 *         [w=ADDR,ADDR...]                                 (leaf first)
 *
 * A stack with periods= gets them after its frames, as modules since
 * c520aff write them (the periods its samples stand for); without, the
 * record ends at its frames, as older modules wrote it. time= follows
 * the periods, as modules with off-CPU time write it; w= are the waker's
 * kernel frames, after the user frames. Off-CPU flags: off (S), off,offd
 * (D), off,offr (R). layout=v1: the header of modules before the
 * off-CPU counters (struct flamestat_stats up to procs_recycled).
 *
 * Numbers are C literals (0x... allowed); comm may use \s for a space and
 * \c for a ';'. Usage: mksnap < spec > file.fstat. Exits 1 on a bad line.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uapi/flamestat.h"

static unsigned char *out;
static size_t out_len, out_cap;
static uint32_t nr_records;
#define V1_SIZE \
	(offsetof(struct flamestat_snap_header, stats) + FLAMESTAT_STATS_SIZE_V1)

static struct flamestat_snap_header hdr;
static int v1;			/* layout=v1: the older, shorter header */
static int lineno;

static void die(const char *why)
{
	fprintf(stderr, "mksnap: line %d: %s\n", lineno, why);
	exit(1);
}

static void *rec(uint16_t type, size_t size)
{
	struct flamestat_rec *r;

	size = (size + 7) & ~(size_t)7;
	if (out_len + size > out_cap) {
		out_cap = (out_len + size) * 2;
		out = realloc(out, out_cap);
		if (!out)
			die("out of memory");
	}
	r = (struct flamestat_rec *)(out + out_len);
	memset(r, 0, size);
	r->type = type;
	r->size = (uint32_t)size;
	out_len += size;
	nr_records++;
	return r;
}

static uint64_t num(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end)
		die("bad number");
	return v;
}

/* "key=value" lookup among the words of a line. */
static const char *opt(char **w, int n, const char *key)
{
	size_t k = strlen(key);
	int i;

	for (i = 0; i < n; i++)
		if (!strncmp(w[i], key, k) && w[i][k] == '=')
			return w[i] + k + 1;
	return NULL;
}

static uint64_t optnum(char **w, int n, const char *key, uint64_t dflt)
{
	const char *v = opt(w, n, key);

	return v ? num(v) : dflt;
}

static void comm_copy(char *dst, const char *src)
{
	size_t i = 0;

	memset(dst, 0, FLAMESTAT_COMM_LEN);
	while (*src && i < FLAMESTAT_COMM_LEN - 1) {
		if (src[0] == '\\' && src[1] == 's') {
			dst[i++] = ' ';
			src += 2;
		} else if (src[0] == '\\' && src[1] == 'c') {
			dst[i++] = ';';
			src += 2;
		} else {
			dst[i++] = *src++;
		}
	}
}

static int has_flag(const char *list, const char *f)
{
	size_t n = strlen(f);
	const char *p = list;

	while (list && (p = strstr(p, f))) {
		if ((p == list || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return 1;
		p += n;
	}
	return 0;
}

/* Comma-separated addresses into @v; returns how many. */
static size_t addrs(const char *s, uint64_t *v, size_t max)
{
	char buf[4096], *tok, *save = NULL;
	size_t n = 0;

	if (!s || !*s)
		return 0;
	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (n == max)
			die("too many frames");
		v[n++] = num(tok);
	}
	return n;
}

static void do_header(char **w, int n)
{
	const char *f = opt(w, n, "flags"), *st;

	hdr.flags = (has_flag(f, "kaddr_hidden") ? FLAMESTAT_SNAPF_KADDR_HIDDEN : 0) |
		    (has_flag(f, "lockdown") ? FLAMESTAT_SNAPF_LOCKDOWN : 0);
	hdr.config.freq_hz = (uint32_t)optnum(w, n, "freq", 997);
	hdr.config.flags = FLAMESTAT_CFG_KERNEL | FLAMESTAT_CFG_USER;
	hdr.config.kernel_depth = hdr.config.user_depth = 127;
	hdr.stats.samples = optnum(w, n, "samples", 0);
	hdr.stats.recorded = optnum(w, n, "recorded", 0);
	hdr.stats.dropped[FLAMESTAT_DROP_IDLE] = optnum(w, n, "idle", 0);
	hdr.stats.dropped[FLAMESTAT_DROP_FILTERED] = optnum(w, n, "filtered", 0);
	hdr.stats.dropped[FLAMESTAT_DROP_MODE] = optnum(w, n, "mode", 0);
	hdr.stats.dropped[FLAMESTAT_DROP_TABLE_FULL] =
		optnum(w, n, "table_full", 0);
	hdr.stats.dropped[FLAMESTAT_DROP_CPU_TABLE_FULL] =
		optnum(w, n, "cpu_table_full", 0);
	/* Throttled periods are in samples too, as the module counts them. */
	hdr.stats.dropped[FLAMESTAT_DROP_THROTTLED] =
		optnum(w, n, "throttled", 0);
	hdr.stats.overruns = optnum(w, n, "overruns", 0);
	st = opt(w, n, "state");
	hdr.stats.state =
		(has_flag(st, "running") ? FLAMESTAT_STATE_RUNNING : 0) |
		(has_flag(st, "lockdown") ? FLAMESTAT_STATE_LOCKDOWN : 0) |
		(has_flag(st, "throttled") ? FLAMESTAT_STATE_THROTTLED : 0);
	hdr.stats.running_ns = optnum(w, n, "running_ns", 0);
	hdr.stats.nr_cpus = (uint32_t)optnum(w, n, "cpus", 0);
	hdr.stats.cost_ns = optnum(w, n, "cost_ns", 0);
	st = opt(w, n, "measure");
	hdr.config.mode = !st || !strcmp(st, "cpu") ? FLAMESTAT_MODE_CPU :
			  !strcmp(st, "offcpu") ? FLAMESTAT_MODE_OFFCPU :
			  !strcmp(st, "wall") ? FLAMESTAT_MODE_WALL :
			  (uint32_t)num(st);
	hdr.config.min_block_us = (uint32_t)optnum(w, n, "min_block_us", 0);
	if (optnum(w, n, "waker", 0))
		hdr.config.flags |= FLAMESTAT_CFG_WAKER;
	st = opt(w, n, "layout");
	v1 = st && !strcmp(st, "v1");
	hdr.stats.offcpu_blocks = optnum(w, n, "blocks", 0);
	hdr.stats.offcpu_recorded = optnum(w, n, "offrecorded", 0);
	hdr.stats.offcpu_dropped[FLAMESTAT_OFFDROP_SHORT] =
		optnum(w, n, "short", 0);
	hdr.stats.offcpu_dropped[FLAMESTAT_OFFDROP_FILTERED] =
		optnum(w, n, "offfiltered", 0);
	hdr.stats.offcpu_dropped[FLAMESTAT_OFFDROP_MODE] =
		optnum(w, n, "offmode", 0);
	hdr.stats.offcpu_dropped[FLAMESTAT_OFFDROP_NO_SLOT] =
		optnum(w, n, "noslot", 0);
	hdr.stats.offcpu_dropped[FLAMESTAT_OFFDROP_CPU_TABLE_FULL] =
		optnum(w, n, "offcpu_table_full", 0);
	hdr.stats.offcpu_dropped[FLAMESTAT_OFFDROP_PROBE] =
		optnum(w, n, "offprobe", 0);
	hdr.stats.offcpu_dropped[FLAMESTAT_OFFDROP_UNFINISHED] =
		optnum(w, n, "unfinished", 0);
	hdr.stats.offcpu_ns = optnum(w, n, "offcpu_ns", 0);
	hdr.stats.offcpu_tasks = optnum(w, n, "offtasks", 0);
	hdr.stats.offcpu_tasks_max = optnum(w, n, "offtasks_max", 0);
}

static void do_file(char **w, int n)
{
	struct flamestat_rec_file *r;
	const char *bid;
	size_t len, i;

	if (n < 3)
		die("file ID PATH [build_id=HEX] [dev=N] [ino=N]");
	len = strlen(w[2]);
	r = rec(FLAMESTAT_REC_FILE, sizeof(*r) + len + 1);
	r->file_id = (uint32_t)num(w[1]);
	r->path_len = (uint32_t)len;
	memcpy(r->path, w[2], len + 1);
	bid = opt(w, n, "build_id");
	for (i = 0; bid && bid[2 * i] && bid[2 * i + 1] &&
		    i < FLAMESTAT_BUILD_ID_SIZE; i++) {
		unsigned int b;

		if (sscanf(bid + 2 * i, "%2x", &b) != 1)
			die("bad build_id");
		r->build_id[i] = (uint8_t)b;
	}
	r->build_id_size = (uint32_t)i;
	r->dev = optnum(w, n, "dev", 0);
	r->ino = optnum(w, n, "ino", 0);
}

static void do_proc(char **w, int n)
{
	struct flamestat_rec_proc *r;
	const char *f = opt(w, n, "flags"), *c = opt(w, n, "comm");

	if (n < 2)
		die("proc ID ...");
	r = rec(FLAMESTAT_REC_PROC, sizeof(*r));
	r->proc_id = (uint32_t)num(w[1]);
	r->tgid = (uint32_t)optnum(w, n, "tgid", 0);
	r->ns_tgid = (uint32_t)optnum(w, n, "ns_tgid", r->tgid);
	r->flags = (has_flag(f, "exited") ? FLAMESTAT_PROCF_EXITED : 0) |
		   (has_flag(f, "nomaps") ? FLAMESTAT_PROCF_NOMAPS : 0) |
		   (has_flag(f, "compat") ? FLAMESTAT_PROCF_COMPAT : 0);
	comm_copy(r->comm, c ? c : "");
}

static void do_host(char **w, int n)
{
	struct flamestat_rec_host *r = rec(FLAMESTAT_REC_HOST, sizeof(*r));
	const char *b = opt(w, n, "boot_id"), *h = opt(w, n, "hostname");
	const char *v = opt(w, n, "release");

	snprintf(r->boot_id, sizeof(r->boot_id), "%s", b ? b : "");
	snprintf(r->hostname, sizeof(r->hostname), "%s", h ? h : "");
	snprintf(r->release, sizeof(r->release), "%s", v ? v : "");
}

static void do_map(char **w, int n)
{
	struct flamestat_rec_map *r;

	if (n < 6)
		die("map PROC FILE START END PGOFF [anon|vdso]");
	r = rec(FLAMESTAT_REC_MAP, sizeof(*r));
	r->proc_id = (uint32_t)num(w[1]);
	r->file_id = (uint32_t)num(w[2]);
	r->start = num(w[3]);
	r->end = num(w[4]);
	r->pgoff = num(w[5]);
	if (n > 6 && !strcmp(w[6], "anon"))
		r->flags = FLAMESTAT_MAPF_ANON;
	else if (n > 6 && !strcmp(w[6], "vdso"))
		r->flags = FLAMESTAT_MAPF_VDSO;
	r->generation = 1;
}

static void do_ksym(char **w, int n, const char *line)
{
	struct flamestat_rec_ksym *r;
	const char *name;
	size_t len;

	if (n < 4)
		die("ksym VALUE OFFSET NAME...");
	/* The name is the rest of the line: it may hold " [module]". */
	name = strstr(line, w[3]);
	len = strcspn(name, "\n");
	r = rec(FLAMESTAT_REC_KSYM, sizeof(*r) + len + 1);
	r->value = num(w[1]);
	r->offset = (uint32_t)num(w[2]);
	r->name_len = (uint32_t)len;
	memcpy(r->name, name, len);
}

static void do_stack(char **w, int n)
{
	static uint64_t k[FLAMESTAT_MAX_KERNEL_DEPTH],
		u[FLAMESTAT_MAX_USER_DEPTH], wk[FLAMESTAT_MAX_KERNEL_DEPTH];
	struct flamestat_rec_stack *r;
	const char *f = opt(w, n, "flags"), *c = opt(w, n, "comm");
	const char *periods = opt(w, n, "periods"), *time = opt(w, n, "time");
	size_t nk, nu, nw;

	if (n < 2)
		die("stack COUNT ...");
	if (time && !periods)
		die("time= needs periods=");
	if (opt(w, n, "w") && !time)
		die("w= needs time=: the waker's frames come after it");
	nk = addrs(opt(w, n, "k"), k, FLAMESTAT_MAX_KERNEL_DEPTH);
	nu = addrs(opt(w, n, "u"), u, FLAMESTAT_MAX_USER_DEPTH);
	nw = addrs(opt(w, n, "w"), wk, FLAMESTAT_MAX_KERNEL_DEPTH);
	r = rec(FLAMESTAT_REC_STACK,
		sizeof(*r) + (nk + nu + nw + (periods ? 1 : 0) +
			      (time ? 1 : 0)) * 8);
	r->count = num(w[1]);
	r->proc_id = (uint32_t)optnum(w, n, "proc", 0);
	r->tgid = (uint32_t)optnum(w, n, "tgid", 0);
	r->cpu = (uint16_t)optnum(w, n, "cpu", FLAMESTAT_CPU_ANY);
	r->nr_kernel = (uint16_t)nk;
	r->nr_user = (uint16_t)nu;
	r->nr_waker = (uint16_t)nw;
	r->flags = (has_flag(f, "kt") ? FLAMESTAT_STACKF_KERNEL_TRUNCATED : 0) |
		   (has_flag(f, "ut") ? FLAMESTAT_STACKF_USER_TRUNCATED : 0) |
		   (has_flag(f, "uf") ? FLAMESTAT_STACKF_USER_FAULT : 0) |
		   (has_flag(f, "kthread") ? FLAMESTAT_STACKF_KERNEL_THREAD : 0) |
		   (has_flag(f, "off") ? FLAMESTAT_STACKF_OFFCPU : 0) |
		   (has_flag(f, "offd") ? FLAMESTAT_STACKF_OFF_D : 0) |
		   (has_flag(f, "offr") ? FLAMESTAT_STACKF_OFF_R : 0) |
		   (has_flag(f, "wt") ? FLAMESTAT_STACKF_WAKER_TRUNCATED : 0);
	comm_copy(r->comm, c ? c : "");
	memcpy(r->frames, k, nk * 8);
	memcpy(&r->frames[nk], u, nu * 8);
	if (periods)
		r->frames[nk + nu] = num(periods);
	if (time)
		r->frames[nk + nu + 1] = num(time);
	/* The waker's frames last: the record grew at its end. */
	memcpy(&r->frames[nk + nu + 2], wk, nw * 8);
}

int main(void)
{
	char line[8192], copy[8192], *w[64], *save = NULL;
	size_t skip;
	int n;

	rec(0, sizeof(hdr));	/* room for the header, fixed below */
	nr_records = 0;
	while (fgets(line, sizeof(line), stdin)) {
		lineno++;
		memcpy(copy, line, sizeof(copy));
		n = 0;
		for (w[n] = strtok_r(copy, " \t\n", &save); w[n] && n < 63;
		     w[++n] = strtok_r(NULL, " \t\n", &save))
			;
		if (!n || w[0][0] == '#')
			continue;
		if (!strcmp(w[0], "header"))
			do_header(w, n);
		else if (!strcmp(w[0], "file"))
			do_file(w, n);
		else if (!strcmp(w[0], "proc"))
			do_proc(w, n);
		else if (!strcmp(w[0], "map"))
			do_map(w, n);
		else if (!strcmp(w[0], "ksym"))
			do_ksym(w, n, line);
		else if (!strcmp(w[0], "stack"))
			do_stack(w, n);
		else if (!strcmp(w[0], "host"))
			do_host(w, n);
		else
			die("unknown directive");
	}
	hdr.magic = FLAMESTAT_SNAP_MAGIC;
	hdr.abi_version = FLAMESTAT_ABI_VERSION;
	hdr.header_size = sizeof(hdr);
	hdr.total_size = out_len;
	hdr.nr_records = nr_records;
	memcpy(out, &hdr, sizeof(hdr));
	/* The older header: the records move up over the off-CPU counters. */
	skip = v1 ? sizeof(hdr) - V1_SIZE : 0;
	if (skip) {
		hdr.header_size = V1_SIZE;
		hdr.total_size = out_len - skip;
		memcpy(out, &hdr, V1_SIZE);
		memmove(out + V1_SIZE, out + sizeof(hdr), out_len - sizeof(hdr));
	}
	if (fwrite(out, 1, out_len - skip, stdout) != out_len - skip)
		die("write error");
	free(out);
	return 0;
}
