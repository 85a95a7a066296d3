#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# apt remove takes the module out of the kernel (dkms remove), the
# sources, DKMS's records, the udev rule and the tool, and leaves nothing
# for purge; the system group flamestat stays (flamestat(4)).
# vm: name=deb rootfs="dkms openssl" prepare=tests/deb/prepare.sh bare=1
# timeout: 180
# shellcheck source-path=SCRIPTDIR source=../../guest/lib.sh
. /tests/lib.sh
# shellcheck disable=SC1091 # written by tests/deb/prepare.sh
. /etc/flamestat/deb.env

V=$FS_DEB_VERSION
K=$(uname -r)
fs_loaded && die "the module is loaded before the test"
# apt's output goes straight to the report, so a hang shows where.
if apt-get remove -y flamestat flamestat-dkms 2>&1; then
	ok "apt-get remove flamestat flamestat-dkms"
else
	not_ok "apt-get remove flamestat flamestat-dkms"
fi
check "no flamestat.ko left" sh -c "! find /lib/modules/$K -name 'flamestat.ko*' | grep -q ."
check "not in modules.dep" sh -c "! grep -q flamestat /lib/modules/$K/modules.dep"
check_not "modinfo flamestat fails" modinfo flamestat
check_not "modprobe -n flamestat fails" modprobe -n flamestat
expect_eq "dkms status" "$(dkms status 2>/dev/null)" ""
check "no /var/lib/dkms/flamestat" sh -c '! [ -e /var/lib/dkms/flamestat ]'
check "no /usr/src/flamestat-$V" sh -c "! [ -e /usr/src/flamestat-$V ]"
check "no /usr/bin/flamestat" sh -c '! [ -e /usr/bin/flamestat ]'
check "no 70-flamestat.rules" sh -c '! ls /lib/udev/rules.d/70-flamestat.rules /usr/lib/udev/rules.d/70-flamestat.rules 2>/dev/null | grep -q .'
check "the group flamestat stays" sh -c 'getent group flamestat >/dev/null'
# Neither has conffiles, so remove leaves nothing for purge.
expect_eq "dpkg knows neither package" \
	"$(dpkg-query -W -f='${db:Status-Abbrev}${Package}\n' 'flamestat*' 2>/dev/null | grep -v '^un ')" ""
finish
