#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# flamestat record --interval: one file per interval, named by its start
# (UTC, sortable); no sample lost or counted twice between intervals: each
# file holds its interval's recorded samples exactly, their sum is what
# the module recorded, and the intervals' periods add up to those of the
# whole run; --max-files keeps the newest of the tool's files and no other;
# SIGTERM mid-interval writes the last file and exits 0; -- COMMAND with
# --format raw, and -p; a directory that cannot be written is refused
# before anything is sampled.
# timeout: 240
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

FS=flamestat
command -v $FS >/dev/null || die "no flamestat tool in the guest"
# The tool loads the module itself (autostart=0).
fs_loaded && rmmod flamestat

NAME_RE='^flamestat-[0-9]{8}T[0-9]{6}Z(_[0-9]+)?\.'

# ours DIR EXT: the tool's files in DIR, sorted by name (= by time).
ours() {
	for _f in "$1"/flamestat-*."$2"; do
		_f=${_f##*/}
		printf '%s\n' "$_f" | grep -qE "$NAME_RE$2\$" && echo "$_f"
	done | LC_ALL=C sort
}
# wrote ERR: the "wrote FILE: R samples recorded, P periods, S s" lines.
wrote() { grep -E '^flamestat record: wrote .*: [0-9]+ samples recorded, [0-9]+ periods, [0-9.]+ s$' "$1"; }
# sumcol ERR N: sum of field N of the wrote lines.
sumcol() { wrote "$1" | awk -v n="$2" '{t += $n} END {print t + 0}'; }
# no_tmp DIR: no temporary file left behind.
# shellcheck disable=SC2317 # called through check
no_tmp() {
	for _f in "$1"/.*.tmp "$1"/*.tmp; do
		[ -e "$_f" ] && echo "left: $_f" && return 1
	done
	return 0
}

# ---- 1. ~5 s in 1 s intervals, against a known workload: lossless ----
D=$FS_TMP/run
mkdir -p "$D"
wl_bg chain 8
t0=$(now_ms)
$FS record --interval 1 -d 5 --count samples --header -o "$D" 2>"$FS_TMP/run.err"
expect_eq "record --interval 1 -d 5: status 0" "$?" 0
t1=$(now_ms)
sed 's/^/#   /' "$FS_TMP/run.err"
artifact "$FS_TMP/run.err"
ours "$D" folded >"$FS_TMP/run.list"
n=$(wc -l <"$FS_TMP/run.list")
# Ends on the grid of the start (1, 2, 3, 4 s), then -d's end at 5 s: five
# files, unless the tool woke more than half an interval late for one
# (then that interval is longer, and there is one file fewer).
expect_ge "files written (5 expected)" "$n" 4
expect_le "files written (5 expected)" "$n" 5
expect_eq "a 'wrote' line per file" "$(wrote "$FS_TMP/run.err" | wc -l)" "$n"
# shellcheck disable=SC2012 # counting names
expect_eq "nothing else in the directory" "$(ls -A "$D" | wc -l)" "$n"
# Named by their start, sortable: the order written is the order by name.
wrote "$FS_TMP/run.err" | sed 's|.*/||; s|: .*||' >"$FS_TMP/run.order"
check "names sort in the order written" cmp "$FS_TMP/run.list" "$FS_TMP/run.order"
tot=0 rec=0 ns=0
while read -r f; do
	artifact "$D/$f"
	c=$(fs_sum "$D/$f")
	h=$(sed -n 's/^# flamestat:.* samples=\([0-9]*\) .*/\1/p' "$D/$f")
	d=$(sed -n 's/^# flamestat:.* duration_ns=\([0-9]*\).*/\1/p' "$D/$f")
	expect_eq "$f: its counts are its interval's recorded samples" "$c" "$h"
	tot=$((tot + c))
	rec=$((rec + h))
	ns=$((ns + d))
done <"$FS_TMP/run.list"
cat "$D"/flamestat-*.folded >"$FS_TMP/run-all.folded"
expect_ge "chain sampled" "$(fs_sum "$FS_TMP/run-all.folded" '^chain;')" 500
expect_eq "sum of the files' counts = samples the module recorded (wrote lines)" "$tot" "$(sumcol "$FS_TMP/run.err" 5)"
expect_eq "sum of the files' counts = the summary's total" \
	"$(sed -n 's/^flamestat record: \([0-9]*\) samples in .* files in .*/\1/p' "$FS_TMP/run.err")" "$tot"
# Every period of the run in exactly one interval: per CPU the timer
# expires at start + phase + k x period (phases spread over the period),
# each expiry counted once, as a sample or an overrun. Over the summed
# running times D of n CPUs: sum over ranks r of floor((D - P r / n) / P);
# the time between one interval's end and the next's start is in no
# running time: a few ns, but a vCPU the host holds there stretches it,
# and each such gap can hold one period per CPU (seen: +4 on 2 CPUs under
# a load of 10). A lost interval or a double count is hundreds of periods
# away.
# The intervals' running times add up to the run's: at least -d, at most
# the tool's whole life (each interval's time counted once).
expect_ge "running time of all intervals >= -d 5 (ms)" $((ns / 1000000)) 4990
expect_le "running time of all intervals <= the tool's run (ms)" $((ns / 1000000)) $((t1 - t0))
periods=$(sumcol "$FS_TMP/run.err" 8)
cpus=$(sed -n 's/^# flamestat:.* cpus=\([0-9]*\).*/\1/p' "$D/$(head -n 1 "$FS_TMP/run.list")")
want=$(awk -v d="$ns" -v n="$cpus" 'BEGIN {
	p = int((1e9 + 997 / 2) / 997)
	for (r = 0; r < n; r++) t += int((d - int(p * r / n)) / p)
	print t }')
log "$n files, $tot samples, $periods periods in $ns ns on $cpus CPUs (expected $want)"
expect_le "periods of all intervals = those of the run (- $cpus)" "$((want - cpus))" "$periods"
expect_le "periods of all intervals = those of the run (+ $cpus per file)" "$periods" \
	"$((want + cpus * n))"
check "no temporary file left" no_tmp "$D"
wl_wait

# ---- 2. --max-files: the newest of the tool's files; others stay ----
R=$FS_TMP/rot
mkdir -p "$R"
echo keep >"$R/notes.txt"
echo keep >"$R/flamestat-old.folded"
echo keep >"$R/flamestat-20000101T000000Z.svg"
echo keep >"$R/target"
ln -s target "$R/flamestat-19990101T000000Z.folded"
mkdir "$R/flamestat-19990101T000002Z.folded"
# the tool's name and extension: a file of an earlier run, oldest of all
echo old >"$R/flamestat-19990101T000001Z.folded"
wl_bg chain 6
$FS record --interval 1 -d 4 --max-files 2 -o "$R" 2>"$FS_TMP/rot.err"
expect_eq "record --max-files 2: status 0" "$?" 0
sed 's/^/#   /' "$FS_TMP/rot.err"
wl_wait
# shellcheck disable=SC2012 # for the log
ls -lA "$R" | sed 's/^/#   /'
expect_ge "record --max-files 2: 3 or more files written" "$(wrote "$FS_TMP/rot.err" | wc -l)" 3
ours "$R" folded | while read -r f; do
	[ -f "$R/$f" ] && [ ! -L "$R/$f" ] && echo "$f"
done >"$FS_TMP/rot.list"
expect_eq "record --max-files 2: 2 regular files of ours left" "$(wc -l <"$FS_TMP/rot.list")" 2
expect_eq "record --max-files 2: they are the last two written" "$(cat "$FS_TMP/rot.list")" \
	"$(wrote "$FS_TMP/rot.err" | sed 's|.*/||; s|: .*||' | tail -n 2)"
check "an earlier run's file of the same name and format removed" test ! -e "$R/flamestat-19990101T000001Z.folded"
for f in notes.txt flamestat-old.folded flamestat-20000101T000000Z.svg target; do
	check "other files stay: $f" test -f "$R/$f"
done
check "a symbolic link stays" test -L "$R/flamestat-19990101T000000Z.folded"
check "a directory stays" test -d "$R/flamestat-19990101T000002Z.folded"
check "no temporary file left (--max-files)" no_tmp "$R"

# ---- 3. SIGTERM in the middle of an interval ----
S=$FS_TMP/term
mkdir -p "$S"
wl_bg chain 8
$FS record --interval 2 -o "$S" 2>"$FS_TMP/term.err" &
rec=$!
check "SIGTERM: sampling started" fs_wait_sampling "$rec"
sleep 3
kill -TERM "$rec"
wait "$rec"
expect_eq "SIGTERM: status 0" "$?" 0
wl_wait
sed 's/^/#   /' "$FS_TMP/term.err"
n=$(ours "$S" folded | wc -l)
expect_eq "SIGTERM at ~3 s of 2 s intervals: 2 files" "$n" 2
last=$(ours "$S" folded | tail -n 1)
check "SIGTERM: the partial interval written" test -s "$S/$last"
expect_ge "SIGTERM: chain in the partial interval" "$(fs_sum "$S/$last" '^chain;')" 100
secs=$(wrote "$FS_TMP/term.err" | tail -n 1 | awk '{print int($10 * 1000)}')
expect_le "SIGTERM: the last interval is partial (ms)" "$secs" 1900
check "no temporary file left (SIGTERM)" no_tmp "$S"
check "SIGTERM: the module stopped after" sh -c "$FS status | grep -q '^running: *no'"

# ---- 4. -- COMMAND, --format raw; -p ----
C=$FS_TMP/cmd
mkdir -p "$C"
$FS record -q --interval 1 --format raw -o "$C" -- "$FS_WL/chain" 3
expect_eq "record --interval --format raw -- chain 3: status 0" "$?" 0
n=$(ours "$C" fstat | wc -l)
expect_ge "-- chain 3: 3 or 4 raw files" "$n" 3
expect_le "-- chain 3: 3 or 4 raw files" "$n" 4
all=0
ours "$C" fstat >"$FS_TMP/cmd.list"
lastf=$(tail -n 1 "$FS_TMP/cmd.list")
while read -r f; do
	# The last interval may end just after a boundary with no sample:
	# then fold says so and fails (status 1), as its man page says.
	if ! $FS fold --count samples "$C/$f" >"$FS_TMP/cmd-$f.folded" \
		2>"$FS_TMP/cmd-$f.err" &&
		! { [ "$f" = "$lastf" ] &&
			grep -q ': a recording of no samples$' "$FS_TMP/cmd-$f.err"; }; then
		not_ok "fold $f"
		sed 's/^/#   /' "$FS_TMP/cmd-$f.err"
		artifact "$C/$f"
	fi
	all=$((all + $(fs_sum "$FS_TMP/cmd-$f.folded" '^chain;')))
done <"$FS_TMP/cmd.list"
# (about 3,000 on an idle host; 928 seen with the host oversubscribed)
expect_ge "-- chain 3: chain in the raw files" "$all" 300
P=$FS_TMP/pid
mkdir -p "$P"
wl_bg chain 3
$FS record -q --interval 1 -p "$!" -o "$P"
expect_eq "record --interval -p: status 0 when the process is gone" "$?" 0
wl_wait
expect_ge "-p: 2 or more files" "$(ours "$P" folded | wc -l)" 2
expect_eq "-p: only chain" "$(cat "$P"/flamestat-*.folded | grep -cv '^chain;')" 0

# ---- 5. a directory that cannot be written: refused before sampling ----
check "unload" fs_unload
O=$FS_TMP/ro
mkdir -p "$O"
mount -t tmpfs -o ro none "$O" || die "cannot mount a read-only tmpfs"
$FS record --interval 1 -d 1 -o "$O" 2>"$FS_TMP/ro.err"
expect_eq "read-only directory: status 1" "$?" 1
sed 's/^/#   /' "$FS_TMP/ro.err"
check "read-only directory: said so" grep -q "cannot create files in the directory: Read-only file system" "$FS_TMP/ro.err"
check "read-only directory: the module was not even loaded" sh -c '! test -d /sys/module/flamestat'
umount "$O"
$FS record --interval 1 -d 1 -o "$FS_TMP/missing" 2>/dev/null
expect_eq "missing directory: status 2" "$?" 2
check "missing directory: the module was not loaded" sh -c '! test -d /sys/module/flamestat'
finish
