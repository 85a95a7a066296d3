#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boots the guest kernel with an initramfs from mkinitramfs.sh (or a Debian
# rootfs image from rootfs.sh) under QEMU, watches its report channel, and
# stops it when it is done or stuck.
#
#   tests/vm/boot.sh -i INITRAMFS -o OUTDIR [options]
#   tests/vm/boot.sh --rootfs IMAGEDIR -o OUTDIR [options]
#     --rootfs IMAGEDIR  boot IMAGEDIR/rootfs.img (from rootfs.sh image) as
#                        /dev/vda with its own vmlinuz and initrd.img:
#                        root=/dev/vda rw init=/init (the harness's init)
#     --smp N            vCPUs (default 2)
#     --mem MB           memory (default 1024)
#     --append "ARGS"    extra kernel command line (e.g. lockdown=confidentiality)
#     --icount           deterministic time: -icount shift=0 (needs --smp 1)
#     --accel A          auto (default: KVM if it boots here, else TCG), kvm, tcg,
#                        tcg-single (one host thread for every vCPU)
#     --boot-timeout S   limit for booting and for the gaps between tests (180)
#     --grace S          time a test may run past its own timeout (60)
#     --disk-mb MB       size of the artifact disk (64; 0: none)
#     --kver R           guest kernel release (default: the module's vermagic)
#     --kernel IMAGE     kernel to boot (default $FLAMESTAT_KERNEL, else
#                        /boot/vmlinuz-R)
#     --shell            console on this terminal, a shell after the tests
#     --no-retry         do not boot again a guest that hung or died before
#                        its /init reported in (by default it is booted once
#                        more, said on stderr, the first boot's console.log
#                        and registers.txt kept in OUTDIR/hung-boot/)
#
# With FLAMESTAT_ARCH=arm64 (tests/vm/lib.sh) it boots qemu-system-aarch64's
# virt board instead (TCG, -cpu max), whose one serial port (ttyAMA0) is
# the console and a virtio console (hvc0) the report channel; --rootfs
# then takes an arm64 image (FLAMESTAT_ARCH=arm64 tests/vm/rootfs.sh image).
#
# OUTDIR gets console.log (ttyS0: the kernel console, boot messages
# included), channel.log (ttyS1: the report of guest-init.sh), artifacts/
# (what the tests saved), status: "done", "timeout WHERE" or "died WHERE",
# and on a timeout registers.txt (QEMU's "info registers -a": where each
# vCPU was when the host gave up). Exit status 0 when the guest finished
# its list, 3 when it was stopped on a timeout, 4 when it died (panic,
# QEMU error); the caller shows console.log's tail.
set -u
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

initrd="" rootfs="" out="" smp=2 mem=1024 append="" icount=0 accel=${FLAMESTAT_ACCEL:-auto}
boot_timeout=180 grace=60 disk_mb=64 kver="" kernel="" shell=0 retry=1
while [ $# -gt 0 ]; do
	case "$1" in
	-i) initrd=$2; shift ;;
	--rootfs) rootfs=$2; shift ;;
	-o) out=$2; shift ;;
	--smp) smp=$2; shift ;;
	--mem) mem=$2; shift ;;
	--append) append=$2; shift ;;
	--icount) icount=1 ;;
	--accel) accel=$2; shift ;;
	--boot-timeout) boot_timeout=$2; shift ;;
	--grace) grace=$2; shift ;;
	--disk-mb) disk_mb=$2; shift ;;
	--kver) kver=$2; shift ;;
	--kernel) kernel=$2; shift ;;
	--shell) shell=1 ;;
	--no-retry) retry=0 ;;
	-h | --help) sed -n '3,40p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) vm_die "boot: unknown argument '$1' (see --help)" ;;
	esac
	shift
done
if [ -n "$rootfs" ]; then
	for f in rootfs.img vmlinuz initrd.img kver; do
		[ -f "$rootfs/$f" ] || vm_die "boot: --rootfs $rootfs has no $f (tests/vm/rootfs.sh image makes it)"
	done
	initrd="$rootfs/initrd.img"
	[ -n "$kver" ] || kver=$(cat "$rootfs/kver")
	[ -n "$kernel" ] || kernel="$rootfs/vmlinuz"
fi
[ -f "$initrd" ] || vm_die "boot: -i INITRAMFS or --rootfs IMAGEDIR is required"
[ -n "$out" ] || vm_die "boot: -o OUTDIR is required"
[ -n "$kver" ] || kver=$(vm_kver)
[ -n "$kernel" ] || kernel=$(vm_kernel_image "$kver")
[ -r "$kernel" ] || vm_die "boot: no kernel image $kernel"
if [ $icount = 1 ]; then
	# -icount hangs at boot with more than one vCPU (machine.md).
	[ "$smp" = 1 ] || vm_die "boot: --icount needs --smp 1"
	accel=tcg
fi

mkdir -p "$out"
# What a previous run left; boot_once starts each boot's own files afresh.
rm -rf "$out/artifacts" "$out/console.log" "$out/channel.log" "$out/status" "$out/disk.img" \
	"$out/registers.txt" "$out/hung-boot"

