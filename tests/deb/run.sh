#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make check-deb` (and suite 60-deb): builds the flamestat and
# flamestat-dkms packages with scripts/build-deb.sh (lintian included) and
# checks what they hold; then boots a Debian rootfs guest (tests/vm/rootfs.sh)
# into whose tree tests/deb/prepare.sh apt-installed them (DKMS builds the
# module in the chroot, on installation and from the kernel-upgrade hook)
# and runs tests/deb/guest/*.sh there: what got installed, modprobe,
# flamestat record, refusal under enforced signatures, apt remove.
# Prints PASS/FAIL lines as the suites do; exit status 1 on any failure.
#
# The rootfs tree is cached in $FLAMESTAT_CACHE/rootfs: the first run
# builds it (about 5 minutes, from the Debian archive of the host's apt sources).
set -u
# shellcheck source-path=SCRIPTDIR source=../lib/common.sh
source "$(dirname "$0")/../lib/common.sh"

out="$BUILD/check-deb"
rm -rf "$out"
mkdir -p "$out/debs"
version=$(cat "$TOP/VERSION")
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
dkms_deb="$out/debs/flamestat-dkms_${version}_all.deb"
tool_deb="$out/debs/flamestat_${version}_$arch.deb"
rc=0

t0=$SECONDS
BUILD="$out" "$TOP/scripts/build-deb.sh" -o "$out/debs" >"$out/build-deb.log" 2>&1
brc=$?
if [ ! -f "$dkms_deb" ] || [ ! -f "$tool_deb" ]; then
	fail deb/build "scripts/build-deb.sh made no packages (log: $out/build-deb.log)"
	tail -n 30 "$out/build-deb.log" | sed 's/^/    /'
	exit 1
fi
pass "deb/build ($((SECONDS - t0))s)"
if [ $brc = 0 ]; then
	pass deb/lintian
else
	fail deb/lintian "$(grep -E '^[EWIPX]: ' "$out/deb/lintian.log" | head -n 5 | tr '\n' '|')"
	tail -n 30 "$out/build-deb.log" | sed 's/^/    /'
	rc=1
fi

# What the packages hold: every source file of the module and the top-level
# dkms.conf for DKMS, its maintainer scripts; the tool, every man page,
# the completion and the documentation.
missing=""
files=$(dpkg-deb -c "$dkms_deb" | awk '{print $6}' | sed 's|^\./|/|')
src=/usr/src/flamestat-$version
for f in dkms.conf Kbuild kmod/Kbuild kmod/conftest.sh kmod/uapi/flamestat.h \
	$(cd "$TOP" && git ls-files 'kmod/*.[ch]'); do
	grep -qx "$src/$f" <<<"$files" || missing+="$src/$f "
done
dpkg-deb --fsys-tarfile "$dkms_deb" | tar -xOf - ".$src/dkms.conf" | cmp -s - "$TOP/dkms.conf" ||
	missing+="(its dkms.conf differs from the top-level one) "
dpkg-deb -f "$dkms_deb" Depends | grep -q 'dkms' || missing+="(no Depends on dkms) "
dpkg-deb -I "$dkms_deb" postinst | grep -q 'common.postinst' || missing+="(no DKMS postinst) "
dpkg-deb -I "$dkms_deb" prerm | grep -q 'dkms remove' || missing+="(no DKMS prerm) "
files=$(dpkg-deb -c "$tool_deb" | awk '{print $6}' | sed 's|^\./|/|')
for f in /usr/bin/flamestat /usr/share/bash-completion/completions/flamestat \
	/usr/share/doc/flamestat/SECURE-BOOT.md.gz /usr/share/doc/flamestat/copyright \
	$(cd "$TOP/docs/man" && for m in *.[1-8]; do echo "/usr/share/man/man${m##*.}/$m.gz"; done); do
	grep -qx "$f" <<<"$files" || missing+="$f "
done
if [ -z "$missing" ]; then pass deb/contents; else fail deb/contents "missing: $missing"; rc=1; fi

if ! make -s -j2 -C "$TOP/tests/workloads" O="$BUILD/workloads" >"$out/workloads.log" 2>&1; then
	fail deb/workloads "make -C tests/workloads failed (log: $out/workloads.log)"
	exit 1
fi
FLAMESTAT_DEBS="$out/debs" "$TOP/tests/vm/run-tests.sh" --no-build --out "$out/vm" \
	"$TOP"/tests/deb/guest/[0-9]*.sh || rc=1
sc=$(check deb/shellcheck shellcheck -x "$TOP/scripts/build-deb.sh" "$TOP/tests/deb/run.sh" \
	"$TOP/tests/deb/prepare.sh" "$TOP/tests/suites/60-deb.sh"
	check deb/shellcheck-guest shellcheck -s sh -x "$TOP"/tests/deb/guest/*.sh)
echo "$sc"
grep -q '^FAIL ' <<<"$sc" && rc=1
exit $rc
