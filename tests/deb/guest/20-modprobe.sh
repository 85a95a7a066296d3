#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# modprobe flamestat loads DKMS's module: the device appears, the tool
# sees the packaged version, modprobe -r unloads it. group= from
# /etc/modprobe.d (flamestat(4)) still applies when the tool loads the
# module, without a kernel message, and leaves the node as it is (no udev
# runs here: root:root 0600); once the administrator gives the node to
# that group (chgrp, chmod 0660), its members read it.
# vm: name=deb rootfs="dkms openssl" prepare=tests/deb/prepare.sh bare=1
# timeout: 120
# shellcheck source-path=SCRIPTDIR source=../../guest/lib.sh
. /tests/lib.sh
# shellcheck disable=SC1091 # written by tests/deb/prepare.sh
. /etc/flamestat/deb.env

check "modprobe flamestat" modprobe flamestat
i=0
while [ ! -c "$FS_DEV" ] && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
check "$FS_DEV appeared" test -c "$FS_DEV"
expect_eq "/sys/module/flamestat/version" "$(cat /sys/module/flamestat/version)" "$FS_DEB_VERSION"
flamestat status >"$FS_TMP/status" 2>&1
expect_eq "flamestat status exit status" "$?" 0
sed 's/^/#   /' "$FS_TMP/status"
check "status: loaded, packaged version" grep -q "^module: *loaded, version $FS_DEB_VERSION," "$FS_TMP/status"
sleep 1
check "sampling (autostart)" test "$(fs_stat samples)" -gt 0
check "modprobe -r flamestat" modprobe -r flamestat
check "unloaded" sh -c '! [ -d /sys/module/flamestat ]'

echo "options flamestat group=1001" >/etc/modprobe.d/flamestat.conf
wl_bg chain 3
check "flamestat record (loads the module)" flamestat record -q -d 1 -o "$FS_TMP/r.folded"
wl_wait || not_ok "chain failed"
expect_eq "group=1001 from modprobe.d" "$(cat /sys/module/flamestat/parameters/group)" 1001
expect_eq "group=1001: the node unchanged" "$(stat -c '%u:%g %a' "$FS_DEV")" "0:0 600"
check "chgrp 1001, chmod 0660 (by hand)" sh -c "chgrp 1001 $FS_DEV && chmod 0660 $FS_DEV"
check "fsuser (in fsgroup 1001) reads the device" su -s /bin/sh fsuser -c "cat $FS_DEV >/dev/null"
rm -f /etc/modprobe.d/flamestat.conf
check "modprobe -r flamestat" modprobe -r flamestat
finish
