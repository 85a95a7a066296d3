#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The truth phase's tables: for each workload, the share of each leaf
# function in the truth (what the ground-truth run executed, counted by the
# insnprof plugin under -icount) beside flamestat's and perf's leaf shares
# (their runs of the same workload, same guest configuration), and their
# errors in percentage points (target for flamestat: within 1).
#
#   truth-report.sh GT_DIR PROF_DIR BIN_DIR 'NAME=COMMAND|...' [FREQ]
#
# GT_DIR: truth.sh's output (insnprof.out, results, vm/artifacts/overhead/
# kallsyms); PROF_DIR: the profilers' boot (results, vm/artifacts/overhead/
# flamestat-NAME.folded and perf-NAME.folded); BIN_DIR: the workloads as
# built (their symbols name the user addresses). Prints Markdown. Never
# fails on a number; exits 1 when there is nothing to compare.
#
# Three references per leaf, all from the ground-truth run:
# - instructions: its share of the instructions the run executed outside
#   interrupt handlers (where the time went: one instruction is one
#   nanosecond);
# - truth: its share of where a timer interrupt can land, which is what a
#   sampler driven by one (flamestat, perf's cpu-clock) can see: an
#   interrupt that comes while interrupts are disabled waits for the
#   instruction that enables them again, so time spent with them disabled
#   is credited to where they come back on (a syscall's entry to
#   syscall_enter_from_user_mode's local_irq_enable(), its exit to the user
#   instruction after the syscall). The plugin follows the interrupt flag
#   (insnprof.c, irq=on); the same as instructions where interrupts stay
#   enabled;
# - landed: where QEMU delivered the timer interrupts of that run (a timer
#   at about 10 kHz, the floor module with jitter=): what a perfect timer
#   sampler finds in this emulator, a sample itself (thousands of them).
set -u
gt=$1 pd=$2 bins=$3 workloads=$4 freq=${5:-997}
here=$(cd "$(dirname "$0")" && pwd)
prof="$gt/insnprof.out"
ksyms="$gt/vm/artifacts/overhead/kallsyms"
art="$pd/vm/artifacts/overhead"
tmp="$gt/report"
mkdir -p "$tmp"
for f in "$prof" "$ksyms" "$gt/results"; do
	[ -s "$f" ] || { echo "truth-report: no $f" >&2; exit 1; }
done

# Kernel names of one address under one of them (as accuracy.sh does).
aliases="$tmp/aliases"
awk '$2 ~ /^[tT]$/ { n[$1]++; names[$1] = names[$1] " " $3 }
	END { for (a in n) if (n[a] > 1) print substr(names[a], 2) }' "$ksyms" |
	awk '{ for (i = 1; i <= NF; i++) print $i, $1 }' >"$aliases"
# Kernel function starts, as "ADDRESS B name" (16 hex digits).
awk '$2 ~ /^[tTwW]$/ { a = $1; while (length(a) < 16) a = "0" a; print a, "B", $3 }' "$ksyms" >"$tmp/ksyms"

# field NAME LINE: the value of NAME= in LINE.
field() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -n 1; }

# user_syms BINARY BIAS: its function symbols, "ADDRESS B name" at their
# start and "ADDRESS A [user_other]" at their end (user code of other
# files: libc, ld.so, the vDSO), with the load bias.
user_syms() {
	local addr size type name
	nm -S --defined-only "$1" 2>/dev/null | while read -r addr size type name; do
		[ -n "${name:-}" ] || continue
		case "$type" in t | T | w | W) ;; *) continue ;; esac
		printf '%016x B %s\n' $((0x$addr + $2)) "$name"
		printf '%016x A [user_other]\n' $((0x$addr + 0x$size + $2))
	done
}

# window MARK: the plugin's "ADDRESS P COUNT HELD CREDITED LANDED IRQ"
# lines of that window (16 hex digits).
window() {
	awk -v m="$1" '$1 == "mark" { on = ($2 == m); next }
		on { a = $1; while (length(a) < 16) a = "0" a; print a, "P", $2, $3 + 0, $4 + 0, $5 + 0, $6 + 0 }' "$prof"
}

