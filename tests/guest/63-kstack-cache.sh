#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The off-CPU probes' cache of kernel stacks (kmod/kstack_cache.c): a stack
# met again at the same depth is recognised by the return addresses at the
# places it keeps, instead of being unwound again. With kstack_cache=2 the
# module also walks every stack it recognised and counts each difference:
# over blocking of every kind the workloads have (sleeps, pipes, a mutex,
# preemption by a CPU-bound thread, a context-switch storm, fork, exec and
# exit, io_uring's kernel workers, a 32-bit task's system calls, whose
# stacks are shallower than any a 64-bit one leaves kept: the cache must
# not read past their top), in wall mode with waker stacks, there
# must be none, and most stacks must be recognised. That is on x86_64
# kernels that unwind with ORC (Debian's); elsewhere (arm64, the debug
# kernel's frame pointers) the cache is not used and counts nothing. kstack_cache=0 walks every stack; 3 is refused. The
# off-CPU times themselves are checked by 56-offcpu and the others, with
# the cache on (the default). A page fault nested in another's way back
# to user space (uffdnest) must not be taken for the shallower stack whose
# places it shares, and its blocks must be counted whole.
# The sampling timer has a cache of its own (CPU mode): a kernel stack
# interrupted at a PC met before, under the same callers. The same
# checks hold for it, over system calls (read(2) into a large buffer,
# getppid), pipes and a switch storm, fork/exec/exit, io_uring, the idle
# task and a 32-bit task; its counts are kstack_cache_sample_*.
# timeout: 240
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

# The cache needs ORC's walk (kmod/arch/x86/unwind.c): Debian's x86_64
# kernels, not the debug kernel, which unwinds with frame pointers (its
# /proc/config.gz says so; Debian's have none).
cached=0
if [ "$(uname -m)" = x86_64 ]; then
	cached=1
	if [ -r /proc/config.gz ] &&
	   ! zcat /proc/config.gz | grep -qx 'CONFIG_UNWINDER_ORC=y'; then
		cached=0
	fi
fi
log "kernel-stack cache expected: $cached"
# The share recognised that shows the cache works (one that recognised
# nothing would be near 0%): lower on PREEMPT_RT, which preempts anywhere
# and leaves one-off stacks, the more the busier the host.
case $(uname -v) in
*PREEMPT_RT*) off_pct=50 timer_pct=35 ;;
*) off_pct=70 timer_pct=50 ;;
esac

# kcache_counts NAME PREFIX: the stats kept as artifact NAME; hits, walks
# and wrong set from PREFIX_hits, PREFIX_walks and PREFIX_wrong.
kcache_counts() {
	cp "$FS_STATS" "$FS_TMP/$1"
	artifact "$FS_TMP/$1"
	hits=$(fs_stat "$2_hits") walks=$(fs_stat "$2_walks")
	wrong=$(fs_stat "$2_wrong")
}

fs_load_offcpu mode=wall waker=1 kstack_cache=2
check "offcpu runs" sh -c "$FS_WL/offcpu -p sleep,pipe,mutex,short,spin,storm 3 >$FS_TMP/truth"
check "shortlived runs" sh -c "$FS_WL/shortlived -n 40 -m 10 20 >/dev/null"
check "iouring runs" sh -c "$FS_WL/iouring 2 >/dev/null 2>&1"
check "threads run" sh -c "$FS_WL/threads -n 4 1 >/dev/null"
if [ -x "$FS_WL/hostile32" ]; then
	check "hostile32 -m nap runs" sh -c "$FS_WL/hostile32 -m nap 1 >/dev/null"
else
	not_ok "no hostile32 for $(uname -m) (tests/workloads/Makefile)"
fi
check "stop" fs_write stop
kcache_counts stats kstack_cache
log "kstack_cache=2: $hits stacks recognised, $walks walked, $wrong recognised wrongly; $(fs_stat offcpu_recorded) blocks recorded"
expect_ge "blocks recorded" "$(fs_stat offcpu_recorded)" 1000
expect_eq "no stack recognised wrongly" "$wrong" 0
if [ $cached = 1 ]; then
	# PREEMPT_RT preempts anywhere: its one-off R stacks are walked, the
	# more the busier the host (6.12-rt: 85 to 89% alone, 77% with two
	# benchmark guests beside it, and below 70% once in a full CI run).
	expect_ge "most stacks recognised (> $off_pct%, x100)" $((hits * 100)) \
		$(((hits + walks) * off_pct))
else
	expect_eq "no cache here: nothing recognised" "$hits" 0
	expect_eq "no cache here: nothing counted as walked" "$walks" 0
fi
check "unload" fs_unload

