#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of `make bench-offcpu` (sourced by the test bench/offcpu.sh
# generates, after /tests/lib.sh): off-CPU profilers side by side.
#
# accuracy: /opt/workloads/offcpu (sleep, pipe, mutex, disk and direct
#   parts; disk writes and fsyncs a file of the root file system, a virtio
#   disk, direct writes another range of it with O_DIRECT) under each profiler in turn, system-wide; per blocking function
#   the profiler's off-CPU time (the stacks of the function's thread that
#   name the function) against that run's truth (the workload's own wall
#   minus CPU time in the calls):
#     @@BENCH-OFFCPU prof=P func=F comm=C truth_ns=T wall_ns=W calls=N
#                    vcsw=V ivcsw=I tool_ns=X [state=S]
#   (V, I: the thread's voluntary and involuntary switches in the calls)
# cost: `perf bench sched pipe -l LOOPS` with no profiler and under each;
#   context switches from /proc/stat:
#     @@BENCH-OFFCOST prof=P rep=R elapsed_ns=E switches=S loops=L seen_ns=O
#   (O: the off-CPU ns the profiler found in perf bench's two processes,
#   comm sched-pipe, a check that it was at work: about E, one of them
#   always waits)
# A profiler that cannot run: "@@BENCH-ERROR ...", and what it printed.
#
# Set by the generated test: BENCH_DIR (timeit), OFF_SECONDS, OFF_LOOPS,
# OFF_REPEATS, OFF_PROFILERS (flamestat bcc perf perf-sched, and
# flamestat-user: record --off-cpu -U, user stacks only as perf's).

T=$BENCH_DIR/timeit
W=/tmp/offbench
WL=/opt/workloads/offcpu
DATA=/var/tmp/offcpu.dat
mkdir -p "$W" "$FS_ARTIFACTS"
export PATH="$PATH:/usr/sbin:/sbin"

msg() { echo "# bench: $*"; }
err() { echo "@@BENCH-ERROR $*"; }
now_ns() { "$T" -n; }
alive() { kill -0 "$1" 2>/dev/null; }
dead() { ! kill -0 "$1" 2>/dev/null; }

wait_until() { # TIMEOUT_S CMD...
	_lim=$(($1 * 5))
	shift
	_i=0
	while ! "$@" >/dev/null 2>&1; do
		_i=$((_i + 1))
		[ $_i -ge "$_lim" ] && return 1
		sleep 0.2
	done
}

# fds PID KIND: how many of PID's descriptors are KIND (perf_event, bpf-prog).
fds() {
	_n=0
	for _f in "/proc/$1/fd/"*; do
		case "$(readlink "$_f" 2>/dev/null)" in
		*"$2"*) _n=$((_n + 1)) ;;
		esac
	done
	echo "$_n"
}
has_fd() { [ "$(fds "$1" "$2")" -ge 1 ]; }

stop() { # PID: Ctrl-C, as a user stops a profiler
	kill -INT "$1" 2>/dev/null
	if ! wait_until 900 dead "$1"; then
		err "prof=$PROF pid $1 ignored SIGINT for 900 s; killed"
		kill -KILL "$1" 2>/dev/null
	fi
	wait "$1" 2>/dev/null
}

# Does the tool have record --off-cpu (the tool side of issue 14)?
tool_offcpu() { flamestat record --help 2>&1 | grep -q -- '--off-cpu'; }

# ---- starting and stopping each profiler; the folded output in $W/P.folded,
# values in ns ----

# flamestat-user: the same with -U (user stacks only, as perf --off-cpu
# records them): what the kernel stack costs.
start_flamestat_user() { start_flamestat -U; }
stop_flamestat_user() { stop_flamestat; }

