#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Module parameters that select what is recorded: pid= (and pid_tree=),
# kernel_stacks=0 (user only), user_stacks=0 (kernel only), cpus=,
# percpu=1; each records what it says and counts the rest as dropped.
# timeout: 150
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

# pid=: only the chosen process is recorded; the others are "filtered".
wl_bg chain 6
target=$!
wl_bg threads 6
fs_load pid="$target"
sleep 3
check "stop" fs_write stop
fs_read "$FS_TMP/pid.folded"
others=$(grep -cv '^chain;' "$FS_TMP/pid.folded")
expect_eq "pid=$target: only chain's stacks" "$others" 0
# chain shares 2 vCPUs with threads for 3 s (about 1,000 samples on an idle
# host, half that when the host is loaded): recorded at all is the point.
expect_ge "pid=$target: chain recorded" "$(fs_sum "$FS_TMP/pid.folded" '^chain;')" 100
expect_ge "pid=$target: the rest counted as filtered" "$(fs_stat dropped_filtered)" 500
check "unload" fs_unload
wl_wait

# kernel_stacks=0: no kernel frames; user code in syscalls still recorded.
wl_bg syscalls -m read 4
fs_load kernel_stacks=0
sleep 2
check "stop" fs_write stop
fs_read "$FS_TMP/user.folded"
expect_eq "kernel_stacks=0: no _[k] frames" "$(grep -c '_\[k\]' "$FS_TMP/user.folded")" 0
# (2 s at 997 Hz: about 2,000 periods on its CPU; a vCPU the host starves
# takes a tenth of them as samples, the rest late, as overruns: 192 seen
# under a load of 10. None at all is what a broken filter gives.)
expect_ge "kernel_stacks=0: syscalls recorded" "$(fs_sum "$FS_TMP/user.folded" '^syscalls;')" 100
check "unload" fs_unload
wl_wait

# user_stacks=0: kernel frames only; pure user code counted as mode.
wl_bg syscalls -m read 4
wl_bg chain 4
fs_load user_stacks=0
sleep 2
check "stop" fs_write stop
fs_read "$FS_TMP/kernel.folded"
# Every frame after comm is a kernel frame.
bad=$(awk '{s = $0; sub(/ [0-9]+$/, "", s); n = split(s, f, ";")
	for (i = 2; i <= n; i++) if (f[i] !~ /_\[k\]$/) {c++; break}} END {print c + 0}' "$FS_TMP/kernel.folded")
expect_eq "user_stacks=0: only kernel frames" "$bad" 0
# The read path's frames (as 60-syscalls): vfs_read, then read_zero
# (x86), or on arm64 __arch_clear_user, an assembly leaf without a frame
# record, right under vfs_read (read_zero skipped). Matching only
# read_*_[k] counted on arm64 just the samples in read_zero's own
# instructions: 96 to 214 of them.
artifact "$FS_TMP/kernel.folded"
log "user_stacks=0: syscalls: $(fs_sum "$FS_TMP/kernel.folded" '^syscalls;') samples, $(fs_sum "$FS_TMP/kernel.folded" '^syscalls;.*vfs_read_\[k\]') under vfs_read"
expect_ge "user_stacks=0: syscalls' kernel side recorded" "$(fs_sum "$FS_TMP/kernel.folded" \
	'^syscalls;.*vfs_read_\[k\];(read_zero|read_iter_zero|__arch_clear_user)_\[k\]')" 100
# chain spins in user mode on one of the two CPUs: a quarter of the
# samples taken at least (a ratio: a starved vCPU takes fewer samples, and
# counts the periods it missed as overruns instead).
mode=$(fs_stat dropped_mode)
taken=$(fs_stat samples)
log "user_stacks=0: $mode of $taken samples dropped as user mode"
expect_ge "user_stacks=0: chain's user time counted as mode (>= 1/4 of the samples)" $((mode * 4)) "$taken"
expect_ge "user_stacks=0: samples taken" "$taken" 100
check "unload" fs_unload
wl_wait

# cpus=0 and percpu=1: only CPU 0 has a timer; every stack says cpu-0.
wl_bg chain 4
wl_bg chain 4
fs_load cpus=0 percpu=1
sleep 2
check "stop" fs_write stop
fs_read "$FS_TMP/cpu0.folded"
expect_eq "cpus=0 percpu=1: every stack under cpu-0" "$(grep -cv '^cpu-0;' "$FS_TMP/cpu0.folded")" 0
# (as above: 202 seen under a load of 10)
expect_ge "cpus=0 percpu=1: stacks recorded" "$(fs_sum "$FS_TMP/cpu0.folded")" 100
check "unload" fs_unload
wl_wait

# pid_tree=1: a shell's children are included.
sh -c "$FS_WL/chain 4 & $FS_WL/libwork 4; wait" &
parent=$!
fs_load pid="$parent" pid_tree=1
sleep 2
check "stop" fs_write stop
fs_read "$FS_TMP/tree.folded"
expect_ge "pid_tree=1: a child (chain) recorded" "$(fs_sum "$FS_TMP/tree.folded" '^chain;')" 200
expect_ge "pid_tree=1: the other child (libwork) recorded" "$(fs_sum "$FS_TMP/tree.folded" '^libwork;')" 200
check "unload" fs_unload
wait "$parent"

check_not "pid=0 refused at load" insmod "$FS_KO" pid=0
check_not "freq=0 refused at load" insmod "$FS_KO" freq=0
check_not "freq=20001 refused at load" insmod "$FS_KO" freq=20001
check_not "kernel_stacks=0 user_stacks=0 refused" insmod "$FS_KO" kernel_stacks=0 user_stacks=0
check_not "cpus=99 refused" insmod "$FS_KO" cpus=99
check_not "pid_tree without pid refused" insmod "$FS_KO" pid_tree=1
finish
