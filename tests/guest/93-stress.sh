#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Eight concurrent readers of /dev/flamestat (text in random piece sizes,
# snapshots read in random pieces, statistics, configuration) plus a writer
# (start, stop, reset, freq=N, new configurations, clearing snapshots,
# claims) while workloads run (tests/clients/devstress.c): every text and
# snapshot valid, every counter read balanced. Short 20 s, long 300 s.
# timeout: 300
# timeout-long: 1200
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

SECS=$(fs_size 20 300)
fs_load
wl_bg chain 3600
wl_bg syscalls 3600
wl_bg threads 3600
if wl devstress -r 8 -w -t "$SECS" -s 7 >"$FS_TMP/stress.out" 2>&1; then
	ok "$(tail -n 1 "$FS_TMP/stress.out")"
else
	not_ok "devstress failed"
	grep -E '^FAIL' "$FS_TMP/stress.out" | head -n 20 | sed 's/^/#   /'
fi
sed 's/^/# /' "$FS_TMP/stress.out" | grep -v '^# FAIL'
artifact "$FS_TMP/stress.out"
ops=$(sed -n 's/^devstress:.* ops=\([0-9]*\).*/\1/p' "$FS_TMP/stress.out")
expect_ge "operations done" "${ops:-0}" "$((SECS * 5))"
# Every reader got something done.
expect_eq "readers with no text or no snapshot" \
	"$(awk '/^reader/ && ($4 == "text=0" || $5 == "snapshots=0") {n++} END {print n + 0}' "$FS_TMP/stress.out")" 0
check "balanced" fs_balanced
expect_eq "left sampling" "$(fs_stat running)" 1
check "unload" fs_unload
finish
