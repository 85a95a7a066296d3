#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Waker stacks (issue 14), the module alone (mode=offcpu waker=1): each
# off-CPU stack carries, after "--", the kernel stack of the task that
# woke it (frames_[w], leaf first). In the offcpu workload's pipe
# ping-pong the waker of each side's read is the other side's write
# (pipe_write); a nanosleep's is the hrtimer (hrtimer_wakeup). Times stay
# within 5% of the workload's own. In 56-offcpu's -icount guest (one vCPU)
# for the same reason: under plain TCG with two vCPUs, 5.10's and
# 6.12-rt's guests charged the ping-pong threads CPU time they did not
# use, and the workload's truth (wall less CPU time) came out 6 to 25%
# under flamestat's; in -icount both agree within 0.1%.
# timeout: 150
# vm: name=icount smp=1 icount=1
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

# waked FILE COMM FUNC ERE: ns of COMM's FUNC stacks whose waker part
# (after "--") has a frame matching ERE.
waked() {
	FS_RE="$4" awk -v c="$2" -v f="$3" '{ v = $NF; s = $0; sub(/ [0-9]+$/, "", s)
		n = split(s, a, ";"); if (a[1] != c) next
		hit = 0; w = 0; m = 0
		for (i = 2; i <= n; i++) {
			if (a[i] == "--") { w = 1; continue }
			if (!w && a[i] == f) hit = 1
			if (w && a[i] ~ ENVIRON["FS_RE"]) m = 1
		}
		if (hit && m) t += v }
		END { printf "%.0f\n", t }' "$1"
}

fs_load_offcpu mode=offcpu waker=1
out="$FS_TMP/truth"
check "offcpu -p sleep,pipe runs" sh -c "$FS_WL/offcpu -p sleep,pipe 3 >$out"
sed 's/^/#   /' "$out"
check "stop" fs_write stop
fs_read "$FS_TMP/off.folded"
cp "$FS_STATS" "$FS_TMP/stats"
artifact "$FS_TMP/off.folded"
artifact "$FS_TMP/stats"
grep -v '^#' "$FS_TMP/off.folded" | fs_symbolize >"$FS_TMP/off.sym"
artifact "$FS_TMP/off.sym"
grep '^off-ping;' "$FS_TMP/off.sym" | sort -t' ' -k2 -n -r | head -n 3 | sed 's/^/#   /'

wk=$(grep -c ';--;' "$FS_TMP/off.sym")
bad=$(awk '{s = $0; sub(/ [0-9]+$/, "", s); if (!sub(/.*;--;/, "", s)) next
	n = split(s, a, ";"); for (i = 1; i <= n; i++) if (a[i] !~ /_\[w\]$/) {b++; break}}
	END {print b + 0}' "$FS_TMP/off.sym")
expect_ge "stacks with a waker part" "$wk" 1
expect_eq "waker parts are frames_[w] only" "$bad" 0

for f in ping_read:off-ping pong_read:off-pong; do
	fn=${f%%:*} comm=${f#*:}
	truth=$(fs_truth "$out" "$fn" off_ns)
	got=$(fs_off_ns "$FS_TMP/off.sym" "$comm" "$fn")
	pw=$(waked "$FS_TMP/off.sym" "$comm" "$fn" 'pipe_write_\[w\]$')
	log "$fn: truth $truth ns, flamestat $got ns, $pw ns woken by pipe_write"
	expect_within "$fn: off-CPU time with wakers is the workload's own" "$got" "$truth" 5
	expect_ge "$fn: >= 95% woken by the other side's pipe_write (x100 vs x95)" $((pw * 100)) $((got * 95))
done
for fn in sleep_10ms sleep_30ms; do
	truth=$(fs_truth "$out" "$fn" off_ns)
	got=$(fs_off_ns "$FS_TMP/off.sym" off-sleep "$fn")
	hw=$(waked "$FS_TMP/off.sym" off-sleep "$fn" 'hrtimer_wakeup_\[w\]$')
	log "$fn: truth $truth ns, flamestat $got ns, $hw ns woken by hrtimer_wakeup"
	expect_within "$fn: off-CPU time with wakers is the workload's own" "$got" "$truth" 5
	expect_ge "$fn: >= 95% woken by hrtimer_wakeup (x100 vs x95)" $((hw * 100)) $((got * 95))
done
expect_offcpu_balanced "waker"
check "unload" fs_unload
finish
