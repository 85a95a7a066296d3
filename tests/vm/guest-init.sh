#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /init of the test guest (busybox sh, PID 1): runs the tests listed in
# /etc/flamestat/tests one after another, each under its time limit, and
# reports on the second serial port (ttyS1), apart from the kernel console
# on ttyS0, then powers off. The report, line by line:
#
#   @@FS BOOTED uptime=S cpus=N kernel=R    the guest is up
#   @@FS DMESG-BEGIN boot .. DMESG-END boot the kernel log until then
#   @@FS BEGIN NAME timeout=S               a test starts; its output follows
#   @@FS END NAME rc=N secs=S [timeout] [note...]
#                                           it ended (rc 137: killed at its timeout)
#   @@FS DMESG-BEGIN NAME .. DMESG-END NAME what the kernel logged meanwhile
#   @@FS ARTIFACTS bytes=N                  /artifacts is on the artifact disk
#   @@FS DMESG-BEGIN final .. DMESG-END final
#   @@FS DONE
#
# Kernel command line options read here: fs.shell=1 gives a shell on the
# console after the tests instead of powering off; fs.chan=DEV reports on
# /dev/DEV instead of ttyS1 (arm64: hvc0, a virtio console, whose modules
# are loaded first).
#
# It is also init= of a Debian rootfs guest (tests/vm/rootfs.sh), started
# by Debian's initramfs with /proc, /sys and /dev already mounted.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TERM=dumb

[ -e /proc/self/mounts ] || mount -t proc proc /proc
mounted() { grep -q "^[^ ]* $1 " /proc/mounts; }
mounted /sys || mount -t sysfs sysfs /sys
mounted /dev || mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mounted /dev/pts || mount -t devpts devpts /dev/pts
mounted /dev/shm || mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs -o mode=1777 tmpfs /tmp
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
ln -sf /proc/self/fd /dev/fd
hostname flamestat-guest

chan=$(sed -n 's/^\(.* \)\{0,1\}fs\.chan=\([^ ]*\).*/\2/p' /proc/cmdline)
[ -n "$chan" ] || chan=ttyS1
if [ "$chan" = hvc0 ] && [ ! -e /dev/hvc0 ]; then
	for m in virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci virtio_console; do
		f=$(find "/lib/modules/$(uname -r)" -name "$m.ko" 2>/dev/null | head -n 1)
		[ -n "$f" ] && insmod "$f" 2>/dev/null
	done
	i=0
	while [ ! -e /dev/hvc0 ] && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
fi
if ! stty -F "/dev/$chan" raw -echo 2>/dev/null || ! exec 3>"/dev/$chan"; then
	echo "flamestat-init: no report channel /dev/$chan; powering off" >/dev/console
	busybox poweroff -f
fi
rep() { echo "@@FS $*" >&3; }

# dmesg_section NAME: what the kernel logged since the last section.
dmesg_section() {
	rep "DMESG-BEGIN $1"
	dmesg -c >&3 2>&1
	rep "DMESG-END $1"
}

uptime=$(cat /proc/uptime)
rep "BOOTED uptime=${uptime%% *} cpus=$(nproc) kernel=$(uname -r)"
dmesg_section boot
# From here on every kernel message also reaches the console (ttyS0), so
# the host can show what a dying guest said last.
dmesg -n 8

# The artifact disk: the virtio disk with serial "fs-artifacts" (never the
# root disk of a rootfs guest), raw, which the host reads as a tar file.
# (A rootfs guest's initramfs has loaded virtio_blk already.)
kver=$(uname -r)
[ -d /sys/module/virtio_blk ] ||
	for m in virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev \
		virtio_pci virtio_blk; do
		f=$(find "/lib/modules/$kver" -name "$m.ko" 2>/dev/null | head -n 1)
		[ -n "$f" ] && insmod "$f" 2>/dev/null
	done
artifact_disk() {
	for b in /sys/block/vd*; do
		[ "$(cat "$b/serial" 2>/dev/null)" = fs-artifacts ] && echo "/dev/${b##*/}" && return
	done
}
i=0
adisk=$(artifact_disk)
while [ -z "$adisk" ] && [ -d /sys/bus/pci/drivers/virtio-pci ] && [ $i -lt 30 ]; do
	sleep 0.1
	i=$((i + 1))
	adisk=$(artifact_disk)
done
dmesg -c >/dev/null

# save_artifacts: the whole of /artifacts as a tar at the start of the disk.
save_artifacts() {
	[ -n "$adisk" ] && [ -b "$adisk" ] || return 0
	tar -C /artifacts -cf /tmp/.artifacts.tar . 2>/dev/null
	if dd if=/tmp/.artifacts.tar of="$adisk" bs=64k conv=fsync 2>/dev/null; then
		rep "ARTIFACTS bytes=$(wc -c </tmp/.artifacts.tar)"
	else
		rep "NOTE artifacts ($(wc -c </tmp/.artifacts.tar) bytes) do not fit on the disk"
	fi
	rm -f /tmp/.artifacts.tar
}

# kill_strays: every user process but this one, after a test.
kill_strays() {
	for d in /proc/[0-9]*; do
		p=${d#/proc/}
		[ "$p" = 1 ] && continue
		read -r st <"$d/stat" 2>/dev/null || continue
		# "pid (comm) state ppid ...": kernel threads are kthreadd's
		# shellcheck disable=SC2086 # split the stat line into fields
		set -- ${st##*) }
		[ "$p" = 2 ] || [ "$2" = 2 ] || [ "$2" = 0 ] && continue
		kill -9 "$p" 2>/dev/null
	done
}

while read -r name tmo; do
	[ -n "$name" ] || continue
	mkdir -p "/artifacts/$name" "/tmp/fs-test/$name"
	rep "BEGIN $name timeout=$tmo"
	read -r t0 _ </proc/uptime
	(
		cd "/tmp/fs-test/$name" || exit 1
		FS_TEST=$name FS_TMP=/tmp/fs-test/$name \
			FS_ARTIFACTS=/artifacts/$name \
			exec timeout -s KILL "$tmo" sh "/tests/$name.sh"
	) >&3 2>&1 </dev/null
	rc=$?
	read -r t1 _ </proc/uptime
	extra=" secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f", b - a}')"
	[ $rc = 137 ] && extra=" timeout"
	kill_strays
	if [ -d /sys/module/flamestat ]; then
		if timeout -s KILL 30 rmmod flamestat 2>/dev/null; then
			extra="$extra left-module-loaded(unloaded)"
		else
			extra="$extra left-module-loaded(rmmod-failed)"
		fi
		[ $rc = 0 ] && rc=99
	fi
	rep "END $name rc=$rc$extra"
	dmesg_section "$name"
	rm -rf "/tmp/fs-test/$name"
	rmdir "/artifacts/$name" 2>/dev/null || save_artifacts
done </etc/flamestat/tests

dmesg_section final
rep "DONE"
grep -q 'fs.shell=1' /proc/cmdline && setsid busybox cttyhack sh
# Closing the port waits until the UART has sent everything.
exec 3>&-
sync
busybox poweroff -f
