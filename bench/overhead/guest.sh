#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of `make bench-overhead`: runs each workload for a fixed amount
# of work under each profiler, timed inside the guest, and prints one line
# per run on standard output:
#
#   @@BENCH prof=P wl=W rep=N elapsed_ns=.. user_ns=.. sys_ns=.. status=..
#           samples=.. ubytes=.. dbytes=.. post_ns=.. timed=.. [cost_ns=..]
#
# elapsed_ns is the workload's own runtime (bench/overhead/timeit.c);
# timed= counts the timed runs of this boot so far (run N is the window
# between the insnprof plugin's marks 2N-2 and 2N-1: its mark 2N-1);
# samples what the profiler counted over its whole session; ubytes what it
# moved from the kernel to user space, dbytes what it left on disk;
# post_ns the time from the stop signal to a finished flame graph (SVG).
# Lines starting with "@@BENCH-ERROR" say a configuration could not run.
#
# Sourced by a generated guest test that sets first:
#   BENCH_PROFILERS  none floor flamestat perf bpftrace bcc (any of them),
#                    and for the unwind phase: fsfp (flamestat record
#                    --unwind fp) and perfdwarf (perf --call-graph dwarf)
#   BENCH_WORKLOADS  NAME=COMMAND entries separated by '|'
#   BENCH_REPEATS    runs of each (profiler, workload)
#   BENCH_FREQ       sampling rate (997)
#   BENCH_DIR        where the benchmark's helpers are (timeit, floor
#                    module, FlameGraph scripts)
#   BENCH_KEEP       profiles to keep as artifacts: "first" (rep 1), "all"
#                    (rep 1, and every later repeat's folded stacks) or "none"
#   BENCH_KALLSYMS   1: save /proc/kallsyms (floor module loaded) as an
#                    artifact, for insnprof-report.sh
#   BENCH_DIRECT     1: timeit runs the workload itself, not through sh -c
#                    (no shell in the profiled window)
#   BENCH_JITTER     N: the floor module fires at BENCH_JITTER_FREQ Hz
#                    (1009) all along with jitter=N (a random delay between
#                    two samples, against phase locking under -icount); not
#                    with the floor profiler
#   BENCH_WARMUP     0: no untimed run of each workload first
#   BENCH_WARMUP_RECORD  1: the warm-up runs under a flamestat recording
#                    (the unwind tables of the workloads' files are built
#                    before the first timed run)
#   BENCH_ENTRY      1: print "@@BENCH-ENTRY wl=W entry=0x.." first, each
#                    workload's entry point as loaded (AT_ENTRY; with the
#                    ELF header's, its load address)
# Guest tools: /opt/workloads, flamestat (the tool, which loads its module
# from /lib/modules), perf, bpftrace, profile-bpfcc where installed.

: "${BENCH_FREQ:=997}"
: "${BENCH_REPEATS:=3}"
: "${BENCH_KEEP:=first}"
: "${BENCH_SETTLE:=2}"
T=$BENCH_DIR/timeit
FG=$BENCH_DIR/FlameGraph
FLOOR_KO=$BENCH_DIR/flamestat_floor.ko
W=${BENCH_WORK:-/tmp/bench}
mkdir -p "$W"
export PATH="$PATH:/usr/sbin:/sbin"

msg() { echo "# bench: $*"; }
err() { echo "@@BENCH-ERROR $*"; }

# Guest time in nanoseconds (CLOCK_MONOTONIC).
now_ns() {
	"$T" -n
}

# size FILE...: total bytes (0 for missing files).
size() {
	_s=0
	for _f in "$@"; do
		[ -f "$_f" ] && _s=$((_s + $(wc -c <"$_f")))
	done
	echo "$_s"
}

# perf_fds PID: how many perf_event file descriptors PID holds.
perf_fds() {
	_n=0
	for _f in "/proc/$1/fd/"*; do
		case "$(readlink "$_f" 2>/dev/null)" in
		*perf_event*) _n=$((_n + 1)) ;;
		esac
	done
	echo "$_n"
}

