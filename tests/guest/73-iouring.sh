#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# io_uring's io-wq workers are sampled as kernel threads: they run with
# the submitter's mm but only kernel code, their user registers are not
# their own (a copy of the creator's with ip and sp zeroed, on 6.1), so
# none of their stacks has a user frame (device text, snapshot, flamestat
# record) and their kernel frames are io-wq's. Threads "iou-wrk-PID" of
# the submitter from 5.12 and 5.10.162 (PF_IO_WORKER; PF_USER_WORKER too
# from 6.4, which alone would hide a lost PF_IO_WORKER test there), kernel
# threads "io_wqe_worker-N" before (PF_KTHREAD). tests/workloads/iouring
# keeps forced-async reads of /dev/zero in flight.
# timeout: 120
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

SECS=4
# Samples of the workers below which the test proves nothing (busy
# workers for SECS s at 997 Hz give thousands).
MIN=300
# Frames of io-wq's worker loop: io_wqe_worker (io_wq_worker from 6.4),
# io_worker_handle_work, and io_uring's io_wq_submit_work (io_uring is
# built in: no module suffix).
IOWQ_RE='(io_wqe?_worker|io_worker_handle_work|io_wq_submit_work)_\[k\]'
PF_IO_WORKER=16      # 0x10
PF_USER_WORKER=16384 # 0x4000
PF_KTHREAD=2097152   # 0x200000
KTHREAD_FLAG=64      # FLAMESTAT_STACKF_KERNEL_THREAD

if [ -r /proc/sys/kernel/io_uring_disabled ]; then
	_d=$(cat /proc/sys/kernel/io_uring_disabled)
	[ "$_d" = 0 ] || die "kernel.io_uring_disabled is $_d on $(uname -r): io_uring is off"
fi

# workers OUT: "PID FLAGS COMM" from the workload's "pid PID" line and
# its first "worker TID comm=COMM flags=0xF" line.
workers() {
	awk '$1 == "pid" {p = $2}
		$1 == "worker" && !c {c = $3; sub(/^comm=/, "", c)
			f = $4; sub(/^flags=/, "", f)}
		END {if (p != "" && c != "") print p, f, c}' "$1"
}

# worker_re FLAGS PID: the folded stacks' start for the workers of PID.
worker_re() {
	if [ $(($1 & PF_IO_WORKER)) != 0 ]; then
		echo "^iou-wrk-$2;"
	else
		echo '^io_wqe_worker-[0-9]+;'
	fi
}

# check_folded NAME FILE RE: the workers' samples in FILE (folded; RE
# their stacks' start): how many, how many with a user frame (a frame
# after comm without _[k]; the user frames come first), how many with an
# io-wq frame.
check_folded() {
	_re=$3
	_n=$(fs_sum "$2" "$_re")
	fs_user_frames "$2" "$_re" >"$FS_TMP/$1.user"
	_u=$(awk '$1 == "total" {print $2}' "$FS_TMP/$1.user")
	_v=$(fs_sum "$2" "${_re}(.*;)?$IOWQ_RE")
	log "$1: $_n samples of the workers ($_re), $_u with user frames, $_v with io-wq frames"
	grep -E "$_re" "$2" | awk '{print $NF, $0}' | sort -k1,1 -n -r | head -n 4 |
		sed 's/^[0-9]* /#   /'
	grep -v '^total ' "$FS_TMP/$1.user" | sort -rn | head -n 5 | sed 's/^/#   user frame: /'
	# The workers' stacks with a user frame, kernel part included (where
	# the worker was: exiting, say).
	grep -E "$_re" "$2" | awk '{n = split($0, f, ";")
		for (i = 2; i <= n; i++) if (f[i] !~ /_\[k\]( [0-9]+)?$/) { print; next }}' |
		head -n 4 | sed 's/^/#   with user frames: /'
	expect_ge "$1: the workers sampled" "$_n" "$MIN"
	expect_eq "$1: no user frame in the workers' stacks" "$_u" 0
	# The control: user stacks are walked in this recording, the
	# submitter's own samples (the same mm: submitting, reaping, checking
	# and poisoning buffers) have user frames.
	_o=$(fs_user_frames "$2" '^iouring;' | awk '$1 == "total" {print $2}')
	expect_ge "$1: iouring's own samples have user frames" "$_o" 10
	# Kernel names are visible here (no lockdown): nearly every stack
	# reaches the worker loop.
	expect_ge "$1: io-wq frames in >= 90% of the workers' stacks (x10 vs x9)" \
		$((_v * 10)) $((_n * 9))
}

