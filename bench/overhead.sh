#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make bench-overhead`: what flamestat costs against perf, bpftrace and bcc,
# and whether its profiles agree with perf's and with the truth. Prints the
# tables and writes them into docs/PERFORMANCE.md (between its
# bench-overhead markers; the truth phase's between its bench-truth ones).
#
#   bench/overhead.sh [--arch arm64] [--repeats N] [--quick] [--no-doc]
#                     [--only PHASE...]
#
# Phases, each one boot of a Debian guest (tests/vm/rootfs.sh, with
# linux-perf, bpftrace and bpfcc-tools):
#   overhead  one CPU under -icount shift=0 (1 guest ns = 1 instruction):
#             every workload (fixed work) with no profiler, the floor module
#             (a pinned hrtimer per CPU doing nothing), flamestat record -a,
#             perf record -F 997 -a -g, bpftrace and bcc profile -F 997;
#             runtime inside the guest, samples, bytes, stop to flame graph;
#             the warm-up runs under a recording, so the unwind tables of
#             the workloads' files are built before the first timed run
#             (their build is bench/30-unwind-tables.sh's figure)
#   accuracy  two CPUs, plain TCG: flamestat and perf on the same
#             workloads; top-10 leaf functions compared, sampling rate
#   profile   like overhead for the floor and flamestat only, under the
#             insnprof QEMU plugin: flamestat's instructions per sample by
#             kernel function, on deep8, deep120, vla120 (deep120's
#             recursion with a frame of another size at each depth:
#             alloca()), read and uniq8 (a new 8-frame stack nearly every
#             sample: the path past the recent-stack cache, hash and
#             insert)
#   unwind    one CPU under -icount shift=0: user stacks walked by unwind
#             tables (issue 24). deepstack with 6 user frames built with
#             frame pointers (deep6) and without (deep6nofp), and nofp -m
#             mix (several chains through libc and a library without frame
#             pointers); no profiler, the floor, flamestat (tables),
#             flamestat --unwind fp, perf -g and perf --call-graph dwarf;
#             cost per sample, bytes, and the chains against perf dwarf's
#   truth     one CPU under -icount shift=0, two boots: every workload with
#             no profiler under the insnprof plugin (what each function
#             executed, and where a timer interrupt would land: the
#             truth), then flamestat and perf on the same workloads, plus
#             knownsplit (leaves of known instruction counts); leaf shares
#             against the truth
# --quick: one repeat, the 8-frame workload only, no profile phase (the
# unwind phase whole, once); the
# truth phase on knownsplit and getppid only.
# --arch arm64 (or FLAMESTAT_ARCH=arm64; make bench-overhead
# BENCH_ARCH=arm64): the overhead phase only, on an arm64 guest
# (qemu-system-aarch64 -cpu max under TCG, -icount shift=0): an arm64
# Debian tree (tests/vm/rootfs.sh), the module, the tool and the workloads
# of tests/arm64/build.sh, the floor module and timeit cross-built in the
# chroots of tests/arm64/setup.sh (run it first); tables between the
# bench-overhead-arm64 markers, work in $BUILD/bench-overhead-arm64.
# Needs root (debootstrap, mke2fs), QEMU, and the FlameGraph scripts
# (flamegraph.pl, stackcollapse-perf.pl, stackcollapse-bpftrace.pl) in
# $FLAMEGRAPH_DIR or $FLAMESTAT_CACHE/FlameGraph, to draw perf's, bpftrace's
# and bcc's flame graphs as their users do. A phase or configuration that
# cannot run is reported and makes the exit status 1 (the tables still
# show what was measured); never fails on a number.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
export TOP
# --arch before tests/vm/lib.sh, which reads FLAMESTAT_ARCH.
prev=""
for a in "$@"; do
	[ "$prev" = --arch ] && export FLAMESTAT_ARCH=$a
	prev=$a
done
# shellcheck source-path=SCRIPTDIR source=../tests/vm/lib.sh
. "$TOP/tests/vm/lib.sh"
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$TOP/bench/lib.sh"

repeats=3 quick=0 doc=1 phases="overhead accuracy profile unwind truth"
while [ $# -gt 0 ]; do
	case "$1" in
	--repeats) repeats=$2; shift ;;
	--quick) quick=1 repeats=1 phases="overhead accuracy unwind truth" ;;
	--no-doc) doc=0 ;;
	--only) phases=$2; shift ;;
	--arch) shift ;;
	-h | --help) sed -n '3,58p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) vm_die "bench-overhead: unknown argument '$1' (see --help)" ;;
	esac
	shift
