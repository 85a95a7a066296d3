/* SPDX-License-Identifier: GPL-2.0 */
/* libfsbusy.so: a shared library the libwork workload spends its time in. */
#ifndef FS_LIBFSBUSY_H
#define FS_LIBFSBUSY_H

/* Spins in lib_inner (called by lib_hot) and returns a value to keep. */
unsigned long lib_hot(unsigned long seed);
unsigned long lib_inner(unsigned long seed);

#endif
