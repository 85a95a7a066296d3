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
 * Written against QEMU's plugin API version 1 (QEMU 7.x), whose few
 * declarations are repeated here.
 *
 *   qemu-system-x86_64 -plugin ./insnprof.so,out=FILE ...
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The QEMU plugin API, version 1 (include/qemu/qemu-plugin.h). */
typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
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
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
					      enum qemu_plugin_op op,
					      void *ptr, uint64_t imm);
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn *insn,
						enum qemu_plugin_op op,
						void *ptr, uint64_t imm);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    qemu_plugin_vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags,
					    void *udata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
						 size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
				    qemu_plugin_udata_cb_t cb, void *udata);

#define EXPORT __attribute__((visibility("default")))
EXPORT int qemu_plugin_version = 1;

/* The marker: nopl 0x4b4d5346(%rax), "FSMK". */
static const unsigned char marker[] = { 0x0f, 0x1f, 0x80, 0x46, 0x53, 0x4d, 0x4b };

/*
 * One counter per kernel instruction address, in a fixed open-addressing
 * table: inline ops write to the counters' addresses, so they never move.
 */
#define SLOTS (1u << 22)
struct slot {
	uint64_t pc;
	uint64_t count;
	uint64_t last;	/* count at the previous marker */
};

static struct slot *table;
static uint64_t user_count, user_last;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *out;
static unsigned int marks;
static bool full;

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

static void on_marker(unsigned int vcpu, void *udata)
{
	uint64_t k = 0;
	uint32_t i;

	(void)vcpu;
	(void)udata;
	pthread_mutex_lock(&lock);
	for (i = 0; i < SLOTS; i++)
		k += table[i].count - table[i].last;
	fprintf(out, "mark %u user=%" PRIu64 " kernel=%" PRIu64 "%s\n", marks++,
		user_count - user_last, k, full ? " table-full" : "");
	for (i = 0; i < SLOTS; i++) {
		if (table[i].count != table[i].last)
			fprintf(out, "%" PRIx64 " %" PRIu64 "\n", table[i].pc,
				table[i].count - table[i].last);
		table[i].last = table[i].count;
	}
	user_last = user_count;
	fflush(out);
	pthread_mutex_unlock(&lock);
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb), nuser = 0;
	struct qemu_plugin_insn *insn;
	struct slot *s;
	uint64_t pc;

	(void)id;
	pthread_mutex_lock(&lock);
	for (i = 0; i < n; i++) {
		insn = qemu_plugin_tb_get_insn(tb, i);
		pc = qemu_plugin_insn_vaddr(insn);
		if (!kernel_pc(pc)) {
			nuser++;
			if (qemu_plugin_insn_size(insn) == sizeof(marker) &&
			    !memcmp(qemu_plugin_insn_data(insn), marker,
				    sizeof(marker)))
				qemu_plugin_register_vcpu_insn_exec_cb(insn,
					on_marker, QEMU_PLUGIN_CB_NO_REGS, NULL);
			continue;
		}
		s = slot_of(pc);
		if (!s) {
			full = true;
			continue;
		}
		qemu_plugin_register_vcpu_insn_exec_inline(insn,
			QEMU_PLUGIN_INLINE_ADD_U64, &s->count, 1);
	}
	pthread_mutex_unlock(&lock);
	/* A block is all user or all kernel: one add for its user part. */
	if (nuser)
		qemu_plugin_register_vcpu_tb_exec_inline(tb,
			QEMU_PLUGIN_INLINE_ADD_U64, &user_count, nuser);
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

	(void)info;
	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], "out=", 4))
			path = argv[i] + 4;
	if (!path) {
		fprintf(stderr, "insnprof: out=FILE is required\n");
		return 1;
	}
	out = fopen(path, "w");
	table = calloc(SLOTS, sizeof(*table));
	if (!out || !table) {
		perror("insnprof");
		return 1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, on_plugin_exit, NULL);
	return 0;
}
