#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The tool on the host, without the module: fold and report of synthetic
# binary snapshots (tests/tool/mksnap.c) against golden files, output that
# flamegraph.pl's parser accepts line by line, corrupt snapshots refused
# cleanly, what status and record's summary say about the counters
# (tests/tool/statusfmt.c, recordsum.c), and the option errors and exit
# statuses of every subcommand.
# BLESS=1 rewrites the golden files.
source "$(dirname "$0")/../lib/common.sh"

T=$BUILD/tool
G=$TOP/tests/tool/golden
FS=$TOP/user/flamestat
mkdir -p "$T"
rm -f "$T/cpus.folded"
[ -x "$FS" ] || { fail tool-build "user/flamestat is not built (make tool)"; exit 0; }
if ! gcc -O1 -g -std=gnu11 -Wall -Wextra -Werror -I"$TOP/kmod" \
	-o "$T/mksnap" "$TOP/tests/tool/mksnap.c" 2>"$T/mksnap.log"; then
	fail tool-mksnap "$(head -3 "$T/mksnap.log" | tr '\n' '|')"
	exit 0
fi
make -s -C "$TOP/tests/workloads" O="$BUILD/workloads" >/dev/null || {
	fail tool-workloads "tests/workloads did not build"; exit 0; }
chain=$BUILD/workloads/chain

