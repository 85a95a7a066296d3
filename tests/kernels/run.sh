#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make check-kernels`: the module on Debian kernels other than the host's.
# For each kernel: a debootstrap chroot of its own suite (that suite's gcc)
# gets the newest linux-headers of the flavour, builds the module at W=1
# (any warning fails), and the guest tests boot that suite's kernel image
# with the busybox initramfs (every kernel message checked as usual).
#
#   tests/kernels/run.sh [--core | --tests "NAME..."] [KERNEL...]
#     KERNEL  one of (default: all of them)
#               bullseye bullseye-rt        5.10 (gcc 10)
#               bookworm bookworm-rt        6.1 (gcc 12)
#               bookworm-6.12 bookworm-6.12-rt  6.12+deb12 (bookworm-security)
#               trixie trixie-rt            6.12+deb13 (gcc 14)
#               sid sid-rt                  7.x (gcc 16)
#             (-rt: the PREEMPT_RT flavour)
#     --core  only the core guest tests (load, read, chain, ABI, user
#             stacks by unwind tables, vhost's
#             and io_uring's workers, hostile stacks, the sample path's
#             throttling, irq_work kicks, staggered timers, isolated
#             CPUs and short-lived processes, off-CPU time (the module
#             alone) and its kernel-stack cache, fuzz, hotplug)
#             instead of every guest test (97-reload, 60 load/unload
#             cycles, 60-100 s a kernel, runs on the host's kernel in
#             make check and on every kernel here without --core: it
#             kept make check near its 60-minute budget)
#     --tests  only these guest tests (e.g. "56-offcpu 63-kstack-cache")
#
# A kernel of the host's own suite is built on the host (its headers
# installed there); other suites get a chroot each. Chroots, kernel images
# and package caches live in $FLAMESTAT_CACHE/kernels/ (built once; the
# headers are upgraded to the newest of their series on every run). Prints
# PASS/FAIL lines like a suite. Needs root.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
export TOP
FLAMESTAT_CACHE=${FLAMESTAT_CACHE:-/var/tmp/flamestat-cache}
export FLAMESTAT_CACHE
cache=$FLAMESTAT_CACHE/kernels
# Rootfs guests of the matrix's runs share the suite chroots' downloads.
export ROOTFS_DEBS=$cache/debs
BUILD=${BUILD:-$TOP/tests/build}
all=(bullseye bullseye-rt bookworm bookworm-rt bookworm-6.12 bookworm-6.12-rt
	trixie trixie-rt sid sid-rt)
core=0
only=()
kernels=()
while [ $# -gt 0 ]; do
	case $1 in
	--core) core=1 ;;
	--tests) [ $# -ge 2 ] || { echo "tests/kernels/run.sh: --tests needs a list" >&2; exit 2; }
		read -ra only <<<"$2"; shift ;;
	-h | --help) sed -n '3,26p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "tests/kernels/run.sh: unknown option $1" >&2; exit 2 ;;
	*) kernels+=("$1") ;;
	esac
	shift
