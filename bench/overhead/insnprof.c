// SPDX-License-Identifier: GPL-2.0
/*
 * insnprof: a QEMU TCG plugin that counts the guest instructions executed
 * at each kernel address, for finding where a profiler's instructions go.
 * A window is delimited by the guest executing the marker instruction
 * (nopl 0x4b4d5346(%rax), which bench/overhead/timeit.c runs before and
 * after the command it times): at each marker the plugin appends to its
 * output the counts accumulated since the previous one,
 *
 *   mark N user=U kernel=K
 *   ADDRESS COUNT           (kernel addresses, hex; only non-zero)
 *
 * user= counts the instructions executed in user mode (lower half).
 * Written against two generations of QEMU's plugin API, whose few
 * declarations are repeated here (no qemu-plugin.h): version 1 (QEMU 7.x
 * and 8.x: inline adds to any address, qemu_plugin_insn_data() returns a
 * pointer) and version 3 (QEMU 9.0 on, 10.0 included: inline adds only to
 * per-vCPU scoreboard entries, qemu_plugin_insn_data() copies). No one
 * qemu_plugin_version suits both (7.2 loads 0..1, 10.0 2..4), so a
 * constructor sets it when QEMU loads the plugin, by which generation's
 * functions (declared weak) QEMU has, before QEMU reads it.
 *
 *   qemu-system-x86_64 -plugin ./insnprof.so,out=FILE[,user=on][,irq=on] ...
 *
 * user=on: user addresses are counted one by one too, and listed with the
 * kernel's (a virtual address of whichever process ran there: give the
 * program of interest an address no other one uses).
 *
 * irq=on (one vCPU only; implies user=on): where a timer interrupt would
 * land, and where it did. An interrupt that comes while interrupts are
 * disabled is taken at the instruction after the one that enables them
 * again, so a sampler driven by a timer interrupt never sees the
 * instructions run with them disabled, and credits that time to where
 * they come back on. The plugin follows the interrupt flag through what
 * changes it: a user-mode syscall and the entry of an interrupt (clear
 * it), cli, sti (sets it after one more instruction), sysretq (back in
 * user mode after the syscall), iretq. Interrupt entries are recognised by
 * their first instructions (Linux's idtentry: clac or a 3-byte nop, cld,
 * push $-1, which exceptions without an error code share). Each listed
 * address then has four more columns,
 *
 *   ADDRESS COUNT HELD CREDITED LANDED IRQ
 *
 * HELD: the instructions counted there that ran with interrupts disabled;
 * CREDITED: the held instructions that a deferred interrupt would have
 * credited to that address (sti's shadow, or a syscall's user return
 * address); COUNT - HELD + CREDITED is what an ideal timer-interrupt
 * sampler finds there. LANDED: the interrupts that QEMU delivered there
 * (their interrupted instruction: the first block run after their
 * iretq), which is what a real one finds. IRQ: the instructions counted
 * there that an interrupt handler ran (held too). The mark line adds held=
 * (held, not yet credited at the mark), interrupted= (held instructions
 * that an interrupt handler ran: credited to whatever it interrupted,
 * left out), popf= (popf instructions run in the kernel, which may change
 * the flag unseen) and landed= (interrupts).
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The QEMU plugin API (include/qemu/qemu-plugin.h): what both generations
 * share, then each one's own, weak (NULL where this QEMU lacks them).
 */
typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
struct qemu_plugin_scoreboard;
typedef struct {
	const char *target_name;
	struct { int min; int cur; } version;
	bool system_emulation;
	union { struct { int smp_vcpus; int max_vcpus; } system; };
} qemu_info_t;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id,
					       struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu, void *udata);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *udata);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
					  qemu_plugin_vcpu_udata_cb_t cb,
					  enum qemu_plugin_cb_flags flags,
					  void *udata);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    qemu_plugin_vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags,
					    void *udata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
						 size_t idx);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
				    qemu_plugin_udata_cb_t cb, void *udata);
/*
 * The same symbol in both, with another type in each: declared as
 * version 3 has it, called through a pointer of version 1's type there.
 */
