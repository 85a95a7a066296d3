#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages listed in scripts/deps.list (and any list files
# given as arguments) that are not installed yet. Needs root only when
# something is missing; prints what it installs. --only LIST...: the
# packages of those lists alone (tests/arm64/setup.sh).
set -eu
here=$(dirname "$0")
if [ "${1:-}" = --only ]; then
	shift
	lists="$*"
else
	lists="$here/deps.list $*"
fi

missing=
for pkg in $(sed -e 's/#.*//' $lists); do
	status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
	case "$status" in
	*" installed") ;;
	*) missing="$missing $pkg" ;;
	esac
done
if [ -n "$missing" ]; then
	echo "flamestat: installing missing packages:$missing"
	if [ "$(id -u)" -ne 0 ]; then
		echo "flamestat: need root to install them: sudo apt-get install$missing" >&2
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	# Another make target (or unattended-upgrades) may hold the dpkg
	# lock: wait for it rather than fail.
	apt-get -o DPkg::Lock::Timeout=900 update -q >/dev/null
	# shellcheck disable=SC2086
	apt-get -o DPkg::Lock::Timeout=900 install -y -q --no-install-recommends $missing >/dev/null
	echo "flamestat: packages installed"
fi

# The aarch64 GCC driver, which cannot be installed beside gcc-multilib:
# unpacked (scripts/cross-gcc.sh), when the lists want the rest of it.
# shellcheck disable=SC2086 # the lists, one word each
if sed -e 's/#.*//' $lists | grep -qx 'cpp-12-aarch64-linux-gnu'; then
	"$here/cross-gcc.sh" --install >/dev/null
fi
