// SPDX-License-Identifier: GPL-2.0
/* Demangling of C++ and Rust symbol names through libiberty. */
#include "sym/demangle.h"

#include <libiberty/demangle.h>
#include <stddef.h>

bool demangle_is_candidate(const char *name)
{
	return name[0] == '_' && (name[1] == 'Z' || name[1] == 'R');
}

char *demangle(const char *name)
{
	char *out;

	if (!demangle_is_candidate(name))
		return NULL;
	/*
	 * Rust first: a legacy Rust name is also a valid Itanium name, and
	 * the C++ demangler would print the hash as a last path component.
	 * The Rust demangler only accepts names carrying the hash (legacy)
	 * or starting with "_R" (v0), so C++ names fall through.
	 */
	out = cplus_demangle(name, DMGL_RUST);
	if (out)
		return out;
	if (name[1] != 'Z')
		return NULL;
	/*
	 * No DMGL_PARAMS: the parameter list (and clone suffixes, which
	 * libiberty only prints with it) would split one function into
	 * several frames. DMGL_AUTO is avoided on purpose: it also tries the
	 * Ada and D demanglers, which rewrite plain C names.
	 */
	return cplus_demangle(name, DMGL_GNU_V3);
}
