// SPDX-License-Identifier: GPL-2.0
/*
 * devfuzz: a reproducible fuzzer of /dev/flamestat. From a seed it issues
 * N random operations -- ioctls with random numbers, sizes, directions and
 * field values, bad pointers (NULL, kernel, non-canonical, unmapped,
 * read-only, straddling a page end), text commands built from the command
 * words and from random bytes, reads with odd sizes and offsets, seeks,
 * opens, dups, closes, claims, snapshots read back in random pieces -- and
 * checks each answer against a model of the ABI (uapi/flamestat.h and
 * flamestat(4)): the exact errno in --solo mode (no other user of the
 * device), a set of acceptable ones otherwise. Every snapshot and every
 * full text read is validated, every statistics read must balance. The
 * model knows when samples are held: a new frequency is refused (EBUSY)
 * then, and a new session (stop, reset, frequency, start) always works;
 * a long --solo run must see both. At the end the device must still
 * sample, read and snapshot correctly.
 *
 *   devfuzz [-s SEED] [-n OPS] [--solo] [-v]
 *
 * Prints one line per failure ("FAIL op N: ...", at most 20) and a summary
 * ending in "devfuzz: seed S, N ops, F failures"; exits 1 on any failure.
 * With -n 0 --solo it only runs the final check (after concurrent runs).
 * Builds as a 64-bit and as a 32-bit (compat ioctl) program.
 */
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "snapcheck.h"
#include "busy.h"

#define MAX_FDS		6
#define MAX_FILES	(MAX_FDS + 1)
#define PID_MAX_LIMIT_X86_64 (4 * 1024 * 1024)

static uint64_t seed = 1, rng;
static unsigned long nops = 10000, op_no;
static bool solo, verbose;
static unsigned long failures;
static char desc[512];

/*
 * Were samples taken since the last reset (or clearing snapshot)? Then
 * the module refuses a new frequency. Exact while stopped; while the
 * timers run a sample may come at any moment, so "none" is "maybe" until
 * the counters (GET_STATS) show one.
 */
enum { S_NONE, S_SOME, S_MAYBE };

/* The model of the module's state (exact in --solo mode). */
struct mfile {
	int refs;		/* fds pointing here; 0: free */
	int accmode;		/* O_RDONLY, O_WRONLY, O_RDWR */
	bool has_snap;
	bool size_known;
	uint64_t snap_size;
};
static struct mfile files[MAX_FILES];
static struct { int fd; int file; } fds[MAX_FDS];
static struct {
	bool running;
	int samples;		/* S_* */
	int claim;		/* file index, -1: none */
	struct flamestat_config cfg;
	bool lockdown;
	uint32_t nr_cpu_ids;
} M;

/* Pointers of every kind, set up in setup_pointers(). */
enum ptr_kind { P_GOOD, P_NULL, P_ONE, P_KERNEL, P_NONCANON, P_HOLE, P_RO,
		P_STRADDLE_RO, P_STRADDLE_HOLE, P_NR };
static const char *const ptr_names[P_NR] = {
	"good", "NULL", "0x1", "kernel", "non-canonical", "unmapped",
	"read-only", "straddling into read-only", "straddling into unmapped",
};
static uint8_t *page_rw, *page_ro, *page_hole;
static long pagesz;

/* Counters for the summary; freq_*: changes of frequency, both paths. */
static unsigned long kind_count[32], errno_count[256], ok_count;
static unsigned long freq_accepted, freq_refused;

#define EBIT(e)	(1ULL << (e))

struct expect {
	bool ok;		/* success acceptable */
	uint64_t errs;		/* acceptable errnos */
};

