#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The renderer and the profile model: unit checks of profile.h, golden SVGs
# (input folded -> expected SVG; BLESS=1 tests/run svg rewrites them),
# determinism, malformed input, options, exit statuses, help vs man pages.
# Host-only: no module needed.
set -u
. "$(dirname "$0")/../lib/common.sh"

FS="$TOP/user/flamestat"
GOLD="$TOP/tests/golden"
IN="$GOLD/inputs"
OUT="$BUILD/svg"
rm -rf "$OUT"
mkdir -p "$OUT"

if ! make -s -C "$TOP/user" >"$OUT/build.log" 2>&1; then
	fail svg-build "make -C user failed: $(tail -n 3 "$OUT/build.log" | tr '\n' '|')"
	exit 1
fi

# --- profile.h unit checks ----------------------------------------------
if gcc -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror \
	-I"$TOP/user" -o "$OUT/profile-test" "$TOP/tests/profile/profile-test.c" \
	"$TOP/user/profile/profile.c" "$TOP/user/profile/profile_folded.c" \
	"$TOP/user/lib/util.c" \
	>"$OUT/profile-test.log" 2>&1; then
	"$OUT/profile-test" 2>"$OUT/profile-test.err" ||
		fail profile-unit "profile-test exited with status $?"
else
	fail profile-unit-build "$(tail -n 3 "$OUT/profile-test.log" | tr '\n' '|')"
fi

# --- inputs the suite writes itself --------------------------------------
# Names XML and browsers choke on: markup characters, quotes, a tab, bytes
# that are not UTF-8, a C1 control; lines that are not stacks; CRLF; no
# final newline.
printf '%s\n' \
	'app;parse<T>;vector&lt;int&gt; 10' \
	'app;say "hi";it'"'"'s 7' \
	'app;caf\xc3\xa9;na\xefve 5' \
	'# a comment' \
	'this line has no count' \
	'app;tab	in	name 4' \
	'' \
	'app;nul 3' \
	'app;ctl 2' \
	'42' \
	'app;dots 1.2.3' \
	'app;frac 2.5' |
	sed -e 's/caf\\xc3\\xa9/caf\xc3\xa9/' -e 's/na\\xefve/na\xefve/' \
	    -e 's/app;nul/app;n\x00ul/' -e 's/app;ctl/app;c\x01tl/' >"$OUT/escape.folded"
printf 'app;crlf 6\r\napp;last 1' >>"$OUT/escape.folded"

# One parent with 3 wide children and 200 narrow ones: the narrow ones
# must become a single "(200 more)" block, so the widths still add up.
{
	echo "root;wide_a 3000"
	echo "root;wide_b 2000"
	echo "root;wide_c 1000"
	for i in $(seq 1 200); do echo "root;narrow_$i;deeper_$i 2"; done
	echo "other 4"
} >"$OUT/narrow.folded"

printf 'm;grew 10 30\nm;shrank 30 10\nm;same 20 20\nm;gone 5 0\n' \
	>"$OUT/twocol.folded"

# Counts past 2^24, which float32 (browsers paint paths in it) does not
# hold: nanoseconds, bytes, cycles. A frame 1/10^7 of the total.
printf 'main;big 9999999000\nmain;small;s2 750\nmain;small;s1 250\n' >"$OUT/big.folded"

# --- golden SVGs -------------------------------------------------------
# golden NAME ARGS...: run flamestat ARGS, compare with tests/golden/NAME.svg,
# render again and compare bytes (determinism), check well-formed XML.
golden() {
	local name=$1 out="$OUT/$1.svg" want="$GOLD/$1.svg"
	shift
	(cd "$TOP" && "$FS" "$@") >"$out" 2>"$OUT/$name.err"
	local rc=$?
	if [ $rc -ne 0 ]; then
		fail "golden-$name" "flamestat $* exited $rc: $(head -c 300 "$OUT/$name.err")"
		return
	fi
	(cd "$TOP" && "$FS" "$@") 2>/dev/null >"$out.again"
	if cmp -s "$out" "$out.again"; then
		pass "deterministic-$name"
	else
		fail "deterministic-$name" "two runs of flamestat $* differ"
	fi
	if command -v xmllint >/dev/null; then
		if xmllint --noout "$out" 2>"$OUT/$name.xmllint"; then
			pass "xml-$name"
		else
			fail "xml-$name" "$(head -n 3 "$OUT/$name.xmllint" | tr '\n' '|')"
		fi
	else
		fail "xml-$name" "xmllint missing (scripts/install-deps.sh installs libxml2-utils)"
	fi
	if [ "${BLESS:-0}" = 1 ]; then
		cp "$out" "$want"
		pass "golden-$name (blessed)"
	elif [ ! -f "$want" ]; then
		fail "golden-$name" "no $want yet: run BLESS=1 tests/run svg and review it"
	elif cmp -s "$out" "$want"; then
		pass "golden-$name"
	else
		fail "golden-$name" "differs from tests/golden/$name.svg: $(diff "$want" "$out" | head -n 4 | tr '\n' '|')"
	fi
}

I=tests/golden/inputs
golden basic svg $I/basic.folded
golden basic-inverted svg --inverted $I/basic.folded
golden basic-reverse svg --reverse --title "Callers of leaves" $I/basic.folded
golden basic-options svg --width 800 --height 20 --fontsize 10 --fonttype "DejaVu Sans" \
	--countname events --nametype "Frame:" --subtitle "make and bash" \
	--notes "built <by> tests & friends" --bgcolors blue --factor 2 --no-fluid \
	--no-kernel-color --hash $I/basic.folded
golden basic-minwidth svg --minwidth 5% $I/basic.folded
golden meta svg $I/meta.folded
golden meta-throttled svg $I/meta-throttled.folded
golden meta-periods svg $I/meta-periods.folded
golden java svg --colors java $I/java.folded
golden chart svg --flamechart $I/chart.folded
golden diff diff $I/before.folded $I/after.folded
golden diff-normalized diff -n --negate $I/before.folded $I/after.folded
golden twocol svg "$OUT/twocol.folded"
golden escape svg "$OUT/escape.folded"
golden narrow svg --minwidth 1% "$OUT/narrow.folded"
golden big svg --minwidth 0 "$OUT/big.folded"
# Fractional counts and blank frames (a leaf of one blank,
# "write0_[j];  3" as in FlameGraph's perf-vertx test data, an empty
# middle frame, a trailing ';').
golden counts svg $I/counts.folded
for pal in mem io wakeup chain js perl red green blue aqua yellow purple orange; do
	golden "palette-$pal" svg --colors $pal $I/java.folded
