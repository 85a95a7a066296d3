#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages listed in scripts/deps.list (and any list files
# given as arguments) that are not installed yet. Needs root only when
# something is missing; prints what it installs. --only LIST...: the
# packages of those lists alone (tests/arm64/setup.sh).
#
# A list line "PACKAGE >=VERSION" wants at least that version. When the
# host's release has only an older one (QEMU on Debian 12), it comes from
# the release's backports suite, on the archive the host's own apt sources
# name (scripts/apt-archive.sh), added as
# /etc/apt/sources.list.d/flamestat-backports.list.
set -eu
here=$(dirname "$0")
if [ "${1:-}" = --only ]; then
	shift
	lists="$*"
else
	lists="$here/deps.list $*"
fi

# version_ok PACKAGE MIN: PACKAGE is installed, at MIN or later (any
# version when MIN is empty).
version_ok() {
	have=$(dpkg-query -W -f='${Status} ${Version}' "$1" 2>/dev/null || true)
	case "$have" in
	*" installed "*) ;;
	*) return 1 ;;
	esac
	[ -z "$2" ] || dpkg --compare-versions "${have##* }" ge "$2"
}

# candidate [-t SUITE] PACKAGE: the version apt would install (from SUITE).
candidate() { apt-cache policy "$@" 2>/dev/null | awk '$1 == "Candidate:" {print $2}'; }

# at_least VERSION MIN: VERSION (a candidate, maybe empty or "(none)") is MIN
# or later.
at_least() {
	[ -n "$1" ] && [ "$1" != "(none)" ] && dpkg --compare-versions "$1" ge "$2"
}

missing='' wants=''
# shellcheck disable=SC2086 # the lists, one word each
pkgs=$(sed -e 's/#.*//' -e 's/[[:space:]]*>=[[:space:]]*/>=/' $lists | awk 'NF {print $1}')
for word in $pkgs; do
	pkg=${word%%>=*} min=
	[ "$pkg" = "$word" ] || min=${word#*>=}
	version_ok "$pkg" "$min" && continue
	missing="$missing $pkg"
	[ -z "$min" ] || wants="$wants $pkg>=$min"
done
if [ -n "$missing" ]; then
	echo "flamestat: installing missing packages:$missing"
	if [ "$(id -u)" -ne 0 ]; then
		echo "flamestat: need root to install them: sudo scripts/install-deps.sh" >&2
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	# Another make target (or unattended-upgrades) may hold the dpkg
	# lock: wait for it rather than fail.
	apt="apt-get -o DPkg::Lock::Timeout=900"
	$apt update -q >/dev/null
	# Versions the release does not have: from its backports suite.
	backports=
	for w in $wants; do
		pkg=${w%%>=*} min=${w#*>=}
		at_least "$(candidate "$pkg")" "$min" && continue
		if [ -z "$backports" ]; then
			# shellcheck source=/dev/null
			suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")-backports
			uri=$("$here/apt-archive.sh" main) || exit 1
			echo "deb $uri $suite main" >/etc/apt/sources.list.d/flamestat-backports.list
			$apt update -q >/dev/null
		fi
		if ! at_least "$(candidate -t "$suite" "$pkg")" "$min"; then
			echo "flamestat: $pkg $min or later is in neither this release nor $suite (have: $(candidate "$pkg"))" >&2
			exit 1
		fi
		backports="$backports $pkg"
	done
	plain=
	for pkg in $missing; do
		case " $backports " in
		*" $pkg "*) ;;
		*) plain="$plain $pkg" ;;
		esac
	done
	# shellcheck disable=SC2086
	[ -z "$plain" ] || $apt install -y -q --no-install-recommends $plain >/dev/null
	if [ -n "$backports" ]; then
		echo "flamestat: from $suite:$backports"
		# shellcheck disable=SC2086
		$apt install -y -q --no-install-recommends -t "$suite" $backports >/dev/null
	fi
	echo "flamestat: packages installed"
fi

# The aarch64 GCC driver, which cannot be installed beside gcc-multilib:
# unpacked (scripts/cross-gcc.sh), when the lists want the rest of it.
# shellcheck disable=SC2086 # the lists, one word each
if sed -e 's/#.*//' $lists | grep -qx 'cpp-12-aarch64-linux-gnu'; then
	"$here/cross-gcc.sh" --install >/dev/null
fi
