#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Unloading with the scheduler probes attached (issue 14): while a switch
# storm runs on every CPU (the offcpu workload's storm: a pipe ping-pong
# with no pause per CPU) and tasks block and wake all the time, the module
# is loaded in offcpu or wall mode (waker stacks on every other cycle),
# read, and unloaded, again and again. Every load and unload works, the
# counters balance at every stop, the storm keeps switching after the last
# unload (a probe left behind would be called into freed module text on
# the next switch), no off-CPU slot or memory is left (memory back to its
# level), and the kernel logs nothing bad (the harness checks dmesg).
# Also: invalid off-CPU parameters are refused, and nothing stays loaded.
# Short 15 cycles, long 300, debug 100.
#
# Under single-threaded TCG (accel=tcg-single: one host thread runs both
# vCPUs in turn). Under multi-threaded TCG, flipping the scheduler
# tracepoints' static keys under a switch storm hung guests in the
# kernel's text patching (int3), with no module loaded too: 5.10 at the
# 14th cycle, 6.1 once (docs/RELIABILITY.md). With one thread, 5.10 ran
# 3 x 30 cycles and 6.1 30, each passing.
# vm: name=single accel=tcg-single
# timeout: 600
# timeout-long: 5400
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

CYCLES=$(fs_size 15 300 100)

fs_load_offcpu mode=offcpu
fs_unload || die "unload"
fs_insmod_refused mode=3 mode=cpux "mode=offcpu offcpu_tasks=0"

fs_kmemleak_clear
fs_load mode=offcpu
fs_unload || not_ok "first unload"
# shellcheck disable=SC2046
set -- $(fs_mem_level)
s0=$1 v0=$2 p0=$3

# The storm for as long as the cycles take (killed at the end).
wl_bg offcpu -p storm,pipe,short 3600
storm=$!
sleep 1
sw0=$(awk '$1 == "ctxt" {print $2}' /proc/stat)
i=0 fails=0
while [ $i -lt "$CYCLES" ]; do
	i=$((i + 1))
	case $((i % 4)) in
	0) params="mode=offcpu" ;;
	1) params="mode=offcpu waker=1 min_block_us=50" ;;
	2) params="mode=wall freq=4999" ;;
	3) params="mode=wall waker=1 offcpu_tasks=64" ;;
	esac
	# shellcheck disable=SC2086 # several parameters
	if ! insmod "$FS_KO" $params 2>"$FS_TMP/insmod.err"; then
		not_ok "cycle $i: insmod $params: $(cat "$FS_TMP/insmod.err")"
		fails=$((fails + 1))
		break
	fi
	sleep 0.$((i % 7 + 1))
	# A read (text) while the probes fire, then stop, then the counters.
	cat "$FS_DEV" >/dev/null 2>&1 || { not_ok "cycle $i: read"; fails=$((fails + 1)); }
	if [ $((i % 2)) = 0 ]; then
		# Stopped first: every block accounted, the counters balance.
		fs_write stop || { not_ok "cycle $i: stop"; fails=$((fails + 1)); }
		# shellcheck disable=SC2046 # three numbers
		set -- $(fs_offcpu_balance)
		if [ "$1" -ne $(($2 + $3)) ] || [ "$1" -eq 0 ]; then
			not_ok "cycle $i ($params): offcpu_blocks $1 != recorded $2 + dropped $3 (or none)"
			fails=$((fails + 1))
		fi
	fi
	# Odd cycles: unloaded while sampling, probes firing.
	if ! rmmod flamestat 2>"$FS_TMP/rmmod.err"; then
		not_ok "cycle $i: rmmod: $(cat "$FS_TMP/rmmod.err")"
		fails=$((fails + 1))
		break
	fi
	if [ -d /sys/module/flamestat ] || [ -e "$FS_DEV" ]; then
		not_ok "cycle $i: module or device left after rmmod"
		fails=$((fails + 1))
		break
	fi
	kill -0 "$storm" 2>/dev/null || { not_ok "cycle $i: the storm died"; fails=$((fails + 1)); break; }
done
expect_eq "$CYCLES load/read/unload cycles under the switch storm" "$fails" 0
# Switching goes on after the last unload: no probe calls into freed text.
sleep 2
sw1=$(awk '$1 == "ctxt" {print $2}' /proc/stat)
check "the storm still runs after the last unload" kill -0 "$storm"
log "context switches during the cycles: $((sw1 - sw0))"
expect_ge "the storm switched (>= 200 switches per cycle)" $((sw1 - sw0)) $((CYCLES * 200))
check "no flamestat symbol left in the kernel" sh -c '! grep -q "\[flamestat\]" /proc/kallsyms'
kill "$storm" 2>/dev/null
wl_wait
check "reload after the cycles" fs_load mode=offcpu
check "final unload" fs_unload
# shellcheck disable=SC2046
set -- $(fs_mem_level)
fs_expect_mem_back "$s0" "$v0" "$p0" "$1" "$2" "$3"
finish
