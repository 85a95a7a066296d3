/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The ABI between the flamestat module (/dev/flamestat) and its tools:
 * ioctl numbers, the configuration and statistics structures, and the
 * binary snapshot format. Shared verbatim by kmod/, user/ and tests/.
 *
 * Rules: only fixed-width fields, explicit padding, every reserved field
 * and every undefined flag bit must be zero (the module returns -EINVAL
 * otherwise), and FLAMESTAT_ABI_VERSION changes whenever a layout does.
 */
#ifndef _UAPI_FLAMESTAT_H
#define _UAPI_FLAMESTAT_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define FLAMESTAT_ABI_VERSION	1
#define FLAMESTAT_DEVICE	"/dev/flamestat"

/* Limits the module enforces on struct flamestat_config. */
#define FLAMESTAT_MIN_FREQ		1
#define FLAMESTAT_MAX_FREQ		20000
#define FLAMESTAT_DEFAULT_FREQ		997
#define FLAMESTAT_MAX_KERNEL_DEPTH	512
#define FLAMESTAT_MAX_USER_DEPTH	1024
#define FLAMESTAT_DEFAULT_DEPTH		127
#define FLAMESTAT_MAX_PIDS		16
#define FLAMESTAT_MAX_CPUS		1024
#define FLAMESTAT_CPUMASK_WORDS		(FLAMESTAT_MAX_CPUS / 64)
#define FLAMESTAT_COMM_LEN		16
#define FLAMESTAT_PROBE_MAX		32	/* struct flamestat_stats */
#define FLAMESTAT_BUILD_ID_SIZE		20

/* struct flamestat_config.flags */
#define FLAMESTAT_CFG_KERNEL	(1U << 0) /* record kernel stacks */
#define FLAMESTAT_CFG_USER	(1U << 1) /* record user stacks */
#define FLAMESTAT_CFG_IDLE	(1U << 2) /* record idle samples too */
#define FLAMESTAT_CFG_PERCPU	(1U << 3) /* keep the CPU in the stack key */
/*
 * Sample only the CPUs in cpus[]. Without it: every CPU the kernel does
 * not isolate (nohz_full=, isolcpus=); an isolated CPU only when named.
 */
#define FLAMESTAT_CFG_CPUMASK	(1U << 4)
#define FLAMESTAT_CFG_PID_TREE	(1U << 5) /* pids[] also match descendants */
/*
 * MODE_OFFCPU, MODE_WALL, with CFG_KERNEL: keep with each off-CPU stack the
 * kernel stack of the task that woke it (its waker), as bcc's offwaketime
 * does.
 */
#define FLAMESTAT_CFG_WAKER	(1U << 6)
/*
 * How user stacks are walked. Neither flag (the default): with each mapped
 * file's unwind table, built from its .eh_frame, where the module has
 * built one, and by frame pointer elsewhere. UNWIND_FP: by frame pointer
 * only, as modules before tables. UNWIND_TABLE: by tables only; a frame in
 * code without one ends the stack (counted in unwind_stop). Not both.
 * Modules older than tables refuse either (EINVAL).
 */
#define FLAMESTAT_CFG_UNWIND_FP	   (1U << 7)
#define FLAMESTAT_CFG_UNWIND_TABLE (1U << 8)
#define FLAMESTAT_CFG_ALL	((1U << 9) - 1)

/* struct flamestat_config.mode: what is measured. */
enum flamestat_mode {
	/* CPU time: a timer samples each CPU's stacks (counts of samples). */
	FLAMESTAT_MODE_CPU = 0,
	/*
	 * Off-CPU time: where tasks block. When a task switches out (the
	 * sched_switch tracepoint) its kernel and user stacks are kept;
	 * when it switches in again, the time it was off a CPU is added to
	 * that stack, in nanoseconds. No timer runs.
	 */
	FLAMESTAT_MODE_OFFCPU = 1,
	/*
	 * Wall-clock time: both, on-CPU samples weighted by the period, so
	 * that every stack's time is in nanoseconds.
	 */
	FLAMESTAT_MODE_WALL = 2,
	FLAMESTAT_NR_MODES
};

