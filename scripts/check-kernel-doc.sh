#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Checks the module's kernel-doc: every function of kmod/ that other files
# can call (not static) has a kernel-doc comment right above its
# definition, named after it, and the kernel's own scripts/kernel-doc
# reports nothing in any comment of kmod/.
#
# Usage: scripts/check-kernel-doc.sh [KDIR]. kernel-doc comes from KDIR's
# scripts/ (the kernel headers carry it), else from any installed headers.
# Prints one line per problem; exits 1 if there is any.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
kdir=${1:-${KDIR:-}}

kdoc=
for d in "$kdir" /lib/modules/*/build /usr/src/linux-headers-*; do
	if [ -n "$d" ] && [ -f "$d/scripts/kernel-doc" ]; then
		kdoc=$d/scripts/kernel-doc
		break
	fi
done
if [ -z "$kdoc" ]; then
	echo "no scripts/kernel-doc in KDIR or any installed kernel headers (install linux-headers-\$(uname -r))" >&2
	exit 2
fi

cd "$top" || exit 2
srcs=$(ls kmod/*.c kmod/arch/*/*.c | grep -v '\.mod\.c$')
hdrs=$(ls kmod/*.h kmod/arch/*/*.h)

# A definition starts at column 0 with a return type and the name, or with
# the name alone after a line holding the return type. Static functions,
# declarations (ending in ';') and macros in capitals are skipped.
missing=$(awk '
	FNR == 1 { prev = ""; inblk = 0; docname = ""; docend = -1 }
	/^\/\*\*/ { inblk = 1; docname = ""; first = 1; next }
	inblk && first && /^ \* [a-z_0-9]+\(\) - / {
		docname = $2; sub(/\(\)$/, "", docname); first = 0
	}
	inblk && /\*\// { inblk = 0; docend = FNR; next }
	inblk { first = 0; next }
	/^[a-z_][a-z_0-9]*\(/ && prev ~ /^[a-z]/ && prev !~ /^static/ && prev !~ /;$/ {
		name = $0; sub(/\(.*/, "", name)
		check(name, FNR - 2)
	}
	/^[a-z].*[ *][a-z_0-9]+\(/ && !/^static/ && !/;$/ && !/^(module_|MODULE_|EXPORT_)/ {
		name = $0; sub(/\(.*/, "", name); sub(/.*[ *]/, "", name)
		check(name, FNR - 1)
	}
	{ prev = $0 }
	function check(name, line) {
		if (docend != line || docname != name)
			printf "%s:%d: %s() has no kernel-doc comment\n", FILENAME, FNR, name
	}
' $srcs)

out=$(perl "$kdoc" -none $srcs $hdrs 2>&1)
rc=0
if [ -n "$missing" ]; then
	echo "$missing"
	rc=1
fi
if [ -n "$out" ]; then
	echo "$out"
	rc=1
fi
exit $rc