# off SYMBOL: file offset of SYMBOL in chain, in hex (PT_LOAD mapping).
off() {
	local va
	va=$(nm "$chain" | awk -v s="$1" '$3 == s {print $1; exit}')
	[ -n "$va" ] || { echo "no symbol $1" >&2; return 1; }
	va=$((16#$va))
	# (mawk has no strtonum: the arithmetic is bash's.)
	while read -r o v f; do
		if [ "$va" -ge $((v)) ] && [ "$va" -lt $((v + f)) ]; then
			printf '0x%x\n' $((va - v + o))
			return 0
		fi
	done < <(readelf -lW "$chain" | awk '$1 == "LOAD" {print $2, $3, $5}')
	echo "symbol $1 in no PT_LOAD" >&2
	return 1
}
base=0x555555554000
addr() { printf '0x%x' $((base + $(off "$1") + $2)); }
bid=$(readelf -n "$chain" | awk '/Build ID:/ {print $3}')
size=$(stat -c %s "$chain")

# fp_body FILE SYMBOL: bytes from SYMBOL to the first address where its
# frame pointer is set up (readelf: the CFA column turns rbp-based), +1.
fp_body() {
	local va row
	va=$(nm "$1" | awk -v s="$2" '$3 == s {print $1; exit}')
	row=$(readelf -wF "$1" | awk -v pc="$va" '
		/ FDE / { split($NF, r, /[=.]+/); cur = r[2] == pc; next }
		cur && $2 ~ /^rbp/ { print $1; exit }')
	[ -n "$va" ] && [ -n "$row" ] || { echo "no frame pointer set up in $2" >&2; return 1; }
	echo $((16#$row - 16#$va + 1))
}

# A leaf is named at its address, a return address one byte back: +1 and
# +2 both land inside the function. The leaf is where hot_leaf's frame
# pointer is set up (in its prologue, the walk would have skipped its
# caller: see the frameless test below).
leaf=$(addr hot_leaf "$(fp_body "$chain" hot_leaf)") r_mid=$(addr middle 2) r_out=$(addr outer 2) r_main=$(addr main 2)
cat >"$T/spec" <<EOF
header freq=997 samples=200 recorded=100 idle=80 filtered=12 table_full=8 running_ns=2000000000 cpus=2 cost_ns=200000
file 1 $chain build_id=$bid
file 2 /nonexistent/libgone.so.1 build_id=00112233445566778899aabbccddeeff00112233
proc 1 tgid=4242 comm=chain
proc 2 tgid=4343 comm=we\\cird\\sname flags=exited
map 1 1 $base $(printf '0x%x' $((base + size + 4095 & ~4095))) 0x0
map 1 0 0x7f1000000000 0x7f1000001000 0 anon
map 2 2 0x7f0000000000 0x7f0000010000 0x1000
ksym 0xffffffff81001000 0x10 do_syscall_64
ksym 0xffffffff81002000 0x20 vfs_read
ksym 0xffffffffc0001000 0x5 ext4_file_read_iter [ext4]
stack 70 proc=1 tgid=4242 comm=chain u=$leaf,$r_mid,$r_out,$r_main
stack 10 proc=1 tgid=4242 comm=chain k=0xffffffff81002000,0xffffffff81001000 u=$leaf,$r_mid,$r_out,$r_main
stack 5 proc=2 tgid=4343 comm=we\\cird\\sname flags=ut u=0x7f0000001234,0x7f0000002345
stack 3 proc=0 tgid=0 comm=kworker/0:1 flags=kthread k=0xffffffffc0001000,0xffffffff81001000
stack 2 proc=0 tgid=0 comm=kworker/1:0 flags=kthread,kt k=0xffffffff89999999,0xffffffff81001000
stack 4 proc=1 tgid=4242 comm=chain cpu=1 u=0x7f1000000010,$r_main
stack 6 proc=9 tgid=4444 comm=gone u=0x7ffff000
EOF
if ! "$T/mksnap" <"$T/spec" >"$T/snap.fstat" 2>"$T/mksnap.err"; then
	fail tool-snapshot "mksnap: $(cat "$T/mksnap.err")"
	exit 0
fi
# Symbolize only from what the test controls.
empty=$T/empty
mkdir -p "$empty"
: >"$T/kallsyms"
env_opts=(--kallsyms "$T/kallsyms" --perfmap-dir "$empty" --debug-dir "$empty")

# golden NAME CMD...: CMD's stdout against tests/tool/golden/NAME.
golden() {
	local name=$1 got=$T/$1.out
	shift
	if ! "$@" >"$got" 2>"$T/$name.err"; then
		fail "tool-golden-$name" "exit status $?: $(head -3 "$T/$name.err" | tr '\n' '|')"
		return
	fi
	if [ "${BLESS:-}" = 1 ]; then
		mkdir -p "$G" && cp "$got" "$G/$name"
		pass "tool-golden-$name (blessed)"
	elif [ ! -f "$G/$name" ]; then
		fail "tool-golden-$name" "no golden file (run with BLESS=1)"
	elif cmp -s "$got" "$G/$name"; then
		pass "tool-golden-$name"
	else
		fail "tool-golden-$name" "differs: $(diff "$G/$name" "$got" | head -6 | tr '\n' '|')"
	fi
}

golden fold "$FS" fold "${env_opts[@]}" "$T/snap.fstat"
golden fold-options "$FS" fold "${env_opts[@]}" --comm-pid --cpu-root --delimiter --no-annotate "$T/snap.fstat"
# chain's offsets move whenever chain.c or the compiler changes: the
# golden file names them by symbol (the addresses of the spec above, less
# the base) so that it does not.
fold_addresses_by_symbol() {
	local a name sed_args=()
	for a in leaf:hot_leaf+fp r_mid:middle+2 r_out:outer+2 r_main:main+2; do
		name=${a#*:}
		a=${a%%:*}
		sed_args+=(-e "s/chain+$(printf '0x%x' $((${!a} - base)))\b/chain+<$name>/g")
	done
	"$FS" fold "${env_opts[@]}" --addresses "$T/snap.fstat" | sed "${sed_args[@]}"
	return "${PIPESTATUS[0]}"
}
golden fold-addresses fold_addresses_by_symbol
golden fold-header "$FS" fold "${env_opts[@]}" --header "$T/snap.fstat"
golden report "$FS" report "${env_opts[@]}" "$T/snap.fstat"

# Compressed recordings: gzip (as record saves .fstat files) and zlib (as
# the module sends snapshots) read to the same stacks; a damaged stream,
# or one whose snapshot disagrees with its header's size, is refused with
# the reason. zlib by hand: gzip's deflate data between its 10-byte header
# and 8-byte trailer, a zlib header before, the Adler-32 after.
zlib_of() { # IN OUT
	local n
	gzip -n -c "$1" >"$T/zlib.gz"
	n=$(stat -c %s "$T/zlib.gz")
	{
		printf '\x78\x01'
		tail -c +11 "$T/zlib.gz" | head -c $((n - 18))
		od -An -tu1 -v "$1" | awk '{ for (i = 1; i <= NF; i++) { a = (a + $i) % 65521; b = (b + a) % 65521 } }
			BEGIN { a = 1 } END { printf "%08x\n", b * 65536 + a }' |
			sed 's/../\\x&/g' | xargs -0 printf '%b' | head -c 4
	} >"$2"
}
gzip -n -c "$T/snap.fstat" >"$T/snap-gz.fstat"
zlib_of "$T/snap.fstat" "$T/snap-zlib.fstat"
"$FS" fold "${env_opts[@]}" "$T/snap.fstat" >"$T/plain.folded" 2>/dev/null
for z in gz zlib; do
	if "$FS" fold "${env_opts[@]}" "$T/snap-$z.fstat" >"$T/$z.folded" 2>"$T/$z.err" &&
	   cmp -s "$T/plain.folded" "$T/$z.folded" && [ -s "$T/plain.folded" ]; then
		pass "tool-snapzip-$z-reads"
	else
		fail "tool-snapzip-$z-reads" "$(head -c 300 "$T/$z.err")"
	fi
done
# zlib_of's own check: a wrong Adler-32 is corrupt data to zlib.
zlib_of "$T/snap.fstat" "$T/bad-zlib.fstat"
printf '\0\0\0\0' | dd of="$T/bad-zlib.fstat" bs=1 seek=$(($(stat -c %s "$T/bad-zlib.fstat") - 4)) conv=notrunc 2>/dev/null
gsize=$(stat -c %s "$T/snap-gz.fstat")
head -c $((gsize / 2)) "$T/snap-gz.fstat" >"$T/cut-gz.fstat"
{ cat "$T/snap-gz.fstat"; printf 'junk'; } >"$T/junk-gz.fstat"
{ cat "$T/snap.fstat"; head -c 8 /dev/zero; } | gzip -n >"$T/long-gz.fstat"
head -c $(($(stat -c %s "$T/snap.fstat") - 8)) "$T/snap.fstat" | gzip -n >"$T/short-gz.fstat"
for c in "cut-gz:truncated" "junk-gz:bytes after the compressed snapshot" \
	 "long-gz:longer than its header" "short-gz:ends after" "bad-zlib:incorrect data check"; do
	f=${c%%:*} want=${c#*:}
	if "$FS" fold "${env_opts[@]}" "$T/$f.fstat" >/dev/null 2>"$T/$f.err"; then
		fail "tool-snapzip-refuses-$f" "read without an error"
	elif grep -q "$want" "$T/$f.err"; then
		pass "tool-snapzip-refuses-$f"
	else
		fail "tool-snapzip-refuses-$f" "want '$want', got: $(head -c 300 "$T/$f.err")"
	fi
done
golden report-total "$FS" report "${env_opts[@]}" --sort total --limit 5 "$T/snap.fstat"
# A recording of no samples (an interval in which nothing ran) is read: it
# fails with status 1 (no sample, as for any input) and says what it is,
# with or without --count samples (which once refused it as folded text).
printf 'header freq=997 samples=0 recorded=0 idle=40 running_ns=40000000 cpus=2\n' |
	"$T/mksnap" >"$T/nosamples.fstat" 2>/dev/null
for opt in "" "--count samples"; do
	# shellcheck disable=SC2086 # $opt: no option, or one of two words
	"$FS" fold "${env_opts[@]}" $opt "$T/nosamples.fstat" >"$T/nosamples.out" 2>"$T/nosamples.err"
	st=$?
	name="tool-fold-no-samples${opt:+-count-samples}"
	if [ "$st" = 1 ] && grep -qx "flamestat fold: $T/nosamples.fstat: a recording of no samples" "$T/nosamples.err"; then
		pass "$name"
	else
		fail "$name" "status $st: $(head -c 300 "$T/nosamples.err")"
	fi
done
# A folded file read back gives the same report as the snapshot.
"$FS" fold "${env_opts[@]}" "$T/snap.fstat" >"$T/back.folded" 2>/dev/null
golden report-folded "$FS" report "$T/back.folded"
# (without --header a folded file carries no totals and no frequency:
# compare the rows but the snapshot's CPU ms)
check tool-report-folded-same cmp <(grep -v '^#' "$T/report.out" |
	sed -E 's/^( +[0-9.]+% +[0-9.]+% +[0-9]+) +[0-9]+\.[0-9][0-9]  /\1  /') \
	<(grep -v '^#' "$T/report-folded.out")

# Lockdown and hidden kernel addresses: kernel frames are ids with names.
sed 's/^header /header flags=lockdown,kaddr_hidden /; s/^ksym 0xffffffff81001000 /ksym 1 /; /^ksym 0xffffffff8100[2]/d; /^ksym 0xffffffffc/d' "$T/spec" |
	sed 's/k=0xffffffff81002000,0xffffffff81001000/k=1/; s/k=0xffffffffc0001000,0xffffffff81001000/k=1/; s/k=0xffffffff89999999,0xffffffff81001000/k=1,2/' |
	sed 's/^ksym 1 0x10 do_syscall_64/ksym 1 0 [withheld]/' >"$T/spec-lock"
"$T/mksnap" <"$T/spec-lock" >"$T/lock.fstat"
golden fold-lockdown "$FS" fold "${env_opts[@]}" "$T/lock.fstat"

# Self-throttling: 25 periods skipped (counted in samples, as the module
# does) and 25 overruns, so 25 of the 250 periods; "now" while in force.
sed 's/^header freq=997 samples=200 /header freq=997 samples=225 throttled=25 overruns=25 /' \
	"$T/spec" >"$T/spec-throttle"
sed 's/^header /header state=running,throttled /' "$T/spec-throttle" >"$T/spec-throttle-now"
"$T/mksnap" <"$T/spec-throttle" >"$T/throttle.fstat"
"$T/mksnap" <"$T/spec-throttle-now" >"$T/throttle-now.fstat"

# same NAME WANT GOT: two files with the same text.
same() {
	if cmp -s "$2" "$3"; then
		pass "$1"
	else
		fail "$1" "$(diff "$2" "$3" | head -6 | tr '\n' '|')"
	fi
}

# flamestat status needs the module; its printing of the counters is
# tested on those of snapshots (tests/tool/statusfmt.c).
if gcc -O1 -g -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wshadow \
	-Wstrict-prototypes -Wmissing-prototypes -Wformat=2 -Wvla \
	-I"$TOP/user" -I"$TOP/kmod" -o "$T/statusfmt" "$TOP/tests/tool/statusfmt.c" \
	"$TOP/user/device/device.c" "$TOP/user/device/loadpolicy.c" \
	"$TOP/user/profile/snapzip.c" "$TOP/user/lib/util.c" "$TOP/user/lib/cpulist.c" \
	-lz 2>"$T/statusfmt.log"; then
	"$T/statusfmt" 25 <"$T/snap.fstat" >"$T/status-plain.out"
	if grep -q '^overruns: ' "$T/status-plain.out" &&
	   ! grep -q '^throttled:' "$T/status-plain.out"; then
		pass tool-status-not-throttled
	else
		fail tool-status-not-throttled "$(tr '\n' '|' <"$T/status-plain.out")"
	fi
	"$T/statusfmt" 25 <"$T/throttle.fstat" >"$T/status-throttle.out"
	printf '%s\n' \
		"throttled:  25 periods skipped (10.0% of the periods): the sampler's cost exceeded" \
		"            cpu_max_percent (25%) of a CPU, so it sampled less often there until its cost fell" \
		>"$T/status-throttle.want"
	same tool-status-throttled "$T/status-throttle.want" \
		<(grep -A1 '^throttled:' "$T/status-throttle.out")
	"$T/statusfmt" 10 <"$T/throttle-now.fstat" >"$T/status-throttle-now.out"
	printf '%s\n' \
		"throttled:  now, on some CPUs; 25 periods skipped (10.0% of the periods): the sampler's cost exceeds" \
		"            cpu_max_percent (10%) of a CPU, so it samples less often there until its cost falls" \
		>"$T/status-throttle-now.want"
	same tool-status-throttled-now "$T/status-throttle-now.want" \
		<(grep -A1 '^throttled:' "$T/status-throttle-now.out")
	# The parameter unreadable (-1) or off (0): no percentage claimed.
	for p in -1 0; do
		"$T/statusfmt" $p <"$T/throttle.fstat" | grep -A1 '^throttled:' >"$T/status-throttle$p.out"
		if grep -q '^ *cpu_max_percent of a CPU, so it sampled' "$T/status-throttle$p.out"; then
			pass "tool-status-throttled-pct$p"
		else
			fail "tool-status-throttled-pct$p" "$(tr '\n' '|' <"$T/status-throttle$p.out")"
		fi
	done
	# The cost per sample is per timer callback: 200,000 ns over the 200
	# callbacks, not over the 225 samples (25 of them throttled periods).
	check tool-status-cost-per-callback grep -q '^cost:       1000 ns per sample' "$T/status-throttle.out"
else
	fail tool-statusfmt-build "$(head -3 "$T/statusfmt.log" | tr '\n' '|')"
fi

# The summary of flamestat record (tests/tool/recordsum.c, linked with the
# tool's objects): a warning with the share of the periods throttled; and
# its live status line: throttled periods apart from the drops.
tool_objs
if gcc -O1 -g -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wshadow \
	-Wstrict-prototypes -Wmissing-prototypes -Wformat=2 -Wvla \
	-I"$TOP/user" -I"$TOP/kmod" -o "$T/recordsum" "$TOP/tests/tool/recordsum.c" \
	"${robjs[@]}" "${TOOL_LDLIBS[@]}" 2>"$T/recordsum.log"; then
	"$T/recordsum" 25 <"$T/throttle.fstat" 2>"$T/record-throttle.err"
	want="flamestat record: warning: 10.0% of the sampling periods (25) were skipped: the module throttled itself on CPUs where its cost passed cpu_max_percent (25%) of the CPU; to sample at the full rate, lower --freq, use a smaller --kernel-depth/--user-depth, or load the module with a higher cpu_max_percent="
	check tool-record-throttled grep -qxF "$want" "$T/record-throttle.err"
	"$T/recordsum" 25 <"$T/throttle-now.fstat" 2>&1 >/dev/null | head -1 | tr '\r' '\n' >"$T/record-live.err"
	check tool-record-live-throttled grep -qF 'samples 225  recorded 100  dropped 100  stacks 0  throttled 25 (now)' "$T/record-live.err"
	"$T/recordsum" 25 <"$T/snap.fstat" 2>"$T/record-plain.err"
	if grep -q '^flamestat record: 100 samples in' "$T/record-plain.err" &&
	   grep -q 'dropped 100  stacks 0$' "$T/record-plain.err" &&
	   ! grep -q 'throttl' "$T/record-plain.err"; then
		pass tool-record-not-throttled
	else
		fail tool-record-not-throttled "$(tr '\n' '|' <"$T/record-plain.err")"
	fi
else
	fail tool-recordsum-build "$(head -3 "$T/recordsum.log" | tr '\n' '|')"
fi

# Report and graph of a recording whose sampler throttled itself: a note,
# also through a folded file with the header; none for the others.
golden report-throttled "$FS" report "${env_opts[@]}" "$T/throttle.fstat"
note='sampled below the requested rate on some CPUs: 10.0% of periods skipped by self-throttling'
check tool-report-throttled-note grep -qxF "# note: $note" "$T/report-throttled.out"
if grep -q '^# flamestat report:' "$T/report.out" && ! grep -q 'throttl' "$T/report.out"; then
	pass tool-report-not-throttled
else
	fail tool-report-not-throttled "$(head -3 "$T/report.out" | tr '\n' '|')"
fi
"$FS" fold "${env_opts[@]}" --header "$T/throttle.fstat" >"$T/throttle.folded" 2>/dev/null
check tool-fold-header-throttled grep -q '^# flamestat: .* throttled=25 periods=250 ' "$T/throttle.folded"
"$FS" report "$T/throttle.folded" >"$T/report-throttled-folded.out" 2>/dev/null
check tool-report-folded-throttled-note grep -qxF "# note: $note" "$T/report-throttled-folded.out"
"$FS" svg "$T/throttle.folded" >"$T/throttle.svg" 2>/dev/null
check tool-svg-throttled-notice grep -qE "^<text id=\"notice\" [^>]*>$note</text>\$" "$T/throttle.svg"
"$FS" svg "$T/fold-header.out" >"$T/plain.svg" 2>/dev/null
if grep -q 'id="meta"' "$T/plain.svg" && ! grep -q 'id="notice"\|throttl' "$T/plain.svg"; then
	pass tool-svg-not-throttled
else
	fail tool-svg-not-throttled "$(grep -m2 'id="meta"\|id="notice"' "$T/plain.svg" | tr '\n' '|')"
fi

# Leaves where no frame pointer is set up: a library built without frame
# pointers (libnofp.so, built here), whose function the frame-pointer walk
# leaves in place of its caller. Its share of the user samples and the
# leaf are told in the report (also through a folded file's header), the
# graph and record's summary; under 1% they are not.
cat >"$T/nofp.c" <<'EOF2'
void nofp_copy(long *d, const long *s, long n)
{
	for (long i = 0; i < n; i++)
		d[i] = s[i] ^ i;
}
EOF2
if gcc -O2 -fomit-frame-pointer -fPIC -shared -o "$T/libnofp.so" "$T/nofp.c" 2>"$T/nofp.log" &&
   nva=$(nm "$T/libnofp.so" | awk '$3 == "nofp_copy" {print $1; exit}') && [ -n "$nva" ]; then
	# (readelf: no rbp-based CFA anywhere in its FDE)
	if readelf -wF "$T/libnofp.so" | awk -v pc="$nva" '
		/ FDE / { split($NF, r, /[=.]+/); cur = r[2] == pc; if (cur) seen = 1; next }
		cur && $2 ~ /^rbp/ { bad = 1 } END { exit !seen || bad }'; then
		pass tool-frameless-fixture
	else
		fail tool-frameless-fixture "nofp_copy has a frame pointer, or no FDE"
	fi
	nbase=0x7f2000000000
	# (a shared object's addresses are its file offsets in the first page's segment)
	nleaf=$(printf '0x%x' $((nbase + 16#$nva + 2)))
	{
		cat "$T/spec"
		echo "file 3 $T/libnofp.so"
		echo "map 1 3 $nbase $(printf '0x%x' $((nbase + 0x10000))) 0x0"
		echo "stack 40 proc=1 tgid=4242 comm=chain u=$nleaf,$r_out,$r_main"
	} >"$T/spec-nofp"
	"$T/mksnap" <"$T/spec-nofp" >"$T/nofp.fstat"
	fnote='29.6% of the samples with a user stack have their leaf in code without a frame pointer (libnofp.so nofp_copy 29.6%): the caller of such a function is missing from its stack and its time shows in the caller'"'"'s caller (docs/GUIDE.md, "Code without frame pointers")'
	"$FS" report "${env_opts[@]}" "$T/nofp.fstat" >"$T/report-nofp.out" 2>"$T/report-nofp.err"
	check tool-report-frameless-note grep -qxF "# note: $fnote" "$T/report-nofp.out"
	check tool-fold-frameless-stack grep -qxF 'chain;main;outer;nofp_copy 40' \
		<("$FS" fold "${env_opts[@]}" "$T/nofp.fstat" 2>/dev/null)
	"$FS" fold "${env_opts[@]}" --header "$T/nofp.fstat" >"$T/nofp.folded" 2>/dev/null
	check tool-fold-header-frameless grep -q '^# flamestat: .* user_samples=135 frameless=40 frameless_top=libnofp.so%20nofp_copy%2029.6%25\( \|$\)' "$T/nofp.folded"
	"$FS" report "$T/nofp.folded" >"$T/report-nofp-folded.out" 2>/dev/null
	check tool-report-folded-frameless-note grep -qxF "# note: $fnote" "$T/report-nofp-folded.out"
	"$FS" svg "$T/nofp.folded" >"$T/nofp.svg" 2>/dev/null
	check tool-svg-frameless-notice grep -qE '^<text id="notice-frameless" [^>]*>29.6% of the user stacks end in code without a frame pointer: their leaf&#39;s caller is missing</text>$' "$T/nofp.svg"
	if [ -x "$T/recordsum" ]; then
		"$T/recordsum" 25 "$T/nofp.folded" <"$T/nofp.fstat" 2>"$T/record-nofp.err" >/dev/null
		check tool-record-frameless-warning grep -qxF "flamestat record: warning: $fnote" "$T/record-nofp.err"
		# The stacks' weight: sample_periods=140 at 997 Hz, 1.003009 ms each.
		check tool-record-summary-cpu-time grep -q '^flamestat record: [0-9]* samples in [0-9]* stacks (0\.140 s of CPU time), ' "$T/record-nofp.err"
		"$T/recordsum" 25 <"$T/nofp.fstat" 2>"$T/record-nofp-raw.err" >/dev/null
		if grep -q 'CPU time' "$T/record-nofp-raw.err"; then
			fail tool-record-summary-raw-no-cpu-time "raw output, no periods summed, yet: $(grep 'CPU time' "$T/record-nofp-raw.err")"
		else
			pass tool-record-summary-raw-no-cpu-time
		fi
		if grep -q 'frame pointer' "$T/record-nofp-raw.err"; then
			fail tool-record-frameless-raw "a frameless warning without folding: $(grep 'frame pointer' "$T/record-nofp-raw.err")"
		else
			pass tool-record-frameless-raw
		fi
	fi
	# 1 sample of 106 (0.9%): counted, not told.
	{
		cat "$T/spec"
		echo "file 3 $T/libnofp.so"
		echo "map 1 3 $nbase $(printf '0x%x' $((nbase + 0x10000))) 0x0"
		echo "stack 1 proc=1 tgid=4242 comm=chain u=$nleaf,$r_out,$r_main"
		echo "stack 10 proc=1 tgid=4242 comm=chain u=$leaf,$r_mid,$r_out,$r_main"
	} >"$T/spec-nofp-few"
	"$T/mksnap" <"$T/spec-nofp-few" >"$T/nofp-few.fstat"
	"$FS" fold "${env_opts[@]}" --header "$T/nofp-few.fstat" >"$T/nofp-few.folded" 2>/dev/null
	check tool-fold-header-frameless-few grep -q '^# flamestat: .* user_samples=106 frameless=1 ' "$T/nofp-few.folded"
	for f in "$T/nofp-few.fstat" "$T/snap.fstat"; do
		n=$(basename "$f" .fstat)
		if "$FS" report "${env_opts[@]}" "$f" 2>/dev/null | grep -q 'frame pointer'; then
			fail "tool-report-frameless-none-$n" "a frameless note under 1%"
		else
			pass "tool-report-frameless-none-$n"
		fi
	done
	if grep -q 'notice-frameless' "$T/plain.svg"; then
		fail tool-svg-frameless-none "a frameless notice in plain.svg"
	else
		pass tool-svg-frameless-none
	fi
else
	fail tool-frameless-fixture "cannot build libnofp.so: $(head -3 "$T/nofp.log" | tr '\n' '|')"
fi

# A sample stands for the periods that passed: its own, and those its
# CPU's timer missed by firing late. At 1000 Hz, hot_leaf's 10 samples
# stood for 30 periods (30 ms of CPU), middle's 10 for 10: the counts are
# periods, and the header carries both totals. Records without periods
# (older modules) stand for one period per sample.
cat >"$T/spec-periods" <<EOF
header freq=1000 samples=20 recorded=20 running_ns=1000000000 cpus=1 cost_ns=20000
file 1 $chain build_id=$bid
proc 1 tgid=4242 comm=chain
map 1 1 $base $(printf '0x%x' $((base + size + 4095 & ~4095))) 0x0
stack 10 proc=1 tgid=4242 comm=chain periods=30 u=$leaf,$r_mid,$r_out,$r_main
stack 10 proc=1 tgid=4242 comm=chain periods=10 u=$(addr middle 4),$r_out,$r_main
EOF
sed 's/ periods=[0-9]*//' "$T/spec-periods" >"$T/spec-periods-old"
"$T/mksnap" <"$T/spec-periods" >"$T/periods.fstat"
"$T/mksnap" <"$T/spec-periods-old" >"$T/periods-old.fstat"
golden fold-periods "$FS" fold "${env_opts[@]}" --header "$T/periods.fstat"
golden fold-periods-old "$FS" fold "${env_opts[@]}" --header "$T/periods-old.fstat"
check tool-fold-periods grep -qx 'chain;main;outer;middle;hot_leaf 30' "$T/fold-periods.out"
check tool-fold-periods-totals grep -q '^# flamestat: count=periods samples=20 sample_periods=40 ' "$T/fold-periods.out"
check tool-fold-periods-old grep -qx 'chain;main;outer;middle;hot_leaf 10' "$T/fold-periods-old.out"
check tool-fold-periods-old-totals grep -q '^# flamestat: count=periods samples=20 sample_periods=20 ' "$T/fold-periods-old.out"
"$FS" fold "${env_opts[@]}" "$T/periods.fstat" >"$T/fold-periods-plain.out" 2>/dev/null
# The report: percentages of the CPU time, each row's samples and time;
# through a folded file with the header, the time (the samples per stack
# are not in it). Older records: one period per sample.
golden report-periods "$FS" report "${env_opts[@]}" "$T/periods.fstat"
golden report-periods-old "$FS" report "${env_opts[@]}" "$T/periods-old.fstat"
check tool-report-periods-row grep -qxF '    75.00%   75.00%          10       30.00  hot_leaf' "$T/report-periods.out"
check tool-report-periods-header grep -q '^# flamestat report: 20 samples (20 taken, 0 lost), 0.040 s of CPU time (40 periods of 1.000 ms), 1000 Hz' "$T/report-periods.out"
check tool-report-periods-old-row grep -qxF '    50.00%   50.00%          10       10.00  hot_leaf' "$T/report-periods-old.out"
"$FS" report "$T/fold-periods.out" >"$T/report-periods-folded.out" 2>/dev/null
check tool-report-periods-folded-row grep -qxF '    75.00%   75.00%       30.00  hot_leaf' "$T/report-periods-folded.out"
check tool-report-periods-folded-header grep -q '^# flamestat report: 20 samples (20 taken, 0 lost), 0.040 s of CPU time (40 periods of 1.000 ms)' "$T/report-periods-folded.out"

# --count samples: the counts are the samples (and the header says so,
# with the periods' total); folded text of periods cannot give them.
# Without the header, folded text of periods other than the samples gets a
# note on stderr, so that they are not taken for samples unawares.
"$FS" fold "${env_opts[@]}" --count samples --header "$T/periods.fstat" >"$T/fold-count-samples.out" 2>/dev/null
check tool-fold-count-samples grep -qx 'chain;main;outer;middle;hot_leaf 10' "$T/fold-count-samples.out"
check tool-fold-count-samples-header grep -q '^# flamestat: count=samples samples=20 sample_periods=40 ' "$T/fold-count-samples.out"
"$FS" report --count samples "$T/fold-periods.out" >/dev/null 2>"$T/count-samples-folded.err"
rc=$?
if [ $rc = 1 ] && grep -q 'the input has the periods of each stack, not its samples' "$T/count-samples-folded.err"; then
	pass tool-count-samples-of-periods-refused
else
	fail tool-count-samples-of-periods-refused "status $rc: $(head -2 "$T/count-samples-folded.err" | tr '\n' '|')"
fi
"$FS" fold "${env_opts[@]}" "$T/periods.fstat" 2>"$T/fold-note.err" >/dev/null
check tool-fold-periods-note grep -qxF 'flamestat fold: note: the counts are the sampling periods the samples stand for, 40 for 20 samples (a sample also stands for the periods its CPU'"'"'s timer missed by firing late): --count samples counts samples, --header adds a line with both totals' "$T/fold-note.err"
quiet=$( { "$FS" fold "${env_opts[@]}" --header "$T/periods.fstat"
	   "$FS" fold "${env_opts[@]}" --count samples "$T/periods.fstat"
	   "$FS" fold "${env_opts[@]}" "$T/periods-old.fstat"; } 2>&1 >/dev/null)
if [ -z "$quiet" ]; then
	pass tool-fold-periods-no-note
else
	fail tool-fold-periods-no-note "$quiet"
fi
# diff: counts of periods against counts of samples are not alike.
"$FS" diff "$T/fold-count-samples.out" "$T/fold-periods.out" -o /dev/null 2>"$T/diff-units.err"
check tool-diff-units-warned grep -q 'counts samples, .* sampling periods: where timers fired late' "$T/diff-units.err"

# What record writes (tests/tool/recordout.c: record's option parsing and
# output, from a snapshot file; linked like recordsum). The SVG: widths
# of periods (hot_leaf 30 of 40), the CPU time in the meta line, and in
# the tooltips' data the time of a count and each frame's samples.
if gcc -O1 -g -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wshadow \
	-Wstrict-prototypes -Wmissing-prototypes -Wformat=2 -Wvla \
	-I"$TOP/user" -I"$TOP/kmod" -o "$T/recordout" "$TOP/tests/tool/recordout.c" \
	"${robjs[@]}" "${TOOL_LDLIBS[@]}" 2>"$T/recordout.log"; then
	"$T/recordout" "$T/periods.fstat" "${env_opts[@]}" -o "$T/periods.svg" 2>"$T/periods-svg.err"
	check tool-svg-periods-meta grep -qxF '<text id="meta" x="50%" y="42">20 samples (40.00 ms of CPU time), 1.00 s at 1000 Hz on 1 CPU, 0 dropped (0.00%), sampler 1000 ns/sample (0.002% CPU)</text>' "$T/periods.svg"
	if grep -qx '<g class="root"><path d="M0 0h40"/></g>' "$T/periods.svg" &&
	   grep -q '<path d="M0 0h30"/>' "$T/periods.svg"; then
		pass tool-svg-periods-widths
	else
		fail tool-svg-periods-widths "$(grep '<path' "$T/periods.svg" | tr '\n' '|')"
	fi
	if grep -qxF '"s":[20,20,20,20,20,10],' "$T/periods.svg" &&
	   grep -qF '"total":40,"countns":1000000,"countname":"",' "$T/periods.svg"; then
		pass tool-svg-periods-tooltips
	else
		fail tool-svg-periods-tooltips "$(grep '^"[fst]' "$T/periods.svg" | tr '\n' '|')"
	fi
	"$T/recordout" "$T/periods-old.fstat" "${env_opts[@]}" -o "$T/periods-old.svg" 2>/dev/null
	if grep -qF '>20 samples (20.00 ms of CPU time), 1.00 s at 1000 Hz' "$T/periods-old.svg" &&
	   grep -qx '<g class="root"><path d="M0 0h20"/></g>' "$T/periods-old.svg" &&
	   grep -qF '"total":20,"countns":1000000,' "$T/periods-old.svg"; then
		pass tool-svg-periods-old
	else
		fail tool-svg-periods-old "$(grep 'id="meta"\|class="root"\|"total"' "$T/periods-old.svg" | tr '\n' '|')"
	fi
	# record --count samples: folded counts and report shares of samples;
	# -q: no note.
	"$T/recordout" "$T/periods.fstat" "${env_opts[@]}" --count samples \
		-o "$T/record-samples.folded" 2>"$T/record-samples.err"
	check tool-record-count-samples grep -qx 'chain;main;outer;middle;hot_leaf 10' "$T/record-samples.folded"
	"$T/recordout" "$T/periods.fstat" "${env_opts[@]}" -q -o "$T/record-periods.folded" 2>"$T/record-q.err"
	if grep -qx 'chain;main;outer;middle;hot_leaf 30' "$T/record-periods.folded" &&
	   [ ! -s "$T/record-q.err" ] && [ ! -s "$T/record-samples.err" ]; then
		pass tool-record-periods-quiet
	else
		fail tool-record-periods-quiet "$(cat "$T/record-q.err" "$T/record-samples.err" | tr '\n' '|')"
	fi
	"$T/recordout" "$T/periods.fstat" "${env_opts[@]}" --count samples --format report >"$T/record-samples.report" 2>/dev/null
	check tool-record-count-samples-report grep -qxF '    50.00%   50.00%          10  hot_leaf' "$T/record-samples.report"
else
	fail tool-recordout-build "$(head -3 "$T/recordout.log" | tr '\n' '|')"
fi

# A binary without a build-id rebuilt after the recording: the FILE
# record's inode is not the file at the path now, whose symbols would name
# the wrong functions. (nb.rec keeps the recorded inode from being reused.)
rm -f "$T/nb" "$T/nb.rec"
objcopy --remove-section .note.gnu.build-id "$chain" "$T/nb"
ln "$T/nb" "$T/nb.rec"
rm "$T/nb"
cp "$T/nb.rec" "$T/nb"
nb_id="dev=$(stat -c %d "$T/nb.rec") ino=$(stat -c %i "$T/nb.rec")"
cat >"$T/spec-nb" <<EOF
header freq=997 samples=15 recorded=15 running_ns=10000000 cpus=1
file 1 $T/nb $nb_id
file 2 $T/nb.rec $nb_id
proc 1 tgid=4242 comm=nb
proc 2 tgid=4243 comm=same
map 1 1 $base $(printf '0x%x' $((base + size + 4095 & ~4095))) 0x0
map 2 2 $base $(printf '0x%x' $((base + size + 4095 & ~4095))) 0x0
stack 10 proc=1 tgid=4242 comm=nb u=$leaf,$r_mid
stack 5 proc=2 tgid=4243 comm=same u=$leaf,$r_mid
EOF
"$T/mksnap" <"$T/spec-nb" >"$T/nb.fstat"
"$FS" fold "${env_opts[@]}" "$T/nb.fstat" >"$T/nb.out" 2>"$T/nb.err"
check tool-rebuilt-without-build-id-unnamed grep -qxF "$(printf 'nb;nb+0x%x;nb+0x%x 10' $((r_mid - base)) $((leaf - base)))" "$T/nb.out"
check tool-rebuilt-same-inode-named grep -qx 'same;middle;hot_leaf 5' "$T/nb.out"
check tool-rebuilt-warned grep -qxF 'flamestat fold: warning: 1 file was replaced since the recording (another build-id, or without one another file at the path): not used for names, its frames stay FILE+0xOFFSET (--verbose names them)' "$T/nb.err"
"$FS" fold "${env_opts[@]}" --verbose "$T/nb.fstat" 2>"$T/nb-verbose.err" >/dev/null
check tool-rebuilt-verbose-names-file grep -qxF "$T/nb [-]: file replaced since recording (another inode at the path, no build-id to compare), not used" "$T/nb-verbose.err"

# A 32-bit task's vDSO frames are not named from our own 64-bit vDSO
# (a recording of this boot names a 64-bit task's from it).
cat >"$T/dumpvdso.c" <<'EOF'
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
int main(void)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR), s, e;
	char line[256];
	FILE *m = fopen("/proc/self/maps", "r");

	while (m && fgets(line, sizeof(line), m))
		if (strstr(line, "[vdso]") && sscanf(line, "%lx-%lx", &s, &e) == 2 &&
		    s == base)
			return fwrite((void *)s, 1, e - s, stdout) != e - s;
	return 1;
}
EOF
if gcc -O1 -o "$T/dumpvdso" "$T/dumpvdso.c" && "$T/dumpvdso" >"$T/vdso.so" &&
   vs=$(nm -D --defined-only "$T/vdso.so" | awk '$3 ~ /^__vdso_clock_gettime@/ { print $1; exit }') &&
   [ -n "$vs" ] && [ -r /proc/sys/kernel/random/boot_id ]; then
	vo=$(printf '0x%x' $((16#$vs + 1)))
	cat >"$T/spec-vdso" <<EOF
header freq=997 samples=5 recorded=5 running_ns=10000000 cpus=1
host boot_id=$(cat /proc/sys/kernel/random/boot_id) hostname=$(uname -n) release=$(uname -r)
proc 1 tgid=4242 comm=app64
proc 2 tgid=4343 comm=app32 flags=compat
map 1 0 0x7fff00000000 0x7fff00002000 0 vdso
map 2 0 0xf7f00000 0xf7f02000 0 vdso
stack 3 proc=1 tgid=4242 comm=app64 u=$((0x7fff00000000 + vo))
stack 2 proc=2 tgid=4343 comm=app32 flags=compat u=$((0xf7f00000 + vo))
EOF
	"$T/mksnap" <"$T/spec-vdso" >"$T/vdso.fstat"
	"$FS" fold "${env_opts[@]}" "$T/vdso.fstat" >"$T/vdso.out" 2>"$T/vdso.err"
	check tool-vdso-64-named grep -qx 'app64;__vdso_clock_gettime 3' "$T/vdso.out"
	check tool-vdso-compat-not-ours grep -qx "app32;\[vdso\]+$vo 2" "$T/vdso.out"
else
	skip tool-vdso-compat "no __vdso_clock_gettime in this machine's vDSO, or no boot id"
fi

# A recording from another boot or host named with this machine's files
# and kernel symbols: one warning (none for this boot, as above, nor when
# only the recording's own names and the given --kallsyms are used).
check tool-this-boot-no-warning [ ! -s "$T/vdso.err" ]
cat >"$T/spec-foreign" <<EOF
header freq=997 samples=5 recorded=5 running_ns=10000000 cpus=1
host boot_id=00000000-1111-2222-3333-444444444444 hostname=elsewhere release=0.0
file 1 $chain build_id=$bid
proc 1 tgid=4242 comm=chain
map 1 1 $base $(printf '0x%x' $((base + size + 4095 & ~4095))) 0x0
ksym 0xffffffff81001000 0x10 do_syscall_64
stack 3 proc=1 tgid=4242 comm=chain u=$leaf,$r_mid
stack 2 proc=0 tgid=0 comm=kworker flags=kthread k=0xffffffff81002000,0xffffffff81001000
EOF
"$T/mksnap" <"$T/spec-foreign" >"$T/foreign.fstat"
"$FS" fold --perfmap-dir "$empty" --debug-dir "$empty" "$T/foreign.fstat" >"$T/foreign.out" 2>"$T/foreign.err"
if [ "$(grep -c 'warning: the recording was taken on host .elsewhere. (this is .*), but its frames are named from this machine.s files: ' "$T/foreign.err")" = 1 ] &&
   [ "$(wc -l <"$T/foreign.err")" = 1 ]; then
	pass tool-foreign-host-warned-once
else
	fail tool-foreign-host-warned-once "$(tr '\n' '|' <"$T/foreign.err")"
fi
grep -v '^file\|^map\|^stack 3' "$T/spec-foreign" >"$T/spec-foreign-k"
"$T/mksnap" <"$T/spec-foreign-k" >"$T/foreign-k.fstat"
"$FS" fold --perfmap-dir "$empty" "$T/foreign-k.fstat" >/dev/null 2>"$T/foreign-k.err"
check tool-foreign-kallsyms-warned grep -q "warning: the recording was taken on host 'elsewhere' .*, but its frames are named from this machine's kernel symbols (/proc/kallsyms): .*KASLR" "$T/foreign-k.err"
"$FS" fold "${env_opts[@]}" "$T/foreign-k.fstat" >/dev/null 2>"$T/foreign-k2.err"
check tool-foreign-given-kallsyms-quiet [ ! -s "$T/foreign-k2.err" ]
sed "s/hostname=elsewhere/hostname=$(uname -n)/" "$T/spec-foreign-k" | "$T/mksnap" >"$T/foreign-boot.fstat"
"$FS" fold --perfmap-dir "$empty" "$T/foreign-boot.fstat" >/dev/null 2>"$T/foreign-boot.err"
check tool-foreign-boot-warned grep -q "warning: the recording was taken in another boot of this host (boot id 00000000-1111-2222-3333-444444444444, now .*), but its frames are named from this machine's kernel symbols" "$T/foreign-boot.err"

# flamegraph.pl reads /^(.*)\s+?(\d+(?:\.\d*)?)$/ and splits the stack on
# ';'; inferno likewise. Every line we write must parse, and no frame may
# be empty.
for f in fold fold-options fold-addresses fold-lockdown fold-periods-plain; do
	bad=$(awk '!/^.*[ \t]+[0-9]+$/ {print NR": "$0; next}
		{s = $0; sub(/[ \t]+[0-9]+$/, "", s); n = split(s, a, ";")
		 for (i = 1; i <= n; i++) if (a[i] == "") {print NR": empty frame"; next}}' "$T/$f.out")
	if [ -n "$bad" ]; then
		fail "tool-flamegraph-format-$f" "$(echo "$bad" | head -3 | tr '\n' '|')"
	else
		pass "tool-flamegraph-format-$f"
	fi
done

# Corrupt snapshots: one line naming the problem, status 1, never a crash.
corrupt() {
	local name=$1 file=$T/corrupt-$1.fstat out rc
	out=$("$FS" fold "${env_opts[@]}" "$file" 2>&1 >/dev/null)
	rc=$?
	if [ $rc = 1 ] && [ -n "$out" ] && [ "$(echo "$out" | wc -l)" = 1 ]; then
		pass "tool-corrupt-$name"
	else
		fail "tool-corrupt-$name" "status $rc, stderr '$out'"
	fi
}
len=$(stat -c %s "$T/snap.fstat")
head -c $((len - 8)) "$T/snap.fstat" >"$T/corrupt-truncated.fstat"
corrupt truncated
head -c 300 "$T/snap.fstat" >"$T/corrupt-header-only.fstat"
corrupt header-only
# A record whose size runs past the end (the first record starts at the header's end).
hs=$(od -An -tu2 -j6 -N2 "$T/snap.fstat" | tr -d ' ')
cp "$T/snap.fstat" "$T/corrupt-recsize.fstat"
printf '\xff\xff\xff\x7f' | dd of="$T/corrupt-recsize.fstat" bs=1 seek=$((hs + 4)) conv=notrunc 2>/dev/null
corrupt recsize
cp "$T/snap.fstat" "$T/corrupt-abi.fstat"
printf '\x63\x00' | dd of="$T/corrupt-abi.fstat" bs=1 seek=4 conv=notrunc 2>/dev/null
corrupt abi
# A stack whose periods are fewer than its samples: each sample is one.
printf 'header freq=1000\nstack 10 comm=x periods=9 k=0xffffffff81001000\n' |
	"$T/mksnap" >"$T/corrupt-periods.fstat"
corrupt periods
# Output to a device or FIFO is written in place: renaming a temporary
# file over it would replace the node (this once replaced /dev/null).
rm -f "$T/null" && mknod -m 666 "$T/null" c 1 3 && mkfifo "$T/fifo.$$" 2>/dev/null
"$FS" fold "${env_opts[@]}" "$T/snap.fstat" -o "$T/null" >/dev/null 2>&1
check tool-output-device-kept test -c "$T/null"
cat "$T/fifo.$$" >"$T/fifo.out" &
"$FS" fold "${env_opts[@]}" "$T/snap.fstat" -o "$T/fifo.$$" >/dev/null 2>&1
wait
check tool-output-fifo-kept test -p "$T/fifo.$$"
check tool-output-fifo-written cmp "$T/fifo.out" "$T/fold.out"
rm -f "$T/fifo.$$"
if command -v valgrind >/dev/null; then
	check tool-valgrind-fold valgrind -q --error-exitcode=9 --leak-check=full \
		"$FS" fold "${env_opts[@]}" "$T/snap.fstat" -o "$T/null"
	check tool-valgrind-corrupt sh -c "valgrind -q --error-exitcode=9 --leak-check=full $FS fold --kallsyms $T/kallsyms $T/corrupt-recsize.fstat >/dev/null 2>&1; test \$? = 1"
fi

# Exit statuses: option errors are 2 with a one-line reason, --help is 0.
status() {
	local name=$1 want=$2 rc
	shift 2
	"$@" >"$T/st.out" 2>"$T/st.err" </dev/null
	rc=$?
	if [ "$rc" = "$want" ]; then
		pass "tool-status-$name"
	else
		fail "tool-status-$name" "status $rc, want $want: $(head -2 "$T/st.err" | tr '\n' '|')"
	fi
}
for c in record report fold svg diff status; do
	status "help-$c" 0 "$FS" "$c" --help
done
status version 0 "$FS" --version
status no-command 2 "$FS"
status unknown-command 2 "$FS" frobnicate
status record-freq-0 2 "$FS" record -F 0
status record-freq-high 2 "$FS" record -F 20001
status record-freq-junk 2 "$FS" record -F 99x
status record-duration 2 "$FS" record -d -1
status record-pid-junk 2 "$FS" record -p 12,abc
status record-pid-many 2 "$FS" record -p 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17
status record-a-and-p 2 "$FS" record -a -p 1
status record-p-and-command 2 "$FS" record -p 1 -- true
status record-K-and-U 2 "$FS" record -K -U
status record-format 2 "$FS" record --format pdf
status record-kdepth 2 "$FS" record --kernel-depth 0
status record-udepth 2 "$FS" record --user-depth 1025
status record-cpu-root 2 "$FS" record --cpu-root
status record-unknown-option 2 "$FS" record --frobnicate
status record-svg-option 2 "$FS" record --width abc
status report-sort 2 "$FS" report --sort bogus "$T/snap.fstat"
status report-limit 2 "$FS" report --limit x "$T/snap.fstat"
status report-min 2 "$FS" report --min 101 "$T/snap.fstat"
status report-two-files 2 "$FS" report "$T/snap.fstat" "$T/snap.fstat"
status report-missing-file 1 "$FS" report /nonexistent.folded
status fold-header-in-report 2 "$FS" report --header "$T/snap.fstat"
status fold-count 2 "$FS" fold --count bogus "$T/snap.fstat"
status record-count 2 "$FS" record --count time
status status-argument 2 "$FS" status extra

# record --interval: its options, and its directory checked before the
# module is asked (no module here: a status other than 1 or 2 would be
# the device's); the files themselves are the guest's (68-interval).
status record-interval-no-dir 2 "$FS" record --interval 5
check tool-record-interval-no-dir-message grep -qxF "flamestat record: --interval writes one file per interval into a directory: name it with -o DIR" "$T/st.err"
status record-interval-stdout 2 "$FS" record --interval 5 -o -
status record-interval-0 2 "$FS" record --interval 0 -o "$T"
check tool-record-interval-bounds-message grep -qxF "flamestat record: --interval '0': expected a number of seconds from 1 to 86400" "$T/st.err"
status record-interval-short 2 "$FS" record --interval 0.5 -o "$T"
status record-interval-long 2 "$FS" record --interval 86401 -o "$T"
status record-interval-junk 2 "$FS" record --interval 1x -o "$T"
status record-interval-nan 2 "$FS" record --interval nan -o "$T"
status record-max-files-alone 2 "$FS" record --max-files 3 -o "$T/x.folded"
check tool-record-max-files-alone-message grep -qxF "flamestat record: --max-files goes with --interval" "$T/st.err"
status record-max-files-junk 2 "$FS" record --interval 5 --max-files -1 -o "$T"
status record-max-files-high 2 "$FS" record --interval 5 --max-files 1000001 -o "$T"
status record-interval-raw 2 "$FS" record --interval 5 --raw "$T/r.fstat" -o "$T"
status record-interval-missing-dir 2 "$FS" record --interval 5 -d 1 -o "$T/no-such-dir"
check tool-record-interval-missing-dir-message grep -qxF "flamestat record: -o '$T/no-such-dir': no such directory: --interval writes its files into an existing directory" "$T/st.err"
check tool-record-interval-missing-dir-not-made test ! -e "$T/no-such-dir"
status record-interval-not-dir 2 "$FS" record --interval 5 -d 1 -o "$T/snap.fstat"
check tool-record-interval-not-dir-message grep -qF "'$T/snap.fstat': not a directory" "$T/st.err"
# /sys takes no new file, not even root's (EACCES).
status record-interval-unwritable 1 "$FS" record --interval 5 -d 1 -o /sys
check tool-record-interval-unwritable-message grep -qxF "flamestat record: -o '/sys': cannot create files in the directory: Permission denied" "$T/st.err"
if compgen -G "$T/.flamestat-*.tmp" >/dev/null; then
	fail tool-record-interval-no-tmp "$(ls -a "$T" | grep '\.tmp$' | head -3 | tr '\n' ' ')"
else
	pass tool-record-interval-no-tmp
fi
status report-ok 0 "$FS" report "${env_opts[@]}" "$T/snap.fstat"

# record --cpus/-C: checked against /sys before the module is asked (no
# module needed here), the CPU named; the online and offline cases are
# the guest's (tests/guest/66-record-cpus.sh).
status record-cpus-junk 2 "$FS" record --cpus 1x
check tool-record-cpus-junk-message grep -qF "flamestat record: --cpus '1x': expected a list of CPUs like 0-3,8" "$T/st.err"
status record-cpus-backwards 2 "$FS" record -C 3-1
status record-cpus-empty-item 2 "$FS" record --cpus 0,,1
last=$(sed 's/.*[-,]//' /sys/devices/system/cpu/possible)
possible=$(cat /sys/devices/system/cpu/possible)
many=s
[ "$possible" = 0 ] && many=""
status record-cpus-missing 2 "$FS" record --cpus $((last + 1)) -d 1 -o "$T/cpus.folded"
check tool-record-cpus-missing-message grep -qxF "flamestat record: --cpus '$((last + 1))': CPU $((last + 1)) does not exist: this machine has CPU$many $possible" "$T/st.err"
status record-C-missing 2 "$FS" record -C "0-$((last + 3))" -d 1 -o "$T/cpus.folded"
check tool-record-C-missing-message grep -qxF "flamestat record: -C '0-$((last + 3))': CPUs $((last + 1))-$((last + 3)) do not exist: this machine has CPU$many $possible" "$T/st.err"
status record-cpus-past-mask 2 "$FS" record --cpu 5000 -d 1 -o "$T/cpus.folded"
check tool-record-cpus-past-mask-message grep -qF "flamestat record: --cpu '5000': CPU 5000 does not exist" "$T/st.err"
if [ -e "$T/cpus.folded" ]; then
	fail tool-record-cpus-nothing-written "$T/cpus.folded was written"
else
	pass tool-record-cpus-nothing-written
fi

# Numbers are decimal, digits only: no C literals (-p 010 is process 10,
# not 8; 0x10 is refused), no sign, blanks, exponent, inf or nan, and each
# within its range (tests/tool/recordargs.c: record's own parsing, no
# module). svg and report take the same rule (svg's integers also a '+',
# as flamegraph.pl's Getopt::Long).
if gcc -O1 -g -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wshadow \
	-Wstrict-prototypes -Wmissing-prototypes -Wformat=2 -Wvla \
	-I"$TOP/user" -I"$TOP/kmod" -o "$T/recordargs" "$TOP/tests/tool/recordargs.c" \
	"${robjs[@]}" "${TOOL_LDLIBS[@]}" 2>"$T/recordargs.log"; then
	# numok NAME WANT-LINE ARGS...: parsed, and WANT-LINE printed.
	numok() {
		local name=$1 want=$2 out rc
		shift 2
		out=$("$T/recordargs" "$@" 2>&1)
		rc=$?
		if [ $rc = 0 ] && printf '%s\n' "$out" | grep -qxF "$want"; then
			pass "tool-number-ok-$name"
		else
			fail "tool-number-ok-$name" "status $rc, want '$want': $(printf '%s' "$out" | tr '\n' '|')"
		fi
	}
	# numbad NAME ARGS...: refused with status 2 and a message naming the value.
	numbad() {
		local name=$1 out rc
		shift
		out=$("$T/recordargs" "$@" 2>&1 >/dev/null)
		rc=$?
		if [ $rc = 2 ] && printf '%s\n' "$out" | grep -q "^flamestat record: .*'"; then
			pass "tool-number-bad-$name"
		else
			fail "tool-number-bad-$name" "status $rc: $(printf '%s' "$out" | tr '\n' '|')"
		fi
	}
	numok pid-octal-looking pids=10 -p 010
	numok pid-list pids=8,10 -p 8,0010
	numok duration-fraction duration=1.5 -d 1.5
	numok duration-dot duration=0.5 -d .5
	numok duration-leading-zero duration=10 -d 010
	numok freq-leading-zero freq=997 -F 0997
	numok kernel-depth kernel_depth=10 --kernel-depth 010
	numok user-depth user_depth=64 --user-depth 64
	numok limit limit=10 --limit 010
	numok limit-0 limit=0 --limit 0
	numok min min=5 --min 05
	numok min-fraction min=0.5 --min 0.5
	numok roots roots=10 --roots 010
	numok cpus cpus=0 -C 00
	for a in 0x10 +5 -5 " 5" "5 " 5x "" 0 4194305 1,,2 1e1; do
		numbad "pid-'$a'" -p "$a"
	done
	for a in 0x10 1e1 +1 -1 inf nan " 1" "1 " 1.2.3 . 0 0x1p3; do
		numbad "duration-'$a'" -d "$a"
	done
	for a in 0x3e7 +997 997x 99999999999999999999999 1e3; do
		numbad "freq-'$a'" -F "$a"
	done
	numbad kernel-depth-hex --kernel-depth 0x10
	numbad user-depth-exp --user-depth 1e2
	numbad limit-hex --limit 0x10
	numbad limit-negative --limit -1
	numbad limit-huge --limit 18446744073709551616
	numbad min-hex --min 0x10
	numbad min-exp --min 1e1
	numbad min-negative --min -1
	numbad roots-hex --roots 0x1
	numbad cpus-hex -C 0x1
	numbad cpus-plus -C +0
	numbad cpus-blank -C " 0"
	numbad svg-fontsize-hex --fontsize 0x10
else
	fail tool-recordargs-build "$(head -3 "$T/recordargs.log" | tr '\n' '|')"
fi
status svg-fontsize-hex 2 "$FS" svg --fontsize 0x10 "$T/fold.out"
status svg-fontsize-leading-zero 0 "$FS" svg --fontsize 010 "$T/fold.out"
status svg-factor-exp 2 "$FS" svg --factor 1e1 "$T/fold.out"
status svg-minwidth-hex 2 "$FS" svg --minwidth 0x1% "$T/fold.out"
status svg-fontwidth-inf 2 "$FS" svg --fontwidth inf "$T/fold.out"
status report-limit-hex 2 "$FS" report --limit 0x10 "$T/fold.out"
status report-roots-octal 0 "$FS" report --roots 010 "$T/fold.out"
status report-min-plus 2 "$FS" report --min +1 "$T/fold.out"

# Outputs are replaced atomically: a temporary file beside the target,
# created with O_EXCL under a random name (a symbolic link planted at a
# name is never followed: the old name, FILE.tmp.PID, was), with the
# target's mode or 0644 less the umask, renamed into place at the end and
# removed if the run fails or is killed.
A=$T/atomic
rm -rf "$A" && mkdir -p "$A"
echo "victim" >"$A/victim"
bash -c 'ln -s "$1/victim" "$1/out.folded.tmp.$$"; exec "$2" fold "${@:4}" "$3" -o "$1/out.folded"' \
	sh "$A" "$FS" "$T/snap.fstat" "${env_opts[@]}" 2>/dev/null
if [ "$(cat "$A/victim")" = victim ] && [ -f "$A/out.folded" ] && [ ! -L "$A/out.folded" ] &&
   cmp -s "$A/out.folded" "$T/fold.out"; then
	pass tool-output-no-symlink-follow
else
	fail tool-output-no-symlink-follow "victim: '$(head -c 40 "$A/victim")', out: $(ls -l "$A/out.folded" 2>&1)"
fi
rm -f "$A"/out.folded*
(umask 0; "$FS" fold "${env_opts[@]}" "$T/snap.fstat" -o "$A/new.folded" 2>/dev/null)
check tool-output-mode-new test "$(stat -c %a "$A/new.folded")" = 644
(umask 077; "$FS" fold "${env_opts[@]}" "$T/snap.fstat" -o "$A/private.folded" 2>/dev/null)
check tool-output-mode-umask test "$(stat -c %a "$A/private.folded")" = 600
: >"$A/kept.folded" && chmod 640 "$A/kept.folded"
"$FS" fold "${env_opts[@]}" "$T/snap.fstat" -o "$A/kept.folded" 2>/dev/null
if [ "$(stat -c %a "$A/kept.folded")" = 640 ] && cmp -s "$A/kept.folded" "$T/fold.out"; then
	pass tool-output-mode-kept
else
	fail tool-output-mode-kept "mode $(stat -c %a "$A/kept.folded")"
fi
left=$(find "$A" -name '.*' -type f)
check tool-output-no-temp-left test -z "$left"
# Killed while writing (SIGTERM while stopped, delivered on SIGCONT): the
# temporary file is removed, the target untouched, status 143.
awk 'BEGIN { for (i = 0; i < 300000; i++) printf "comm;f%d;g%d;h%d;leaf%d %d\n", i % 97, i % 1013, i % 7919, i, 1 + i % 13 }' >"$A/big.folded"
echo old >"$A/big.svg"
"$FS" svg --minwidth 0 "$A/big.folded" -o "$A/big.svg" 2>/dev/null &
pid=$!
tmp=""
for _ in $(seq 2000); do
	tmp=$(find "$A" -name '.big.svg.*' -o -name 'big.svg.tmp.*' 2>/dev/null)
	[ -n "$tmp" ] && break
	kill -0 $pid 2>/dev/null || break
	sleep 0.01
done
if [ -n "$tmp" ]; then
	kill -STOP $pid; kill -TERM $pid; kill -CONT $pid
	wait $pid
	rc=$?
	if [ $rc = 143 ] && [ -z "$(find "$A" -name '.big.svg.*' -o -name 'big.svg.tmp.*')" ] &&
	   [ "$(cat "$A/big.svg")" = old ]; then
		pass tool-output-killed-removed
	else
		fail tool-output-killed-removed "status $rc, left: $(find "$A" -name '.big.svg.*' | tr '\n' ' '), big.svg $(head -c 10 "$A/big.svg")"
	fi
else
	wait $pid
	skip tool-output-killed-removed "the temporary file was not seen while writing"
fi
rm -f "$A/big.folded" "$A/big.svg"

# record opens its outputs before it loads the module or samples: a path
# that cannot be written fails at once, naming it (status 1), not after
# the recording. Signals while writing: tests/guest/69-record-abort.sh.
R=$T/recout
rm -rf "$R" && mkdir -p "$R"
status record-output-dir-missing 1 "$FS" record -o /nonexistent/dir/x.svg -d 1
check tool-record-output-dir-missing-message grep -qxF "flamestat record: cannot create /nonexistent/dir/x.svg: No such file or directory" "$T/st.err"
status record-raw-dir-missing 1 "$FS" record --raw /nonexistent/dir/x.fstat -d 1 -o "$R/x.svg"
check tool-record-raw-dir-missing-message grep -qxF "flamestat record: cannot create /nonexistent/dir/x.fstat: No such file or directory" "$T/st.err"
# A run that fails later (here: no module) leaves no output and no
# temporary file, and an existing target as it was.
echo old >"$R/old.svg"
"$FS" record -d 1 -o "$R/old.svg" --raw "$R/new.fstat" >/dev/null 2>&1
if [ "$(cat "$R/old.svg")" = old ] && [ ! -e "$R/new.fstat" ] &&
   [ "$(find "$R" -mindepth 1 -printf '%f\n')" = old.svg ]; then
	pass tool-record-failed-nothing-left
else
	fail tool-record-failed-nothing-left "$(find "$R" -mindepth 1 -printf '%f ')"
fi

# Where the kernel loads no module (no module support, modules_disabled=1)
# record names the reason 'flamestat status' gives, not "not installed".
verdict=$("$FS" status 2>/dev/null | sed -n 's/^verdict: *the kernel will refuse the module: //p')
if [ -d /sys/module/flamestat ]; then
	skip tool-record-module-reason "the module is loaded on this host"
elif [ -z "$verdict" ]; then
	skip tool-record-module-reason "this host's kernel would load the module ('flamestat status')"
else
	status record-module-refused 4 "$FS" record -d 1 -o "$R/refused.folded"
	if grep -qF "$verdict" "$T/st.err" && ! grep -q 'not installed' "$T/st.err"; then
		pass tool-record-module-reason
	else
		fail tool-record-module-reason "status says '$verdict', record: $(tr '\n' '|' <"$T/st.err")"
	fi
fi

# report and fold of an input that is not one (empty, garbage, a .fstat
# without the magic) or has no sample: status 1 and a line naming the
# file, as svg (which draws its "no stack counts" graph, as these write
# their empty output).
E=$T/empty-in
rm -rf "$E" && mkdir -p "$E"
: >"$E/empty.fstat"
: >"$E/empty.folded"
head -c 200 "$T/spec" >"$E/garbage.fstat"
printf 'not a stack\nnor this\n' >"$E/garbage.folded"
printf '# flamestat: count=periods samples=0\n' >"$E/header-only.folded"
printf 'header freq=997\n' | "$T/mksnap" >"$E/nostacks.fstat"
for f in empty.fstat empty.folded garbage.fstat garbage.folded header-only.folded nostacks.fstat; do
	for c in report fold svg; do
		opts=("${env_opts[@]}")
		[ $c = svg ] && opts=()
		"$FS" "$c" "${opts[@]}" "$E/$f" >/dev/null 2>"$E/$c-$f.err" </dev/null
		rc=$?
		if [ $rc = 1 ] && grep -q "$f\|no stack counts" "$E/$c-$f.err"; then
			pass "tool-empty-input-$c-$f"
		else
			fail "tool-empty-input-$c-$f" "status $rc: $(tr '\n' '|' <"$E/$c-$f.err")"
		fi
	done
done
check tool-empty-input-fstat-message grep -qxF "flamestat fold: $E/garbage.fstat: not a flamestat recording (no snapshot magic at its start)" "$E/fold-garbage.fstat.err"
"$FS" report - </dev/null >/dev/null 2>"$E/stdin.err"
rc=$?
if [ $rc = 1 ] && grep -q '^flamestat report: standard input: no samples' "$E/stdin.err"; then
	pass tool-empty-input-stdin
else
	fail tool-empty-input-stdin "status $rc: $(tr '\n' '|' <"$E/stdin.err")"
fi

# perf's idioms: -a with a command samples the whole system while the
# command runs (no process filter; the command still ends it); -C takes
# perf's CPU lists.
if [ -x "$T/recordargs" ]; then
	"$T/recordargs" -a -- sleep 10 >"$T/a-cmd.out" 2>&1
	if grep -qx 'all=1' "$T/a-cmd.out" && grep -qx 'command=sleep' "$T/a-cmd.out" &&
	   grep -qx 'cfg_pids=' "$T/a-cmd.out" && grep -qx 'cfg_pid_tree=0' "$T/a-cmd.out"; then
		pass tool-record-a-with-command
	else
		fail tool-record-a-with-command "$(tr '\n' '|' <"$T/a-cmd.out")"
	fi
	"$T/recordargs" -- sleep 10 >"$T/cmd.out" 2>&1
	if grep -qx 'cfg_pids=4242' "$T/cmd.out" && grep -qx 'cfg_pid_tree=1' "$T/cmd.out"; then
		pass tool-record-command-tree
	else
		fail tool-record-command-tree "$(tr '\n' '|' <"$T/cmd.out")"
	fi
	online=$(cat /sys/devices/system/cpu/online)
	"$T/recordargs" -C "$online" >"$T/C.out" 2>&1
	check tool-record-C-list grep -qx "cpus=$online" "$T/C.out"
fi

# flamestat help COMMAND: its manual page (man flamestat-COMMAND, else the
# build tree's); without man or the page, COMMAND --help.
for c in record status; do
	PATH=/nonexistent "$FS" help $c >"$T/help-$c.out" 2>&1
	rc=$?
	if [ $rc = 0 ] && "$FS" $c --help | cmp -s - "$T/help-$c.out"; then
		pass "tool-help-$c-no-man"
	else
		fail "tool-help-$c-no-man" "status $rc: $(head -2 "$T/help-$c.out" | tr '\n' '|')"
	fi
done
if command -v man >/dev/null; then
	MANPAGER=cat MANWIDTH=80 "$FS" help svg >"$T/help-svg.out" 2>&1
	check tool-help-man-page grep -q '^FLAMESTAT-SVG(1)' "$T/help-svg.out"
else
	skip tool-help-man-page "no man here"
fi
status help-unknown 2 "$FS" help frobnicate
status help-alone 0 "$FS" help

# status --json: one JSON object with stable keys (flamestat-status(1)),
# loaded (its counters: tests/tool/statusfmt.c --json) or not (this host).
if command -v python3 >/dev/null; then
	"$FS" status --json >"$T/status.json" 2>"$T/status-json.err"
	rc=$?
	if [ -d /sys/module/flamestat ]; then
		skip tool-status-json-unloaded "the module is loaded on this host"
	elif [ $rc = 4 ] && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["loaded"] is False, d
for k in ("tool_version", "tool_abi", "installed", "secure_boot", "lockdown",
          "sig_enforce", "modules_supported", "modules_disabled", "verdict", "reason"):
    assert k in d, k
assert d["verdict"] in ("refuse", "may_refuse", "loadable"), d["verdict"]
' "$T/status.json" 2>"$T/status-json.py"; then
		pass tool-status-json-unloaded
	else
		fail tool-status-json-unloaded "status $rc: $(cat "$T/status-json.py" "$T/status-json.err" "$T/status.json" | tail -4 | tr '\n' '|')"
	fi
	# The verdict's reason is the text status prints.
	if [ -n "$verdict" ]; then
		check tool-status-json-reason python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["verdict"] == "refuse" and d["reason"] == sys.argv[2], d
' "$T/status.json" "$verdict"
	fi
	if [ -x "$T/statusfmt" ]; then
		"$T/statusfmt" 25 --json <"$T/throttle.fstat" >"$T/status-loaded.json"
		check tool-status-json-loaded python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["loaded"] is True and d["module_version"] == "te\"st", d
assert d["cpu_max_percent"] == 25
assert d["config"]["pids"] == [12, 34] and d["config"]["cpus"] == "0-1", d["config"]
assert d["stats"]["samples"] == 225 and d["stats"]["recorded"] == 100, d["stats"]
assert d["dropped"]["throttled"] == 25 and d["dropped"]["idle"] == 80, d["dropped"]
assert d["dropped"]["table-full"] == 8 and d["dropped"]["filtered"] == 12, d["dropped"]
assert set(d["session"]) == {"running", "claimed", "throttled_now", "lockdown"}, d["session"]
' "$T/status-loaded.json"
	fi
else
	skip tool-status-json "no python3 to parse it"
fi
status status-json-extra 2 "$FS" status --json extra
