#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Debian guests with a real root file system: a debootstrap'd bookworm tree
# per package list (cached), ext4 images made from copies of it, and
# commands run in such a tree (chroot). boot.sh --rootfs boots the images.
#
#   tests/vm/rootfs.sh tree [-k KVER] [-p "PKG..."]...
#       Prints the directory of the cached tree (building it if needed):
#       debootstrap --variant=minbase SUITE, sources.list with SUITE,
#       SUITE-updates and SUITE-security, then apt-get install of
#       linux-image-KVER linux-headers-KVER kmod libelf1 and the packages.
#       Read-only for callers: copy it (the image command does).
#   tests/vm/rootfs.sh image -o OUTDIR [-k KVER] [-p "PKG..."]... [-x SCRIPT]...
#                            [-s MB] [-M] [-T] [-f SRC[:DST]]... [TEST.sh...]
#       Makes OUTDIR/rootfs.img (ext4, mke2fs -d, no mount) from a copy of
#       the tree, plus OUTDIR/vmlinuz, OUTDIR/initrd.img (the tree's own
#       kernel and initrd) and OUTDIR/kver. On the copy, in order:
#         -x SCRIPT  runs "SCRIPT ROOT" on the host (ROOT: the copy); it can
#                    run commands inside with "rootfs.sh chroot ROOT CMD..."
#         the harness: tests/vm/mkinitramfs.sh -R ROOT adds /init (the guest
#                    init), the tests, the module and the tool of the build
#                    tree (-M, -T: without them), the workloads and -f files
#       -s MB: image size (default: what the tree uses + 50% + 512 MiB).
#   tests/vm/rootfs.sh chroot ROOT CMD...
#       Runs CMD in ROOT with /proc, /sys and a private /dev (tmpfs with
#       null, zero, full, random, urandom, tty, devpts) mounted in a private
#       mount namespace (gone when CMD exits), services prevented from
#       starting, DEBIAN_FRONTEND=noninteractive.
#
# SUITE is bookworm, or $FLAMESTAT_ROOTFS_SUITE (tests/deb/run.sh: bullseye,
# sid). -k: the guest kernel release (default: the module's vermagic, as
# for the initramfs; with FLAMESTAT_ROOTFS_SUITE, the suite's own kernel:
# whatever release its linux-image-ARCH and linux-headers-ARCH install).
# -p may repeat; packages are space- or comma-separated;
# $FLAMESTAT_ROOTFS_PKGS are added to them (tests/deb/run.sh: a second
# kernel of the suite).
# Trees live in $FLAMESTAT_CACHE/rootfs/KEY/, KEY a hash of the builder
# version, the release, the kernel and the sorted package list (and the
# architecture when it is not amd64); downloaded .debs are shared in
# $FLAMESTAT_CACHE/rootfs/debs. Needs root.
#
# FLAMESTAT_ARCH=arm64 (tests/vm/lib.sh): arm64 trees (debootstrap --arch
# arm64, the arm64 kernel flavour) for boot.sh's arm64 guests. The tree's
# programs (debootstrap's second stage, apt, dpkg, update-initramfs, DKMS)
# run on the host under qemu-user-static through binfmt_misc: the package
# comes from tests/arm64/rootfs.list, and the aarch64 entry is registered
# from its /usr/lib/binfmt.d file, with the F flag (the interpreter is
# opened at registration, so it works inside chroots), when the host has
# none.
set -u
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

# Bump when trees built by an older version of this script must not be reused.
ROOTFS_BUILDER=3
SUITE=${FLAMESTAT_ROOTFS_SUITE:-bookworm}
# Debian's name of the guests' architecture, which is also its kernel
# flavour (linux-image-amd64, linux-image-arm64).
case $FS_VM_ARCH in
arm64) DEB_ARCH=arm64 ;;
*) DEB_ARCH=amd64 ;;
esac
# The archives of the host's own apt sources (no archive is named here);
# they serve every suite.
MIRROR=$("$TOP/scripts/apt-archive.sh" main) || exit 1
SECURITY=$("$TOP/scripts/apt-archive.sh" security) || exit 1
CACHE="$FLAMESTAT_CACHE/rootfs"
# Downloaded .debs, shared by every tree; ROOTFS_DEBS gives a chroot of
# another user (tests/fresh) a cache of its own, so that two apt runs never
# wait for each other's lock on it.
# Another architecture's trees have their own (and their own build lock,
# below): an arm64 build under emulation takes long, and the amd64 trees
# of other runs need not wait for it.
ARCH_SUFFIX=""
[ "$DEB_ARCH" = amd64 ] || ARCH_SUFFIX=-$DEB_ARCH
DEBS=${ROOTFS_DEBS:-$CACHE/debs$ARCH_SUFFIX}

