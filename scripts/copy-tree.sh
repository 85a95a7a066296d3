#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copies a flamestat source tree the way a fresh checkout holds it, plus
# uncommitted work: tracked and untracked files that git does not ignore,
# and no build products. Outside a git checkout (a release tarball), the
# tree minus version-control files and what its ignore files exclude.
#
#   scripts/copy-tree.sh SRC DEST
#
# DEST is created if needed; files already there are overwritten.
set -u
[ $# -eq 2 ] || { echo "usage: scripts/copy-tree.sh SRC DEST" >&2; exit 2; }
src=$1 dest=$2
mkdir -p "$dest" && dest=$(cd "$dest" && pwd) || exit 1
if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	# A file deleted but not yet staged is still listed: skipped.
	(cd "$src" && git ls-files -z --cached --others --exclude-standard |
		while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
		cpio -0 -pdm --quiet "$dest")
else
	tar -C "$src" --exclude-vcs --exclude-vcs-ignores -cf - . | tar -C "$dest" -xf -
fi || { echo "scripts/copy-tree.sh: cannot copy $src to $dest" >&2; exit 1; }