# wait_until TIMEOUT_S CMD...: poll CMD every 0.2 s; false on timeout.
wait_until() {
	_lim=$(($1 * 5))
	shift
	_i=0
	while ! "$@" >/dev/null 2>&1; do
		_i=$((_i + 1))
		[ $_i -ge "$_lim" ] && return 1
		sleep 0.2
	done
	return 0
}

has_perf_fds() { [ "$(perf_fds "$1")" -ge "$(nproc)" ]; }
fs_running() { grep -q '^running 1$' /sys/class/misc/flamestat/stats; }

alive() { kill -0 "$1" 2>/dev/null; }
dead() { ! kill -0 "$1" 2>/dev/null; }

# stop PID: SIGINT (Ctrl-C, as a user stops a profiler), and wait for it
# to exit; a profiler still there after 10 minutes is killed, and that is
# an error.
stop() {
	kill -INT "$1" 2>/dev/null
	if ! wait_until 600 dead "$1"; then
		err "prof=$PROF wl=${WL:-} pid $1 ignored SIGINT for 600 s; killed"
		kill -KILL "$1" 2>/dev/null
	fi
	wait "$1" 2>/dev/null
}

# stat_read NAME: a counter of the flamestat module into $STAT, with shell
# builtins only. Just before a timed run no process may be started:
# flamestat pins a sampled new process's address space for up to 100 ms
# (its young window), so a short-lived helper's exit_mmap() would run in
# the next timed window.
stat_read() {
	STAT=
	while read -r _k _v; do
		if [ "$_k" = "$1" ]; then
			STAT=$_v
			return 0
		fi
	done </sys/class/misc/flamestat/stats
}

# run_timed WL: runs workload WL under timeit; sets ELAPSED etc.
TIMED=0
run_timed() {
	TIMED=$((TIMED + 1))
	if [ "${BENCH_DIRECT:-0}" = 1 ]; then
		# shellcheck disable=SC2086 # the command's words
		"$T" $WLCMD >"$W/wl.out" 2>"$W/time.out"
	else
		"$T" sh -c "$WLCMD" >"$W/wl.out" 2>"$W/time.out"
	fi
	_rc=$?
	TIMES=$(grep '^elapsed_ns=' "$W/time.out" | tail -n 1)
	if [ -z "$TIMES" ] || [ $_rc != 0 ]; then
		err "prof=$PROF wl=$WL rep=$REP workload failed (status $_rc): $(head -c 300 "$W/time.out" "$W/wl.out" | tr '\n' ' ')"
		TIMES=""
		return 1
	fi
	return 0
}

report() { # samples ubytes dbytes post_ns [extra]
	[ -n "$TIMES" ] || return 0
	echo "@@BENCH prof=$PROF wl=$WL rep=$REP $TIMES samples=$1 ubytes=$2 dbytes=$3 post_ns=$4 timed=$TIMED${5:+ $5}"
}

# keep FILE NAME: save as an artifact on the first repeat; BENCH_KEEP=all:
# later repeats' folded stacks too, as NAME with .repN before .folded.
keep() {
	[ -f "$1" ] || return 0
	case "$BENCH_KEEP:$REP:$2" in
	first:1:* | all:1:*) ;;
	all:*:*.folded) set -- "$1" "${2%.folded}.rep$REP.folded" ;;
	*) return 0 ;;
	esac
	mkdir -p "$FS_ARTIFACTS"
	cp "$1" "$FS_ARTIFACTS/$2"
}

# ---- one run of each profiler ----

prof_none() {
	run_timed && report 0 0 0 0
}

