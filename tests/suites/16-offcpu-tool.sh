#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Off-CPU and wall-clock profiles in the tool, on the host (issue 14):
# synthetic snapshots (tests/tool/mksnap.c, tests/tool/offcpu/wall.spec)
# with off-CPU stacks in S, D and R, a waker's stack, on-CPU stacks beside
# them and the three STACK layouts (no periods, periods, periods and
# time), folded exactly, reported in time units, drawn (title, tooltips,
# hot and cold colours), as pprof (read back by go tool pprof) and
# speedscope; the folded text's mode line read back; bad records refused;
# record's options and summary, status's counters (tests/tool/recordargs.c,
# recordsum.c, statusfmt.c). Every check compares exact values.
# shellcheck source-path=SCRIPTDIR source=../lib/common.sh
source "$(dirname "$0")/../lib/common.sh"

T=$BUILD/offcpu
FS=$TOP/user/flamestat
SPEC=$TOP/tests/tool/offcpu/wall.spec
mkdir -p "$T"
[ -x "$FS" ] || { fail offcpu-build "user/flamestat is not built (make tool)"; exit 0; }
if ! gcc -O1 -g -std=gnu11 -Wall -Wextra -Werror -I"$TOP/kmod" \
	-o "$T/mksnap" "$TOP/tests/tool/mksnap.c" 2>"$T/mksnap.log"; then
	fail offcpu-mksnap "$(head -3 "$T/mksnap.log" | tr '\n' '|')"
	exit 0
fi
: >"$T/kallsyms"
env_opts=(--kallsyms "$T/kallsyms" --perfmap-dir "$T" --debug-dir "$T")

# same NAME WANT-FILE GOT-FILE
same() {
	if cmp -s "$2" "$3"; then
		pass "$1"
	else
		fail "$1" "$(diff "$2" "$3" | head -8 | tr '\n' '|')"
	fi
}

# snap NAME [SED-EXPR]: $T/NAME.fstat from the spec, edited by SED-EXPR.
snap() {
	sed -e "${2:-}" "$SPEC" | "$T/mksnap" >"$T/$1.fstat" 2>"$T/$1.err" ||
		{ fail "offcpu-snap-$1" "mksnap: $(cat "$T/$1.err")"; return 1; }
}

snap wall
# Off-CPU only: no timer, so no on-CPU stacks.
snap off 's/measure=wall/measure=offcpu/; s/samples=14 recorded=14/samples=0 recorded=0/; /periods=12 time=12000000\|periods=4 time=4000000/d'

# fold: the mode line first; off-CPU stacks end in [off-cpu:S|D|R], the
# waker's frames after "--", leaf first, "_[w]"; values are ns (on-CPU:
# 12 periods of 1 ms).
cat >"$T/wall.want" <<'EOF'
# flamestat: mode wall, values in ns
app;[unknown]+0x2000;[unknown]+0x1000;do_nanosleep_[k];schedule_[k];[off-cpu:S];--;try_to_wake_up_[w];hrtimer_wakeup_[w] 3000000000
app;[unknown]+0x2000;[unknown]+0x1000;ext4_fsync [ext4]_[k];io_schedule_[k];schedule_[k];[off-cpu:D] 1500000000
app;[unknown]+0x2000;[unknown]+0x1000;vfs_read_[k] 12000000
app;[unknown]+0x2000;[unknown]+0x3000;schedule_[k];[off-cpu:R] 500000
app;[unknown]+0x4000 4000000
app;[unknown]+0x4000;[off-cpu:S] 750
kworker/0:1;io_schedule_[k];schedule_[k];[off-cpu:S] 249500000
EOF
"$FS" fold "${env_opts[@]}" "$T/wall.fstat" >"$T/wall.folded" 2>"$T/wall.folded.err"
same offcpu-fold-wall "$T/wall.want" "$T/wall.folded"
grep -v '^app;\[unknown\]+0x4000 \|vfs_read' "$T/wall.want" |
	sed 's/mode wall/mode offcpu/' >"$T/off.want"
"$FS" fold "${env_opts[@]}" "$T/off.fstat" >"$T/off.folded" 2>/dev/null
same offcpu-fold-offcpu "$T/off.want" "$T/off.folded"

