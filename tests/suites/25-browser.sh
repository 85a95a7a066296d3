#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The flame graph in a real browser: headless Debian chromium driven by
# playwright-core (installed from npm into $FLAMESTAT_CACHE/node when
# missing) searches, zooms, follows URL state and resets, checks that
# large totals (past float32's 2^24, up to 2^64 - 1) are drawn and zoomed
# exactly, and leaves screenshots in tests/build/browser/. Host-only.
set -u
. "$(dirname "$0")/../lib/common.sh"

FS="$TOP/user/flamestat"
OUT="$BUILD/browser"
NODE_DIR="$FLAMESTAT_CACHE/node"
PLAYWRIGHT=playwright-core@1.65.1
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
rm -rf "$OUT"
mkdir -p "$OUT"

if [ ! -x "$CHROMIUM" ]; then
	fail browser-chromium "no $CHROMIUM: run scripts/install-deps.sh as root (Debian package chromium)"
	exit 1
fi
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
	fail browser-node "node and npm are needed to drive chromium"
	exit 1
fi
if [ ! -f "$NODE_DIR/node_modules/playwright-core/package.json" ]; then
	mkdir -p "$NODE_DIR"
	[ -f "$NODE_DIR/package.json" ] ||
		echo '{"name":"flamestat-browser-test","private":true}' >"$NODE_DIR/package.json"
	if ! (cd "$NODE_DIR" && npm install --no-audit --no-fund --silent "$PLAYWRIGHT") \
		>"$OUT/npm.log" 2>&1; then
		fail browser-playwright "npm install $PLAYWRIGHT failed: $(tail -n 3 "$OUT/npm.log" | tr '\n' '|')"
		exit 1
	fi
fi

if ! make -s -C "$TOP/user" >"$OUT/build.log" 2>&1; then
	fail browser-build "make -C user failed: $(tail -n 3 "$OUT/build.log" | tr '\n' '|')"
	exit 1
fi
if ! cc -O2 -o "$OUT/gen-folded" "$TOP/bench/gen-folded.c" 2>"$OUT/gen.log"; then
	fail browser-gen "cannot build bench/gen-folded.c"
	exit 1
fi

# A realistic graph (2,000 generated stacks, nothing merged so that every
# matching frame is searchable) and a differential one.
"$OUT/gen-folded" 2000 7 >"$OUT/graph.folded"
"$FS" svg --minwidth 0 --subtitle "2,000 generated stacks" "$OUT/graph.folded" >"$OUT/graph.svg" &&
"$FS" diff "$TOP/tests/golden/inputs/before.folded" \
	"$TOP/tests/golden/inputs/after.folded" >"$OUT/diff.svg" || {
	fail browser-render "flamestat could not render the test graphs"
	exit 1
}
# Time in the details bar: a recording's periods (10 samples standing for
# 30 periods at 1000 Hz, drawn by record from a snapshot: mksnap and
# tests/tool/recordout.c, as in 15-tool); a folded file of periods (no
# samples per stack); one from before periods (one period per sample).
rc=0
tool_objs
if gcc -O1 -std=gnu11 -I"$TOP/kmod" -o "$OUT/mksnap" "$TOP/tests/tool/mksnap.c" &&
   gcc -O1 -std=c11 -D_GNU_SOURCE -I"$TOP/user" -I"$TOP/kmod" -o "$OUT/recordout" \
	"$TOP/tests/tool/recordout.c" "${robjs[@]}" "${TOOL_LDLIBS[@]}"; then
	printf '%s\n' 'header freq=1000 samples=20 recorded=20 running_ns=1000000000 cpus=1' \
		'ksym 0xffffffff81001000 0 do_syscall_64' 'ksym 0xffffffff81002000 0 vfs_read' \
		'stack 10 comm=app periods=30 k=0xffffffff81002000,0xffffffff81001000' \
		'stack 10 comm=app periods=10 k=0xffffffff81001000' |
		"$OUT/mksnap" >"$OUT/periods.fstat" &&
	"$OUT/recordout" "$OUT/periods.fstat" --kallsyms /dev/null -o "$OUT/periods.svg" ||
		rc=1
else
	rc=1