prof_floor() {
	insmod "$FLOOR_KO" "freq=$BENCH_FREQ" || { err "prof=floor insmod failed"; return 1; }
	sleep "$BENCH_SETTLE"
	read -r f0 </sys/module/flamestat_floor/parameters/fires
	run_timed
	read -r f1 </sys/module/flamestat_floor/parameters/fires
	rmmod flamestat_floor
	report $((f1 - f0)) 0 0 0 "window_samples=$((f1 - f0))"
}

# FS_UNWIND: record --unwind's argument (default: the tool's, auto).
prof_flamestat() {
	rm -f "$W/fs.svg" "$W/fs.fstat" "$W/fs.folded"
	# shellcheck disable=SC2086 # no option, or --unwind and its argument
	flamestat record -a -q -F "$BENCH_FREQ" -o "$W/fs.svg" --raw "$W/fs.fstat" \
		${FS_UNWIND:+--unwind $FS_UNWIND} --title "$PROF: $WL" 2>"$W/fs.err" &
	pid=$!
	if ! wait_until 60 fs_running; then
		err "prof=flamestat wl=$WL: record did not start: $(head -c 300 "$W/fs.err")"
		stop "$pid"
		return 1
	fi
	sleep "$BENCH_SETTLE"
	stat_read samples
	s0=$STAT
	run_timed
	stat_read samples
	s1=$STAT
	stat_read snapshot_read_bytes
	b0=$STAT
	t0=$(now_ns)
	stop "$pid"
	t1=$(now_ns)
	# What the tool copied out of the module (the snapshot, compressed
	# where the kernel can); the .fstat on disk is the tool's own gzip.
	stat_read snapshot_read_bytes
	b1=$STAT
	if [ ! -s "$W/fs.svg" ]; then
		err "prof=flamestat wl=$WL: no SVG: $(head -c 300 "$W/fs.err")"
		return 1
	fi
	flamestat fold --header "$W/fs.fstat" >"$W/fs.folded" 2>/dev/null
	recorded=$(awk '!/^#/ {s += $NF} END {print s + 0}' "$W/fs.folded")
	hdr=$(grep -m1 '^# flamestat:' "$W/fs.folded")
	cost=$(echo "$hdr" | sed -n 's/.* cost_ns=\([0-9.e+-]*\).*/\1/p')
	taken=$(echo "$hdr" | sed -n 's/.* samples=\([0-9]*\).*/\1/p')
	# How the user stacks were walked (samples): by tables, by both, by
	# frame pointers, stopped early.
	uw=
	for k in unwind_table unwind_mixed unwind_fp unwind_stopped; do
		v=$(echo "$hdr" | sed -n "s/.* $k=\([0-9]*\).*/\1/p")
		uw="$uw $k=${v:-0}"
	done
	report "${taken:-0}" $((${b1:-0} - ${b0:-0})) "$(size "$W/fs.svg")" $((t1 - t0)) \
		"window_samples=$((s1 - s0)) recorded=$recorded cost_ns=${cost:-?}$uw"
	# Every timer firing of the session, idle ones included, against
	# the time it ran (the module's counters outlive the recording).
	stat_read samples
	s2=$STAT
	stat_read running_ns
	d2=$STAT
	stat_read overruns
	echo "@@BENCH-RATE wl=$WL rep=$REP samples=$s2 duration_ns=$d2 cpus=$(nproc) overruns=$STAT"
	keep "$W/fs.folded" "$PROF-$WL.folded"
	keep "$W/fs.svg" "$PROF-$WL.svg"
	keep "$W/fs.fstat" "$PROF-$WL.fstat"
	# the module stays loaded (stopped) for the next run
}

# (Assignments before a function call may outlive it in POSIX sh: set and
# cleared here.)
prof_fsfp() {
	FS_UNWIND=fp
	prof_flamestat
	_r=$?
	FS_UNWIND=
	return $_r
}

