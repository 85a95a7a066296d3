#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The packaged tool loads DKMS's module itself and records the whole
# system for 2 s: the busy workload's stack comes out named, as folded
# stacks and as an SVG.
# vm: name=deb rootfs="dkms openssl" prepare=tests/deb/prepare.sh bare=1
# timeout: 180
# shellcheck source-path=SCRIPTDIR source=../../guest/lib.sh
. /tests/lib.sh

fs_loaded && die "the module is loaded before the test"
wl_bg chain 8
check "flamestat record -d 2" flamestat record -q -d 2 -o "$FS_TMP/system.folded"
check "the tool loaded the module (modprobe)" fs_loaded
wl_wait || not_ok "chain failed"
artifact "$FS_TMP/system.folded"
n=$(fs_sum "$FS_TMP/system.folded" '^chain;(.*;)?main;outer;middle;hot_leaf$')
expect_ge "chain;...;main;outer;middle;hot_leaf by name" "$n" 300
check "flamestat svg" sh -c "flamestat svg '$FS_TMP/system.folded' >'$FS_TMP/system.svg'"
check "the SVG names hot_leaf" grep -q hot_leaf "$FS_TMP/system.svg"
artifact "$FS_TMP/system.svg"
check "rmmod" fs_unload
finish
