#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# pprof output, read back with the real client: synthetic snapshots
# (tests/tool/mksnap.c) and folded files written with --format pprof are
# read by 'go tool pprof -raw', and the stacks and counts it shows (frames
# rebuilt from locations, mappings and labels) must equal, exactly, what
# flamestat fold writes as folded text from the same input. Also -traces
# and -top, the errors (values past int64, unwritable outputs, binary to
# a terminal), and that the comparison itself fails on a wrong profile.
source "$(dirname "$0")/../lib/common.sh"

T=$BUILD/pprof
FS=$TOP/user/flamestat
mkdir -p "$T"
[ -x "$FS" ] || { fail pprof-build "user/flamestat is not built (make tool)"; exit 0; }
if ! command -v go >/dev/null; then
	fail pprof-go "go not installed (golang-go, scripts/deps.list)"
	exit 0
fi
# go keeps its build cache under HOME; keep it with the test's caches.
export HOME=$FLAMESTAT_CACHE/go GOCACHE=$FLAMESTAT_CACHE/go/cache
export GOFLAGS=-mod=mod GOTOOLCHAIN=local GOPROXY=off
mkdir -p "$GOCACHE"
if ! gcc -O1 -g -std=gnu11 -Wall -Wextra -Werror -I"$TOP/kmod" \
	-o "$T/mksnap" "$TOP/tests/tool/mksnap.c" 2>"$T/mksnap.log"; then
	fail pprof-mksnap "$(head -3 "$T/mksnap.log" | tr '\n' '|')"
	exit 0
fi
make -s -C "$TOP/tests/workloads" O="$BUILD/workloads" >/dev/null || {
	fail pprof-workloads "tests/workloads did not build"; exit 0; }
chain=$BUILD/workloads/chain

