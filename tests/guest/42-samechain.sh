#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The sampler's recent-stack cache (kmod/recent.h) counts a sample in the
# entry it last used for the same header and callers on that CPU, past the
# hash and the table. Stacks that differ only in what the cache must still
# tell apart keep their own counts:
# - the thread's name: two threads of one process run the same code
#   (threads -s: thread_worker_a;spin_a) on one CPU, named worker_a and
#   worker_b; the CPU's consecutive samples differ in the name only. Each
#   name keeps its own samples (>= 30% each of the two).
# - the process: two processes of one program on one CPU, without address
#   randomization (same callers, same leaves, other tgid): each keeps >= 30%
#   of the two.
# - the recursion: two recursions of one shape take turns on one CPU
#   (deepstack -t: twin_a and its copy twin_b, 40 deep, called from one
#   site and calling one leaf from one site), their stacks the same but for
#   the recursion's return address, most of which the cache skips (a run
#   the walk stored as one word, compared by the words around it: kmod/
#   recent.h). Each keeps >= 30% of the two, built with frame pointers
#   (tables, CFA = FP + 16) and without (CFA = SP + n).
# And nothing is counted outside the tables: the same stacks before and
# after 2.3 and 3.3 s of idle CPU (several drains: a swap empties the cache; the
# table it pointed into is cleared and later active again) add up, folded,
# to recorded, and samples == recorded + dropped.
# timeout: 180
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

command -v taskset >/dev/null || die "no taskset in the guest"
cpu=$(($(nproc) - 1))

fs_load
check "threads -s on CPU $cpu" taskset -c "$cpu" "$FS_WL/threads" -s -n 2 4
check "stop" fs_write stop
fs_read "$FS_TMP/names.folded"
fs_symbolize <"$FS_TMP/names.folded" >"$FS_TMP/names.sym"
artifact "$FS_TMP/names.sym"
a=$(fs_sum "$FS_TMP/names.sym" '^worker_a;(.*;)?thread_worker_a;spin_a$')
b=$(fs_sum "$FS_TMP/names.sym" '^worker_b;(.*;)?thread_worker_a;spin_a$')
log "one CPU, same code: worker_a $a, worker_b $b samples in thread_worker_a;spin_a"
expect_ge "both threads sampled" $((a + b)) 1000
expect_ge "worker_a keeps >= 30% (x10)" $((a * 10)) $(((a + b) * 3))
expect_ge "worker_b keeps >= 30% (x10)" $((b * 10)) $(((a + b) * 3))
check "samples == recorded + dropped" fs_balanced
expect_eq "folded counts add up to recorded" "$(fs_sum "$FS_TMP/names.folded")" "$(fs_stat recorded)"

# Two processes of one program, one CPU, without address randomization:
# their stacks are the same addresses and differ in tgid and address space
# only.
check "reset" fs_write reset
check "start" fs_write start
taskset -c "$cpu" linux64 -R "$FS_WL/deepstack" -d 4 4 &
p1=$!
taskset -c "$cpu" linux64 -R "$FS_WL/deepstack" -d 4 4 &
p2=$!
wait $p1 || not_ok "first deepstack exited with status $?"
wait $p2 || not_ok "second deepstack exited with status $?"
check "stop" fs_write stop
check "snapshot" sh -c "/opt/workloads/snapdump >$FS_TMP/procs.dump"
artifact "$FS_TMP/procs.dump"
# shellcheck disable=SC2046 # numbers
set -- $(awk "$FS_AWK_FIELDS"'
	$1 == "stack" { fields(f); if (f["comm"] != "deepstack") next
		c[f["tgid"]] += f["count"] }
	END { printf "%d %d\n", c['"$p1"'], c['"$p2"'] }' "$FS_TMP/procs.dump")
log "one CPU, one program: pid $p1 $1, pid $p2 $2 samples"
expect_ge "both processes sampled" $(($1 + $2)) 1000
expect_ge "the first keeps >= 30% (x10)" $(($1 * 10)) $((($1 + $2) * 3))
expect_ge "the second keeps >= 30% (x10)" $(($2 * 10)) $((($1 + $2) * 3))
check "samples == recorded + dropped" fs_balanced
fs_read "$FS_TMP/procs.folded"
expect_eq "folded counts add up to recorded" "$(fs_sum "$FS_TMP/procs.folded")" "$(fs_stat recorded)"

for prog in deepstack deepstack-nofp; do
	check "reset" fs_write reset
	check "start" fs_write start
	check "$prog -t -d 40 on CPU $cpu" taskset -c "$cpu" "$FS_WL/$prog" -t -d 40 3
	check "stop" fs_write stop
	fs_read "$FS_TMP/$prog-twin.folded"
	fs_symbolize <"$FS_TMP/$prog-twin.folded" >"$FS_TMP/$prog-twin.sym"
	artifact "$FS_TMP/$prog-twin.sym"
	a=$(fs_sum "$FS_TMP/$prog-twin.sym" "^$prog;(.*;)?deep_start;(twin_a;){40}twin_leaf\$")
	b=$(fs_sum "$FS_TMP/$prog-twin.sym" "^$prog;(.*;)?deep_start;(twin_b;){40}twin_leaf\$")
	log "$prog -t, one CPU: twin_a $a, twin_b $b samples in twin_leaf"
	expect_ge "$prog: both recursions sampled" $((a + b)) 1000
	expect_ge "$prog: twin_a keeps >= 30% (x10)" $((a * 10)) $(((a + b) * 3))
	expect_ge "$prog: twin_b keeps >= 30% (x10)" $((b * 10)) $(((a + b) * 3))
	check "samples == recorded + dropped" fs_balanced
	expect_eq "folded counts add up to recorded" "$(fs_sum "$FS_TMP/$prog-twin.folded")" "$(fs_stat recorded)"
done

# The same stacks before and after an idle time of several drains: the
# table the cache pointed into was swapped out, cleared and swapped in
# again meanwhile, and still holds the old entries' bytes beyond its end.
# The drains come every second: two pauses, so that one of them likely
# spans an even number of swaps (the same table active again).
check "reset" fs_write reset
check "start" fs_write start
check "deepstack, 2.3 s idle, deepstack" taskset -c "$cpu" "$FS_WL/deepstack" -d 4 -p 2.3 1
check "deepstack, 3.3 s idle, deepstack" taskset -c "$cpu" "$FS_WL/deepstack" -d 4 -p 3.3 1
check "stop" fs_write stop
fs_read "$FS_TMP/pause.folded"
artifact "$FS_TMP/pause.folded"
log "around a pause: $(fs_sum "$FS_TMP/pause.folded" '^deepstack;') deepstack samples, recorded $(fs_stat recorded)"
expect_ge "deepstack sampled" "$(fs_sum "$FS_TMP/pause.folded" '^deepstack;')" 1000
check "samples == recorded + dropped" fs_balanced
expect_eq "folded counts add up to recorded" "$(fs_sum "$FS_TMP/pause.folded")" "$(fs_stat recorded)"
check "unload" fs_unload
finish