/* Off-CPU stacks kept at once: tasks blocked with their stacks (module parameter offcpu_tasks). */
#define FLAMESTAT_DEFAULT_OFFCPU_TASKS	4096

/*
 * What to sample. Only one configuration exists (the module's); it can be
 * changed while sampling, which restarts the timers with the new settings,
 * except freq_hz: see FLAMESTAT_IOC_SET_CONFIG.
 */
struct flamestat_config {
	__u32 flags;		/* FLAMESTAT_CFG_*; KERNEL or USER required */
	__u32 freq_hz;		/* per CPU, FLAMESTAT_MIN_FREQ..MAX_FREQ */
	__u16 kernel_depth;	/* frames, 1..FLAMESTAT_MAX_KERNEL_DEPTH */
	__u16 user_depth;	/* frames, 1..FLAMESTAT_MAX_USER_DEPTH */
	__u32 nr_pids;		/* 0: every task; else pids[0..nr_pids) */
	__u32 pids[FLAMESTAT_MAX_PIDS]; /* process ids (tgids), caller's pid ns */
	__u64 cpus[FLAMESTAT_CPUMASK_WORDS]; /* with CFG_CPUMASK: bit n = CPU n */
	__u32 mode;		/* enum flamestat_mode (modules without off-CPU: EINVAL unless 0) */
	/*
	 * MODE_OFFCPU, MODE_WALL: blocks shorter than this many microseconds
	 * are counted (FLAMESTAT_OFFDROP_SHORT), not recorded; 0: every one.
	 */
	__u32 min_block_us;
	__u64 reserved[3];	/* must be zero */
};

/* Why a timer firing did not end up counted in a stack. */
enum flamestat_drop {
	FLAMESTAT_DROP_IDLE,		/* CPU idle and CFG_IDLE not set */
	FLAMESTAT_DROP_FILTERED,	/* task not in pids[] */
	/*
	 * Nothing to record in this mode: user code with KERNEL only, a
	 * kernel thread with USER only.
	 */
	FLAMESTAT_DROP_MODE,
	FLAMESTAT_DROP_NO_REGS,		/* no interrupted register state */
	FLAMESTAT_DROP_CPU_TABLE_FULL,	/* the CPU's table had no room */
	FLAMESTAT_DROP_TABLE_FULL,	/* the merged table had no room */
	/*
	 * Its hash bucket already held FLAMESTAT_PROBE_MAX other stacks
	 * (the hash is keyed: chance only, never seen in practice).
	 */
	FLAMESTAT_DROP_PROBE,
	/*
	 * Recorded, then dropped with the coldest stacks of a full merged
	 * table to make room for new ones (one process recording a new
	 * stack at every sample would otherwise fill it for everyone).
	 */
	FLAMESTAT_DROP_EVICTED,
	/*
	 * Periods the sampler skipped on purpose: its own cost on that CPU
	 * was above the module parameter cpu_max_percent of the CPU's time
	 * (perf's perf_cpu_time_max_percent), so it sampled every 2nd, 4th,
	 * ... period until the cost fell again. Counted in samples as well,
	 * so samples + overruns stays the number of periods.
	 */
	FLAMESTAT_DROP_THROTTLED,
	FLAMESTAT_NR_DROPS,
	FLAMESTAT_MAX_DROPS = 12	/* room in struct flamestat_stats */
};

/*
 * Why a block (a task's time off a CPU, from switch-out to switch-in) did
 * not end up counted in a stack (struct flamestat_stats.offcpu_dropped).
 */
