#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Load/unload torture: the module loaded and unloaded again and again with
# sampling on (with parameters varied: frequencies, per-CPU, idle, one CPU,
# pid filters, tiny and deep tables, autostart off, and the off-CPU and
# wall-clock modes with the scheduler probes attached), while four readers and
# a writer (tests/clients/devstress.c --tolerant) use the device whenever
# it is there and workloads run (before each rmmod they are asked to stop
# opening it and finish what they do, tests/clients/devstress.c
# --quiet-file, so rmmod meets them still working); every load and every
# unload works, rmmod is refused while the device is held open; invalid
# parameters are
# refused cleanly; memory returns to its level; kmemleak (debug kernel)
# finds nothing. Short 32 cycles (each parameter set twice), long 1000.
# timeout: 600
# timeout-long: 7200
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

CYCLES=$(fs_size 32 1000 150)

# Refused parameters: insmod fails, nothing is left behind.
fs_insmod_refused freq=0 freq=20001 kernel_depth=0 user_depth=1025 "kernel_stacks=0 user_stacks=0" \
	pid_tree=1 pid=0 pid=4000000 cpus=999 cpus=abc pcpu_kb=0 table_kb=0 max_procs=0 \
	maps_kb=0 table_kb=16777217 pcpu_kb=4194305 max_procs=16777217 \
	mode=bogus waker=1 min_block_us=5 "mode=offcpu offcpu_tasks=15" \
	offcpu_tasks=1048577

fs_kmemleak_clear
fs_load
fs_unload || not_ok "unload"
# shellcheck disable=SC2046
set -- $(fs_mem_level)
s0=$1 v0=$2 p0=$3

wl_bg chain 7200
wl_bg syscalls 7200
QUIET=$FS_TMP/quiet
"$FS_WL/devstress" --tolerant --quiet-file "$QUIET" -r 4 -w -t 7200 -s 11 \
	>"$FS_TMP/stress.out" 2>&1 &
stress=$!

params() {
	case $(($1 % 16)) in
	0) echo "" ;;
	1) echo "freq=4999" ;;
	2) echo "percpu=1 idle=1" ;;
	3) echo "autostart=0" ;;
	4) echo "kernel_stacks=0" ;;
	5) echo "user_stacks=0 kernel_depth=512" ;;
	6) echo "pcpu_kb=8 table_kb=64" ;;
	7) echo "max_procs=4 maps_kb=16" ;;
	8) echo "user_depth=1024" ;;
	9) echo "cpus=1" ;;
	10) echo "pid=1 pid_tree=1" ;;
	11) echo "freq=1 group=1001" ;;
	# The off-CPU probes attached while tasks switch on every CPU.
	12) echo "mode=offcpu" ;;
	13) echo "mode=wall waker=1 percpu=1" ;;
	14) echo "mode=offcpu offcpu_tasks=16 min_block_us=50" ;;
	15) echo "mode=wall kernel_stacks=0 freq=4999" ;;
	esac
}

loads=0 unloads=0 refused=0 held=0 i=0 t0=$(now_ms)
while [ $i -lt "$CYCLES" ]; do
	# shellcheck disable=SC2046 # parameters
	if insmod "$FS_KO" $(params $i); then
		loads=$((loads + 1))
	else
		not_ok "insmod $(params $i) (cycle $i)"
	fi
	# Every 50 cycles: rmmod with the device open is refused.
	if [ $((i % 50)) = 0 ] && [ -c "$FS_DEV" ]; then
		exec 4<"$FS_DEV"
		if rmmod flamestat 2>/dev/null; then
			not_ok "rmmod succeeded with the device open (cycle $i)"
		else
			held=$((held + 1))
		fi
		exec 4<&-
	fi
	# Let them work a little, then ask them to let go; retry for 30 s.
	sleep "0.$((i % 3))"
	: >"$QUIET"
	j=0
	while ! rmmod flamestat 2>/dev/null; do
		refused=$((refused + 1))
		j=$((j + 1))
		[ $j -lt 3000 ] || break
		sleep 0.01
	done
	fs_loaded || unloads=$((unloads + 1))
	rm -f "$QUIET"
	i=$((i + 1))
done
t1=$(now_ms)
kill -TERM "$stress"
wait "$stress"
rc=$?
log "$CYCLES cycles in $(((t1 - t0) / 1000)) s: $loads loads, $unloads unloads, rmmod refused $refused times while in use, $held times with the device held open"
expect_eq "every load worked" "$loads" "$CYCLES"
expect_eq "every unload worked" "$unloads" "$CYCLES"
expect_eq "rmmod refused with the device held open" "$held" $(((CYCLES + 49) / 50))
expect_eq "devstress: $(tail -n 1 "$FS_TMP/stress.out")" "$rc" 0
grep '^FAIL' "$FS_TMP/stress.out" | head -n 10 | sed 's/^/#   /'
artifact "$FS_TMP/stress.out"
expect_ge "devstress met the device" "$(sed -n 's/^devstress:.* ops=\([0-9]*\).*/\1/p' "$FS_TMP/stress.out")" "$CYCLES"
for p in $FS_BG; do
	kill "$p" 2>/dev/null
done
wl_wait

# shellcheck disable=SC2046
set -- $(fs_mem_level)
log "SUnreclaim $s0 -> $1 kB, VmallocUsed $v0 -> $2 kB, Percpu $p0 -> $3 kB"
fs_expect_mem_back "$s0" "$v0" "$p0" "$1" "$2" "$3"
finish