static void fail_op(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail_op(const char *fmt, ...)
{
	va_list ap;

	failures++;
	if (failures > 20)
		return;
	printf("FAIL op %lu (seed %llu): %s: ", op_no, (unsigned long long)seed, desc);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static const char *errname(int e)
{
	static char buf[32];

	switch (e) {
	case 0: return "success";
	case EPERM: return "EPERM";
	case ESRCH: return "ESRCH";
	case EBADF: return "EBADF";
	case ENOMEM: return "ENOMEM";
	case EACCES: return "EACCES";
	case EFAULT: return "EFAULT";
	case EBUSY: return "EBUSY";
	case ENODEV: return "ENODEV";
	case EINVAL: return "EINVAL";
	case ENOTTY: return "ENOTTY";
	case ESPIPE: return "ESPIPE";
	case ENODATA: return "ENODATA";
	case EPROTO: return "EPROTO";
	}
	snprintf(buf, sizeof(buf), "errno %d", e);
	return buf;
}

static void show_expect(char *buf, size_t len, struct expect x)
{
	size_t n = 0;
	int e;

	buf[0] = '\0';
	if (x.ok)
		n += snprintf(buf + n, len - n, "success");
	for (e = 1; e < 64 && n < len; e++)
		if (x.errs & EBIT(e))
			n += snprintf(buf + n, len - n, "%s%s", n ? " or " : "",
				      errname(e));
}

/* Records the outcome (@r < 0: failure with @e) against @x. */
static bool judge(long r, int e, struct expect x)
{
	char want[160];

	if (r >= 0) {
		ok_count++;
		if (x.ok)
			return true;
		show_expect(want, sizeof(want), x);
		fail_op("succeeded (%ld), want %s", r, want);
		return false;
	}
	errno_count[e & 255]++;
	if (e < 64 && (x.errs & EBIT(e)))
		return true;
	show_expect(want, sizeof(want), x);
	fail_op("got %s, want %s", errname(e), want);
	return false;
}

/* errno read after the call: argument evaluation order is unspecified. */
#define JUDGE(call, x) ({ long _r = (long)(call); int _e = errno; judge(_r, _e, (x)); })

static struct expect want_ok(void) { return (struct expect){ .ok = true }; }
static struct expect want_err(int e) { return (struct expect){ .errs = EBIT(e) }; }

/* Loosens an expectation when others may use the device meanwhile. */
static struct expect shared(struct expect x, uint64_t also)
{
	if (!solo)
		x.errs |= also;
	return x;
}

static void setup_pointers(void)
{
	uint8_t *a;

	pagesz = sysconf(_SC_PAGESIZE);
	a = mmap(NULL, 3 * pagesz, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	page_rw = a;
	page_ro = a + pagesz;
	page_hole = a + 2 * pagesz;
	memset(a, 0, 2 * pagesz);
	if (mprotect(page_ro, pagesz, PROT_READ) || munmap(page_hole, pagesz)) {
		perror("mprotect/munmap");
		exit(2);
	}
}

/*
 * A pointer of @k for an argument of @size bytes (@good when P_GOOD). The
 * straddling ones start at most half a page before the page boundary.
 */
static void *ptr_of(enum ptr_kind k, void *good, size_t size)
{
	size_t half = size / 2;

	if (half > (size_t)pagesz / 2)
		half = (size_t)pagesz / 2;
	if (!half)
		half = 1;

	switch (k) {
	case P_GOOD: return good;
	case P_NULL: return NULL;
	case P_ONE: return (void *)1;
#if UINTPTR_MAX > 0xffffffffUL
	case P_KERNEL: return (void *)0xffffffff81000000UL;
	case P_NONCANON: return (void *)0x8000000000001000UL;
#else
	case P_KERNEL: return (void *)0xfffff000UL;
	case P_NONCANON: return (void *)0xffffe800UL;
#endif
	case P_HOLE: return page_hole;
	case P_RO: return page_ro;
	case P_STRADDLE_RO: return page_ro - half;
	case P_STRADDLE_HOLE: return page_hole - half;
	default: return good;
	}
}

/* Can the module copy @size bytes from / to a pointer of kind @k? */
static bool ptr_readable(enum ptr_kind k)
{
	return k == P_GOOD || k == P_RO || k == P_STRADDLE_RO;
}

/*
 * The same for @size bytes: a straddling pointer for one byte lies wholly
 * before the page boundary (ptr_of()), in the zeroed writable page.
 */
static bool ptr_readable_len(enum ptr_kind k, size_t size)
{
	if (size == 1 && (k == P_STRADDLE_HOLE || k == P_STRADDLE_RO))
		return true;
	return ptr_readable(k);
}

static bool ptr_writable(enum ptr_kind k)
{
	return k == P_GOOD;
}

static enum ptr_kind pick_ptr(void)
{
	return rng_below(&rng, 3) ? P_GOOD : (enum ptr_kind)(1 + rng_below(&rng, P_NR - 1));
}

/* ---- the model's rules ---- */

static bool pid_exists(uint32_t pid)
{
	return pid <= INT_MAX && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

/* cfg_from_user's checks, in its order: 0, EINVAL or ESRCH. */
static int config_verdict(const struct flamestat_config *c)
{
	uint32_t i;
	bool any = false;

	if (c->flags & ~FLAMESTAT_CFG_ALL)
		return EINVAL;
	/* Frame pointers only, or tables only: not both. */
	if ((c->flags & FLAMESTAT_CFG_UNWIND_FP) &&
	    (c->flags & FLAMESTAT_CFG_UNWIND_TABLE))
		return EINVAL;
	if (!(c->flags & (FLAMESTAT_CFG_KERNEL | FLAMESTAT_CFG_USER)))
		return EINVAL;
	if (c->freq_hz < FLAMESTAT_MIN_FREQ || c->freq_hz > FLAMESTAT_MAX_FREQ)
		return EINVAL;
	if (!c->kernel_depth || c->kernel_depth > FLAMESTAT_MAX_KERNEL_DEPTH ||
	    !c->user_depth || c->user_depth > FLAMESTAT_MAX_USER_DEPTH)
		return EINVAL;
	if (c->nr_pids > FLAMESTAT_MAX_PIDS)
		return EINVAL;
	if ((c->flags & FLAMESTAT_CFG_PID_TREE) && !c->nr_pids)
		return EINVAL;
	for (i = 0; i < 3; i++)
		if (c->reserved[i])
			return EINVAL;
	if (c->mode >= FLAMESTAT_NR_MODES)
		return EINVAL;
	if (c->mode == FLAMESTAT_MODE_CPU &&
	    ((c->flags & FLAMESTAT_CFG_WAKER) || c->min_block_us))
		return EINVAL;
	if ((c->flags & FLAMESTAT_CFG_WAKER) && !(c->flags & FLAMESTAT_CFG_KERNEL))
		return EINVAL;
	for (i = c->nr_pids; i < FLAMESTAT_MAX_PIDS; i++)
		if (c->pids[i])
			return EINVAL;
	if (c->flags & FLAMESTAT_CFG_CPUMASK) {
		for (i = 0; i < FLAMESTAT_MAX_CPUS; i++) {
			if (!(c->cpus[i / 64] & (1ULL << (i % 64))))
				continue;
			if (i >= M.nr_cpu_ids)
				return EINVAL;
			any = true;
		}
		if (!any)
			return EINVAL;
	} else {
		for (i = 0; i < FLAMESTAT_CPUMASK_WORDS; i++)
			if (c->cpus[i])
				return EINVAL;
	}
	for (i = 0; i < c->nr_pids; i++) {
		if (!c->pids[i] || c->pids[i] > PID_MAX_LIMIT_X86_64)
			return EINVAL;
		if (!pid_exists(c->pids[i]))
			return ESRCH;
	}
	return 0;
}

/* fs_may_control(): 0, EBADF or EBUSY for file @f. */
static int control_verdict(int f)
{
	if (files[f].accmode == O_RDONLY)
		return EBADF;
	if (M.claim >= 0 && M.claim != f)
		return EBUSY;
	return 0;
}

/* Lockdown refuses to run without user stacks. */
static int start_verdict(const struct flamestat_config *c)
{
	return M.lockdown && !(c->flags & FLAMESTAT_CFG_USER) ? EPERM : 0;
}

/* What a GET_STATS says about samples held (stacks: merged entries). */
static void samples_seen(const struct flamestat_stats *st)
{
	if (st->samples || st->stacks || st->offcpu_blocks)
		M.samples = S_SOME;
	else if (!M.running)
		M.samples = S_NONE;
}

/* --solo, before a request that may change the frequency: look. */
static void samples_look(int fd)
{
	struct flamestat_stats st;

	if (solo && M.samples == S_MAYBE &&
	    !ioctl(fd, FLAMESTAT_IOC_GET_STATS, &st))
		samples_seen(&st);
}

/* A reset or a clearing snapshot: nothing held, until the timers fire. */
static void samples_gone(void)
{
	M.samples = M.running ? S_MAYBE : S_NONE;
}

/*
 * From @from to @to Hz with @samples (S_*) held: 0 accepted, EBUSY, or
 * -1 either (samples may have come meanwhile; others share the device).
 */
static int freq_verdict(int samples, uint32_t from, uint32_t to)
{
	if (from == to)
		return 0;
	if (!solo || samples == S_MAYBE)
		return -1;
	return samples == S_SOME ? EBUSY : 0;
}

/* ---- file descriptors ---- */

static int fd_slot_used(void)
{
	int i, n = 0;

	for (i = 0; i < MAX_FDS; i++)
		n += fds[i].fd >= 0;
	return n;
}

/* A random open slot, or -1. */
static int pick_fd(void)
{
	int i, n = fd_slot_used(), k;

	if (!n)
		return -1;
	k = (int)rng_below(&rng, n);
	for (i = 0; i < MAX_FDS; i++)
		if (fds[i].fd >= 0 && !k--)
			return i;
	return -1;
}

static void file_put(int f)
{
	if (--files[f].refs)
		return;
	/* Last close: the claim and the snapshot go. */
	if (M.claim == f)
		M.claim = -1;
	memset(&files[f], 0, sizeof(files[f]));
}

static void op_open(void)
{
	static const int modes[] = { O_RDONLY, O_WRONLY, O_RDWR, O_RDWR };
	int slot, f, fd, mode = modes[rng_below(&rng, 4)];
	int extra = rng_below(&rng, 4) ? 0 : O_NONBLOCK;

	for (slot = 0; slot < MAX_FDS && fds[slot].fd >= 0; slot++)
		;
	for (f = 0; f < MAX_FILES && files[f].refs; f++)
		;
	if (slot == MAX_FDS || f == MAX_FILES)
		return;
	snprintf(desc, sizeof(desc), "open(%s%s)",
		 mode == O_RDONLY ? "O_RDONLY" : mode == O_WRONLY ? "O_WRONLY" : "O_RDWR",
		 extra ? "|O_NONBLOCK" : "");
	fd = open(FLAMESTAT_DEVICE, mode | extra | O_CLOEXEC);
	if (!judge(fd, errno, want_ok()))
		return;
	fds[slot].fd = fd;
	fds[slot].file = f;
	files[f].refs = 1;
	files[f].accmode = mode;
}

static void op_close(void)
{
	int s = pick_fd();

	if (s < 0)
		return;
	snprintf(desc, sizeof(desc), "close(fd %d)", fds[s].fd);
	JUDGE(close(fds[s].fd), want_ok());
	file_put(fds[s].file);
	fds[s].fd = -1;
}

static void op_dup(void)
{
	int s = pick_fd(), slot, fd;

	if (s < 0)
		return;
	for (slot = 0; slot < MAX_FDS && fds[slot].fd >= 0; slot++)
		;
	if (slot == MAX_FDS)
		return;
	snprintf(desc, sizeof(desc), "dup(fd %d)", fds[s].fd);
	fd = fcntl(fds[s].fd, F_DUPFD_CLOEXEC, 0);
	if (!judge(fd, errno, want_ok()))
		return;
	fds[slot].fd = fd;
	fds[slot].file = fds[s].file;
	files[fds[s].file].refs++;
}

/* ---- configurations ---- */

static uint32_t pick_pid(void)
{
	static const uint32_t odd[] = { 0, 4000000, PID_MAX_LIMIT_X86_64,
					PID_MAX_LIMIT_X86_64 + 1, 0xffffffffU };

	/* Only pids whose existence is certain: the model stays exact. */
	switch (rng_below(&rng, 4)) {
	case 0: return (uint32_t)getpid();
	case 1: return 1;
	case 2: return (uint32_t)getppid();
	default: return odd[rng_below(&rng, 5)];
	}
}

static uint32_t pick_freq(void)
{
	static const uint32_t f[] = { 1, 7, 97, 251, 499, 997, 1999, 4999 };
	static const uint32_t bad[] = { 0, FLAMESTAT_MAX_FREQ + 1, 0xffffffffU };

	switch (rng_below(&rng, 20)) {
	case 0: return bad[rng_below(&rng, 3)];
	case 1: return FLAMESTAT_MAX_FREQ;
	default: return f[rng_below(&rng, 8)];
	}
}

/* A configuration near the valid ones: each field mutated now and then. */
static void random_config(struct flamestat_config *c)
{
	uint32_t i;

	*c = M.cfg;
	c->flags = rng_below(&rng, 5) ? (uint32_t)rng_below(&rng, FLAMESTAT_CFG_ALL + 1) :
		   (uint32_t)rng_next(&rng);
	if (rng_below(&rng, 3))
		c->flags |= FLAMESTAT_CFG_USER;
	c->flags &= rng_below(&rng, 4) ? ~(uint32_t)(FLAMESTAT_CFG_PID_TREE |
						      FLAMESTAT_CFG_CPUMASK) : ~0U;
	c->freq_hz = pick_freq();
	c->kernel_depth = rng_below(&rng, 10) ? (uint16_t)(1 + rng_below(&rng, 512)) :
			  (uint16_t)rng_next(&rng);
	c->user_depth = rng_below(&rng, 10) ? (uint16_t)(1 + rng_below(&rng, 1024)) :
			(uint16_t)rng_next(&rng);
	memset(c->pids, 0, sizeof(c->pids));
	memset(c->cpus, 0, sizeof(c->cpus));
	memset(c->reserved, 0, sizeof(c->reserved));
	/* Mostly the mode in force: another one needs an empty session. */
	if (!rng_below(&rng, 4))
		c->mode = rng_below(&rng, 20) ? (uint32_t)rng_below(&rng, FLAMESTAT_NR_MODES) :
			  (uint32_t)rng_next(&rng);
	c->min_block_us = rng_below(&rng, 3) ? 0 : (uint32_t)rng_below(&rng, 2000);
	if (c->mode == FLAMESTAT_MODE_CPU && rng_below(&rng, 10)) {
		c->flags &= ~(uint32_t)FLAMESTAT_CFG_WAKER;
		c->min_block_us = 0;
	}
	c->nr_pids = 0;
	if (c->flags & FLAMESTAT_CFG_PID_TREE || !rng_below(&rng, 4)) {
		c->nr_pids = rng_below(&rng, 12) ? (uint32_t)(1 + rng_below(&rng, 3)) :
			     (uint32_t)rng_below(&rng, 40);
		for (i = 0; i < c->nr_pids && i < FLAMESTAT_MAX_PIDS; i++)
			c->pids[i] = pick_pid();
	}
	if (c->flags & FLAMESTAT_CFG_CPUMASK || !rng_below(&rng, 10)) {
		if (rng_below(&rng, 8))
			c->cpus[0] = rng_next(&rng) & ((1ULL << (M.nr_cpu_ids < 64 ? M.nr_cpu_ids : 63)) - 1);
		else
			c->cpus[rng_below(&rng, FLAMESTAT_CPUMASK_WORDS)] = 1ULL << rng_below(&rng, 64);
	}
	if (!rng_below(&rng, 20))
		c->reserved[rng_below(&rng, 3)] = rng_next(&rng) | 1;
	if (!rng_below(&rng, 20))
		c->pids[FLAMESTAT_MAX_PIDS - 1] = pick_pid();
}

static void op_set_config(void)
{
	struct flamestat_config c;
	enum ptr_kind pk = rng_below(&rng, 6) ? P_GOOD : pick_ptr();
	int s = pick_fd(), v, f, r, e, fv;
	struct expect x;

	if (s < 0)
		return;
	f = fds[s].file;
	random_config(&c);
	snprintf(desc, sizeof(desc),
		 "SET_CONFIG(flags %#x freq %u mode %u min %u depth %u/%u pids %u [%u %u] cpus0 %#llx res0 %#llx, %s) on %s",
		 c.flags, c.freq_hz, c.mode, c.min_block_us, c.kernel_depth, c.user_depth,
		 c.nr_pids, c.pids[0],
		 c.pids[1], (unsigned long long)c.cpus[0],
		 (unsigned long long)c.reserved[0], ptr_names[pk],
		 files[f].accmode == O_RDONLY ? "O_RDONLY" : "writable");
	if (pk != P_GOOD) {
		uint8_t *good = ptr_of(pk, &c, sizeof(c));

		/* The readable odd places hold zeros: an invalid config. */
		x = ptr_readable(pk) ? want_err(EINVAL) : want_err(EFAULT);
		r = ioctl(fds[s].fd, FLAMESTAT_IOC_SET_CONFIG, good);
		judge(r, errno, x);
		return;
	}
	v = config_verdict(&c);
	if (!v)
		v = control_verdict(f);
	if (!v && M.running)
		v = start_verdict(&c);
	fv = 0;
	if (!v) {
		samples_look(fds[s].fd);
		/* A new mode, like a new frequency, needs an empty session. */
		fv = freq_verdict(M.samples, M.cfg.freq_hz + M.cfg.mode * 100000U,
				  c.freq_hz + c.mode * 100000U);
		if (fv > 0)
			v = fv;
	}
	x = v ? want_err(v) : want_ok();
	if (fv < 0)
		x.errs |= EBIT(EBUSY);
	x = shared(x, EBIT(EBUSY));
	r = ioctl(fds[s].fd, FLAMESTAT_IOC_SET_CONFIG, &c);
	e = errno;
	if (!judge(r, e, x))
		return;
	if (r == 0) {
		freq_accepted += c.freq_hz != M.cfg.freq_hz;
		M.cfg = c;
	} else if (e == EBUSY && fv && solo) {
		/* Refused for the samples held (shared: maybe for a claim). */
		freq_refused++;
		M.samples = S_SOME;
	}
}

static void op_get_config(void)
{
	struct flamestat_config c;
	enum ptr_kind pk = pick_ptr();
	int s = pick_fd(), r;

	if (s < 0)
		return;
	snprintf(desc, sizeof(desc), "GET_CONFIG(%s)", ptr_names[pk]);
	r = ioctl(fds[s].fd, FLAMESTAT_IOC_GET_CONFIG, ptr_of(pk, &c, sizeof(c)));
	if (!judge(r, errno, ptr_writable(pk) ? want_ok() : want_err(EFAULT)) || r)
		return;
	if (solo && memcmp(&c, &M.cfg, sizeof(c)))
		fail_op("config read back (flags %#x freq %u depth %u/%u pids %u) differs from the one set (flags %#x freq %u depth %u/%u pids %u)",
			c.flags, c.freq_hz, c.kernel_depth, c.user_depth, c.nr_pids,
			M.cfg.flags, M.cfg.freq_hz, M.cfg.kernel_depth,
			M.cfg.user_depth, M.cfg.nr_pids);
}

/* ---- control ---- */

static void op_control(void)
{
	static const struct { unsigned long cmd; const char *name; } ops[] = {
		{ FLAMESTAT_IOC_START, "START" }, { FLAMESTAT_IOC_STOP, "STOP" },
		{ FLAMESTAT_IOC_RESET, "RESET" }, { FLAMESTAT_IOC_CLAIM, "CLAIM" },
		{ FLAMESTAT_IOC_UNCLAIM, "UNCLAIM" },
	};
	int s = pick_fd(), k = (int)rng_below(&rng, 5), f, v, r;
	struct expect x;

	if (s < 0)
		return;
	f = fds[s].file;
	snprintf(desc, sizeof(desc), "%s on file %d (%s)", ops[k].name, f,
		 files[f].accmode == O_RDONLY ? "O_RDONLY" : "writable");
	v = control_verdict(f);
	if (!v && (k == 0 || (k == 2 && M.running)))
		v = start_verdict(&M.cfg);
	if (!v && k == 4 && M.claim != f)
		v = EINVAL;
	x = v ? want_err(v) : want_ok();
	x = shared(x, EBIT(EBUSY) | (k == 4 ? EBIT(EINVAL) : 0));
	/* Random argument: these ioctls take none. */
	r = ioctl(fds[s].fd, ops[k].cmd, (unsigned long)rng_next(&rng));
	if (!judge(r, errno, x) || r)
		return;
	switch (k) {
	case 0:
		if (!M.running && M.samples == S_NONE)
			M.samples = S_MAYBE;
		M.running = true;
		break;
	case 1: M.running = false; break;
	case 2: samples_gone(); break;
	case 3: M.claim = f; break;
	case 4: M.claim = -1; break;
	}
}

static void check_stats(const struct flamestat_stats *st)
{
	char why[200];

	if (stats_balance_err(st, why, sizeof(why)))
		fail_op("stats: %s", why);
	if (st->state & ~(FLAMESTAT_STATE_RUNNING | FLAMESTAT_STATE_LOCKDOWN |
			  FLAMESTAT_STATE_CLAIMED | FLAMESTAT_STATE_THROTTLED))
		fail_op("stats: unknown state bits %#x", st->state);
	/* Throttling is a state of running timers only. */
	if ((st->state & FLAMESTAT_STATE_THROTTLED) &&
	    !(st->state & FLAMESTAT_STATE_RUNNING))
		fail_op("stats: throttled while stopped (state %#x)", st->state);
	if (!solo)
		return;
	if (!!(st->state & FLAMESTAT_STATE_RUNNING) != M.running)
		fail_op("stats: running %d, model says %d",
			!!(st->state & FLAMESTAT_STATE_RUNNING), M.running);
	if (!!(st->state & FLAMESTAT_STATE_CLAIMED) != (M.claim >= 0))
		fail_op("stats: claimed %d, model says %d",
			!!(st->state & FLAMESTAT_STATE_CLAIMED), M.claim >= 0);
}

static void op_stats(void)
{
	struct flamestat_stats st;
	enum ptr_kind pk = pick_ptr();
	int s = pick_fd(), r;

	if (s < 0)
		return;
	snprintf(desc, sizeof(desc), "GET_STATS(%s)", ptr_names[pk]);
	r = ioctl(fds[s].fd, FLAMESTAT_IOC_GET_STATS, ptr_of(pk, &st, sizeof(st)));
	if (judge(r, errno, ptr_writable(pk) ? want_ok() : want_err(EFAULT)) && !r) {
		check_stats(&st);
		if (solo)
			samples_seen(&st);
	}
}

static void op_version(void)
{
	struct flamestat_version v;
	enum ptr_kind pk = pick_ptr();
	int s = pick_fd(), r;

	if (s < 0)
		return;
	snprintf(desc, sizeof(desc), "VERSION(%s)", ptr_names[pk]);
	r = ioctl(fds[s].fd, FLAMESTAT_IOC_VERSION, ptr_of(pk, &v, sizeof(v)));
	if (judge(r, errno, ptr_writable(pk) ? want_ok() : want_err(EFAULT)) && !r &&
	    (v.abi_version != FLAMESTAT_ABI_VERSION || v.nr_cpu_ids != M.nr_cpu_ids))
		fail_op("VERSION says abi %u, %u CPU ids", v.abi_version, v.nr_cpu_ids);
}

/* ---- snapshots ---- */

static void validate_snapshot(const void *buf, size_t size)
{
	char why[300];

	if (snap_validate(buf, size, NULL, why, sizeof(why)))
		fail_op("invalid snapshot: %s", why);
}

static void op_snapshot(void)
{
	struct flamestat_snapshot req = { 0 };
	enum ptr_kind pk = rng_below(&rng, 4) ? P_GOOD : pick_ptr();
	int s = pick_fd(), f, v = 0, r;
	bool deflated;
	struct expect x;

	if (s < 0)
		return;
	f = fds[s].file;
	/* CLEAR, DEFLATE, both or neither; now and then anything. */
	req.flags = rng_below(&rng, 8) ? (uint32_t)rng_below(&rng, 4) :
		    (uint32_t)rng_next(&rng);
	req.reserved = rng_below(&rng, 10) ? 0 : (uint32_t)rng_next(&rng);
	req.size = rng_next(&rng);
	snprintf(desc, sizeof(desc), "SNAPSHOT(flags %#x reserved %#x, %s) on file %d",
		 req.flags, req.reserved, ptr_names[pk], f);
	if (pk != P_GOOD) {
		/* Zeros where readable: a plain snapshot, not copied back. */
		bool built = ptr_readable(pk);

		r = ioctl(fds[s].fd, FLAMESTAT_IOC_SNAPSHOT, ptr_of(pk, &req, sizeof(req)));
		judge(r, errno, want_err(EFAULT));
		if (built) {
			files[f].has_snap = true;
			files[f].size_known = false;
		}
		return;
	}
	if ((req.flags & ~FLAMESTAT_SNAP_ALL) || req.reserved)
		v = EINVAL;
	else if (req.flags & FLAMESTAT_SNAP_CLEAR)
		v = control_verdict(f);
	x = v ? want_err(v) : want_ok();
	x = shared(x, (req.flags & FLAMESTAT_SNAP_CLEAR) ? EBIT(EBUSY) : 0);
	r = ioctl(fds[s].fd, FLAMESTAT_IOC_SNAPSHOT, &req);
	if (!judge(r, errno, x) || r)
		return;
	if (req.flags & FLAMESTAT_SNAP_CLEAR)
		samples_gone();
	files[f].has_snap = true;
	files[f].size_known = true;
	files[f].snap_size = req.size;
	deflated = req.flags & FLAMESTAT_SNAP_DEFLATED;
	if (deflated && !(req.flags & FLAMESTAT_SNAP_DEFLATE))
		fail_op("DEFLATED without DEFLATE asked");
	/* Read it back in random pieces and check it. */
	{
		size_t chunk = rng_below(&rng, 2) ? req.size :
			       (size_t)(1 + rng_below(&rng, 4096));
		uint8_t *buf = malloc(req.size ? req.size : 1);
		struct flamestat_read rd;
		uint64_t off = 0;

		while (buf && off < req.size) {
			memset(&rd, 0, sizeof(rd));
			rd.buf = (uintptr_t)(buf + off);
			rd.offset = off;
			rd.len = chunk;
			if (ioctl(fds[s].fd, FLAMESTAT_IOC_READ, &rd) || !rd.copied ||
			    rd.copied > chunk) {
				fail_op("READ at %llu of %llu failed or copied %llu",
					(unsigned long long)off,
					(unsigned long long)req.size,
					(unsigned long long)rd.copied);
				break;
			}
			off += rd.copied;
		}
		/*
		 * A compressed one (no zlib here, 32-bit builds included):
		 * its zlib header; the tool's inflation is fuzzed on the host.
		 */
		if (buf && off == req.size && deflated) {
			if (req.size < 2 || (buf[0] & 0x0f) != 8 ||
			    ((buf[0] << 8) | buf[1]) % 31)
				fail_op("DEFLATED snapshot without a zlib header");
		} else if (buf && off == req.size) {
			validate_snapshot(buf, req.size);
		}
		free(buf);
	}
}

static void op_read_ioctl(void)
{
	struct flamestat_read rd = { 0 };
	static uint8_t sink[70000];
	enum ptr_kind pk = pick_ptr(), bk = pick_ptr();
	int s = pick_fd(), f, r;
	struct mfile *mf;
	struct expect x;
	uint64_t n;

	if (s < 0)
		return;
	f = fds[s].file;
	mf = &files[f];
	switch (rng_below(&rng, 5)) {
	case 0: rd.offset = rng_next(&rng); break;
	case 1: rd.offset = mf->snap_size + rng_below(&rng, 3); break;
	default: rd.offset = rng_below(&rng, mf->snap_size + 1); break;
	}
	rd.len = rng_below(&rng, 4) ? rng_below(&rng, sizeof(sink) + 1) : rng_next(&rng);
	rd.buf = (uintptr_t)ptr_of(bk, sink, rd.len < sizeof(sink) ? rd.len : sizeof(sink));
	if (bk == P_GOOD && rd.len > sizeof(sink))
		rd.len = sizeof(sink);
	snprintf(desc, sizeof(desc), "READ(offset %llu len %llu buf %s, struct %s) on file %d (snapshot %s, %llu bytes)",
		 (unsigned long long)rd.offset, (unsigned long long)rd.len,
		 ptr_names[bk], ptr_names[pk], f, mf->has_snap ? "yes" : "no",
		 (unsigned long long)mf->snap_size);
	r = ioctl(fds[s].fd, FLAMESTAT_IOC_READ, ptr_of(pk, &rd, sizeof(rd)));
	if (!ptr_readable(pk)) {
		x = want_err(EFAULT);
	} else if (pk != P_GOOD) {
		/* The struct read there is all zeros: offset 0, len 0. */
		x = mf->has_snap ? (ptr_writable(pk) ? want_ok() : want_err(EFAULT)) :
		    want_err(ENODATA);
	} else if (!mf->has_snap) {
		x = want_err(ENODATA);
	} else if (!mf->size_known) {
		x = (struct expect){ .ok = true, .errs = EBIT(EINVAL) | EBIT(EFAULT) };
	} else if (rd.offset > mf->snap_size) {
		x = want_err(EINVAL);
	} else {
		n = rd.len < mf->snap_size - rd.offset ? rd.len : mf->snap_size - rd.offset;
		x = n && !ptr_writable(bk) ? want_err(EFAULT) : want_ok();
		/* Straddling: fine while the copy stays before the boundary. */
		if (bk == P_STRADDLE_RO &&
		    n <= (uint64_t)(page_ro - (uint8_t *)(uintptr_t)rd.buf))
			x = want_ok();
	}
	if (judge(r, errno, x) && !r && pk == P_GOOD && mf->size_known) {
		n = rd.len < mf->snap_size - rd.offset ? rd.len : mf->snap_size - rd.offset;
		if (rd.copied != n)
			fail_op("copied %llu, want %llu", (unsigned long long)rd.copied,
				(unsigned long long)n);
	}
}

/* ---- text commands ---- */

static bool kspace(unsigned char c)
{
	return (c >= 9 && c <= 13) || c == ' ' || c == 0xa0;
}

/*
 * fs_parse_cmds(): EINVAL or the commands (0 start, 1 stop, 2 reset,
 * 3 freq) in @ops/@args; returns their number.
 */
static int parse_cmds(const char *buf, size_t len, int *ops, uint32_t *args)
{
	char s[256], *line, *p, *e;
	int n = 0;

	memcpy(s, buf, len);
	s[len] = '\0';
	p = s;
	while ((line = strsep(&p, "\n"))) {
		unsigned long long v;
		char *d;

		e = line + strlen(line);
		while (e > line && kspace((unsigned char)e[-1]))
			*--e = '\0';
		while (kspace((unsigned char)*line))
			line++;
		if (!*line)
			continue;
		if (n == 8)
			return -EINVAL;
		if (!strcmp(line, "start")) {
			ops[n] = 0;
		} else if (!strcmp(line, "stop")) {
			ops[n] = 1;
		} else if (!strcmp(line, "reset")) {
			ops[n] = 2;
		} else if (!strncmp(line, "freq=", 5)) {
			d = line + 5;
			if (*d == '+')
				d++;
			if (*d < '0' || *d > '9')
				return -EINVAL;
			for (v = 0; *d >= '0' && *d <= '9'; d++) {
				v = v * 10 + (unsigned long long)(*d - '0');
				if (v > 0xffffffffULL)
					return -EINVAL;
			}
			if (*d || v < FLAMESTAT_MIN_FREQ || v > FLAMESTAT_MAX_FREQ)
				return -EINVAL;
			ops[n] = 3;
			args[n] = (uint32_t)v;
		} else {
			return -EINVAL;
		}
		n++;
	}
	return n ? n : -EINVAL;
}

static void gen_cmd_text(char *buf, size_t *lenp)
{
	static const char *const words[] = {
		"start", "stop", "reset", "freq=997", "freq=499", "freq=1",
		"freq=20000", "freq=20001", "freq=0", "freq=+251", "freq=0097",
		"freq=", "freq=-5", "freq=4294967297", "freq=99x", "Start",
		"st art", "reset!", "", " ", "\t", "\r", "\v", "\f", "\xa0",
		"\n", "\n", "\n", "\n",
	};
	size_t len = 0, n = 1 + rng_below(&rng, 12), i;

	for (i = 0; i < n; i++) {
		const char *w = words[rng_below(&rng, sizeof(words) / sizeof(words[0]))];
		size_t wl = strlen(w);

		if (len + wl + 1 >= 200)
			break;
		memcpy(buf + len, w, wl);
		len += wl;
		if (!rng_below(&rng, 3))
			buf[len++] = "\n \t"[rng_below(&rng, 3)];
	}
	if (!rng_below(&rng, 15))
		buf[rng_below(&rng, len + 1)] = '\0', len += !len;
	*lenp = len;
}

/* What a text command changes of the model, run on a copy. */
struct msim {
	bool running;
	uint32_t freq;
	int samples;
	unsigned int freq_changes;	/* accepted */
};

/*
 * One command (0 start, 1 stop, 2 reset, 3 freq) as fst_write() runs it:
 * 0, or the errno that ends the write there, the commands before it
 * staying applied. *either: the module may answer EBUSY instead (a new
 * frequency while samples may have come).
 */
static int sim_cmd(struct msim *m, int op, uint32_t arg, bool *either)
{
	int fv;

	*either = false;
	switch (op) {
	case 0:
		if (m->running)
			return 0;
		if (start_verdict(&M.cfg))
			return EPERM;
		m->running = true;
		if (m->samples == S_NONE)
			m->samples = S_MAYBE;
		return 0;
	case 1:
		m->running = false;
		return 0;
	case 2:
		/* fst_reset(): stop, forget, start again if it ran. */
		m->samples = S_NONE;
		if (!m->running)
			return 0;
		if (start_verdict(&M.cfg)) {
			m->running = false;
			return EPERM;
		}
		m->samples = S_MAYBE;
		return 0;
	default:
		if (m->running && start_verdict(&M.cfg))
			return EPERM;
		fv = freq_verdict(m->samples, m->freq, arg);
		if (fv > 0)
			return fv;
		*either = fv < 0;
		m->freq_changes += m->freq != arg;
		m->freq = arg;
		return 0;
	}
}

/* The model takes the state a write left. */
static void sim_apply(const struct msim *m)
{
	M.running = m->running;
	M.cfg.freq_hz = m->freq;
	M.samples = m->samples;
	freq_accepted += m->freq_changes;
}

/*
 * --solo, after a write that one of several commands failed with EBUSY
 * (which, timing decided): the module's state must be what one of them
 * leaves, @cand[@nc], and becomes the model's.
 */
static void sim_sync(int fd, const struct msim *cand, int nc)
{
	struct flamestat_config c;
	struct flamestat_stats st;
	int i;

	if (ioctl(fd, FLAMESTAT_IOC_GET_CONFIG, &c) ||
	    ioctl(fd, FLAMESTAT_IOC_GET_STATS, &st)) {
		fail_op("reading the state back: %s", strerror(errno));
		return;
	}
	for (i = 0; i < nc; i++)
		if (cand[i].freq == c.freq_hz &&
		    cand[i].running == !!(st.state & FLAMESTAT_STATE_RUNNING))
			break;
	if (i == nc) {
		fail_op("EBUSY left %u Hz, running %d: no command of the write leaves that",
			c.freq_hz, !!(st.state & FLAMESTAT_STATE_RUNNING));
		return;
	}
	sim_apply(&cand[i]);
	M.samples = S_SOME;	/* that is why it was refused */
}

/* Writes @len bytes of @buf on slot @s and judges the answer. */
static void write_cmds(int s, const char *buf, size_t len)
{
	struct msim sim, cand[8];
	int ops[8], n, f = fds[s].file, v = 0, vc, e, nc = 0, i;
	uint32_t args[8];
	ssize_t r;
	struct expect x;
	bool either;

	if (files[f].accmode == O_RDONLY) {
		x = want_err(EBADF);
	} else if (!len) {
		x = want_ok();
	} else if (len >= 128) {
		x = want_err(EINVAL);
	} else {
		n = parse_cmds(buf, len, ops, args);
		vc = n < 0 ? EINVAL : control_verdict(f);
		v = vc;
		if (!v)
			samples_look(fds[s].fd);
		sim = (struct msim){ .running = M.running, .freq = M.cfg.freq_hz,
				     .samples = M.samples };
		for (i = 0; !v && i < n; i++) {
			struct msim before = sim;

			v = sim_cmd(&sim, ops[i], args[i], &either);
			if (either) {
				cand[nc++] = before;	/* refused here */
				cand[nc - 1].samples = S_SOME;
			}
		}
		/* A command refused for samples held (not for a claim). */
		if (v == EBUSY && !vc)
			cand[nc++] = sim;
		x = v ? want_err(v) : want_ok();
		if (nc)
			x.errs |= EBIT(EBUSY);
		x = shared(x, EBIT(EBUSY) | EBIT(EPERM));
		r = write(fds[s].fd, buf, len);
		e = errno;
		if (!judge(r, e, x))
			return;
		if (r >= 0) {
			if ((size_t)r != len)
				fail_op("wrote %zd of %zu", r, len);
			sim_apply(&sim);
		} else if (solo && e == EBUSY && nc) {
			freq_refused++;
			sim_sync(fds[s].fd, cand, nc);
		} else if (solo && e == v) {
			/* Stopped there, the commands before it applied. */
			sim_apply(&sim);
		}
		return;
	}
	r = write(fds[s].fd, buf, len);
	if (judge(r, errno, x) && r >= 0 && (size_t)r != len)
		fail_op("wrote %zd of %zu", r, len);
}

static void op_write_cmd(bool random_bytes)
{
	char buf[256], show[120];
	int s = pick_fd(), f, i;
	size_t len;

	if (s < 0)
		return;
	f = fds[s].file;
	if (random_bytes) {
		len = rng_below(&rng, 8) ? rng_below(&rng, 64) : rng_below(&rng, 200);
		for (i = 0; i < (int)len; i++)
			buf[i] = (char)rng_next(&rng);
	} else {
		gen_cmd_text(buf, &len);
	}
	for (i = 0; i < (int)len && i < (int)sizeof(show) - 5; i++)
		show[i] = buf[i] >= 32 && buf[i] < 127 ? buf[i] : '.';
	show[i] = '\0';
	snprintf(desc, sizeof(desc), "write(%zu bytes '%s') on file %d", len, show, f);
	write_cmds(s, buf, len);
}

static void op_write_badptr(void)
{
	enum ptr_kind pk = (enum ptr_kind)(1 + rng_below(&rng, P_NR - 1));
	int s = pick_fd(), f;
	size_t len = 1 + rng_below(&rng, 200);
	struct expect x;

	if (s < 0)
		return;
	f = fds[s].file;
	snprintf(desc, sizeof(desc), "write(%s, %zu bytes) on file %d", ptr_names[pk], len, f);
	if (files[f].accmode == O_RDONLY)
		x = want_err(EBADF);
	else if (len >= 128)
		x = (struct expect){ .errs = EBIT(EINVAL) | EBIT(EFAULT) };
	else if (ptr_readable_len(pk, len))
		x = want_err(EINVAL);	/* zeros: no command */
	else
		x = want_err(EFAULT);
	JUDGE(write(fds[s].fd, ptr_of(pk, NULL, len), len), x);
}

/*
 * A session at another frequency, as flamestat(4) says to start one:
 * stop, reset, the frequency, start, by ioctls or in one write. Accepted
 * whatever was sampled before.
 */
static void op_new_session(void)
{
	static const uint32_t hz[] = { 1, 97, 251, 499, 997, 1999, 4999 };
	struct flamestat_config c = M.cfg;
	bool start = rng_below(&rng, 4);
	int s = pick_fd(), f, v, i, r;
	char buf[64];

	if (s < 0)
		return;
	f = fds[s].file;
	c.freq_hz = hz[rng_below(&rng, sizeof(hz) / sizeof(hz[0]))];
	if (rng_below(&rng, 2)) {
		snprintf(buf, sizeof(buf), "stop\nreset\nfreq=%u\n%s", c.freq_hz,
			 start ? "start\n" : "");
		snprintf(desc, sizeof(desc), "new session: write 'stop reset freq=%u%s' on file %d",
			 c.freq_hz, start ? " start" : "", f);
		write_cmds(s, buf, strlen(buf));
		return;
	}
	for (i = 0; i < 3 + start; i++) {
		static const char *const names[] = { "STOP", "RESET", "SET_CONFIG", "START" };
		struct expect x;

		snprintf(desc, sizeof(desc), "new session at %u Hz: %s on file %d (%s)",
			 c.freq_hz, names[i], f,
			 files[f].accmode == O_RDONLY ? "O_RDONLY" : "writable");
		v = control_verdict(f);
		if (!v && i == 2)
			v = config_verdict(&c);
		if (!v && (i == 3 || (i == 2 && M.running)))
			v = start_verdict(&c);
		x = shared(v ? want_err(v) : want_ok(), EBIT(EBUSY));
		switch (i) {
		case 0: r = ioctl(fds[s].fd, FLAMESTAT_IOC_STOP); break;
		case 1: r = ioctl(fds[s].fd, FLAMESTAT_IOC_RESET); break;
		case 2: r = ioctl(fds[s].fd, FLAMESTAT_IOC_SET_CONFIG, &c); break;
		default: r = ioctl(fds[s].fd, FLAMESTAT_IOC_START); break;
		}
		if (!judge(r, errno, x) || r)
			return;
		switch (i) {
		case 0:
			M.running = false;
			break;
		case 1:
			samples_gone();
			break;
		case 2:
			freq_accepted += c.freq_hz != M.cfg.freq_hz;
			M.cfg = c;
			break;
		default:
			if (!M.running && M.samples == S_NONE)
				M.samples = S_MAYBE;
			M.running = true;
			break;
		}
	}
}

/* ---- text reads ---- */

static void op_text_read(void)
{
	static char buf[70000];
	enum ptr_kind pk = rng_below(&rng, 5) ? P_GOOD : pick_ptr();
	size_t n = rng_below(&rng, 3) ? 1 + rng_below(&rng, 300) : rng_below(&rng, sizeof(buf));
	int s = pick_fd(), f;
	ssize_t r;
	struct expect x;

	if (s < 0)
		return;
	f = fds[s].file;
	snprintf(desc, sizeof(desc), "read(%s, %zu) on file %d", ptr_names[pk], n, f);
	r = read(fds[s].fd, ptr_of(pk, buf, n), n);
	if (files[f].accmode == O_WRONLY)
		x = want_err(EBADF);
	else if (pk == P_GOOD || !n)
		x = want_ok();
	else
		x = (struct expect){ .ok = true, .errs = EBIT(EFAULT) };
	if (judge(r, errno, x) && r > (ssize_t)n)
		fail_op("read %zd > %zu bytes", r, n);
}

static void op_lseek(void)
{
	int s = pick_fd(), whence = (int)rng_below(&rng, 5), f;
	off_t off;
	struct expect x;

	if (s < 0)
		return;
	f = fds[s].file;
	switch (rng_below(&rng, 4)) {
	case 0: off = 0; break;
	case 1: off = -(off_t)rng_below(&rng, 1000); break;
	case 2: off = (off_t)rng_below(&rng, 5000); break;
	default: off = (off_t)(rng_next(&rng) >> 34); break;
	}
	snprintf(desc, sizeof(desc), "lseek(%lld, %d) on file %d", (long long)off, whence, f);
	if (whence == SEEK_SET && off < 0)
		x = want_err(EINVAL);
	else if (whence == SEEK_SET || whence == SEEK_CUR)
		x = (struct expect){ .ok = true, .errs = EBIT(EINVAL) };
	else
		x = want_err(EINVAL);
	JUDGE(lseek(fds[s].fd, off, whence), x);
}

/* A whole text read from offset 0 in random pieces, checked line by line. */
static void op_text_full(void)
{
	size_t cap = 1 << 16, len = 0, chunk = 1 + rng_below(&rng, 9000);
	char *buf = malloc(cap), why[200];
	int s = pick_fd(), f;
	ssize_t r;

	if (s < 0 || !buf) {
		free(buf);
		return;
	}
	f = fds[s].file;
	snprintf(desc, sizeof(desc), "full text read in %zu-byte pieces on file %d", chunk, f);
	if (files[f].accmode == O_WRONLY) {
		free(buf);
		return;
	}
	if (!JUDGE(lseek(fds[s].fd, 0, SEEK_SET), want_ok())) {
		free(buf);
		return;
	}
	for (;;) {
		if (len + chunk > cap) {
			cap = 2 * (len + chunk);
			buf = realloc(buf, cap);
			if (!buf)
				return;
		}
		r = read(fds[s].fd, buf + len, chunk);
		if (r < 0) {
			judge(r, errno, want_ok());
			break;
		}
		if (!r) {
			if (folded_validate(buf, len, why, sizeof(why)) < 0)
				fail_op("folded text: %s", why);
			break;
		}
		len += (size_t)r;
	}
	free(buf);
}

/* Random ioctl numbers: anything not exactly a known one is ENOTTY. */
static void op_random_ioctl(void)
{
	static const unsigned long known[] = {
		FLAMESTAT_IOC_VERSION, FLAMESTAT_IOC_GET_CONFIG,
		FLAMESTAT_IOC_SET_CONFIG, FLAMESTAT_IOC_START,
		FLAMESTAT_IOC_STOP, FLAMESTAT_IOC_RESET,
		FLAMESTAT_IOC_GET_STATS, FLAMESTAT_IOC_SNAPSHOT,
		FLAMESTAT_IOC_READ, FLAMESTAT_IOC_CLAIM, FLAMESTAT_IOC_UNCLAIM,
		FLAMESTAT_IOC_CLAIM_FORCE,
	};
	static const unsigned int sizes[] = {
		0, sizeof(struct flamestat_config), sizeof(struct flamestat_stats),
		sizeof(struct flamestat_version), sizeof(struct flamestat_snapshot),
		sizeof(struct flamestat_read),
	};
	unsigned int dir = (unsigned int)rng_below(&rng, 4), type, nr, size;
	static uint8_t buf[16384];
	unsigned long cmd;
	size_t i;
	int s = pick_fd();

	if (s < 0)
		return;
	type = rng_below(&rng, 5) ? FLAMESTAT_IOC_MAGIC : (unsigned int)rng_below(&rng, 256);
	nr = rng_below(&rng, 4) ? (unsigned int)rng_below(&rng, 16) : (unsigned int)rng_below(&rng, 256);
	size = rng_below(&rng, 2) ? sizes[rng_below(&rng, 6)] :
	       (unsigned int)rng_below(&rng, 1U << 14);
	cmd = _IOC(dir, type, nr, size);
	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (cmd == known[i])
			return;	/* the dedicated ops cover these */
	/*
	 * GET_STATS of any size from FLAMESTAT_STATS_SIZE_V1 to the whole
	 * struct, in words, copies that much: a read op of its own.
	 */
	if (dir == _IOC_READ && type == FLAMESTAT_IOC_MAGIC &&
	    nr == _IOC_NR(FLAMESTAT_IOC_GET_STATS) &&
	    size >= FLAMESTAT_STATS_SIZE_V1 &&
	    size <= sizeof(struct flamestat_stats) && size % 8 == 0)
		return;
	for (i = 0; i < 64; i++)
		buf[rng_below(&rng, sizeof(buf))] = (uint8_t)rng_next(&rng);
	snprintf(desc, sizeof(desc), "ioctl(%#lx: dir %u type %#x nr %u size %u)", cmd, dir,
		 type, nr, size);
	JUDGE(ioctl(fds[s].fd, cmd, rng_below(&rng, 3) ? (void *)buf :
		    ptr_of(pick_ptr(), buf, size)), want_err(ENOTTY));
}

static void op_mmap(void)
{
	int s = pick_fd();
	void *p;

	if (s < 0)
		return;
	snprintf(desc, sizeof(desc), "mmap of the device");
	p = mmap(NULL, (size_t)pagesz, PROT_READ, MAP_SHARED, fds[s].fd, 0);
	if (p != MAP_FAILED) {
		munmap(p, (size_t)pagesz);
		fail_op("mmap succeeded");
		return;
	}
	judge(-1, errno, (struct expect){ .errs = EBIT(ENODEV) | EBIT(EACCES) });
}

/* ---- main ---- */

enum { K_OPEN, K_CLOSE, K_DUP, K_RAND_IOCTL, K_SET_CONFIG, K_GET_CONFIG,
       K_CONTROL, K_STATS, K_VERSION, K_SNAPSHOT, K_READ, K_WRITE_CMD,
       K_WRITE_RAND, K_WRITE_BAD, K_TEXT_READ, K_LSEEK, K_TEXT_FULL, K_MMAP,
       K_NEW_SESSION, K_NR };
static const struct { unsigned int weight; const char *name; } kinds[K_NR] = {
	[K_OPEN] = { 5, "open" }, [K_CLOSE] = { 4, "close" }, [K_DUP] = { 1, "dup" },
	[K_RAND_IOCTL] = { 12, "random ioctl" }, [K_SET_CONFIG] = { 9, "SET_CONFIG" },
	[K_GET_CONFIG] = { 3, "GET_CONFIG" }, [K_CONTROL] = { 10, "control ioctl" },
	[K_STATS] = { 6, "GET_STATS" }, [K_VERSION] = { 2, "VERSION" },
	[K_SNAPSHOT] = { 3, "SNAPSHOT" }, [K_READ] = { 6, "READ" },
	[K_WRITE_CMD] = { 10, "text command" }, [K_WRITE_RAND] = { 4, "random write" },
	[K_WRITE_BAD] = { 2, "write bad pointer" }, [K_TEXT_READ] = { 6, "read" },
	[K_LSEEK] = { 4, "lseek" }, [K_TEXT_FULL] = { 1, "full text read" },
	[K_MMAP] = { 1, "mmap" }, [K_NEW_SESSION] = { 2, "new session" },
};

static int pick_kind(void)
{
	unsigned int total = 0, k, x;

	for (k = 0; k < K_NR; k++)
		total += kinds[k].weight;
	x = (unsigned int)rng_below(&rng, total);
	for (k = 0; x >= kinds[k].weight; k++)
		x -= kinds[k].weight;
	return (int)k;
}

/* The device still works: configure, sample, read, snapshot. */
static void final_check(void)
{
	struct flamestat_config c = {
		.flags = FLAMESTAT_CFG_KERNEL | FLAMESTAT_CFG_USER,
		.freq_hz = FLAMESTAT_DEFAULT_FREQ,
		.kernel_depth = FLAMESTAT_DEFAULT_DEPTH,
		.user_depth = FLAMESTAT_DEFAULT_DEPTH,
	};
	struct flamestat_stats st;
	struct snap_summary sum;
	char why[300], *text;
	size_t size, cap = 1 << 16, len = 0;
	void *snap;
	ssize_t r;
	int fd, i;

	op_no = nops;
	snprintf(desc, sizeof(desc), "final check");
	for (i = 0; i < MAX_FDS; i++) {
		if (fds[i].fd < 0)
			continue;
		close(fds[i].fd);
		file_put(fds[i].file);
		fds[i].fd = -1;
	}
	fd = open(FLAMESTAT_DEVICE, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fail_op("open: %s", strerror(errno));
		return;
	}
	/* A new session: the frequency changes only with nothing held. */
	if (ioctl(fd, FLAMESTAT_IOC_STOP) || ioctl(fd, FLAMESTAT_IOC_RESET) ||
	    ioctl(fd, FLAMESTAT_IOC_SET_CONFIG, &c) || ioctl(fd, FLAMESTAT_IOC_START)) {
		fail_op("stop, reset, configure, start: %s", strerror(errno));
		close(fd);
		return;
	}
	M.cfg = c;
	M.running = true;
	/* Burn some CPU in user space so that there is something to count. */
	burn_cpu_ms(500);
	if (ioctl(fd, FLAMESTAT_IOC_GET_STATS, &st)) {
		fail_op("GET_STATS: %s", strerror(errno));
	} else {
		check_stats(&st);
		if (!st.samples || !st.recorded || !(st.state & FLAMESTAT_STATE_RUNNING))
			fail_op("not sampling after the fuzzing: samples %llu recorded %llu state %#x",
				(unsigned long long)st.samples,
				(unsigned long long)st.recorded, st.state);
	}
	snap = snap_take(fd, 0, 0, &size);
	if (!snap) {
		fail_op("snapshot: %s", strerror(errno));
	} else {
		if (snap_validate(snap, size, &sum, why, sizeof(why)))
			fail_op("final snapshot: %s", why);
		else if (!sum.stacks)
			fail_op("final snapshot has no stacks");
		free(snap);
	}
	text = malloc(cap);
	while (text) {
		if (len + 65536 > cap)
			text = realloc(text, cap *= 2);
		if (!text)
			break;
		r = read(fd, text + len, 65536);
		if (r <= 0) {
			if (r < 0)
				fail_op("text read: %s", strerror(errno));
			else if (folded_validate(text, len, why, sizeof(why)) <= 0)
				fail_op("final text: %s", len ? why : "empty");
			break;
		}
		len += (size_t)r;
	}
	free(text);
	close(fd);
}

int main(int argc, char **argv)
{
	struct flamestat_version v;
	struct flamestat_stats st;
	int i, fd, k;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-s") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "-n") && i + 1 < argc)
			nops = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--solo"))
			solo = true;
		else if (!strcmp(argv[i], "-v"))
			verbose = true;
		else {
			fprintf(stderr, "usage: devfuzz [-s SEED] [-n OPS] [--solo] [-v]\n");
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	rng = seed;
	setup_pointers();
	for (i = 0; i < MAX_FDS; i++)
		fds[i].fd = -1;
	M.claim = -1;

	fd = open(FLAMESTAT_DEVICE, O_RDWR | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, FLAMESTAT_IOC_VERSION, &v) ||
	    ioctl(fd, FLAMESTAT_IOC_GET_CONFIG, &M.cfg) ||
	    ioctl(fd, FLAMESTAT_IOC_GET_STATS, &st)) {
		perror("devfuzz: " FLAMESTAT_DEVICE);
		return 2;
	}
	close(fd);
	M.nr_cpu_ids = v.nr_cpu_ids;
	M.running = st.state & FLAMESTAT_STATE_RUNNING;
	M.samples = M.running ? S_MAYBE : S_NONE;
	samples_seen(&st);
	M.lockdown = st.state & FLAMESTAT_STATE_LOCKDOWN;
	if (solo && (st.state & FLAMESTAT_STATE_CLAIMED)) {
		fprintf(stderr, "devfuzz: --solo, but the device is claimed\n");
		return 2;
	}

	for (op_no = 0; op_no < nops && failures <= 20; op_no++) {
		k = pick_kind();
		kind_count[k]++;
		/* The writable half of the straddling pointers reads as zeros. */
		memset(page_rw, 0, (size_t)pagesz);
		desc[0] = '\0';
		switch (k) {
		case K_OPEN: op_open(); break;
		case K_CLOSE: op_close(); break;
		case K_DUP: op_dup(); break;
		case K_RAND_IOCTL: op_random_ioctl(); break;
		case K_SET_CONFIG: op_set_config(); break;
		case K_GET_CONFIG: op_get_config(); break;
		case K_CONTROL: op_control(); break;
		case K_STATS: op_stats(); break;
		case K_VERSION: op_version(); break;
		case K_SNAPSHOT: op_snapshot(); break;
		case K_READ: op_read_ioctl(); break;
		case K_WRITE_CMD: op_write_cmd(false); break;
		case K_WRITE_RAND: op_write_cmd(true); break;
		case K_WRITE_BAD: op_write_badptr(); break;
		case K_TEXT_READ: op_text_read(); break;
		case K_LSEEK: op_lseek(); break;
		case K_TEXT_FULL: op_text_full(); break;
		case K_MMAP: op_mmap(); break;
		case K_NEW_SESSION: op_new_session(); break;
		}
		if (verbose && desc[0])
			printf("op %lu: %s\n", op_no, desc);
	}
	/* Both answers to a new frequency, in a run long enough to see them. */
	if (solo && nops >= 2000 && failures <= 20 && (!freq_accepted || !freq_refused)) {
		snprintf(desc, sizeof(desc), "frequency changes");
		fail_op("accepted %lu, refused %lu: both paths must be taken",
			freq_accepted, freq_refused);
	}
	/* With others at the device, they run the final check afterwards. */
	if (solo && failures <= 20)
		final_check();

	printf("devfuzz: kinds:");
	for (k = 0; k < K_NR; k++)
		printf(" %s=%lu", kinds[k].name, kind_count[k]);
	printf("\ndevfuzz: outcomes: success=%lu", ok_count);
	for (i = 0; i < 256; i++)
		if (errno_count[i])
			printf(" %s=%lu", errname(i), errno_count[i]);
	printf("\ndevfuzz: frequency changes: accepted=%lu refused=%lu",
	       freq_accepted, freq_refused);
	printf("\ndevfuzz: seed %llu, %lu ops, %lu failures\n",
	       (unsigned long long)seed, op_no, failures);
	return failures ? 1 : 0;
}