start_flamestat() {
	rmmod flamestat 2>/dev/null
	if tool_offcpu; then
		flamestat record --off-cpu "$@" -a -q -o "$W/$PROF.folded" 2>"$W/$PROF.err" &
		PID=$!
		wait_until 60 sh -c 'flamestat status 2>/dev/null | grep -q "^running: *yes"' ||
			{ err "prof=$PROF: record --off-cpu $* did not start: $(head -c 300 "$W/$PROF.err")"; stop "$PID"; return 1; }
	elif [ $# -gt 0 ]; then
		err "prof=$PROF: the tool has no record --off-cpu"
		return 1
	else
		# The module alone (its parameters), until the tool has --off-cpu.
		PID=""
		if ! insmod /lib/flamestat/flamestat.ko mode=offcpu 2>"$W/flamestat.err"; then
			err "prof=flamestat: insmod flamestat.ko mode=offcpu: $(head -c 200 "$W/flamestat.err") $(dmesg | tail -n 3 | tr '\n' ' ')"
			return 1
		fi
		# A module without off-CPU support ignores mode= (an unknown
		# parameter) and samples CPU time.
		if ! grep -q '^offcpu_blocks ' /sys/class/misc/flamestat/stats; then
			err "prof=flamestat: this module has no off-CPU mode ($(dmesg | grep -m1 "unknown parameter 'mode'" | sed 's/^\[[^]]*\] //'))"
			rmmod flamestat
			return 1
		fi
	fi
}

stop_flamestat() {
	if [ -n "$PID" ]; then
		stop "$PID"
	else
		cat /dev/flamestat >"$W/flamestat.raw"
		cp /sys/class/misc/flamestat/stats "$W/flamestat.stats"
		rmmod flamestat
		grep -v '^#' "$W/flamestat.raw" | fs_symbolize >"$W/flamestat.folded"
	fi
}

start_bcc() {
	p=$(command -v offcputime-bpfcc || echo /usr/sbin/offcputime-bpfcc)
	[ -x "$p" ] || { err "prof=bcc: offcputime-bpfcc is not installed"; return 1; }
	t0=$(now_ns)
	# SIGINT must reach Python (a script's background jobs ignore it).
	env --default-signal=INT "$p" -f >"$W/bcc.us" 2>"$W/bcc.err" &
	PID=$!
	# Attached: its kprobe on finish_task_switch is a perf_event descriptor.
	if ! wait_until 1200 has_fd "$PID" perf_event; then
		err "prof=bcc: offcputime did not start: $(head -c 300 "$W/bcc.err")"
		stop "$PID"
		return 1
	fi
	msg "offcputime attached after $((($(now_ns) - t0) / 1000000)) ms"
}

stop_bcc() {
	stop "$PID"
	# microseconds -> ns
	awk '{ $NF = $NF * 1000; print }' "$W/bcc.us" >"$W/bcc.folded"
}

# perf record --off-cpu: BPF, in a perf built with BUILD_BPF_SKEL=1
# (bench/perf-bpf/build.sh, from the source of this kernel: Debian's perf
# refuses --off-cpu). -e dummy: the off-CPU samples alone, without perf's
# default CPU sampling (as perf's own test of --off-cpu does,
# tools/perf/tests/shell/record_offcpu.sh). Its BPF program (on
# tp_btf/sched_switch) adds, per thread, user stack and state, the time
# from a switch-out in state S or D (not R: a preempted task's wait for
# the CPU is not counted) to that thread's next switch-in; at the end perf
# writes the sums as samples of the event "offcpu-time" whose period is the
# off-CPU time in ns (perf-record(1)), with the user stack (frame
# pointers; no kernel frames) as the call chain.
PERF_BPF=/opt/perf-bpf/perf
perf_bpf_version() { "$PERF_BPF" version 2>&1 | sed 's/perf version //'; }
perf_ready() { dead "$1" || { has_fd "$1" bpf-prog && has_fd "$1" perf_event; }; }
start_perf() {
	[ -x "$PERF_BPF" ] || { err "prof=perf: no $PERF_BPF (a perf with BPF skeletons: bench/perf-bpf/build.sh did not build one)"; return 1; }
	if ! "$PERF_BPF" version --build-options 2>&1 | grep -q 'bpf_skeletons: *\[ on'; then
		err "prof=perf: $PERF_BPF has no BPF skeletons: $("$PERF_BPF" version --build-options 2>&1 | grep bpf_skel)"
		return 1
	fi
	[ -r /sys/kernel/btf/vmlinux ] || { err "prof=perf: no /sys/kernel/btf/vmlinux: this kernel has no BTF, which --off-cpu's BPF program needs"; return 1; }
	"$PERF_BPF" record --off-cpu -e dummy -a -o "$W/perf.data" >"$W/perf.out" 2>"$W/perf.err" &
	PID=$!
	# Its program attached (a bpf-prog descriptor) and the events open.
	if ! wait_until 120 perf_ready "$PID" || dead "$PID"; then
		err "prof=perf: perf $(perf_bpf_version) record --off-cpu did not start: $(head -c 300 "$W/perf.err" | tr '\n' ' ')"
		stop "$PID"
		return 1
	fi
}

stop_perf() {
	stop "$PID"
	cp "$W/perf.err" "$FS_ARTIFACTS/perf-record.err" 2>/dev/null
	# The offcpu-time samples: a header line (comm, tid, event, period:
	# the off-CPU ns), then the call chain, leaf first, one frame a line.
	"$PERF_BPF" script -i "$W/perf.data" -F comm,tid,event,period,ip,sym 2>"$W/perf-script.err" | awk '
		/^[^ \t]/ { keep = ($0 ~ /offcpu-time/); comm = $1; n = 0; v = 0
			for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+$/) v = $i; next }
		NF == 0 { if (keep && n) { s = comm; for (i = n; i >= 1; i--) s = s ";" f[i]; t[s] += v } keep = 0; next }
		keep { f[++n] = $2 }
		END { for (s in t) print s, t[s] }' >"$W/perf.folded"
	[ -s "$W/perf.folded" ] || err "prof=perf: no offcpu-time samples in perf.data: $(head -c 300 "$W/perf-script.err" | tr '\n' ' ')"
}