done
[[ $repeats =~ ^[1-9][0-9]*$ ]] || vm_die "bench-overhead: --repeats takes a number"

FREQ=997
PACKAGES="linux-perf bpftrace bpfcc-tools perl"
# arm64: its own work directory, result files and tables; the overhead
# phase alone (the others use the insnprof plugin or compare with x86's
# truth, not ported).
sfx=""
if [ "$FS_VM_ARCH" = arm64 ]; then
	sfx=-arm64
	case "$phases" in
	"overhead accuracy profile unwind truth" | "overhead accuracy unwind truth") phases=overhead ;;
	overhead) ;;
	*) vm_die "bench-overhead: --arch arm64 runs the overhead phase only (not: $phases)" ;;
	esac
fi
WORK="$BUILD/bench-overhead$sfx"
OUT=${BENCH_OUT:-$TOP/bench/out}
FG=${FLAMEGRAPH_DIR:-$FLAMESTAT_CACHE/FlameGraph}
DOC="$TOP/docs/PERFORMANCE.md"
BENCH_TEST=overhead
mkdir -p "$WORK" "$OUT"
t_start=$SECONDS
say() { echo "bench-overhead [$((SECONDS - t_start))s]: $*" >&2; }

# Fixed work, about 2 s of guest time each under -icount. deepstack -d N
# has N + 4 user frames (__libc_start_call_main, main, deep_start, N x
# recurse, deep_leaf): 8, 40 and 120.
WORKLOADS="deep8=/opt/workloads/deepstack -d 4 -l 2000"
WORKLOADS+="|deep40=/opt/workloads/deepstack -d 36 -l 2000"
WORKLOADS+="|deep120=/opt/workloads/deepstack -d 116 -l 2000"
WORKLOADS+="|read=/opt/workloads/syscalls -m read -l 1800"
WORKLOADS+="|getppid=/opt/workloads/syscalls -m getppid -l 5700000"
# The truth phase: knownsplit, whose leaves are 50, 30, 15 and 5% of its
# instructions, for 20 s, and the accuracy phase's workloads with getppid
# nine times as long (18 s): 20,000 samples, so that a profiler without
# bias gets within 1 percentage point of their large leaves (0.35 pp of
# sampling noise, one standard deviation, for a 50% leaf). --quick: those
# two only, for 4 and 6 s.
TRUTH_WORKLOADS="knownsplit=/opt/workloads/knownsplit -l 1000000|${WORKLOADS%|getppid=*}"
TRUTH_WORKLOADS+="|getppid=/opt/workloads/syscalls -m getppid -l 51300000"
if [ $quick = 1 ]; then
	WORKLOADS="deep8=/opt/workloads/deepstack -d 4 -l 2000"
	TRUTH_WORKLOADS="knownsplit=/opt/workloads/knownsplit -l 200000"
	TRUTH_WORKLOADS+="|getppid=/opt/workloads/syscalls -m getppid -l 17100000"
fi
# The truth phase's profiled runs: a timer at 1009 Hz spinning 0 to 5,000
# instructions (the floor module's jitter=), so that samples land at random
# places of a short loop instead of locking in phase with it (see
# bench/floor/floor.c). In its ground-truth run the same timer fires at
# 9973 Hz: where QEMU delivers those interrupts is measured too.
# The unwind phase: 6 user frames (__libc_start_call_main, main,
# deep_start, 2 x recurse, deep_leaf) with and without frame pointers;
# nofp -m mix: five chains under main (tests/workloads/nofp.c).
UNWIND_WORKLOADS="deep6=/opt/workloads/deepstack -d 2 -l 2000"
UNWIND_WORKLOADS+="|deep6nofp=/opt/workloads/deepstack-nofp -d 2 -l 2000"
UNWIND_WORKLOADS+="|mix=/opt/workloads/nofp -m mix -l 700"
TRUTH_JITTER=2500
TARGET_WL=deep8
PROFILERS="none floor flamestat perf bpftrace bcc"

# ---- build ----
if [ "$FS_VM_ARCH" = arm64 ]; then
	vm_arm64_ready
	say "building the module, the tool and the workloads for arm64 (tests/arm64/build.sh)"
	"$TOP/tests/arm64/build.sh" --suite "$FS_VM_ARM64_SUITE" >"$WORK/build-arm64.log" 2>&1 ||
		{ cat "$WORK/build-arm64.log" >&2; vm_die "bench-overhead: tests/arm64/build.sh failed"; }