done
# flamegraph.pl's and inferno's other options.
golden basic-nameattr svg --nameattr $I/basic.nameattr $I/basic.folded
golden latin1 svg --encoding ISO-8859-1 $I/latin1.folded
golden basic-diffusion svg --colordiffusion $I/basic.folded
# --stroke-color: boxes, filled by class, outlined (inferno's option).
golden basic-stroke svg --stroke-color '#203040' $I/basic.folded
golden basic-base svg --base do_syscall_64 --base vfs_statx_[k] $I/basic.folded
golden basic-static svg --no-javascript --truncate-text-left --uicolor '#3050a0' \
	--width 600 $I/basic.folded
golden palette-unknown svg --colors rust $I/java.folded

# --- notes on the recording ---------------------------------------------
# A sampler that throttled itself: a visible line under the title (not a
# tooltip), in the drawn area; none when it did not.
notice='<text id="notice" x="50%" y="60" text-anchor="middle" fill="#b00000">sampled below the requested rate on some CPUs: 25.0% of periods skipped by self-throttling</text>'
grep -qxF "$notice" "$OUT/meta-throttled.svg" && pass notice-throttled ||
	fail notice-throttled "no notice line in meta-throttled.svg: $(grep -m1 'id="meta"' "$OUT/meta-throttled.svg")"
# The frames start below it: the graph is one line (1.5 font sizes) taller.
height() { sed -n 's/^<svg [^>]*id="flamegraph" [^>]*height="\([0-9]*\)".*/\1/p' "$1"; }
h0=$(height "$OUT/meta.svg") h1=$(height "$OUT/meta-throttled.svg")
[ -n "$h0" ] && [ "$h1" = "$((h0 + 18))" ] && pass notice-room ||
	fail notice-room "height $h1, want $h0 + 18"
! grep -q 'id="notice"\|self-throttling' "$OUT/meta.svg" "$OUT/basic.svg" && pass notice-none ||
	fail notice-none "a notice in a graph whose sampler did not throttle itself"

# --- time ---------------------------------------------------------------
# Counts of sampling periods (flamestat's header says count=periods): the
# meta line gives the samples and their CPU time, the tooltips the time of
# a count (countns) and no "samples" of periods; a header from before
# periods: one period per sample. Other folded files: no time.
grep -qxF '<text id="meta" x="50%" y="42">20 samples (40.00 ms of CPU time), 1.00 s at 1000 Hz on 1 CPU, 0 dropped (0.00%), sampler 1000 ns/sample (0.002% CPU)</text>' \
	"$OUT/meta-periods.svg" && pass time-meta-periods ||
	fail time-meta-periods "$(grep 'id="meta"' "$OUT/meta-periods.svg")"
grep -qF '"total":40,"countns":1000000,"countname":"",' "$OUT/meta-periods.svg" &&
	! grep -q '^"s":' "$OUT/meta-periods.svg" && pass time-tooltips-periods ||
	fail time-tooltips-periods "$(grep '^"total"' "$OUT/meta-periods.svg" | head -c 200)"
grep -qF '>180 samples (180.54 ms of CPU time), 2.50 s at 997 Hz' "$OUT/meta.svg" &&
	grep -qF '"total":180,"countns":1003009,"countname":"samples",' "$OUT/meta.svg" &&
	pass time-meta-before-periods ||
	fail time-meta-before-periods "$(grep 'id="meta"\|^"total"' "$OUT/meta.svg" | head -c 300)"
! grep -q '"countns":\|of CPU time)' "$OUT/basic.svg" "$OUT/diff.svg" && pass time-none-without-header ||
	fail time-none-without-header "time in a graph of counts of unknown unit"

# --- malformed input: reported with line numbers, skipped, not fatal ------
err="$OUT/escape.err"
ok=1
for l in 5 8 10 11; do
	grep -q "escape.folded:$l: " "$err" || { ok=0; fail malformed-line-$l "no report for line $l in: $(tr '\n' '|' <"$err")"; }
done
[ $ok = 1 ] && pass malformed-reported
! grep -q "rounded" "$err" && grep -q '"total":375,"decimals":1,' "$OUT/escape.svg" &&
	pass malformed-fraction-kept ||
	fail malformed-fraction-kept "2.5 not kept: $(tr '\n' '|' <"$err") $(grep -o '"total".\{30\}' "$OUT/escape.svg")"
grep -q '>crlf<\|"crlf"' "$OUT/escape.svg" && grep -q '"last"' "$OUT/escape.svg" &&
	pass malformed-crlf-lastline || fail malformed-crlf-lastline "CRLF line or unterminated last line lost"
grep -q "$(printf 'caf\xc3\xa9')" "$OUT/escape.svg" && grep -qF 'na\ufffdve' "$OUT/escape.svg" &&
	pass escape-utf8 || fail escape-utf8 "valid UTF-8 kept and invalid bytes replaced by U+FFFD expected"

# Many malformed lines: the first ten, then a count; never a crash.
seq 1 5000 | sed 's/^/junk /; s/$/ x/' >"$OUT/junk.folded"
echo "a;b 1" >>"$OUT/junk.folded"
"$FS" svg "$OUT/junk.folded" >"$OUT/junk.svg" 2>"$OUT/junk.err"
rc=$?
[ $rc = 0 ] && [ "$(grep -c 'line skipped' "$OUT/junk.err")" = 10 ] &&
	grep -q '4990 more malformed lines skipped' "$OUT/junk.err" &&
	pass malformed-many || fail malformed-many "rc=$rc: $(tail -n 2 "$OUT/junk.err" | tr '\n' '|')"
head -c 200000 /dev/urandom >"$OUT/random.bin"
"$FS" svg "$OUT/random.bin" >"$OUT/random.svg" 2>/dev/null
rc=$?
[ $rc = 0 ] || [ $rc = 1 ] && pass malformed-binary || fail malformed-binary "exit status $rc on random bytes"