usage() { sed -n '3,49p' "$0" | sed 's/^# \{0,1\}//'; }

# rootfs_chroot ROOT CMD...: see the chroot command above.
rootfs_chroot() {
	local root=$1
	shift
	[ -x "$root/usr/bin/apt-get" ] || vm_die "rootfs: $root is not a Debian tree"
	# Daemons that packages try to start stay down (invoke-rc.d asks this).
	if [ ! -e "$root/usr/sbin/policy-rc.d" ]; then
		printf '#!/bin/sh\n# flamestat rootfs: no services in the build chroot\nexit 101\n' \
			>"$root/usr/sbin/policy-rc.d"
		chmod 755 "$root/usr/sbin/policy-rc.d"
	fi
	mkdir -p "$DEBS/partial"
	# shellcheck disable=SC2016 # the script expands its own arguments
	unshare --mount --propagation private -- /bin/sh -ec '
		root=$1 debs=$2
		shift 2
		mount -t proc proc "$root/proc"
		mount -t sysfs sysfs "$root/sys"
		# A /dev of its own: nothing in the chroot can touch the host'"'"'s.
		mount -t tmpfs -o mode=755,size=1m fsdev "$root/dev"
		for n in null:1:3 zero:1:5 full:1:7 random:1:8 urandom:1:9 tty:5:0; do
			mknod -m 666 "$root/dev/${n%%:*}" c "$(echo "$n" | cut -d: -f2)" "${n##*:}"
		done
		mkdir "$root/dev/pts" "$root/dev/shm"
		mount -t devpts -o newinstance,ptmxmode=0666 devpts "$root/dev/pts"
		ln -s pts/ptmx "$root/dev/ptmx"
		ln -s /proc/self/fd "$root/dev/fd"
		# The packages apt downloads are kept for every tree.
		mount --bind "$debs" "$root/var/cache/apt/archives"
		exec chroot "$root" /usr/bin/env -i HOME=/root LC_ALL=C.UTF-8 \
			PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
			"$@"' rootfs-chroot "$root" "$DEBS" "$@"
}

# pkg_list "PKG..."...: the packages, one per line, sorted and unique.
pkg_list() {
	printf '%s\n' "$@" | tr -s ', ' '\n' | sed '/^$/d' | LC_ALL=C sort -u
}

# tree_key KVER PKGS: the cache key of a tree (amd64's without an
# architecture line: the keys of the trees built before arm64 stay valid).
tree_key() {
	{
		printf 'builder %s\nsuite %s\nmirror %s\nsecurity %s\nkernel %s\n%s\n' \
			"$ROOTFS_BUILDER" "$SUITE" "$MIRROR" "$SECURITY" "$1" "$2"
		[ "$DEB_ARCH" = amd64 ] || echo "arch $DEB_ARCH"
	} | sha256sum | cut -c1-16
}

