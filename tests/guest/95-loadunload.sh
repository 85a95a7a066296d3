#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Load and unload 40 times (100 at the long size) while sampling a busy workload, with another
# process opening and reading the device all the while: every load works,
# rmmod is refused (EBUSY) while a reader holds the device and succeeds
# once it lets go, and the kernel log stays clean.
# timeout: 300
# timeout-long: 600
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

CYCLES=$(fs_size 40 100)
wl_bg chain 600
# A reader that keeps opening and reading while the module comes and goes.
(while :; do cat "$FS_DEV" >/dev/null 2>&1; done) &
reader=$!
FS_BG="$FS_BG $reader"

loads=0 unloads=0 refused=0 i=0
while [ $i -lt "$CYCLES" ]; do
	if insmod "$FS_KO" 2>/dev/null; then
		loads=$((loads + 1))
	fi
	sleep 0.05
	# The reader may hold the device: retry until it lets go.
	j=0
	while ! rmmod flamestat 2>/dev/null; do
		refused=$((refused + 1))
		j=$((j + 1))
		[ $j -lt 200 ] || break
	done
	fs_loaded || unloads=$((unloads + 1))
	i=$((i + 1))
done
kill "$reader" 2>/dev/null
log "$loads loads, $unloads unloads, rmmod refused $refused times while the device was open"
expect_eq "every load worked" "$loads" "$CYCLES"
expect_eq "every unload worked" "$unloads" "$CYCLES"

# rmmod while a reader holds the device open: refused, then fine.
fs_load
exec 3<"$FS_DEV"
check_not "rmmod refused while the device is open" rmmod flamestat
check "module still there" fs_loaded
exec 3<&-
check "rmmod once closed" fs_unload
finish
