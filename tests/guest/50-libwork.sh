#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Time spent in a shared library: frames in libfsbusy.so are named by file
# and offset, and resolve to main;work_loop;lib_hot;lib_inner.
# timeout: 120
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

fs_load
wl libwork 3 || not_ok "libwork exited with status $?"
check "stop" fs_write stop
fs_read "$FS_TMP/libwork.folded"
fs_symbolize <"$FS_TMP/libwork.folded" >"$FS_TMP/libwork.sym"
artifact "$FS_TMP/libwork.folded"
total=$(fs_sum "$FS_TMP/libwork.folded" '^libwork;')
inlib=$(fs_sum "$FS_TMP/libwork.folded" '^libwork;.*;libfsbusy\.so\+0x[0-9a-f]+$')
chain=$(fs_sum "$FS_TMP/libwork.sym" '^libwork;(.*;)?main;work_loop;lib_hot;lib_inner$')
log "$total samples of libwork, $inlib with the leaf in libfsbusy.so, $chain in main;work_loop;lib_hot;lib_inner"
grep '^libwork;' "$FS_TMP/libwork.sym" | sort -t' ' -k2 -n -r | head -n 5 | sed 's/^/#   /'
expect_ge "libwork sampled" "$total" 500
expect_ge "most leaves in libfsbusy.so+0x... (x2)" $((inlib * 2)) "$total"
expect_ge "most stacks main;work_loop;lib_hot;lib_inner (x2)" $((chain * 2)) "$total"

# The snapshot sends the mappings the stacks need, no others: libfsbusy.so's
# is there, and every MAP holds a user frame of its process.
if /opt/workloads/snapdump >"$FS_TMP/libwork.dump"; then
	artifact "$FS_TMP/libwork.dump"
	lib=$(awk '$1 == "file" && $NF ~ /^path=.*libfsbusy\.so$/ {sub(/^id=/, "", $2); print $2}' "$FS_TMP/libwork.dump")
	expect_ge "snapshot: libfsbusy.so's mapping sent" \
		"$(awk -v id="file=$lib" '$1 == "map" && $3 == id' "$FS_TMP/libwork.dump" | wc -l)" 1
	expect_eq "snapshot: MAP records no user frame falls in" \
		"$(fs_snap_unused_maps "$FS_TMP/libwork.dump" | wc -l)" 0
	log "$(grep -c '^map ' "$FS_TMP/libwork.dump") MAP and $(grep -c '^file ' "$FS_TMP/libwork.dump") FILE records for $(grep -c '^proc ' "$FS_TMP/libwork.dump") processes"
else
	not_ok "snapdump: $(head -n 1 "$FS_TMP/libwork.dump")"
fi
check "unload" fs_unload
finish
