#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Turns the @@BENCH lines of bench/overhead/guest.sh into the overhead
# tables of `make bench-overhead` (Markdown): per workload and profiler,
# the workload's runtime (median of the repeats and their spread), the
# slowdown against no profiler, the cost in guest instructions per sample
# (slowdown x 1e9 / FREQ on one CPU, under -icount 1 ns = 1 instruction)
# in total and over the floor (the do-nothing hrtimer module), samples,
# bytes, and the time from stop to a finished flame graph; then the
# target check of issue 8 on TARGET_WL and flamestat's sampling rate.
#
#   report.sh RESULTS [FREQ] [TARGET_WL]
#
# TARGET_WL "-": no target check (the unwind phase has its own,
# bench/overhead/unwind-report.sh).
#
# RESULTS holds @@BENCH lines (other lines are ignored). Never fails on a
# number; exits 1 only when RESULTS has no run at all.
set -u
results=$1 freq=${2:-997} target_wl=${3:-deep8}
here=$(cd "$(dirname "$0")" && pwd)

grep -q '^@@BENCH ' "$results" || { echo "report: no @@BENCH lines in $results" >&2; exit 1; }

awk -v freq="$freq" -v target_wl="$target_wl" "$(cat "$here/stats.awk")"'
function ms(ns) { return ns < 0 ? "-" : sprintf("%.0f ms", ns / 1e6) }
$1 == "@@BENCH-SESSION" {
	delete f
	for (i = 2; i <= NF; i++) {
		p = index($i, "=")
		if (p) f[substr($i, 1, p - 1)] = substr($i, p + 1)
	}
	sess[f["prof"]] = f["runs"] SUBSEP f["samples"] SUBSEP f["ubytes"] SUBSEP f["dbytes"] SUBSEP f["post_ns"] SUBSEP f["start_ns"]
	next
}
$1 == "@@BENCH" {
	delete f
	for (i = 2; i <= NF; i++) {
		p = index($i, "=")
		if (p) f[substr($i, 1, p - 1)] = substr($i, p + 1)
	}
	if (f["status"] != 0) next
	k = f["prof"] SUBSEP f["wl"]
	if ("session" in f) session[f["prof"]] = 1
	if (!(f["wl"] in seenwl)) { seenwl[f["wl"]] = 1; wls[++nwl] = f["wl"] }
	if (!(f["prof"] in seenprof)) { seenprof[f["prof"]] = 1; profs[++nprof] = f["prof"] }
	add(el, k, f["elapsed_ns"])
	add(smp, k, f["samples"])
	add(ub, k, f["ubytes"])
	add(db, k, f["dbytes"])
	add(post, k, f["post_ns"])
	if ("window_samples" in f) add(win, k, f["window_samples"])
	if ("cost_ns" in f && f["cost_ns"] != "?") add(cost, k, f["cost_ns"])
	nrep[k]++
}
END {
	order = "none floor flamestat fsfp perf perfdwarf bpftrace bcc"
	no = split(order, po, " ")
	label["fsfp"] = "flamestat --unwind fp"
	label["perfdwarf"] = "perf --call-graph dwarf"
	for (w = 1; w <= nwl; w++) {
		wl = wls[w]
		kn = "none" SUBSEP wl
		kf = "floor" SUBSEP wl
		if (!(kn in el)) { printf "\n%s: no run without a profiler: no slowdown\n", wl; continue }
		base = median(el[kn])
		floor_ips = (kf in el) ? (median(el[kf]) - base) / base * 1e9 / freq : ""
		printf "\n### %s (no profiler: %.4f s of guest time, median of %d)\n\n", wl, base / 1e9, nrep[kn]
		print "| profiler | runtime (median) | spread (max-min) | slowdown | instr/sample | over the floor | samples | to userspace | written | stop to flame graph |"
		print "|---|---|---|---|---|---|---|---|---|---|"
		for (j = 1; j <= no; j++) {
			p = po[j]
			k = p SUBSEP wl
			if (!(k in el)) continue
			m = median(el[k])
			spread = minmax(el[k], "max") - minmax(el[k], "min")
			sd = (m - base) / base
			ips = sd * 1e9 / freq
			# spread in instructions per sample, at freq samples per s
			sps = spread / (m / 1e9 * freq)
			marg = (p == "none" || p == "floor" || floor_ips == "") ? "-" : sprintf("%.0f", ips - floor_ips)
			noio = (p == "none" || p == "floor" || (p in session))
			printf "| %s | %.4f s | %.2f ms (%.0f/sample) | %+.3f%% | %s | %s | %s | %s%s | %s | %s |\n", \
				(p in label) ? label[p] : p, m / 1e9, spread / 1e6, sps, sd * 100, \
				p == "none" ? "-" : sprintf("%.0f", ips), marg, \
				(p == "none" || (p in session)) ? "-" : sprintf("%.0f", median(smp[k])), \
				noio ? "-" : human(median(ub[k])), (p == "bpftrace" ? " (est.)" : ""), \
				noio ? "-" : human(median(db[k])), \
				noio ? "-" : ms(median(post[k]))
			IPS[p, wl] = ips
			MARG[p, wl] = (marg == "-") ? "" : ips - floor_ips
			UB[p, wl] = median(ub[k])
			if (k in win) {
				direct = (m - base) / median(win[k])
				DIRECT[p, wl] = direct
			}
			if (k in cost) COST[p, wl] = median(cost[k])
		}
		line = ""
		for (j = 1; j <= no; j++) {
			p = po[j]
			if ((p, wl) in DIRECT)
				line = line sprintf("%s%s %.0f", line == "" ? "" : ", ", (p in label) ? label[p] : p, DIRECT[p, wl])
		}
		if (line != "")
			printf "\nInstructions per sample counted directly (runtime added / samples taken during the run): %s.\n", line
		if (("flamestat", wl) in COST)
			printf "flamestat'"'"'s own accounting (time in its timer callback, whole session): %.0f ns per sample.\n", COST["flamestat", wl]
	}

	for (p in sess) {
		split(sess[p], f2, SUBSEP)
		printf "\n%s ran as one session over %s timed runs (its start-up, %s of guest time, was not timed): %s samples, %s to userspace (est.), %s written, %s from stop to flame graph.\n", \
			p, f2[1], ms(f2[6]), f2[2], human(f2[3]), human(f2[4]), ms(f2[5])
	}

	# The target of issue 8, on the target workload ("-": none).
	if (target_wl == "-") exit
	wl = target_wl
	printf "\n### Target (issue 8), on %s\n\n", wl
	if (!(("flamestat", wl) in MARG) || MARG["flamestat", wl] == "") {
		print "Not measured: no flamestat, floor or no-profiler run of " wl "."
	} else {
		fm = MARG["flamestat", wl]
		printf "- flamestat over the floor: %.0f instructions per sample.\n", fm
		if ((("perf", wl) in MARG) && MARG["perf", wl] != "") {
			pm = MARG["perf", wl]
			printf "- perf over the floor: %.0f; a fifth is %.0f: %s (flamestat = %.2f of perf).\n", \
				pm, pm / 5, fm <= pm / 5 ? "met" : "MISSED", fm / pm
		} else print "- perf: not measured."
		if ((("bpftrace", wl) in MARG) && MARG["bpftrace", wl] != "") {
			bm = MARG["bpftrace", wl]
			printf "- bpftrace over the floor: %.0f; an eighth is %.0f: %s (flamestat = %.2f of bpftrace).\n", \
				bm, bm / 8, fm <= bm / 8 ? "met" : "MISSED", fm / bm
		} else print "- bpftrace: not measured."
		if ((("perf", wl) in UB) && UB["perf", wl] > 0) {
			printf "- bytes to userspace: flamestat %s, perf.data %s: %.2f%% (target <= 1%%): %s.\n", \
				human(UB["flamestat", wl]), human(UB["perf", wl]), \
				100 * UB["flamestat", wl] / UB["perf", wl], \
				UB["flamestat", wl] <= UB["perf", wl] / 100 ? "met" : "MISSED"
		} else print "- bytes against perf.data: not measured."
	}
}' "$results"

