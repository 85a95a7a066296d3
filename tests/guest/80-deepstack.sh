#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Deep user stacks: depth 40 is kept whole; depth 300 is cut at the
# user_depth limit (default 127) and marked [truncated], counted in
# user_truncated. Both again built without frame pointers (deepstack-nofp,
# as Debian builds), where the recursion is walked by table: each frame
# takes the rule of the one before without a lookup, up to the same limit.
# And a recursion whose frames change sizes, kept whole with and without.
# timeout: 300
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

# recurse frames in the heaviest stack of COMM (deepstack) in a symbolized
# file: recurse_frames FILE [COMM]
recurse_frames() {
	grep "^${2:-deepstack};" "$1" | sort -t' ' -k2 -n -r | head -n 1 |
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

# Without frame pointers. A first run builds the file's table (kept for
# the next run of the same file); the second is the one counted.
check "reset" fs_write "reset
start"
wl deepstack-nofp -d 40 1 || not_ok "deepstack-nofp -d 40 exited with status $?"
sample_window nofp40 deepstack-nofp "deepstack-nofp -d 40 ran" \
	wl deepstack-nofp -d 40 2
whole_count nofp40 deep_leaf 'deep_start;(recurse;){39}recurse;deep_leaf'
expect_whole nofp40 deep_leaf 1000
n=$(recurse_frames "$FS_TMP/nofp40.sym" deepstack-nofp)
expect_eq "nofp depth 40: recurse frames in the top stack" "$n" 40

fs_read "$FS_TMP/before.folded"
t0=$(fs_stat user_truncated)
wl deepstack-nofp -d 300 2 || not_ok "deepstack-nofp -d 300 exited with status $?"
fs_read "$FS_TMP/after.folded"
fs_delta "$FS_TMP/before.folded" "$FS_TMP/after.folded" |
	grep '^deepstack-nofp;' >"$FS_TMP/nofp300.folded"
artifact "$FS_TMP/nofp300.folded"
fs_symbolize <"$FS_TMP/nofp300.folded" >"$FS_TMP/nofp300.sym"
artifact "$FS_TMP/nofp300.sym"
total=$(fs_sum "$FS_TMP/nofp300.sym" '^deepstack-nofp;')
trunc=$(fs_sum "$FS_TMP/nofp300.sym" '^deepstack-nofp;\[truncated\];')
# (busybox awk's regular expressions repeat at most 100 times: counted)
full=$(awk '{n = $NF; s = $0; sub(/ [0-9]+$/, "", s)}
	s ~ /^deepstack-nofp;\[truncated\];recurse;.*;deep_leaf$/ &&
	gsub(/;recurse/, "", s) == 126 {t += n} END {print t + 0}' "$FS_TMP/nofp300.sym")
log "nofp depth 300: $total samples, $trunc marked [truncated], $full of them the leaf and 126 recurse frames (127 frames)"
expect_ge "nofp depth 300: deepstack-nofp sampled" "$total" 300
expect_ge "nofp depth 300: most stacks marked [truncated] (x2)" $((trunc * 2)) "$total"
expect_ge "nofp depth 300: most truncated stacks recurse to the leaf (x2)" $((full * 2)) "$trunc"
n=$(grep '^deepstack-nofp;\[truncated\];' "$FS_TMP/nofp300.folded" | sort -t' ' -k2 -n -r | head -n 1 |
	awk '{sub(/ [0-9]+$/, ""); print gsub(/;/, ";")}')
expect_eq "nofp depth 300: user frames kept (user_depth 127)" "$n" 128
expect_ge "nofp depth 300: user_truncated counted" $(($(fs_stat user_truncated) - t0)) "$trunc"
# Frames of changing sizes (deepstack -V: alloca() at every depth, the CFA
# FP + 16 in both builds): the recursion loop takes a step only where the
# caller's FP is the last frame's size above, and leaves the others to the
# general loop. Whole from main either way.
for prog in deepstack deepstack-nofp; do
	wl $prog -V -d 40 1 || not_ok "$prog -V -d 40 exited with status $?"
	sample_window vla-$prog $prog "$prog -V -d 40 ran" wl $prog -V -d 40 2
	whole_count vla-$prog deep_leaf 'deep_start;(recurse_vla;){40}deep_leaf'
	expect_whole vla-$prog deep_leaf 1000
done
check "unload" fs_unload
finish
