#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# unwind_kb bounds every unwind table that exists at once (issue 24): the
# database's own, those kept across a reset for the next database, and the
# one being built. First the tables nofp -m qsort needs are measured (U
# bytes, mostly libc's); then, with unwind_kb at 1.4 U, they are built
# again, a reset keeps them, and nofp runs with a copy of libc: another
# file, whose table is built rather than taken over, as big as the kept
# libc table. Kept tables give way before a build allocates: the peak of
# all tables together (unwind_peak_bytes) stays within unwind_kb, the copy
# gets its table (nothing fails for lack of memory), nofp's stacks through
# the copy's qsort are whole, and mem_used stays within mem_total. Were the
# kept libc table dropped only after the copy's was built, the peak would
# be about 1.8 U.
# timeout: 180
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

libc_copy
qsort_tables
kb=$((u * 14 / 10 / 1024 + 1))
fs_load "unwind_kb=$kb"
check "nofp -m qsort, unwind_kb=$kb" wl nofp -m qsort 1
log "tables: $(fs_stat unwind_tables), $(fs_stat unwind_bytes) bytes"
check "reset" fs_write reset
# Logged, not asserted: any other program sampled meanwhile (even the
# awk reading these stats) may have its table built, and the kept ones
# give way to it (seen on 5.10: none left). The bound holds either way.
log "kept after the reset: $(fs_stat unwind_kept_tables) tables, $(fs_stat unwind_kept_bytes) bytes"

copy_run copy 4
expect_whole copy nf_cmp 200

for s in unwind_tables unwind_bytes unwind_kept_tables unwind_kept_bytes unwind_reused unwind_peak_bytes mem_used mem_total; do
	log "stats: $s $(fs_stat $s)"
done
expect_eq "no table failed for lack of memory" "$(fs_stat unwind_failed_memory)" 0
expect_le "all tables together never past unwind_kb" \
	"$(fs_stat unwind_peak_bytes)" $((kb * 1024))
expect_le "mem_used within mem_total" "$(fs_stat mem_used)" "$(fs_stat mem_total)"
check "unload" fs_unload
finish