# perf without BPF, as before --off-cpu: every sched_switch with its
# call chain (-e sched:sched_switch -g), and the time from a task's
# switch-out to its next switch-in added to the switch-out stack.
start_perf_sched() {
	command -v perf >/dev/null || { err "prof=perf-sched: no perf"; return 1; }
	perf record -e sched:sched_switch -a -g -o "$W/perfs.data" >/dev/null 2>"$W/perfs.err" &
	PID=$!
	wait_until 60 has_fd "$PID" perf_event ||
		{ err "prof=perf-sched: perf record did not start: $(head -c 300 "$W/perfs.err")"; stop "$PID"; return 1; }
}

stop_perf_sched() {
	stop "$PID"
	perf script -i "$W/perfs.data" -F comm,tid,time,trace,ip,sym 2>/dev/null | awk '
		function ns(s) { sub(/:$/, "", s); split(s, a, "."); return a[1] * 1000000000 + a[2] * 1000 }
		/prev_pid=/ {
			t = 0; pp = ""; np = ""
			for (i = 1; i <= NF; i++) {
				if ($i ~ /^[0-9]+\.[0-9]+:?$/ && !t) t = ns($i)
				if ($i ~ /^prev_pid=/) pp = substr($i, 10)
				if ($i ~ /^next_pid=/) np = substr($i, 10)
				if ($i ~ /^prev_comm=/) pc = substr($i, 11)
			}
			if (np in start) { tot[stk[np]] += t - start[np]; delete start[np] }
			cur = pp; comm = pc; n = 0; inev = 1; next
		}
		NF == 0 { if (inev && cur != "" && cur != "0") { s = comm; for (i = n; i >= 1; i--) s = s ";" f[i]; stk[cur] = s; start[cur] = t } inev = 0; next }
		inev { f[++n] = $2 }
		END { for (s in tot) print s, tot[s] }' >"$W/perf-sched.folded"
}

# ---- accuracy ----

# tool_ns FOLDED COMM FUNC: off-CPU ns of COMM's stacks naming FUNC.
tool_ns() {
	awk -v c="$2" -v f="$3" '{ v = $NF; s = $0; sub(/ [0-9.e+]+$/, "", s)
		n = split(s, a, ";"); if (a[1] != c) next
		for (i = 2; i <= n; i++) if (a[i] == f || a[i] == f "_[k]") { t += v; break } }
		END { printf "%.0f\n", t }' "$1"
}

# state_of FOLDED COMM FUNC: the [off-cpu X] states of those stacks, by
# share of time ("S=99.8% D=0.2%"); flamestat's output only.
state_of() {
	awk -v c="$2" -v f="$3" '{ v = $NF; s = $0; sub(/ [0-9]+$/, "", s)
		n = split(s, a, ";"); if (a[1] != c) next
		hit = 0; st = "?"
		for (i = 2; i <= n; i++) { if (a[i] == f) hit = 1; if (a[i] ~ /^\[off-cpu[ :][SDR]\]$/) st = substr(a[i], 10, 1) }
		if (hit) { t[st] += v; tot += v } }
		END { for (k in t) printf "%s%s=%.1f%%", (o++ ? "," : ""), k, 100 * t[k] / tot; print "" }' "$1"
}