typedef const void *insn_data_v1_t(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_data(const struct qemu_plugin_insn *insn, void *dest,
			     size_t len);

#define WEAK __attribute__((weak))
/* Version 1 (QEMU 7.x, 8.x). */
WEAK void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
						   enum qemu_plugin_op op,
						   void *ptr, uint64_t imm);
WEAK void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn *insn,
						     enum qemu_plugin_op op,
						     void *ptr, uint64_t imm);
/* Version 2 on (QEMU 9.0 on). */
typedef struct {
	struct qemu_plugin_scoreboard *score;
	size_t offset;
} qemu_plugin_u64;
WEAK struct qemu_plugin_scoreboard *qemu_plugin_scoreboard_new(size_t element_size);
WEAK void *qemu_plugin_scoreboard_find(struct qemu_plugin_scoreboard *score,
				       unsigned int vcpu_index);
WEAK int qemu_plugin_num_vcpus(void);
WEAK void qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(
	struct qemu_plugin_tb *tb, enum qemu_plugin_op op,
	qemu_plugin_u64 entry, uint64_t imm);
WEAK void qemu_plugin_register_vcpu_insn_exec_inline_per_vcpu(
	struct qemu_plugin_insn *insn, enum qemu_plugin_op op,
	qemu_plugin_u64 entry, uint64_t imm);

#define EXPORT __attribute__((visibility("default")))
EXPORT int qemu_plugin_version = 1;

/* This QEMU's generation: scoreboards (version 3), or not (version 1). */
static bool v3;
/* Version 1: its qemu_plugin_insn_data(), as it is there. */
static insn_data_v1_t *insn_data_v1;

__attribute__((constructor)) static void pick_version(void)
{
	v3 = qemu_plugin_scoreboard_new && qemu_plugin_scoreboard_find &&
	     qemu_plugin_num_vcpus &&
	     qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu &&
	     qemu_plugin_register_vcpu_insn_exec_inline_per_vcpu;
	/*
	 * 3: the scoreboards came in 2, qemu_plugin_insn_data()'s copy in 3
	 * (both in QEMU 9.0); 7.2 and 8.x accept up to 1.
	 */
	qemu_plugin_version = v3 ? 3 : 1;
	if (!v3)
		insn_data_v1 = (insn_data_v1_t *)(void (*)(void))qemu_plugin_insn_data;
}

/* The marker: nopl 0x4b4d5346(%rax), "FSMK". */
static const unsigned char marker[] = { 0x0f, 0x1f, 0x80, 0x46, 0x53, 0x4d, 0x4b };

/*
 * One counter per kernel instruction address, in a fixed open-addressing
 * table: inline ops write to the counters' addresses, so they never move.
 * Version 3 adds only to scoreboard entries (one copy per vCPU): there the
 * counters are in scoreboards of CHUNK each, given out in order of first
 * use, and a mark sums them into the table's count first.
 */
#define SLOTS (1u << 22)
#define CHUNK (1u << 14)
struct slot {
	uint64_t pc;
	uint64_t count;
	uint32_t ctr;		/* version 3: its counter's number + 1, or 0 */
	uint64_t last;		/* count at the previous marker */
	uint64_t held;		/* irq=on: run with interrupts disabled */
	uint64_t held_last;
	uint64_t credit;	/* irq=on: held time credited here */
	uint64_t credit_last;
	uint64_t landed;	/* irq=on: interrupts delivered here */
	uint64_t landed_last;
	uint64_t irq;		/* irq=on: run by an interrupt handler */
	uint64_t irq_last;
};

static struct slot *table;
static uint64_t user_count, user_last;
static struct qemu_plugin_scoreboard *chunk[SLOTS / CHUNK], *user_sb;
static uint32_t nctr;		/* counters given out */
static qemu_plugin_u64 user_entry;	/* version 3: user_count's counter */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *out;
static unsigned int marks;
static bool full, per_user, track_irq;

/*
 * irq=on: the interrupt flag as far as the instructions seen tell (one
 * vCPU, so no locking: translation and execution share its thread).
 */