# PERF_CG: perf record's call-graph option (default -g, frame pointers);
# PERF_SCRIPT: perf script's options; PERF_COLLAPSE: stackcollapse-perf.pl's.
prof_perf() {
	command -v perf >/dev/null || { err "prof=$PROF: perf is not installed in this guest"; return 1; }
	rm -f "$W/perf.data" "$W/perf.svg"
	# shellcheck disable=SC2086 # the option's words
	perf record -F "$BENCH_FREQ" -a ${PERF_CG:--g} -o "$W/perf.data" 2>"$W/perf.err" >/dev/null &
	pid=$!
	if ! wait_until 60 has_perf_fds "$pid"; then
		err "prof=$PROF wl=$WL: perf record did not start: $(head -c 300 "$W/perf.err")"
		stop "$pid"
		return 1
	fi
	sleep "$BENCH_SETTLE"
	run_timed
	t0=$(now_ns)
	stop "$pid"
	# shellcheck disable=SC2086 # the options' words
	perf script ${PERF_SCRIPT:-} -i "$W/perf.data" 2>"$W/perf-script.err" >"$W/perf.script"
	# shellcheck disable=SC2086 # the options' words
	perl "$FG/stackcollapse-perf.pl" ${PERF_COLLAPSE:-} "$W/perf.script" >"$W/perf.folded"
	perl "$FG/flamegraph.pl" "$W/perf.folded" >"$W/perf.svg"
	t1=$(now_ns)
	# One header line per sample (stackcollapse-perf.pl weighs by period).
	samples=$(grep -c '^[^[:space:]#]' "$W/perf.script")
	report "$samples" "$(size "$W/perf.data")" "$(size "$W/perf.data" "$W/perf.svg")" $((t1 - t0))
	keep "$W/perf.folded" "$PROF-$WL.folded"
	keep "$W/perf-script.err" "$PROF-$WL.script.err"
}

# perf's answer for code without frame pointers: 8 KiB of stack copied per
# sample, unwound by perf script afterwards. For the chain comparison,
# kernel frames marked _[k] and no inlined frames, as flamestat folds.
prof_perfdwarf() {
	PERF_CG="--call-graph dwarf" PERF_SCRIPT=--no-inline PERF_COLLAPSE=--kernel
	prof_perf
	_r=$?
	PERF_CG='' PERF_SCRIPT='' PERF_COLLAPSE=''
	return $_r
}

BT_PROG='profile:hz:997 { @[kstack, ustack, comm] = count(); }'

prof_bpftrace() {
	command -v bpftrace >/dev/null || { err "prof=bpftrace: bpftrace is not installed in this guest"; return 1; }
	rm -f "$W/bt.out" "$W/bt.svg"
	prog=$(echo "$BT_PROG" | sed "s/hz:997/hz:$BENCH_FREQ/")
	bpftrace -e "$prog" >"$W/bt.out" 2>"$W/bt.err" &
	pid=$!
	if ! wait_until 300 has_perf_fds "$pid"; then
		err "prof=bpftrace wl=$WL: bpftrace did not start: $(head -c 300 "$W/bt.err" "$W/bt.out")"
		stop "$pid"
		return 1
	fi
	sleep "$BENCH_SETTLE"
	run_timed
	t0=$(now_ns)
	stop "$pid"
	perl "$FG/stackcollapse-bpftrace.pl" "$W/bt.out" >"$W/bt.folded"
	perl "$FG/flamegraph.pl" "$W/bt.folded" >"$W/bt.svg"
	t1=$(now_ns)
	samples=$(awk '!/^#/ {s += $NF} END {print s + 0}' "$W/bt.folded")
	# Read from the kernel at exit: each map entry (key: two stack ids
	# and comm, 32 bytes; value 8) and its two stacks (127 x 8 bytes each
	# in the stack map). An estimate: bpf() reads are not counted anywhere.
	entries=$(grep -c '^@\[' "$W/bt.out")
	report "$samples" $((entries * (40 + 2 * 1016))) "$(size "$W/bt.svg")" $((t1 - t0)) \
		"printed=$(size "$W/bt.out") entries=$entries"
	keep "$W/bt.folded" "bpftrace-$WL.folded"
}