# truth MARK BINARY BIAS: "name count held credited landed irq" by
# function.
truth() {
	{
		echo "0000000000000000 A [user_other]"
		user_syms "$2" "$3"
		cat "$tmp/ksyms"
		window "$1"
	} | LC_ALL=C sort -s -k1,1 -k2,2 |
		awk -v aliases="$aliases" '
		BEGIN { while ((getline l < aliases) > 0) { split(l, a, " "); canon[a[1]] = a[2] } }
		$2 == "A" || $2 == "B" { cur = $3; if (cur in canon) cur = canon[cur]; next }
		$2 == "P" { c[cur] += $3; h[cur] += $4; r[cur] += $5; d[cur] += $6; q[cur] += $7 }
		END { for (s in c) print s, c[s], h[s], r[s], d[s], q[s] }'
}

echo
echo "Each workload ran once with no profiler under the insnprof plugin, and"
echo "once under each profiler, all on one vCPU under -icount shift=0, with a"
echo "timer spinning a random 0 to 5,000 instructions at each firing (against"
echo "phase locking, see bench/floor/floor.c). *instructions*: the leaf's share"
echo "of the instructions executed outside interrupt handlers (one instruction"
echo "is one nanosecond);"
echo "*truth*: its share of where a timer interrupt can land (time run with"
echo "interrupts disabled is credited to the instruction that enables them"
echo "again; the same as instructions where they stay enabled); *landed*:"
echo "where QEMU delivered the interrupts of a 10 kHz timer during that run,"
echo "what a perfect timer-driven sampler gets in this emulator. Errors:"
echo "a profiler's share minus the truth, and minus landed."