accuracy_run() { # PROF
	PROF=$1
	rm -f "$W/$PROF.folded" "$W/truth"
	if [ "$PROF" != none ]; then
		"start_$(echo "$PROF" | tr - _)" </dev/null || return 1
		sleep 2
	fi
	# -k: the workload stays (paused) after its truth until killed, so
	# that profilers symbolizing at the end find the process.
	"$WL" -k -p sleep,pipe,mutex,disk,direct -f "$DATA" "$OFF_SECONDS" >"$W/truth" 2>"$W/wl.err" &
	wpid=$!
	if ! wait_until 600 grep -q '^end' "$W/truth"; then
		err "prof=$PROF: the workload did not finish: $(head -c 300 "$W/wl.err")"
	fi
	[ "$PROF" != none ] && "stop_$(echo "$PROF" | tr - _)"
	kill "$wpid" 2>/dev/null
	wait "$wpid" 2>/dev/null
	cp "$W/truth" "$FS_ARTIFACTS/truth-$PROF.txt"
	[ -f "$W/$PROF.folded" ] && cp "$W/$PROF.folded" "$FS_ARTIFACTS/$PROF.folded"
	grep '^func ' "$W/truth" | while read -r _ fn rest; do
		comm=$(echo "$rest" | sed -n 's/.*comm=\([^ ]*\).*/\1/p')
		off=$(echo "$rest" | sed -n 's/.* off_ns=\([0-9]*\).*/\1/p')
		calls=$(echo "$rest" | sed -n 's/.* calls=\([0-9]*\).*/\1/p')
		wall=$(echo "$rest" | sed -n 's/.* wall_ns=\([0-9]*\).*/\1/p')
		vcsw=$(echo "$rest" | sed -n 's/.* vcsw=\([0-9]*\).*/\1/p')
		ivcsw=$(echo "$rest" | sed -n 's/.* ivcsw=\([0-9]*\).*/\1/p')
		got=0 st=""
		if [ "$PROF" != none ]; then
			got=$(tool_ns "$W/$PROF.folded" "$comm" "$fn")
			case $PROF in flamestat*) st=" state=$(state_of "$W/$PROF.folded" "$comm" "$fn")" ;; esac
		fi
		echo "@@BENCH-OFFCPU prof=$PROF func=$fn comm=$comm truth_ns=$off wall_ns=$wall calls=$calls vcsw=$vcsw ivcsw=$ivcsw tool_ns=$got$st"
	done
	# The workload's off-CPU time a profiler kept without a stack: bcc's
	# "[Missed Kernel Stack]" / "[Missed User Stack]" (its stack map
	# full, or a hash collision).
	if [ "$PROF" != none ]; then
		awk -v p="$PROF" '/^off-/ { v = $NF; t += v; if ($0 ~ /\[Missed (Kernel|User) Stack\]/) m += v }
			END { printf "@@BENCH-OFFLOST prof=%s total_ns=%.0f missed_ns=%.0f\n", p, t, m }' "$W/$PROF.folded"
	fi
}

# ---- cost ----

ctxt() { awk '$1 == "ctxt" { print $2 }' /proc/stat; }

cost_run() { # PROF REP
	PROF=$1
	if [ "$PROF" != none ]; then
		"start_$(echo "$PROF" | tr - _)" </dev/null || return 1
		sleep 2
	fi
	c0=$(ctxt)
	t0=$(now_ns)
	perf bench sched pipe -l "$OFF_LOOPS" >"$W/pipe.out" 2>&1
	t1=$(now_ns)
	c1=$(ctxt)
	seen=0
	# flamestat's own view of the run (the module was loaded for it):
	# how many blocks took the shortcuts that make a switch cheap.
	fsst=""
	case $PROF in
	flamestat*)
		fsst=$(awk '$1 ~ /^(offcpu_recorded|offcpu_recent_hits|kstack_cache_hits|kstack_cache_walks)$/ {
			printf " %s=%s", $1, $2 }' /sys/class/misc/flamestat/stats 2>/dev/null) ;;
	esac
	if [ "$PROF" != none ]; then
		rm -f "$W/$PROF.folded"
		"stop_$(echo "$PROF" | tr - _)" >/dev/null 2>&1
		seen=$(awk '{ s = $0; sub(/ [0-9.e+]+$/, "", s); split(s, a, ";")
			if (a[1] == "sched-pipe") t += $NF } END { printf "%.0f\n", t }' "$W/$PROF.folded" 2>/dev/null)
	fi
	echo "@@BENCH-OFFCOST prof=$PROF rep=$2 elapsed_ns=$((t1 - t0)) switches=$((c1 - c0)) loops=$OFF_LOOPS seen_ns=${seen:-0}$fsst"
}

# ---- main ----

msg "guest $(uname -r), $(nproc) CPU(s), perf $(perf version 2>&1 | sed 's/perf version //'), BPF perf $(perf_bpf_version), BTF $(test -r /sys/kernel/btf/vmlinux && echo yes || echo no), profilers: $OFF_PROFILERS"
rmmod flamestat 2>/dev/null
dd if=/dev/zero of="$DATA" bs=1M count=4 2>/dev/null
sync
msg "accuracy: offcpu for $OFF_SECONDS s under each profiler"
for p in none $OFF_PROFILERS; do
	msg "accuracy $p"
	accuracy_run "$p"
done
msg "cost: perf bench sched pipe -l $OFF_LOOPS, $OFF_REPEATS repeats"
"$WL" -p sleep 0.1 >/dev/null # warm-up
for r in $(seq 1 "$OFF_REPEATS"); do
	for p in none $OFF_PROFILERS; do
		msg "cost rep $r $p"
		cost_run "$p" "$r"
	done
done
cp "$W"/*.err "$FS_ARTIFACTS/" 2>/dev/null
msg "done"