enum flamestat_offcpu_drop {
	FLAMESTAT_OFFDROP_SHORT,	/* shorter than min_block_us */
	FLAMESTAT_OFFDROP_FILTERED,	/* task not in pids[] */
	FLAMESTAT_OFFDROP_MODE,		/* nothing to record: a kernel thread with USER only */
	/*
	 * No room to keep its stack while it was blocked: offcpu_tasks
	 * tasks were blocked with their stacks kept already.
	 */
	FLAMESTAT_OFFDROP_NO_SLOT,
	FLAMESTAT_OFFDROP_CPU_TABLE_FULL, /* the CPU's table had no room */
	FLAMESTAT_OFFDROP_PROBE,	/* hash bucket full (see DROP_PROBE) */
	/* Still blocked when sampling stopped: its time is not known. */
	FLAMESTAT_OFFDROP_UNFINISHED,
	FLAMESTAT_OFFDROP_TABLE_FULL,	/* the merged table had no room */
	/* Recorded, then dropped with the coldest stacks (see DROP_EVICTED). */
	FLAMESTAT_OFFDROP_EVICTED,
	FLAMESTAT_NR_OFFDROPS,
	FLAMESTAT_MAX_OFFDROPS = 12	/* room in struct flamestat_stats */
};

/* Why a mapped file has no unwind table (struct flamestat_stats.unwind_failed). */
enum flamestat_unwind_fail {
	/* No .eh_frame_hdr, or not a 64-bit ELF file of this architecture. */
	FLAMESTAT_UNWIND_FAIL_NONE,
	FLAMESTAT_UNWIND_FAIL_BAD,	/* its .eh_frame_hdr could not be read */
	FLAMESTAT_UNWIND_FAIL_BIG,	/* past the builder's limits */
	FLAMESTAT_UNWIND_FAIL_MEM,	/* unwind_kb reached, or no memory */
	FLAMESTAT_NR_UNWIND_FAILS,
	FLAMESTAT_MAX_UNWIND_FAILS = 8	/* room in struct flamestat_stats */
};

/*
 * Why a user stack walked with unwind tables ended before its outermost
 * frame (struct flamestat_stats.unwind_stop); the stack is recorded as
 * far as it went.
 */
enum flamestat_unwind_stop {
	/* Code with no table, and no frame pointer to follow (or UNWIND_TABLE). */
	FLAMESTAT_UNWIND_STOP_NO_TABLE,
	/* A rule the walker cannot follow: an expression of no known shape. */
	FLAMESTAT_UNWIND_STOP_UNSUP,
	/* The CFA is on a register known in the interrupted frame only. */
	FLAMESTAT_UNWIND_STOP_REG,
	/* The rules led nowhere: the stack pointer did not grow, or no address. */
	FLAMESTAT_UNWIND_STOP_BAD,
	FLAMESTAT_NR_UNWIND_STOPS,
	FLAMESTAT_MAX_UNWIND_STOPS = 8	/* room in struct flamestat_stats */
};

/* Per-sample cost histogram: bucket i counts samples costing < 2^(i+6) ns. */
#define FLAMESTAT_COST_BUCKETS	16

/* struct flamestat_stats.state */
#define FLAMESTAT_STATE_RUNNING		(1U << 0)
#define FLAMESTAT_STATE_LOCKDOWN	(1U << 1) /* kernel stacks withheld */
#define FLAMESTAT_STATE_CLAIMED		(1U << 2) /* a tool holds control */
/* A CPU samples below freq_hz now (see FLAMESTAT_DROP_THROTTLED). */
#define FLAMESTAT_STATE_THROTTLED	(1U << 3)

/*
 * Counters since the last reset. Exact: samples == recorded + sum(dropped).
 * Reading them folds every CPU's pending samples in first.
 */