# --- the narrow case: widths add up ------------------------------------
# Depth-2 row of narrow.svg (all, root, then its callees): wide_a..c plus
# one "(200 more)" block of 400 samples fill "root" exactly (6000 + 200 *
# 2 = 6400 samples).
row=$(awk '/^<g transform/{g++} g==3 && /<path/' "$OUT/narrow.svg")
sum=$(printf '%s\n' "$row" | grep -o 'h[0-9]*"' | tr -dc '0-9\n' | awk '{s += $1} END {print s}')
more=$(printf '%s\n' "$row" | grep '<g class="more">' | grep -o 'h[0-9]*"' | tr -dc '0-9\n')
[ "$more" = 400 ] && [ "$sum" = 6400 ] && grep -q '"f":\[[0-9,]*,200[],]' "$OUT/narrow.svg" &&
	pass more-block-adds-up || fail more-block-adds-up "row sum $sum, more block '$more': $(printf '%s' "$row" | tr '\n' '|' | head -c 300)"
grep -q 'narrow_\|deeper_' "$OUT/narrow.svg" && fail more-block-hides "narrow frames still drawn" ||
	pass more-block-hides

# --- coordinates: integers float32 holds ---------------------------------
# Totals up to 2^24: the counts themselves (the goldens above). Beyond:
# every coordinate at most 2^24 (the viewBox 2^24 wide), frames tiling it
# (b starts where a ends), and the exact counts in fsData for the script,
# as strings past 2^53.
coords() { grep -o '<path d="M[0-9]* 0h[0-9]*"' "$1" | tr -c '0-9\n' ' ' | tr ' ' '\n' | grep .; }
printf 'main;a 3000000000\nmain;b 3000000000\n' | "$FS" svg >"$OUT/pair3e9.svg"
max=$(coords "$OUT/pair3e9.svg" | sort -n | tail -n 1)
[ "$max" = 16777216 ] && grep -q 'viewBox="0 0 16777216 ' "$OUT/pair3e9.svg" &&
	grep -q '<path d="M8388608 0h8388608"/>' "$OUT/pair3e9.svg" &&
	grep -q '<path d="M0 0h8388608"/>' "$OUT/pair3e9.svg" &&
	grep -qxF '"x":[0,0,3000000000,0],' "$OUT/pair3e9.svg" &&
	grep -qxF '"w":[6000000000,6000000000,3000000000,3000000000],' "$OUT/pair3e9.svg" &&
	pass coords-scaled || fail coords-scaled "largest coordinate $max: $(grep -o '<path[^>]*>' "$OUT/pair3e9.svg" | tr '\n' ' ')"
! grep -q '^"x":' "$OUT/basic.svg" && grep -q 'viewBox="0 0 230 ' "$OUT/basic.svg" &&
	pass coords-counts-when-small || fail coords-counts-when-small "basic.svg (230 samples) is not drawn in counts"
"$FS" svg --minwidth 0 --total 18446744073709551615 "$IN/basic.folded" >"$OUT/total64.svg" 2>"$OUT/total64.err" &&
	grep -qF '"total":"18446744073709551615",' "$OUT/total64.svg" &&
	grep -qF '"w":["18446744073709551615",' "$OUT/total64.svg" &&
	[ "$(coords "$OUT/total64.svg" | sort -n | tail -n 1)" = 16777216 ] &&
	pass coords-total-2e64 || fail coords-total-2e64 "$(head -c 200 "$OUT/total64.err") $(grep -o '^"total":.\{30\}' "$OUT/total64.svg")"
# --- counts: blank frames, 64 bits, fractions (issue 16) ---------------
# expect_out NAME WANT CMD...: flamestat CMD prints exactly WANT, exit 0.
expect_out() {
	local name=$1 want=$2 got rc
	shift 2
	got=$("$FS" "$@" 2>"$OUT/$name.err")
	rc=$?
	[ $rc = 0 ] && [ "$got" = "$want" ] && pass "$name" ||
		fail "$name" "exit $rc, got '$(printf '%s' "$got" | tr '\n' '|')', want '$(printf '%s' "$want" | tr '\n' '|')' $(head -c 200 "$OUT/$name.err")"
}
# expect_fail NAME MSG CMD...: exit 1 naming MSG on stderr, no output.
expect_fail() {
	local name=$1 msg=$2 rc
	shift 2
	"$FS" "$@" >"$OUT/$name.out" 2>"$OUT/$name.err"
	rc=$?
	[ $rc = 1 ] && grep -q -- "$msg" "$OUT/$name.err" && [ ! -s "$OUT/$name.out" ] &&
		pass "$name" ||
		fail "$name" "exit $rc (want 1), $(wc -c <"$OUT/$name.out") bytes out, stderr: $(head -c 300 "$OUT/$name.err")"
}

# A blank leaf ("a;b;  3": one blank separates the count, the other is
# the frame) keeps its samples, as flamegraph.pl and inferno do
# (flamegraph.pl draws "all (4 samples" with a frame " " of 3 under b).
printf 'a;b;  3\na;b 1\n' >"$OUT/blank-leaf.folded"
expect_out counts-blank-leaf-fold "$(printf 'a;b 1\na;b;  3')" fold "$OUT/blank-leaf.folded"
expect_out counts-blank-leaf-report "$(printf '# flamestat report: 4 samples\n# sorted by self; Total = self + callees\n#\n#     Self    Total     Samples  Function\n    75.00%%   75.00%%           3   \n    25.00%%  100.00%%           1  b\n# 1 more functions not shown (--limit, --min)')" \
	report --roots 0 --limit 2 "$OUT/blank-leaf.folded"
"$FS" svg "$OUT/blank-leaf.folded" >"$OUT/blank-leaf.svg" 2>/dev/null
grep -q '"names":\[.*" "' "$OUT/blank-leaf.svg" && [ "$(grep -c '<path d="M0 0h3"/>' "$OUT/blank-leaf.svg")" = 1 ] &&
	pass counts-blank-leaf-svg || fail counts-blank-leaf-svg "no frame ' ' 3 wide: $(grep -o '"names":[^]]*]' "$OUT/blank-leaf.svg")"
expect_out counts-empty-frames "$(printf 'a;;b 1\na;b 2\na;b;  4')" fold - <<<"$(printf 'a;b; 1\na;;b 1\na;b;; 1\na;b;  4\n')"