# A waker stack cut at its depth: "[truncated]_[w]" at its root end, last,
# as the module's text prints it.
if snap wt 's/comm=app flags=off periods=3/comm=app flags=off,wt periods=3/'; then
	"$FS" fold "${env_opts[@]}" "$T/wt.fstat" 2>/dev/null | grep 'hrtimer_wakeup' >"$T/wt.got"
	echo 'app;[unknown]+0x2000;[unknown]+0x1000;do_nanosleep_[k];schedule_[k];[off-cpu:S];--;try_to_wake_up_[w];hrtimer_wakeup_[w];[truncated]_[w] 3000000000' >"$T/wt.want"
	same offcpu-fold-waker-truncated "$T/wt.want" "$T/wt.got"
fi

# --header: the mode line, then the header with mode= and count=ns.
"$FS" fold "${env_opts[@]}" --header "$T/wall.fstat" 2>/dev/null | head -2 >"$T/header.got"
cat >"$T/header.want" <<'EOF'
# flamestat: mode wall, values in ns
# flamestat: mode=wall count=ns samples=14 sample_periods=16 recorded=14 dropped=0 freq=1000 duration_ns=2000000000 cpus=2 cost_ns=0 blocks=8 blocks_lost=2 user_samples=21 frameless=0
EOF
same offcpu-fold-header "$T/header.want" "$T/header.got"

# --no-annotate: no suffixes at all, the waker's neither.
"$FS" fold "${env_opts[@]}" --no-annotate "$T/wall.fstat" 2>/dev/null | sed -n 2p >"$T/noann.got"
echo 'app;[unknown]+0x2000;[unknown]+0x1000;do_nanosleep;schedule;[off-cpu:S];--;try_to_wake_up;hrtimer_wakeup 3000000000' >"$T/noann.want"
same offcpu-fold-no-annotate "$T/noann.want" "$T/noann.got"

# Records without their time (modules before it) in a wall snapshot: the
# periods x the period; without periods, the count x the period.
snap notime 's/ periods=12 time=12000000/ periods=12/; s/^stack 4 proc=1 tgid=100 comm=app periods=4 time=4000000/stack 4 proc=1 tgid=100 comm=app/'
"$FS" fold "${env_opts[@]}" "$T/notime.fstat" >"$T/notime.folded" 2>/dev/null
same offcpu-fold-layouts "$T/wall.want" "$T/notime.folded"

# The older header (no off-CPU counters) of a CPU-time snapshot: the
# same lines as the new header's, counts of periods, no mode line.
cpu_spec='s/measure=wall waker=1 min_block_us=50/measure=cpu/; /^header/s/ blocks=.*//; / flags=[a-z,]*off/d; s/ time=[0-9]*//'
snap cpunew "$cpu_spec"
snap cpuv1 "$cpu_spec; s/^header /header layout=v1 /"
"$FS" fold "${env_opts[@]}" "$T/cpunew.fstat" >"$T/cpunew.folded" 2>/dev/null
"$FS" fold "${env_opts[@]}" "$T/cpuv1.fstat" >"$T/cpuv1.folded" 2>/dev/null
printf '%s\n' 'app;[unknown]+0x2000;[unknown]+0x1000;vfs_read_[k] 12' \
	'app;[unknown]+0x4000 4' >"$T/cpu.want"
same offcpu-fold-cpu-unchanged "$T/cpu.want" "$T/cpunew.folded"
same offcpu-fold-cpu-v1-header "$T/cpu.want" "$T/cpuv1.folded"
# header_size (u16 at byte 6): the v1 header is shorter by the counters
# added since (the off-CPU ones: 136 bytes, 17 counters; then the unwind
# tables'), as the uapi header has them.
hsize() { od -An -tu2 -j6 -N2 "$1" | tr -d ' '; }
printf '#include <stdio.h>\n#include "uapi/flamestat.h"\nint main(void) { printf("%%zu\\n", sizeof(struct flamestat_stats) - FLAMESTAT_STATS_SIZE_V1); return 0; }\n' |
	gcc -x c -I"$TOP/kmod" -o "$T/v1diff" - && v1diff=$("$T/v1diff")
if [ "${v1diff:-0}" -gt 136 ] &&
	[ $(($(hsize "$T/cpunew.fstat") - $(hsize "$T/cpuv1.fstat"))) = "$v1diff" ]; then
	pass offcpu-v1-header-size
else
	fail offcpu-v1-header-size "$(hsize "$T/cpunew.fstat") and $(hsize "$T/cpuv1.fstat"), want ${v1diff:-?} apart"
fi

