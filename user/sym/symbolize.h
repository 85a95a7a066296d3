/* SPDX-License-Identifier: GPL-2.0 */
/* Turns recorded frames into the frame strings of folded output. */
#ifndef FLAMESTAT_SYMBOLIZE_H
#define FLAMESTAT_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sym/elfsym.h"
#include "sym/procroot.h"

/*
 * The one place that decides what a frame looks like in folded output.
 * Every call returns a string; a frame is never dropped:
 *
 *   resolved                      unresolved (or opts.addresses)
 *   user    function name         <file basename>+0x<file offset>
 *   JIT     name from perf map    [anon]+0x<address>
 *   vDSO    function name         [vdso]+0x<offset into the vDSO>
 *   kernel  name, name [module]   0x<address>
 *   no map                        [unknown]+0x<address>
 *
 * Offsets and addresses are lowercase hex, as recorded (a return address is
 * looked up at address - 1, but printed as is). A " (deleted)" suffix is
 * left out of the basename. Names are demangled (C++, Rust) unless
 * opts.raw. With opts.annotate, kernel frames end in "_[k]" and JIT frames
 * in "_[j]", the suffixes flamegraph.pl and inferno colour by (inlined
 * frames, when asked for, in "_[i]": symbolize_user_frames()).
 *
 * Strings are made safe for the folded format: ';' (the frame separator)
 * becomes ':', control characters become '?', and a name that ends in a
 * blank and a number ("Function 42", as JITs name code) gets '_' for
 * that blank ("Function_42"): as the leaf of a folded line it would read
 * as a second count column. An empty name counts as unresolved.
 *
 * Returned strings are owned by the symbolizer and stay valid until
 * symbolizer_free(). The strings of recent user and kernel frames are
 * remembered by (file or kernel, address, is_return_addr), so a frame that
 * recurs in many stacks costs one table probe. Not thread-safe.
 */

struct symbolizer;

struct symbolize_opts {
	const char *sysroot;	/* prefix for recorded file paths */
	const char *debug_root;	/* default <sysroot>/usr/lib/debug */
	const char *perfmap_dir; /* default /tmp */
	const char *proc_root;	/* default /proc (container perf maps) */
	const char *kallsyms;	/* default /proc/kallsyms, read on first use */
	bool raw;		/* keep mangled names */
	bool addresses;		/* addresses instead of names */
	bool annotate;		/* _[k] and _[j] suffixes */
	/*
	 * The recording was taken on this machine since its last boot, so
	 * our own vDSO is the profiled processes' vDSO and can name its
	 * frames (64-bit processes; 32-bit ones: see symbolize_vdso32()).
	 */
	bool local_vdso;
	/*
	 * Optional backends, off by default (sym/inline.h, debuginfod.h):
	 * inline_frames: a user frame expands into the functions inlined
	 * there; lines: frames from DWARF end in " (file.c:LINE)";
	 * debuginfod: fetch missing debug files by build-id.
	 */
	bool inline_frames;
	bool lines;
	bool debuginfod;
	const char *debuginfod_urls;	/* NULL: $DEBUGINFOD_URLS */
	/* Tests: where vdso64.so and vdso32.so are (symbolize_vdso32()). */
	const char *vdso_dir;
	/*
	 * Where the recording was taken when that is not this boot of this
	 * machine ("on host 'a' (this is 'b')"): the first frame named from
	 * this machine's own files, /proc/kallsyms or perf maps (no
	 * --sysroot, --kallsyms or --perfmap-dir given) gets one warning.
	 */
	const char *foreign;
};

struct symbolize_stats {
	unsigned long user, user_resolved;
	unsigned long jit, jit_resolved;
	unsigned long vdso, vdso_resolved;
	unsigned long kernel, kernel_resolved;
	unsigned long unknown;
	unsigned long inlined;		/* frames added by inline_frames */
	double dwarf_seconds;		/* spent on inline frames and lines */
	/* Files replaced since the recording (by build-id or inode). */
	unsigned long replaced_files;
};

struct symbolizer *symbolizer_new(const struct symbolize_opts *opts);
void symbolizer_free(struct symbolizer *s);

/*
 * The symbol table of a recorded file (a FILE record: path, build-id),
 * loaded on first use; look the handle up once per file, then call
 * symbolize_user() per frame. See elfsym.h for how files are trusted.
 */
struct elfsym_file *symbolize_file(struct symbolizer *s, const char *path,
				   const unsigned char *build_id,
				   size_t build_id_len);

/*
 * symbolize_file() of a FILE record with its device (new_encode_dev()
 * form) and inode: without a build-id, a file now at the path that is
 * another inode is not used (elfsym_open_inode()).
 */