# 64-bit counts: exact past 2^53, an error naming the line past 2^64,
# in every consumer, never a partial graph.
printf 'a 9007199254740993\nb 9007199254740993\n' >"$OUT/past53.folded"
expect_out counts-past-2^53-fold "$(printf 'a 9007199254740993\nb 9007199254740993')" fold "$OUT/past53.folded"
"$FS" svg "$OUT/past53.folded" >"$OUT/past53.svg" 2>"$OUT/past53.err" &&
	grep -qF '"total":"18014398509481986",' "$OUT/past53.svg" &&
	grep -qxF '"w":["18014398509481986","9007199254740993","9007199254740993"],' "$OUT/past53.svg" &&
	pass counts-past-2^53-svg || fail counts-past-2^53-svg "$(grep -o '"total":[0-9"]*' "$OUT/past53.svg") $(grep '^"w":' "$OUT/past53.svg") $(head -c 200 "$OUT/past53.err")"
expect_out counts-2^64-1 "a 18446744073709551615" fold - <<<"a 18446744073709551614
a 1"
printf 'a 18446744073709551615\nb 1\nc 1\n' >"$OUT/overflow.folded"
expect_fail counts-overflow-svg "overflow.folded:2: the counts add up past 18446744073709551615" svg "$OUT/overflow.folded"
expect_fail counts-overflow-fold "overflow.folded:2: " fold "$OUT/overflow.folded"
expect_fail counts-overflow-report "overflow.folded:2: " report "$OUT/overflow.folded"
expect_fail counts-overflow-count "<stdin>:1: a count goes past" svg - <<<"a 18446744073709551616"
printf 'a 18446744073709551615 0\nb 1 1\n' >"$OUT/overflow2.folded"
expect_fail counts-overflow-two-columns "overflow2.folded:2: " svg "$OUT/overflow2.folded"
printf 'a 9223372036854775808\n' >"$OUT/half64.folded"
expect_fail counts-overflow-merged "half64.folded:1: the counts add up" svg "$OUT/half64.folded" "$OUT/half64.folded"
expect_fail counts-overflow-diff "overflow.folded:2: " diff "$OUT/half64.folded" "$OUT/overflow.folded"
"$FS" diff --folded "$OUT/half64.folded" "$OUT/past53.folded" >"$OUT/big-diff.folded" 2>"$OUT/big-diff.err" &&
	[ "$(cat "$OUT/big-diff.folded")" = "$(printf 'a 9223372036854775808 9007199254740993\nb 0 9007199254740993')" ] &&
	pass counts-big-diff || fail counts-big-diff "$(tr '\n' '|' <"$OUT/big-diff.folded") $(head -c 200 "$OUT/big-diff.err")"

# Fractions are kept, exactly: 670 lines of 0.5 are 335 (flamegraph.pl
# draws "all (335 samples"), not 670; counts all below 0.5 are a
# profile, not "no stack counts".
for i in $(seq 670); do echo "f;g 0.5"; done >"$OUT/halves.folded"
expect_out counts-halves-fold "f;g 335" fold "$OUT/halves.folded"
"$FS" report --roots 0 "$OUT/halves.folded" 2>&1 | head -n 1 | grep -qx '# flamestat report: 335 samples' &&
	pass counts-halves-report || fail counts-halves-report "$("$FS" report --roots 0 "$OUT/halves.folded" 2>&1 | head -n 1)"
printf 'a;x 0.1\nb 0.25\na;y 0.125\n' >"$OUT/small.folded"
expect_out counts-small-fold "$(printf 'a;x 0.1\na;y 0.125\nb 0.25')" fold "$OUT/small.folded"
"$FS" svg "$OUT/small.folded" >"$OUT/small.svg" 2>"$OUT/small.err" &&
	grep -q '"total":475,"decimals":3,' "$OUT/small.svg" && [ ! -s "$OUT/small.err" ] &&
	pass counts-small-svg || fail counts-small-svg "$(head -c 200 "$OUT/small.err") $(grep -o '"total".\{20\}' "$OUT/small.svg")"
expect_out counts-small-report "$(printf '# flamestat report: 0.475 samples\n# sorted by self; Total = self + callees\n#\n#     Self    Total     Samples  Function\n    52.63%%   52.63%%        0.25  b\n    26.32%%   26.32%%       0.125  y\n    21.05%%   21.05%%         0.1  x\n# 1 more functions not shown (--limit, --min)')" \
	report --roots 0 "$OUT/small.folded"
# Differential: two columns of different decimals; -n scales exactly.
printf 'a 1\nb 3\n' >"$OUT/frac-before.folded"
printf 'a 0.5\nb 1.25\n' >"$OUT/frac-after.folded"
expect_out counts-diff-folded "$(printf 'a 1 0.5\nb 3 1.25')" diff --folded "$OUT/frac-before.folded" "$OUT/frac-after.folded"
expect_out counts-diff-normalized "$(printf 'a 0.43 0.5\nb 1.31 1.25')" diff -n --folded "$OUT/frac-before.folded" "$OUT/frac-after.folded"
"$FS" diff "$OUT/frac-before.folded" "$OUT/frac-after.folded" 2>/dev/null |
	grep -qF '<text id="meta" x="50%" y="42">before 4, after 1.75 samples (-56.25%)</text>' &&
	pass counts-diff-meta || fail counts-diff-meta "$("$FS" diff "$OUT/frac-before.folded" "$OUT/frac-after.folded" 2>&1 | grep 'id="meta"')"
# --minwidth N% and --total compare units: 0.04 of 1 is 4%, drawn with
# --minwidth 3% (rounded to 0 it vanished), not with 5%; --total takes
# fractions and is checked against the exact sum.
printf 'x;a 0.04\nx;b 0.96\n' >"$OUT/minw.folded"
"$FS" svg --minwidth 3% "$OUT/minw.folded" 2>/dev/null | grep -q '"><path d="M0 0h4"/>' &&
	! "$FS" svg --minwidth 5% "$OUT/minw.folded" 2>/dev/null | grep -q 'h4"/>' &&
	pass counts-minwidth-pct || fail counts-minwidth-pct "a frame of 0.04 in 1 not drawn at 3% or drawn at 5%"
"$FS" svg --total 2.5 "$OUT/minw.folded" 2>"$OUT/total.err" | grep -q '"total":250,"decimals":2,' && [ ! -s "$OUT/total.err" ] &&
	pass counts-total || fail counts-total "$(head -c 200 "$OUT/total.err")"
