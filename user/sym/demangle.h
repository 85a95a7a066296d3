/* SPDX-License-Identifier: GPL-2.0 */
/* Demangling of C++ (Itanium ABI) and Rust (legacy and v0) symbol names. */
#ifndef FLAMESTAT_DEMANGLE_H
#define FLAMESTAT_DEMANGLE_H

#include <stdbool.h>

/*
 * The demangled form of name in a malloc'd string, or NULL when name is not
 * a C++ ("_Z...") or Rust ("_ZN...17h<hash>E", "_R...") mangled name or does
 * not parse as one. The work is done by libiberty, the demangler of binutils
 * and gdb, so names read the way c++filt and gdb print them.
 *
 * Names are printed the way perf does by default: without the parameter list
 * and without clone suffixes, so "foo(int)" and its "foo(int) [clone .cold]"
 * part both become "foo" and merge in a flame graph. Rust legacy names lose
 * their "::h<16 hex>" hash like rustfilt prints them; ".llvm.<digits>"
 * suffixes from LTO are accepted.
 */
char *demangle(const char *name);

/* True when name has a prefix demangle() tries ("_Z" or "_R"). */
bool demangle_is_candidate(const char *name);

#endif