# Bad records: refused with the reason, never folded.
bad() {
	local name=$1 expr=$2 want=$3 out
	snap "bad-$name" "$expr" || return
	if out=$("$FS" fold "${env_opts[@]}" "$T/bad-$name.fstat" 2>&1 >/dev/null); then
		fail "offcpu-bad-$name" "accepted"
	elif printf '%s\n' "$out" | grep -qF "$want"; then
		pass "offcpu-bad-$name"
	else
		fail "offcpu-bad-$name" "$out"
	fi
}
bad no-time 's/flags=off,offd periods=2 time=1500000000/flags=off,offd periods=2/' 'off-CPU stack without its time'
bad d-and-r 's/flags=off,offd /flags=off,offd,offr /' 'off-CPU flags 0x700'
bad waker-on-cpu 's/periods=12 time=12000000 k=0xffffffff81006000/periods=12 time=12000000 w=0xffffffff81004000 k=0xffffffff81006000/' 'waker frames on an on-CPU stack'
bad offcpu-in-cpu-mode 's/measure=wall/measure=cpu/' 'off-CPU in a CPU-time snapshot'
bad unknown-mode 's/measure=wall/measure=7/' 'unknown mode 7'
bad d-without-off 's/flags=off,offd /flags=offd /' 'off-CPU flags 0x200'

# report: times in human units, the states of each row.
"$FS" report "${env_opts[@]}" --limit 4 "$T/off.fstat" >"$T/report-off.got" 2>/dev/null
cat >"$T/report-off.want" <<'EOF'
# flamestat report: off-CPU time 4.75 s in 8 blocks (2 lost), 2 CPUs, 2.0 s
# sorted by self; Total = self + callees
#
#     Self    Total        Time  State     Function
    63.16%   63.16%      3.00 s  S         hrtimer_wakeup_[w]
    31.58%   31.58%      1.50 s  D         [off-cpu:D]
     5.25%   68.41%      250 ms  S         [off-cpu:S]
     0.01%    0.01%      500 us  R         [off-cpu:R]
# 10 more functions not shown (--limit, --min)
EOF
same offcpu-report-offcpu "$T/report-off.want" "$T/report-off.got"
"$FS" report "${env_opts[@]}" --sort total --limit 3 "$T/wall.fstat" >"$T/report-wall.got" 2>/dev/null
cat >"$T/report-wall.want" <<'EOF'
# flamestat report: wall-clock time 4.77 s: on-CPU 16.0 ms in 14 samples, off-CPU 4.75 s in 8 blocks (2 lost), 1000 Hz, 2 CPUs, 2.0 s
# sorted by total (self + callees); Total = self + callees
#
#     Self    Total        Time  State     Function
     0.00%   99.66%      4.75 s  S+D+R     schedule_[k]
     0.00%   94.68%      4.51 s  on+S+D+R  [unknown]+0x2000
     0.00%   94.67%      4.51 s  on+S+D    [unknown]+0x1000
# 12 more functions not shown (--limit, --min)
EOF
same offcpu-report-wall "$T/report-wall.want" "$T/report-wall.got"
# Folded text with the mode line: the same times (no samples: one column).
"$FS" report --sort total --limit 3 "$T/wall.folded" >"$T/report-folded.got" 2>/dev/null
sed '1s/.*/# flamestat report: wall-clock time 4.77 s: on-CPU 16.0 ms, off-CPU 4.75 s/' \
	"$T/report-wall.want" >"$T/report-folded.want"
same offcpu-report-folded "$T/report-folded.want" "$T/report-folded.got"
# Without the mode line the numbers are counts again, not time.
grep -v '^#' "$T/wall.folded" | "$FS" report --limit 1 - 2>/dev/null | sed -n 4p >"$T/report-plain.got"
echo '#     Self    Total     Samples  Function' >"$T/report-plain.want"
same offcpu-report-no-mode-line "$T/report-plain.want" "$T/report-plain.got"