struct flamestat_stats {
	__u64 samples;		/* periods sampled or throttled while running */
	__u64 recorded;		/* samples counted in a stack */
	__u64 dropped[FLAMESTAT_MAX_DROPS]; /* by enum flamestat_drop */
	__u64 overruns;		/* periods skipped because a timer ran late */
	/* Samples that were recorded but are marked (not drops): */
	__u64 kernel_truncated;	/* kernel stack cut at kernel_depth */
	__u64 user_truncated;	/* user stack cut at user_depth */
	__u64 user_fault;	/* user walk ended on an unreadable frame */
	__u64 user_compat;	/* 32-bit task, walked with 4-byte frames */
	__u64 idle_irq;		/* irq/softirq work done on an idle CPU */
	__u64 unmapped_procs;	/* samples of processes with no map record */
	/* Tables. */
	__u64 stacks;		/* unique stacks in the merged table */
	__u64 procs;		/* address spaces with a map record */
	__u64 procs_max;
	__u64 mem_used;		/* bytes used of the preallocated memory */
	__u64 mem_total;	/* bytes preallocated */
	/* The sampler's own cost, in the timer callback. */
	__u64 cost_ns;		/* total */
	__u64 cost_max_ns;
	__u64 cost_hist[FLAMESTAT_COST_BUCKETS];
	/* Time. */
	__u64 running_ns;	/* time spent running since the last reset */
	__u32 state;		/* FLAMESTAT_STATE_* */
	__u32 nr_cpus;		/* CPUs sampled (stats: 0 when stopped) */
	/*
	 * The process database never waits for a file system. Files whose
	 * build-id note was not in the page cache (no I/O is done): path and
	 * offsets only, looked for again later. Map scans put off because
	 * the address space's mmap_lock was held. Scans that could not
	 * record every executable mapping: more than one scan records
	 * (4096), or a file for which no record was left (the module keeps
	 * max(max_procs, 1024) file records and maps_kb of names; those of
	 * exited processes are reclaimed): frames in those stay unmapped.
	 */
	__u64 buildid_uncached;
	__u64 maps_busy;
	__u64 maps_truncated;
	/*
	 * The longest bucket probe of a stack table since the last reset:
	 * stacks compared, at most FLAMESTAT_PROBE_MAX (0 from modules
	 * older than this field).
	 */
	__u64 probe_max;
	/*
	 * Bytes readers make the module hold now (table copies, snapshots
	 * kept by descriptors, the text merge), at most the module parameter
	 * reader_kb: past it a reader gets ENOBUFS.
	 */
	__u64 reader_mem;
	/*
	 * Slots of exited processes given to new ones once procs_max ran
	 * low, oldest exit first: the stacks of each such process show its
	 * user frames unmapped from then on (proc_id 0 in snapshots).
	 */
	__u64 procs_recycled;
	/*
	 * Off-CPU time (MODE_OFFCPU, MODE_WALL; 0 from modules before ABI
	 * 1.1). Exact: offcpu_blocks == offcpu_recorded + sum(offcpu_dropped).
	 * A block is counted when the task switches in again (or when
	 * sampling stops while it is still blocked: UNFINISHED), a block
	 * with no room for its stack when it switches out (NO_SLOT).
	 */
	__u64 offcpu_blocks;
	__u64 offcpu_recorded;
	__u64 offcpu_dropped[FLAMESTAT_MAX_OFFDROPS]; /* by enum flamestat_offcpu_drop */
	__u64 offcpu_ns;	/* time off a CPU in the recorded blocks */
	__u64 offcpu_tasks;	/* tasks blocked now with their stacks kept */
	__u64 offcpu_tasks_max;	/* room for them (module parameter offcpu_tasks) */
	/*
	 * User stacks by how they were walked (0 from modules before unwind
	 * tables): with unwind tables only; with tables and, in code that
	 * had none yet, frame pointers; with frame pointers only (UNWIND_FP,
	 * or no table anywhere in the stack). Recorded samples with a user
	 * stack of 64-bit code are in exactly one of them.
	 */
	__u64 unwind_table;
	__u64 unwind_mixed;
	__u64 unwind_fp;
	__u64 unwind_stop[FLAMESTAT_MAX_UNWIND_STOPS]; /* by enum flamestat_unwind_stop */
	__u64 unwind_tables;	/* mapped files with a table now */
	__u64 unwind_bytes;	/* their memory, at most the module parameter unwind_kb */
	/*
	 * Files whose .eh_frame was not in the page cache (it is read only
	 * from there, never from the disk by the module itself: readahead
	 * was started where the filesystem has a block device): tried
	 * again when a later scan meets them.
	 */
	__u64 unwind_uncached;
	__u64 unwind_failed[FLAMESTAT_MAX_UNWIND_FAILS]; /* files, by enum flamestat_unwind_fail */
};

