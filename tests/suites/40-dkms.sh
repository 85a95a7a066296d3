#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# DKMS and the Debian packages: VERSION, dkms.conf and debian/changelog
# agree; dkms.conf's kernel range says the same to old and new dkms; from a
# clean copy of the tree, `dkms add .`, then build, install, autoinstall and
# remove for every kernel whose headers are installed, in scratch DKMS,
# source and install trees (the system's /var/lib/dkms, /usr/src and
# /lib/modules are never touched). The Debian packages (lintian, contents,
# installed and used in a guest): tests/deb/run.sh, suite 60-deb.
# shellcheck source-path=SCRIPTDIR source=../lib/common.sh
source "$(dirname "$0")/../lib/common.sh"

work="$BUILD/dkms"
rm -rf "$work"
mkdir -p "$work"
version=$(cat "$TOP/VERSION")

# ---- one version everywhere ----

# conf_value VAR: VAR (or VAR[0]) as dkms.conf sets it, with the
# variables dkms provides set to placeholders.
conf_value() {
	# shellcheck disable=SC2016 # expanded by the inner bash
	bash -c 'kernel_source_dir=/KSRC dkms_tree=/DKMS kernelver=KVER
		. "$1" && eval "printf %s \"\${$2}\""' conf_value "$TOP/dkms.conf" "$1"
}
v=$(conf_value PACKAGE_VERSION)
if [ "$v" = "$version" ]; then pass dkms/version-dkms.conf; else
	fail dkms/version-dkms.conf "PACKAGE_VERSION is '$v', VERSION is '$version'"; fi
v=$(dpkg-parsechangelog -l "$TOP/debian/changelog" -S Version 2>&1)
if [ "$v" = "$version" ]; then pass dkms/version-changelog; else
	fail dkms/version-changelog "debian/changelog's version is '$v', VERSION is '$version'"; fi

# ---- dkms.conf ----

want_make="make -C /KSRC M=/DKMS/flamestat/$version/build FLAMESTAT_VERSION=$version modules"
problems=""
[ "$(conf_value PACKAGE_NAME)" = flamestat ] || problems+="PACKAGE_NAME; "
[ "$(conf_value 'BUILT_MODULE_NAME[0]')" = flamestat ] || problems+="BUILT_MODULE_NAME[0]; "
[ "$(conf_value 'BUILT_MODULE_LOCATION[0]')" = kmod/ ] || problems+="BUILT_MODULE_LOCATION[0]; "
[ "$(conf_value 'DEST_MODULE_LOCATION[0]')" = /updates/dkms ] || problems+="DEST_MODULE_LOCATION[0]; "
[ "$(conf_value AUTOINSTALL)" = yes ] || problems+="AUTOINSTALL is not yes; "
[ "$(conf_value 'MAKE[0]')" = "$want_make" ] || problems+="MAKE[0] is '$(conf_value 'MAKE[0]')'; "
[ -n "$(conf_value BUILD_EXCLUSIVE_KERNEL_MIN)" ] || problems+="no BUILD_EXCLUSIVE_KERNEL_MIN; "
grep -Eq '^[[:space:]]*CLEAN' "$TOP/dkms.conf" && problems+="CLEAN is deprecated; "
if [ -z "$problems" ]; then pass dkms/conf; else fail dkms/conf "$problems"; fi

# dkms 3.0.10 (Debian 12) ignores BUILD_EXCLUSIVE_KERNEL_MIN and only
# knows the regular expression: it must accept exactly the tested range,
# from _MIN to the newest kernel of docs/COMPAT.md's matrix.
min=$(conf_value BUILD_EXCLUSIVE_KERNEL_MIN)
re=$(conf_value BUILD_EXCLUSIVE_KERNEL)
tested_max=7.2
bad=""
for k in 3.10.0-1160.el7.x86_64 4.18.0-553.el8.x86_64 4.19.0-27-amd64 5.4.0-150-generic \
	5.9.16 5.10.0 5.10.0-46-amd64 5.14.0-427.el9.x86_64 5.15.0-91-generic 5.19.17 \
	6.0.0 6.1.0-56-amd64 6.12.117+deb12-amd64 6.18.44 7.0.0 7.2.13+deb14-rt-amd64 \
	7.3.0 8.0.1 10.1.2 $(ls /lib/modules); do
	[[ $k =~ $re ]] && by_re=1 || by_re=0
	v=${k%%-*}
	mm=$(echo "$v" | cut -d. -f1-2)
	lo=$(printf '%s\n%s\n' "$min" "$v" | sort -V | head -n 1)
	hi=$(printf '%s\n%s\n' "$tested_max" "$mm" | sort -V | tail -n 1)
	[ "$lo" = "$min" ] && [ "$hi" = "$tested_max" ] && by_range=1 || by_range=0
	[ "$by_re" = "$by_range" ] || bad+="$k (regex $by_re, range $by_range) "
done
if [ -z "$bad" ]; then pass dkms/kernel-range; else
	fail dkms/kernel-range "BUILD_EXCLUSIVE_KERNEL disagrees with the tested range $min to $tested_max on: $bad"; fi

# BUILD_EXCLUSIVE_ARCH (dkms: `uname -m` =~ it) must take exactly the
# architectures kmod/arch/ has code for, by their uname -m names.
are=$(conf_value BUILD_EXCLUSIVE_ARCH)
bad=""
for m in x86_64 aarch64 i686 i386 armv7l armv8l arm64 x86_64_v2 ppc64le riscv64 s390x mips64; do
	case $m in
	x86_64) have=x86 ;;
	aarch64) have=arm64 ;;
	*) have="" ;;
	esac
	[ -n "$have" ] && [ -d "$TOP/kmod/arch/$have" ] && want=1 || want=0
	[[ $m =~ $are ]] && got=1 || got=0
	[ "$got" = "$want" ] || bad+="$m (regex $got, kmod/arch $want) "