struct tb_info {		/* a translation block */
	size_t n;		/* its instructions */
	bool kernel;
	bool cli_first;		/* it starts with cli */
	bool irq_entry;		/* an interrupt's entry */
	struct slot *s[];	/* their slots */
};
struct cli_info {		/* a cli, in its block */
	struct tb_info *ti;
	size_t at;		/* its index there */
};
static bool irq_off;		/* interrupts disabled */
static bool irq_shadow;		/* sti ran: disabled for one more instruction */
static uint64_t held;		/* run disabled since the last credit */
static struct slot *syscall_ret;	/* open syscall's user return address */
static bool iret_open;		/* an iretq returned from what we did not see enter */
static uint64_t interrupted, interrupted_last;
static uint64_t popf, popf_last;
static uint64_t landed, landed_last;
/* Interrupts being handled (nested): the flag before each. */
#define NEST 32
static bool nest_off[NEST];
static int depth;
static bool want_landing;	/* the next block is where one landed */
static uint64_t deferred;	/* held time for the next block's start */

static bool kernel_pc(uint64_t pc)
{
	return pc >= 0xffff800000000000ULL;
}

/* Under the lock. NULL when the table is full. */
static struct slot *slot_of(uint64_t pc)
{
	uint64_t h = pc * 0x9e3779b97f4a7c15ULL;
	uint32_t i = (uint32_t)(h >> 40) & (SLOTS - 1), n;

	for (n = 0; n < SLOTS / 2; n++, i = (i + 1) & (SLOTS - 1)) {
		if (table[i].pc == pc)
			return &table[i];
		if (!table[i].pc) {
			table[i].pc = pc;
			return &table[i];
		}
	}
	return NULL;
}

/* Version 3: a scoreboard entry's sum over the vCPUs. */
static uint64_t sum_of(struct qemu_plugin_scoreboard *sb, size_t offset)
{
	int v, n = qemu_plugin_num_vcpus();
	uint64_t sum = 0, x;

	for (v = 0; v < n; v++) {
		memcpy(&x, (char *)qemu_plugin_scoreboard_find(sb, (unsigned int)v) +
		       offset, sizeof(x));
		sum += x;
	}
	return sum;
}

/* Version 3: the counters' sums into the table. Under the lock. */
static void sum_counts(void)
{
	uint32_t i, c;

	for (i = 0; i < SLOTS; i++) {
		c = table[i].ctr;
		if (c--)
			table[i].count = sum_of(chunk[c / CHUNK],
						(c % CHUNK) * sizeof(uint64_t));
	}
	user_count = sum_of(user_sb, 0);
}

/* Version 3: @s's counter, given out at its first use. Under the lock. */
static bool counter_of(struct slot *s, qemu_plugin_u64 *e)
{
	uint32_t c = s->ctr;

	if (!c) {
		if (nctr == SLOTS)
			return false;
		if (!chunk[nctr / CHUNK]) {
			chunk[nctr / CHUNK] =
				qemu_plugin_scoreboard_new(CHUNK * sizeof(uint64_t));
			if (!chunk[nctr / CHUNK])
				return false;
		}
		c = s->ctr = ++nctr;
	}
	c--;
	e->score = chunk[c / CHUNK];
	e->offset = (c % CHUNK) * sizeof(uint64_t);
	return true;
}