# foreign_ready: the host runs the tree's arm64 programs (qemu-user-static
# through binfmt_misc: see the top), or dies saying why not.
foreign_ready() {
	[ "$DEB_ARCH" != amd64 ] || return 0
	local bm=/proc/sys/fs/binfmt_misc conf line
	"$TOP/scripts/install-deps.sh" --only "$TOP/tests/arm64/rootfs.list" >&2 ||
		vm_die "rootfs: cannot install qemu-user-static (tests/arm64/rootfs.list)"
	[ -e "$bm/register" ] || mount -t binfmt_misc binfmt_misc "$bm" ||
		vm_die "rootfs: cannot mount binfmt_misc on $bm"
	if ! grep -qx enabled "$bm/qemu-aarch64" 2>/dev/null; then
		conf=/usr/lib/binfmt.d/qemu-aarch64.conf
		[ -f "$conf" ] || vm_die "rootfs: no $conf (qemu-user-static)"
		line=$(grep -m1 '^:qemu-aarch64:' "$conf")
		# The flags are the last field: F added (see the top).
		case ${line##*:} in *F*) ;; *) line="${line}F" ;; esac
		[ -e "$bm/qemu-aarch64" ] && echo -1 >"$bm/qemu-aarch64"
		printf '%s\n' "$line" >"$bm/register" ||
			vm_die "rootfs: cannot register qemu-aarch64 with binfmt_misc ($line)"
		vm_msg "rootfs: registered $conf with binfmt_misc (flags ${line##*:})"
	fi
	grep -q '^flags:.*F' "$bm/qemu-aarch64" ||
		vm_die "rootfs: binfmt_misc's qemu-aarch64 lacks the F flag: chroots cannot run arm64 programs ($bm/qemu-aarch64)"
}

# The kernel image of release $2 in the tree $1: /boot/vmlinuz-KVER, or
# usr/lib/modules/KVER/vmlinuz where the suite's kernel packages keep it
# there only (merged /usr: sid).
tree_vmlinuz() {
	local f
	for f in "$1/boot/vmlinuz-$2" "$1/usr/lib/modules/$2/vmlinuz"; do
		[ -f "$f" ] && { echo "$f"; return 0; }
	done
	return 1
}

# apt_install ROOT LOG PKG...: apt-get install the packages in ROOT. A
# mirror may list a version whose files it lacks (seen: bullseye-security's
# kernel metapackages, 404): then the requested packages at that version
# step down to their next older version, up to 5 times.
apt_install() {
	local root=$1 log=$2 try bad p name cand older changed
	shift 2
	local -a want=("$@") next
	for try in 1 2 3 4 5; do
		if rootfs_chroot "$root" apt-get install -y -q --no-install-recommends "${want[@]}" \
			>"$log.try" 2>&1; then
			cat "$log.try" >>"$log"
			return 0
		fi
		cat "$log.try" >>"$log"
		bad=$(sed -n 's/^E: Failed to fetch .*_\([^_]*\)_[a-z0-9]*\.deb  *404.*/\1/p' "$log.try" | sort -u)
		[ -n "$bad" ] || return 1
		next=() changed=0
		for p in "${want[@]}"; do
			name=${p%%=*} cand=${p#*=}
			[ "$cand" != "$p" ] ||
				cand=$(rootfs_chroot "$root" apt-cache policy "$name" | sed -n 's/^ *Candidate: //p')
			if grep -qxF -- "$cand" <<<"$bad"; then
				older=$(rootfs_chroot "$root" apt-cache madison "$name" | awk '{print $3}' |
					awk -v c="$cand" 'f && $0 != c { print; exit } $0 == c { f = 1 }')
				[ -n "$older" ] || return 1
				echo "rootfs: $name $cand is listed but missing on the mirror (try $try): taking $older" >>"$log"
				p=$name=$older changed=1
			fi
			next+=("$p")
		done
		[ $changed = 1 ] || return 1
		want=("${next[@]}")
	done
	return 1
}

# build_tree KVER PKGS DIR: debootstrap and install into DIR/tree. KVER
# "suite" installs the suite's kernel metapackages, and DIR/kver says the
# release they brought.
build_tree() {
	local kver=$1 pkgs=$2 dir=$3 root=$3/tree log=$3/build.log kpkgs
	local -a all
	kpkgs="linux-image-$kver linux-headers-$kver"
	[ "$kver" != suite ] || kpkgs="linux-image-$DEB_ARCH linux-headers-$DEB_ARCH"
	mapfile -t all < <(pkg_list "$kpkgs kmod libelf1" "$pkgs")
	vm_msg "rootfs: building a $SUITE $DEB_ARCH tree for $kver with: ${all[*]} (log: $log)"
	mkdir -p "$DEBS/partial"
	if ! debootstrap --arch="$DEB_ARCH" --variant=minbase --cache-dir="$DEBS" "$SUITE" "$root" \
		"$MIRROR" >>"$log" 2>&1; then
		tail -n 20 "$log" >&2
		vm_die "rootfs: debootstrap failed (log: $log)"
	fi
	# The guest kernel and its headers are in SUITE-security.
	"$TOP/scripts/apt-archive.sh" sources "$SUITE" >"$root/etc/apt/sources.list" ||
		vm_die "rootfs: no $SUITE archive in the host's apt sources"
	echo flamestat-guest >"$root/etc/hostname"
	# Newer suites (sid) make the initrd with dracut, which by default
	# takes only the drivers of the machine it runs on: this host's root,
	# not the guest's ext4 on virtio. A generic initrd boots anywhere.
	mkdir -p "$root/etc/dracut.conf.d"
	printf '# flamestat guest: boots under QEMU from an ext4 /dev/vda\nhostonly="no"\n' \
		>"$root/etc/dracut.conf.d/90-flamestat-guest.conf"
	# Under emulation (arm64), initramfs-tools' default MODULES=most runs
	# modprobe and modinfo for thousands of modules: one update-initramfs
	# took 20 minutes. The guest needs the drivers of its root alone:
	# virtio-blk-pci and ext4 (udev, in the initrd, loads them).
	if [ "$DEB_ARCH" != amd64 ]; then
		mkdir -p "$root/etc/initramfs-tools/conf.d" "$root/etc/initramfs-tools/hooks"
		printf '# flamestat guest: the modules of the hook flamestat-guest only\nMODULES=list\n' \
			>"$root/etc/initramfs-tools/conf.d/90-flamestat-guest.conf"
		cat >"$root/etc/initramfs-tools/hooks/flamestat-guest" <<-'EOF'
		#!/bin/sh
		# flamestat guest: an ext4 root on virtio-blk-pci (tests/vm/rootfs.sh).
		[ "$1" = prereqs ] && exit 0
		. /usr/share/initramfs-tools/hook-functions
		manual_add_modules virtio_pci virtio_blk ext4 crc32c_generic libcrc32c
		force_load virtio_pci
		force_load virtio_blk
		EOF
		chmod 755 "$root/etc/initramfs-tools/hooks/flamestat-guest"
	fi
	if ! rootfs_chroot "$root" apt-get update -q >>"$log" 2>&1 ||
		! apt_install "$root" "$log" "${all[@]}"; then
		tail -n 20 "$log" >&2
		vm_die "rootfs: apt-get in the tree failed (log: $log)"
	fi
	if [ "$kver" = suite ]; then
		# shellcheck disable=SC2016 # dpkg-query's own ${Depends}
		kver=$(rootfs_chroot "$root" dpkg-query -W -f='${Depends}' "linux-headers-$DEB_ARCH" |
			vm_headers_release)
		[ -n "$kver" ] || vm_die "rootfs: no kernel release behind $SUITE's linux-headers-$DEB_ARCH"
		echo "$kver" >"$dir/kver"
	fi
	if ! tree_vmlinuz "$root" "$kver" >/dev/null || [ ! -f "$root/boot/initrd.img-$kver" ]; then
		vm_die "rootfs: no vmlinuz-$kver or initrd.img-$kver in the tree (log: $log)"
	fi
	# build is an absolute link on older suites: look from inside.
	rootfs_chroot "$root" test -f "/lib/modules/$kver/build/Makefile" ||
		vm_die "rootfs: no headers for $kver in the tree (log: $log)"
	rootfs_chroot "$root" dpkg-query -W >"$dir/manifest"
}

# ensure_tree KVER PKGS: prints the cached tree's directory, built if
# missing; its kernel release is in the file kver beside it.
ensure_tree() {
	local kver=$1 pkgs=$2 key dir
	pkgs=$(pkg_list "$pkgs" "${FLAMESTAT_ROOTFS_PKGS:-}")
	key=$(tree_key "$kver" "$pkgs")
	dir="$CACHE/$key"
	mkdir -p "$CACHE"
	# Built already (complete is written last): no need to wait for the
	# lock, which another tree's build may hold for many minutes.
	if [ -f "$dir/complete" ]; then
		echo "$dir/tree"
		return 0
	fi
	# One build at a time: others wait, then find the tree built.
	exec 9>"$CACHE/build$ARCH_SUFFIX.lock"
	flock 9
	if [ ! -f "$dir/complete" ]; then
		rm -rf "$dir"
		mkdir -p "$dir"
		printf '%s\n' "$pkgs" >"$dir/packages"
		echo "$kver" >"$dir/kver"
		local t0=$SECONDS
		(build_tree "$kver" "$pkgs" "$dir") || { rm -rf "$dir/tree"; exit 1; }
		vm_msg "rootfs: tree $key built in $((SECONDS - t0))s"
		date -u +%FT%TZ >"$dir/complete"
	fi
	exec 9>&-
	echo "$dir/tree"
}

# default_kver KVER: KVER, or when empty the module's vermagic (bookworm)
# or "suite" (another suite: its own kernel, see build_tree).
default_kver() {
	if [ -n "$1" ]; then
		echo "$1"
	elif [ -n "${FLAMESTAT_ROOTFS_SUITE:-}" ]; then
		echo suite
	else
		vm_kver
	fi
}

cmd_tree() {
	local kver="" pkgs=()
	local OPTIND opt
	while getopts "k:p:h" opt; do
		case "$opt" in
		k) kver=$OPTARG ;;
		p) pkgs+=("$OPTARG") ;;
		h) usage; exit 0 ;;
		*) exit 2 ;;
		esac
	done
	shift $((OPTIND - 1))
	[ $# = 0 ] || vm_die "rootfs tree: unexpected argument '$1'"
	ensure_tree "$(default_kver "$kver")" "$(pkg_list "${pkgs[@]}")"
}

