#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Nothing a file system does can wedge the module or the tool. Programs run
# from a FUSE file system of ours (tests/workloads/fsfuse: direct I/O, so
# every read is a request to its server) are sampled while the server is
# stopped (SIGSTOP: an NFS or FUSE server that stopped answering), then
# while every read fails with EIO (a failing device). Reading the device,
# the stats and a snapshot, stopping, flamestat record and rmmod must all
# finish within seconds; the programs' frames keep file and offset; a
# build-id whose pages are not in the page cache is counted
# (buildid_uncached), never read from the server.
# timeout: 300
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

MNT=/mnt/fsfuse
SRC=$FS_TMP/backing
fuse_pid=""

# shellcheck disable=SC2317 # run by the EXIT trap
stuck_cleanup() {
	for _p in $FS_BG; do
		kill -9 "$_p" 2>/dev/null
	done
	FS_BG=""
	if [ -n "$fuse_pid" ]; then
		kill -CONT "$fuse_pid" 2>/dev/null
		kill "$fuse_pid" 2>/dev/null
		wait "$fuse_pid" 2>/dev/null
	fi
	umount -l "$MNT" 2>/dev/null
	fs_cleanup
}
trap stuck_cleanup EXIT

# within SECS DESC CMD...: CMD must succeed, and within SECS seconds.
within() {
	_s=$1 _d=$2
	shift 2
	_t0=$(now_ms)
	if timeout "$_s" "$@" >"$FS_TMP/.within" 2>&1; then
		ok "$_d ($(($(now_ms) - _t0)) ms)"
	else
		not_ok "$_d: failed or took more than $_s s (status $?)"
		tail -n 10 "$FS_TMP/.within" | sed 's/^/#   /'
	fi
}

# file_field PATH FIELD: FIELD of the snapshot's FILE record for PATH.
file_field() {
	awk -v p="path=$1" -v f="$2=" '$1 == "file" && $NF == p {
		for (i = 1; i <= NF; i++) if (index($i, f) == 1) print substr($i, length(f) + 1) }' \
		"$FS_TMP/snap.dump"
}

# phase NAME: the module and the tool against the file system as it is.
phase() {
	_n=$1
	check "$_n: load the module" fs_load
	sleep 2
	within 10 "$_n: cat $FS_DEV" sh -c "cat $FS_DEV >'$FS_TMP/$_n.folded'"
	within 10 "$_n: the stats" cat "$FS_STATS"
	within 10 "$_n: a snapshot" sh -c "'$FS_WL/snapdump' >'$FS_TMP/snap.dump'"
	artifact "$FS_TMP/$_n.folded"
	artifact "$FS_TMP/snap.dump" "$_n.dump"
	n=$(fs_sum "$FS_TMP/$_n.folded" '^chain;(.*;)?chain\+0x[0-9a-f]+(;.*)?$')
	expect_ge "$_n: chain run from FUSE sampled, its frames as chain+0xOFF" "$n" 1
	expect_eq "$_n: FILE record of $MNT/chain" "$(file_field "$MNT/chain" id | wc -l)" 1
	# chain's note is in a page its own start-up touched (cached, so
	# read); nothing ever touched libfsbusy.so's (no sample lands in it,
	# so the snapshot has no FILE record of it: the counter shows it).
	log "$_n: $MNT/chain build-id: $(file_field "$MNT/chain" build_id)"
	expect_ge "$_n: libfsbusy.so's build-id, not in the page cache, counted" \
		"$(fs_stat buildid_uncached)" 1
	log "$_n: maps_busy $(fs_stat maps_busy)"
	within 10 "$_n: stop (drain)" sh -c "printf stop >$FS_DEV"
	within 10 "$_n: rmmod" rmmod flamestat

	# The tool: it loads the module, records, names what it can read.
	within 60 "$_n: flamestat record" flamestat record -q -d 1 -o "$FS_TMP/$_n-rec.folded"
	sed 's/^/#   /' "$FS_TMP/.within" | head -n 5
	artifact "$FS_TMP/$_n-rec.folded"
	n=$(fs_sum "$FS_TMP/$_n-rec.folded" '^chain;(.*;)?chain\+0x[0-9a-f]+(;.*)?$')
	expect_ge "$_n: record: chain's frames as chain+0xOFF" "$n" 1
	within 10 "$_n: rmmod after record" rmmod flamestat
}

grep -qw fuse /proc/filesystems || modprobe fuse ||
	die "modprobe fuse (fs/fuse/fuse.ko in the initramfs)"
mkdir -p "$MNT" "$SRC"
cp "$FS_WL/chain" "$FS_WL/libfsbusy.so" "$SRC/" || die "cannot stage the files"
"$FS_WL/fsfuse" "$SRC" "$MNT" 2>"$FS_TMP/fsfuse.err" &
fuse_pid=$!
i=0
until grep -q " $MNT fuse" /proc/mounts || [ $i -ge 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
grep -q " $MNT fuse" /proc/mounts || die "fsfuse did not mount $MNT: $(cat "$FS_TMP/fsfuse.err")"
ok "fsfuse serves $MNT"

# Started while the server answers: exec reads chain through it; execmap
# maps libfsbusy.so executable and never touches a page of it.
"$MNT/chain" 120 &
FS_BG="$FS_BG $!"
wl_bg execmap "$MNT/libfsbusy.so" 120
sleep 1

check "stop the server (SIGSTOP)" kill -STOP "$fuse_pid"
phase stopped

check "let it run again (SIGCONT)" kill -CONT "$fuse_pid"
check "then every read fails (SIGUSR1)" kill -USR1 "$fuse_pid"
check "reads fail with EIO" sh -c "! dd if='$MNT/libfsbusy.so' of=/dev/null bs=4096 count=1 2>/dev/null"
phase eio
finish
