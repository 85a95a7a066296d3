#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vhost's worker "vhost-PID" is sampled as a kernel thread: it runs with
# the owner's mm but only kernel code, its user registers are not its own,
# so none of its stacks has a user frame (device text, snapshot, flamestat
# record) and its kernel frames are vhost's. A kthread before 6.4
# (PF_KTHREAD), a thread of the owner from 6.4 (vhost_task,
# PF_USER_WORKER). tests/workloads/vhostnet keeps a vhost-net TX ring full.
# timeout: 120
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

SECS=4
# Samples of the worker below which the test proves nothing (a busy
# worker for SECS s at 997 Hz gives thousands).
MIN=300
# Frames of vhost's worker loop and TX path: vhost_worker (the kthread,
# before 6.4), vhost_task_fn and vhost_run_work_list (vhost_task), and
# handle_tx_kick/handle_tx/handle_tx_copy of vhost_net; a module's symbol
# carries its module, "handle_tx [vhost_net]" (the device's text writes
# the space as "_").
VHOST_RE='(vhost_worker|vhost_task_fn|vhost_run_work(_kthread)?_list|handle_tx[a-z_]*)([ _]\[vhost(_net)?\])?_\[k\]'
PF_USER_WORKER=16384 # 0x4000
PF_KTHREAD=2097152   # 0x200000
KTHREAD_FLAG=64      # FLAMESTAT_STACKF_KERNEL_THREAD

# Every kernel of the matrix is Debian's, all with vhost_net as a module
# (mkinitramfs.sh copies it with tun and tap): missing is a failure. The
# debug kernel has them built in (its /proc/config.gz says so; a built-in
# tun has no /sys/module entry).
is_builtin() { zcat /proc/config.gz 2>/dev/null | grep -qx "CONFIG_$1=y"; }
for m in vhost_net:VHOST_NET tun:TUN; do
	[ -d "/sys/module/${m%%:*}" ] && continue
	is_builtin "${m#*:}" && continue
	_o=$(modprobe "${m%%:*}" 2>&1) ||
		die "modprobe ${m%%:*}: $_o: this kernel ($(uname -r)) has no ${m%%:*} module in the initramfs (tests/vm/mkinitramfs.sh copies drivers/vhost/vhost_net.ko and drivers/net/tun.ko from its modules)"
done
check "/dev/vhost-net exists" test -c /dev/vhost-net
check "/dev/net/tun exists" test -c /dev/net/tun

# worker OUT: "TID PID FLAGS" from the workload's "worker TID
# comm=vhost-PID flags=0xF" line.
worker() {
	awk '$1 == "worker" {t = $2; p = $3; sub(/^comm=vhost-/, "", p)
		f = $4; sub(/^flags=/, "", f); print t, p, f; exit}' "$1"
}

# check_folded NAME FILE PID: the worker's samples in FILE (folded): how
# many, how many with a user frame (a frame after comm without _[k]; the
# user frames come first), how many with a vhost frame.
check_folded() {
	_re="^vhost-$3;"
	_n=$(fs_sum "$2" "$_re")
	fs_user_frames "$2" "$_re" >"$FS_TMP/$1.user"
	_u=$(awk '$1 == "total" {print $2}' "$FS_TMP/$1.user")
	_v=$(fs_sum "$2" "${_re}(.*;)?$VHOST_RE")
	log "$1: $_n samples of vhost-$3, $_u with user frames, $_v with vhost frames"
	grep "$_re" "$2" | awk '{print $NF, $0}' | sort -k1,1 -n -r | head -n 4 |
		sed 's/^[0-9]* /#   /'
	grep -v '^total ' "$FS_TMP/$1.user" | sort -rn | head -n 5 | sed 's/^/#   user frame: /'
	expect_ge "$1: the worker vhost-$3 sampled" "$_n" "$MIN"
	expect_eq "$1: no user frame in the worker's stacks" "$_u" 0
	# The control: user stacks are walked in this recording, vhostnet's
	# own samples (the same mm, refilling the ring between polls) have
	# user frames. How often vhostnet runs varies (58 to 1,888 samples
	# with user frames seen), so the floor is low.
	_o=$(fs_user_frames "$2" '^vhostnet;' | awk '$1 == "total" {print $2}')
	expect_ge "$1: vhostnet's own samples have user frames" "$_o" 10
	# Kernel names are visible here (no lockdown): nearly every stack
	# reaches the worker loop or the TX path.
	expect_ge "$1: vhost frames in >= 90% of the worker's stacks (x10 vs x9)" \
		$((_v * 10)) $((_n * 9))
}