elif [ ! -f "$TOP/kmod/flamestat.ko" ] || [ ! -x "$TOP/user/flamestat" ]; then
	vm_die "bench-overhead: build first (make all): no kmod/flamestat.ko or user/flamestat"
fi
if [ ! -f "$FS_VM_KO" ] || [ ! -x "$FS_VM_TOOL" ]; then
	vm_die "bench-overhead: no $FS_VM_KO or $FS_VM_TOOL"
fi
for s in flamegraph.pl stackcollapse-perf.pl stackcollapse-bpftrace.pl; do
	[ -f "$FG/$s" ] || vm_die "bench-overhead: no $FG/$s: put Brendan Gregg's FlameGraph scripts there (git clone https://github.com/brendangregg/FlameGraph $FG) or set FLAMEGRAPH_DIR; they draw perf's, bpftrace's and bcc's flame graphs"
done
[ -x "$TOP/tests/vm/rootfs.sh" ] || vm_die "bench-overhead: no tests/vm/rootfs.sh (Debian rootfs guests)"
say "building the workloads, the floor module and the guest helpers"
FLOOR_KO=$TOP/bench/floor/flamestat_floor.ko
if [ "$FS_VM_ARCH" = arm64 ]; then
	# In tests/arm64/setup.sh's chroots: the floor module in the kernel's
	# (its headers, its compiler's cross twin), timeit in bookworm's.
	# shellcheck source-path=SCRIPTDIR source=../tests/lib/suite-chroot.sh
	. "$TOP/tests/lib/suite-chroot.sh"
	SUITE_DEBS=$FLAMESTAT_CACHE/arm64/debs
	FLOOR_KO=$WORK/flamestat_floor.ko
	src=/root/flamestat-bench-$$
	(
		exec {lock_fd}>"$FLAMESTAT_CACHE/arm64/$FS_VM_ARM64_SUITE.lock"
		flock "$lock_fd"
		ktree=${ARM64_KTREE:-$ARM64_TREE}
		rm -rf "${ktree:?}$src"
		mkdir -p "$ktree$src/bench" "$ktree$src/kmod" "$ktree$src/scripts"
		cp -a "$TOP/bench/floor" "$ktree$src/bench/"
		cp -a "$TOP/kmod/conftest.sh" "$ktree$src/kmod/"
		rm -f "$ktree$src"/bench/floor/*.o "$ktree$src"/bench/floor/*.ko
		in_tree "$ktree" make -C "/lib/modules/$ARM64_KREL/build" M="$src/bench/floor" \
			ARCH=arm64 CROSS_COMPILE="$ARM64_CROSS" W=1 modules &&
			cp "$ktree$src/bench/floor/flamestat_floor.ko" "$FLOOR_KO"
		r=$?
		rm -rf "${ktree:?}$src"
		exec {lock_fd}>&-
		[ $r = 0 ] || exit 1
		exec {lock_fd}>"$FLAMESTAT_CACHE/arm64/bookworm.lock"
		flock "$lock_fd"
		mkdir -p "$ARM64_TREE$src"
		cp "$TOP/bench/overhead/timeit.c" "$ARM64_TREE$src/"
		in_tree "$ARM64_TREE" "${ARM64_CROSS}gcc" -O2 -Wall -Wextra -Werror -o "$src/timeit" \
			"$src/timeit.c" && cp "$ARM64_TREE$src/timeit" "$WORK/timeit"
		r=$?
		rm -rf "${ARM64_TREE:?}$src"
		exec {lock_fd}>&-
		[ $r = 0 ]
	) >"$WORK/build.log" 2>&1
else
	{
		make -s -j2 -C "$TOP/tests/workloads" O="$BUILD/workloads" &&
			make -s -C "$TOP/bench/floor" KDIR="${KDIR:-/lib/modules/$(vm_kver)/build}" &&
			gcc -O2 -Wall -Wextra -Werror -o "$WORK/timeit" "$TOP/bench/overhead/timeit.c"
	} >"$WORK/build.log" 2>&1
fi || { tail -n 20 "$WORK/build.log" >&2; vm_die "bench-overhead: build failed (log: $WORK/build.log)"; }

# ---- the guest image: one for every phase; the phase is on the kernel
# command line (fs.bench=PHASE) ----
test="$WORK/overhead.sh"
cat >"$test" <<EOF
#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The guest side of bench-overhead (generated by bench/overhead.sh).
# timeout: 5400
mode=\$(sed -n 's/.*fs\\.bench=\\([a-z]*\\).*/\\1/p' /proc/cmdline)
BENCH_DIR=/opt/bench
BENCH_FREQ=$FREQ
BENCH_WORKLOADS='$WORKLOADS'
case "\$mode" in
accuracy)
	BENCH_PROFILERS="flamestat perf"
	BENCH_REPEATS=1
	BENCH_KALLSYMS=1 ;;
