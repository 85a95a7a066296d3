#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A claim lasts as long as its file is open: a member of the device's group
# (the udev rule's) recording for a long time keeps everyone out. Another member is refused
# (busy), even with --force (not root); root's --force takes the profiler
# over and records; the member's recording then ends saying so, with exit
# status 6 and no output of someone else's samples.
# timeout: 180
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

FS=flamestat
command -v $FS >/dev/null || die "no flamestat tool in the guest"
as() { su -s /bin/sh "$1" -c "$2"; }

# fsuser writes its files here.
U=$FS_TMP/fsuser
mkdir -p "$U" && chmod 777 "$U"
fs_load autostart=0
check "the udev rule" fs_udev_rule
wl_bg chain 20
as fsuser "$FS record -q -d 12 -o $U/member.folded 2>$U/member.err; echo \$? >$U/member.rc" &
holder=$!
i=0
until [ "$(fs_stat running)" = 1 ] || [ $i -ge 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
expect_eq "the member's recording runs" "$(fs_stat running)" 1

as fsuser "$FS record -q -d 1 -o /dev/null" >"$FS_TMP/busy.out" 2>&1
expect_eq "a second member: busy (6)" "$?" 6
check "it says how to take over" grep -q -- "--force" "$FS_TMP/busy.out"
as fsuser "$FS record --force -q -d 1 -o /dev/null" >"$FS_TMP/noroot.out" 2>&1
expect_eq "--force as a group member: refused (3)" "$?" 3
check "it says root is needed" grep -q "needs root" "$FS_TMP/noroot.out"

$FS record --force -d 2 -o "$FS_TMP/root.folded" >"$FS_TMP/root.out" 2>&1
expect_eq "root's --force records (0)" "$?" 0
sed 's/^/#   /' "$FS_TMP/root.out" | head -n 5
check "it says it took over" grep -q "took the profiler over" "$FS_TMP/root.out"
expect_ge "root's recording has chain" "$(fs_sum "$FS_TMP/root.folded" '^chain;')" 100

wait "$holder"
expect_eq "the member's recording: taken over (6)" "$(cat "$U/member.rc")" 6
log "member: $(cat "$U/member.err")"
check "the member is told" grep -q "took the profiler over" "$U/member.err"
check "the member wrote no output" sh -c "! [ -s '$U/member.folded' ]"
wl_wait
check "unload" fs_unload
finish