# bcc's profile compiles its BPF program with clang at every start, which
# takes many minutes of guest time under -icount: one session measures
# every run of every workload (bcc_start, then prof_bcc per run, then
# bcc_finish), and its samples, bytes and flame graph are the session's.
BCC_PID=""
bcc_start() {
	p=$(command -v profile-bpfcc || echo /usr/sbin/profile-bpfcc)
	[ -x "$p" ] || { err "prof=bcc: profile-bpfcc is not installed in this guest"; return 1; }
	rm -f "$W/bcc.folded" "$W/bcc.svg"
	t0=$(now_ns)
	# A script's background jobs start with SIGINT ignored, and Python
	# then never raises KeyboardInterrupt, which is how profile stops.
	env --default-signal=INT "$p" -F "$BENCH_FREQ" -f >"$W/bcc.folded" 2>"$W/bcc.err" &
	BCC_PID=$!
	if ! wait_until 600 has_perf_fds "$BCC_PID"; then
		err "prof=bcc: profile did not start: $(head -c 300 "$W/bcc.err")"
		stop "$BCC_PID"
		BCC_PID=""
		return 1
	fi
	t1=$(now_ns)
	msg "bcc profile started in $(((t1 - t0) / 1000000)) ms of guest time"
	BCC_START_NS=$((t1 - t0))
	sleep "$BENCH_SETTLE"
}

prof_bcc() {
	[ -n "$BCC_PID" ] || return 1
	alive "$BCC_PID" || { err "prof=bcc wl=$WL: profile exited"; return 1; }
	run_timed && report 0 0 0 0 "session=1"
}

bcc_finish() {
	[ -n "$BCC_PID" ] || return 0
	t0=$(now_ns)
	stop "$BCC_PID"
	perl "$FG/flamegraph.pl" "$W/bcc.folded" >"$W/bcc.svg"
	t1=$(now_ns)
	samples=$(awk '{s += $NF} END {print s + 0}' "$W/bcc.folded")
	# As for bpftrace: per entry a 40-byte key (pid, ip, two stack ids,
	# comm) and 8-byte value, and two 127-frame stacks (an estimate).
	entries=$(wc -l <"$W/bcc.folded")
	echo "@@BENCH-SESSION prof=bcc runs=$BCC_RUNS samples=$samples ubytes=$((entries * (48 + 2 * 1016))) dbytes=$(size "$W/bcc.folded" "$W/bcc.svg") post_ns=$((t1 - t0)) start_ns=$BCC_START_NS printed=$(size "$W/bcc.folded") entries=$entries"
	REP=1 keep "$W/bcc.folded" "bcc-session.folded"
	BCC_PID=""
}

# ---- main ----

# The same addresses every run: fewer differences between repeats. The
# host side boots with norandmaps, so that this shell and its parents are
# not randomized either: perf keeps the maps a process inherits at fork
# across its exec, and its dwarf unwinding takes a file's lowest mapping
# as its base, so a parent's randomized libc below the workload's put
# libc's unwind table in the wrong place, and perf --call-graph dwarf
# stopped at the first libc frame. This write is for guests booted
# without it.
echo 0 >/proc/sys/kernel/randomize_va_space 2>/dev/null
msg "guest $(uname -r), $(nproc) CPU(s), profilers: $BENCH_PROFILERS"
if command -v flamestat >/dev/null; then
	# Loaded once, stopped: the tool drives it.
	modprobe flamestat autostart=0 2>/dev/null ||
		insmod /lib/flamestat/flamestat.ko autostart=0 || err "cannot load flamestat.ko"
fi

if [ "${BENCH_JITTER:-0}" != 0 ]; then
	case " $BENCH_PROFILERS " in
	*" floor "*) err "BENCH_JITTER: the floor profiler needs the module unloaded" ;;
	*) insmod "$FLOOR_KO" freq="${BENCH_JITTER_FREQ:-1009}" jitter="$BENCH_JITTER" ||
		err "BENCH_JITTER: insmod failed" ;;
	esac