struct elfsym_file *symbolize_file_inode(struct symbolizer *s,
					 const char *path, uint64_t dev,
					 uint64_t ino,
					 const unsigned char *build_id,
					 size_t build_id_len);

/*
 * The same for a file of a process with its own root (chroot, container;
 * FLAMESTAT_PROCF_OWN_ROOT): @path is relative to that root and is
 * reached through /proc (sym/procroot.h), never at the host's path of the
 * same name. A file no live process reaches is warned about once, and its
 * frames stay <basename>+0x<offset> (or are named from debug info found by
 * build-id). With opts.sysroot, @path is taken under the sysroot as any.
 */
struct elfsym_file *symbolize_file_in_root(struct symbolizer *s,
					   const struct procroot *root,
					   const char *comm, const char *path,
					   uint64_t dev, uint64_t ino,
					   const unsigned char *build_id,
					   size_t build_id_len);

/* A frame at file_offset in file; is_return_addr for all but the leaf. */
const char *symbolize_user(struct symbolizer *s, struct elfsym_file *file,
			   uint64_t file_offset, bool is_return_addr);

/*
 * symbolize_user() with what DWARF adds, when opts.inline_frames or
 * opts.lines (else it is the one frame of symbolize_user()). The frames go
 * root first, as in folded stacks: the out-of-line function named by its
 * ELF symbol, as symbolize_user() names it, then (inline_frames) each
 * function inlined into it down to the one whose code is at the address,
 * named from DWARF, demangled unless opts.raw, and ending in "_[i]" with
 * opts.annotate. With opts.lines each frame DWARF covers gets
 * " (FILE:LINE)" before that suffix: FILE is a basename, LINE the line
 * being run there (the innermost frame's, from the line table) or the line
 * of the call into the next frame. Without DWARF for the address, or
 * without a symbol (or with opts.addresses), the frame is as
 * symbolize_user() makes it. Returns the number of frames (at least 1);
 * *frames is owned by the symbolizer, valid until symbolizer_free().
 */
size_t symbolize_user_frames(struct symbolizer *s, struct elfsym_file *file,
			     uint64_t file_offset, bool is_return_addr,
			     const char *const **frames);

/*
 * A frame in an anonymous executable mapping of process (tgid, ns_tgid),
 * named from its perf map (see perfmap.h).
 */
const char *symbolize_anon(struct symbolizer *s, uint32_t tgid,
			   uint32_t ns_tgid, uint64_t addr,
			   bool is_return_addr);

/* A frame in the vDSO, offset from the start of its mapping. */
const char *symbolize_vdso(struct symbolizer *s, uint64_t offset,
			   bool is_return_addr);

/*
 * A frame in the vDSO of a 32-bit (compat) process: not our own (64-bit)
 * vDSO, whose offsets are other functions'. With opts.local_vdso, named
 * from the running kernel's vdso32.so where its build is shipped
 * (/lib/modules/RELEASE/vdso/, or under the debug root, as Fedora's and
 * Debian's -dbg packages have it) and proven to be the running kernel's:
 * the 64-bit vDSO beside it has our vDSO's build-id (x86's vdso64.so,
 * arm64's vdso.so, whose compat vDSO for AArch32 tasks is vdso32.so as
 * well). Else [vdso]+0xOFFSET.
 */
const char *symbolize_vdso32(struct symbolizer *s, uint64_t offset,
			     bool is_return_addr);
enum elfsym_cfa symbolize_vdso32_cfa(struct symbolizer *s, uint64_t offset);

/*
 * Whether the frame-pointer walk found the caller of the function at a
 * leaf in the vDSO (elfsym_file_cfa(); for a file's frames, call that on
 * the symbolize_file() handle). Unknown unless opts.local_vdso.
 */
enum elfsym_cfa symbolize_vdso_cfa(struct symbolizer *s, uint64_t offset);

/* A kernel address, named from kallsyms. */
const char *symbolize_kernel(struct symbolizer *s, uint64_t addr,
			     bool is_return_addr);

/*
 * A kernel frame the module already named ("symbol" or "symbol [module]",
 * a KSYM record), so the same policy applies to it. addr is used with
 * opts.addresses or when name is NULL or empty.
 */
const char *symbolize_kernel_named(struct symbolizer *s, const char *name,
				   uint64_t addr);

/* A user address in no recorded mapping. */
const char *symbolize_unknown(struct symbolizer *s, uint64_t addr);

void symbolizer_stats(const struct symbolizer *s, struct symbolize_stats *st);

/*
 * For verbose output: frame counts, then each file and why it did or did
 * not resolve, kallsyms and perf map status.
 */
void symbolizer_dump(const struct symbolizer *s, FILE *out);

#endif
