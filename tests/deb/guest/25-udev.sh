#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The package's udev rule and group, under the tree's own udev (started
# here: this guest's init runs none). flamestat-dkms created the system
# group flamestat and installed 70-flamestat.rules: with udev running,
# modprobe makes /dev/flamestat root:flamestat 0660, and a user added to
# the group reads it while others cannot. Then the postinst's own part
# (before debhelper's): with the module loaded and the group missing, as
# on a first installation next to a loaded module, it creates the group
# and has udev give the node its group and mode.
# vm: name=deb rootfs="dkms openssl" prepare=tests/deb/prepare.sh bare=1
# timeout: 240
# shellcheck source-path=SCRIPTDIR source=../../guest/lib.sh
. /tests/lib.sh

POSTINST=/var/lib/dpkg/info/flamestat-dkms.postinst
udevd=""
for f in /usr/lib/systemd/systemd-udevd /lib/systemd/systemd-udevd; do
	[ -x "$f" ] && udevd=$f && break
done
[ -n "$udevd" ] || die "no systemd-udevd in the guest (the udev package)"
UDEVD_PID=""

# udevd_start: udev's daemon, logging to its own file (not the kernel's),
# once it answers a ping: that comes from its event loop, which runs once
# it listens to uevents. Its control socket alone is not enough: a
# modprobe right after it appeared lost its add event here once (the node
# stayed root:root 0600).
# shellcheck disable=SC2317 # called through check
udevd_start() {
	SYSTEMD_LOG_TARGET=console SYSTEMD_LOG_LEVEL=info "$udevd" >>"$FS_TMP/udevd.log" 2>&1 &
	UDEVD_PID=$!
	_i=0
	until udevadm control --ping -t 5 2>/dev/null || [ "$_i" -ge 60 ]; do
		sleep 0.5
		_i=$((_i + 1))
	done
	udevadm control --ping -t 5
}
# udevd_stop: udev's daemon exits (also when the test does).
# shellcheck disable=SC2317 # called through check and the trap
udevd_stop() {
	[ -n "$UDEVD_PID" ] || return 0
	udevadm control --exit 2>/dev/null || kill "$UDEVD_PID" 2>/dev/null
	wait "$UDEVD_PID" 2>/dev/null
	UDEVD_PID=""
	rm -f /run/udev/control
}
trap 'udevd_stop; fs_cleanup' EXIT

# node: owner:group mode of the device node, by name
node() { stat -c '%U:%G %a' "$FS_DEV"; }

# node_becomes WANT: waits up to 30 s for the node to be WANT. udev
# handles modprobe's add event on its own time, and a settle can run
# before udevd has read the event from its socket (then the queue looks
# empty), so a settle alone is not a wait for it.
node_becomes() {
	_i=0
	while [ "$(node)" != "$1" ] && [ "$_i" -lt 60 ]; do
		sleep 0.5
		_i=$((_i + 1))
	done
	expect_eq "from the rule: owner:group mode" "$(node)" "$1"
}

# denied USER: USER's open of the device fails.
denied() {
	if su -s /bin/sh "$1" -c "cat $FS_DEV" >/dev/null 2>"$FS_TMP/denied.err"; then
		not_ok "$1 cannot read $FS_DEV: it could"
	else
		ok "$1 cannot read $FS_DEV ($(head -n 1 "$FS_TMP/denied.err"))"
	fi
}

fs_loaded && die "the module is loaded before the test"
gid=$(getent group flamestat | cut -d: -f3)
check "the package created the group flamestat" test -n "$gid"
check "a system group (gid $gid < 1000)" test "${gid:-1000}" -lt 1000
rule=$(fs_rule_file)
log "rule: $rule: $(grep -v '^#' "$rule")"
case "$rule" in
/lib/udev/rules.d/* | /usr/lib/udev/rules.d/*) ok "the package's rule: $rule" ;;
*) not_ok "the package's rule in /lib/udev/rules.d or /usr/lib/udev/rules.d: got '$rule'" ;;
esac
expect_eq "the rule's GROUP" "$(fs_rule_key GROUP)" flamestat
expect_eq "the rule's MODE" "$(fs_rule_key MODE)" 0660

check "systemd-udevd starts ($udevd)" udevd_start
check "modprobe flamestat" modprobe flamestat
check "udevadm settle" udevadm settle -t 60
node_becomes "root:flamestat 660"
check "usermod -aG flamestat fsuser" usermod -aG flamestat fsuser
check "fsuser (in flamestat) can cat $FS_DEV" su -s /bin/sh fsuser -c "cat $FS_DEV >/dev/null"
check "fsuser (in flamestat) can stop and start" su -s /bin/sh fsuser -c "echo stop >$FS_DEV && echo start >$FS_DEV"
denied nobody
check "modprobe -r flamestat" modprobe -r flamestat

# The postinst on a machine where the module is loaded and the group does
# not exist yet: udev cannot give the node the group before the postinst
# creates it, and applies the rule again when the postinst asks.
check "udevd stops" udevd_stop
check "groupdel flamestat" groupdel flamestat
check "systemd-udevd starts again" udevd_start
check "modprobe flamestat" modprobe flamestat
check "udevadm settle" udevadm settle -t 60
before=$(node)
case "$before" in
*:flamestat\ *) not_ok "no group flamestat yet: got '$before'" ;;
*) ok "no group flamestat yet: $before" ;;
esac
# The package's own part of its postinst: what precedes debhelper's.
sed '/^# Automatically added by/,$d' "$POSTINST" >"$FS_TMP/postinst-own.sh"
artifact "$FS_TMP/postinst-own.sh"
check "the postinst's own part creates the group" grep -q "addgroup --system" "$FS_TMP/postinst-own.sh"
check "postinst configure (its own part)" sh "$FS_TMP/postinst-own.sh" configure
check "the group flamestat is back" sh -c 'getent group flamestat >/dev/null'
# No settle and no wait here: the postinst's trigger waits for udev.
expect_eq "after the postinst: owner:group mode" "$(node)" "root:flamestat 660"
check "usermod -aG flamestat fsuser" usermod -aG flamestat fsuser
check "fsuser (in flamestat) can cat $FS_DEV" su -s /bin/sh fsuser -c "cat $FS_DEV >/dev/null"
denied nobody
check "modprobe -r flamestat" modprobe -r flamestat
check "udevd stops" udevd_stop
artifact "$FS_TMP/udevd.log"
finish
