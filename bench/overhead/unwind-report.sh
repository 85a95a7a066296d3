#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The unwind phase's tables (issue 24): user stacks walked by unwind tables
# against frame pointers and against perf --call-graph dwarf. Per workload,
# report.sh's cost table; then the targets:
#   - a 6-deep walk by tables costs at most 2x a 6-deep walk by frame
#     pointers (flamestat against flamestat --unwind fp, the same binary,
#     instructions per sample over the floor),
#   - and at most a quarter of perf --call-graph dwarf's on the same
#     workload built without frame pointers,
#   - bytes to user space no more than by frame pointers,
#   - the top-10 leaf-to-main chains within 1 percentage point of perf
#     --call-graph dwarf's (chains.sh), on each workload built without
#     frame pointers.
#
#   unwind-report.sh PHASE_DIR [FREQ]
#
# PHASE_DIR has results (@@BENCH lines) and vm/artifacts/overhead/ (the
# kept folded stacks). Prints Markdown; never fails on a number.
set -u
dir=$1 freq=${2:-997}
here=$(cd "$(dirname "$0")" && pwd)
art="$dir/vm/artifacts/overhead"
results="$dir/results"

"$here/report.sh" "$results" "$freq" - || exit 1

# ---- targets ----
awk -v freq="$freq" "$(cat "$here/stats.awk")"'
# instructions per sample over the floor: "" when not measured
function marg(p, wl,   base, fl) {
	if (!(("none", wl) in el) || !(("floor", wl) in el) || !((p, wl) in el)) return ""
	base = median(el["none", wl])
	fl = (median(el["floor", wl]) - base) / base * 1e9 / freq
	return (median(el[p, wl]) - base) / base * 1e9 / freq - fl
}
function verdict(ok) { return ok ? "met" : "MISSED" }
$1 == "@@BENCH" {
	delete f
	for (i = 2; i <= NF; i++) {
		p = index($i, "=")
		if (p) f[substr($i, 1, p - 1)] = substr($i, p + 1)
	}
	if (f["status"] != 0) next
	k = f["prof"] SUBSEP f["wl"]
	add(el, k, f["elapsed_ns"])
	add(ub, k, f["ubytes"])
	if ("unwind_table" in f) {
		ut[k] += f["unwind_table"]; um[k] += f["unwind_mixed"]
		uf[k] += f["unwind_fp"]; us[k] += f["unwind_stopped"]
	}
}
END {
	print ""
	print "### Targets (issue 24)"
	print ""
	t = marg("flamestat", "deep6"); fp = marg("fsfp", "deep6")
	if (t == "" || fp == "" || fp <= 0)
		print "- tables against frame pointers (deep6): not measured."
	else
		printf "- a 6-deep walk by tables against one by frame pointers (deep6, the same binary): %.0f against %.0f instructions per sample over the floor, %.2fx (target <= 2x): %s.\n", \
			t, fp, t / fp, verdict(t <= 2 * fp)
	t = marg("flamestat", "deep6nofp"); d = marg("perfdwarf", "deep6nofp")
	if (t == "" || d == "" || d <= 0)
		print "- tables against perf --call-graph dwarf (deep6nofp): not measured."
	else
		printf "- against perf --call-graph dwarf on the same stack without frame pointers (deep6nofp): %.0f against %.0f, %.3f of perf (target <= 0.25): %s.\n", \
			t, d, t / d, verdict(t <= d / 4)
	if (("flamestat", "deep6") in ub && ("fsfp", "deep6") in ub) {
		bt = median(ub["flamestat", "deep6"]); bf = median(ub["fsfp", "deep6"])
		line = sprintf("- bytes to user space (deep6): by tables %s, by frame pointers %s (target: no more): %s", \
			human(bt), human(bf), verdict(bt <= bf))
		if (("perfdwarf", "deep6nofp") in ub)
			line = line sprintf("; perf --call-graph dwarf wrote %s of perf.data on deep6nofp", \
				human(median(ub["perfdwarf", "deep6nofp"])))
		print line "."
	} else
		print "- bytes to user space: not measured."
	# How each flamestat run walked its user stacks (leaf samples, all
	# repeats).
	print ""
	print "How flamestat walked the user stacks (samples with user frames, all repeats):"
	print ""
	print "| workload | profiler | by tables | tables and frame pointers | frame pointers | stopped early |"
	print "|---|---|---|---|---|---|"
	for (k in ut) {
		split(k, kk, SUBSEP)
		n = ut[k] + um[k] + uf[k]
		if (!n) continue
		printf "| %s | %s | %.1f%% | %.1f%% | %.1f%% | %d |\n", kk[2], \
			kk[1] == "fsfp" ? "flamestat --unwind fp" : kk[1], \
			100 * ut[k] / n, 100 * um[k] / n, 100 * uf[k] / n, us[k]
	}
}' "$results"

# ---- the same stacks as perf --call-graph dwarf ----
# Every repeat's stacks together (the guest keeps them all: BENCH_KEEP=all):
# a 5% chain's share has 0.45 pp of sampling noise in one 2,400-sample run,
# so that two profilers without any difference would often be 1 pp apart.
sums=$(mktemp -d)
trap 'rm -rf "$sums"' EXIT
for spec in deep6nofp:deepstack-nofp mix:nofp; do
	wl=${spec%%:*} comm=${spec#*:}
	a="$art/flamestat-$wl.folded" b="$art/perfdwarf-$wl.folded"
	if [ ! -s "$a" ] || [ ! -s "$b" ]; then
		echo
		echo "### Chains of $wl against perf --call-graph dwarf"
		echo
		echo "Not measured: no $(basename "$a") or $(basename "$b")."
		continue
	fi
	nrep=0
	for p in flamestat perfdwarf; do
		cat "$art/$p-$wl.folded" "$art/$p-$wl".rep*.folded >"$sums/$p-$wl.folded" 2>/dev/null
	done
	for f in "$art/flamestat-$wl.folded" "$art/flamestat-$wl".rep*.folded; do
		[ -s "$f" ] && [ -s "${f%/flamestat-*}/perfdwarf-${f##*/flamestat-}" ] && nrep=$((nrep + 1))
	done
	echo
	echo "### Chains of $wl against perf --call-graph dwarf ($nrep repeat(s) together)"
	echo
	out=$("$here/chains.sh" "$comm" "$sums/flamestat-$wl.folded" "$sums/perfdwarf-$wl.folded" \
		flamestat "perf --call-graph dwarf") ||
		{ echo "Not compared: $out"; continue; }
	echo "$out" | grep -v '^max_diff_pp='
	worst=$(echo "$out" | sed -n 's/^max_diff_pp=//p')
	echo
	echo "- largest difference among the top 10: $worst pp (target <= 1 pp): $(awk -v w="$worst" 'BEGIN { print (w <= 1 ? "met" : "MISSED") }')."
done