# svg: the titles, a time for tooltips (countns 1, no count name), the
# meta line in time; hot where on-CPU time goes, blue off-CPU, aqua wakers.
"$FS" svg "$T/wall.folded" >"$T/wall.svg" 2>/dev/null
check offcpu-svg-title-wall grep -q '<text id="title" [^>]*>Wall-Clock Time Flame Graph</text>' "$T/wall.svg"
check offcpu-svg-countns grep -q '"countns":1,"countname":"",' "$T/wall.svg"
"$FS" fold "${env_opts[@]}" --header "$T/off.fstat" 2>/dev/null | "$FS" svg - >"$T/off.svg" 2>/dev/null
check offcpu-svg-title-offcpu grep -q '<text id="title" [^>]*>Off-CPU Time Flame Graph</text>' "$T/off.svg"
check offcpu-svg-meta grep -q '<text id="meta" [^>]*>4.75 s of off-CPU time, 8 blocks (2 lost), 2.00 s on 2 CPUs</text>' "$T/off.svg"
check offcpu-svg-title-option grep -q '>Mine</text>' <("$FS" svg --title Mine "$T/wall.folded" 2>/dev/null)
# Colours by name, through --cp's palette.map (name->rgb(r,g,b)).
( cd "$T" && rm -f palette.map && "$FS" svg --cp "$T/wall.folded" >/dev/null 2>&1 )
# hue NAME: hot (red above blue), blue, aqua (green = blue, above red).
hue() {
	awk -F'->' -v n="$1" '$1 == n { gsub(/[rgb()]/, "", $2); split($2, c, ",");
		if (c[1] > c[3]) print "hot"; else if (c[2] == c[3] && c[2] > c[1]) print "aqua";
		else if (c[3] > c[1] && c[3] > c[2]) print "blue"; else print "other"; exit }' "$T/palette.map"
}
got=""
for n in 'vfs_read_[k]' '[unknown]+0x4000' '[off-cpu:S]' '[off-cpu:D]' 'io_schedule_[k]' 'kworker/0:1' 'try_to_wake_up_[w]'; do
	got="$got $n=$(hue "$n")"
done
want=" vfs_read_[k]=hot [unknown]+0x4000=hot [off-cpu:S]=blue [off-cpu:D]=blue io_schedule_[k]=blue kworker/0:1=blue try_to_wake_up_[w]=aqua"
if [ "$got" = "$want" ]; then
	pass offcpu-svg-hot-cold
else
	fail offcpu-svg-hot-cold "got$got"
fi
# An explicit palette is the user's: no cold side.
( cd "$T" && rm -f palette.map && "$FS" svg --cp --colors hot "$T/off.folded" >/dev/null 2>&1 )
if [ "$(hue '[off-cpu:D]')" = hot ]; then
	pass offcpu-svg-colors-option
else
	fail offcpu-svg-colors-option "[off-cpu:D] is $(hue '[off-cpu:D]') with --colors hot"
fi

# speedscope: nanoseconds, the weights the folded text has.
"$FS" fold "${env_opts[@]}" -o "$T/wall.speedscope.json" "$T/wall.fstat" 2>/dev/null
check offcpu-speedscope-unit grep -q '"unit":"nanoseconds"' "$T/wall.speedscope.json"
check offcpu-speedscope-weights grep -q '"weights":\[3000000000,1500000000,12000000,500000,4000000,750\]' "$T/wall.speedscope.json"
check offcpu-speedscope-waker-kernel grep -qF '{"name":"try_to_wake_up_[w]","file":"[kernel]"}' "$T/wall.speedscope.json"

# pprof, read back by go tool pprof as 17-pprof does.
if command -v go >/dev/null; then
	export HOME=$FLAMESTAT_CACHE/go GOCACHE=$FLAMESTAT_CACHE/go/cache
	export GOFLAGS=-mod=mod GOTOOLCHAIN=local GOPROXY=off
	mkdir -p "$GOCACHE"
	"$FS" fold "${env_opts[@]}" -o "$T/wall.pb.gz" "$T/wall.fstat" 2>/dev/null
	go tool pprof -raw -symbolize=none "$T/wall.pb.gz" >"$T/wall.raw" 2>&1
	check offcpu-pprof-wall-type grep -qx 'PeriodType: wall nanoseconds' "$T/wall.raw"
	check offcpu-pprof-wall-period grep -qx 'Period: 1000000' "$T/wall.raw"
	check offcpu-pprof-wall-columns grep -qx 'samples/count wall/nanoseconds\[dflt\]' "$T/wall.raw"
	check offcpu-pprof-wall-d grep -qE '^ +2 1500000000: ' "$T/wall.raw"
	check offcpu-pprof-state grep -q 'state:\[D\]' "$T/wall.raw"
	check offcpu-pprof-marker grep -qE '^ +[0-9]+: 0x0 \[off-cpu:R\] ' "$T/wall.raw"
	"$FS" fold "${env_opts[@]}" -o "$T/off.pb.gz" "$T/off.fstat" 2>/dev/null
	go tool pprof -raw -symbolize=none "$T/off.pb.gz" >"$T/off.raw" 2>&1
	check offcpu-pprof-offcpu-columns grep -qx 'samples/count off-cpu/nanoseconds\[dflt\]' "$T/off.raw"
	# From folded text with the mode line.
	"$FS" fold -o "$T/folded.pb.gz" "$T/off.folded" 2>"$T/folded.pb.err"
	go tool pprof -raw -symbolize=none "$T/folded.pb.gz" >"$T/folded.raw" 2>&1
	check offcpu-pprof-folded-type grep -qx 'off-cpu/nanoseconds\[dflt\]' "$T/folded.raw"
	check offcpu-pprof-folded-value grep -qE '^ +3000000000: ' "$T/folded.raw"
