#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make check-fresh`: the README's first command, `make demo`, on a Debian 12
# machine that has never seen the project. A minimal bookworm chroot
# (debootstrap --variant=minbase with git and make only: no compiler, no
# kernel headers, no QEMU) gets a clone of this tree's HEAD, and `make demo`
# runs there once, as a new user would run it. It must install what it
# needs, build, boot its guest and leave flamestat-demo.svg.
#
#   tests/fresh/run.sh [--keep]
#
# The debootstrap'd base is cached in $FLAMESTAT_CACHE/fresh/base and the
# packages the chroot downloads in $FLAMESTAT_CACHE/fresh/debs; each run
# works on a fresh copy of the base, removed afterwards unless --keep.
# Prints PASS/FAIL lines like a suite; exits 1 on failure. Needs root.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
export TOP
FLAMESTAT_CACHE=${FLAMESTAT_CACHE:-/var/tmp/flamestat-cache}
export FLAMESTAT_CACHE
cache=$FLAMESTAT_CACHE/fresh
base=$cache/base
run=$cache/run
log=$cache/run.log
keep=0
[ "${1:-}" = --keep ] && keep=1

say() { echo "check-fresh: $*" >&2; }
fail() { echo "FAIL fresh/$1: $2"; exit 1; }

[ "$(id -u)" = 0 ] || fail setup "needs root (debootstrap, chroot)"
command -v debootstrap >/dev/null || "$TOP/scripts/install-deps.sh" ||
	fail setup "debootstrap is not installed and could not be"
mirror=$(SUITE=bookworm "$TOP/scripts/apt-archive.sh" main) || fail setup "no bookworm archive in the host's apt sources"
# Its own package cache: a check-deb running meanwhile keeps its apt lock.
export ROOTFS_DEBS=$cache/debs
mkdir -p "$cache" "$ROOTFS_DEBS/partial"

# The base: what a fresh Debian 12 machine has, minus what it would not.
if [ ! -f "$base/complete" ]; then
	say "building the base chroot (debootstrap bookworm, minbase + git + make; about a minute)"
	rm -rf "$base"
	mkdir -p "$base"
	if ! debootstrap --variant=minbase --include=git,make,ca-certificates \
		--cache-dir="$ROOTFS_DEBS" bookworm "$base/tree" "$mirror" \
		>"$cache/base.log" 2>&1; then
		tail -n 20 "$cache/base.log" >&2
		fail base "debootstrap failed (log: $cache/base.log)"
	fi
	# A machine's sources: the release, its updates and security.
	SUITE=bookworm "$TOP/scripts/apt-archive.sh" sources bookworm \
		>"$base/tree/etc/apt/sources.list" || fail base "no bookworm sources"
	echo flamestat-fresh >"$base/tree/etc/hostname"
	touch "$base/complete"
fi
pass_line() { echo "PASS fresh/$1"; }
pass_line base

rm -rf "$run"
mkdir -p "$run"
cp -a "$base/tree" "$run/tree" || fail copy "could not copy the base chroot"
cleanup() { [ $keep = 1 ] || rm -rf "$run"; }
trap cleanup EXIT

# What a new user does: clone, then the README's first command. The clone
# is of HEAD: uncommitted changes are not part of what a user gets.
if ! git clone -q --no-hardlinks "$TOP" "$run/tree/root/flamestat" >"$log" 2>&1; then
	fail clone "git clone of $TOP failed (log: $log)"
fi
for t in gcc cc qemu-system-x86_64; do
	[ ! -e "$run/tree/usr/bin/$t" ] || fail base "the base chroot already has $t: not a fresh machine"
done
[ -z "$(ls -A "$run/tree/lib/modules" 2>/dev/null)" ] ||
	fail base "the base chroot already has kernel modules or headers"

say "running 'make demo' in the chroot (installs the build and guest packages, builds, boots a guest; 5-15 minutes; log: $log)"
start=$(date +%s)
"$TOP/tests/vm/rootfs.sh" chroot "$run/tree" /bin/sh -c 'cd /root/flamestat && make demo' >>"$log" 2>&1
rc=$?
say "make demo exited with $rc after $(( $(date +%s) - start )) s"
svg=$run/tree/root/flamestat/flamestat-demo.svg
folded=$run/tree/root/flamestat/flamestat-demo.folded
if [ $rc != 0 ]; then
	tail -n 25 "$log" | sed 's/^/    /'
	fail demo "the first 'make demo' on a fresh machine failed with status $rc (log: $log)"
fi
[ -s "$svg" ] || fail demo "make demo succeeded but left no flamestat-demo.svg"
if ! grep -q 'hot_leaf' "$svg" || ! grep -q 'main;outer;middle;hot_leaf' "$folded"; then
	fail demo "flamestat-demo.svg or .folded lacks the chain workload's main;outer;middle;hot_leaf"
fi
if [ $keep = 1 ]; then
	say "kept: $run/tree (the SVG: $svg)"
else
	cp "$svg" "$cache/flamestat-demo.svg"
	say "the SVG: $cache/flamestat-demo.svg"
fi
pass_line demo
