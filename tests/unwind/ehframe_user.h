/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's types for the user-space build of ehframe.c (the test that
 * checks its tables against libdw, and the fuzzer): nothing else of the
 * kernel is used there.
 */
#ifndef FLAMESTAT_EHFRAME_USER_H
#define FLAMESTAT_EHFRAME_USER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;

/* glibc's <sys/cdefs.h> has one too, with any of its headers. */
#ifndef __always_inline
#define __always_inline	inline __attribute__((always_inline))
#endif

#endif /* FLAMESTAT_EHFRAME_USER_H */