cmd_image() {
	local out="" kver="" size="" pkgs=() scripts=() mk=()
	local OPTIND opt
	while getopts "o:k:p:x:s:f:MTh" opt; do
		case "$opt" in
		o) out=$OPTARG ;;
		k) kver=$OPTARG ;;
		p) pkgs+=("$OPTARG") ;;
		x) scripts+=("$OPTARG") ;;
		s) size=$OPTARG ;;
		f) mk+=(-f "$OPTARG") ;;
		M | T) mk+=("-$opt") ;;
		h) usage; exit 0 ;;
		*) exit 2 ;;
		esac
	done
	shift $((OPTIND - 1))
	[ -n "$out" ] || vm_die "rootfs image: -o OUTDIR is required"
	kver=$(default_kver "$kver")
	[ -z "$size" ] || [[ $size =~ ^[0-9]+$ ]] || vm_die "rootfs image: -s takes MiB"
	local tree root s used
	tree=$(ensure_tree "$kver" "$(pkg_list "${pkgs[@]}")") || exit 1
	kver=$(cat "$(dirname "$tree")/kver")
	mkdir -p "$out"
	out=$(cd "$out" && pwd)
	root="$out/root"
	rm -rf "$root" "$out/rootfs.img"
	cp -a --reflink=auto "$tree" "$root" || vm_die "rootfs image: cannot copy $tree"
	for s in "${scripts[@]}"; do
		vm_msg "rootfs image: running $s"
		if ! FLAMESTAT_ROOTFS_KVER=$kver "$s" "$root"; then
			rm -rf "$root"
			vm_die "rootfs image: $s failed"
		fi
	done
	if ! "$TOP/tests/vm/mkinitramfs.sh" -R "$root" -k "$kver" "${mk[@]}" "$@"; then
		rm -rf "$root"
		vm_die "rootfs image: adding the harness failed"
	fi
	if ! cp "$(tree_vmlinuz "$root" "$kver")" "$out/vmlinuz" ||
		! cp "$root/boot/initrd.img-$kver" "$out/initrd.img"; then
		vm_die "rootfs image: no kernel or initrd for $kver in the tree"
	fi
	echo "$kver" >"$out/kver"
	used=$(du -sm "$root" | cut -f1)
	[ -n "$size" ] || size=$((used * 3 / 2 + 512))
	truncate -s "${size}M" "$out/rootfs.img"
	if ! mke2fs -q -F -t ext4 -L flamestat-root -d "$root" "$out/rootfs.img" 2>"$out/mke2fs.log"; then
		cat "$out/mke2fs.log" >&2
		rm -rf "$root"
		vm_die "rootfs image: mke2fs -d failed (tree: $used MiB, image: $size MiB)"
	fi
	rm -rf "$root"
	vm_msg "rootfs image: $out/rootfs.img ($size MiB, $used MiB used)"
}

[ $# -gt 0 ] || { usage; exit 2; }
cmd=$1
shift
case "$cmd" in
tree | image)
	[ "$(id -u)" = 0 ] || vm_die "rootfs: needs root (debootstrap, chroot)"
	command -v debootstrap >/dev/null || vm_die "rootfs: debootstrap is not installed (scripts/install-deps.sh)"
	foreign_ready
	"cmd_$cmd" "$@" ;;
chroot)
	[ $# -ge 2 ] || vm_die "rootfs chroot: ROOT CMD... expected"
	rootfs_chroot "$@" ;;
-h | --help | help) usage ;;
*) vm_die "rootfs: unknown command '$cmd' (tree, image, chroot)" ;;
esac