done
[ ${#kernels[@]} -gt 0 ] || kernels=("${all[@]}")
# 56-offcpu and 59-offcpu-waker run in their -icount guest (one vCPU),
# where a loaded host cannot charge a thread CPU time it did not use (the
# tests say how).
# 63-offcpu-unload is not among them (it runs in make check's 6.1 guest
# suite): attaching to and detaching from sched_switch again and again
# under a switch storm hung a 5.10 guest under multi-threaded TCG, both
# vCPUs with interrupts off around the text patching's int3, and so did
# enabling and disabling the sched_switch trace event through tracefs
# with no module loaded (docs/RELIABILITY.md); the test now runs under
# single-threaded TCG, where 5.10 passed it three times.
# Nor 57-offcpu-disk: on 5.10 with the host loaded, 20% of fsync's
# off-CPU time was runqueue waits (R, cond_resched in writeback) against
# its 90% in D; its state split depends on the kernel and the load.
core_tests=(05-kernel 10-load 15-tool 20-chain 25-abi 26-nofp 26-nofp-edges 29-unwind-rewrite 29-unwind-bound
	30-commands 36-kaddr
	44-throttle 47-hardirq-work 48-stagger 49-isolcpus 50-libwork
	56-offcpu 59-offcpu-waker 63-kstack-cache 64-offcpu-module 72-vhost 73-iouring
	74-hostile 83-shortlived-libs 92-fuzz 98-hotplug)
say() { echo "check-kernels: $*" >&2; }
[ "$(id -u)" = 0 ] || { echo "FAIL kernels/setup: needs root (debootstrap, chroot)"; exit 1; }
# shellcheck source-path=SCRIPTDIR source=../lib/suite-chroot.sh
. "$TOP/tests/lib/suite-chroot.sh"
# shellcheck source-path=SCRIPTDIR source=../vm/lib.sh
. "$TOP/tests/vm/lib.sh"

# check_kernel NAME: build the module for it and run the guest tests.
check_kernel() {
	local name=$1 suite meta tree work krel img src log out ko flags
	case $name in
	bullseye | bookworm | trixie | sid) suite=$name meta=amd64 ;;
	bullseye-rt | bookworm-rt | trixie-rt | sid-rt) suite=${name%-rt} meta=rt-amd64 ;;
	bookworm-6.12) suite=bookworm meta=6.12-amd64 ;;
	bookworm-6.12-rt) suite=bookworm meta=6.12-rt-amd64 ;;
	*) echo "FAIL kernels/$name: unknown kernel (${all[*]})"; return ;;
	esac
	# One debootstrap, apt and build per suite at a time: make check's
	# suite 55-kernels and make check-kernels may run at once and share
	# the chroots (the host's own suite included).
	suite_lock "$suite"
	if ! tree=$(suite_chroot "$suite"); then
		echo "FAIL kernels/$name-chroot: debootstrap of $suite failed"
		suite_unlock
		return
	fi
	work=$cache/work/$name
	mkdir -p "$work"
	log=$work/setup.log
	# The newest headers of the series, and the image that matches them.
	# A mirror may list a version whose files it lacks (seen: bullseye-
	# security's rt headers): then the next newest version is taken.
	if ! in_tree "$tree" sh -c "apt-get -o DPkg::Lock::Timeout=600 update -q &&
		apt-get install -o DPkg::Lock::Timeout=600 -y -q --no-install-recommends perl &&
		for v in \$(apt-cache madison linux-headers-$meta | awk '{print \$3}'); do
			apt-get install -o DPkg::Lock::Timeout=600 -y -q --no-install-recommends linux-headers-$meta=\$v && exit 0
			echo \"version \$v cannot be installed; trying an older one\"
		done; exit 1" >"$log" 2>&1; then
		echo "FAIL kernels/$name-headers: no version of linux-headers-$meta installs (log: $log)"
		suite_unlock
		return
	fi
	# shellcheck disable=SC2016 # dpkg-query's own ${Depends}
	krel=$(in_tree "$tree" dpkg-query -W -f='${Depends}' "linux-headers-$meta" |
		vm_headers_release)
	[ -n "$krel" ] || { echo "FAIL kernels/$name-headers: no kernel release behind linux-headers-$meta"; suite_unlock; return; }
	img=$cache/images/$krel
	if [ ! -f "$img/.fetched" ] && ! suite_fetch_image "$tree" "$krel" "$img" >>"$log" 2>&1; then
		echo "FAIL kernels/$name-image: cannot fetch linux-image-$krel (log: $log)"
		suite_unlock
		return
	fi

	# The module, from this tree's committed and uncommitted sources,
	# built where the tree's compiler is.
	if [ "$tree" = / ]; then
		src=$work/src-$$
	else
		src=$tree/root/flamestat-$name-$$
	fi
	rm -rf "$src"
	mkdir -p "$src"
	cp -r "$TOP/Kbuild" "$TOP/kmod" "$src/"
	find "$src/kmod" \( -name '*.o' -o -name '*.ko' -o -name '.*.cmd' -o -name '*.mod*' \) -delete
	if ! in_tree "$tree" make -C "/lib/modules/$krel/build" M="${src#"${tree%/}"}" W=1 \
		FLAMESTAT_VERSION=test modules >"$work/build.log" 2>&1; then
		echo "FAIL kernels/$name-build: $krel: $(grep -m3 -iE 'error|can.t locate' "$work/build.log" | tr '\n' '|') (log: $work/build.log)"
		suite_unlock
		return
	fi
	if grep -q 'warning:' "$work/build.log"; then
		echo "FAIL kernels/$name-build: $krel: W=1 warnings: $(grep -m3 'warning:' "$work/build.log" | tr '\n' '|')"
		suite_unlock
		return
	fi
	ko=$src/kmod/flamestat.ko
	# The API the feature tests found (kmod/conftest.sh), for docs/COMPAT.md.
	flags=$(tr ' ' '\n' <"$src/kmod/.main.o.cmd" | sed -n 's/^-DFST_HAVE_//p' | sort -u | tr '\n' ' ')
	echo "PASS kernels/$name-build ($krel, gcc $(in_tree "$tree" gcc -dumpfullversion); found: ${flags% })"
	suite_unlock

	out=$BUILD/kernels/$name
	local -a tests=()
	[ $core = 1 ] && tests=("${core_tests[@]}")
	[ ${#only[@]} -gt 0 ] && tests=("${only[@]}")
	rm -rf "$out"
	FLAMESTAT_KERNEL=$img/boot/vmlinuz-$krel FLAMESTAT_KO=$ko \
		FLAMESTAT_MODULES=$img/lib/modules/$krel \
		"$TOP/tests/vm/run-tests.sh" --no-build --out "$out" "${tests[@]}" \
		>"$out.results" 2>"$out.log"
	# Results, and the detail lines under each failure (test output,
	# console tail): CI shows nothing else of a run.
	awk -v k="kernels/$name:" '
		/^(PASS|FAIL|SKIP) / { detail = ($1 == "FAIL"); sub(/ /, " " k); print; next }
		detail && /^    / { print }' "$out.results"
	grep -qE '^(PASS|FAIL) ' "$out.results" ||
		echo "FAIL kernels/$name-guest: the guest tests reported nothing (log: $out.log)"
	rm -rf "$src"
}

if ! make -s -C "$TOP" tool >/dev/null ||
	! make -s -j2 -C "$TOP/tests/workloads" O="$BUILD/workloads" >/dev/null; then
	echo "FAIL kernels/setup: the tool or the workloads do not build"
	exit 1
fi
mkdir -p "$BUILD/kernels"
for k in "${kernels[@]}"; do
	check_kernel "$k"
done