accel_args=$(vm_accel_args "$accel" "$kernel") || exit 1
# QEMU before 8.1 can keep a translation of kernel text that another vCPU
# was patching (a static key or static call flipping): the guest then hangs
# or crashes (scripts/deps.list). Said once per boot, not refused: a
# single-vCPU guest is not exposed.
case $accel_args in
*tcg*)
	qver=$("$FS_VM_QEMU" --version | sed -n '1s/.*version \([0-9][0-9.]*\).*/\1/p')
	if [ "$smp" != 1 ] && [ -n "$qver" ] && dpkg --compare-versions "$qver" lt 8.1; then
		vm_msg "warning: QEMU $qver under TCG can hang SMP guests while the kernel patches its text (fixed in 8.1): run scripts/install-deps.sh"
	fi ;;
esac
# Not "quiet": a guest that hangs while booting shows how far it got on the
# console (the boot messages cost no measurable boot time here).
if [ "$FS_VM_ARCH" = arm64 ]; then
	# fs.chan: the report channel guest-init.sh opens.
	cmdline="console=ttyAMA0 panic=-1 fs.chan=hvc0${append:+ $append}"
else
	cmdline="console=ttyS0,115200 panic=-1 tsc=reliable${append:+ $append}"
fi
[ $shell = 1 ] && cmdline="$cmdline fs.shell=1"
# Debian's initramfs mounts the image and starts the harness's init on it.
[ -n "$rootfs" ] && cmdline="root=/dev/vda rw init=/init fsck.mode=skip $cmdline"
# shellcheck disable=SC2206 # $accel_args is a list of QEMU arguments
qemu=("$FS_VM_QEMU" $accel_args -smp "$smp" -m "$mem"
	-nodefaults -no-user-config -display none -no-reboot
	-kernel "$kernel" -initrd "$initrd" -append "$cmdline")
[ $icount = 1 ] && qemu+=(-icount shift=0)
if [ -n "$rootfs" ]; then
	# The first virtio disk (lowest PCI slot), so /dev/vda.
	qemu+=(-drive "file=$rootfs/rootfs.img,format=raw,if=none,id=root,cache=unsafe")
	qemu+=(-device "virtio-blk-pci,drive=root,serial=fs-root")
fi
if [ "$disk_mb" -gt 0 ]; then
	# The guest finds it by its serial (guest-init.sh); made by boot_once.
	qemu+=(-drive "file=$out/disk.img,format=raw,if=none,id=artifacts,cache=unsafe")
	qemu+=(-device "virtio-blk-pci,drive=artifacts,serial=fs-artifacts")
fi

# serial_args CONSOLE: the console on CONSOLE (a QEMU character device),
# the report channel into channel.log: the second serial port, or on arm64
# a virtio console.
serial_args() {
	if [ "$FS_VM_ARCH" = arm64 ]; then
		qemu+=(-serial "$1" -device "virtio-serial-pci,id=fsvser"
			-chardev "file,id=fschan,path=$out/channel.log"
			-device "virtconsole,bus=fsvser.0,chardev=fschan")
	else
		qemu+=(-serial "$1" -serial "file:$out/channel.log")
	fi
}

if [ $shell = 1 ]; then
	# Interactive: the console is this terminal (Ctrl-A X quits).
	[ "$disk_mb" -gt 0 ] && truncate -s "${disk_mb}M" "$out/disk.img"
	serial_args mon:stdio
	"${qemu[@]}"
	exit $?
fi
# The monitor on two FIFOs (QEMU opens them read-write, so nothing blocks
# while no one listens; made by boot_once): the host asks it where the
# vCPUs are on a timeout.
qemu+=(-monitor "pipe:$out/monitor")
serial_args "file:$out/console.log"

# dump_registers: every vCPU's registers from the monitor, to registers.txt.
dump_registers() {
	kill -0 "$qpid" 2>/dev/null || return 0
	timeout 3 cat "$out/monitor.out" >"$out/registers.txt" &
	local reader=$!
	sleep 0.2
	printf 'info registers -a\n' | timeout 2 tee "$out/monitor.in" >/dev/null
	wait "$reader"
	# The program counter: RIP= (x86), PC= (arm64, indented).
	tr -d '\r' <"$out/registers.txt" | sed 's/^ *//' | grep -E '^(CPU#|RIP=|PC=)' | paste -d' ' - - |
		awk '{print "flamestat-vm: at the timeout " $1 " " $2}' >&2
}

# stop_qemu: TERM, then KILL if it is still there after 5 s (a stopped
# QEMU never acts on TERM).
stop_qemu() {
	kill "$qpid" 2>/dev/null || return 0
	for _ in $(seq 1 50); do
		kill -0 "$qpid" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$qpid" 2>/dev/null
	wait "$qpid" 2>/dev/null
}
# Never leave QEMU behind, whatever stops this script.
qpid=""
trap '[ -n "$qpid" ] && stop_qemu' EXIT
trap 'exit 130' INT TERM