# A page fault that blocks, taken in the kernel on the way back to user
# space from another that blocked in the same frames (uffdnest): the
# nested stack's frames above the handler and its top hold what the
# shallower stack kept. It must be told apart (the cache once took it for
# the shallower one, 12 frames of 17), and kept whole in the counts.
fs_load_offcpu mode=offcpu kstack_cache=2
check "uffdnest runs" sh -c "$FS_WL/uffdnest 300 >$FS_TMP/uffdnest.out"
check "stop" fs_write stop
kcache_counts stats.uffd kstack_cache
fs_read "$FS_TMP/uffd.txt"
artifact "$FS_TMP/uffd.txt"
log "uffdnest: $(cat "$FS_TMP/uffdnest.out"); $hits stacks recognised, $walks walked, $wrong recognised wrongly"
uffd_faults=$(awk '{print $4}' "$FS_TMP/uffdnest.out")
expect_ge "uffdnest: a nested fault a round (faults >= 2 x 300 - 10)" "${uffd_faults:-0}" 590
expect_eq "uffdnest: no stack recognised wrongly" "$wrong" 0
# Blocks of the nested fault: its handler frames, the rseq update
# (__rseq_handle_notify_resume(), __rseq_handle_slowpath() from 7.0), and
# the outer fault's way back to user space above them, whole. By x86's
# names (arm64 has no cache, and other names for its entries).
if [ "$(uname -m)" = x86_64 ]; then
	nested=$(grep -E '^uffdnest;' "$FS_TMP/uffd.txt" |
		grep -E 'asm_exc_page_fault_\[k\];([^;]*;)*[^;]*rseq[^;]*_\[k\];([^;]*;)*asm_exc_page_fault_\[k\];([^;]*;)*handle_userfault_\[k\]' |
		awk '{s += $NF} END {printf "%.0f", s}')
	all=$(grep -E '^uffdnest;.*handle_userfault_\[k\]' "$FS_TMP/uffd.txt" |
		awk '{s += $NF} END {printf "%.0f", s}')
	grep -E '^uffdnest;.*handle_userfault' "$FS_TMP/uffd.txt" | cut -c1-600 | head -n 4 | sed 's/^/#   /'
	# A round blocks as long in each fault (both wait for the handler): the
	# nested ones near half the time, none when taken for the outer ones.
	expect_ge "uffdnest: nested blocks kept whole (> 20% of the faults' ns, x100)" \
		$((${nested:-0} * 100)) $((${all:-0} * 20))
	expect_ge "uffdnest: blocks in the faults" "${all:-0}" 1
fi
check "unload" fs_unload

fs_load freq=4999 idle=1 kstack_cache=2
check "syscalls -m read runs" sh -c "$FS_WL/syscalls -m read 2 >/dev/null"
check "syscalls -m getppid runs" sh -c "$FS_WL/syscalls -m getppid 1 >/dev/null"
check "offcpu -p pipe,storm runs" sh -c "$FS_WL/offcpu -p pipe,storm 2 >/dev/null"
check "shortlived runs" sh -c "$FS_WL/shortlived -n 40 -m 10 20 >/dev/null"
check "iouring runs" sh -c "$FS_WL/iouring 2 >/dev/null 2>&1"
if [ -x "$FS_WL/hostile32" ]; then
	check "hostile32 -m nap runs" sh -c "$FS_WL/hostile32 -m nap 1 >/dev/null"
fi
check "stop" fs_write stop
kcache_counts stats.sample kstack_cache_sample
mem_cached=$(fs_stat mem_total)
log "timer, kstack_cache=2: $hits kernel stacks recognised, $walks walked, $wrong recognised wrongly; $(fs_stat recorded) samples recorded"
expect_eq "timer: no stack recognised wrongly" "$wrong" 0
if [ $cached = 1 ]; then
	expect_ge "timer: kernel stacks sampled" $((hits + walks)) 2000
	# 6.12-rt: 76% alone.
	expect_ge "timer: recognised (> $timer_pct%, x100)" $((hits * 100)) \
		$(((hits + walks) * timer_pct))
else
	expect_eq "timer, no cache here: nothing recognised" "$hits" 0
	expect_eq "timer, no cache here: nothing counted as walked" "$walks" 0
fi
check "unload" fs_unload

fs_load freq=4999 kstack_cache=0
check "syscalls -m read runs" sh -c "$FS_WL/syscalls -m read 1 >/dev/null"
check "stop" fs_write stop
expect_ge "timer, kstack_cache=0: samples recorded" "$(fs_stat recorded)" 200
expect_eq "timer, kstack_cache=0: nothing recognised" "$(fs_stat kstack_cache_sample_hits)" 0
expect_eq "timer, kstack_cache=0: no walk counted" "$(fs_stat kstack_cache_sample_walks)" 0
# Each CPU's cache of the timer's stacks (about 5 KiB) is memory the
# module holds: mem_total counts it.
log "mem_total: $mem_cached with the timer's caches, $(fs_stat mem_total) without"
if [ $cached = 1 ]; then
	expect_ge "mem_total counts the timer's caches (>= 1 KiB a CPU)" \
		"$mem_cached" $(($(fs_stat mem_total) + $(nproc) * 1024))
else
	expect_eq "no cache here: the same mem_total" "$mem_cached" "$(fs_stat mem_total)"
fi
check "unload" fs_unload

fs_load_offcpu mode=offcpu kstack_cache=0
check "offcpu -p pipe runs" sh -c "$FS_WL/offcpu -p pipe 1 >/dev/null"
check "stop" fs_write stop
expect_ge "kstack_cache=0: blocks recorded" "$(fs_stat offcpu_recorded)" 100
expect_eq "kstack_cache=0: nothing recognised" "$(fs_stat kstack_cache_hits)" 0
expect_eq "kstack_cache=0: no walk counted" "$(fs_stat kstack_cache_walks)" 0
check "unload" fs_unload

fs_insmod_refused kstack_cache=3
finish