/* FLAMESTAT_IOC_VERSION: what this module is and offers. */
struct flamestat_version {
	__u32 abi_version;	/* FLAMESTAT_ABI_VERSION of the module */
	__u32 nr_cpu_ids;
	char module_version[32];
	__u64 reserved[4];
};

/* struct flamestat_snapshot.flags */
/*
 * Empty the table once copied, so that consecutive snapshots partition the
 * samples. A snapshot that fails (ENOBUFS, ENOMEM) empties nothing: the
 * next one has them.
 */
#define FLAMESTAT_SNAP_CLEAR	(1U << 0)
/*
 * In: compress the snapshot, a zlib stream (RFC 1950) of it, if this
 * kernel can (zlib built in): about four times fewer bytes to read. Out:
 * FLAMESTAT_SNAP_DEFLATED says that it was; without it the snapshot is
 * plain (no zlib in this kernel, or no memory to compress: nothing is
 * lost, CLEAR included). Modules older than the flag answer EINVAL and
 * change nothing, CLEAR included: ask again without it.
 */
#define FLAMESTAT_SNAP_DEFLATE	(1U << 1)
#define FLAMESTAT_SNAP_ALL	(FLAMESTAT_SNAP_CLEAR | FLAMESTAT_SNAP_DEFLATE)
#define FLAMESTAT_SNAP_DEFLATED	(1U << 31) /* out only */

/*
 * FLAMESTAT_IOC_SNAPSHOT: fold every CPU's samples in and serialise the
 * table into a buffer kept with the open file; size says how big it is.
 * FLAMESTAT_IOC_READ then copies it out, in one or several pieces.
 */
struct flamestat_snapshot {
	__u32 flags;		/* in: FLAMESTAT_SNAP_* */
	__u32 reserved;		/* must be zero */
	__u64 size;		/* out: bytes in the snapshot */
};

struct flamestat_read {
	__u64 buf;		/* user pointer */
	__u64 offset;		/* into the snapshot */
	__u64 len;		/* bytes wanted */
	__u64 copied;		/* out: bytes copied (0 at the end) */
};

#define FLAMESTAT_IOC_MAGIC	0xF1
#define FLAMESTAT_IOC_VERSION	_IOR(FLAMESTAT_IOC_MAGIC, 0, struct flamestat_version)
#define FLAMESTAT_IOC_GET_CONFIG _IOR(FLAMESTAT_IOC_MAGIC, 1, struct flamestat_config)
/*
 * SET_CONFIG: counts are numbers of samples, each worth one period, so
 * the frequency cannot change under samples taken at another: a new
 * freq_hz fails with EBUSY, changing nothing, once anything was sampled
 * since the last RESET (or SNAPSHOT with FLAMESTAT_SNAP_CLEAR). While
 * sampling runs that can be at any moment: STOP, RESET, SET_CONFIG,
 * START. The other fields change at any time.
 */
#define FLAMESTAT_IOC_SET_CONFIG _IOW(FLAMESTAT_IOC_MAGIC, 2, struct flamestat_config)
#define FLAMESTAT_IOC_START	_IO(FLAMESTAT_IOC_MAGIC, 3)
#define FLAMESTAT_IOC_STOP	_IO(FLAMESTAT_IOC_MAGIC, 4)
#define FLAMESTAT_IOC_RESET	_IO(FLAMESTAT_IOC_MAGIC, 5)
#define FLAMESTAT_IOC_GET_STATS	_IOR(FLAMESTAT_IOC_MAGIC, 6, struct flamestat_stats)
/*
 * GET_STATS of modules without off-CPU support, which copy struct
 * flamestat_stats up to procs_recycled: a tool that gets ENOTTY for
 * GET_STATS asks again with this one. Newer modules answer both, and any
 * size in between (each copies the fields the size covers).
 */
