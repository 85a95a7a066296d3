#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Memory bounds. Parameters that would take more than half of the RAM are
# refused at load (ENOMEM), never a vmalloc warning or the OOM killer. With 16 KiB per-CPU tables and a 256 KiB merged table, a
# workload with a new stack in nearly every sample (tests/workloads/uniq.c)
# fills them (the merged table evicting its coldest stacks to make room):
# the drops are counted (samples == recorded + dropped), the
# table never holds more than fits, text and snapshot agree with the
# counters, and after a reset sampling works again. Then load/unload cycles
# with that workload: slab, vmalloc and per-CPU memory return to their
# level before (within 1 MiB, 1 MiB, 64 KiB), and kmemleak (debug kernel)
# finds nothing. Short: 5 s fill, 10 cycles; long: 60 s, 100 cycles.
# timeout: 300
# timeout-long: 1800
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

FILL=$(fs_size 5 60)
CYCLES=$(fs_size 10 100)

# -- parameters asking for more than half of the RAM: refused at load --
ram_kb=$(fs_meminfo MemTotal)
if insmod "$FS_KO" table_kb=$((ram_kb * 3 / 4)) 2>"$FS_TMP/big.err"; then
	not_ok "table_kb of 3/4 of the RAM refused: it loaded"
	fs_unload
else
	ok "table_kb of 3/4 of the RAM refused ($(head -n 1 "$FS_TMP/big.err"))"
fi
check "the refusal names the parameters" sh -c "dmesg | grep -q 'more than half of the'"
check "no module left after the refusal" test ! -d /sys/module/flamestat

# -- a full table --
fs_load pcpu_kb=16 table_kb=256
wl_bg uniq "$FILL"
wl_bg uniq -d 20 "$FILL"
wl_wait || not_ok "uniq failed"
check "stop" fs_write stop
check "balanced" fs_balanced
full=$(($(fs_stat dropped_table_full) + $(fs_stat dropped_cpu_table_full) + $(fs_stat dropped_evicted)))
log "samples $(fs_stat samples) recorded $(fs_stat recorded) dropped_table_full $(fs_stat dropped_table_full) dropped_cpu_table_full $(fs_stat dropped_cpu_table_full) dropped_evicted $(fs_stat dropped_evicted) stacks $(fs_stat stacks) mem_used $(fs_stat mem_used)/$(fs_stat mem_total)"
expect_ge "drops for full tables counted" "$full" 1
# Each entry is at least 64 bytes: 256 KiB hold at most 4096 of them.
expect_le "merged table holds what fits" "$(fs_stat stacks)" 4096
expect_le "mem_used <= mem_total" "$(fs_stat mem_used)" "$(fs_stat mem_total)"
fs_read "$FS_TMP/full.folded"
# (stacks that print alike are one line: 22-sameline)
expect_le "at most one text line per stack" "$(wc -l <"$FS_TMP/full.folded")" "$(fs_stat stacks)"
expect_eq "no line twice" "$(awk '{ sub(/ [0-9]+$/, ""); print }' "$FS_TMP/full.folded" | sort | uniq -d | wc -l)" 0
expect_eq "text counts add up to recorded" "$(fs_sum "$FS_TMP/full.folded")" "$(fs_stat recorded)"
if /opt/workloads/snapdump >"$FS_TMP/full.dump"; then
	ok "snapshot valid (STACK counts add up to recorded)"
else
	not_ok "snapshot valid: $(head -n 1 "$FS_TMP/full.dump")"
fi
check "reset, start" fs_write "reset
start"
expect_eq "reset empties the table" "$(fs_stat dropped_table_full) $(fs_stat dropped_evicted)" "0 0"
wl chain 1 || not_ok "chain failed"
fs_read "$FS_TMP/after.folded"
fs_symbolize <"$FS_TMP/after.folded" >"$FS_TMP/after.sym"
expect_ge "sampling works after the table was full" \
	"$(fs_sum "$FS_TMP/after.sym" '^chain;(.*;)?main;outer;middle;hot_leaf$')" 20
check "unload" fs_unload

# -- memory back to its level after load/unload cycles --
fs_kmemleak_clear
# One cycle first: whatever the kernel allocates once (sysfs, caches) is
# not the module's.
fs_load
fs_unload || not_ok "unload"
# shellcheck disable=SC2046
set -- $(fs_mem_level)
s0=$1 v0=$2 p0=$3
i=0
while [ $i -lt "$CYCLES" ]; do
	insmod "$FS_KO" || { not_ok "insmod $i"; break; }
	wl uniq 0.3 || not_ok "uniq failed"
	cat "$FS_DEV" >/dev/null || not_ok "read $i"
	/opt/workloads/snapdump >/dev/null || not_ok "snapshot $i"
	rmmod flamestat || { not_ok "rmmod $i"; break; }
	i=$((i + 1))
done
# shellcheck disable=SC2046
set -- $(fs_mem_level)
log "after $i cycles: SUnreclaim $s0 -> $1 kB, VmallocUsed $v0 -> $2 kB, Percpu $p0 -> $3 kB"
fs_expect_mem_back "$s0" "$v0" "$p0" "$1" "$2" "$3"
finish