static void on_marker(unsigned int vcpu, void *udata)
{
	uint64_t k = 0;
	uint32_t i;

	(void)vcpu;
	(void)udata;
	pthread_mutex_lock(&lock);
	if (v3)
		sum_counts();
	for (i = 0; i < SLOTS; i++)
		if (kernel_pc(table[i].pc))
			k += table[i].count - table[i].last;
	fprintf(out, "mark %u user=%" PRIu64 " kernel=%" PRIu64, marks++,
		user_count - user_last, k);
	if (track_irq)
		fprintf(out, " held=%" PRIu64 " interrupted=%" PRIu64
			" popf=%" PRIu64 " landed=%" PRIu64, held,
			interrupted - interrupted_last, popf - popf_last,
			landed - landed_last);
	fprintf(out, "%s\n", full ? " table-full" : "");
	for (i = 0; i < SLOTS; i++) {
		struct slot *t = &table[i];

		if (t->count != t->last || t->held != t->held_last ||
		    t->credit != t->credit_last || t->landed != t->landed_last) {
			fprintf(out, "%" PRIx64 " %" PRIu64, t->pc,
				t->count - t->last);
			if (track_irq)
				fprintf(out, " %" PRIu64 " %" PRIu64 " %" PRIu64
					" %" PRIu64, t->held - t->held_last,
					t->credit - t->credit_last,
					t->landed - t->landed_last,
					t->irq - t->irq_last);
			fputc('\n', out);
		}
		t->last = t->count;
		t->held_last = t->held;
		t->credit_last = t->credit;
		t->landed_last = t->landed;
		t->irq_last = t->irq;
	}
	user_last = user_count;
	interrupted_last = interrupted;
	popf_last = popf;
	landed_last = landed;
	fflush(out);
	pthread_mutex_unlock(&lock);
}

/* The held instructions go to @s (NULL: an interrupted context). */
static void credit(struct slot *s)
{
	if (s)
		s->credit += held;
	else
		interrupted += held;
	held = 0;
}

/* Instructions from..to-1 of a block ran with interrupts held. */
static void hold(struct tb_info *ti, size_t from, size_t to)
{
	size_t i;

	for (i = from; i < to; i++) {
		ti->s[i]->held++;
		if (depth)
			ti->s[i]->irq++;
	}
	held += to - from;
}

/* A block starts (every block, with irq=on). */
static void on_tb(unsigned int vcpu, void *udata)
{
	struct tb_info *ti = udata;

	(void)vcpu;
	if (deferred && (want_landing || !ti->irq_entry)) {
		/*
		 * Where an interrupt after sti's shadow would land: this
		 * block, or where the interrupt that came there returned.
		 */
		ti->s[0]->credit += deferred;
		deferred = 0;
	}
	if (want_landing) {
		/* The interrupted instruction, where the iretq went. */
		ti->s[0]->landed++;
		landed++;
		want_landing = false;
	}
	if (iret_open) {
		/*
		 * An iretq we did not see the entry of (depth 0): a
		 * syscall's return to user mode, or nothing we follow.
		 */
		iret_open = false;
		credit(ti->kernel ? NULL : syscall_ret ? syscall_ret : ti->s[0]);
		syscall_ret = NULL;
	}
	if (!ti->kernel) {
		if (irq_off || depth) {
			/* In user mode they are on: we missed a return. */
			irq_off = irq_shadow = false;
			depth = 0;
			credit(ti->s[0]);
		}
		return;
	}
	if (ti->irq_entry) {
		/* The hardware disabled them; the handler runs held. */
		if (depth < NEST)
			nest_off[depth] = irq_off;
		depth++;
		irq_off = true;
		irq_shadow = false;
	}
	if (irq_shadow) {
		irq_shadow = false;
		if (ti->cli_first) {
			/* sti; cli: no interrupt gets in */
			hold(ti, 0, ti->n);
			return;
		}
		/*
		 * Its first instruction is sti's shadow; the interrupt
		 * comes before the next one (QEMU ends the block there).
		 */
		hold(ti, 0, 1);
		irq_off = false;
		if (ti->n > 1) {
			credit(ti->s[1]);
		} else {
			deferred += held;
			held = 0;
		}
		return;
	}
	if (irq_off)
		hold(ti, 0, ti->n);
}

static void on_cli(unsigned int vcpu, void *udata)
{
	struct cli_info *ci = udata;

	(void)vcpu;
	if (irq_off)
		return;
	irq_off = true;
	/* The rest of the block; the cli itself ran with them enabled. */
	hold(ci->ti, ci->at + 1, ci->ti->n);
}

static void on_sti(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	(void)udata;
	if (irq_off)
		irq_shadow = true;
}

static void on_syscall(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	/* Entered with interrupts disabled (MSR_SYSCALL_MASK). */
	irq_off = true;
	syscall_ret = udata;
}