else
	fail offcpu-pprof-go "go not installed (golang-go, scripts/deps.list)"
fi

# record's options (tests/tool/recordargs.c) and summary (recordsum.c),
# status's counters (statusfmt.c).
tool_objs
cflags=(-O1 -g -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wshadow
	-Wstrict-prototypes -Wmissing-prototypes -Wformat=2 -Wvla
	-I"$TOP/user" -I"$TOP/kmod")
if gcc "${cflags[@]}" -o "$T/recordargs" "$TOP/tests/tool/recordargs.c" \
	"${robjs[@]}" "${TOOL_LDLIBS[@]}" 2>"$T/recordargs.log"; then
	# argok NAME WANT ARGS...: WANT is the cfg_ lines, joined by spaces.
	argok() {
		local name=$1 want=$2 got
		shift 2
		got=$("$T/recordargs" "$@" 2>&1 | grep '^cfg_mode\|^cfg_min\|^cfg_waker' | tr '\n' ' ')
		if [ "$got" = "$want " ]; then
			pass "offcpu-args-$name"
		else
			fail "offcpu-args-$name" "got '$got'"
		fi
	}
	argok default 'cfg_mode=0 cfg_min_block_us=0 cfg_waker=0'
	argok off-cpu 'cfg_mode=1 cfg_min_block_us=0 cfg_waker=0' --off-cpu -p 1
	argok wall-waker 'cfg_mode=2 cfg_min_block_us=1500 cfg_waker=1' --wall --waker --min-block 1.5ms -- true
	argok mode-offcpu 'cfg_mode=1 cfg_min_block_us=20 cfg_waker=0' --mode offcpu --min-block 20 -a
	argok mode-same-twice 'cfg_mode=1 cfg_min_block_us=10 cfg_waker=0' --off-cpu --mode offcpu --min-block 10us
	argok min-block-s 'cfg_mode=2 cfg_min_block_us=500000 cfg_waker=0' --wall --min-block 0.5s -K
	# argbad NAME MESSAGE ARGS...: status 2 and exactly MESSAGE first.
	argbad() {
		local name=$1 want=$2 out rc
		shift 2
		out=$("$T/recordargs" "$@" 2>&1 >/dev/null)
		rc=$?
		if [ $rc = 2 ] && [ "$(printf '%s\n' "$out" | head -1)" = "$want" ]; then
			pass "offcpu-args-bad-$name"
		else
			fail "offcpu-args-bad-$name" "status $rc: $(printf '%s' "$out" | tr '\n' '|')"
		fi
	}
	argbad waker-alone 'flamestat record: --waker needs --off-cpu or --wall: wakers are those of off-CPU time' --waker
	argbad off-and-wall 'flamestat record: --off-cpu and --wall exclude each other' --off-cpu --wall
	argbad wall-and-mode 'flamestat record: --wall and --mode offcpu exclude each other' --wall --mode offcpu
	argbad mode-unknown "flamestat record: --mode 'bogus': expected cpu, offcpu or wall" --mode bogus
	argbad min-block-alone 'flamestat record: --min-block needs --off-cpu or --wall: it is the shortest off-CPU block recorded' --min-block 1ms
	argbad min-block-ns "flamestat record: --min-block '500ns': the module counts whole microseconds" --off-cpu --min-block 500ns
	argbad min-block-word "flamestat record: --min-block 'soon': expected a time like 10us, 1ms or 0.5s (at most 4294967295 us)" --off-cpu --min-block soon
	argbad waker-user-only "flamestat record: --waker with -U: the waker's stack is a kernel stack, which -U leaves out" -U --off-cpu --waker