# boot_once: one boot, watched until done or stuck; sets status and start.
boot_once() {
	local alive ctl now last_ctl="" ctl_since tmo limit where
	rm -rf "$out/artifacts" "$out/disk.img" "$out/registers.txt" "$out/monitor.in" "$out/monitor.out"
	[ "$disk_mb" -gt 0 ] && truncate -s "${disk_mb}M" "$out/disk.img"
	mkfifo "$out/monitor.in" "$out/monitor.out"
	: >"$out/console.log"
	: >"$out/channel.log"
	vm_msg "booting $kver${rootfs:+ on $rootfs/rootfs.img} ($accel_args, $smp vCPU, $mem MiB${append:+, $append})"
	start=$(date +%s)
	"${qemu[@]}" >"$out/qemu.log" 2>&1 &
	qpid=$!
	ctl_since=$start

	status=""
	while :; do
		alive=1
		kill -0 "$qpid" 2>/dev/null || alive=0
		ctl=$(grep -a '^@@FS \(BOOTED\|BEGIN\|END\|DONE\)' "$out/channel.log" | tail -n 1 | tr -d '\r')
		now=$(date +%s)
		if [ "$ctl" != "$last_ctl" ]; then
			last_ctl=$ctl
			ctl_since=$now
			case "$ctl" in
			"@@FS BOOTED"*)
				vm_msg "guest up after $((now - start))s" ;;
			esac
		fi
		case "$ctl" in
		"@@FS DONE") status="done" ;;
		"@@FS BEGIN "*)
			# shellcheck disable=SC2086 # split the report line into words
			set -- $ctl
			# The guest may be writing the line as it is read: a line
			# cut short has no timeout yet (seen on a loaded host).
			tmo=${4:-}
			tmo=${tmo#timeout=}
			case $tmo in '' | *[!0-9]*) tmo=$boot_timeout ;; esac
			limit=$((tmo + grace))
			where="in test ${3:-}" ;;
		"@@FS END "*)
			# shellcheck disable=SC2086
			set -- $ctl
			limit=$boot_timeout
			where="after test ${3:-}" ;;
		*)
			limit=$boot_timeout
			where="while booting" ;;
		esac
		if [ "$status" = "done" ]; then
			# Give the guest a moment to power off by itself.
			for _ in $(seq 1 50); do
				kill -0 "$qpid" 2>/dev/null || break
				sleep 0.1
			done
			break
		fi
		if [ $alive = 0 ]; then
			status="died $where"
			break
		fi
		if [ $((now - ctl_since)) -ge "$limit" ]; then
			status="timeout $where (no report for ${limit}s)"
			dump_registers
			break
		fi
		sleep 0.5
	done
	stop_qemu
	qpid=""
	echo "$status" >"$out/status"
	rm -f "$out/monitor.in" "$out/monitor.out"

	# Artifacts: the tar the guest wrote at the start of the disk.
	if [ -f "$out/disk.img" ]; then
		mkdir -p "$out/artifacts"
		if grep -aq '^@@FS ARTIFACTS' "$out/channel.log"; then
			tar -xf "$out/disk.img" -C "$out/artifacts" 2>/dev/null ||
				vm_msg "could not read the artifacts from $out/disk.img"
		fi
		rm -f "$out/disk.img"
	fi
}

# hung_before_init: the last boot timed out or died before the first test
# began (before /init reported in, or while it loaded the virtio modules
# after that) and the console does not name the module: nothing of ours had
# run yet (the module loads in the tests; a console naming it means it
# loaded at boot, and then the hang is ours). Seen once in CI on 7.2: the
# guest died between BOOTED and the first test, and the next boots of the
# same kernel and initramfs passed.
hung_before_init() {
	case $status in
	"timeout while booting"* | "died while booting"*) ;;
	*) return 1 ;;
	esac
	! grep -aq '^@@FS BEGIN ' "$out/channel.log" &&
		! grep -aq 'flamestat: ' "$out/console.log"
}

boot_once
if [ $retry = 1 ] && hung_before_init; then
	# Seen under TCG: a hang with nothing on the (then quiet) console, and
	# Debian's 6.12-rt oopsing on an int3 in sched_clock_cpu() while the
	# kernel patched its text at boot: the kernel or QEMU, which a second
	# boot tells apart from a failure that always happens.
	rm -rf "$out/hung-boot"
	mkdir -p "$out/hung-boot"
	cp "$out/console.log" "$out/status" "$out/qemu.log" "$out/hung-boot/"
	[ -f "$out/registers.txt" ] && mv "$out/registers.txt" "$out/hung-boot/"
	vm_msg "the guest failed before its /init reported in ($status); booting it once more (first boot: $out/hung-boot/)"
	boot_once
	hung_before_init && status="$status, on both boots"
	echo "$status" >"$out/status"
fi

vm_msg "guest $status after $(($(date +%s) - start))s"
case "$status" in
"done") exit 0 ;;
timeout*) exit 3 ;;
*) exit 4 ;;
esac
