#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The table keys stacks by process and by exact kernel PC; the text shows
# neither. Two processes running the same program (same comm, same stack)
# must still print one line per stack, with the counts of both, and no
# sample may be lost or counted twice by the merge: after a stop, the
# lines add up to the recorded counter.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

fs_load
wl_bg chain 3
wl_bg chain 3
check "two chains exit 0" wl_wait
check "stop" fs_write stop
check "read" fs_read "$FS_TMP/two.folded"
artifact "$FS_TMP/two.folded"
dups=$(awk '{ sub(/ [0-9]+$/, ""); print }' "$FS_TMP/two.folded" | sort | uniq -d)
[ -z "$dups" ] || printf '%s\n' "$dups" | head -n 5 | sed 's/^/#   duplicate: /'
expect_eq "no line printed twice" "$(printf '%s' "$dups" | grep -c .)" 0
expect_eq "the lines add up to the recorded samples" \
	"$(fs_sum "$FS_TMP/two.folded")" "$(fs_stat recorded)"
expect_ge "both chains sampled" "$(fs_sum "$FS_TMP/two.folded" '^chain;')" 200
check "read again (a new copy, merged again)" fs_read "$FS_TMP/again.folded"
expect_eq "the same lines the second time" "$(sort "$FS_TMP/again.folded" | md5sum)" \
	"$(sort "$FS_TMP/two.folded" | md5sum)"
check "unload" fs_unload
finish