summary="$tmp/summary"
: >"$summary"
echo "$workloads" | tr '|' '\n' | while IFS= read -r spec; do
	[ -n "$spec" ] || continue
	wl=${spec%%=*} cmd=${spec#*=}
	bin=${cmd%% *}
	bin=$bins/${bin##*/}
	comm=$(basename "$bin" | cut -c1-15)
	line=$(grep "^@@BENCH prof=none wl=$wl " "$gt/results" | head -n 1)
	timed=$(field timed "$line")
	fs="$art/flamestat-$wl.folded" pf="$art/perf-$wl.folded"
	if [ -z "$timed" ] || [ ! -f "$bin" ] || [ ! -s "$fs" ] || [ ! -s "$pf" ]; then
		echo
		echo "### $wl: not measured (ground truth run: ${timed:+yes}${timed:-no}; flamestat profile: $([ -s "$fs" ] && echo yes || echo no); perf profile: $([ -s "$pf" ] && echo yes || echo no))"
		continue
	fi
	mark=$((2 * timed - 1))
	entry=$(field entry "$(grep "^@@BENCH-ENTRY wl=$wl " "$gt/results" | head -n 1)")
	elf_entry=$(readelf -h "$bin" | sed -n 's/.*Entry point address: *//p')
	bias=0
	if [[ ${entry:-} =~ ^0x[0-9a-f]+$ ]] && [[ $elf_entry =~ ^0x[0-9a-f]+$ ]]; then
		bias=$((entry - elf_entry))
	fi
	truth "$mark" "$bin" "$bias" >"$tmp/truth-$wl"
	awk -v comm="$comm" -v aliases="$aliases" -f "$here/leaves.awk" "$fs" >"$tmp/fs-$wl"
	awk -v comm="$comm" -v aliases="$aliases" -f "$here/leaves.awk" "$pf" >"$tmp/perf-$wl"
	hdr=$(grep "^mark $mark " "$prof")
	echo
	echo "### $wl (\`${cmd#/opt/workloads/}\`)"
	echo
	echo "| leaf | instructions | truth | landed | flamestat | perf | flamestat error | perf error |"
	echo "|---|---|---|---|---|---|---|---|"
	# Rows "max-share leaf instructions truth landed flamestat perf"
	# (shares in %), the 15 largest; the summary gets the largest errors
	# of all.
	awk -v period="$(awk -v f="$freq" 'BEGIN { print 1e9 / f }')" \
		-v wl="$wl" -v summary="$summary" '
		function abs(x) { return x < 0 ? -x : x }
		FNR == 1 { file++ }
		file == 1 { ic[$1] = $2 - $6; vis[$1] = $2 - $3 + $4; ld[$1] = $5
			ti += $2 - $6; tv += $2 - $3 + $4; tl += $5; all[$1] = 1; next }
		file == 2 { a[$1] = $2; ta += $2; all[$1] = 1; next }
		file == 3 { b[$1] = $2; tb += $2; all[$1] = 1; next }
		END {
			for (l in all) {
				si = ti ? 100 * ic[l] / ti : 0
				sv = tv ? 100 * vis[l] / tv : 0
				sl = tl ? 100 * ld[l] / tl : 0
				sa = ta ? 100 * a[l] / ta : 0
				sb = tb ? 100 * b[l] / tb : 0
				m = sv; if (sa > m) m = sa; if (sb > m) m = sb; if (si > m) m = si; if (sl > m) m = sl
				if (abs(sa - sv) > wa) { wa = abs(sa - sv); wla = l }
				if (abs(sb - sv) > wb) { wb = abs(sb - sv); wlb = l }
				if (abs(sa - sl) > xa) xa = abs(sa - sl)
				if (abs(sb - sl) > xb) xb = abs(sb - sl)
				if (abs(sl - sv) > ql) { ql = abs(sl - sv); qll = l }
				if (sv > top) top = sv
				printf "%.6f %s %.4f %.4f %.4f %.4f %.4f\n", m, l, si, sv, sl, sa, sb
			}
			p = top / 100
			se = ta ? 100 * sqrt(p * (1 - p) / ta) : 0
			sel = tl ? 100 * sqrt(p * (1 - p) / tl) : 0
			printf "%s %.2f %s %.2f %s %.2f %.2f %.2f %s %d %d %d %.2f %.2f %.1f\n", wl, wa, wla, wb, wlb,
				xa, xb, ql, qll, ta, tb / period, tl, se, sel, top >> summary
		}' "$tmp/truth-$wl" "$tmp/fs-$wl" "$tmp/perf-$wl" | sort -rn | head -n 15 |
		awk '{ printf "| %s | %.2f%% | %.2f%% | %.2f%% | %.2f%% | %.2f%% | %+.2f / %+.2f pp | %+.2f / %+.2f pp |\n",
			$2, $3, $4, $5, $6, $7, $6 - $4, $6 - $5, $7 - $4, $7 - $5 }'
	read -r _ wa wla wb wlb xa xb ql qll n nb tl se sel top < <(grep "^$wl " "$summary")
	echo
	echo "$n flamestat samples, about $nb perf samples (its weight / the period), $tl"
	echo "interrupts landed. Largest error against the truth: flamestat $wa pp ($wla),"
	echo "perf $wb pp ($wlb); against landed: flamestat $xa pp, perf $xb pp; landed"
	echo "against the truth: $ql pp ($qll). Sampling noise (one standard deviation"
	echo "of the largest leaf, $top%, in independent random samples): $se pp at $n,"
	echo "$sel pp at $tl."
	echo "Ground-truth window: $(field user "$hdr") user and $(field kernel "$hdr") kernel instructions, of which"
	echo "$(field interrupted "$hdr") in interrupt handlers (left out)."
	if "$bin" -c >"$tmp/percall-$wl" 2>/dev/null && [ -s "$tmp/percall-$wl" ]; then
		loops=$(echo "$cmd" | sed -n 's/.* -l \([0-9]*\).*/\1/p')
		echo "As built and as counted: $(awk -v loops="${loops:-0}" '
			FNR == NR { c[$1] = $2; next }
			{
				calls = c[$1] / $2
				ok = (calls == loops && c[$1] % $2 == 0)
				printf "%s%s %d instructions a call x %d calls = %.0f%s", n++ ? "; " : "", $1, $2, loops, c[$1], ok ? "" : " (NOT " calls " calls)"
			}' "$tmp/truth-$wl" "$tmp/percall-$wl")."
	fi
done
[ -s "$summary" ] || { echo "truth-report: nothing to compare" >&2; exit 1; }
echo
echo "### Summary: largest leaf-share error"
echo
echo "| workload | flamestat vs truth | perf vs truth | flamestat vs landed | perf vs landed | landed vs truth | samples (flamestat) |"
echo "|---|---|---|---|---|---|---|"
awk '{ printf "| %s | %.2f pp (%s) | %.2f pp (%s) | %.2f pp | %.2f pp | %.2f pp (%s) | %d |\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10 }' "$summary"
echo
awk '{ if ($2 > w) w = $2; if ($4 > p) p = $4; if ($6 > wl) wl = $6; if ($7 > pl) pl = $7 }
	END { printf "Largest over every workload: flamestat %.2f pp from the truth (target <= 1: %s) and %.2f pp from landed; perf %.2f and %.2f pp.\n", w, w <= 1 ? "met" : "MISSED", wl, p, pl }' "$summary"
