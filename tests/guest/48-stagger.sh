#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The CPUs' sampling timers are staggered: on 2 CPUs, their expiries (as
# /proc/timer_list shows them) are half a period apart, not at the same
# instant, so the CPUs never take the sampling interrupt together. The
# phase holds through a restart at another frequency.
# timeout: 120
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

cpus=$(grep -c '^processor' /proc/cpuinfo)
[ "$cpus" -eq 2 ] || die "this test wants 2 CPUs, not $cpus"

# phase HZ: the distance from CPU 0's sampling timer to CPU 1's, in ns,
# modulo the period; "" when a read did not show both timers (one may be
# running its callback at that instant).
phase() {
	awk -v p="$(awk -v h="$1" 'BEGIN {printf "%d", int((1e9 + int(h / 2)) / h)}')" '
		/^cpu: / { cpu = $2 }
		/, fst_timer_fn/ { want = 1; next }
		want && /# expires at/ {
			split($4, a, "-"); e[cpu] = a[1]; want = 0; next
		}
		{ want = 0 }
		END {
			if (!(0 in e) || !(1 in e)) exit
			d = (e[1] - e[0]) % p
			if (d < 0) d += p
			printf "%d %d\n", d, p
		}' /proc/timer_list
}

# staggered HZ: the two timers are half a period apart (1% tolerance).
staggered() {
	r=""
	i=0
	while [ -z "$r" ] && [ $i -lt 50 ]; do
		r=$(phase "$1")
		i=$((i + 1))
	done
	[ -n "$r" ] || { not_ok "$1 Hz: both sampling timers in /proc/timer_list"; return; }
	# shellcheck disable=SC2086 # two numbers
	set -- "$1" $r
	log "$1 Hz: CPU 1's timer expires $2 ns after CPU 0's (period $3 ns)"
	expect_ge "$1 Hz: not in lockstep (>= 49% of the period apart, x100)" $(($2 * 100)) $(($3 * 49))
	expect_le "$1 Hz: half a period apart (<= 51%, x100)" $(($2 * 100)) $(($3 * 51))
}

fs_load
sleep 1
staggered 997
check "stop, reset, 4999 Hz, start" fs_write "stop
reset
freq=4999
start"
sleep 1
staggered 4999
check "unload" fs_unload
finish
