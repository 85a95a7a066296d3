#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The tables of bench-offcpu from the guest's result lines (Markdown).
#
#   report.sh accuracy RESULTS "PROFILERS"   (@@BENCH-OFFCPU lines)
#   report.sh cost RESULTS "PROFILERS"       (@@BENCH-OFFCOST lines)
set -u
kind=$1 results=$2 profilers=$3

case "$kind" in
accuracy)
	awk -v profs="$profilers" '
	function kv(k,   i) { for (i = 2; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2); return "" }
	$1 == "@@BENCH-OFFCPU" {
		p = kv("prof"); f = kv("func")
		if (!(f in seen)) { seen[f] = 1; order[++n] = f; comm[f] = kv("comm") }
		truth[p, f] = kv("truth_ns"); got[p, f] = kv("tool_ns"); calls[p, f] = kv("calls"); wall[p, f] = kv("wall_ns")
		st[p, f] = kv("state"); ran[p] = 1
		sw[p, f] = kv("vcsw") + kv("ivcsw"); vol[p, f] = kv("vcsw")
	}
	END {
		np = split(profs, pr, " ")
		h = "| function (thread) | calls | truth, no profiler (wall) |"; s = "|---|---:|---:|"
		for (j = 1; j <= np; j++) { h = h " " pr[j] " |"; s = s "---:|" }
		print h; print s
		for (i = 1; i <= n; i++) {
			f = order[i]
			line = sprintf("| %s (%s) | %s | %.1f (%.1f) |", f, comm[f], calls["none", f], truth["none", f] / 1e6, wall["none", f] / 1e6)
			for (j = 1; j <= np; j++) {
				p = pr[j]
				if (!ran[p] || !((p, f) in truth)) { line = line " - |"; continue }
				t = truth[p, f]; g = got[p, f]
				d = t > 0 ? sprintf("%+.1f%%", 100 * (g - t) / t) : "?"
				line = line sprintf(" %.1f of %.1f (%s)%s |", g / 1e6, t / 1e6, d, st[p, f] != "" ? " " st[p, f] : "")
			}
			print line
		}
		# The same differences per switch out of the calls: where they
		# stay the same size per switch whatever the function, they are
		# the two clocks'"'"' offsets at a switch, not time lost or made up.
		print ""
		h = "| function | switches per call (voluntary) |"; s = "|---|---:|"
		for (j = 1; j <= np; j++) if (pr[j] != "none") { h = h " " pr[j] " |"; s = s "---:|" }
		print h; print s
		for (i = 1; i <= n; i++) {
			f = order[i]
			c = calls["none", f]
			line = sprintf("| %s | %s |", f, c > 0 && sw["none", f] != "" ? sprintf("%.2f (%.2f)", sw["none", f] / c, vol["none", f] / c) : "-")
			for (j = 1; j <= np; j++) {
				p = pr[j]
				if (p == "none") continue
				if (!ran[p] || !((p, f) in truth) || sw[p, f] <= 0) { line = line " - |"; continue }
				line = line sprintf(" %+.2f us |", (got[p, f] - truth[p, f]) / sw[p, f] / 1e3)
			}
			print line
		}
	}' "$results"
	echo
	echo "Each profiler's cell: its off-CPU ms of the function, of the truth of its own run"
	echo "(in brackets: the difference); flamestat's also gives the task states of that time."
	echo "The truth is the wall time inside the calls minus the thread's CPU time in them;"
	echo "the wall time (in brackets, no-profiler run) bounds the off-CPU time from above."
	echo "The second table: each profiler's difference from the truth divided by the"
	echo "thread's context switches inside the calls in that run (getrusage), in us per"
	echo "switch. The truth's CPU clock stops and starts where the scheduler puts and"
	echo "picks the thread, the profilers' clocks at the sched_switch tracepoint, other"
	echo "points of the same switch: each switch out and back in leaves a few"
	echo "microseconds (TCG, one vCPU) on one side, the same for every profiler: less"
	echo "than 1 us short where the CPU goes straight to another task (pipe, mutex), 2"
	echo "to 3 us over where it goes idle between (sleeps). Against waits of"
	echo "milliseconds that is nothing; against waits of a few microseconds (buffered"
	echo "writes preempted briefly, fsync mostly on the CPU, as the disk part runs when"
	echo "it has the disk to itself) it is a large share of a small truth."