#define FLAMESTAT_STATS_SIZE_V1 __builtin_offsetof(struct flamestat_stats, offcpu_blocks)
/* Up to offcpu_tasks_max: modules with off-CPU time, before unwind tables. */
#define FLAMESTAT_STATS_SIZE_V2 __builtin_offsetof(struct flamestat_stats, unwind_table)
#define FLAMESTAT_IOC_GET_STATS_V2 \
	_IOC(_IOC_READ, FLAMESTAT_IOC_MAGIC, 6, FLAMESTAT_STATS_SIZE_V2)
#define FLAMESTAT_IOC_GET_STATS_V1 \
	_IOC(_IOC_READ, FLAMESTAT_IOC_MAGIC, 6, FLAMESTAT_STATS_SIZE_V1)
#define FLAMESTAT_IOC_SNAPSHOT	_IOWR(FLAMESTAT_IOC_MAGIC, 7, struct flamestat_snapshot)
#define FLAMESTAT_IOC_READ	_IOWR(FLAMESTAT_IOC_MAGIC, 8, struct flamestat_read)
/* Exclusive control: others get -EBUSY for configure/start/stop/reset. */
#define FLAMESTAT_IOC_CLAIM	_IO(FLAMESTAT_IOC_MAGIC, 9)
#define FLAMESTAT_IOC_UNCLAIM	_IO(FLAMESTAT_IOC_MAGIC, 10)
/*
 * Take the claim from whichever file holds it (a tool that hangs, a group
 * member who keeps the profiler): CAP_SYS_ADMIN only (EPERM). The former
 * holder's next control operation fails with EBUSY. A module older than
 * this ioctl answers ENOTTY.
 */
#define FLAMESTAT_IOC_CLAIM_FORCE _IO(FLAMESTAT_IOC_MAGIC, 11)

/*
 * Binary snapshot: a header, then records. Every record starts with
 * struct flamestat_rec and is padded to a multiple of 8 bytes; readers skip
 * record types they do not know. Records that others refer to (FILE, PROC,
 * MAP, KSYM) come before the STACK records that use them. A record may
 * grow at its end in a later module (FLAMESTAT_ABI_VERSION unchanged):
 * readers take the fields hdr.size covers and ignore the rest.
 */
#define FLAMESTAT_SNAP_MAGIC	0x504e5346 /* "FSNP" little endian */

/* struct flamestat_snap_header.flags */
#define FLAMESTAT_SNAPF_KADDR_HIDDEN (1U << 0) /* kernel frames are KSYM ids */
#define FLAMESTAT_SNAPF_LOCKDOWN    (1U << 1) /* kernel stacks withheld */

struct flamestat_snap_header {
	__u32 magic;		/* FLAMESTAT_SNAP_MAGIC */
	__u16 abi_version;	/* FLAMESTAT_ABI_VERSION */
	__u16 header_size;	/* sizeof(struct flamestat_snap_header) */
	__u64 total_size;	/* header + records, bytes */
	__u32 flags;		/* FLAMESTAT_SNAPF_* */
	__u32 nr_records;
	__u64 boottime_ns;	/* CLOCK_BOOTTIME when taken */
	struct flamestat_config config;
	struct flamestat_stats stats;
};

enum flamestat_rec_type {
	FLAMESTAT_REC_FILE = 1,	/* a mapped file: path and build-id */
	FLAMESTAT_REC_PROC = 2,	/* an address space (process) */
	FLAMESTAT_REC_MAP = 3,	/* a PROC's executable mapping a frame is in */
	FLAMESTAT_REC_KSYM = 4,	/* name of a kernel frame value */
	FLAMESTAT_REC_STACK = 5, /* a unique stack and its count */
	FLAMESTAT_REC_HOST = 16, /* added by the tool to saved .fstat files */
};