static void on_sysret(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	(void)udata;
	/* Only ever at the end of a syscall: nothing is being handled. */
	depth = 0;
	want_landing = false;
	if (!irq_off)
		return;
	irq_off = false;
	credit(syscall_ret);
	syscall_ret = NULL;
}

static void on_iret(unsigned int vcpu, void *udata)
{
	bool before;

	(void)vcpu;
	(void)udata;
	if (depth > 0) {
		/* The end of an interrupt's handling. */
		depth--;
		before = depth < NEST ? nest_off[depth] : false;
		want_landing = true;
		if (irq_off && !before) {
			irq_off = false;
			credit(NULL);
		}
		irq_off = before;
		return;
	}
	if (!irq_off)
		return;
	irq_off = false;
	iret_open = true;
}

static void on_popf(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	(void)udata;
	popf++;
}

static bool insn_is(struct qemu_plugin_insn *insn, const unsigned char *b,
		    size_t n)
{
	unsigned char buf[16];

	if (qemu_plugin_insn_size(insn) != n)
		return false;
	if (!v3)
		return !memcmp(insn_data_v1(insn), b, n);
	return n <= sizeof(buf) && qemu_plugin_insn_data(insn, buf, n) == n &&
	       !memcmp(buf, b, n);
}

static const unsigned char op_cli[] = { 0xfa }, op_sti[] = { 0xfb },
	op_syscall[] = { 0x0f, 0x05 }, op_sysretq[] = { 0x48, 0x0f, 0x07 },
	op_iretq[] = { 0x48, 0xcf }, op_popf[] = { 0x9d };

#define exec_cb(insn, fn, udata) \
	qemu_plugin_register_vcpu_insn_exec_cb(insn, fn, QEMU_PLUGIN_CB_NO_REGS, udata)

/*
 * Linux's idtentry without an error code: clac (a block of its own: it
 * changes the flags a block is translated for) or a 3-byte nop where the
 * CPU has no SMAP, then cld and push $-1.
 */
static bool is_irq_entry(struct qemu_plugin_tb *tb, size_t n)
{
	static const unsigned char nop3[] = { 0x0f, 0x1f, 0x00 },
		cld[] = { 0xfc }, push[] = { 0x6a, 0xff };
	size_t k = 0;

	if (n >= 1 && insn_is(qemu_plugin_tb_get_insn(tb, 0), nop3, 3))
		k = 1;
	return n >= k + 2 && insn_is(qemu_plugin_tb_get_insn(tb, k), cld, 1) &&
	       insn_is(qemu_plugin_tb_get_insn(tb, k + 1), push, 2);
}