"$FS" svg --total 0.5 "$OUT/minw.folded" 2>&1 >/dev/null | grep -qF -- "--total 0.5 is less than the input's 1 counts; ignored" &&
	pass counts-total-less || fail counts-total-less "no warning"
# The tooltips' counts: the script formats units with fsData.decimals.
grep -qF 'function units(v)' "$OUT/small.svg" && grep -qF 'countText(f.w) + " " + D.countname' "$OUT/small.svg" &&
	pass counts-tooltip-script || fail counts-tooltip-script "flamegraph.js does not format decimals"

# --- exit statuses and messages ----------------------------------------
expect_status() {
	local name=$1 want=$2 msg=$3 rc
	shift 3
	"$FS" "$@" >"$OUT/$name.out" 2>"$OUT/$name.stderr"
	rc=$?
	# msg "": nothing on standard error.
	if [ $rc = "$want" ] && { [ -z "$msg" ] && [ ! -s "$OUT/$name.stderr" ] ||
		{ [ -n "$msg" ] && grep -q -- "$msg" "$OUT/$name.stderr"; }; }; then
		pass "$name"
	else
		fail "$name" "exit $rc (want $want), stderr: $(head -c 200 "$OUT/$name.stderr")"
	fi
}
# An unknown palette: flamegraph.pl draws every frame rgb(0,0,0); so does
# flamestat, with a warning naming the palettes.
expect_status colors-unknown 0 "'nope': no such palette, frames drawn black as flamegraph.pl does; palettes: hot, mem" \
	svg --colors nope "$IN/basic.folded"
grep -q '^\.c[0-9]*{stroke:#000000}$' "$OUT/colors-unknown.out" && ! grep -q '^\.c[0-9]*{stroke:#[^0]' "$OUT/colors-unknown.out" &&
	pass colors-unknown-black || fail colors-unknown-black "$(grep '^\.c' "$OUT/colors-unknown.out" | head -3 | tr '\n' ' ')"
expect_status usage-minwidth 2 "minwidth 'abc'" svg --minwidth abc "$IN/basic.folded"
expect_status usage-width 2 "width '5'" svg --width 5 "$IN/basic.folded"
expect_status usage-bgcolors 2 "bgcolors 'pink'" svg --bgcolors pink "$IN/basic.folded"
expect_status usage-fonttype 2 "fonttype" svg --fonttype 'x;}' "$IN/basic.folded"
expect_status usage-unknown 2 "unrecognized option\|unknown option" svg --bogus "$IN/basic.folded"
expect_status usage-diff-args 2 "expected two folded files" diff "$IN/before.folded"
expect_status usage-diff-chart 2 "flamechart" diff --flamechart "$IN/before.folded" "$IN/after.folded"
expect_status missing-file 1 "cannot open $OUT/nonexistent" svg "$OUT/nonexistent"
expect_status diff-of-diff 1 "already has two count columns" diff "$OUT/twocol.folded" "$IN/after.folded"
# Numbers as flamegraph.pl takes them (Getopt::Long =i: decimal, a '+';
# =f: any float; --total any number, 0 the sum), within what still draws.
expect_status range-width-50 0 "" svg --width 50 --no-fluid "$IN/basic.folded"
xmllint --noout "$OUT/range-width-50.out" 2>/dev/null && grep -q 'id="search" x="-60"' "$OUT/range-width-50.out" &&
	pass range-width-50-drawn || fail range-width-50-drawn "$(grep -m1 'id="search"' "$OUT/range-width-50.out")"
expect_status range-width-plus 0 "" svg --width +800 "$IN/basic.folded"
expect_status range-width-20 2 "width '20': expected pixels, 21 to" svg --width 20 "$IN/basic.folded"
expect_status range-width-hex 2 "width '0x400'" svg --width 0x400 "$IN/basic.folded"
expect_status range-fontsize 0 "" svg --fontsize 0.5 "$IN/basic.folded"
expect_status range-fontsize-0 2 "fontsize '0'" svg --fontsize 0 "$IN/basic.folded"
expect_status range-total-0 0 "" svg --total 0 "$IN/basic.folded"
cmp -s "$OUT/range-total-0.out" "$OUT/basic.svg" && pass range-total-0-is-sum ||
	fail range-total-0-is-sum "--total 0 is not the samples' sum"
expect_status range-total-frac 0 "" svg --total 460.4 "$IN/basic.folded"
grep -q '<g class="root"><path d="M0 0h460"/>' "$OUT/range-total-frac.out" && grep -q '"total":460,' "$OUT/range-total-frac.out" &&
	pass range-total-frac-rounded || fail range-total-frac-rounded "$(grep -m1 '^"total"' "$OUT/range-total-frac.out")"
expect_status range-total-neg 2 "total '-1'" svg --total -1 "$IN/basic.folded"

# --encoding: names in another encoding, the SVG in UTF-8.
[ "$(grep -o '"names":\[[^]]*\]' "$OUT/latin1.svg")" = "$(printf '"names":["app","caf\xc3\xa9","\xc3\xbcber","stra\xc3\x9fe","na\xc3\xafve"]')" ] &&
	pass encoding-latin1 || fail encoding-latin1 "$(grep -o '"names":\[[^]]*\]' "$OUT/latin1.svg")"
iconv -f ISO-8859-1 -t UTF-16 "$IN/latin1.folded" >"$OUT/utf16.folded"
"$FS" svg --encoding UTF-16 "$OUT/utf16.folded" 2>&1 >"$OUT/utf16.svg" | grep . &&
	fail encoding-utf16 "warnings" || { cmp -s "$OUT/utf16.svg" "$OUT/latin1.svg" && pass encoding-utf16 ||
	fail encoding-utf16 "UTF-16 input drawn unlike the same Latin-1 input"; }
expect_status encoding-unknown 2 "encoding 'NO-SUCH-CODE': unknown encoding" svg --encoding NO-SUCH-CODE "$IN/basic.folded"
printf 'app;caf\xc3\xa9 3\n' >"$OUT/utf8.folded"
expect_status encoding-invalid 0 "2 bytes not ASCII text, replaced by U+FFFD" svg --encoding ASCII "$OUT/utf8.folded"
grep -qF "$(printf '"caf\xef\xbf\xbd\xef\xbf\xbd"')" "$OUT/encoding-invalid.out" && pass encoding-invalid-fffd ||
	fail encoding-invalid-fffd "$(grep -o '"names":\[[^]]*\]' "$OUT/encoding-invalid.out")"
