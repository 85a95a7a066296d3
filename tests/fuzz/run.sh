#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fuzzes the tool's parsers with libFuzzer (clang, ASan, UBSan): binary
# snapshots (user/profile/snapshot.c), folded stacks
# (user/profile/profile_folded.c), ELF images (user/sym/elfsym*.c through
# libelf) and the module's unwind-table builder (kmod/ehframe.c). Seeds are made here: snapshots by tests/tool/mksnap from
# descriptions like the module's output, folded stacks from
# tests/golden/inputs and the module's format, ELF files from the test
# workloads. Fixed seeds (-seed=1), fresh corpora every run.
#
#   tests/fuzz/run.sh [--long]
#     default: a fixed number of runs per target (make check)
#     --long:  10 minutes per target (make torture)
#
# Prints "PASS fuzz/TARGET (runs, seconds, coverage)" or "FAIL fuzz/TARGET:
# why" with the crashing input left in tests/build/fuzz/.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
: "${BUILD:=$TOP/tests/build}"
F=$BUILD/fuzz
long=0
[ "${1:-}" = --long ] && long=1
mkdir -p "$F"

if ! command -v clang >/dev/null; then
	echo "FAIL fuzz/build: clang is not installed (scripts/deps.list)"
	exit 1
fi
if ! make -C "$TOP/tests/fuzz" O="$F" >"$F/build.log" 2>&1; then
	echo "FAIL fuzz/build: $(grep -m3 -E 'error|cannot find' "$F/build.log" | tr '\n' '|') (log: $F/build.log)"
	exit 1
fi
if ! gcc -O2 -Wall -Werror -I"$TOP/kmod" -o "$F/mksnap" "$TOP/tests/tool/mksnap.c" 2>"$F/mksnap.log" ||
	! make -C "$TOP/tests/workloads" O="$BUILD/workloads" >"$F/workloads.log" 2>&1; then
	echo "FAIL fuzz/seeds: cannot build mksnap or the workloads (logs in $F)"
	exit 1
fi

# ---- seeds ----
seeds=$F/seeds
rm -rf "$seeds"
mkdir -p "$seeds/snapshot" "$seeds/folded" "$seeds/elfsym"
snap() { "$F/mksnap" >"$seeds/snapshot/$1.fstat"; }
snap plain <<'EOF'
header freq=997 samples=200 recorded=100 idle=80 filtered=12 table_full=8 running_ns=2000000000 cpus=2 cost_ns=200000
file 1 /opt/workloads/chain build_id=00112233445566778899aabbccddeeff00112233
file 2 /usr/lib/x86_64-linux-gnu/libc.so.6
proc 1 tgid=4242 comm=chain
proc 2 tgid=4343 comm=we\cird\sname flags=exited
map 1 1 0x555555554000 0x555555556000 0x0
map 1 0 0x7f1000000000 0x7f1000001000 0 anon
map 1 0 0x7fff00000000 0x7fff00002000 0 vdso
map 2 2 0x7f0000000000 0x7f0000010000 0x1000
ksym 0xffffffff81001000 0x10 do_syscall_64
ksym 0xffffffffc0001000 0x5 ext4_file_read_iter [ext4]
stack 70 proc=1 tgid=4242 comm=chain u=0x555555555100,0x555555555200,0x555555555300
stack 10 proc=1 tgid=4242 comm=chain k=0xffffffff81001000,0xffffffffc0001000 u=0x555555555100
stack 5 proc=2 tgid=4343 comm=we\cird\sname flags=ut u=0x7f0000001234,0x7f0000002345
stack 3 proc=0 tgid=0 comm=kworker/0:1 flags=kthread k=0xffffffffc0001000,0xffffffff81001000
stack 4 proc=1 tgid=4242 comm=chain cpu=1 u=0x7f1000000010,0x7fff00000100
EOF
snap hidden <<'EOF'
header flags=kaddr_hidden freq=499 samples=20 recorded=20 running_ns=1000000000 cpus=1
proc 1 tgid=7 ns_tgid=1 comm=init
ksym 1 0x10 do_syscall_64
ksym 2 0 [unknown]
stack 20 proc=1 tgid=7 comm=init k=1,2 u=0x401000
EOF
snap lockdown <<'EOF'
header flags=lockdown,kaddr_hidden freq=997 samples=9 recorded=9 cpus=4
ksym 1 0 [withheld]
stack 9 proc=0 tgid=0 comm=swapper/0 flags=kthread k=1
EOF
# Compressed: as record saves .fstat files (gzip) and as the module hands
# snapshots out (zlib).
gzip -9 -n -c "$seeds/snapshot/plain.fstat" >"$seeds/snapshot/plain.fstat.gz"
python3 -c 'import sys, zlib; sys.stdout.buffer.write(zlib.compress(sys.stdin.buffer.read(), 1))' \
	<"$seeds/snapshot/hidden.fstat" >"$seeds/snapshot/hidden.zlib"
