#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Builds the guest initramfs: static busybox, /init, kmod/flamestat.ko,
# user/flamestat and the workloads with their shared libraries, symbol
# tables of the workloads, the virtio modules of the artifact disk, fuse,
# vhost-net and tun, and the guest tests to run.
#
#   tests/vm/mkinitramfs.sh -o OUT.cpio [options] [GUEST_TEST.sh...]
#     -o FILE         the initramfs to write (uncompressed newc cpio)
#     -k KVER         guest kernel release (default: the module's vermagic)
#     -t SECS         default per-test timeout (default 120; a test's
#                     "# timeout: N" header wins)
#     -f SRC[:DST]    also copy SRC to DST (default /opt/extra/NAME); ELF
#                     executables bring their shared libraries
#     -M              no module (for booting without kmod/flamestat.ko)
#     -T              no tool (user/flamestat) even if it is built
#     -R ROOT         stage into the Debian tree ROOT instead of a cpio (for
#                     rootfs.sh image): no busybox applets (busybox itself if
#                     ROOT lacks it, for poweroff), ROOT's kernel modules and
#                     libraries stay, fsuser and fsgroup are appended to
#                     ROOT's passwd and group (an initramfs also has the
#                     group flamestat, 1002, with fsuser in it)
#
# The tests run in the order given, each as /tests/NAME.sh, with
# tests/guest/lib.sh as /tests/lib.sh. Environment: FLAMESTAT_KO (the
# module, default kmod/flamestat.ko), FLAMESTAT_MODULES (the guest kernel's
# module tree, default /lib/modules/KVER: set it for a kernel that is not
# installed on the host), FLAMESTAT_ARCH (arm64: the arm64 busybox, module,
# tool, workloads and libraries of tests/arm64/setup.sh and build.sh; see
# tests/vm/lib.sh), FLAMESTAT_TIMEOUT_SCALE (every test
# timeout multiplied by it, for slow kernels; default 1), FLAMESTAT_TORTURE
# (short, long or debug: the size of the torture tests, in the guest's
# /etc/flamestat/env as FS_TORTURE; default short; with long or debug, a
# test's "# timeout-long: S" header replaces its "# timeout: S").
set -u
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

out="" kver="" def_timeout=120 no_module=0 no_tool=0 root=""
extras=()
while getopts "o:k:t:f:MTR:h" opt; do
	case "$opt" in
	o) out=$OPTARG ;;
	k) kver=$OPTARG ;;
	t) def_timeout=$OPTARG ;;
	f) extras+=("$OPTARG") ;;
	M) no_module=1 ;;
	T) no_tool=1 ;;
	R) root=$OPTARG ;;
	h) sed -n '3,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ -n "$out$root" ] || vm_die "mkinitramfs: -o FILE (or -R ROOT) is required"
vm_arm64_ready
[ -n "$kver" ] || kver=$(vm_kver)
[ -n "$kver" ] || vm_die "mkinitramfs: no guest kernel release (install linux-headers-amd64)"

if [ -n "$root" ]; then
	[ -x "$root/usr/bin/apt-get" ] || vm_die "mkinitramfs: -R $root is not a Debian tree"
	stage=$(cd "$root" && pwd)
else
	stage=$(mktemp -d "${TMPDIR:-/tmp}/flamestat-initramfs.XXXXXX")
	chmod 755 "$stage" # the guest's /: mktemp made it 0700
	trap 'rm -rf "$stage"' EXIT
fi

# copy_file SRC DST: copy SRC (following symlinks) to DST in the stage.
copy_file() {
	mkdir -p "$stage$(dirname "$2")"
	cp -L "$1" "$stage$2" || vm_die "mkinitramfs: cannot copy $1"
}

