/* SPDX-License-Identifier: GPL-2.0 */
#ifndef FS_LIBNOFP_H
#define FS_LIBNOFP_H

/* Calls fn n times, each with a value derived from the results so far. */
unsigned long nf_lib_apply(unsigned long (*fn)(unsigned long), unsigned long n);

unsigned long nf_lib_nop(unsigned long x);

#endif /* FS_LIBNOFP_H */