fs_load
wl_bg iouring "$SECS" >"$FS_TMP/iouring.out" 2>&1
check "iouring" wl_wait
check "stop" fs_write stop
fs_read "$FS_TMP/iouring.folded"
"$FS_WL/snapdump" >"$FS_TMP/iouring.dump" 2>&1 || not_ok "snapdump: $(head -n 1 "$FS_TMP/iouring.dump")"
artifact "$FS_TMP/iouring.folded"
artifact "$FS_TMP/iouring.dump"
sed 's/^/# iouring: /' "$FS_TMP/iouring.out"
# shellcheck disable=SC2046 # three fields
set -- $(workers "$FS_TMP/iouring.out")
[ $# = 3 ] || die "iouring did not name its pid and a worker"
pid=$1 flags=$(($2)) comm=$3
if [ $((flags & PF_IO_WORKER)) != 0 ]; then
	kind="PF_IO_WORKER (threads of iouring)"
	[ $((flags & PF_USER_WORKER)) != 0 ] && kind="PF_IO_WORKER|PF_USER_WORKER (threads of iouring)"
	owner=$pid
elif [ $((flags & PF_KTHREAD)) != 0 ]; then
	kind="PF_KTHREAD"
	owner=""
else
	kind=""
fi
log "iouring $pid, worker $comm, flags $2: ${kind:-neither PF_IO_WORKER nor PF_KTHREAD}"
check "the workers are PF_IO_WORKER or PF_KTHREAD" test -n "$kind"
wre=$(worker_re "$flags" "$pid")

check_folded text "$FS_TMP/iouring.folded" "$wre"

# The snapshot: every stack of the workers is marked KERNEL_THREAD, has
# no user frame (nu=0), and belongs to iouring's process (the kthreads'
# own before 5.12).
awk -v re="${wre%;}\$" -v kt=$KTHREAD_FLAG "$FS_AWK_HEX$FS_AWK_FIELDS"'
	$1 == "stack" { fields(f); if (f["comm"] !~ re) next
		c = f["count"]; n += c
		if (f["nu"] != 0) u += c
		if (int(hex(f["flags"]) / kt) % 2 == 0) k += c
		tg[f["tgid"]] += c }
	END { t = ""; for (g in tg) t = t " " g
		print n + 0, u + 0, k + 0, substr(t, 2) }' "$FS_TMP/iouring.dump" >"$FS_TMP/snap.sum"
read -r sn su sk stg <"$FS_TMP/snap.sum"
log "snapshot: $sn samples of the workers, $su with user frames, $sk not KERNEL_THREAD, tgid $stg"
expect_ge "snapshot: the workers sampled" "$sn" "$MIN"
expect_eq "snapshot: no user frame (nu=0)" "$su" 0
expect_eq "snapshot: every stack marked KERNEL_THREAD" "$sk" 0
if [ -n "$owner" ]; then
	expect_eq "snapshot: the workers' tgid is iouring's" "$stg" "$owner"
else
	case " $stg " in
	*" $pid "*) not_ok "snapshot: the workers' tgids are their own: got iouring's ($pid) in '$stg'" ;;
	*) ok "snapshot: the workers' tgids are their own, not iouring's ($stg)" ;;
	esac
fi

# flamestat record, whole system (before 5.12 the workers are no children
# of iouring): the tool's folded output.
wl_bg iouring $((SECS + 4)) >"$FS_TMP/iouring2.out" 2>&1
i=0
until grep -q '^worker ' "$FS_TMP/iouring2.out" || [ $i -ge 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
# shellcheck disable=SC2046 # three fields
set -- $(workers "$FS_TMP/iouring2.out")
[ $# = 3 ] || die "iouring (second run) did not name its pid and a worker: $(cat "$FS_TMP/iouring2.out")"
wre=$(worker_re $(($2)) "$1")
check "record -d $SECS" flamestat record -q -d "$SECS" -o "$FS_TMP/record.folded"
check "iouring (second run)" wl_wait
artifact "$FS_TMP/record.folded"
check_folded record "$FS_TMP/record.folded" "$wre"

check "unload" fs_unload
finish