# copy_libs ELF: the shared libraries ELF needs, dynamic loader included,
# at the paths they have on the host (Debian's guest and host agree); from
# $FS_VM_SYSROOT when the guest is of another architecture.
copy_libs() {
	local lib
	if [ -n "$FS_VM_SYSROOT" ]; then
		copy_libs_sysroot "$1"
		return
	fi
	# ldd prints nothing useful (and fails) for a static executable.
	ldd "$1" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}' |
	while read -r lib; do
		case "$lib" in "$BUILD"/*) continue ;; esac
		[ -e "$stage$lib" ] && continue
		copy_file "$lib" "$lib"
		copy_debug "$lib"
	done
}

# copy_libs_sysroot ELF: what copy_libs does, by reading the ELF files
# instead of running ldd (it cannot run a foreign one): the dynamic loader
# (PT_INTERP) and each DT_NEEDED library, looked for in $FS_VM_SYSROOT's
# multiarch and plain library directories as the loader would, with the
# libraries these need in turn; the ones beside ELF (the workloads' own,
# found by a $ORIGIN run path) stay out, as the ones in $BUILD do above.
copy_libs_sysroot() {
	local f=$1 interp lib d p
	interp=$(readelf -lW "$f" 2>/dev/null | sed -n 's/.*\[Requesting program interpreter: \(.*\)\]$/\1/p')
	if [ -n "$interp" ] && [ ! -e "$stage$interp" ]; then
		copy_file "$FS_VM_SYSROOT$interp" "$interp"
	fi
	for lib in $(readelf -dW "$f" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'); do
		# shellcheck disable=SC2016 # a literal $ORIGIN
		if readelf -dW "$f" | grep -qE '\((RUNPATH|RPATH)\).*\$ORIGIN' &&
			[ -e "$(dirname "$f")/$lib" ]; then
			continue
		fi
		for d in "/lib/$FS_VM_MULTIARCH" "/usr/lib/$FS_VM_MULTIARCH" /lib /usr/lib; do
			p=$d/$lib
			[ -e "$FS_VM_SYSROOT$p" ] || continue
			if [ ! -e "$stage$p" ]; then
				copy_file "$FS_VM_SYSROOT$p" "$p"
				copy_debug "$FS_VM_SYSROOT$p"
				copy_libs_sysroot "$FS_VM_SYSROOT$p"
			fi
			continue 2
		done
		vm_die "mkinitramfs: $f needs $lib, which $FS_VM_SYSROOT does not have"
	done
}

# copy_debug ELF: its separate debug file, found by build-id as the tool
# looks for it (/usr/lib/debug/.build-id/xx/rest.debug; libc6-dbg has
# those of glibc, whose stripped libraries name little otherwise), on the
# host or in $FS_VM_SYSROOT.
copy_debug() {
	local id dbg
	id=$(readelf -n "$1" 2>/dev/null | awk '/Build ID:/ {print $3; exit}')
	[ -n "$id" ] || return 0
	dbg="/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug"
	if [ -f "$FS_VM_SYSROOT$dbg" ] && [ ! -e "$stage$dbg" ]; then
		copy_file "$FS_VM_SYSROOT$dbg" "$dbg"
	fi
	return 0
}

# syms ELF: "start end name" per function, as decimal file offsets (what
# the module prints after "file+0x"), for the guest's symbolizer.
syms() {
	local f=$1 loads=() off va sz a s n o
	while read -r off va sz; do
		loads+=("$((off)) $((va)) $((sz))")
	done < <(readelf -lW "$f" | awk '$1 == "LOAD" {print $2, $3, $5}')
	# Functions, and the PLT's stubs as objdump names them (16 bytes each).
	{
		nm --defined-only -S "$f" 2>/dev/null | awk 'NF == 4 && $3 ~ /^[tTwW]$/ {print $1, $2, $4}'
		objdump -d -j .plt -j .plt.sec "$f" 2>/dev/null |
			sed -n 's/^\([0-9a-f]*\) <\([^>+]*@plt\)>:$/\1 10 \2/p'
	} |
	while read -r a s n; do
		a=$((16#$a)) s=$((16#$s))
		for l in "${loads[@]}"; do
			read -r off va sz <<<"$l"
			if [ "$a" -ge "$va" ] && [ "$a" -lt $((va + sz)) ]; then
				o=$((a - va + off))
				echo "$o $((o + s)) $n"
				break
			fi
		done
	done | sort -n
}

mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,etc/flamestat/syms,dev,proc,sys,tmp,run,root,tests,opt/workloads,artifacts,lib/flamestat}

# busybox and its applets (an arm64 busybox gets the host's list: Debian
# configures busybox-static alike on every architecture)
if [ -z "$root" ]; then
	copy_file "$FS_VM_BUSYBOX" /bin/busybox
	for a in $(/bin/busybox --list); do
		[ "$a" = busybox ] || ln -s busybox "$stage/bin/$a"
	done
	printf 'root:x:0:0:root:/root:/bin/sh\nfsuser:x:1000:1000:flamestat test user:/tmp:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' >"$stage/etc/passwd"
	# flamestat: the group of the udev rule (packaging/udev), below.
	printf 'root:x:0:\nfsuser:x:1000:\nfsgroup:x:1001:fsuser\nflamestat:x:1002:fsuser\nnogroup:x:65534:\n' >"$stage/etc/group"
else
	# /init powers off with "busybox poweroff -f" (a minbase tree has no init).
	[ -e "$stage/bin/busybox" ] || copy_file "$FS_VM_BUSYBOX" /bin/busybox
	grep -q '^fsuser:' "$stage/etc/passwd" ||
		echo 'fsuser:x:1000:1000:flamestat test user:/tmp:/bin/sh' >>"$stage/etc/passwd"
	grep -q '^fsuser:' "$stage/etc/group" || echo 'fsuser:x:1000:' >>"$stage/etc/group"
	grep -q '^fsgroup:' "$stage/etc/group" || echo 'fsgroup:x:1001:fsuser' >>"$stage/etc/group"
	# A locked password: su from root works (PAM wants the entry).
	if [ -f "$stage/etc/shadow" ] && ! grep -q '^fsuser:' "$stage/etc/shadow"; then
		echo 'fsuser:*:19000:0:99999:7:::' >>"$stage/etc/shadow"
	fi
fi
cp "$TOP/tests/vm/guest-init.sh" "$stage/init"
chmod 755 "$stage/init"
echo "$kver" >"$stage/etc/flamestat/kver"
case "${FLAMESTAT_TORTURE:-short}" in
short | long | debug) echo "FS_TORTURE=${FLAMESTAT_TORTURE:-short}" >"$stage/etc/flamestat/env" ;;
*) vm_die "mkinitramfs: FLAMESTAT_TORTURE must be short, long or debug" ;;
esac
tscale=${FLAMESTAT_TIMEOUT_SCALE:-1}
[[ $tscale =~ ^[1-9][0-9]*$ ]] || vm_die "mkinitramfs: FLAMESTAT_TIMEOUT_SCALE must be a positive integer"

if [ $no_module = 0 ]; then
	[ -f "$FS_VM_KO" ] || vm_die "mkinitramfs: $FS_VM_KO is not built (make module)"
	copy_file "$FS_VM_KO" /lib/flamestat/flamestat.ko
	# Also where 'make install' puts it, so that modprobe (and the
	# tool, which uses modprobe first) finds it; depmod runs below.
	copy_file "$FS_VM_KO" "/lib/modules/$kver/extra/flamestat.ko"
	# Its udev rule, where 'make install' puts it too (a busybox guest
	# runs no udev: tests apply it with fs_udev_rule, tests/guest/lib.sh).
	copy_file "$TOP/packaging/udev/70-flamestat.rules" /etc/udev/rules.d/70-flamestat.rules
fi
if [ $no_tool = 0 ] && [ -x "$FS_VM_TOOL" ]; then
	copy_file "$FS_VM_TOOL" /usr/bin/flamestat
	copy_libs "$FS_VM_TOOL"
fi

# workloads, their libraries and symbol tables
if [ -d "$FS_VM_WORKLOADS" ]; then
	for w in "$FS_VM_WORKLOADS"/*; do
		[ -f "$w" ] || continue
		copy_file "$w" "/opt/workloads/$(basename "$w")"
		copy_libs "$w"
		syms "$w" >"$stage/etc/flamestat/syms/$(basename "$w").syms"
	done
fi

# virtio-blk, for the artifact disk, loop, for the off-CPU tests' disk
# waits, fuse, for the stalled-file-system
# test, and vhost-net with what it needs (depmod: vhost, vhost_iotlb, tun,
# tap), for the vhost worker test (uncompressed or .ko.xz/.ko.zst); a
# Debian tree (-R) has its own. arm64 guests also get virtio_console: their
# report channel is a virtio console (hvc0; guest-init.sh), the virt board
# having a single serial port.
if [ -z "$root" ]; then
	mods_dir=$(vm_modules_dir "$kver")
	extra_mods=""
	[ "$FS_VM_ARCH" = arm64 ] && extra_mods=drivers/char/virtio_console
	for m in drivers/virtio/virtio_ring drivers/virtio/virtio \
		drivers/virtio/virtio_pci_legacy_dev drivers/virtio/virtio_pci_modern_dev \
		drivers/virtio/virtio_pci drivers/block/virtio_blk drivers/block/loop fs/fuse/fuse \
		drivers/vhost/vhost_iotlb drivers/vhost/vhost drivers/vhost/vhost_net \
		drivers/net/tun drivers/net/tap $extra_mods; do
		src="$mods_dir/kernel/$m.ko"
		dst="/lib/modules/$kver/kernel/$m.ko"
		if [ -f "$src" ]; then
			copy_file "$src" "$dst"
		elif [ -f "$src.xz" ]; then
			mkdir -p "$stage$(dirname "$dst")"
			xz -dc "$src.xz" >"$stage$dst"
		elif [ -f "$src.zst" ]; then
			mkdir -p "$stage$(dirname "$dst")"
			zstd -qdc "$src.zst" >"$stage$dst"
		fi
		# Built in (or absent): the guest does without.
	done
fi
if [ -d "$stage/lib/modules/$kver" ]; then
	depmod -b "$stage" "$kver" 2>/dev/null || vm_die "mkinitramfs: depmod failed"
fi

for e in "${extras[@]}"; do
	src=${e%%:*}
	dst=${e#*:}
	[ "$dst" = "$e" ] && dst="/opt/extra/$(basename "$src")"
	copy_file "$src" "$dst"
	copy_libs "$src"
done

# the tests, in order, with their timeouts
copy_file "$TOP/tests/guest/lib.sh" /tests/lib.sh
: >"$stage/etc/flamestat/tests"
for t in "$@"; do
	[ -f "$t" ] || vm_die "mkinitramfs: no guest test $t"
	name=$(basename "$t" .sh)
	copy_file "$t" "/tests/$name.sh"
	tmo=$(vm_test_header "$t" timeout "$def_timeout")
	[ "${FLAMESTAT_TORTURE:-short}" != short ] && tmo=$(vm_test_header "$t" timeout-long "$tmo")
	echo "$name $((tmo * tscale))" >>"$stage/etc/flamestat/tests"
done

[ -n "$root" ] && exit 0
if ! (cd "$stage" && find . -print | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) >"$out.tmp"; then
	rm -f "$out.tmp"
	vm_die "mkinitramfs: cpio failed"
fi
mv "$out.tmp" "$out"
