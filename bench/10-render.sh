#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Renderer benchmark: time, CPU, peak memory and SVG size of `flamestat svg`
# on generated 20,000- and 200,000-stack folded files, beside flamegraph.pl
# on the same files (FLAMEGRAPH_PL, or the FlameGraph checkout in
# $FLAMESTAT_CACHE/FlameGraph that bench-overhead uses). Prints a table
# and issue 16's targets at 20,000 stacks (at least 50x flamegraph.pl's
# speed, an SVG at most a fifth of its size), met or missed; no pass or
# fail. The machine is shared, so CPU time (user + sys) is the fairer
# figure; both are medians: of 5 runs for flamestat, of 3 for
# flamegraph.pl up to 20,000 stacks and of 1 above (74 s at 200,000).
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
OUT=${BENCH_OUT:-$TOP/bench/out}/render
FS="$TOP/user/flamestat"
PL=${FLAMEGRAPH_PL:-}
[ -n "$PL" ] || [ ! -f "${FLAMESTAT_CACHE:-/var/tmp/flamestat-cache}/FlameGraph/flamegraph.pl" ] ||
	PL=${FLAMESTAT_CACHE:-/var/tmp/flamestat-cache}/FlameGraph/flamegraph.pl
SIZES=${RENDER_SIZES:-"20000 200000"}
mkdir -p "$OUT"

[ -x "$FS" ] || { echo "bench render: no $FS; run make tool first" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench render: needs GNU time (Debian package time)" >&2; exit 1; }
cc -O2 -o "$OUT/gen-folded" "$TOP/bench/gen-folded.c" || exit 1
if [ -n "$PL" ] && [ ! -f "$PL" ]; then
	echo "bench render: FLAMEGRAPH_PL=$PL does not exist" >&2
	PL=
fi

# measure REPS TAG OUTPUT CMD...: runs CMD REPS times in a row (GNU time
# counts CPU in 10 ms steps, too coarse for one 40 ms render); sets wall
# and cpu (per run), rss (MB, the largest run's) and bytes.
measure() {
	local reps=$1 tag=$2 out=$3
	shift 3
	# shellcheck disable=SC2016 # the inner shell expands them
	/usr/bin/time -f '%e %U %S %M' -o "$OUT/$tag.time" \
		sh -c 'o=$1 r=$2; shift 2; while [ "$r" -gt 0 ]; do "$@" >"$o" || exit; r=$((r - 1)); done' \
		sh "$out" "$reps" "$@" 2>"$OUT/$tag.err"
	read -r wall u s rss_kb <"$OUT/$tag.time"
	wall=$(awk -v w="$wall" -v n="$reps" 'BEGIN {printf "%.3f", w / n}')
	cpu=$(awk -v u="$u" -v s="$s" -v n="$reps" 'BEGIN {printf "%.3f", (u + s) / n}')
	rss=$(awk -v k="$rss_kb" 'BEGIN {printf "%.1f", k / 1024}')
	bytes=$(stat -c %s "$out")
}

# median V...: the middle value (the lower of the two middle ones).
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

# runs N REPS TAG OUTPUT CMD...: N measures; sets med_wall and med_cpu.
runs() {
	local n=$1 i walls=() cpus=()
	shift
	for ((i = 0; i < n; i++)); do
		measure "$@"
		walls+=("$wall") cpus+=("$cpu")
	done
	med_wall=$(median "${walls[@]}") med_cpu=$(median "${cpus[@]}")
}

mb() { awk -v b="$1" 'BEGIN {printf "%.1f", b / 1048576}'; }

printf '%-20s %8s %7s  %-13s %7s %7s %9s %8s %8s\n' \
	input stacks "in MB" tool "wall s" "CPU s" "peak MB" "SVG MB" frames
for n in $SIZES; do
	in="$OUT/stacks-$n.folded"
	[ -s "$in" ] || "$OUT/gen-folded" "$n" >"$in"
	runs 5 "$(( n <= 20000 ? 10 : 1 ))" "fs-$n" "$OUT/fs-$n.svg" "$FS" svg "$in"
	best_wall=$med_wall best_cpu=$med_cpu
	fs_bytes=$bytes
	fs_frames=$(grep -o '<path ' "$OUT/fs-$n.svg" | wc -l)
	printf '%-20s %8s %7s  %-13s %7s %7s %9s %8s %8s\n' \
		"$(basename "$in")" "$n" "$(mb "$(stat -c %s "$in")")" flamestat \
		"$best_wall" "$best_cpu" "$rss" "$(mb "$fs_bytes")" "$fs_frames"
	if [ -z "$PL" ]; then
		continue
	fi
	runs "$([ "$n" -le 20000 ] && echo 3 || echo 1)" 1 "pl-$n" "$OUT/pl-$n.svg" perl "$PL" "$in"
	wall=$med_wall cpu=$med_cpu
	pl_frames=$(( $(grep -c '<rect' "$OUT/pl-$n.svg") - 1 ))
	printf '%-20s %8s %7s  %-13s %7s %7s %9s %8s %8s\n' \
		"" "" "" flamegraph.pl "$wall" "$cpu" "$rss" "$(mb "$bytes")" "$pl_frames"
	awk -v pc="$cpu" -v fc="$best_cpu" -v pw="$wall" -v fw="$best_wall" \
	    -v pb="$bytes" -v fb="$fs_bytes" -v pf="$pl_frames" -v ff="$fs_frames" 'BEGIN {
		printf "%-20s %8s %7s  flamestat is %.0fx faster (CPU), %.0fx (wall); its SVG is 1/%.1f the size (%.0f vs %.0f bytes per frame)\n",
			"", "", "", pc / (fc > 0 ? fc : 0.005), pw / (fw > 0 ? fw : 0.005),
			pb / fb, fb / ff, pb / pf }'
	[ "$n" = 20000 ] && awk -v pc="$cpu" -v fc="$best_cpu" -v pb="$bytes" -v fb="$fs_bytes" 'BEGIN {
		x = pc / (fc > 0 ? fc : 0.005)
		printf "%-20s %8s %7s  target (issue 16) at 20,000 stacks: >= 50x faster (CPU): %s; SVG <= 1/5 the size: %s\n",
			"", "", "", (x >= 50 ? "met" : "MISSED"), (fb * 5 <= pb ? "met" : "MISSED") }'
done
[ -n "$PL" ] || echo "flamegraph.pl: not available (set FLAMEGRAPH_PL=/path/to/flamegraph.pl to compare)"
echo "outputs in $OUT"