/* irq=on: the callbacks of one block. Under the lock. */
static void track_tb(struct qemu_plugin_tb *tb, size_t n, bool kernel)
{
	struct qemu_plugin_insn *insn;
	struct tb_info *ti;
	struct cli_info *ci;
	struct slot *s;
	size_t i;

	ti = calloc(1, sizeof(*ti) + n * sizeof(ti->s[0]));
	if (!ti) {
		full = true;
		return;
	}
	for (i = 0; i < n; i++) {
		insn = qemu_plugin_tb_get_insn(tb, i);
		ti->s[i] = slot_of(qemu_plugin_insn_vaddr(insn));
		if (!ti->s[i]) {
			full = true;
			free(ti);
			return;
		}
	}
	ti->n = n;
	ti->kernel = kernel;
	ti->cli_first = insn_is(qemu_plugin_tb_get_insn(tb, 0), op_cli,
				sizeof(op_cli));
	ti->irq_entry = kernel && is_irq_entry(tb, n);
	qemu_plugin_register_vcpu_tb_exec_cb(tb, on_tb, QEMU_PLUGIN_CB_NO_REGS, ti);
	for (i = 0; i < n; i++) {
		insn = qemu_plugin_tb_get_insn(tb, i);
		if (!kernel) {
			if (insn_is(insn, op_syscall, sizeof(op_syscall))) {
				s = slot_of(qemu_plugin_insn_vaddr(insn) + 2);
				if (!s)
					full = true;
				exec_cb(insn, on_syscall, s);
			}
			continue;
		}
		if (insn_is(insn, op_cli, sizeof(op_cli))) {
			ci = calloc(1, sizeof(*ci));
			if (!ci) {
				full = true;
				continue;
			}
			ci->ti = ti;
			ci->at = i;
			exec_cb(insn, on_cli, ci);
		} else if (insn_is(insn, op_sti, sizeof(op_sti))) {
			exec_cb(insn, on_sti, NULL);
		} else if (insn_is(insn, op_sysretq, sizeof(op_sysretq))) {
			exec_cb(insn, on_sysret, NULL);
		} else if (insn_is(insn, op_iretq, sizeof(op_iretq))) {
			exec_cb(insn, on_iret, NULL);
		} else if (insn_is(insn, op_popf, sizeof(op_popf))) {
			exec_cb(insn, on_popf, NULL);
		}
	}
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb), nuser = 0;
	struct qemu_plugin_insn *insn;
	qemu_plugin_u64 e;
	struct slot *s;
	uint64_t pc;

	(void)id;
	pthread_mutex_lock(&lock);
	for (i = 0; i < n; i++) {
		insn = qemu_plugin_tb_get_insn(tb, i);
		pc = qemu_plugin_insn_vaddr(insn);
		if (!kernel_pc(pc)) {
			nuser++;
			if (insn_is(insn, marker, sizeof(marker)))
				qemu_plugin_register_vcpu_insn_exec_cb(insn,
					on_marker, QEMU_PLUGIN_CB_NO_REGS, NULL);
			if (!per_user)
				continue;
		}
		s = slot_of(pc);
		if (!s) {
			full = true;
			continue;
		}
		if (!v3) {
			qemu_plugin_register_vcpu_insn_exec_inline(insn,
				QEMU_PLUGIN_INLINE_ADD_U64, &s->count, 1);
		} else if (counter_of(s, &e)) {
			qemu_plugin_register_vcpu_insn_exec_inline_per_vcpu(insn,
				QEMU_PLUGIN_INLINE_ADD_U64, e, 1);
		} else {
			full = true;
		}
	}
	if (track_irq && n)
		track_tb(tb, n, nuser == 0);
	pthread_mutex_unlock(&lock);
	/* A block is all user or all kernel: one add for its user part. */
	if (nuser && !v3)
		qemu_plugin_register_vcpu_tb_exec_inline(tb,
			QEMU_PLUGIN_INLINE_ADD_U64, &user_count, nuser);
	else if (nuser)
		qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(tb,
			QEMU_PLUGIN_INLINE_ADD_U64, user_entry, nuser);
}

static void on_plugin_exit(qemu_plugin_id_t id, void *udata)
{
	(void)id;
	(void)udata;
	if (out)
		fclose(out);
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
			       int argc, char **argv)
{
	const char *path = NULL;
	int i;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4))
			path = argv[i] + 4;
		else if (!strcmp(argv[i], "user=on"))
			per_user = true;
		else if (!strcmp(argv[i], "irq=on"))
			per_user = track_irq = true;
	}
	if (!path) {
		fprintf(stderr, "insnprof: out=FILE is required\n");
		return 1;
	}
	if (!v3 && !(qemu_plugin_register_vcpu_tb_exec_inline &&
		     qemu_plugin_register_vcpu_insn_exec_inline)) {
		fprintf(stderr, "insnprof: this QEMU has neither plugin API "
			"version 1's inline ops nor version 3's\n");
		return 1;
	}
	if (track_irq && info->system_emulation &&
	    info->system.smp_vcpus != 1) {
		fprintf(stderr, "insnprof: irq=on needs one vCPU\n");
		return 1;
	}
	out = fopen(path, "w");
	table = calloc(SLOTS, sizeof(*table));
	if (v3) {
		user_sb = qemu_plugin_scoreboard_new(sizeof(uint64_t));
		user_entry.score = user_sb;
		user_entry.offset = 0;
	}
	if (!out || !table || (v3 && !user_sb)) {
		perror("insnprof");
		return 1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, on_plugin_exit, NULL);
	return 0;
}
