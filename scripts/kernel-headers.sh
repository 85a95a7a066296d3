#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Print the kernel release whose build tree the module should be built
# against when the running kernel has none: the one linux-headers-amd64
# depends on, else the newest /lib/modules/*/build. Prints nothing if none.
set -u
dep=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null |
      sed -n 's/^linux-headers-\([^ ,]*\).*/\1/p')
if [ -n "$dep" ] && [ -f "/lib/modules/$dep/build/Makefile" ]; then
	echo "$dep"
	exit 0
fi
for d in /lib/modules/*/build/Makefile; do
	[ -f "$d" ] || continue
	basename "$(dirname "$(dirname "$d")")"
done | sort -V | tail -n 1