"$FS" diff --encoding latin1 "$IN/latin1.folded" "$IN/latin1.folded" --folded | grep -q "$(printf '^app;caf\xc3\xa9 3 3$')" &&
	pass encoding-diff || fail encoding-diff "diff does not convert its inputs"

# --nameattr: flamegraph.pl's file; the attributes as JSON for the script
# (the browser test checks that they are applied).
grep -qF '"attrs":{"' "$OUT/basic-nameattr.svg" &&
	grep -qF '{"title":"the parser (bison)","href":"https://example.com/yyparse","target":"_top","g":[],"a":[]}' "$OUT/basic-nameattr.svg" &&
	grep -qF '{"g":[["class","hot main"],["data-x","1"],["data-y","two"]],"a":[]}' "$OUT/basic-nameattr.svg" &&
	grep -qF '{"href":"man:stat(2)","target":"_blank","g":[],"a":[["rel","noopener"]]}' "$OUT/basic-nameattr.svg" &&
	grep -qF '{"g":[["id","vw"]],"a":[]}' "$OUT/basic-nameattr.svg" &&
	pass nameattr-data || fail nameattr-data "$(grep -o '"attrs":.*' "$OUT/basic-nameattr.svg" | head -c 400)"
grep -q "basic.nameattr:4: unknown attribute 'bogus'" "$OUT/basic-nameattr.err" && pass nameattr-unknown-warned ||
	fail nameattr-unknown-warned "$(head -c 300 "$OUT/basic-nameattr.err")"
printf 'main\ttitle=x\nno tab here\n' >"$OUT/bad.nameattr"
expect_status nameattr-no-tab 2 "nameattr '$OUT/bad.nameattr': line 2 has no tab" svg --nameattr "$OUT/bad.nameattr" "$IN/basic.folded"
expect_status nameattr-missing 2 "nameattr '$OUT/none.nameattr': No such file" svg --nameattr "$OUT/none.nameattr" "$IN/basic.folded"

# --cp: palette.map in the working directory, flamegraph.pl's format: a
# listed name keeps its colour; the others are added, sorted by name.
mkdir -p "$OUT/cp" && rm -f "$OUT/cp/palette.map"
printf 'yyparse->rgb(1,2,3)\nzzz_unused->rgb(4,5,6)\n' >"$OUT/cp/palette.map"
(cd "$OUT/cp" && "$FS" svg --cp "$IN/basic.folded" >cp1.svg 2>cp1.err)
grep -q '{stroke:#010203}' "$OUT/cp/cp1.svg" && pass cp-listed-colour ||
	fail cp-listed-colour "yyparse not rgb(1,2,3): $(grep -c stroke "$OUT/cp/cp1.svg")"
LC_ALL=C sort -c "$OUT/cp/palette.map" 2>/dev/null && grep -qx 'zzz_unused->rgb(4,5,6)' "$OUT/cp/palette.map" &&
	grep -qx 'yyparse->rgb(1,2,3)' "$OUT/cp/palette.map" && grep -qx 'main->rgb([0-9]*,[0-9]*,[0-9]*)' "$OUT/cp/palette.map" &&
	grep -qx 'vfs_write_\[k\]->rgb([0-9]*,[0-9]*,[0-9]*)' "$OUT/cp/palette.map" && grep -qx -- '->rgb([0-9,]*)' "$OUT/cp/palette.map" &&
	[ "$(wc -l <"$OUT/cp/palette.map")" = 42 ] && pass cp-written ||
	fail cp-written "$(head -c 300 "$OUT/cp/palette.map" | tr '\n' '|')"
# Runs with every name listed (even --random) keep the file and the colours.
cp "$OUT/cp/palette.map" "$OUT/cp/palette.map.1"
(cd "$OUT/cp" && "$FS" svg --cp --random "$IN/basic.folded" >cp2.svg 2>/dev/null &&
	"$FS" svg --cp --random "$IN/basic.folded" >cp3.svg 2>/dev/null)
colours() { grep -o '{stroke:#[0-9a-f]*}' "$1" | sort -u; }
cmp -s "$OUT/cp/palette.map" "$OUT/cp/palette.map.1" && cmp -s "$OUT/cp/cp2.svg" "$OUT/cp/cp3.svg" &&
	[ "$(colours "$OUT/cp/cp1.svg")" = "$(colours "$OUT/cp/cp2.svg")" ] &&
	pass cp-stable || fail cp-stable "a second run (--random, all names listed) changed the palette or the colours"
if [ -n "${FLAMEGRAPH_PL:-}" ] && [ -f "$FLAMEGRAPH_PL" ]; then
	# flamegraph.pl reads our palette.map: it draws the same colours.
	(cd "$OUT/cp" && perl "$FLAMEGRAPH_PL" --cp "$IN/basic.folded" >pl.svg 2>/dev/null)
	want=$(sed 's/.*->//' "$OUT/cp/palette.map.1" | LC_ALL=C sort -u)
	got=$(grep -o 'fill="rgb([0-9,]*)"' "$OUT/cp/pl.svg" | sed 's/fill="\(.*\)"/\1/' | LC_ALL=C sort -u)
	[ -z "$(comm -13 <(echo "$want") <(echo "$got"))" ] &&
		cmp -s "$OUT/cp/palette.map" "$OUT/cp/palette.map.1" && pass cp-flamegraph-pl ||
		fail cp-flamegraph-pl "flamegraph.pl drew colours not in our palette.map: $(comm -13 <(echo "$want") <(echo "$got") | head -3 | tr '\n' ' ')"
fi

# --random: shades of the palette, new at every run.
"$FS" svg --random --minwidth 0 "$OUT/narrow.folded" >"$OUT/random1.svg" 2>/dev/null
"$FS" svg --random --minwidth 0 "$OUT/narrow.folded" >"$OUT/random2.svg" 2>/dev/null
! cmp -s "$OUT/random1.svg" "$OUT/random2.svg" && xmllint --noout "$OUT/random1.svg" 2>/dev/null &&
	[ "$(grep -c '^\.c' "$OUT/random1.svg")" -gt 100 ] && pass random-differs ||
	fail random-differs "two --random runs alike, or few colours: $(grep -c '^\.c' "$OUT/random1.svg")"