done
for d in "$TOP"/kmod/arch/*/; do
	case $(basename "$d") in
	x86 | arm64) ;;
	*) bad+="kmod/arch/$(basename "$d") has no uname -m name in this test " ;;
	esac
done
if [ -z "$bad" ]; then pass dkms/arch; else
	fail dkms/arch "BUILD_EXCLUSIVE_ARCH '$are' disagrees with kmod/arch/ on: $bad"; fi

# ---- DKMS in scratch trees ----

# dkms_s ARGS...: dkms on the scratch trees, never running depmod on the
# system's /lib/modules, signing with a scratch key (as DKMS does with
# /var/lib/dkms/mok.key on a real system).
dkms_s() {
	mok_signing_key="$work/mok.key" mok_certificate="$work/mok.pub" \
		dkms "$@" --dkmstree "$work/dkms" --sourcetree "$work/src" \
		--installtree "$work/modules" --no-depmod
}
host_state() {
	ls -la /var/lib/dkms /usr/src 2>&1
	find /lib/modules -name 'flamestat.ko*' 2>/dev/null
}
host_before=$(host_state)
mkdir -p "$work/dkms" "$work/src" "$work/modules" "$work/tree"
# A clean tree: what a checkout holds, no build products.
"$TOP/scripts/copy-tree.sh" "$TOP" "$work/tree"
if (cd "$work/tree" && dkms_s add .) >"$work/add.log" 2>&1 &&
	[ -f "$work/src/flamestat-$version/dkms.conf" ]; then
	pass dkms/add
else
	fail dkms/add "dkms add . failed (log: $work/add.log)"
	tail -n 20 "$work/add.log" | sed 's/^/    /'
fi

kernels=$(for d in /lib/modules/*/build/Makefile; do
	[ -f "$d" ] && basename "$(dirname "$(dirname "$d")")"; done | sort -V)
[ -n "$kernels" ] || fail dkms/build "no kernel headers installed (scripts/install-deps.sh)"
built=""
for k in $kernels; do
	log="$work/build-$k.log"
	if ! dkms_s build -m flamestat -v "$version" -k "$k" >"$log" 2>&1; then
		fail "dkms/build-$k" "dkms build failed (log: $log; make.log: $work/dkms/flamestat/$version/build/make.log)"
		tail -n 20 "$log" | sed 's/^/    /'
		continue
	fi
	ko=$(find "$work/dkms/flamestat/$version/$k" -name 'flamestat.ko*' | head -n 1)
	got="$(modinfo -F vermagic "$ko" 2>&1 | cut -d' ' -f1) $(modinfo -F version "$ko" 2>&1) $(modinfo -F signer "$ko" 2>&1)"
	if [ "$got" = "$k $version DKMS module signing key" ]; then
		pass "dkms/build-$k"
	else
		fail "dkms/build-$k" "built module: vermagic, version, signer are '$got', want '$k $version DKMS module signing key'"
		continue
	fi
	mkdir -p "$work/modules/$k"
	if dkms_s install -m flamestat -v "$version" -k "$k" >"$work/install-$k.log" 2>&1 &&
		find "$work/modules/$k/updates/dkms" -name 'flamestat.ko*' 2>/dev/null | grep -q . &&
		dkms_s status -m flamestat -v "$version" -k "$k" 2>/dev/null | grep -q ': installed$'; then
		pass "dkms/install-$k"
		built="$built $k"
	else
		fail "dkms/install-$k" "dkms install failed or installed nothing (log: $work/install-$k.log)"
		tail -n 10 "$work/install-$k.log" | sed 's/^/    /'
	fi
done

# What a kernel upgrade runs (/etc/kernel/postinst.d/dkms): autoinstall
# for the new kernel builds and installs every AUTOINSTALL module.
last=${built##* }
if [ -n "$last" ]; then
	dkms_s remove -m flamestat -v "$version" -k "$last" >"$work/remove-$last.log" 2>&1
	if dkms_s autoinstall -k "$last" >"$work/autoinstall.log" 2>&1 &&
		dkms_s status -m flamestat -v "$version" -k "$last" 2>/dev/null | grep -q ': installed$'; then
		pass "dkms/autoinstall-$last"
	else
		fail "dkms/autoinstall-$last" "dkms autoinstall -k $last did not install flamestat (log: $work/autoinstall.log)"
		tail -n 10 "$work/autoinstall.log" | sed 's/^/    /'
	fi
fi

if dkms_s remove -m flamestat -v "$version" --all >"$work/remove.log" 2>&1 &&
	[ -z "$(dkms_s status 2>/dev/null)" ] &&
	! find "$work/modules" -name 'flamestat.ko*' | grep -q .; then
	pass dkms/remove
else
	fail dkms/remove "dkms remove --all left something (log: $work/remove.log): $(dkms_s status 2>/dev/null | tr '\n' ' ')"
fi
if [ "$(host_state)" = "$host_before" ]; then
	pass dkms/system-untouched
else
	fail dkms/system-untouched "/var/lib/dkms, /usr/src or /lib/modules changed: $(diff <(echo "$host_before") <(host_state) | tr '\n' '|')"
fi

check dkms/shellcheck shellcheck -x "$TOP/tests/suites/40-dkms.sh"
