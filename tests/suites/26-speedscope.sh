#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# speedscope output: what 'flamestat record' (from snapshots, through
# tests/tool/recordout.c) and 'flamestat fold' write with --format
# speedscope or to *.speedscope.json, checked against speedscope's own
# JSON schema and against the folded text of the same profile
# (tests/tool/speedscope-check.js, which must also refuse corrupted
# copies); then each file opened by the speedscope app itself (npm
# speedscope, installed into $FLAMESTAT_CACHE/node with playwright-core
# when missing) in headless Debian chromium: loaded without error, with
# our profiles, functions and self and total weights in its Sandwich
# view (tests/browser/speedscope-test.js). Screenshots are left in
# tests/build/speedscope/. Host-only.
set -u
. "$(dirname "$0")/../lib/common.sh"

FS="$TOP/user/flamestat"
OUT="$BUILD/speedscope"
NODE_DIR="$FLAMESTAT_CACHE/node"
SPEEDSCOPE=speedscope@1.25.0
PLAYWRIGHT=playwright-core@1.65.1
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
CHECK="$TOP/tests/tool/speedscope-check.js"
VERSION=$(cat "$TOP/VERSION")
rm -rf "$OUT"
mkdir -p "$OUT"

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
	fail speedscope-node "node and npm are needed (scripts/deps.list)"
	exit 1
