#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A file whose unwind table finds unwind_kb full while an older database's
# tables are alive is tried again once they go, not given up on (issue
# 24). A reader holding its copy across a reset keeps the old database
# alive, and with it the tables of nofp -m qsort (U bytes, mostly libc's).
# With unwind_kb at 1.4 U, a copy of libc mapped meanwhile finds no room
# for its table: its stacks are walked by frame pointer. Once the reader
# closes, the old tables become kept ones, which give way, and the next
# nofp with the copy gets the table: its stacks through the copy's qsort
# are whole, and no file was counted as failed for lack of memory.
# timeout: 180
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

libc_copy
qsort_tables
kb=$((u * 14 / 10 / 1024 + 1))
fs_load "unwind_kb=$kb"
check "nofp -m qsort, unwind_kb=$kb" wl nofp -m qsort 1
# A reader that has read holds its copy, and the copy its database.
exec 3<"$FS_DEV"
check "a reader takes its copy" sh -c 'dd bs=1 count=1 <&3 >/dev/null 2>&1'
check "reset" fs_write reset
copy_run held 3
log "stats while the reader holds the old database: unwind_tables $(fs_stat unwind_tables), unwind_peak_bytes $(fs_stat unwind_peak_bytes)"
expect_ge "held: sampled in nf_cmp" "$all" 100
# No room: the old database's tables and the copy's together pass 1.4 U.
expect_le "held: the copy had no table (< half whole, x2)" $((good * 2)) "$all"
expect_eq "held: not counted as failed for lack of memory" \
	"$(fs_stat unwind_failed_memory)" 0

exec 3<&-
# The old database goes with its reader; the refused file may be tried
# again a second after it was refused.
sleep 2
copy_run freed 4
expect_whole freed nf_cmp 200
for s in unwind_tables unwind_bytes unwind_kept_tables unwind_kept_bytes unwind_peak_bytes unwind_vdso_bytes; do
	log "stats: $s $(fs_stat $s)"
done
expect_eq "no table failed for lack of memory" "$(fs_stat unwind_failed_memory)" 0
expect_le "all tables together never past unwind_kb" \
	"$(fs_stat unwind_peak_bytes)" $((kb * 1024))
check "unload" fs_unload
finish