profile)
	BENCH_PROFILERS="floor flamestat"
	BENCH_REPEATS=1
	BENCH_KEEP=none
	BENCH_KALLSYMS=1
	BENCH_WARMUP_RECORD=1
	BENCH_WORKLOADS='deep8=/opt/workloads/deepstack -d 4 -l 2000|deep120=/opt/workloads/deepstack -d 116 -l 2000|vla120=/opt/workloads/deepstack -V -d 116 -l 2000|read=/opt/workloads/syscalls -m read -l 1800|uniq8=/opt/workloads/uniq -d 8 2' ;;
unwind)
	BENCH_PROFILERS="none floor flamestat fsfp perf perfdwarf"
	BENCH_REPEATS=$repeats
	BENCH_KEEP=all
	BENCH_WARMUP_RECORD=1
	BENCH_WORKLOADS='$UNWIND_WORKLOADS' ;;
groundtruth)
	BENCH_PROFILERS=none
	BENCH_REPEATS=1
	BENCH_KEEP=none
	BENCH_KALLSYMS=1
	BENCH_DIRECT=1
	BENCH_ENTRY=1
	BENCH_WARMUP=0
	BENCH_JITTER=$TRUTH_JITTER
	BENCH_JITTER_FREQ=9973
	BENCH_WORKLOADS='$TRUTH_WORKLOADS' ;;
truth)
	BENCH_PROFILERS="flamestat perf"
	BENCH_REPEATS=1
	BENCH_KALLSYMS=1
	BENCH_DIRECT=1
	BENCH_JITTER=$TRUTH_JITTER
	BENCH_WORKLOADS='$TRUTH_WORKLOADS' ;;
*)
	BENCH_PROFILERS="$PROFILERS"
	BENCH_REPEATS=$repeats
	BENCH_WARMUP_RECORD=1 ;;
esac
. /opt/bench/guest.sh
EOF
img="$WORK/image"
say "making the guest image (a cached Debian tree with $PACKAGES; the first build takes minutes)"
"$TOP/tests/vm/rootfs.sh" image -o "$img" -p "$PACKAGES" \
	-f "$WORK/timeit:/opt/bench/timeit" \
	-f "$FLOOR_KO:/opt/bench/flamestat_floor.ko" \
	-f "$TOP/bench/overhead/guest.sh:/opt/bench/guest.sh" \
	-f "$FG/flamegraph.pl:/opt/bench/FlameGraph/flamegraph.pl" \
	-f "$FG/stackcollapse-perf.pl:/opt/bench/FlameGraph/stackcollapse-perf.pl" \
	-f "$FG/stackcollapse-bpftrace.pl:/opt/bench/FlameGraph/stackcollapse-bpftrace.pl" \
	"$test" >"$WORK/image.log" 2>&1 || { tail -n 20 "$WORK/image.log" >&2; vm_die "bench-overhead: no guest image (log: $WORK/image.log)"; }

ERRORS="$WORK/errors"
: >"$ERRORS"

