/* SPDX-License-Identifier: GPL-2.0 */
/* Internals shared by the elfsym*.c files; not for other users. */
#ifndef FLAMESTAT_ELFSYM_INT_H
#define FLAMESTAT_ELFSYM_INT_H

#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sym/elfsym.h"
#include "sym/inline.h"

/*
 * Limits on what a (possibly hostile) file makes us allocate beyond its own
 * size. Real binaries are far below them.
 */
#define MAX_SECTIONS	(1U << 20)
#define MAX_SEGMENTS	4096

/* A symbol kept for lookups. */
struct sym {
	uint64_t addr;
	uint64_t end;		/* exclusive */
	uint64_t cover_end;	/* max end of this and every earlier symbol */
	uint32_t name;		/* offset into file->names */
};

/* A PT_LOAD segment seen as a range of file offsets. */
struct seg {
	uint64_t off;
	uint64_t end;		/* exclusive */
	uint64_t vaddr;		/* of off */
	bool exec;
};

struct elfsym_file {
	struct elfsym_file *next;	/* hash chain */
	struct elfsym_cache *cache;
	char *path;			/* key: as recorded */
	unsigned char build_id[ELFSYM_BUILD_ID_MAX];	/* key */
	size_t build_id_len;
	uint64_t rec_dev, rec_ino;	/* key without build-id; 0: unknown */
	uint64_t hash;
	enum elfsym_status status;
	char *symsrc;			/* file the symbols came from */
	bool layout_guessed;		/* segments reconstructed */
	struct seg *segs;
	size_t nr_segs;
	uint64_t *addrs;		/* syms[i].addr, searched alone */
	struct sym *syms;
	size_t nr_syms;
	size_t nr_plt;			/* of which PLT stubs */
	char *names;			/* NUL-terminated names */
	char **demangled;		/* per symbol, filled on first use */
	/* Frame rules (.eh_frame), read on the first elfsym_file_cfa(). */
	char *cfi_path;			/* the file the segments came from */
	dev_t cfi_dev;
	ino_t cfi_ino;
	bool cfi_tried;
	void *cfi_image;		/* an image's copy (the vDSO) */
	size_t cfi_image_size;
	Elf *cfi_elf;
	struct Dwarf_CFI_s *cfi;	/* libdw's Dwarf_CFI */
	unsigned int cfi_fp;		/* DWARF number of the frame pointer */
	unsigned int cfi_machine;	/* e_machine of the file */
	struct code_cache *code;	/* its code, read on demand (AArch64) */
	/* DWARF for inline frames and lines (inline.c), on first use. */
	struct inline_dwarf *dw;
	bool dw_tried;
};

struct elfsym_cache {
	struct elfsym_opts opts;	/* strings owned */
	char *debug_root;
	struct elfsym_file **buckets;
	size_t nr_buckets;		/* power of two */
	size_t nr_files;
	struct elfsym_stats stats;
	struct debuginfod *dinfod;	/* NULL: no fetching (the default) */
	struct inline_stats inl;	/* inline.c's */
};

/* An opened ELF file (or image) and what identifies it on disk. */
struct ehandle {
	int fd;
	Elf *elf;
	char *path;
	dev_t dev;
	ino_t ino;
	unsigned char build_id[ELFSYM_BUILD_ID_MAX];
	size_t build_id_len;		/* stored bytes */
	size_t build_id_full;		/* bytes in the note */
	void *image;			/* owned memory elf reads, or NULL */
};

/* elfsym_elf.c: opening a file or image. */
void eh_close(struct ehandle *h);
bool eh_check(struct ehandle *h);
int eh_open(struct ehandle *h, const char *path);
bool bid_matches(const unsigned char *want, size_t want_len,
		 const struct ehandle *h);
bool has_symtab(Elf *elf);

/* elfsym_debug.c: the separate debug file. */
void hex_build_id(const unsigned char *bid, size_t len, char *out);
bool debug_by_build_id(struct elfsym_cache *c, const unsigned char *bid,
		       size_t len, struct ehandle *out);
bool debug_by_link(struct elfsym_cache *c, struct ehandle *bin,
		   const char *recorded_path, struct ehandle *out);
/* From the debuginfod servers, when opts.debuginfod (debuginfod.h). */
bool debug_by_debuginfod(struct elfsym_cache *c, const unsigned char *bid,
			 size_t len, struct ehandle *out);

/* inline.c: the entry's DWARF, if it was opened. */
void inline_free(struct elfsym_file *f);

/*
 * elfsym_minidebug.c: the ELF image in @bin's .gnu_debugdata
 * (MiniDebugInfo), decompressed, as @out, if it has a .symtab.
 */
bool minidebug_open(const struct ehandle *bin, struct ehandle *out);

/* elfsym_lookup.c: a file offset to an ELF address, by the segments. */
bool elfsym_offset_to_vaddr(const struct elfsym_file *f, uint64_t off,
			    uint64_t *vaddr);

/* elfsym_cfi.c: the frame rules, from the file (its path, device and
 * inode, opened again on first use) or from an image, whose copy the entry
 * then owns. */
void cfi_source(struct elfsym_file *f, const struct ehandle *h);
void cfi_image(struct elfsym_file *f, void *copy, size_t size);
void cfi_free(struct elfsym_file *f);

/*
 * elfsym_cfi_a64.c: on AArch64, whether x29 points at the frame record of
 * the code at @vaddr, whose row is @frame and whose CFA is computed from
 * sp or (@cfa_on_fp) from x29: the code around @vaddr is read (cfi_code())
 * to tell.
 */
struct Dwarf_Frame_s;
enum elfsym_cfa a64_frame_record(struct elfsym_file *f,
				 struct Dwarf_Frame_s *frame, uint64_t vaddr,
				 bool cfa_on_fp);
/*
 * @len bytes of the file's code at @vaddr, from the file the frame rules
 * came from (opened again, the same inode) or the image; false if they
 * cannot be read. Cached per file in pages; code_free() drops them.
 */
bool cfi_code(struct elfsym_file *f, uint64_t vaddr, void *buf, size_t len);
void code_free(struct elfsym_file *f);

/*
 * elfsym_plt.c: the PLT stubs of @elf (x86-64, i386, AArch64), each given
 * to @add with its address, size and the name of the function it jumps to
 * (the caller adds "@plt"; the name lives as long as @elf).
 */
typedef void plt_add_fn(void *arg, uint64_t addr, uint64_t size,
			const char *name);
void plt_stubs(Elf *elf, plt_add_fn *add, void *arg);

/* elfsym_symtab.c: an entry's symbols and segments. */
void load_symbols(struct elfsym_file *f, struct ehandle *bin,
		  struct ehandle *dbg);
void load_segments(struct elfsym_file *f, Elf *elf, bool guess);

#endif