awk -F'[#}]' '/^\.c[0-9]*\{stroke:#/ && $2 !~ /^(c8c8c8|a0a0a0)$/ { if (substr($2, 1, 2) < "cd") bad = 1 }
	END { exit bad }' "$OUT/random1.svg" && pass random-hot || fail random-hot "a --random colour not of the hot palette"
"$FS" svg --random --hash "$IN/basic.folded" 2>/dev/null | cmp -s - <("$FS" svg --hash "$IN/basic.folded") &&
	pass random-hash-wins || fail random-hash-wins "--hash --random differs from --hash"

# inferno's options.
grep -q '^<g class="root"><path d="M0 0h55"/>' "$OUT/basic-base.svg" && ! grep -q '"yyparse"\|"main"' "$OUT/basic-base.svg" &&
	grep -q '"do_syscall_64","vfs_statx","filename_lookup"\|"do_syscall_64",' "$OUT/basic-base.svg" &&
	pass base-cut || fail base-cut "$(grep -o '"names":\[[^]]*\]' "$OUT/basic-base.svg")"
expect_status base-chart 2 "base cuts and merges stacks: not with --flamechart" svg --base main --flamechart "$IN/basic.folded"
! grep -q '<script\|id="search"\|id="details"' "$OUT/basic-static.svg" && grep -q '<text x="[0-9.]*" y="[0-9.]*">\.\.[a-z_]' "$OUT/basic-static.svg" &&
	grep -qF '#title,#details,#unzoom,#search,#ignorecase,#matched{fill:#3050a0}' "$OUT/basic-static.svg" &&
	pass static-left-uicolor || fail static-left-uicolor "script, buttons, no label cut on the left, or no uicolor rule"
expect_status uicolor-bad 2 "uicolor 'red': expected #rrggbb" svg --uicolor red "$IN/basic.folded"
expect_status stroke-color-bad 2 "stroke-color 'x;y': expected a CSS colour" svg --stroke-color 'x;y' "$IN/basic.folded"
"$FS" svg --stroke-color none "$IN/basic.folded" | cmp -s - "$OUT/basic.svg" &&
	pass stroke-color-none || fail stroke-color-none "--stroke-color none is not the default drawing"
"$FS" svg --no-sort "$IN/basic.folded" | cmp -s - "$OUT/basic.svg" && pass no-sort-same || fail no-sort-same "--no-sort changed the graph"
grep -q '^\.root{stroke:#ff6464}$' "$OUT/basic-diffusion.svg" && grep -q '^\.d[0-9]*{stroke:#ff' "$OUT/basic-diffusion.svg" &&
	pass diffusion-red || fail diffusion-red "$(grep '^\.[rd]' "$OUT/basic-diffusion.svg" | head -3 | tr '\n' ' ')"

# Long options with one dash, as flamegraph.pl (Getopt::Long) takes them;
# the commands' own one-letter options are still theirs.
"$FS" svg -title "One dash" -width 800 -colors java -o "$OUT/dash.svg" "$IN/basic.folded" &&
	"$FS" svg --title "One dash" --width 800 --colors java "$IN/basic.folded" | cmp -s - "$OUT/dash.svg" &&
	pass single-dash-svg || fail single-dash-svg "-title -width -colors -o differ from their -- forms"
expect_status single-dash-ambiguous 2 "'-he' is ambiguous" svg -he "$IN/basic.folded"

printf '# only a comment\nnot a stack\n' >"$OUT/empty.folded"
expect_status no-stacks 1 "no stack counts" svg "$OUT/empty.folded"
grep -q "ERROR: no stack counts" "$OUT/no-stacks.out" && pass no-stacks-svg ||
	fail no-stacks-svg "no error SVG written"

# -o writes through a temporary file and leaves nothing behind on failure.
"$FS" svg -o "$OUT/o.svg" "$IN/basic.folded" && cmp -s "$OUT/o.svg" "$OUT/basic.svg" &&
	pass output-file || fail output-file "-o output differs from stdout output"
"$FS" svg -o "$OUT/no/such/dir/x.svg" "$IN/basic.folded" 2>/dev/null
[ $? = 1 ] && pass output-unwritable || fail output-unwritable "expected exit 1"
ls "$OUT"/o.svg.tmp.* >/dev/null 2>&1 && fail output-no-temp "temporary file left" ||
	pass output-no-temp

# diff --folded: difffolded.pl's two columns, sorted, normalised with -n.
"$FS" diff --folded "$IN/before.folded" "$IN/after.folded" >"$OUT/diff.folded"
want='server;main;handle;cache_lookup 0 15
server;main;handle;compress;deflate 30 70
server;main;handle;parse 40 40
server;main;handle;respond;write 20 5
server;main;idle 10 10'
[ "$(cat "$OUT/diff.folded")" = "$want" ] && pass diff-folded ||
	fail diff-folded "got: $(tr '\n' '|' <"$OUT/diff.folded")"
"$FS" diff -n --folded "$IN/before.folded" "$IN/after.folded" |
	awk '{a += $(NF-1); b += $NF} END {exit !(a >= b - 2 && a <= b + 2)}' &&
	pass diff-normalize || fail diff-normalize "before total not scaled to after's"
# -n cuts each scaled count to an integer and -s strips hex addresses, as
# difffolded.pl does (its output, sorted, for these files: with -n, 21/12
# of 1 is 1 and of 2 is 3, not 2 and 4; -s merges stacks that differ only
# in addresses, and -n then scales the merged counts).
printf 'a;x 1\na;y 2\nk;0x7f00a1;main 3\nk;0x7f00B2;m0x1bz 4\nk;0X1F;0xg 2\n' >"$OUT/hex-before.folded"
printf 'a;x 5\nk;0x55aa;main 10\nk;0xdead;m0x2z 6\n' >"$OUT/hex-after.folded"
diff_folded_want() {
	case $1 in
	-n) printf 'a;x 1 5\na;y 3 0\nk;0X1F;0xg 3 0\nk;0x55aa;main 0 10\nk;0x7f00B2;m0x1bz 7 0\nk;0x7f00a1;main 5 0\nk;0xdead;m0x2z 0 6\n' ;;
	-s) printf 'a;x 1 5\na;y 2 0\nk;0X1F;0xg 2 0\nk;0x...;m0x...z 4 6\nk;0x...;main 3 10\n' ;;
	-ns) printf 'a;x 1 5\na;y 3 0\nk;0X1F;0xg 3 0\nk;0x...;m0x...z 7 6\nk;0x...;main 5 10\n' ;;
	esac
}
for o in -n -s -ns; do
	"$FS" diff $o --folded "$OUT/hex-before.folded" "$OUT/hex-after.folded" >"$OUT/hex$o.folded" 2>&1
	[ "$(cat "$OUT/hex$o.folded")" = "$(diff_folded_want $o)" ] && pass "diff-difffolded$o" ||
		fail "diff-difffolded$o" "got: $(tr '\n' '|' <"$OUT/hex$o.folded")"