fi
[ $rc = 0 ] || { fail browser-periods-svg "mksnap or recordout failed"; exit 1; }
"$FS" svg "$TOP/tests/golden/inputs/meta-periods.folded" >"$OUT/meta-periods.svg" &&
"$FS" svg "$TOP/tests/golden/inputs/meta.folded" >"$OUT/meta.svg" &&
"$FS" svg "$TOP/tests/golden/inputs/counts.folded" >"$OUT/counts.svg" &&
"$FS" svg --factor 2 "$TOP/tests/golden/inputs/counts.folded" >"$OUT/counts-factor.svg" &&
printf 'a;b 9007199254740991\n' | "$FS" svg >"$OUT/big.svg" || {
	fail browser-render-meta "flamestat could not render the golden inputs"
	exit 1
}
# Large totals (Chromium paints SVG coordinates in float32): counts of
# bytes, nanoseconds or cycles. Each graph has a frame that is a tiny
# fraction of the total, to zoom into; names are unique (the test finds
# frames by name and computes where they must be from the folded file).
# Totals past 2^53 both from --total and from counts split across frames
# (the profile's counts are exact to 2^64 - 1).
big_cases=()
# big NAME FOLDED JSON-EXTRAS FLAMESTAT-OPTIONS...
big() {
	local name=$1 extra=$3
	printf "$2" >"$OUT/big-$name.folded"
	shift 3
	"$FS" svg --minwidth 0 "$@" "$OUT/big-$name.folded" >"$OUT/big-$name.svg" \
		2>"$OUT/big-$name.err"
	local rc=$?
	if [ $rc != 0 ] || [ -s "$OUT/big-$name.err" ]; then
		fail "big-$name-render" "$(head -c 300 "$OUT/big-$name.err")"
	else
		big_cases+=("{\"name\": \"$name\", \"svg\": \"$OUT/big-$name.svg\", \"folded\": \"$OUT/big-$name.folded\", $extra}")
	fi
}
big pair3e9 'main;a 3000000000\nmain;b 3000000000\n' \
	'"zoom": "b", "details": ["main", "Function: main (6,000,000,000 samples, 100.00%)"], "zoomDetails": ["b", "Function: b (3,000,000,000 samples, 50.00%)"], "search": ["^b$", "100"]'
big total1e8 'main;big 99999000\nmain;small;s1 250\nmain;small;s2 750\n' \
	'"zoom": "small", "details": ["main", "Function: main (100,000,000 samples, 100.00%)"], "zoomDetails": ["s1", "Function: s1 (250 samples, 0.00%)"], "search": ["^s1$", "25.0"]'
tiny1e10='main;big 9999999000\nmain;small;s2 750\nmain;small;s1 250\n'
big total1e10 "$tiny1e10" \
	'"zoom": "small", "details": ["main", "Function: main (10,000,000,000 samples, 100.00%)"], "zoomDetails": ["s2", "Function: s2 (750 samples, 0.00%)"], "search": ["s2", "75.0"]'
big icicle1e10 "$tiny1e10" \
	'"inverted": true, "zoom": "small", "zoomDetails": ["s1", "Function: s1 (250 samples, 0.00%)"]' --inverted
big chart1e10 "$tiny1e10" \
	'"chart": true, "zoom": "small", "zoomDetails": ["s2", "Function: s2 (750 samples, 0.00%)"], "search": ["^s1$", "25.0"]' --flamechart
tiny53='main;big 9007199254000000\nmain;small;s1 250\nmain;small;s2 750\n'
big total2e63 "$tiny53" \
	'"total": "9223372036854775807", "zoom": "small", "details": ["all", "Function: all (9,223,372,036,854,775,807 samples, 100.00%)"], "zoomDetails": ["s1", "Function: s1 (250 samples, 0.00%)"], "search": ["^s2$", "75.0"]' --total 9223372036854775807
big total2e64 "$tiny53" \
	'"total": "18446744073709551615", "zoom": "small", "details": ["all", "Function: all (18,446,744,073,709,551,615 samples, 100.00%)"], "zoomDetails": ["s2", "Function: s2 (750 samples, 0.00%)"]' --total 18446744073709551615
