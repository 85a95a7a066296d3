#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The optional symbolization backends on the host, without the module:
# --inline and --lines (user/sym/inline.c) on a program built here with
# -O2 -g and always_inline functions (tests/fixtures/inline), plain and
# stripped with its debug file found by build-id; and --debuginfod
# (user/sym/debuginfod.c) against a local debuginfod server that alone has
# the debug file of another stripped build. The expected inline chains and
# lines of every instruction of the inlining function come from binutils'
# addr2line -i -f, not from the code under test.
set -u
. "$(dirname "$0")/../lib/common.sh"

FS=$TOP/user/flamestat
FIX=$TOP/tests/fixtures/inline
T=$BUILD/inline
rm -rf "$T"
mkdir -p "$T"
[ -x "$FS" ] || { fail inline-build "user/flamestat is not built (make tool)"; exit 0; }
# No server but ours is ever asked, whatever the environment says.
unset DEBUGINFOD_URLS DEBUGINFOD_PROGRESS DEBUGINFOD_VERBOSE
export DEBUGINFOD_CACHE_PATH=$T/dcache

build_id() { readelf -n "$1" | sed -n 's/.*Build ID: *//p'; }

# fixture OUT [gcc flags]: OUT (stripped), OUT.full (with DWARF), OUT.debug.
fixture() {
	local o=$1
	shift
	gcc -O2 -g -fPIE -pie -fno-omit-frame-pointer "$@" \
		"$FIX/fx_inline.c" -o "$o.full" &&
	objcopy --only-keep-debug "$o.full" "$o.debug" &&
	strip --strip-all -o "$o" "$o.full"
}
if ! log=$({ fixture "$T/fx" && fixture "$T/fx_dinfod" -DFX_TAG='"dinfod"' &&
	gcc -O1 -g -std=gnu11 -Wall -Wextra -Werror -I"$TOP/kmod" \
		-o "$T/mksnap" "$TOP/tests/tool/mksnap.c"; } 2>&1); then
	fail inline-fixtures "$(printf '%s' "$log" | tail -n 5 | tr '\n' '|')"
	exit 0
fi
bid=$(build_id "$T/fx")
mkdir -p "$T/debugroot/.build-id/${bid:0:2}" "$T/empty"
cp "$T/fx.debug" "$T/debugroot/.build-id/${bid:0:2}/${bid:2}.debug"
pass inline-fixtures

# insns BIN: the addresses (hex, no 0x) of fxi_outer's instructions.
insns() {
	objdump -d --no-show-raw-insn "$1" |
		awk '/<fxi_outer>:$/ { on = 1; next } on && /^$/ { exit }
		     on && $1 ~ /:$/ { sub(":", "", $1); print $1 }'
}

