#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Renderer benchmark: time, CPU, peak memory and SVG size of `flamestat svg`
# on generated 20,000- and 200,000-stack folded files, beside flamegraph.pl
# on the same files when FLAMEGRAPH_PL points to it. Prints a table; no
# pass or fail. The machine is shared, so CPU time (user + sys) is the
# fairer figure; flamestat's is the best of three runs.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
OUT=${BENCH_OUT:-$TOP/bench/out}/render
FS="$TOP/user/flamestat"
PL=${FLAMEGRAPH_PL:-}
SIZES=${RENDER_SIZES:-"20000 200000"}
mkdir -p "$OUT"

[ -x "$FS" ] || { echo "bench render: no $FS; run make tool first" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench render: needs GNU time (Debian package time)" >&2; exit 1; }
cc -O2 -o "$OUT/gen-folded" "$TOP/bench/gen-folded.c" || exit 1
if [ -n "$PL" ] && [ ! -f "$PL" ]; then
	echo "bench render: FLAMEGRAPH_PL=$PL does not exist" >&2
	PL=
fi

# measure TAG OUTPUT CMD...: sets wall, cpu, rss (MB) and bytes.
measure() {
	local tag=$1 out=$2
	shift 2
	/usr/bin/time -f '%e %U %S %M' -o "$OUT/$tag.time" "$@" >"$out" 2>"$OUT/$tag.err"
	read -r wall u s rss_kb <"$OUT/$tag.time"
	cpu=$(awk -v u="$u" -v s="$s" 'BEGIN {printf "%.2f", u + s}')
	rss=$(awk -v k="$rss_kb" 'BEGIN {printf "%.1f", k / 1024}')
	bytes=$(stat -c %s "$out")
}

mb() { awk -v b="$1" 'BEGIN {printf "%.1f", b / 1048576}'; }

printf '%-20s %8s %7s  %-13s %7s %7s %9s %8s %8s\n' \
	input stacks "in MB" tool "wall s" "CPU s" "peak MB" "SVG MB" frames
for n in $SIZES; do
	in="$OUT/stacks-$n.folded"
	[ -s "$in" ] || "$OUT/gen-folded" "$n" >"$in"
	best_wall='' best_cpu=''
	for _ in 1 2 3; do
		measure "fs-$n" "$OUT/fs-$n.svg" "$FS" svg "$in"
		if [ -z "$best_cpu" ] || awk -v a="$cpu" -v b="$best_cpu" 'BEGIN {exit !(a < b)}'; then
			best_cpu=$cpu
		fi
		if [ -z "$best_wall" ] || awk -v a="$wall" -v b="$best_wall" 'BEGIN {exit !(a < b)}'; then
			best_wall=$wall
		fi
	done
	fs_bytes=$bytes
	fs_frames=$(grep -o '<path ' "$OUT/fs-$n.svg" | wc -l)
	printf '%-20s %8s %7s  %-13s %7s %7s %9s %8s %8s\n' \
		"$(basename "$in")" "$n" "$(mb "$(stat -c %s "$in")")" flamestat \
		"$best_wall" "$best_cpu" "$rss" "$(mb "$fs_bytes")" "$fs_frames"
	if [ -z "$PL" ]; then
		continue
	fi
	measure "pl-$n" "$OUT/pl-$n.svg" perl "$PL" "$in"
	pl_frames=$(( $(grep -c '<rect' "$OUT/pl-$n.svg") - 1 ))
	printf '%-20s %8s %7s  %-13s %7s %7s %9s %8s %8s\n' \
		"" "" "" flamegraph.pl "$wall" "$cpu" "$rss" "$(mb "$bytes")" "$pl_frames"
	awk -v pc="$cpu" -v fc="$best_cpu" -v pw="$wall" -v fw="$best_wall" \
	    -v pb="$bytes" -v fb="$fs_bytes" -v pf="$pl_frames" -v ff="$fs_frames" 'BEGIN {
		printf "%-20s %8s %7s  flamestat is %.0fx faster (CPU), %.0fx (wall); its SVG is 1/%.1f the size (%.0f vs %.0f bytes per frame)\n",
			"", "", "", pc / (fc > 0 ? fc : 0.005), pw / (fw > 0 ? fw : 0.005),
			pb / fb, fb / ff, pb / pf }'
done
[ -n "$PL" ] || echo "flamegraph.pl: not available (set FLAMEGRAPH_PL=/path/to/flamegraph.pl to compare)"
echo "outputs in $OUT"
