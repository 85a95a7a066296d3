#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make check-deb` (and suite 60-deb): the Debian packages end to end, on
# one or more Debian releases.
#
#   tests/deb/run.sh [--arch arm64] [--no-guest] [SUITE...]
#     SUITE  bookworm (the host's; the default), bullseye (5.10, dkms 2.8:
#            no signing, no dh-dkms) or sid (7.x, the newest dkms);
#            make check-deb runs all three, make check bookworm only
#     --arch arm64  (make check-deb-arm64; bookworm only) the arm64
#            packages: flamestat_VERSION_arm64.deb cross-built by
#            scripts/build-deb.sh --arch arm64 in tests/arm64/setup.sh's
#            bookworm chroot (lintian on the host), then installed in an
#            arm64 rootfs guest (FLAMESTAT_ARCH=arm64 tests/vm/rootfs.sh;
#            its programs, DKMS's build included, run under qemu-user) with
#            the guest's kernel alone: no kernel upgrade or removal (a DKMS
#            build under emulation takes minutes). Labels deb-arm64/.
#     --no-guest  (suite 60-deb, make check) the packages built, checked by
#            lintian and for what they hold, no more: the rootfs, DKMS in
#            it and the guest (about 3.5 minutes) are make check-deb's
#
# For each suite: builds the flamestat and flamestat-dkms packages with
# scripts/build-deb.sh there (the host's suite on the host, lintian
# included, and what they hold is checked; another suite in its build
# chroot, tests/lib/suite-chroot.sh, as a user of that release runs
# `make deb`); then boots a rootfs guest of the suite (tests/vm/rootfs.sh,
# the suite's own kernel plus a second one) into whose tree
# tests/deb/prepare.sh apt-installed them (DKMS builds the module in the
# chroot, on installation and from the kernel-upgrade hook) and runs
# tests/deb/guest/*.sh there: what got installed, modprobe, flamestat
# record, refusal under enforced signatures, apt remove. Prints PASS/FAIL
# lines as the suites do (deb/ for bookworm, deb-SUITE/ for the others);
# exit status 1 on any failure.
#
# Rootfs trees are cached in $FLAMESTAT_CACHE/rootfs, the build chroots in
# $FLAMESTAT_CACHE/kernels: the first run builds them (about 5 minutes a
# suite, from the Debian archive of the host's apt sources).
set -u
# shellcheck source-path=SCRIPTDIR source=../lib/common.sh
source "$(dirname "$0")/../lib/common.sh"

version=$(cat "$TOP/VERSION")
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
# shellcheck source=/dev/null
host_suite=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-bookworm}")
cross="" guest=1
while [ $# -gt 0 ]; do
	case $1 in
	--arch)
		cross=${2:-}
		shift 2 || shift
		[ "$cross" = arm64 ] || { echo "tests/deb/run.sh: --arch arm64 (the only other one)" >&2; exit 2; } ;;
	--no-guest) guest=0; shift ;;
	-*) echo "tests/deb/run.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
if [ -n "$cross" ] && [ $guest = 0 ]; then
	echo "tests/deb/run.sh: --no-guest is for the host's packages, not --arch" >&2
	exit 2
fi
suites=("$@")
[ ${#suites[@]} -gt 0 ] || suites=("$host_suite")
if [ -n "$cross" ] && [ "${suites[*]}" != bookworm ]; then
	echo "tests/deb/run.sh: --arch $cross: bookworm only (tests/arm64/setup.sh's chroot)" >&2
	exit 2
fi
for suite in "${suites[@]}"; do
	case $suite in
	bookworm | bullseye | sid) ;;
	*) echo "tests/deb/run.sh: unknown suite '$suite' (bookworm, bullseye, sid)" >&2; exit 2 ;;
	esac
done
out="$BUILD/check-deb${cross:+-$cross}"
rm -rf "$out"
mkdir -p "$out"
rc=0

