#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Text commands on /dev/flamestat: start, stop, reset, freq=N act; garbage
# is rejected with EINVAL, and a rejected write applies none of its commands.
# timeout: 120
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

fs_load
expect_eq "running after load" "$(fs_stat running)" 1

check "stop" fs_write stop
expect_eq "stopped" "$(fs_stat running)" 0
s1=$(fs_stat samples)
wl chain 1
s2=$(fs_stat samples)
expect_eq "no samples while stopped" "$s2" "$s1"

check "reset" fs_write reset
expect_eq "samples after reset" "$(fs_stat samples)" 0
expect_eq "recorded after reset" "$(fs_stat recorded)" 0
fs_read "$FS_TMP/empty.folded"
expect_eq "no stacks after reset" "$(wc -c <"$FS_TMP/empty.folded")" 0

check "freq=100" fs_write "freq=100"
check "start" fs_write start
expect_eq "running" "$(fs_stat running)" 1
t0=$(now_ms)
wl chain 2
check "stop again" fs_write stop
t1=$(now_ms)
n=$(fs_stat samples)
cpus=$(nproc)
ms=$((t1 - t0))
log "freq=100: $n samples on $cpus CPUs in $ms ms"
# every CPU ticks at 100 Hz, idle or not (idle ones count as dropped)
expect_le "freq=100 bounds the samples" "$n" $((cpus * 100 * ms / 1000 + 20 * cpus))
expect_ge "freq=100 still samples" "$n" $((100 * ms / 1000 / 4))

# Garbage: each write fails with EINVAL.
long=$(printf '%0200d' 0)
for w in garbage START "start stop" "freq=0" "freq=20001" "freq=abc" \
	"freq=" "freq=-5" "freq=100x" "$long" "
"; do
	if fs_write "$w"; then
		not_ok "write '$w' accepted"
	else
		expect_eq "write '$(printf '%s' "$w" | head -c 20)' rejected" "$FS_WRITE_ERR" "Invalid argument"
	fi
done

# All or nothing: a bad command anywhere rejects the whole write.
if fs_write "start
bogus"; then
	not_ok "'start\\nbogus' accepted"
else
	expect_eq "'start\\nbogus' rejected" "$FS_WRITE_ERR" "Invalid argument"
fi
expect_eq "nothing of a rejected write applied" "$(fs_stat running)" 0

check "several commands in one write" fs_write "reset
freq=997
start"
expect_eq "running after 'reset;freq=997;start'" "$(fs_stat running)" 1
check "start while running" fs_write start
check "stop" fs_write stop
check "stop while stopped" fs_write stop
check "unload" fs_unload
finish
