#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Deep user stacks: depth 40 is kept whole; depth 300 is cut at the
# user_depth limit (default 127) and marked [truncated], counted in
# user_truncated.
# timeout: 150
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

# recurse frames in the heaviest deepstack stack of a symbolized file
recurse_frames() {
	grep '^deepstack;' "$1" | sort -t' ' -k2 -n -r | head -n 1 |
		awk '{n = gsub(/;recurse/, ""); print n}'
}

fs_load
wl deepstack -d 40 2 || not_ok "deepstack -d 40 exited with status $?"
check "stop" fs_write stop
fs_read "$FS_TMP/d40.folded"
fs_symbolize <"$FS_TMP/d40.folded" >"$FS_TMP/d40.sym"
artifact "$FS_TMP/d40.folded"
n=$(recurse_frames "$FS_TMP/d40.sym")
expect_eq "depth 40: recurse frames in the top stack" "$n" 40
whole=$(fs_sum "$FS_TMP/d40.sym" '^deepstack;(.*;)?main;deep_start;(recurse;){39}recurse;deep_leaf$')
total=$(fs_sum "$FS_TMP/d40.sym" '^deepstack;')
expect_ge "depth 40: most stacks whole from main to deep_leaf (x2)" $((whole * 2)) "$total"
expect_eq "depth 40: user_truncated" "$(fs_stat user_truncated)" 0

check "reset" fs_write "reset
start"
wl deepstack -d 300 2 || not_ok "deepstack -d 300 exited with status $?"
check "stop" fs_write stop
fs_read "$FS_TMP/d300.folded"
fs_symbolize <"$FS_TMP/d300.folded" >"$FS_TMP/d300.sym"
artifact "$FS_TMP/d300.folded"
total=$(fs_sum "$FS_TMP/d300.sym" '^deepstack;')
trunc=$(fs_sum "$FS_TMP/d300.sym" '^deepstack;\[truncated\];')
log "depth 300: $total samples, $trunc marked [truncated]"
grep '^deepstack;' "$FS_TMP/d300.sym" | sort -t' ' -k2 -n -r | head -n 1 | cut -c 1-300 | sed 's/^/#   /'
expect_ge "depth 300: deepstack sampled" "$total" 300
expect_ge "depth 300: most stacks marked [truncated] (x2)" $((trunc * 2)) "$total"
n=$(grep '^deepstack;\[truncated\];' "$FS_TMP/d300.folded" | sort -t' ' -k2 -n -r | head -n 1 |
	awk '{sub(/ [0-9]+$/, ""); print gsub(/;/, ";")}')
expect_eq "depth 300: user frames kept (user_depth 127)" "$n" 128
expect_ge "depth 300: user_truncated counted" "$(fs_stat user_truncated)" "$trunc"
check "unload" fs_unload
finish