# contents LABEL DKMS_DEB TOOL_DEB: what the packages hold: every source
# file of the module and the top-level dkms.conf for DKMS, the udev rule
# of packaging/udev, its maintainer scripts (DKMS's, and the group
# flamestat); the tool, every man page, the completion and the
# documentation.
contents() {
	local label=$1 dkms_deb=$2 tool_deb=$3 missing="" files src f m
	files=$(dpkg-deb -c "$dkms_deb" | awk '{print $6}' | sed 's|^\./|/|')
	src=/usr/src/flamestat-$version
	for f in dkms.conf Kbuild kmod/Kbuild kmod/conftest.sh kmod/uapi/flamestat.h \
		$(cd "$TOP" && git ls-files 'kmod/*.[ch]'); do
		grep -qx "$src/$f" <<<"$files" || missing+="$src/$f "
	done
	dpkg-deb --fsys-tarfile "$dkms_deb" | tar -xOf - ".$src/dkms.conf" | cmp -s - "$TOP/dkms.conf" ||
		missing+="(its dkms.conf differs from the top-level one) "
	dpkg-deb -f "$dkms_deb" Depends | grep -q 'dkms' || missing+="(no Depends on dkms) "
	dpkg-deb -f "$dkms_deb" Depends | grep -q 'adduser' || missing+="(no Depends on adduser) "
	f=$(grep -m1 -E '^/(usr/)?lib/udev/rules.d/70-flamestat.rules$' <<<"$files")
	if [ -z "$f" ]; then
		missing+="/lib/udev/rules.d/70-flamestat.rules "
	else
		dpkg-deb --fsys-tarfile "$dkms_deb" | tar -xOf - ".$f" | cmp -s - "$TOP/packaging/udev/70-flamestat.rules" ||
			missing+="(its $f differs from packaging/udev/70-flamestat.rules) "
	fi
	dpkg-deb -I "$dkms_deb" postinst | grep -q 'addgroup --system' || missing+="(no group in the postinst) "
	dpkg-deb -I "$dkms_deb" postinst | grep -q 'common.postinst' || missing+="(no DKMS postinst) "
	dpkg-deb -I "$dkms_deb" prerm | grep -q 'dkms remove' || missing+="(no DKMS prerm) "
	files=$(dpkg-deb -c "$tool_deb" | awk '{print $6}' | sed 's|^\./|/|')
	for f in /usr/bin/flamestat /usr/share/bash-completion/completions/flamestat \
		/usr/share/doc/flamestat/SECURE-BOOT.md.gz /usr/share/doc/flamestat/copyright \
		$(cd "$TOP/docs/man" && for m in *.[1-8]; do echo "/usr/share/man/man${m##*.}/$m.gz"; done); do
		grep -qx "$f" <<<"$files" || missing+="$f "
	done
	if [ -z "$missing" ]; then
		pass "$label/contents"
	else
		fail "$label/contents" "missing: $missing"
		return 1
	fi
}

# build_host LABEL DEBS: the packages built on the host, lintian clean.
build_host() {
	local label=$1 debs=$2 log=$2/../build-deb.log brc t0=$SECONDS
	BUILD="$debs/.." "$TOP/scripts/build-deb.sh" -o "$debs" >"$log" 2>&1
	brc=$?
	if [ ! -f "$debs/flamestat-dkms_${version}_all.deb" ] || [ ! -f "$debs/flamestat_${version}_$arch.deb" ]; then
		fail "$label/build" "scripts/build-deb.sh made no packages (log: $log)"
		tail -n 30 "$log" | sed 's/^/    /'
		return 1
	fi
	pass "$label/build ($((SECONDS - t0))s)"
	if [ $brc = 0 ]; then
		pass "$label/lintian"
	else
		fail "$label/lintian" "$(grep -E '^[EWIPX]: ' "$debs/../deb/lintian.log" | head -n 5 | tr '\n' '|')"
		tail -n 30 "$log" | sed 's/^/    /'
		return 1
	fi
}