fs_load
wl_bg vhostnet "$SECS" >"$FS_TMP/vhostnet.out" 2>&1
check "vhostnet" wl_wait
check "stop" fs_write stop
fs_read "$FS_TMP/vhost.folded"
"$FS_WL/snapdump" >"$FS_TMP/vhost.dump" 2>&1 || not_ok "snapdump: $(head -n 1 "$FS_TMP/vhost.dump")"
artifact "$FS_TMP/vhost.folded"
artifact "$FS_TMP/vhost.dump"
sed 's/^/# vhostnet: /' "$FS_TMP/vhostnet.out"
# shellcheck disable=SC2046 # three fields
set -- $(worker "$FS_TMP/vhostnet.out")
[ $# = 3 ] || die "vhostnet did not name its worker"
tid=$1 pid=$2 flags=$(($3))
if [ $((flags & PF_USER_WORKER)) != 0 ]; then
	kind="PF_USER_WORKER (a thread of vhostnet)"
	owner=$pid
elif [ $((flags & PF_KTHREAD)) != 0 ]; then
	kind="PF_KTHREAD"
	owner=$tid
else
	kind=""
fi
log "worker tid $tid of vhostnet $pid, flags $3: ${kind:-neither PF_KTHREAD nor PF_USER_WORKER}"
check "the worker is PF_KTHREAD or PF_USER_WORKER" test -n "$kind"

check_folded text "$FS_TMP/vhost.folded" "$pid"

# The snapshot: every stack of the worker is marked KERNEL_THREAD, has no
# user frame (nu=0), and belongs to the worker's process (vhostnet's from
# 6.4, the kthread's own before).
awk -v comm="vhost-$pid" -v kt=$KTHREAD_FLAG "$FS_AWK_HEX$FS_AWK_FIELDS"'
	$1 == "stack" { fields(f); if (f["comm"] != comm) next
		c = f["count"]; n += c
		if (f["nu"] != 0) u += c
		if (int(hex(f["flags"]) / kt) % 2 == 0) k += c
		tg[f["tgid"]] += c }
	END { t = ""; for (g in tg) t = t " " g
		print n + 0, u + 0, k + 0, substr(t, 2) }' "$FS_TMP/vhost.dump" >"$FS_TMP/snap.sum"
read -r sn su sk stg <"$FS_TMP/snap.sum"
log "snapshot: $sn samples of vhost-$pid, $su with user frames, $sk not KERNEL_THREAD, tgid $stg"
expect_ge "snapshot: the worker sampled" "$sn" "$MIN"
expect_eq "snapshot: no user frame (nu=0)" "$su" 0
expect_eq "snapshot: every stack marked KERNEL_THREAD" "$sk" 0
expect_eq "snapshot: the worker's tgid" "$stg" "${owner:-?}"

# flamestat record, whole system (before 6.4 the worker is no child of
# vhostnet): the tool's folded output.
wl_bg vhostnet $((SECS + 4)) >"$FS_TMP/vhostnet2.out" 2>&1
i=0
until grep -q '^worker ' "$FS_TMP/vhostnet2.out" || [ $i -ge 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
# shellcheck disable=SC2046 # three fields
set -- $(worker "$FS_TMP/vhostnet2.out")
[ $# = 3 ] || die "vhostnet (second run) did not name its worker: $(cat "$FS_TMP/vhostnet2.out")"
check "record -d $SECS" flamestat record -q -d "$SECS" -o "$FS_TMP/record.folded"
check "vhostnet (second run)" wl_wait
artifact "$FS_TMP/record.folded"
check_folded record "$FS_TMP/record.folded" "$2"

check "unload" fs_unload
finish
