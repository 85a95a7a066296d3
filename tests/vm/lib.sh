# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034
# Host-side helpers for the guest harness (sourced by tests/vm/*.sh): the
# guest kernel release, the accelerator probe, progress messages and the
# dmesg patterns that fail a guest test.

: "${TOP:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
: "${BUILD:=$TOP/tests/build}"
: "${FLAMESTAT_CACHE:=/var/tmp/flamestat-cache}"
export TOP BUILD FLAMESTAT_CACHE
mkdir -p "$BUILD" "$FLAMESTAT_CACHE"

# Kernel messages that fail the guest test during which they were logged.
# Extended regular expression, matched against each dmesg line; a
# deprecation notice fails too (7.x warns of work on system_wq).
FS_VM_BAD_DMESG='Oops|BUG:|kernel BUG|WARNING:|possible circular locking|lockdep|KASAN|KCSAN|UBSAN|KFENCE|[Rr][Cc][Uu].*stall|scheduling while atomic|sleeping function called from invalid context|general protection fault|[Kk]ernel panic|suspected memory leak|kmemleak|soft lockup|hard LOCKUP|blocked for more than|list_(add|del) corruption|refcount_t:|Unable to handle kernel|stack-protector|segfault at|Call Trace:|[Dd]eprecated'

# The module and the kernel the guests use. A whole run can use another
# kernel (tests/debug-kernel/check.sh: the debug kernel) by setting
# FLAMESTAT_KERNEL (its bzImage) and FLAMESTAT_KO (the module built for it).
FS_VM_KO=${FLAMESTAT_KO:-$TOP/kmod/flamestat.ko}

# Lines that match FS_VM_BAD_DMESG but report no problem: the debug
# kernel's (tests/debug-kernel) checkers announcing themselves at boot.
FS_VM_BENIGN_DMESG='RCU lockdep checking is enabled|kmemleak: Kernel memory leak detector initialized'

vm_msg() { echo "flamestat-vm: $*" >&2; }
vm_die() { vm_msg "$*"; exit 1; }

# The release of the kernel to boot: the one the module was built for
# (its vermagic), else the one scripts/kernel-headers.sh picks.
vm_kver() {
	local ko=$FS_VM_KO v=""
	if [ -f "$ko" ]; then
		v=$(modinfo -F vermagic "$ko" 2>/dev/null | awk '{print $1}')
	fi
	[ -n "$v" ] || v=$("$TOP/scripts/kernel-headers.sh")
	echo "$v"
}

# The kernel release a linux-headers metapackage stands for: reads its
# Depends (dpkg-query's ${Depends}) on stdin, prints the release of the
# linux-headers-RELEASE among them (sid's also depends on
# linux-base-FLAVOUR).
vm_headers_release() {
	tr ',' '\n' | sed -n 's/^ *linux-headers-\([0-9][^ ]*\).*/\1/p' | head -n 1
}

# The kernel image for release $1 ($FLAMESTAT_KERNEL when set).
vm_kernel_image() {
	local img=${FLAMESTAT_KERNEL:-/boot/vmlinuz-$1}
	[ -r "$img" ] || vm_die "no kernel image $img: apt-get install linux-image-$1 (or linux-image-amd64)"
	echo "$img"
}

# Boots a trivial initramfs with QEMU accelerator arguments "$2" under a
# time limit; true when the guest printed its marker. $1: kernel image.
vm_probe_accel() {
	local kernel=$1 args=$2 dir rc=1
	dir=$(mktemp -d "${TMPDIR:-/tmp}/flamestat-probe.XXXXXX")
	mkdir -p "$dir/root/bin"
	cp /bin/busybox "$dir/root/bin/busybox"
	printf '#!/bin/busybox sh\n/bin/busybox mount -t devtmpfs dev /dev\n/bin/busybox echo FLAMESTAT-PROBE-OK > /dev/ttyS0\n/bin/busybox poweroff -f\n' >"$dir/root/init"
	chmod 755 "$dir/root/init"
	(cd "$dir/root" && find . | cpio -o -H newc -R 0:0 --quiet) >"$dir/initrd"
	# shellcheck disable=SC2086 # $args is a list of QEMU arguments
	timeout -k 2 15 qemu-system-x86_64 $args -smp 1 -m 256 -nodefaults \
		-no-user-config -display none -monitor none -no-reboot \
		-kernel "$kernel" -initrd "$dir/initrd" \
		-append "console=ttyS0 quiet panic=-1" \
		-serial "file:$dir/console" >/dev/null 2>&1
	grep -q FLAMESTAT-PROBE-OK "$dir/console" 2>/dev/null && rc=0
	rm -rf "$dir"
	return $rc
}

# QEMU accelerator and CPU arguments: KVM when a guest really boots with it
# (probed once, cached in $FLAMESTAT_CACHE), else TCG with every CPU
# feature TCG has (SMAP and SMEP included, so user-memory accesses are
# checked as on real hardware). $1: auto, kvm or tcg; $2: kernel image.
vm_accel_args() {
	local want=$1 kernel=$2 cache key line
	local tcg="-accel tcg -cpu max"
	case "$want" in
	tcg) echo "$tcg"; return ;;
	kvm | auto) ;;
	*) vm_die "unknown accelerator '$want' (auto, kvm or tcg)" ;;
	esac
	if [ ! -c /dev/kvm ] || [ ! -w /dev/kvm ]; then
		[ "$want" = kvm ] && vm_die "--accel kvm: /dev/kvm is missing or not writable"
		echo "$tcg"
		return
	fi
	cache="$FLAMESTAT_CACHE/accel-probe"
	key="$(uname -r)|$(qemu-system-x86_64 --version | head -n 1)|$kernel"
	if [ -f "$cache" ] && [ "$(head -n 1 "$cache")" = "$key" ]; then
		line=$(sed -n 2p "$cache")
	else
		line="$tcg"
		for a in "-accel kvm -cpu host" "-accel kvm"; do
			if vm_probe_accel "$kernel" "$a"; then
				line="$a"
				break
			fi
		done
		printf '%s\n%s\n' "$key" "$line" >"$cache.$$" && mv "$cache.$$" "$cache"
	fi
	if [ "$want" = kvm ] && [ "$line" = "$tcg" ]; then
		vm_die "--accel kvm: KVM guests do not boot on this machine (cached in $cache)"
	fi
	echo "$line"
}

# Reads a guest test's header: the value of "# KEY: value" in its first
# 30 lines, or $3 when absent.
vm_test_header() {
	local file=$1 key=$2 def=${3-} v
	v=$(head -n 30 "$file" | sed -n "s/^# $key:[[:space:]]*//p" | head -n 1)
	echo "${v:-$def}"
}