ran_main=0 ran_truth=0 ran_unwind=0
for phase in $phases; do
	case "$phase" in
	overhead | accuracy | profile) ran_main=1 ;;&
	overhead)
		say "overhead: one vCPU under -icount shift=0, $repeats repeat(s) of each workload and profiler"
		boot overhead --smp 1 --icount
		cp "$WORK/overhead/results" "$OUT/overhead-results$sfx.txt" ;;
	accuracy)
		say "accuracy: two vCPUs, flamestat and perf on the same workloads"
		boot accuracy --smp 2
		cp "$WORK/accuracy/results" "$OUT/accuracy-results.txt" ;;
	profile)
		say "profile: where flamestat's instructions go (insnprof QEMU plugin)"
		"$TOP/bench/overhead/profile.sh" "$WORK" "$img" ||
			vm_die "bench-overhead: the profile phase failed" ;;
	unwind)
		ran_unwind=1
		say "unwind: tables, frame pointers and perf --call-graph dwarf, one vCPU under -icount shift=0"
		boot unwind --smp 1 --icount
		cp "$WORK/unwind/results" "$OUT/unwind-results.txt" ;;
	truth)
		ran_truth=1
		say "truth: the workloads with no profiler under the insnprof QEMU plugin (the truth)"
		if ! "$TOP/bench/overhead/truth.sh" "$WORK" "$img"; then
			say "the truth phase's ground-truth boot failed (logs in $WORK/groundtruth)"
			echo "the truth phase's ground-truth boot failed" >>"$ERRORS"
		fi
		say "truth: flamestat and perf on the same workloads, one vCPU under -icount shift=0"
		boot truth --smp 1 --icount
		cp "$WORK/truth/results" "$OUT/truth-results.txt" ;;
	*) vm_die "bench-overhead: unknown phase '$phase'" ;;
	esac
done

# ---- tables ----
# The overhead, accuracy and profile phases' tables (with what earlier
# runs left in $WORK), when one of them ran.
if [ $ran_main = 1 ]; then
	report="$OUT/overhead-report$sfx.md"
	{
		echo "<!-- bench-overhead$sfx:begin (written by bench/overhead.sh; do not edit by hand) -->"
		echo
		measured_on
		echo "$repeats repeat(s); $((SECONDS - t_start)) s for the whole run."
		if [ -s "$WORK/overhead/results" ]; then
			echo
			echo "## ${sfx:+arm64: }Overhead (one vCPU, -icount shift=0)"
			"$TOP/bench/overhead/report.sh" "$WORK/overhead/results" "$FREQ" "$TARGET_WL"
		fi
		if [ -s "$WORK/accuracy/results" ]; then
			echo
			echo "## Accuracy (two vCPUs, plain TCG)"
			"$TOP/bench/overhead/accuracy.sh" "$WORK/accuracy" "$FREQ"
		fi
		if [ -s "$WORK/profile/where.md" ]; then
			echo
			echo "## Where flamestat's instructions go (insnprof)"
			cat "$WORK/profile/where.md"
		fi
		errors_of '^(the (overhead|accuracy|profile) |(overhead|accuracy|profile):)'
		echo
		echo "<!-- bench-overhead$sfx:end -->"
	} >"$report"
	cat "$report"
	[ $doc = 1 ] && to_doc "bench-overhead$sfx" "$report"
fi
if [ $ran_unwind = 1 ]; then
	report="$OUT/unwind-report.md"
	{
		echo "<!-- bench-unwind:begin (written by bench/overhead.sh; do not edit by hand) -->"
		echo
		measured_on
		echo "$repeats repeat(s); $((SECONDS - t_start)) s for the whole run."
		if [ -s "$WORK/unwind/results" ]; then
			echo
			echo "## User stacks by unwind tables (one vCPU, -icount shift=0)"
			"$TOP/bench/overhead/unwind-report.sh" "$WORK/unwind" "$FREQ"
		fi
		errors_of '^(the unwind |unwind:)'
		echo
		echo "<!-- bench-unwind:end -->"
	} >"$report"
	cat "$report"
	[ $doc = 1 ] && to_doc bench-unwind "$report"
fi
if [ $ran_truth = 1 ]; then
	report="$OUT/truth-report.md"
	{
		echo "<!-- bench-truth:begin (written by bench/overhead.sh; do not edit by hand) -->"
		echo
		measured_on
		echo "$((SECONDS - t_start)) s for the whole run."
		if [ -s "$WORK/truth/results" ] && [ -s "$WORK/groundtruth/results" ]; then
			echo
			echo "## Leaf shares against the truth (one vCPU, -icount shift=0)"
			"$TOP/bench/overhead/truth-report.sh" "$WORK/groundtruth" "$WORK/truth" \
				"$BUILD/workloads" "$TRUTH_WORKLOADS" "$FREQ"
		fi
		errors_of '^(the (truth|groundtruth) |the truth phase|(truth|groundtruth):)'
		echo
		echo "<!-- bench-truth:end -->"
	} >"$report"
	cat "$report"
	[ $doc = 1 ] && to_doc bench-truth "$report"
fi
if [ -s "$ERRORS" ]; then
	say "done, with configurations that could not be measured (listed above); results in $OUT"
	exit 1
fi
say "done; results in $OUT"