fi

if [ "${BENCH_KALLSYMS:-0}" = 1 ]; then
	# For bench/overhead/insnprof-report.sh: every kernel symbol, the
	# floor module's and flamestat's included.
	if [ -d /sys/module/flamestat_floor ]; then
		cat /proc/kallsyms >"$W/kallsyms"
	else
		insmod "$FLOOR_KO" && cat /proc/kallsyms >"$W/kallsyms" && rmmod flamestat_floor
	fi
	mkdir -p "$FS_ARTIFACTS"
	cp "$W/kallsyms" "$FS_ARTIFACTS/kallsyms"
fi

echo "$BENCH_WORKLOADS" | tr '|' '\n' >"$W/workloads"
if [ "${BENCH_ENTRY:-0}" = 1 ]; then
	# ld.so shows the auxiliary vector; the workload then stops at
	# the unknown option.
	while IFS= read -r spec; do
		[ -n "$spec" ] || continue
		bin=${spec#*=}
		bin=${bin%% *}
		e=$(timeout 60 env LD_SHOW_AUXV=1 "$bin" -/ </dev/null 2>/dev/null | sed -n 's/^AT_ENTRY: *//p')
		echo "@@BENCH-ENTRY wl=${spec%%=*} entry=${e:-?}"
	done <"$W/workloads"
fi
# Warm-up: each workload once, untimed, so that every measured run finds
# the same page cache and the same kernel state (first runs fault in and
# activate pages that later runs do not). BENCH_WARMUP_RECORD=1: under a
# flamestat recording, so that the unwind tables of the workloads' files
# are built before the first measured run, as in a recording that has
# run for a while (the module keeps them across recordings): the unwind
# phase measures the walk, and the build is measured on its own
# (make bench: bench/30-unwind-tables.sh).
warm_pid=
if [ "${BENCH_WARMUP:-1}" = 1 ] && [ "${BENCH_WARMUP_RECORD:-0}" = 1 ]; then
	flamestat record -a -q -F "$BENCH_FREQ" -o "$W/warm.svg" 2>"$W/warm.err" &
	warm_pid=$!
	wait_until 60 fs_running || err "the warm-up recording did not start: $(head -c 300 "$W/warm.err")"
fi
while IFS= read -r spec; do
	if [ -z "$spec" ] || [ "${BENCH_WARMUP:-1}" != 1 ]; then
		continue
	fi
	msg "warm-up ${spec%%=*}${warm_pid:+ (recorded)}"
	sh -c "${spec#*=}" </dev/null >/dev/null 2>&1
done <"$W/workloads"
if [ -n "$warm_pid" ]; then
	stop "$warm_pid"
	rm -f "$W/warm.svg"
fi

# run_all PROFILERS: every repeat of every workload under each of them.
run_all() {
	REP=0
	while [ $REP -lt "$BENCH_REPEATS" ]; do
		REP=$((REP + 1))
		while IFS= read -r spec; do
			[ -n "$spec" ] || continue
			WL=${spec%%=*}
			WLCMD=${spec#*=}
			for PROF in $1; do
				msg "rep $REP $WL $PROF"
				"prof_$PROF" </dev/null && BCC_RUNS=$((BCC_RUNS + 1))
			done
		done <"$W/workloads"
	done
}

BCC_RUNS=0
run_all "$(echo " $BENCH_PROFILERS " | sed 's/ bcc / /')"
case " $BENCH_PROFILERS " in
*" bcc "*)
	BCC_RUNS=0
	if bcc_start </dev/null; then
		run_all bcc
		bcc_finish
	fi ;;
esac
[ -d /sys/module/flamestat ] && rmmod flamestat
[ -d /sys/module/flamestat_floor ] && rmmod flamestat_floor
msg "done"