for f in "$TOP"/tests/golden/inputs/*.folded; do
	[ -f "$f" ] && head -c 65536 "$f" >"$seeds/folded/$(basename "$f")"
done
printf 'chain;main;outer;middle;hot_leaf 1200\nchain;main;outer;middle 3\nsyscalls;main;syscall_loop;raw_read;entry_SYSCALL_64_[k];do_syscall_64_[k] 77\n' >"$seeds/folded/module.folded"
printf '# flamestat: samples=10 recorded=9 freq=997\ncpu-1;a;b 5\ncpu-0;a;[truncated];c 4\n' >"$seeds/folded/meta.folded"
printf 'a;b;c 10 20\na;b 1 0\n' >"$seeds/folded/diff.folded"
printf 'a;b 1.5\nweird 1e3\n' >"$seeds/folded/fraction.folded"
for w in chain libfsbusy.so hostile32 uniq; do
	[ -f "$BUILD/workloads/$w" ] && cp "$BUILD/workloads/$w" "$seeds/elfsym/"
done
strip -o "$seeds/elfsym/chain.stripped" "$BUILD/workloads/chain" 2>/dev/null
# Unwind tables: real .eh_frame_hdr and .eh_frame (ehcheck --seed), from
# code without frame pointers (tests/unwind/shapes.c, plain and realigning
# through DRAP, and read as arm64's), a workload and the start of libc's.
mkdir -p "$seeds/ehframe"
if make -s -C "$TOP/tests/unwind" BUILD="$BUILD" >"$F/ehcheck.log" 2>&1 &&
	gcc -O2 -fomit-frame-pointer -o "$F/shapes" "$TOP/tests/unwind/shapes.c" &&
	gcc -O2 -fomit-frame-pointer -mincoming-stack-boundary=3 -o "$F/shapes-drap" \
		"$TOP/tests/unwind/shapes.c"; then
	for e in "$F/shapes" "$F/shapes-drap" "$BUILD/workloads/chain" \
		"$BUILD/workloads/libfsbusy.so" /usr/lib/x86_64-linux-gnu/libc.so.6; do
		"$BUILD/unwind/ehcheck" --seed "$seeds/ehframe/$(basename "$e")" 16384 "$e"
	done
	# The same bytes read as AArch64 CFI (the length's top byte, 0 in
	# any seed, set), so that the arm64 rules' paths are fuzzed here too.
	s=$seeds/ehframe/shapes
	{ head -c 3 "$s"; printf '\200'; tail -c +5 "$s"; } >"$s.arm64"
else
	echo "FAIL fuzz/seeds: cannot build ehcheck or tests/unwind/shapes.c (log: $F/ehcheck.log)"
	exit 1
fi

# ---- runs ----
# fuzz TARGET RUNS MAX_LEN
fuzz() {
	local t=$1 runs=$2 maxlen=$3 corpus=$F/corpus-$1 log=$F/$1.log budget rc t0 secs
	rm -rf "$corpus" "$F/$t-"crash-* "$F/$t-"leak-* "$F/$t-"timeout-* "$F/$t-"oom-*
	mkdir -p "$corpus"
	if [ $long = 1 ]; then
		budget="-max_total_time=600"
	else
		budget="-runs=$runs"
	fi
	t0=$(date +%s)
	# shellcheck disable=SC2086 # $budget is one option
	ASAN_OPTIONS=detect_leaks=1 "$F/fuzz_$t" -seed=1 $budget -max_len="$maxlen" \
		-timeout=20 -rss_limit_mb=2048 -artifact_prefix="$F/$t-" -print_final_stats=1 \
		"$corpus" "$seeds/$t" >"$log" 2>&1
	rc=$?
	secs=$(($(date +%s) - t0))
	if [ $rc = 0 ]; then
		echo "PASS fuzz/$t ($(sed -n 's/^stat::number_of_executed_units: *//p' "$log") runs in ${secs}s, $(grep -o 'cov: [0-9]*' "$log" | tail -n 1), corpus $(find "$corpus" -type f | wc -l))"
	else
		echo "FAIL fuzz/$t: libFuzzer exit status $rc after ${secs}s: $(grep -m1 -E 'ERROR|does not|reads back|runtime error' "$log") (input: $(find "$F" -maxdepth 1 -name "$t-*" | head -n 1); log: $log)"
		# What fuzz_folded wrote and read back, when that differed.
		sed -n '/^--- written/,/^--- end ---$/p' "$log" | head -n 40 | sed 's/^/    /'
		grep -A12 -m1 -E 'ERROR|runtime error' "$log" | sed 's/^/    /'
	fi
}

# Two at a time, one per host core: the unwind-table builder (the longest)
# beside the tool's three parsers in turn. The seeds are fixed, so each
# target's runs are the same either way; the lines come out in one order.
fuzz ehframe 100000 65536 >"$F/ehframe.result" &
ehframe=$!
fuzz snapshot 3000000 65536
fuzz folded 60000 4096
fuzz elfsym 500000 65536
wait "$ehframe"
cat "$F/ehframe.result"
