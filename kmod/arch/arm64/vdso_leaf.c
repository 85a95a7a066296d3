// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 kernels build their vDSO without unwind information (the kernel's
 * -fno-asynchronous-unwind-tables), and its functions are leaves that keep
 * no frame: clock_gettime() and the rest never call, never touch SP, x29 or
 * x30 (but to sign x30 in place, PACIASP), and use no stack. In such code
 * the caller is found exactly: CFA = SP, the return address in the link
 * register, the frame pointer the caller's. The frame-record walk, by
 * contrast, loses the caller (glibc's clock_gettime, which has a frame
 * record, is skipped, and with it often every frame up to main).
 *
 * That rule is used only where it is proven here, instruction by
 * instruction, over each function the vDSO exports: one instruction that
 * could call, write SP, x29 or x30, or address the stack, and that
 * function keeps the frame-record walk (7.x's getrandom(), which keeps a
 * frame, does). The test is conservative (it refuses more than it must,
 * e.g. any store of x29), never the other way.
 */
#include <linux/types.h>

#include "../../arch.h"

/* The register field of bits [4:0] (Rd, Rt), [9:5] (Rn), [14:10] (Rt2). */
#define FST_RD(i)	((i) & 31)
#define FST_RN(i)	(((i) >> 5) & 31)
#define FST_RT2(i)	(((i) >> 10) & 31)

/* Process context: can instruction @i break the leaf rule? */
static bool fst_insn_unsafe(u32 i)
{
	/* B: bits [25:0] are its offset, no register. */
	if ((i & 0xfc000000) == 0x14000000)
		return false;
	/* BL; BLR, BLRAA, BLRAB... (branch to register, opc 0001). */
	if ((i & 0xfc000000) == 0x94000000 ||
	    ((i & 0xfe000000) == 0xd6000000 && ((i >> 21) & 0xf) == 1))
		return true;
	/* Loads and stores: none may use SP as base (no red zone, no frame). */
	if ((i & 0x0a000000) == 0x08000000) {
		if (FST_RN(i) == 31)
			return true;
		/* A pair's second register. */
		if ((i & 0x3a000000) == 0x28000000 &&
		    (FST_RT2(i) == 29 || FST_RT2(i) == 30))
			return true;
	}
	/*
	 * Writes to SP: add/sub (immediate, and with tags) and add/sub
	 * (extended register) without S; logical immediate but ANDS; IRG.
	 */
	if (FST_RD(i) == 31 &&
	    (((i & 0x1f000000) == 0x11000000 && !(i & 0x20000000)) ||
	     ((i & 0x1f200000) == 0x0b200000 && !(i & 0x20000000)) ||
	     ((i & 0x1f800000) == 0x12000000 && (i & 0x60000000) != 0x60000000) ||
	     (i & 0xffe0fc00) == 0x9ac01000))
		return true;
	/* x29 or x30 as the destination, or the source of anything (stores). */
	return FST_RD(i) == 29 || FST_RD(i) == 30;
}

/**
 * fst_arch_vdso_leaf() - is this vDSO function a frameless leaf?
 * @text: its code
 * @len: its length in bytes
 *
 * PACIASP and AUTIASP (hints: Rd is 31) and RET pass; so does the signal
 * trampoline (mov x8; svc), which the walker recognises before any rule.
 *
 * Context: process context.
 * Return: true if the leaf rule holds at every instruction of @text.
 */
bool fst_arch_vdso_leaf(const u8 *text, size_t len)
{
	size_t off;
	u32 insn;

	if (!len || (len & 3))
		return false;
	for (off = 0; off < len; off += 4) {
		insn = text[off] | text[off + 1] << 8 | text[off + 2] << 16 |
		       (u32)text[off + 3] << 24;
		if (fst_insn_unsafe(insn))
			return false;
	}
	return true;
}
