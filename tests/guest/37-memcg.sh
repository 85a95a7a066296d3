#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What a reader makes the module allocate (its copy of the table for cat,
# a snapshot) is charged to the reader's memory cgroup, as BPF maps are:
# a reader in a cgroup whose memory.max leaves no room for the copy gets
# a clear ENOMEM, without waking the OOM killer, while the same read
# outside it succeeds; nothing stays charged after the read.
# timeout: 180
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

CG=/sys/fs/cgroup
[ -f "$CG/cgroup.controllers" ] || mount -t cgroup2 none "$CG" || die "mount cgroup2"
grep -qw memory "$CG/cgroup.controllers" || die "no memory controller in cgroup v2"
echo +memory >"$CG/cgroup.subtree_control" 2>/dev/null
grep -qw memory "$CG/cgroup.subtree_control" || die "cannot enable the memory controller"
R=$CG/fs-reader
mkdir -p "$R" || die "mkdir $R"

# A table of many unique stacks: a copy of several MiB.
fs_load table_kb=32768
# A merged table whose copy needs well over the reader's 1 MiB of room:
# 6,000 stacks of 40-odd frames, about 2.5 MB (a loaded host gives uniq
# fewer samples a second: it runs again until they are there).
i=0
while [ "$(fs_stat stacks)" -lt 6000 ] && [ $i -lt 8 ]; do
	wl uniq -d 40 4 || not_ok "uniq exited with status $?"
	i=$((i + 1))
done
check "stop" fs_write stop
used=$(fs_stat mem_used)
log "stacks $(fs_stat stacks), mem_used $used bytes"
check "read outside the cgroup" fs_read "$FS_TMP/out.folded"
expect_ge "the table holds what a copy needs to be large (stacks)" "$(fs_stat stacks)" 6000

# In the cgroup: the shell that reads is moved there first; its limit is
# what it uses already plus 1 MiB, less than the copy.
cat >"$FS_TMP/reader.sh" <<EOF
echo \$\$ >"$R/cgroup.procs" || exit 90
cur=\$(cat "$R/memory.current")
echo \$((cur + 1048576)) >"$R/memory.max" || exit 91
cat "$FS_DEV" >/dev/null 2>"$FS_TMP/in.err"
echo "cat=\$?"
"$FS_WL/snapdump" >"$FS_TMP/in.dump" 2>&1
echo "snapshot=\$?"
echo max >"$R/memory.max"
EOF
sh "$FS_TMP/reader.sh" >"$FS_TMP/reader.out" 2>&1
sed 's/^/#   /' "$FS_TMP/reader.out"
log "cat said: $(cat "$FS_TMP/in.err")"
log "snapdump said: $(head -n 1 "$FS_TMP/in.dump")"
expect_eq "cat in the cgroup: refused" "$(sed -n 's/^cat=//p' "$FS_TMP/reader.out")" 1
check "cat in the cgroup: ENOMEM" grep -q "Cannot allocate memory\|Out of memory" "$FS_TMP/in.err"
check "snapshot in the cgroup: refused" sh -c "! grep -qx 'snapshot=0' '$FS_TMP/reader.out'"
check "the OOM killer stayed asleep" sh -c "! grep -q oom_kill '$R/memory.events' || grep -q 'oom_kill 0' '$R/memory.events'"
log "memory.events: $(tr '\n' ' ' <"$R/memory.events")"
expect_le "nothing stays charged after the reads (bytes)" "$(cat "$R/memory.current")" 1048576
check "read outside the cgroup again" fs_read "$FS_TMP/out2.folded"
check "unload" fs_unload
rmdir "$R" 2>/dev/null
finish