# Sampling rate of flamestat: in the timed window (samples taken while
# the workload ran, over its runtime: a busy CPU), and over each whole
# session (idle periods included), counting and not counting the periods
# the timer skipped (overruns: it fired late by more than a period).
awk -v freq="$freq" '
function rate_line(what, n, lo, hi, sum, worst) {
	printf "- %s: %d runs, %.2f to %.2f samples per CPU-second (mean %.2f) at %d Hz; worst error %.3f%% (target <= 1%%): %s.\n", \
		what, n, lo, hi, sum / n, freq, worst, worst <= 1 ? "met" : "MISSED"
}
function track(k, r,   e) {
	cnt[k]++; tot[k] += r
	if (cnt[k] == 1 || r < min[k]) min[k] = r
	if (cnt[k] == 1 || r > max[k]) max[k] = r
	e = (r - freq) / freq * 100; if (e < 0) e = -e
	if (e > bad[k]) bad[k] = e
}
{
	delete f
	for (i = 2; i <= NF; i++) { p = index($i, "="); if (p) f[substr($i, 1, p - 1)] = substr($i, p + 1) }
}
$1 == "@@BENCH" && f["prof"] == "flamestat" && f["elapsed_ns"] > 0 && f["window_samples"] != "" {
	track("window", f["window_samples"] / (f["elapsed_ns"] / 1e9))
}
$1 == "@@BENCH-RATE" && f["duration_ns"] > 0 && f["cpus"] > 0 {
	track("session", f["samples"] / (f["duration_ns"] / 1e9) / f["cpus"])
	track("session+overruns", (f["samples"] + f["overruns"]) / (f["duration_ns"] / 1e9) / f["cpus"])
}
END {
	if (!cnt["window"] && !cnt["session"]) exit
	printf "\n### Sampling rate (flamestat)\n\n"
	if (cnt["window"])
		rate_line("while the workload ran (busy CPU)", cnt["window"], min["window"], max["window"], tot["window"], bad["window"])
	if (cnt["session"]) {
		rate_line("whole sessions, samples", cnt["session"], min["session"], max["session"], tot["session"], bad["session"])
		rate_line("whole sessions, samples + overruns", cnt["session+overruns"], min["session+overruns"], max["session+overruns"], tot["session+overruns"], bad["session+overruns"])
	}
}' "$results"
