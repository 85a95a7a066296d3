#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Module load, device and stats present, a text read, unload; three times.
# timeout: 120
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

for round in 1 2 3; do
	log "round $round"
	fs_load
	check "module listed in /proc/modules" grep -q '^flamestat ' /proc/modules
	check "/dev/flamestat is a character device" test -c "$FS_DEV"
	# misc devices have major 10
	major=$(stat -c %t "$FS_DEV")
	expect_eq "/dev/flamestat is a misc device (major 0xa)" "$major" a
	mode=$(stat -c %a "$FS_DEV")
	expect_eq "/dev/flamestat mode" "$mode" 600
	check "stats readable" test -s "$FS_STATS"
	expect_eq "sampling at load (running)" "$(fs_stat running)" 1
	wl chain 0.5
	check "text read" fs_read "$FS_TMP/folded"
	log "$(wc -l <"$FS_TMP/folded") lines, $(fs_sum "$FS_TMP/folded") samples"
	# shellcheck disable=SC2016 # awk program
	check "folded lines look like 'stack COUNT'" \
		awk 'NF < 2 || $NF !~ /^[0-9]+$/ || $NF == 0 {print "bad: " $0; bad = 1} END {exit bad}' "$FS_TMP/folded"
	check "unload removes module and device" fs_unload
done
check_not "no device after unload" test -e "$FS_DEV"
finish