echo "perf (\`perf record --off-cpu\`) counts only the time after a switch-out in state"
echo "S or D, not a preempted thread's wait for the CPU (R): the R shares in flamestat's"
echo "column are not in perf's."
echo "flamestat-user: flamestat with -U, user stacks only, as perf records them."
echo "\"-\": the profiler did not run (see below)."
	awk '$1 == "@@BENCH-OFFLOST" { split($2, p, "="); split($3, t, "="); split($4, m, "=")
		if (m[2] > 0) printf "\n%s kept %.1f ms of the workload'"'"'s %.1f ms off-CPU with a stack it had lost (\"[Missed ... Stack]\": %.1f%%).\n", p[2], m[2] / 1e6, t[2] / 1e6, 100 * m[2] / t[2] }' "$results" ;;
cost)
	awk -v profs="$profilers" '
	function kv(k,   i) { for (i = 2; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2); return "" }
	$1 == "@@BENCH-OFFCOST" { p = kv("prof"); e[p] += kv("elapsed_ns"); s[p] += kv("switches"); r[p]++
		if (kv("seen_ns") != "") { o[p] += kv("seen_ns"); has_o[p] = 1 }
		if (kv("offcpu_recorded") != "") {
			nrep++; rp[nrep] = p; rr[nrep] = kv("rep"); re[nrep] = kv("elapsed_ns"); rs[nrep] = kv("switches")
			rb[nrep] = kv("offcpu_recorded"); rh[nrep] = kv("offcpu_recent_hits")
			rk[nrep] = kv("kstack_cache_hits"); rw[nrep] = kv("kstack_cache_walks")
		} }
	END {
		print "| profiler | switches/s | ns per switch | added per switch | off-CPU found |"
		print "|---|---:|---:|---:|---:|"
		np = split("none " profs, pr, " ")
		base = s["none"] ? e["none"] / s["none"] : 0
		for (j = 1; j <= np; j++) {
			p = pr[j]
			if (!r[p] || !s[p]) { printf "| %s | - | - | - | - |\n", p; continue }
			per = e[p] / s[p]
			printf "| %s | %.0f | %.0f | %s | %s |\n", p, s[p] / (e[p] / 1e9), per,
				p == "none" ? "" : sprintf("%+.0f ns", per - base),
				p == "none" || !has_o[p] ? "" : sprintf("%.0f%%", 100 * o[p] / e[p])
			if (p != "none") add[p] = per - base
		}
		# The issue asks flamestat to cost less per switch than the others.
		if (("flamestat" in add) && base) {
			v = ""
			for (j = 1; j <= np; j++) {
				p = pr[j]
				if (p == "none" || p ~ /^flamestat/ || !(p in add)) continue
				v = v sprintf("%s%s than %s (%+.0f ns)", v == "" ? "" : ", ",
					add["flamestat"] < add[p] ? "less" : "not less", p, add[p])
			}
			if (v != "") printf "\nflamestat adds %+.0f ns per switch: %s.\n", add["flamestat"], v
		}
		# perf --off-cpu records user stacks only: flamestat -U is its like.
		if (("flamestat-user" in add) && ("perf" in add))
			printf "With user stacks only, as perf --off-cpu records them, flamestat adds %+.0f ns: %s than perf.\n",
				add["flamestat-user"], add["flamestat-user"] < add["perf"] ? "less" : "not less"
		# Each flamestat run on its own, with the module'"'"'s counts: the
		# repeats differ more than the others'"'"', and these say whether
		# its shortcuts served them alike.
		if (nrep && base) {
			print ""
			print "flamestat per run: the cost, the blocks counted in one of the CPU'"'"'s recent"
			print "entries (no hash, no table probe), and the kernel stacks the cache recognised:"
			print ""
			print "| profiler | run | added per switch | blocks through the recent entries | kernel stacks recognised |"
			print "|---|---:|---:|---:|---:|"
			for (j = 1; j <= nrep; j++)
				printf "| %s | %s | %s | %s | %s |\n", rp[j], rr[j],
					rs[j] ? sprintf("%+.0f ns", re[j] / rs[j] - base) : "-",
					rb[j] && rh[j] != "" ? sprintf("%.1f%% (%d of %d)", 100 * rh[j] / rb[j], rh[j], rb[j]) : "-",
					rk[j] + rw[j] ? sprintf("%.1f%%", 100 * rk[j] / (rk[j] + rw[j])) : "-"
		}
		if (has_o["flamestat"] || has_o["perf"]) {
			print ""
			print "Off-CPU found: the off-CPU time each profiler reported for the benchmark'"'"'s"
			print "two processes (comm sched-pipe), against its elapsed time: about 100% when"
			print "the profiler saw every switch (on one CPU one of them always waits)."
		}
	}' "$results" ;;
*)
	echo "report.sh: accuracy or cost" >&2
	exit 2 ;;
esac