# chain BIN ADDR_HEX MODE: the frames addr2line -i -f gives for ADDR, root
# first, as fold should print them. MODE: inline, lines (the out-of-line
# function only, with the line it is at), inline-lines.
chain() {
	addr2line -i -f -e "$1" "0x$2" | awk -v mode="$3" '
		NR % 2 { fn[++n] = $0; next }
		{ sub(/ \(discriminator [0-9]+\)$/, ""); sub(/.*\//, "");
		  loc[n] = $0 }
		END {
			s = ""
			for (i = n; i >= 1; i--) {
				if (mode == "lines" && i < n)
					break
				f = fn[i]
				if (mode != "inline" && loc[i] !~ /^\?/)
					f = f " (" loc[i] ")"
				if (i < n)
					f = f "_[i]"
				s = s (s == "" ? "" : ";") f
			}
			print s
		}'
}

# snapshot BIN PATH SPEC EXPECT_PREFIX: a snapshot of one process running
# PATH (BIN is its build with symbols and DWARF) with a stack per instruction of fxi_outer as the
# leaf ("aN") and as a return address under fxi_work ("rN"); and for each
# MODE the folded lines that fold should print, in EXPECT_PREFIX.MODE.
base=0x555555554000
snapshot() {
	local bin=$1 path=$2 spec=$3 exp=$4 size i=0 a work mode
	size=$(stat -c %s "$path")
	work=$(nm "$bin" | awk '$3 == "fxi_work" { print $1 }')
	{
		echo "header freq=997 samples=100 recorded=100"
		echo "file 1 $path build_id=$(build_id "$path")"
		echo "proc 1 tgid=42 comm=fx"
		printf 'map 1 1 %s 0x%x 0x0\n' $base $((base + size + 4095 & ~4095))
	} >"$spec"
	rm -f "$exp".*
	for a in $(insns "$bin"); do
		i=$((i + 1))
		printf 'stack 1 proc=1 tgid=42 comm=a%d u=0x%x\n' $i $((base + 16#$a)) >>"$spec"
		for mode in inline lines inline-lines; do
			echo "a$i;$(chain "$bin" "$a" $mode) 1" >>"$exp.$mode"
		done
		[ $i = 1 ] && continue
		printf 'stack 1 proc=1 tgid=42 comm=r%d u=0x%x,0x%x\n' $i \
			$((base + 16#$work + 1)) $((base + 16#$a)) >>"$spec"
		for mode in inline lines inline-lines; do
			w=fxi_work
			[ $mode = inline ] || w="fxi_work ($(addr2line -e "$bin" "0x$(printf '%x' $((16#$work + 1)))" | sed 's/.*\///; s/ (discriminator [0-9]*)//'))"
			echo "r$i;$(chain "$bin" "$(printf '%x' $((16#$a - 1)))" $mode);$w 1" >>"$exp.$mode"
		done
	done
	"$T/mksnap" <"$spec" >"${spec%.spec}.fstat"
}

snapshot "$T/fx.full" "$T/fx.full" "$T/full.spec" "$T/full.exp" ||
	{ fail inline-snapshot "mksnap failed"; exit 0; }
# The fixture is what the test needs: fxi_inner inlined through
# fxi_middle somewhere, and into fxi_outer directly elsewhere.
if grep -q ';fxi_outer;fxi_middle_\[i\];fxi_inner_\[i\] 1$' "$T/full.exp.inline" &&
   grep -q ';fxi_outer;fxi_inner_\[i\] 1$' "$T/full.exp.inline"; then
	pass inline-fixture-chains
else
	fail inline-fixture-chains "addr2line -i found no two-level chain in fxi_outer (compiler?)"
fi

env_opts=(--kallsyms "$T/empty/k" --perfmap-dir "$T/empty" --debug-dir "$T/empty")
: >"$T/empty/k"

# same NAME EXPECTED CMD...: CMD's folded output, sorted, is EXPECTED's.
same() {
	local name=$1 exp=$2
	shift 2
	if [ ! -s "$exp" ]; then
		fail "$name" "no expected output (fixture?)"
	elif ! "$@" >"$T/$name.out" 2>"$T/$name.err"; then
		fail "$name" "exit status $?: $(head -3 "$T/$name.err" | tr '\n' '|')"
	elif diff <(sort "$exp") <(sort "$T/$name.out") >"$T/$name.diff"; then
		pass "$name ($(wc -l <"$exp") stacks)"
	else
		fail "$name" "$(head -8 "$T/$name.diff" | tr '\n' '|')"
	fi
}

S=$T/full.fstat
same inline-chains "$T/full.exp.inline" "$FS" fold "${env_opts[@]}" --inline "$S"
same inline-lines "$T/full.exp.inline-lines" "$FS" fold "${env_opts[@]}" --inline --lines "$S"
same lines-only "$T/full.exp.lines" "$FS" fold "${env_opts[@]}" --lines "$S"
"$FS" fold "${env_opts[@]}" "$S" >"$T/plain.out" 2>&1
if grep -q 'fxi_outer' "$T/plain.out" && ! grep -q '_\[i\]\|(fx_inline\.c' "$T/plain.out"; then
	pass inline-off-by-default
else
	fail inline-off-by-default "$(head -3 "$T/plain.out" | tr '\n' '|')"
fi
sed 's/_\[i\]//g' "$T/full.exp.inline" >"$T/noann.exp"
same inline-no-annotate "$T/noann.exp" "$FS" fold "${env_opts[@]}" --inline --no-annotate "$S"

# Stripped: the DWARF of the debug file found by build-id; none without.
snapshot "$T/fx.full" "$T/fx" "$T/strip.spec" "$T/strip.exp"
same inline-stripped-debug-file "$T/full.exp.inline-lines" "$FS" fold \
	--kallsyms "$T/empty/k" --perfmap-dir "$T/empty" --debug-dir "$T/debugroot" \
	--inline --lines "$T/strip.fstat"
"$FS" fold "${env_opts[@]}" --inline --lines "$T/strip.fstat" >"$T/nodebug.out" 2>&1
if grep -q '^a1;fx+0x' "$T/nodebug.out" && ! grep -q '_\[i\]\|(fx_inline\.c' "$T/nodebug.out"; then
	pass inline-stripped-no-debug-file
else
	fail inline-stripped-no-debug-file "$(head -3 "$T/nodebug.out" | tr '\n' '|')"
fi

# pprof keeps the inline chains: one location per function inlined at an
# address, innermost first, as go tool pprof -traces shows them.
if command -v go >/dev/null; then
	export GOCACHE=$FLAMESTAT_CACHE/go HOME=${HOME:-/tmp}
	if "$FS" fold "${env_opts[@]}" --inline --format pprof -o "$T/inline.pb.gz" "$S" 2>"$T/pprof.err" &&
		go tool pprof -traces "$T/inline.pb.gz" >"$T/inline.traces" 2>"$T/pprof.err"; then
		awk '/^-+\+/ { if (st != "") print comm ";" st " 1"; st = ""; next }
			$1 == "comm:" { comm = $2; next }
			$1 == "pid:" { next }
			NF >= 1 && comm != "" { f = $NF; st = (st == "" ? f : f ";" st) }
			END { if (st != "") print comm ";" st " 1" }' "$T/inline.traces" |
			LC_ALL=C sort >"$T/inline.pprof.folded"
		LC_ALL=C sort "$T/noann.exp" >"$T/inline.noann.sorted"
		if cmp -s "$T/inline.noann.sorted" "$T/inline.pprof.folded"; then
			pass "inline-pprof ($(wc -l <"$T/inline.pprof.folded") stacks)"
		else
			fail inline-pprof "$(diff "$T/inline.noann.sorted" "$T/inline.pprof.folded" | head -6 | tr '\n' '|')"
		fi
	else
		fail inline-pprof "$(head -3 "$T/pprof.err" | tr '\n' '|')"
	fi
else
	fail inline-pprof "no go (Debian package golang-go, scripts/deps.list)"
fi

# The other commands take it; --verbose tells the cost.
"$FS" report "${env_opts[@]}" --inline "$S" >"$T/report.out" 2>&1
check inline-report grep -q ' fxi_inner_\[i\]$' "$T/report.out"
"$FS" fold "${env_opts[@]}" --inline --verbose "$S" 2>"$T/verbose.err" >/dev/null
check inline-verbose-cost grep -Eq '^inline: 1 of 1 files with DWARF, .* [0-9.]+ ms$' "$T/verbose.err"
check inline-verbose-file grep -qxF "inline: $T/fx.full: DWARF from $T/fx.full" "$T/verbose.err"

# --- debuginfod ---

if ! command -v debuginfod >/dev/null; then
	skip debuginfod "no debuginfod server (Debian package debuginfod)"
	exit 0
fi
snapshot "$T/fx_dinfod.full" "$T/fx_dinfod" "$T/dinfod.spec" "$T/dinfod.exp"
dbid=$(build_id "$T/fx_dinfod")
mkdir -p "$T/srv"
cp "$T/fx_dinfod.debug" "$T/srv/"
srv_pid=
trap '[ -n "$srv_pid" ] && kill "$srv_pid" 2>/dev/null; wait 2>/dev/null' EXIT
# A free port: the server exits at once when it cannot bind.
for _ in 1 2 3 4 5; do
	port=$((20000 + RANDOM % 20000))
	debuginfod -d "$T/srv.sqlite" -p "$port" -c 1 -g 0 -F "$T/srv" \
		>"$T/srv.log" 2>&1 &
	srv_pid=$!
	# Ready when it serves the debug file (it has scanned the folder).
	for _ in $(seq 1 60); do
		kill -0 "$srv_pid" 2>/dev/null || break
		curl -sf -o /dev/null "http://127.0.0.1:$port/buildid/$dbid/debuginfo" && break 2
		sleep 0.5
	done
	kill "$srv_pid" 2>/dev/null
	wait "$srv_pid" 2>/dev/null
	srv_pid=
done
if [ -z "$srv_pid" ]; then
	fail debuginfod-server "no local debuginfod served the debug file: $(tail -n 3 "$T/srv.log" | tr '\n' '|')"
	exit 0
fi
pass debuginfod-server
export DEBUGINFOD_URLS=http://127.0.0.1:$port

# Without --debuginfod nothing is fetched, though DEBUGINFOD_URLS is set.
"$FS" fold "${env_opts[@]}" --inline "$T/dinfod.fstat" >"$T/d-off.out" 2>&1
if grep -q '^a1;fx_dinfod+0x' "$T/d-off.out" && ! grep -q fxi_ "$T/d-off.out" &&
   [ -z "$(find "$DEBUGINFOD_CACHE_PATH" -type f 2>/dev/null)" ]; then
	pass debuginfod-off-by-default
else
	fail debuginfod-off-by-default "$(head -2 "$T/d-off.out" | tr '\n' '|') cache: $(find "$DEBUGINFOD_CACHE_PATH" -type f 2>/dev/null | head -3 | tr '\n' ' ')"
fi
same debuginfod-fetch "$T/dinfod.exp.inline-lines" "$FS" fold "${env_opts[@]}" \
	--debuginfod --inline --lines "$T/dinfod.fstat"
check debuginfod-cached test -n "$(find "$DEBUGINFOD_CACHE_PATH" -path "*$dbid*" -type f 2>/dev/null)"
"$FS" fold "${env_opts[@]}" --debuginfod --verbose "$T/dinfod.fstat" >/dev/null 2>"$T/d-verbose.err"
check debuginfod-verbose grep -q '^debuginfod: 1 debug files fetched or cached, 0 not on the servers, 0 failed' "$T/d-verbose.err"

# The server gone: from the cache; a fresh cache: said once, frames stay.
kill "$srv_pid"
wait "$srv_pid" 2>/dev/null
srv_pid=
same debuginfod-from-cache "$T/dinfod.exp.inline" "$FS" fold "${env_opts[@]}" \
	--debuginfod --inline "$T/dinfod.fstat"
export DEBUGINFOD_CACHE_PATH=$T/dcache2
DEBUGINFOD_TIMEOUT=5 "$FS" fold "${env_opts[@]}" --debuginfod --inline \
	"$T/dinfod.fstat" >"$T/d-fail.out" 2>"$T/d-fail.err"
rc=$?
if [ $rc = 0 ] && grep -q '^a1;fx_dinfod+0x' "$T/d-fail.out" &&
   [ "$(grep -c "warning: debuginfod: cannot fetch the debug file of build-id $dbid from http://127.0.0.1:$port: .*; not asking the servers again" "$T/d-fail.err")" = 1 ]; then
	pass debuginfod-server-fails
else
	fail debuginfod-server-fails "exit $rc: $(head -3 "$T/d-fail.err" | tr '\n' '|')"
fi
unset DEBUGINFOD_URLS
"$FS" fold "${env_opts[@]}" --debuginfod "$T/dinfod.fstat" >/dev/null 2>"$T/d-nourl.err"
check debuginfod-no-server grep -q 'warning: --debuginfod: no server to ask: DEBUGINFOD_URLS is not set' "$T/d-nourl.err"