# addr SYMBOL PLUS: the address of SYMBOL+PLUS in chain mapped at base.
base=0x555555554000
addr() {
	local va o v f
	va=$(nm "$chain" | awk -v s="$1" '$3 == s {print $1; exit}')
	va=$((16#$va))
	while read -r o v f; do
		if [ "$va" -ge $((v)) ] && [ "$va" -lt $((v + f)) ]; then
			printf '0x%x' $((base + va - v + o + $2))
			return 0
		fi
	done < <(readelf -lW "$chain" | awk '$1 == "LOAD" {print $2, $3, $5}')
	return 1
}
bid=$(readelf -n "$chain" | awk '/Build ID:/ {print $3}')
size=$(stat -c %s "$chain")
leaf=$(addr hot_leaf 8) r_mid=$(addr middle 2) r_out=$(addr outer 2) r_main=$(addr main 2)

# Kernel frames named by the module and not; user frames resolved, in a
# file that is not there, JIT, in no mapping; truncation; processes and
# CPUs (cpu 0 too); periods beside samples; a huge count.
cat >"$T/spec" <<EOF
header freq=997 samples=400 recorded=300 table_full=8 running_ns=2000000000 cpus=4
file 1 $chain build_id=$bid
file 2 /nonexistent/libgone.so.1 build_id=00112233445566778899aabbccddeeff00112233
proc 1 tgid=4242 comm=chain
proc 2 tgid=4343 comm=we\\cird\\sname flags=exited
proc 3 tgid=4545 comm=chain
map 1 1 $base $(printf '0x%x' $((base + size + 4095 & ~4095))) 0x0
map 1 0 0x7f1000000000 0x7f1000001000 0 anon
map 2 2 0x7f0000000000 0x7f0000010000 0x1000
map 3 1 0x565555554000 $(printf '0x%x' $((0x565555554000 + size + 4095 & ~4095))) 0x0
ksym 0xffffffff81001000 0x10 do_syscall_64
ksym 0xffffffff81002000 0x20 vfs_read
ksym 0xffffffffc0001000 0x5 ext4_file_read_iter [ext4]
stack 70 proc=1 tgid=4242 comm=chain cpu=0 periods=75 u=$leaf,$r_mid,$r_out,$r_main
stack 10 proc=1 tgid=4242 comm=chain cpu=1 k=0xffffffff81002000,0xffffffff81001000 u=$leaf,$r_mid,$r_out,$r_main
stack 9 proc=1 tgid=4242 comm=chain cpu=0 periods=12 k=0xffffffff81002000,0xffffffff81001000 u=$leaf,$r_mid,$r_out,$r_main
stack 5 proc=2 tgid=4343 comm=we\\cird\\sname cpu=2 flags=ut u=0x7f0000001234,0x7f0000002345
stack 3 proc=0 tgid=0 comm=kworker/0:1 cpu=0 flags=kthread k=0xffffffffc0001000,0xffffffff81001000
stack 2 proc=0 tgid=0 comm=kworker/1:0 cpu=1 flags=kthread,kt k=0xffffffff89999999,0xffffffff81001000
stack 4 proc=1 tgid=4242 comm=chain cpu=1 u=0x7f1000000010,$r_main
stack 6 proc=9 tgid=4444 comm=gone cpu=3 u=0x7ffff000
stack 11 proc=3 tgid=4545 comm=chain cpu=3 periods=1099511627776 u=$(printf '0x%x' $((leaf - base + 0x565555554000))),$(printf '0x%x' $((r_main - base + 0x565555554000)))
EOF
empty=$T/empty
mkdir -p "$empty"
: >"$T/kallsyms"
env_opts=(--kallsyms "$T/kallsyms" --perfmap-dir "$empty" --debug-dir "$empty")
if ! "$T/mksnap" <"$T/spec" >"$T/snap.fstat" 2>"$T/mksnap.err"; then
	fail pprof-snapshot "mksnap: $(cat "$T/mksnap.err")"
	exit 0
fi

# raw_folded FILE.pb.gz COLUMN ROOTS: the samples of FILE as folded text,
# from 'go tool pprof -raw': value COLUMN (1: the first; ns: the
# cpu/nanoseconds one in periods, divided by the period, which must be
# exact), the frames rebuilt from the locations; with ROOTS=labels, the
# cpu-N and comm-PID root frames from the labels, the comm made a frame
# as fold makes it. Unresolved locations are named as the symbolizer
# names them: from their mapping, address and file offset.
raw_folded() {
	local raw
	raw=$(go tool pprof -raw -symbolize=none "$1" 2>&1) || {
		echo "go tool pprof failed: $raw" >&2; return 1; }
	printf '%s\n' "$raw" >"$T/last.raw"
	printf '%s\n' "$raw" | awk -v col="$2" -v OFS=$'\037' '
	/^Period: / { period = $2 }
	/^Samples:/ { sec = "S"; next }
	/^Locations/ { flush(); sec = "L"; next }
	/^Mappings/ { sec = "M"; next }
	sec == "S" && /^ *[0-9]+ +[0-9]+: / {
		flush(); v1 = $1; v2 = $2; sub(":", "", v2)
		locs = $0; sub(/^ *[0-9]+ +[0-9]+: */, "", locs)
		have = 1; comm = ""; cpu = ""; pid = ""; next }
	sec == "S" && /^ *[0-9]+: / {
		flush(); v1 = $1; sub(":", "", v1); v2 = ""
		locs = $0; sub(/^ *[0-9]+: */, "", locs)
		have = 1; comm = ""; cpu = ""; pid = ""; next }
	sec == "S" && have {
		line = $0
		if (match(line, /comm:\[[^]]*\]/))
			comm = substr(line, RSTART + 6, RLENGTH - 7)
		if (match(line, /cpu:\[[0-9]+ /))
			cpu = substr(line, RSTART + 5, RLENGTH - 6)
		if (match(line, /pid:\[[0-9]+ /))
			pid = substr(line, RSTART + 5, RLENGTH - 6)
		next }
	sec == "L" && /^ *[0-9]+: 0x/ {
		id = $1; sub(":", "", id); a = $2; m = 0; rest = $0
		sub(/^ *[0-9]+: 0x[0-9a-f]+ */, "", rest)
		if (rest ~ /^M=[0-9]+/) {
			m = rest; sub(/ .*/, "", m); sub("M=", "", m)
			sub(/^M=[0-9]+ */, "", rest)
		}
		sub(/ [^ ]*:[0-9]+ s=[0-9]+(\(.*\))?$/, "", rest)
		print "L", id, a, m, rest; next }
	sec == "M" && /^[0-9]+: / {
		id = $1; sub(":", "", id); split($2, r, "/")
		print "M", id, r[1], r[3], $3; next }
	function flush() {
		if (have)
			print "S", v1, v2, comm, pid, cpu, locs
		have = 0
	}
	END { print "P", period; flush() }' >"$T/last.tab" || return 1
	local -A mstart mfile moff lname
	local t id a m rest lim off file v comm pid cpu locs
	local us=$'\037'
	while IFS=$us read -r t id a m rest; do
		mstart[$id]=$a moff[$id]=$m mfile[$id]=$rest
	done < <(grep "^M$us" "$T/last.tab")
	while IFS=$us read -r t id a m rest; do
		if [ -n "$rest" ]; then
			lname[$id]=$rest
			continue
		fi
		file=${mfile[$m]:-}
		case $file in
		'') lname[$id]=$(printf '[unknown]+0x%x' $((a))) ;;
		'[kernel.kallsyms]') lname[$id]=$(printf '0x%x' $((a))) ;;
		'[anon]') lname[$id]=$(printf '[anon]+0x%x' $((a))) ;;
		'[vdso]') lname[$id]=$(printf '[vdso]+0x%x' $((a - ${mstart[$m]}))) ;;
		*) lname[$id]=$(printf '%s+0x%x' "${file##*/}" \
			$((a - ${mstart[$m]} + ${moff[$m]}))) ;;
		esac
	done < <(grep "^L$us" "$T/last.tab")
	local period v1 v2 key
	local -A sum
	period=$(grep "^P$us" "$T/last.tab" | cut -d"$us" -f2)
	while IFS=$us read -r t v1 v2 comm pid cpu locs; do
		local out="" l
		for l in $locs; do
			out="${lname[$l]}${out:+;}$out"
		done
		if [ "$3" = labels ]; then
			comm=${comm//;/:}
			comm=${comm// /_}
			out="$comm-$pid;$out"
			[ -n "$cpu" ] && out="cpu-$cpu;$out"
		fi
		# (bash's arithmetic is 64-bit, awk's is double)
		if [ "$2" = ns ]; then
			if [ $((v2 % period)) != 0 ]; then
				echo "$v2 ns is no whole number of periods of $period" >&2
				return 1
			fi
			v=$((v2 / period))
		else
			v=$v1
		fi
		sum[$out]=$(( ${sum[$out]:-0} + v ))
	done < <(grep "^S$us" "$T/last.tab")
	for key in "${!sum[@]}"; do
		printf '%s %s\n' "$key" "${sum[$key]}"
	done | LC_ALL=C sort
}

# same NAME WANT GOT: PASS when the files are equal.
same() {
	if cmp -s "$2" "$3"; then
		pass "$1"
	else
		fail "$1" "differs: $(diff "$2" "$3" | head -6 | tr '\n' '|')"
	fi
}

# sorted FILE: folded text, sorted as raw_folded sorts.
sorted() { LC_ALL=C sort "$1"; }

# --- a snapshot ---
"$FS" fold "${env_opts[@]}" --format pprof -o "$T/snap.pb.gz" "$T/snap.fstat" 2>"$T/snap.err"
check pprof-snap-write test -s "$T/snap.pb.gz"
[ "$(head -c2 "$T/snap.pb.gz" | od -An -tx1 | tr -d ' ')" = 1f8b ] &&
	pass pprof-snap-gzip || fail pprof-snap-gzip "not gzip"

"$FS" fold "${env_opts[@]}" --no-annotate --cpu-root --comm-pid "$T/snap.fstat" 2>/dev/null |
	sorted /dev/stdin >"$T/want-periods"
"$FS" fold "${env_opts[@]}" --no-annotate --cpu-root --comm-pid --count samples "$T/snap.fstat" |
	sorted /dev/stdin >"$T/want-samples"
if raw_folded "$T/snap.pb.gz" ns labels >"$T/got-periods" 2>"$T/raw.err"; then
	same pprof-snap-periods "$T/want-periods" "$T/got-periods"
else
	fail pprof-snap-periods "$(head -3 "$T/raw.err" | tr '\n' '|')"
fi
if raw_folded "$T/snap.pb.gz" 1 labels >"$T/got-samples" 2>"$T/raw.err"; then
	same pprof-snap-samples "$T/want-samples" "$T/got-samples"
else
	fail pprof-snap-samples "$(head -3 "$T/raw.err" | tr '\n' '|')"
fi
raw=$(cat "$T/last.raw")
# What the comparison does not see: the header fields and the mappings.
for want in 'PeriodType: cpu nanoseconds' 'Period: 1003009' 'Duration: 2s' \
	'samples/count cpu/nanoseconds\[dflt\]' \
	"/0x0 $chain $bid \\[FN\\]\$" \
	'/0x1000 /nonexistent/libgone.so.1 00112233445566778899aabbccddeeff00112233 *$' \
	' \[kernel.kallsyms\] *$' ' \[anon\] *$' \
	'cpu:\[0 cpu\]' 'pid:\[4545 pid\]' \
	'100 of the 400 samples taken were lost'; do
	if ! grep -qE -- "$want" <<<"$raw"; then
		fail pprof-snap-fields "no '$want' in go tool pprof -raw"
		want=
		break
	fi
done
[ -n "$want" ] && pass pprof-snap-fields

# -traces and -top: the client's own views of the same profile.
if go tool pprof -traces -symbolize=none "$T/snap.pb.gz" >"$T/traces" 2>&1 &&
	grep -q 'comm:  we;ird name' "$T/traces" &&
	grep -qE '^ +[0-9.]+[mµn]?s +hot_leaf$' "$T/traces" &&
	grep -q '\[libgone.so.1\]' "$T/traces"; then
	pass pprof-snap-traces
else
	fail pprof-snap-traces "$(head -5 "$T/traces" | tr '\n' '|')"
fi
# -top in samples: hot_leaf is in 70 + 10 + 9 + 11 samples, the leaf of 81.
if go tool pprof -top -sample_index=samples -symbolize=none "$T/snap.pb.gz" >"$T/top" 2>&1 &&
	grep -qE '^ +81 +67\.50% .* 100 +83\.33%  hot_leaf$' "$T/top"; then
	pass pprof-snap-top
else
	fail pprof-snap-top "$(grep -E 'hot_leaf|Total|total' "$T/top" | head -3 | tr '\n' '|')"
fi
# --count samples makes samples the default type.
"$FS" fold "${env_opts[@]}" --count samples -o "$T/snap-s.pprof" "$T/snap.fstat" 2>/dev/null
if go tool pprof -raw -symbolize=none "$T/snap-s.pprof" 2>&1 | grep -q 'samples/count\[dflt\] cpu/nanoseconds'; then
	pass pprof-count-samples
else
	fail pprof-count-samples "-o .pprof with --count samples: samples not the default"
fi
# The same bytes for the same input.
"$FS" fold "${env_opts[@]}" -o "$T/snap2.pb.gz" "$T/snap.fstat" 2>/dev/null
check pprof-deterministic cmp "$T/snap.pb.gz" "$T/snap2.pb.gz"

# --- folded text ---
printf '%s\n' \
	'app;main;run;compute 10' \
	'app;main;run;do_syscall_64_[k];vfs_read_[k] 3' \
	'app;main;libc.so.6+0x9be75 2' \
	'other;start;a frame with spaces;leaf 7' \
	'app;main;run;compute 5' >"$T/plain.folded"
"$FS" fold -o "$T/plain.pb.gz" "$T/plain.folded" 2>"$T/plain.err"
sorted <("$FS" fold "$T/plain.folded") >"$T/want-plain"
if raw_folded "$T/plain.pb.gz" 1 none >"$T/got-plain" 2>"$T/raw.err"; then
	same pprof-folded-samples "$T/want-plain" "$T/got-plain"
else
	fail pprof-folded-samples "$(head -3 "$T/raw.err" | tr '\n' '|')"
fi
grep -q '^samples/count\[dflt\]$' "$T/last.raw" &&
	pass pprof-folded-type || fail pprof-folded-type "$(grep -A1 '^Samples:' "$T/last.raw" | tr '\n' '|')"

# flamestat's own header: periods at a known frequency are CPU time.
{ echo '# flamestat: count=periods samples=9 sample_periods=12 freq=1000'
  echo 'a;b 5'; echo 'a;c 7'; } >"$T/periods.folded"
"$FS" fold -o "$T/periods.pb.gz" "$T/periods.folded" 2>/dev/null
sorted <("$FS" fold "$T/periods.folded" 2>/dev/null) >"$T/want-pf"
if raw_folded "$T/periods.pb.gz" ns none >"$T/got-pf" 2>"$T/raw.err"; then
	same pprof-folded-periods "$T/want-pf" "$T/got-pf"
else
	fail pprof-folded-periods "$(head -3 "$T/raw.err" | tr '\n' '|')"
fi

# Fractional counts: rounded half up, said so.
printf 'a;b 0.5\na;c 2.25\na;d 3\n' >"$T/frac.folded"
if "$FS" fold -o "$T/frac.pb.gz" "$T/frac.folded" 2>"$T/frac.err" &&
	grep -q 'fractional counts of 2 stacks were rounded' "$T/frac.err" &&
	raw_folded "$T/frac.pb.gz" 1 none >"$T/got-frac" 2>/dev/null &&
	[ "$(cat "$T/got-frac")" = "$(printf 'a;b 1\na;c 2\na;d 3')" ]; then
	pass pprof-folded-fraction
else
	fail pprof-folded-fraction "$(cat "$T/frac.err" "$T/got-frac" 2>/dev/null | head -4 | tr '\n' '|')"
fi

# Huge counts: INT64_MAX is a value; past it, or summed past it, an error
# and no file.
printf 'a;b 9223372036854775807\n' >"$T/max.folded"
"$FS" fold -o "$T/max.pb.gz" "$T/max.folded" 2>/dev/null
if raw_folded "$T/max.pb.gz" 1 none 2>/dev/null | grep -qx 'a;b 9223372036854775807'; then
	pass pprof-huge-count
else
	fail pprof-huge-count "$(grep -A2 '^Samples' "$T/last.raw" | tr '\n' '|')"
fi
for c in 'a;b 9223372036854775808' 'a;b 9223372036854775807\na;c 1'; do
	rm -f "$T/over.pb.gz"
	printf "$c\n" >"$T/over.folded"
	if "$FS" fold -o "$T/over.pb.gz" "$T/over.folded" 2>"$T/over.err"; then
		fail pprof-overflow "exit 0 for '$c'"
	elif [ -e "$T/over.pb.gz" ]; then
		fail pprof-overflow "a file was left for '$c'"
	elif ! grep -q "past what pprof's signed 64-bit values hold" "$T/over.err"; then
		fail pprof-overflow "$(head -2 "$T/over.err" | tr '\n' '|')"
	else
		pass "pprof-overflow ($(printf "$c" | wc -l) stacks)"
	fi
done
sed 's/periods=1099511627776/periods=0x4000000000000000/' "$T/spec" | "$T/mksnap" >"$T/over.fstat"
if ! "$FS" fold "${env_opts[@]}" -o "$T/over.pb.gz" "$T/over.fstat" 2>"$T/over.err" &&
	grep -q "past what pprof's signed 64-bit values hold" "$T/over.err"; then
	pass pprof-overflow-snapshot
else
	fail pprof-overflow-snapshot "$(head -2 "$T/over.err" | tr '\n' '|')"
fi
# A differential profile has no pprof form.
printf 'a;b 1 2\n' >"$T/diff.folded"
if ! "$FS" fold -o "$T/diff.pb.gz" "$T/diff.folded" 2>"$T/diff.err" &&
	grep -q 'differential' "$T/diff.err"; then
	pass pprof-diff-refused
else
	fail pprof-diff-refused "$(head -2 "$T/diff.err" | tr '\n' '|')"
fi

# --- the command line ---
out=$("$FS" fold "${env_opts[@]}" -o /nonexistent/dir/x.pb.gz "$T/snap.fstat" 2>&1)
rc=$?
if [ $rc = 1 ] && grep -q 'cannot create /nonexistent/dir/x.pb.gz' <<<"$out"; then
	pass pprof-unwritable
else
	fail pprof-unwritable "exit $rc: $out"
fi
out=$("$FS" fold "${env_opts[@]}" -o /dev/full --format pprof "$T/snap.fstat" 2>&1)
rc=$?
if [ $rc = 1 ] && grep -q 'No space left' <<<"$out"; then
	pass pprof-full-device
else
	fail pprof-full-device "exit $rc: $out"
fi
out=$("$FS" fold --format svg "$T/plain.folded" 2>&1)
rc=$?
[ $rc = 2 ] && grep -q 'expected folded, speedscope or pprof' <<<"$out" &&
	pass pprof-fold-format || fail pprof-fold-format "exit $rc: $out"
out=$("$FS" record --format nope 2>&1)
grep -q 'expected folded, svg, report, raw, speedscope or pprof' <<<"$out" &&
	pass pprof-record-format || fail pprof-record-format "$out"
"$FS" fold -o "$T/plain.out.folded" "$T/plain.folded"
check pprof-folded-name-stays-folded grep -q '^app;main;run;compute 15$' "$T/plain.out.folded"
if command -v script >/dev/null; then
	out=$(script -qec "$FS fold --format pprof $T/plain.folded" /dev/null 2>&1 | tr -d '\r')
	grep -q "not writing pprof's binary format to a terminal" <<<"$out" &&
		pass pprof-no-terminal || fail pprof-no-terminal "$out"
else
	skip pprof-no-terminal "no script(1)"
fi

# --- the check itself can fail ---
# A profile whose count differs, and one whose frames were swapped, must
# not compare equal; nor may a corrupt file be read at all.
sed 's/^\(app;main;run;compute\) 15$/\1 14/' "$T/want-plain" >"$T/wrong"
if raw_folded "$T/plain.pb.gz" 1 none 2>/dev/null | cmp -s - "$T/wrong"; then
	fail pprof-check-fails "a wrong count compared equal"
else
	pass pprof-check-fails-count
fi
printf 'app;run;main;compute 15\n' >"$T/swapped.folded"
"$FS" fold -o "$T/swapped.pb.gz" "$T/swapped.folded" 2>/dev/null
if raw_folded "$T/swapped.pb.gz" 1 none 2>/dev/null | grep -qx 'app;main;run;compute 15'; then
	fail pprof-check-fails "swapped frames compared equal"
else
	pass pprof-check-fails-frames
fi
head -c 200 "$T/snap.pb.gz" >"$T/cut.pb.gz"
if raw_folded "$T/cut.pb.gz" ns labels >/dev/null 2>&1; then
	fail pprof-check-fails "a cut file was read"
else
	pass pprof-check-fails-corrupt
fi