else
	fail offcpu-recordargs-build "$(head -3 "$T/recordargs.log" | tr '\n' '|')"
fi
if gcc "${cflags[@]}" -o "$T/recordsum" "$TOP/tests/tool/recordsum.c" \
	"${robjs[@]}" "${TOOL_LDLIBS[@]}" 2>"$T/recordsum.log"; then
	"$T/recordsum" 25 <"$T/off.fstat" 2>&1 | tr '\r' '\n' | sed 's/^\x1b\[K//' >"$T/sum-off.got"
	cat >"$T/sum-off.want" <<'EOF'

   1.0s  samples 0  recorded 0  dropped 0  stacks 0  blocks 12
flamestat record: 8 off-CPU blocks in 0 stacks, 2.0 s on 2 CPUs; wrote out.svg
flamestat record: off-CPU: 12 blocks, 8 recorded (5.25 s); not recorded: short 2, filtered 0, mode 0, no-slot 1, cpu-table-full 0, long-probe 0, unfinished 1, table-full 0, evicted 0 (min block 50 us)
flamestat record: warning: 1 off-CPU blocks were lost for want of room (no-slot: more tasks blocked at once than the module's offcpu_tasks=; cpu-table-full: pcpu_kb=; long-probe): load the module with larger ones
flamestat record: note: 1 tasks were still blocked when the recording ended: their last block is not in the profile
EOF
	same offcpu-record-summary "$T/sum-off.want" "$T/sum-off.got"
	# CPU mode: not a word of off-CPU time.
	"$T/recordsum" 25 <"$T/cpunew.fstat" >"$T/sum-cpu.got" 2>&1
	if grep -q '^flamestat record: 14 samples in' "$T/sum-cpu.got" &&
	   ! grep -q 'off-CPU\|blocks' "$T/sum-cpu.got"; then
		pass offcpu-record-summary-cpu
	else
		fail offcpu-record-summary-cpu "$(tr '\n' '|' <"$T/sum-cpu.got")"
	fi
else
	fail offcpu-recordsum-build "$(head -3 "$T/recordsum.log" | tr '\n' '|')"
fi
if gcc "${cflags[@]}" -o "$T/statusfmt" "$TOP/tests/tool/statusfmt.c" \
	"$TOP/user/device/device.c" "$TOP/user/device/loadpolicy.c" \
	"$TOP/user/profile/snapzip.c" "$TOP/user/lib/util.c" "$TOP/user/lib/cpulist.c" \
	-lz 2>"$T/statusfmt.log"; then
	"$T/statusfmt" 25 <"$T/wall.fstat" | sed -n '/^off-cpu:/,$p' >"$T/status.got"
	cat >"$T/status.want" <<'EOF'
off-cpu:    12 blocks, 8 recorded (5.250 s off a CPU), 4 not recorded
  short            2
  no-slot          1
  unfinished       1
blocked:    0 tasks now with their stacks kept, room for 0
EOF
	same offcpu-status "$T/status.want" "$T/status.got"
	"$T/statusfmt" 25 <"$T/cpunew.fstat" >"$T/status-cpu.got"
	if grep -q '^samples: ' "$T/status-cpu.got" && ! grep -q '^off-cpu:' "$T/status-cpu.got"; then
		pass offcpu-status-cpu-mode
	else
		fail offcpu-status-cpu-mode "$(tr '\n' '|' <"$T/status-cpu.got")"
	fi
	"$T/statusfmt" 25 --json <"$T/wall.fstat" >"$T/status.json"
	if python3 - "$T/status.json" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
c, s, d = j["config"], j["stats"], j["offcpu_dropped"]
assert (c["mode"], c["min_block_us"], c["waker"]) == ("wall", 50, True), c
assert (s["offcpu_blocks"], s["offcpu_recorded"], s["offcpu_ns"]) == (12, 8, 5250000000), s
assert d == {"short": 2, "filtered": 0, "mode": 0, "no-slot": 1,
	     "cpu-table-full": 0, "long-probe": 0, "unfinished": 1,
	     "table-full": 0, "evicted": 0}, d
assert s["offcpu_blocks"] == s["offcpu_recorded"] + sum(d.values())
EOF
	then
		pass offcpu-status-json
	else
		fail offcpu-status-json "$(tr '\n' ' ' <"$T/status.json" | head -c 300)"
	fi
else
	fail offcpu-statusfmt-build "$(head -3 "$T/statusfmt.log" | tr '\n' '|')"
fi
exit 0