struct flamestat_rec {
	__u16 type;		/* enum flamestat_rec_type */
	__u16 reserved;
	__u32 size;		/* bytes, this header included, multiple of 8 */
};

struct flamestat_rec_file {
	struct flamestat_rec hdr;
	__u32 file_id;		/* > 0, unique in this snapshot */
	__u32 build_id_size;	/* 0: no build-id note found */
	__u8 build_id[FLAMESTAT_BUILD_ID_SIZE];
	__u32 path_len;		/* strlen(path) */
	__u64 dev;		/* st_dev, new_encode_dev() form */
	__u64 ino;
	/*
	 * NUL-terminated. Relative to the root of the processes whose MAP
	 * records name this file: a process with FLAMESTAT_PROCF_OWN_ROOT
	 * (chroot, container) finds it under /proc/TGID/root while it lives;
	 * the host's root for the others. A file seen from two roots has a
	 * record for each.
	 */
	char path[];
};

/* struct flamestat_rec_proc.flags */
#define FLAMESTAT_PROCF_EXITED	(1U << 0) /* gone before the snapshot */
#define FLAMESTAT_PROCF_COMPAT	(1U << 1) /* 32-bit task */
#define FLAMESTAT_PROCF_NOMAPS	(1U << 2) /* maps could not be recorded */
/* Its root is not the host's: its FILE paths are relative to its root. */
#define FLAMESTAT_PROCF_OWN_ROOT (1U << 3)
/*
 * Gone before its root could be read: its FILE paths are as the host sees
 * them, or from the top of its mount namespace if the host cannot reach
 * the file; mnt_ns and root_* are 0.
 */
#define FLAMESTAT_PROCF_ROOT_UNKNOWN (1U << 4)

struct flamestat_rec_proc {
	struct flamestat_rec hdr;
	__u32 proc_id;		/* > 0, referred to by MAP and STACK */
	__u32 tgid;		/* in the initial pid namespace */
	__u32 ns_tgid;		/* as the process saw itself (perf-PID.map) */
	__u32 flags;		/* FLAMESTAT_PROCF_* */
	char comm[FLAMESTAT_COMM_LEN]; /* of the thread first seen */
	/* Where its files are: present when hdr.size >= 64 (older: 40). */
	__u64 mnt_ns;		/* inode of /proc/TGID/ns/mnt; 0: unknown */
	__u64 root_dev;		/* its root directory (OWN_ROOT), st_dev form */
	__u64 root_ino;
};

/* struct flamestat_rec_map.flags */
#define FLAMESTAT_MAPF_ANON	(1U << 0) /* no file: JIT or anonymous code */
#define FLAMESTAT_MAPF_VDSO	(1U << 1)

struct flamestat_rec_map {
	struct flamestat_rec hdr;
	__u32 proc_id;
	__u32 file_id;		/* 0 when ANON or VDSO */
	__u64 start;		/* user virtual address range [start, end) */
	__u64 end;
	__u64 pgoff;		/* file offset of start, bytes */
	__u32 flags;		/* FLAMESTAT_MAPF_* */
	__u32 generation;	/* higher = seen later; newer wins on overlap */
};

struct flamestat_rec_ksym {
	struct flamestat_rec hdr;
	__u64 value;		/* frame value as it appears in STACK records */
	__u32 offset;		/* of the address into the symbol */
	__u32 name_len;
	char name[];		/* "symbol" or "symbol [module]", NUL-terminated */
};

/* struct flamestat_rec_stack.flags */
#define FLAMESTAT_STACKF_KERNEL_TRUNCATED (1U << 0)
#define FLAMESTAT_STACKF_USER_TRUNCATED	  (1U << 1)
#define FLAMESTAT_STACKF_USER_FAULT	  (1U << 2)
#define FLAMESTAT_STACKF_COMPAT		  (1U << 3)
#define FLAMESTAT_STACKF_IDLE		  (1U << 4) /* the CPU was idle */
#define FLAMESTAT_STACKF_IDLE_IRQ	  (1U << 5) /* irq work on idle CPU */
#define FLAMESTAT_STACKF_KERNEL_THREAD	  (1U << 6)
#define FLAMESTAT_STACKF_USER_MODE	  (1U << 7) /* interrupted user code */
/*
 * Off-CPU time (MODE_OFFCPU, MODE_WALL): the stack where the task switched
 * out, and the state it left in: sleeping (S, neither flag), uninterruptible
 * (D: OFF_D) or preempted while runnable (R: OFF_R, waiting for a CPU).
 * count is the number of blocks, time_ns their total.
 */
