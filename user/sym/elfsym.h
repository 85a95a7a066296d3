/* SPDX-License-Identifier: GPL-2.0 */
/* A cache of per-file ELF symbol tables that maps file offsets to functions. */
#ifndef FLAMESTAT_ELFSYM_H
#define FLAMESTAT_ELFSYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * The module records each user frame as (mapped file, offset into that
 * file, build-id of the file). This cache turns such a frame into a
 * function name, once per file:
 *
 * Key. A file is keyed by its recorded path and build-id, so one path seen
 * with two build-ids (a binary replaced while profiling) is two entries.
 * Each key is loaded at most once; failures are cached too.
 *
 * Which file is trusted. When a build-id was recorded, the file at the path
 * is used only if it carries the same build-id (for a recorded build-id of
 * FLAMESTAT_BUILD_ID_SIZE bytes, a longer on-disk one must start with it).
 * Otherwise the file was replaced since the recording and its symbols would
 * name the wrong functions, so it is ignored and only a debug file found by
 * the build-id can resolve the frame. Without a recorded build-id the file
 * at the path is trusted if it is the recorded inode: elfsym_open_inode()
 * with the device and inode the module recorded (a rebuilt binary is a new
 * file: GNU ld and lld unlink the old one), except where they cannot be
 * compared (a sysroot holds copies; overlayfs reports other numbers; on
 * btrfs only the inode is compared, st_dev being the subvolume's). An
 * inode freed and given to the rebuilt file goes unnoticed: the module
 * records no mtime or i_generation. A path ending in " (deleted)" without
 * build-id is never trusted: the file now at the path (without the
 * suffix) cannot be verified.
 *
 * Symbols. Read with libelf from .symtab and .dynsym, merged (a .symtab may
 * hold only local symbols, as with MiniDebugInfo). When the file has no
 * .symtab, a separate debug file supplies one, found in this order:
 *   <debug_root>/.build-id/<xx>/<rest>.debug (its build-id must match),
 *   .gnu_debuglink: <dir>/<name>, <dir>/.debug/<name>,
 *                   <debug_root><dir>/<name> (the build-id must match;
 *                   when either file has none, the link's CRC32),
 *   MiniDebugInfo:  the xz-compressed ELF in the file's .gnu_debugdata
 *                   (Fedora, RHEL), whose .symtab holds the functions
 *                   .dynsym lacks, as gdb and perf read it;
 *   then, with opts.debuginfod only, the debuginfod servers (debuginfod.h).
 * Kept: STT_FUNC and STT_GNU_IFUNC defined symbols, and STT_NOTYPE symbols
 * in executable sections (hand-written assembly) whose name does not start
 * with '.' or '$' (assembler and annotation labels). A "@VERSION" or
 * "@@VERSION" suffix is dropped from names.
 *
 * Aliases. Of several symbols at one address, one is kept by these rules in
 * order: function type over NOTYPE, sized over zero-sized, global over weak
 * over local binding, fewer leading underscores, shorter name, then byte
 * order of the name. So glibc's malloc wins over __libc_malloc.
 *
 * Sizes. A zero-sized symbol extends to the next symbol's address but not
 * past the end of its executable section; a size reaching past the end of
 * its section (a damaged file) is cut there. A symbol is matched only inside
 * [address, address + size): addresses in padding between functions stay
 * unresolved rather than being charged to the previous function.
 *
 * File offset to address. The offset is converted to an ELF virtual address
 * through the PT_LOAD program header that contains it (vaddr = offset -
 * p_offset + p_vaddr), the way the loader mapped it. This makes PIE
 * executables, shared libraries and fixed-address executables work alike.
 * A separate debug file keeps the program headers but not their file
 * offsets (objcopy --only-keep-debug rewrites them); when the symbols can
 * only come from such a file, the original offsets are reconstructed the
 * way GNU ld and lld lay out segments: each segment starts at the first
 * offset after the previous one that is congruent to its address modulo
 * its alignment. elfsym_cache_dump() marks such files "layout guessed".
 *
 * Return addresses. Every frame but the interrupted one is a return
 * address: the instruction after a call. When the call is the last
 * instruction of a function (a call to a noreturn function), the return
 * address is the first byte of the next function. Callers pass
 * is_return_addr for those frames and the lookup uses offset - 1, which
 * always lies inside the call instruction. The offset reported in the
 * result is still that of the address given.
 *
 * Frame pointers. elfsym_file_cfa() says, for an address, whether a walk
 * of the frame-pointer chain from there finds the caller of its function:
 * only where the file's call frame information (.eh_frame, read with libdw
 * on first use from the same file the segments came from, by device and
 * inode) computes the canonical frame address from the frame pointer
 * (%rbp, %ebp). Elsewhere (from %rsp: code built without frame pointers,
 * or the first and last instructions of any function) the frame pointer
 * still holds the caller's frame, and the walk's next frame is the caller's
 * caller. AArch64: where x29 points at the frame record the rules save
 * (elfsym_cfi_a64.c, which reads the code to tell). A file without
 * .eh_frame (AArch32's have .ARM.exidx instead), an address without an
 * FDE, an entry whose symbols came from a debug file alone (no binary) or
 * a file replaced since: unknown.
 *
 * PLT stubs have no symbol: they are named "function@plt" after the GOT
 * slot they jump through (elfsym_plt.c), from the binary itself.
 *
 * Lifetime. Names returned are owned by the cache and stay valid until
 * elfsym_cache_free(). Not thread-safe.
 */

struct elfsym_cache;
struct elfsym_file;

/* Longest build-id compared; longer notes are compared on this prefix. */
#define ELFSYM_BUILD_ID_MAX	64

struct elfsym_opts {
	/* Prefix for recorded paths (a guest's root, a container's). */
	const char *sysroot;		/* NULL or "": none */
	/* Root of separate debug files; default <sysroot>/usr/lib/debug. */
	const char *debug_root;		/* NULL: the default */
	bool raw;			/* keep mangled names as they are */
	/*
	 * Fetch debug files not found here by build-id from debuginfod
	 * servers (sym/debuginfod.h): last, after the local places above.
	 * Off by default: nothing is fetched unless asked.
	 */
	bool debuginfod;
	const char *debuginfod_urls;	/* NULL: $DEBUGINFOD_URLS */
};

enum elfsym_status {
	ELFSYM_OK,			/* symbols loaded */
	ELFSYM_MISSING,			/* no file at the path, no debug file */
	ELFSYM_NOT_ELF,			/* unreadable, not ELF, or damaged */
	ELFSYM_NO_SYMBOLS,		/* ELF without usable symbols */
	ELFSYM_BUILD_ID_MISMATCH,	/* file replaced, no debug file */
	ELFSYM_UNVERIFIED,		/* "(deleted)" path without build-id */
	ELFSYM_INODE_MISMATCH,		/* no build-id, another inode now */
	ELFSYM_UNANSWERED,		/* its file system did not answer */
};

struct elfsym_result {
	const char *name;	/* demangled unless raw; NULL: unresolved */
	uint64_t offset;	/* of the given address into the symbol */
	uint64_t vaddr;		/* ELF address of the given offset, if mapped */
};

struct elfsym_stats {
	unsigned long files;		/* keys loaded */
	unsigned long with_symbols;	/* of which ELFSYM_OK */
	unsigned long debug_files;	/* symbols from a separate debug file */
	unsigned long build_id_mismatch; /* file on disk was replaced */
	unsigned long inode_mismatch;	/* the same, seen by device/inode */
	unsigned long symbols;		/* kept, after merging aliases */
	unsigned long lookups;
	unsigned long resolved;
};

struct elfsym_cache *elfsym_cache_new(const struct elfsym_opts *opts);
void elfsym_cache_free(struct elfsym_cache *cache);

/*
 * The entry for (path, build_id), loaded on first use. Never NULL: a file
 * that could not be loaded is an entry without symbols. build_id may be
 * NULL when build_id_len is 0 (the module found no build-id note).
 */
struct elfsym_file *elfsym_open(struct elfsym_cache *cache, const char *path,
				const unsigned char *build_id,
				size_t build_id_len);

/*
 * elfsym_open() of a file the module recorded on device @dev (the kernel's
 * new_encode_dev() form) and inode @ino: without a build-id, the file at
 * the path is used only if it is that inode (see above). dev and ino 0:
 * not known, as elfsym_open(). Part of the key when build_id_len is 0.
 */
struct elfsym_file *elfsym_open_inode(struct elfsym_cache *cache,
				      const char *path,
				      const unsigned char *build_id,
				      size_t build_id_len, uint64_t dev,
				      uint64_t ino);

/*
 * An entry for an ELF image in memory (the vDSO), copied; name is its key
 * and is matched against later calls, not opened.
 */
struct elfsym_file *elfsym_open_image(struct elfsym_cache *cache,
				      const char *name, const void *image,
				      size_t size);

/*
 * Resolve an offset into the file. Returns true and fills out->name when a
 * symbol covers it; false (out->name NULL) otherwise.
 */
bool elfsym_file_lookup(struct elfsym_file *file, uint64_t file_offset,
			bool is_return_addr, struct elfsym_result *out);

/* elfsym_open() and elfsym_file_lookup() in one call. */
bool elfsym_lookup(struct elfsym_cache *cache, const char *path,
		   const unsigned char *build_id, size_t build_id_len,
		   uint64_t file_offset, bool is_return_addr,
		   struct elfsym_result *out);

enum elfsym_cfa {
	ELFSYM_CFA_UNKNOWN,	/* no frame rule for the address */
	ELFSYM_CFA_FP,		/* from the frame pointer: its frame is set up */
	ELFSYM_CFA_NO_FP,	/* from another register: no frame record */
};

/* How the canonical frame address is found at file_offset (see above). */
enum elfsym_cfa elfsym_file_cfa(struct elfsym_file *file, uint64_t file_offset);

enum elfsym_status elfsym_file_status(const struct elfsym_file *file);
/* The path the entry was opened with, as recorded. */
const char *elfsym_file_path(const struct elfsym_file *file);
const char *elfsym_status_str(enum elfsym_status status);

void elfsym_cache_stats(const struct elfsym_cache *cache,
			struct elfsym_stats *st);

/*
 * One line per file, sorted by path, for verbose output: path, build-id,
 * status, number of symbols (and of PLT stubs named) and the file they
 * came from.
 */
void elfsym_cache_dump(const struct elfsym_cache *cache, FILE *out);

#endif
