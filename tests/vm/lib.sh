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

# The guests' architecture: x86_64 (the host's), or arm64 with
# FLAMESTAT_ARCH=arm64: qemu-system-aarch64 under TCG, with what
# tests/arm64/setup.sh prepared (the kernel and its modules, busybox, the
# libraries of the cross-build chroot: $FLAMESTAT_CACHE/arm64/SUITE/env,
# SUITE from FLAMESTAT_ARM64_SUITE, default bookworm) and what
# tests/arm64/build.sh built (tests/build/arm64/SUITE).
# FS_VM_SYSROOT: where the guest's shared libraries come from (empty: the
# host's, found by ldd); FS_VM_MULTIARCH: their directory there.
case ${FLAMESTAT_ARCH:-x86_64} in
x86_64 | amd64)
	FS_VM_ARCH=x86_64
	FS_VM_QEMU=qemu-system-x86_64
	FS_VM_SYSROOT="" FS_VM_MULTIARCH=x86_64-linux-gnu
	FS_VM_BUSYBOX=/bin/busybox
	FS_VM_TOOL=${FLAMESTAT_TOOL:-$TOP/user/flamestat}
	FS_VM_WORKLOADS=${FLAMESTAT_WORKLOADS:-$BUILD/workloads}
	FS_VM_DEFAULT_KO=$TOP/kmod/flamestat.ko ;;
arm64 | aarch64)
	FS_VM_ARCH=arm64
	FS_VM_QEMU=qemu-system-aarch64
	FS_VM_ARM64_SUITE=${FLAMESTAT_ARM64_SUITE:-bookworm}
	FS_VM_ARM64_ENV=$FLAMESTAT_CACHE/arm64/$FS_VM_ARM64_SUITE/env
	ARM64_TREE="" ARM64_KREL="" ARM64_KERNEL="" ARM64_MODULES="" ARM64_BUSYBOX=""
	# shellcheck source=/dev/null
	[ -f "$FS_VM_ARM64_ENV" ] && . "$FS_VM_ARM64_ENV"
	FS_VM_SYSROOT=$ARM64_TREE FS_VM_MULTIARCH=aarch64-linux-gnu
	FS_VM_BUSYBOX=$ARM64_BUSYBOX
	FS_VM_TOOL=${FLAMESTAT_TOOL:-$BUILD/arm64/$FS_VM_ARM64_SUITE/flamestat}
	FS_VM_WORKLOADS=${FLAMESTAT_WORKLOADS:-$BUILD/arm64/$FS_VM_ARM64_SUITE/workloads}
	FS_VM_DEFAULT_KO=$BUILD/arm64/$FS_VM_ARM64_SUITE/flamestat.ko ;;
*)
	echo "flamestat-vm: FLAMESTAT_ARCH=$FLAMESTAT_ARCH: x86_64 or arm64" >&2
	exit 1 ;;
esac

# The module and the kernel the guests use. A whole run can use another
# kernel (tests/debug-kernel/check.sh: the debug kernel) by setting
# FLAMESTAT_KERNEL (its bzImage) and FLAMESTAT_KO (the module built for it).
FS_VM_KO=${FLAMESTAT_KO:-$FS_VM_DEFAULT_KO}

# Lines that match FS_VM_BAD_DMESG but report no problem: the debug
# kernel's (tests/debug-kernel) checkers announcing themselves at boot.
FS_VM_BENIGN_DMESG='RCU lockdep checking is enabled|kmemleak: Kernel memory leak detector initialized'

vm_msg() { echo "flamestat-vm: $*" >&2; }
vm_die() { vm_msg "$*"; exit 1; }

# vm_arm64_ready: dies unless tests/arm64/setup.sh has run (arm64 only).
vm_arm64_ready() {
	[ "$FS_VM_ARCH" = arm64 ] || return 0
	[ -n "$ARM64_KREL" ] ||
		vm_die "no arm64 setup ($FS_VM_ARM64_ENV): run tests/arm64/setup.sh --suite $FS_VM_ARM64_SUITE (as root)"
}

# The release of the kernel to boot: the one the module was built for
# (its vermagic), else the one scripts/kernel-headers.sh picks.
vm_kver() {
	local ko=$FS_VM_KO v=""
	if [ -f "$ko" ]; then
		v=$(modinfo -F vermagic "$ko" 2>/dev/null | awk '{print $1}')
	fi
	if [ -z "$v" ] && [ "$FS_VM_ARCH" = arm64 ]; then
		vm_arm64_ready
		v=$ARM64_KREL
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

# The kernel image for release $1 ($FLAMESTAT_KERNEL when set; arm64: the
# one tests/arm64/setup.sh fetched).
vm_kernel_image() {
	local img=${FLAMESTAT_KERNEL:-/boot/vmlinuz-$1}
	if [ "$FS_VM_ARCH" = arm64 ] && [ -z "${FLAMESTAT_KERNEL:-}" ]; then
		vm_arm64_ready
		[ "$1" = "$ARM64_KREL" ] ||
			vm_die "no arm64 kernel image for $1 (tests/arm64/setup.sh --suite $FS_VM_ARM64_SUITE fetched $ARM64_KREL; FLAMESTAT_KERNEL=IMAGE for another)"
		img=$ARM64_KERNEL
	fi
	[ -r "$img" ] || vm_die "no kernel image $img: apt-get install linux-image-$1 (or linux-image-amd64)"
	echo "$img"
}

# The guest kernel's module tree for release $1 ($FLAMESTAT_MODULES when set).
vm_modules_dir() {
	if [ -n "${FLAMESTAT_MODULES:-}" ]; then
		echo "$FLAMESTAT_MODULES"
	elif [ "$FS_VM_ARCH" = arm64 ] && [ "$1" = "$ARM64_KREL" ]; then
		echo "$ARM64_MODULES"
	else
		echo "/lib/modules/$1"
	fi
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
# checked as on real hardware). $1: auto, kvm, tcg or tcg-single; $2:
# kernel image. tcg-single: one host thread runs every vCPU in turn
# (thread=single), so that no vCPU runs kernel text another is patching:
# multi-threaded TCG has hung guests whose kernel flips the scheduler
# tracepoints' static keys under a switch storm, module or not
# (docs/RELIABILITY.md).
vm_accel_args() {
	local want=$1 kernel=$2 cache key line
	local tcg="-accel tcg -cpu max"
	# No KVM for an arm64 guest on an x86 host. The virt board; -cpu max
	# has pointer authentication (the kernel and user space sign their
	# return addresses), here with QEMU's cheaper implementation-defined
	# algorithm: with QARMA5, the architected one, a busybox guest took
	# 17 s from start to power-off against 11 s (6.1, 2 vCPUs).
	[ "$FS_VM_ARCH" = arm64 ] && tcg="-M virt -accel tcg -cpu max,pauth-impdef=on"
	if [ "$want" = tcg-single ]; then
		echo "${tcg/-accel tcg/-accel tcg,thread=single}"
		return
	fi
	if [ "$FS_VM_ARCH" = arm64 ]; then
		[ "$want" = kvm ] && vm_die "--accel kvm: no KVM for an arm64 guest on this host"
		echo "$tcg"
		return
	fi
	case "$want" in
	tcg) echo "$tcg"; return ;;
	kvm | auto) ;;
	*) vm_die "unknown accelerator '$want' (auto, kvm, tcg or tcg-single)" ;;
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