#define FLAMESTAT_STACKF_OFFCPU		  (1U << 8)
#define FLAMESTAT_STACKF_OFF_D		  (1U << 9)
#define FLAMESTAT_STACKF_OFF_R		  (1U << 10)
/* The waker's stack was cut at kernel_depth. */
#define FLAMESTAT_STACKF_WAKER_TRUNCATED  (1U << 11)
/*
 * How the user frames were found: UNWIND_TABLE alone, by the files'
 * unwind tables; UNWIND_FP alone, by frame pointers; both, by tables and,
 * in code with none yet, frame pointers. UNWIND_STOPPED: a walk with
 * tables ended before the outermost frame (why: unwind_stop in the
 * stats); without it a walk by tables reached the end of the stack.
 */
#define FLAMESTAT_STACKF_UNWIND_TABLE	  (1U << 12)
#define FLAMESTAT_STACKF_UNWIND_FP	  (1U << 13)
#define FLAMESTAT_STACKF_UNWIND_STOPPED	  (1U << 14)

#define FLAMESTAT_CPU_ANY	0xffffU	/* stack key without CFG_PERCPU */

/*
 * A unique stack. frames[] holds nr_kernel kernel frames, leaf first, then
 * nr_user user frames, leaf first. frames[0] of each part is the
 * interrupted instruction; the rest are return addresses (off-CPU stacks:
 * all are, the kernel part starting in the scheduler).
 */
struct flamestat_rec_stack {
	struct flamestat_rec hdr;
	__u64 count;
	__u32 proc_id;		/* 0: no map record (kernel thread, untracked) */
	__u32 tgid;		/* initial pid namespace; 0 for idle */
	__u16 cpu;		/* FLAMESTAT_CPU_ANY unless CFG_PERCPU */
	__u16 nr_kernel;
	__u16 nr_user;
	__u16 nr_waker;		/* 0 from modules without off-CPU support */
	__u32 flags;		/* FLAMESTAT_STACKF_* */
	char comm[FLAMESTAT_COMM_LEN];
	__u32 pad;
	/*
	 * nr_kernel + nr_user frames, then, when hdr.size covers it, a __u64:
	 * the sampling periods the count samples stand for (>= count). A
	 * sample stands for one period, plus the periods its CPU's timer
	 * missed by firing late and those it skipped while throttled, up to
	 * its next firing: periods x the period (1 s / freq_hz) is the CPU
	 * time the stack had. Modules before it: the periods are the count.
	 * Off-CPU stacks: the periods are the count.
	 *
	 * Then, when hdr.size covers it (modules with off-CPU support), a __u64: the stack's time
	 * in nanoseconds: periods x the period for on-CPU stacks, the time
	 * blocked for off-CPU stacks.
	 *
	 * Then nr_waker kernel frames (return addresses, leaf first) of the
	 * task that woke this one: off-CPU stacks with CFG_WAKER only.
	 */
	__u64 frames[];
};

/*
 * Where and when a saved recording was made; the module never emits it.
 * Lets the tool tell whether the recording is from the running boot (the
 * files and vDSO it names are then those on this machine now).
 */
struct flamestat_rec_host {
	struct flamestat_rec hdr;
	char boot_id[48];	/* /proc/sys/kernel/random/boot_id */
	char release[72];	/* uname -r */
	char hostname[72];
	__u64 realtime_ns;	/* CLOCK_REALTIME when saved */
};

#endif /* _UAPI_FLAMESTAT_H */