fi
# npm_need PACKAGE@VERSION: installed into $NODE_DIR unless that version is.
npm_need() {
	local name=${1%@*} version=${1##*@} have
	have=$(node -p "require('$NODE_DIR/node_modules/$name/package.json').version" 2>/dev/null)
	[ "$have" = "$version" ] && return 0
	mkdir -p "$NODE_DIR"
	[ -f "$NODE_DIR/package.json" ] ||
		echo '{"name":"flamestat-browser-test","private":true}' >"$NODE_DIR/package.json"
	if ! (cd "$NODE_DIR" && npm install --no-audit --no-fund --silent "$1") \
		>"$OUT/npm-$name.log" 2>&1; then
		fail "speedscope-npm-$name" "npm install $1 failed: $(tail -n 3 "$OUT/npm-$name.log" | tr '\n' '|')"
		exit 1
	fi
}
npm_need "$SPEEDSCOPE"
APP="$NODE_DIR/node_modules/speedscope/dist/release"
SCHEMA="$APP/file-format-schema.json"
[ -f "$APP/index.html" ] && [ -f "$SCHEMA" ] || {
	fail speedscope-app "no index.html or file-format-schema.json in $APP"
	exit 1
}

if ! nice make -s -C "$TOP/user" >"$OUT/build.log" 2>&1; then
	fail speedscope-build "make -C user failed: $(tail -n 3 "$OUT/build.log" | tr '\n' '|')"
	exit 1
fi
tool_objs
if ! gcc -O1 -std=gnu11 -I"$TOP/kmod" -o "$OUT/mksnap" "$TOP/tests/tool/mksnap.c" ||
   ! gcc -O1 -std=c11 -D_GNU_SOURCE -I"$TOP/user" -I"$TOP/kmod" -o "$OUT/recordout" \
	"$TOP/tests/tool/recordout.c" "${robjs[@]}" "${TOOL_LDLIBS[@]}"; then
	fail speedscope-tools "cannot build mksnap or recordout"
	exit 1
fi

# A recording at 1000 Hz (1 ms periods) whose samples stand for more
# periods than themselves (a late timer): 30 periods in 10 samples for
# one stack. Three processes, two of one command; a module's function.
cat >"$OUT/spec" <<'EOF'
header freq=1000 samples=40 recorded=40 running_ns=1000000000 cpus=2
ksym 0xffffffff81001000 0 do_syscall_64
ksym 0xffffffff81002000 0 vfs_read
ksym 0xffffffffc0001000 0 ext4_file_read_iter [ext4]
stack 10 proc=0 tgid=100 comm=app periods=30 k=0xffffffff81002000,0xffffffff81001000
stack 10 proc=0 tgid=100 comm=app periods=10 k=0xffffffff81001000
stack 5 proc=0 tgid=200 comm=app periods=5 k=0xffffffffc0001000,0xffffffff81002000,0xffffffff81001000
stack 15 proc=0 tgid=300 comm=we"ird\name periods=20 k=0xffffffffc0001000,0xffffffff81001000
EOF
"$OUT/mksnap" <"$OUT/spec" >"$OUT/rec.fstat" || {
	fail speedscope-mksnap "mksnap refused the spec"
	exit 1
}
env_opts=(--kallsyms /dev/null)

# The files, with the folded text they must hold and the nanoseconds per
# count (0: unit none). cases: NAME FOLDED NS, for the browser test too.
cases=()
# make NAME NS FOLDED-COMMAND... -- SPEEDSCOPE-COMMAND...
make_case() {
	local name=$1 ns=$2 fcmd=() scmd=()
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do fcmd+=("$1"); shift; done
	shift
	scmd=("$@")
	if ! "${fcmd[@]}" >"$OUT/$name.folded" 2>"$OUT/$name.ferr"; then
		fail "speedscope-$name-folded" "$(head -c 300 "$OUT/$name.ferr")"
		return
	fi
	if ! "${scmd[@]}" 2>"$OUT/$name.err"; then
		fail "speedscope-$name-write" "$(head -c 300 "$OUT/$name.err")"
		return
	fi
	[ -s "$OUT/$name.speedscope.json" ] || {
		fail "speedscope-$name-write" "no $OUT/$name.speedscope.json"
		return
	}
	cases+=("$name $ns")
}

# record: the extension, periods as nanoseconds; --count samples, none.
make_case record 1000000 "$FS" fold "${env_opts[@]}" "$OUT/rec.fstat" -- \
	"$OUT/recordout" "$OUT/rec.fstat" "${env_opts[@]}" -o "$OUT/record.speedscope.json"
make_case record-samples 0 "$FS" fold "${env_opts[@]}" --count samples "$OUT/rec.fstat" -- \
	"$OUT/recordout" "$OUT/rec.fstat" "${env_opts[@]}" --count samples \
	--format speedscope -o "$OUT/record-samples.speedscope.json"
# fold: per process with --comm-pid, per CPU with --per-cpu's root.
make_case fold-pid 1000000 "$FS" fold "${env_opts[@]}" --comm-pid "$OUT/rec.fstat" -- \
	"$FS" fold "${env_opts[@]}" --comm-pid --format speedscope \
	-o "$OUT/fold-pid.speedscope.json" "$OUT/rec.fstat"
# Folded files: flamegraph.pl's example, fractions, and names that need
# escapes or are no UTF-8 (stdout, through --format).
G="$TOP/tests/golden/inputs"
make_case basic 0 "$FS" fold "$G/basic.folded" -- \
	"$FS" fold -o "$OUT/basic.speedscope.json" "$G/basic.folded"
make_case counts 0 "$FS" fold "$G/counts.folded" -- \
	"$FS" fold --format speedscope -o "$OUT/counts.speedscope.json" "$G/counts.folded"
printf '%b\n' \
	'app;main;say \\"hi\\" 3' 'app;main;C:\\\\path\\\\x 2' \
	'app;main;tab\there;bell\a 4' 'app;main;caf\xc3\xa9;\xe6\x97\xa5\xe6\x9c\xac 5' \
	'app;main;latin1 caf\xe9 7' 'app;main;cut\xe2\x80 1' 'app;main;lsep\xe2\x80\xa8;del\x7f 2' \
	'app;main;surrogate\xed\xa0\x80;<b>bold</b>&amp 6' \
	'\xff\xfe;x 8' 'kworker/0:1;ext4_file_read_iter [ext4]_[k] 9' >"$OUT/escape.in"
make_case escape 0 "$FS" fold "$OUT/escape.in" -- \
	sh -c '"$1" fold --format speedscope "$2" >"$3"' - "$FS" "$OUT/escape.in" \
	"$OUT/escape.speedscope.json"

for c in "${cases[@]}"; do
	set -- $c
	if out=$(node "$CHECK" "$SCHEMA" "$OUT/$1.speedscope.json" "$OUT/$1.folded" "$2" \
		"$VERSION" 2>&1); then
		pass "speedscope-$1-schema"
	else
		fail "speedscope-$1-schema" "$(printf '%s' "$out" | head -n 5 | tr '\n' '|')"
	fi
done

# What the files say beyond the check.
j="$OUT/record.speedscope.json"
check speedscope-record-name grep -qx '"name":"record.speedscope.json",' "$j"
check speedscope-record-profiles node -e '
	const f = JSON.parse(require("fs").readFileSync(process.argv[1]));
	const got = f.profiles.map(p => p.name + " " + p.endValue).join(", ");
	if (got !== "app 45000000, we\"ird\\name 20000000") throw new Error(got);' "$j"
check speedscope-fold-pid-profiles node -e '
	const f = JSON.parse(require("fs").readFileSync(process.argv[1]));
	const got = f.profiles.map(p => p.name + " " + p.endValue).join(", ");
	if (got !== "app-100 40000000, we\"ird\\name-300 20000000, app-200 5000000") throw new Error(got);' \
	"$OUT/fold-pid.speedscope.json"
check speedscope-module-file grep -qF '{"name":"ext4_file_read_iter [ext4]_[k]","file":"[ext4]"}' "$j"
check speedscope-kernel-file grep -qF '{"name":"vfs_read_[k]","file":"[kernel]"}' "$j"
check speedscope-record-samples-unit grep -q '"unit":"none","startValue":0,"endValue":25,' \
	"$OUT/record-samples.speedscope.json"
check speedscope-fractions grep -q '"endValue":7.375,' "$OUT/counts.speedscope.json"
# The escapes, byte for byte.
e="$OUT/escape.speedscope.json"
for want in '{"name":"say \\\"hi\\\""}' '{"name":"C:\\\\path\\\\x"}' \
	'{"name":"tab\there"}' '{"name":"bell\u0007"}' '{"name":"café"}' \
	'{"name":"日本"}' '{"name":"latin1 caf�"}' '{"name":"cut�"}' \
	'{"name":"lsep\u2028"}' '{"name":"del\u007f"}' '{"name":"surrogate���"}' \
	'{"name":"<b>bold</b>&amp"}' '{"name":"��"}'; do
	if grep -qF -- "$want" "$e"; then
		pass "speedscope-escape $want"
	else
		fail "speedscope-escape $want" "not in $e"
	fi
done
# fold writes folded text to other names, as before; other formats are
# refused, and so is a differential profile (nothing left behind).
"$FS" fold -o "$OUT/plain.json" "$G/basic.folded" 2>/dev/null
check speedscope-fold-other-name cmp "$OUT/plain.json" "$OUT/basic.folded"
"$FS" fold --format svg "$G/basic.folded" >/dev/null 2>"$OUT/format.err"
rc=$?
check speedscope-fold-format-svg test "$rc" = 2 -a "$(head -n 1 "$OUT/format.err")" = \
	"flamestat fold: --format 'svg': expected folded, speedscope or pprof"
"$FS" report --format speedscope "$G/basic.folded" >/dev/null 2>&1
check speedscope-report-no-format test $? = 2
printf 'a;b 1 2\n' >"$OUT/diff.folded"
"$FS" fold --format speedscope -o "$OUT/diff.speedscope.json" "$OUT/diff.folded" \
	2>"$OUT/diff.err"
rc=$?
check speedscope-diff-refused test "$rc" = 1 -a ! -e "$OUT/diff.speedscope.json" -a \
	"$(cat "$OUT/diff.err")" = "flamestat fold: speedscope has no differential profiles: write the before and after profiles apart"
rm -f "$OUT/diff.speedscope.json"
# No samples: one empty profile, still a valid file.
: >"$OUT/empty.folded"
"$FS" fold --format speedscope "$OUT/empty.folded" >"$OUT/empty.speedscope.json" 2>/dev/null
check speedscope-empty-schema node "$CHECK" "$SCHEMA" "$OUT/empty.speedscope.json" \
	"$OUT/empty.folded" 0 "$VERSION"
cases+=("empty 0")

# The check must be able to fail: corrupted copies of record's file.
# corrupt NAME PERL-SUBSTITUTION: the check refuses the changed file.
corrupt() {
	local f="$OUT/corrupt-$1.speedscope.json"
	perl -0pe "$2" "$OUT/record.speedscope.json" >"$f"
	if cmp -s "$f" "$OUT/record.speedscope.json"; then
		fail "speedscope-check-refuses-$1" "the substitution changed nothing"
	elif node "$CHECK" "$SCHEMA" "$f" "$OUT/record.folded" 1000000 "$VERSION" \
		>"$OUT/corrupt-$1.out" 2>&1; then
		fail "speedscope-check-refuses-$1" "the check passed a corrupted file"
	else
		pass "speedscope-check-refuses-$1 ($(head -n 1 "$OUT/corrupt-$1.out"))"
	fi
}
corrupt weight 's/"weights":\[(\d+)/"weights":[1$1/'
corrupt index 's/\n\[0,/\n[99,/'
corrupt name 's/"name":"vfs_read_\[k\]"/"name":"vfs_write_[k]"/'
corrupt unit 's/"unit":"nanoseconds"/"unit":"ns"/'
corrupt end 's/"endValue":45000000/"endValue":45000001/'
corrupt escape 's/we\\"ird/we"ird/'
corrupt utf8 's/app/ap\xff/'
corrupt schema 's/"\$schema":"https:/"\$schema":"http:/'

# The app itself.
if [ ! -x "$CHROMIUM" ]; then
	fail speedscope-chromium "no $CHROMIUM: run scripts/install-deps.sh as root (Debian package chromium)"
	exit 1
fi
npm_need "$PLAYWRIGHT"
json=$(for c in "${cases[@]}"; do
	set -- $c
	printf '{"name": "%s", "file": "%s", "folded": "%s", "ns": %s},\n' \
		"$1" "$OUT/$1.speedscope.json" "$OUT/$1.folded" "$2"
done)
printf '{"app": "%s", "cases": [%s]}\n' "$APP" "${json%,}" >"$OUT/cases.json"
NODE_PATH="$NODE_DIR/node_modules" CHROMIUM="$CHROMIUM" \
	timeout 300 nice node "$TOP/tests/browser/speedscope-test.js" "$OUT/cases.json" "$OUT"
