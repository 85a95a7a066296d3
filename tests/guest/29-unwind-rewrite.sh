#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A library rewritten in place (same inode, new contents) is not unwound
# with the table built from its old contents (issue 24). nofp runs from a
# copy in /tmp with its libnofp.so beside it (found by $ORIGIN); then the
# library is overwritten with libnofp-v2.so, whose nf_lib_apply lies past
# the end of the first version's code: with the old table its frames
# would have no rule and the walk would fall back to frame pointers,
# which libnofp has none of. Its samples must stay whole, and the table
# must have been built again. Then the same across a reset, with the
# table kept between the two databases.
# timeout: 180
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

SECS=3
RW=$FS_TMP/rw
mkdir -p "$RW"
cp "$FS_WL/nofp" "$FS_WL/libnofp.so" "$RW/"

# whole TAG: nofp -m lib from $RW; >= 99% of its nf_cb samples whole,
# from its second second on (its maps are read after its first samples).
whole() {
	"$RW/nofp" -m lib $((SECS + 1)) &
	_pid=$!
	sleep 1
	# nofp's own frames by name; libnofp.so's by the symbols of the
	# first version, which the second's addresses do not match.
	sample_window "$1" nofp "$1: nofp -m lib" wait "$_pid"
	whole_count "$1" nf_cb 'nf_via_lib;(nf_lib_apply|libnofp\.so\+0x[0-9a-f]+);nf_cb'
	expect_whole "$1" nf_cb 200
}

fs_load
# Warm-up: the tables of this nofp, its libnofp.so and libc.
check "warm-up" "$RW/nofp" -m lib 1
whole first
t1=$(fs_stat unwind_tables)
# In place: the same inode, truncated and written.
ino1=$(stat -c %i "$RW/libnofp.so")
cat "$FS_WL/libnofp-v2.so" >"$RW/libnofp.so"
ino2=$(stat -c %i "$RW/libnofp.so")
expect_eq "rewritten in place (same inode)" "$ino2" "$ino1"
check "warm-up after the rewrite" "$RW/nofp" -m lib 1
whole rewritten
t2=$(fs_stat unwind_tables)
log "tables: $t1 before the rewrite, $t2 after"
expect_eq "the rewritten file's table replaced, not added" "$t2" "$t1"

# A reset (every recording starts with one) keeps the tables for the next
# database, which takes them over when their files are unchanged. The
# library is rewritten again while its table is only kept: the kept table
# must not be taken over, but built again.
r0=$(fs_stat unwind_reused)
check "reset" fs_write reset
log "kept after the reset: $(fs_stat unwind_kept_tables) tables, $(fs_stat unwind_kept_bytes) bytes"
expect_ge "reset: the tables kept (nofp, libnofp.so, libc, ld.so)" "$(fs_stat unwind_kept_tables)" 4
cat "$FS_WL/libnofp.so" >"$RW/libnofp.so"
check "warm-up after the reset and a rewrite" "$RW/nofp" -m lib 1
whole kept
r1=$(fs_stat unwind_reused)
log "tables taken over after the reset: $((r1 - r0)); kept now: $(fs_stat unwind_kept_tables)"
expect_ge "reset: unchanged files' tables taken over (nofp, libc, ld.so)" $((r1 - r0)) 3
expect_le "reset: the rewritten library's kept table not taken over" $((r1 - r0)) 3
check "unload" fs_unload
finish
