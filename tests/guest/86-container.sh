#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A program that exists only inside a private root -- a mount namespace of
# its own (unshare -m) with a tmpfs, chrooted into, as a container runs --
# is sampled from outside. The module reads its maps in its own worker and
# records its files as the program names them, relative to its root
# (/bin/ctrprog, not the host's view of that tmpfs), with its root and
# mount namespace; the tool opens them through /proc/PID/root while the
# program lives, and says what it cannot find once the program has exited.
# A reader's own root never shows in the paths: the host's cat forces the
# rescans here.
# timeout: 240
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

FS=/usr/bin/flamestat
C=/tmp/ctr
SECS=8
mkdir -p "$C"
fs_load

# The container: its own mount namespace, a tmpfs root with the program,
# its loader and its libc, chrooted into. Nothing of it is visible here.
case $(uname -m) in
aarch64) libs="/lib/ld-linux-aarch64.so.1 /lib/aarch64-linux-gnu/libc.so.6" ;;
*) libs="/lib64/ld-linux-x86-64.so.2 /lib/x86_64-linux-gnu/libc.so.6" ;;
esac
# shellcheck disable=SC2016 # expanded by the inner shell
unshare -m sh -c '
	set -e
	mount -t tmpfs ctr "$1"
	mkdir -p "$1/bin"
	cp "$2" "$1/bin/ctrprog"
	for f in $4; do
		mkdir -p "$1${f%/*}"
		cp "$f" "$1$f"
	done
	exec chroot "$1" /bin/ctrprog "$3"' ctr "$C" "$FS_WL/chain" "$SECS" "$libs" &
pid=$!
sleep 1
[ -e "$C/bin/ctrprog" ] && not_ok "the container's tmpfs is visible outside it"
[ "$(readlink "/proc/$pid/ns/mnt")" != "$(readlink /proc/self/ns/mnt)" ] ||
	not_ok "the program has its own mount namespace"
ok "container started (pid $pid, $(readlink "/proc/$pid/ns/mnt"))"

# Rescans forced by a reader in the host's root.
cat "$FS_DEV" >/dev/null
check "record -p the container's program" $FS record -q -p "$pid" -d 3 \
	--raw "$FS_TMP/ctr.fstat" -o "$FS_TMP/ctr.folded"
"$FS_WL/snapdump" >"$FS_TMP/ctr.dump" 2>&1 || not_ok "snapdump failed: $(head -n 3 "$FS_TMP/ctr.dump")"
artifact "$FS_TMP/ctr.folded"
artifact "$FS_TMP/ctr.dump"

total=$(fs_sum "$FS_TMP/ctr.folded" '^ctrprog;')
named=$(fs_sum "$FS_TMP/ctr.folded" '^ctrprog;(.*;)?main;outer;middle;hot_leaf(;[^;]*_\[k\])*$')
log "ctrprog: $total samples, $named in main;outer;middle;hot_leaf by name"
grep '^ctrprog;' "$FS_TMP/ctr.folded" | sort -k2 -n -r -t' ' | head -n 3 | sed 's/^/#   /'
expect_ge "record: the container's program sampled" "$total" 100
expect_ge "record: >= 90% named main;outer;middle;hot_leaf through /proc/PID/root (x10 vs x9)" \
	$((named * 10)) $((total * 9))

# The records: the program's path as it names it, its root and namespace.
grep -q ' path=/bin/ctrprog$' "$FS_TMP/ctr.dump" ||
	not_ok "FILE record /bin/ctrprog (got: $(grep -o 'path=[^ ]*ctrprog' "$FS_TMP/ctr.dump" | head -n 1))"
grep -q "path=$C/" "$FS_TMP/ctr.dump" && not_ok "a path as the host sees the container's tmpfs"
ns=$(readlink "/proc/$pid/ns/mnt" | tr -dc 0-9)
proc=$(awk -v t="$pid" '$1 == "proc" && $3 == "tgid=" t' "$FS_TMP/ctr.dump")
log "its record: $proc"
case "$proc" in
*" mnt_ns=$ns "*) ok "PROC record names its mount namespace ($ns)" ;;
*) not_ok "PROC record names its mount namespace $ns" ;;
esac
flags=$(echo "$proc" | sed -n 's/.* flags=\(0x[0-9a-f]*\) .*/\1/p')
expect_eq "PROC record has OWN_ROOT ($flags)" $((flags & 8)) 8
check "the container's program exits 0" wait "$pid"

# After its exit, nothing reaches the container's files: said, and the
# frames stay file+offset (never the host's file of the same name).
$FS fold "$FS_TMP/ctr.fstat" >"$FS_TMP/after.folded" 2>"$FS_TMP/after.err"
log "fold after exit said: $(head -n 2 "$FS_TMP/after.err")"
check "fold after the exit says the program's file is out of reach" \
	grep -q "/bin/ctrprog: not found: it is in the root of process $pid (ctrprog)" "$FS_TMP/after.err"
expect_ge "fold after the exit: its frames stay ctrprog+0x..." \
	"$(fs_sum "$FS_TMP/after.folded" '^ctrprog;(.*;)?ctrprog\+0x[0-9a-f]+(;|$)')" 100
check "unload" fs_unload
finish