done
"$FS" diff --strip-hex --normalize --folded "$OUT/hex-before.folded" "$OUT/hex-after.folded" |
	cmp -s - "$OUT/hex-ns.folded" && pass diff-strip-hex-long || fail diff-strip-hex-long "--strip-hex --normalize differ from -ns"
# One-dash long options (see single-dash-svg) and diff's -n, -s.
"$FS" diff -n -s -negate -folded "$OUT/hex-before.folded" "$OUT/hex-after.folded" | cmp -s - "$OUT/hex-ns.folded" &&
	"$FS" diff -ns -folded "$OUT/hex-before.folded" "$OUT/hex-after.folded" | cmp -s - "$OUT/hex-ns.folded" &&
	pass single-dash-diff || fail single-dash-diff "-n -s, -ns with one-dash long options"
# The same with difffolded.pl itself, when there is one (DIFFFOLDED_PL=).
if [ -n "${DIFFFOLDED_PL:-}" ] && [ -f "$DIFFFOLDED_PL" ]; then
	for o in -n -s -ns; do
		perl "$DIFFFOLDED_PL" $o "$OUT/hex-before.folded" "$OUT/hex-after.folded" | LC_ALL=C sort |
			cmp -s - "$OUT/hex$o.folded" && pass "diff-difffolded-pl$o" ||
			fail "diff-difffolded-pl$o" "differs from difffolded.pl $o"
	done
fi
"$FS" diff --folded "$IN/before.folded" "$IN/after.folded" | "$FS" svg >"$OUT/diff-pipe.svg" 2>/dev/null &&
	grep -q 'Differential Flame Graph' "$OUT/diff-pipe.svg" && pass diff-two-column-input ||
	fail diff-two-column-input "two-column folded not drawn as a differential graph"

# Our folded output is flamegraph.pl's input, byte for byte (when it is
# available: FLAMEGRAPH_PL=/path/to/flamegraph.pl).
if [ -n "${FLAMEGRAPH_PL:-}" ] && [ -f "$FLAMEGRAPH_PL" ]; then
	perl "$FLAMEGRAPH_PL" "$OUT/diff.folded" >"$OUT/diff-pl.svg" 2>"$OUT/diff-pl.err" &&
		! grep -q 'Ignored' "$OUT/diff-pl.err" &&
		[ "$(grep -c '<rect' "$OUT/diff-pl.svg")" -gt 5 ] && pass folded-flamegraph-pl ||
		fail folded-flamegraph-pl "flamegraph.pl did not take our folded output: $(head -c 200 "$OUT/diff-pl.err")"
else
	# Optional cross-check with the real script (not packaged in Debian);
	# 15-tool checks every line against flamegraph.pl's parse rule.
	:
fi

# Several inputs add up; "-" is standard input.
cat "$IN/before.folded" | "$FS" svg - "$IN/before.folded" >"$OUT/sum.svg" 2>/dev/null &&
	grep -q '<g class="root"><path d="M0 0h200"/>' "$OUT/sum.svg" && pass svg-several-inputs ||
	fail svg-several-inputs "two copies of a 100-sample file should give 200 samples"

# Large input: fast, and narrow frames merged rather than all drawn.
if cc -O2 -o "$OUT/gen-folded" "$TOP/bench/gen-folded.c" 2>"$OUT/gen.log"; then
	"$OUT/gen-folded" 20000 >"$OUT/20k.folded"
	start=$(date +%s%N)
	"$FS" svg "$OUT/20k.folded" >"$OUT/20k.svg"
	ms=$(( ($(date +%s%N) - start) / 1000000 ))
	[ $ms -lt 5000 ] && pass "large-20k-fast (${ms} ms)" ||
		fail large-20k-fast "20,000 stacks took $ms ms"
	xmllint --noout "$OUT/20k.svg" 2>/dev/null && pass large-20k-xml || fail large-20k-xml "not well-formed"
	grep -q 'class="more"' "$OUT/20k.svg" && pass large-20k-more ||
		fail large-20k-more "no (N more) block in a 20,000-stack graph"
else
	fail large-gen "cannot build bench/gen-folded.c: $(head -n 2 "$OUT/gen.log")"
fi

# --- help and man pages agree with the code ------------------------------
for cmd in svg diff; do
	"$FS" $cmd --help >"$OUT/help-$cmd" 2>&1
	rc=$?
	[ $rc = 0 ] && grep -q '^Examples:' "$OUT/help-$cmd" && pass help-$cmd ||
		fail help-$cmd "exit $rc or no examples"
	man="$TOP/docs/man/flamestat-$cmd.1"
	if [ ! -f "$man" ]; then
		fail man-$cmd "no $man"
		continue
	fi
	grep -o -- '--[a-z][a-z-]*' "$OUT/help-$cmd" | sort -u >"$OUT/help-$cmd.opts"
	sed 's/\\-/-/g' "$man" | grep -o -- '--[a-z][a-z-]*' | sort -u >"$OUT/man-$cmd.opts"
	if cmp -s "$OUT/help-$cmd.opts" "$OUT/man-$cmd.opts"; then
		pass man-$cmd-options
	else
		fail man-$cmd-options "help vs man: $(diff "$OUT/help-$cmd.opts" "$OUT/man-$cmd.opts" | grep '^[<>]' | tr '\n' ' ')"
	fi
	# Every option the help names is accepted by the code.
	bad=
	for o in $(cat "$OUT/help-$cmd.opts"); do
		case $o in --help|--output|--folded|--normalize) continue ;; esac
		"$FS" $cmd $o 2>&1 </dev/null | grep -q "unrecognized option '$o'" && bad="$bad $o"
	done
	[ -z "$bad" ] && pass help-$cmd-accepted || fail help-$cmd-accepted "rejected:$bad"
done
exit 0