# copy_sources TREE WORK: a clean copy of the tree's sources (what git
# tracks or would, nothing .gitignore excludes) in TREE's WORK/src.
copy_sources() {
	rm -rf "${1:?}$2"
	mkdir -p "$1$2/src"
	"$TOP/scripts/copy-tree.sh" "$TOP" "$1$2/src"
}

# build_in_suite SUITE LABEL DEBS: the packages built in SUITE's build
# chroot from a clean copy of the tree, as `make deb` does on that
# release: its compiler, libraries, debhelper and dh_dkms. Lintian is the
# host's gate (build_host): another release's lintian knows other tags.
build_in_suite() {
	local suite=$1 label=$2 debs=$3 log=$3/../build-deb.log tree work src t0=$SECONDS r=0
	suite_lock "$suite"
	if ! tree=$(suite_chroot "$suite"); then
		suite_unlock
		fail "$label/build" "debootstrap of $suite failed"
		return 1
	fi
	# In the chroot: the sources, build-deb.sh's work area, the packages.
	work=/root/flamestat-deb-$$
	src=$work/src
	copy_sources "$tree" "$work" || r=1
	# apt-get build-dep DIR reads debian/control there: the release's own
	# answer to our Build-Depends (bullseye: dh_dkms is in dkms 2.8).
	[ $r = 0 ] && in_tree "$tree" sh -c "apt-get -o DPkg::Lock::Timeout=600 update -q &&
		apt-get -o DPkg::Lock::Timeout=600 build-dep -y -q --no-install-recommends $src" >"$log" 2>&1 || r=1
	[ $r = 0 ] && in_tree "$tree" sh -c "BUILD=$work/build $src/scripts/build-deb.sh --no-lintian -o $work/out" \
		>>"$log" 2>&1 || r=1
	# The guest tests' workload, against the release's own libc (one
	# built on the host may need a newer one: bullseye has glibc 2.31).
	[ $r = 0 ] && in_tree "$tree" make -C "$src/tests/workloads" O="$work/wl" "$work/wl/chain" \
		>>"$log" 2>&1 || r=1
	mkdir -p "$debs" "$debs/../build/workloads"
	cp "$tree$work"/out/*.deb "$debs/" 2>/dev/null
	cp "$tree$work/wl/chain" "$debs/../build/workloads/" 2>/dev/null
	cp "$tree$work/build/deb/build.log" "$debs/../dpkg-buildpackage.log" 2>/dev/null
	rm -rf "${tree:?}$work"
	suite_unlock
	if [ $r = 0 ] && [ -f "$debs/flamestat-dkms_${version}_all.deb" ] &&
		[ -f "$debs/flamestat_${version}_$arch.deb" ] && [ -x "$debs/../build/workloads/chain" ]; then
		pass "$label/build ($suite: $(dpkg-deb -f "$debs/flamestat_${version}_$arch.deb" Depends); $((SECONDS - t0))s)"
	else
		fail "$label/build" "scripts/build-deb.sh in the $suite chroot made no packages (log: $log)"
		tail -n 30 "$log" | sed 's/^/    /'
		return 1
	fi
}

# build_cross LABEL DEBS: the packages cross-built for $cross in the
# bookworm chroot of tests/arm64/setup.sh (its cross compiler and arm64
# -dev packages; apt-get build-dep -a adds debhelper and dh-dkms), from a
# clean copy of the tree; then lintian on the host over what it made.
build_cross() {
	local label=$1 debs=$2 log=$2/../build-deb.log env_file tree work src t0=$SECONDS r=0 lock_fd
	local bdir=$2/../deb-build
	env_file=$FLAMESTAT_CACHE/arm64/bookworm/env
	if ! "$TOP/tests/arm64/setup.sh" --suite bookworm >"$log" 2>&1; then
		fail "$label/build" "tests/arm64/setup.sh failed (log: $log)"
		return 1
	fi
	tree=$(sed -n 's/^ARM64_TREE=//p' "$env_file")
	exec {lock_fd}>"$FLAMESTAT_CACHE/arm64/bookworm.lock"
	flock "$lock_fd"
	work=/root/flamestat-deb-$$
	src=$work/src
	copy_sources "$tree" "$work" || r=1
	[ $r = 0 ] && in_tree "$tree" sh -c \
		"apt-get -o DPkg::Lock::Timeout=600 build-dep -a $cross -y -q --no-install-recommends $src" \
		>>"$log" 2>&1 || r=1
	[ $r = 0 ] && in_tree "$tree" sh -c \
		"BUILD=$work/build $src/scripts/build-deb.sh --arch $cross --no-lintian -o $work/out" \
		>>"$log" 2>&1 || r=1
	rm -rf "$bdir"
	mkdir -p "$debs" "$bdir"
	cp "$tree$work"/out/*.deb "$debs/" 2>/dev/null
	cp "$tree$work"/build/deb/*.* "$bdir/" 2>/dev/null
	cp "$tree$work/build/deb/build.log" "$debs/../dpkg-buildpackage.log" 2>/dev/null
	rm -rf "${tree:?}$work"
	exec {lock_fd}>&-
	local tool=$debs/flamestat_${version}_$cross.deb
	if [ $r = 0 ] && [ -f "$debs/flamestat-dkms_${version}_all.deb" ] && [ -f "$tool" ]; then
		local what
		what="cross, $(dpkg-deb -f "$tool" Architecture): $(dpkg-deb -f "$tool" Depends)"
		pass "$label/build ($what; $((SECONDS - t0))s)"
	else
		fail "$label/build" \
			"scripts/build-deb.sh --arch $cross in the arm64 chroot made no packages (log: $log)"
		tail -n 30 "$log" | sed 's/^/    /'
		return 1
	fi
	# As scripts/build-deb.sh runs it.
	if lintian --display-info --pedantic --display-experimental \
		--fail-on error,warning,info,pedantic,experimental \
		"$bdir/flamestat_${version}_$cross.changes" >"$bdir/lintian.log" 2>&1; then
		pass "$label/lintian"
	else
		fail "$label/lintian" "$(grep -E '^[EWIPX]: ' "$bdir/lintian.log" | head -n 5 | tr '\n' '|')"
		return 1
	fi
}

# check_cross: the $cross packages built, then installed and used in a
# guest of that architecture.
check_cross() {
	local label=deb-$cross dir=$out/bookworm debs
	# The arm64 chroot's own download cache (tests/arm64/setup.sh's).
	SUITE_DEBS=$FLAMESTAT_CACHE/arm64/debs
	debs=$dir/debs
	mkdir -p "$debs"
	build_cross "$label" "$debs" || rc=1
	[ -f "$debs/flamestat_${version}_$cross.deb" ] || { rc=1; return; }
	contents "$label" "$debs/flamestat-dkms_${version}_all.deb" \
		"$debs/flamestat_${version}_$cross.deb" || rc=1
	# The guest's workload (chain), built for arm64 by tests/arm64/build.sh.
	if ! "$TOP/tests/arm64/build.sh" --suite bookworm >"$dir/arm64-build.log" 2>&1 &&
		[ ! -x "$BUILD/arm64/bookworm/workloads/chain" ]; then
		fail "$label/workloads" "tests/arm64/build.sh failed (log: $dir/arm64-build.log)"
		rc=1
		return
	fi
	FLAMESTAT_ARCH=$cross FLAMESTAT_DEBS="$debs" FLAMESTAT_ROOTFS_PKGS="" FLAMESTAT_DEB_ONE_KERNEL=1 \
		FLAMESTAT_TIMEOUT_SCALE=${FLAMESTAT_TIMEOUT_SCALE:-2} \
		"$TOP/tests/vm/run-tests.sh" --no-build --out "$dir/vm" \
		"$TOP"/tests/deb/guest/[0-9]*.sh >"$dir/results" 2>"$dir/vm.log" || rc=1
	sed -E "s#^(PASS|FAIL|SKIP) deb/#\1 $label/#" "$dir/results"
	grep -qE '^(PASS|FAIL) ' "$dir/results" ||
		{ fail "$label/guest" "the guest tests reported nothing (log: $dir/vm.log)"; rc=1; }
}

# check_suite SUITE: build, then install and use the packages in a guest.
check_suite() {
	local suite=$1 label=deb dir debs second=""
	[ "$suite" = "$host_suite" ] || label=deb-$suite
	dir=$out/$suite
	debs=$dir/debs
	mkdir -p "$debs"
	if [ "$suite" = "$host_suite" ]; then
		build_host "$label" "$debs" || rc=1
		[ -f "$debs/flamestat_${version}_$arch.deb" ] || return
		contents "$label" "$debs/flamestat-dkms_${version}_all.deb" \
			"$debs/flamestat_${version}_$arch.deb" || rc=1
	else
		build_in_suite "$suite" "$label" "$debs" || { rc=1; return; }
	fi
	[ $guest = 1 ] || return 0
	# The guest's kernel and a second one with headers (tests/deb/prepare.sh:
	# DKMS builds for both, the upgrade hook, then its removal): bookworm's
	# default 6.1 with the 6.12 of bookworm-security; on the others the
	# suite's own kernel and its cloud flavour.
	case $suite in
	"$host_suite") second="linux-image-6.12-amd64 linux-headers-6.12-amd64" ;;
	*) second="linux-image-cloud-amd64 linux-headers-cloud-amd64" ;;
	esac
	local -a env=(FLAMESTAT_DEBS="$debs" FLAMESTAT_ROOTFS_PKGS="$second")
	# Another release's guest gets the workload built there (BUILD/workloads).
	[ "$suite" = "$host_suite" ] || env+=(FLAMESTAT_ROOTFS_SUITE="$suite" BUILD="$dir/build")
	env "${env[@]}" "$TOP/tests/vm/run-tests.sh" --no-build --out "$dir/vm" \
		"$TOP"/tests/deb/guest/[0-9]*.sh >"$dir/results" 2>"$dir/vm.log" || rc=1
	sed -E "s#^(PASS|FAIL|SKIP) deb/#\1 $label/#" "$dir/results"
	grep -qE '^(PASS|FAIL) ' "$dir/results" ||
		{ fail "$label/guest" "the guest tests reported nothing (log: $dir/vm.log)"; rc=1; }
}

if ! make -s -j2 -C "$TOP/tests/workloads" O="$BUILD/workloads" >"$out/workloads.log" 2>&1; then
	fail deb/workloads "make -C tests/workloads failed (log: $out/workloads.log)"
	exit 1
fi
if [ "${suites[*]}" != "$host_suite" ] || [ -n "$cross" ]; then
	[ "$(id -u)" = 0 ] || { fail deb/setup "needs root (debootstrap, chroot)"; exit 1; }
	# shellcheck source-path=SCRIPTDIR source=../lib/suite-chroot.sh
	. "$TOP/tests/lib/suite-chroot.sh"
fi
if [ -n "$cross" ]; then
	check_cross
else
	for suite in "${suites[@]}"; do
		check_suite "$suite"
	done
fi
sc=$(check deb/shellcheck shellcheck -x "$TOP/scripts/build-deb.sh" "$TOP/tests/deb/run.sh" \
	"$TOP/tests/deb/prepare.sh" "$TOP/tests/suites/60-deb.sh" "$TOP/tests/lib/suite-chroot.sh"
	check deb/shellcheck-guest shellcheck -s sh -x "$TOP"/tests/deb/guest/*.sh)
echo "$sc"
grep -q '^FAIL ' <<<"$sc" && rc=1
exit $rc