big split2e63 'main;x 4611686018427387903\nmain;y;z 4611686018427387900\nmain;y;tiny;c1 1\nmain;y;tiny;c2 3\n' \
	'"zoom": "tiny", "details": ["main", "Function: main (9,223,372,036,854,775,807 samples, 100.00%)"], "zoomDetails": ["c2", "Function: c2 (3 samples, 0.00%)"], "search": ["^c1$", "25.0"]'
big split2e64 'main;a 9223372036854775807\nmain;b;tiny 2\nmain;b;rest 9223372036854775806\n' \
	'"zoom": "tiny", "details": ["main", "Function: main (18,446,744,073,709,551,615 samples, 100.00%)"], "zoomDetails": ["tiny", "Function: tiny (2 samples, 0.00%)"]'
big_json=$(IFS=,; echo "${big_cases[*]}")

G="$TOP/tests/golden/inputs"
"$FS" svg --nameattr "$G/basic.nameattr" "$G/basic.folded" >"$OUT/nameattr.svg" 2>/dev/null &&
"$FS" svg --minwidth 0 --truncate-text-left "$OUT/graph.folded" >"$OUT/truncleft.svg" &&
"$FS" svg --no-javascript "$G/basic.folded" >"$OUT/nojs.svg" &&
"$FS" svg --stroke-color '#0000ff' "$G/basic.folded" >"$OUT/stroke.svg" || {
	fail browser-render-options "flamestat could not render the option graphs"
	exit 1
}
cat >"$OUT/cases.json" <<JSON
{"graph": {"svg": "$OUT/graph.svg", "folded": "$OUT/graph.folded",
	   "search": "ext4_read", "zoom": "nginx"},
 "diff": {"svg": "$OUT/diff.svg", "grew": "deflate", "shrank": "write"},
 "details": [
	{"name": "periods", "svg": "$OUT/periods.svg", "frame": "vfs_read",
	 "want": "Function: vfs_read (30.00 ms, 10 samples, 75.00%)"},
	{"name": "folded-periods", "svg": "$OUT/meta-periods.svg", "frame": "hot_leaf",
	 "want": "Function: hot_leaf (30.00 ms, 75.00%)"},
	{"name": "before-periods", "svg": "$OUT/meta.svg", "frame": "rest_of_compilation",
	 "want": "Function: rest_of_compilation (80.24 ms, 80 samples, 44.44%)"},
	{"name": "fractions", "svg": "$OUT/counts.svg", "frame": "write0",
	 "want": "Function: write0 (4.5 samples, 61.02%)"},
	{"name": "fractions-small", "svg": "$OUT/counts.svg", "frame": "GC_active",
	 "want": "Function: GC_active (0.125 samples, 1.69%)"},
	{"name": "fractions-factor", "svg": "$OUT/counts-factor.svg", "frame": "GC_active",
	 "want": "Function: GC_active (0.25 samples, 1.69%)"},
	{"name": "count-2^53", "svg": "$OUT/big.svg", "frame": "b",
	 "want": "Function: b (9,007,199,254,740,991 samples, 100.00%)"}],
 "big": [$big_json],
 "options": {"nameattr": "$OUT/nameattr.svg", "right": "$OUT/graph.svg",
	     "left": "$OUT/truncleft.svg", "zoom": "nginx", "nojs": "$OUT/nojs.svg"},
 "stroke": {"svg": "$OUT/stroke.svg", "frames": ["main", "yyparse", "fork"],
	    "zoom": "reader_loop", "children": ["read_command", "yyparse", "yylex"]}}
JSON
NODE_PATH="$NODE_DIR/node_modules" CHROMIUM="$CHROMIUM" \
	timeout 300 node "$TOP/tests/browser/flamegraph-test.js" "$OUT/cases.json" "$OUT"
rc=$?
for png in browser-graph browser-search browser-zoom browser-diff browser-static \
	browser-truncate-left browser-no-javascript browser-stroke; do
	[ -s "$OUT/$png.png" ] && pass "screenshot-$png ($OUT/$png.png)" ||
		fail "screenshot-$png" "no $OUT/$png.png"
done
exit $rc
