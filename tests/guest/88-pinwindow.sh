#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The module pins a sampled address space (mm_users, from hard-irq) until
# its worker has read the maps it ended with (within 100 ms of its first
# scan, sooner when it exits first): while it does, an exited program's binary
# is still mapped, so rewriting it fails with ETXTBSY and its file system
# cannot be unmounted (EBUSY). That window must stay short. A program run
# from a tmpfs of its own is sampled and exits; right after, the binary is
# rewritten and the tmpfs unmounted, retried every 10 ms: each must succeed
# within a second (4 s on the debug kernel), with sampling on, twenty
# times.
# timeout: 180
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

MNT=/mnt/fspin
ROUNDS=20
mkdir -p "$MNT"

# until_ok MAXMS CMD...: retries CMD every 10 ms; prints the milliseconds
# it took, or fails after MAXMS.
until_ok() {
	_max=$1
	shift
	_t0=$(now_ms)
	until "$@" 2>/dev/null; do
		[ $(($(now_ms) - _t0)) -ge "$_max" ] && return 1
		sleep 0.01
	done
	echo $(($(now_ms) - _t0))
}

# The debug kernel (KASAN, kmemleak) runs everything several times slower
# under TCG; its time limits are scaled the same way (check.sh --scale 4).
limit=1000
fs_debug_kernel && limit=4000
give_up=$((2 * limit))

fs_load
worst_w=0 worst_u=0 fails=0
i=0
while [ $i -lt $ROUNDS ]; do
	i=$((i + 1))
	mount -t tmpfs -o size=16m fspin "$MNT" || die "mount tmpfs on $MNT"
	cp "$FS_WL/chain" "$MNT/prog"
	"$MNT/prog" 0.3 || not_ok "round $i: the program failed"
	if w=$(until_ok "$give_up" sh -c ": >'$MNT/prog'"); then
		[ "$w" -gt "$worst_w" ] && worst_w=$w
	else
		fails=$((fails + 1))
		log "round $i: $MNT/prog still busy $give_up ms after its exit"
	fi
	if u=$(until_ok "$give_up" umount "$MNT"); then
		[ "$u" -gt "$worst_u" ] && worst_u=$u
	else
		fails=$((fails + 1))
		log "round $i: $MNT still busy $give_up ms after the program's exit"
		umount -l "$MNT"
	fi
done
log "$ROUNDS rounds: rewrite waited at most $worst_w ms, umount at most $worst_u ms"
expect_eq "the binary and its file system were freed within $give_up ms in every round" "$fails" 0
expect_le "rewrite after exit within $limit ms (worst round, ms)" "$worst_w" "$limit"
expect_le "umount after exit within $limit ms (worst round, ms)" "$worst_u" "$limit"
fs_read "$FS_TMP/all.folded"
expect_ge "the programs were sampled (prog's samples)" "$(fs_sum "$FS_TMP/all.folded" '^prog;')" "$ROUNDS"
check "unload" fs_unload
finish
