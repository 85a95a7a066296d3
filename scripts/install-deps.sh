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
[ -z "$missing" ] && exit 0

echo "flamestat: installing missing packages:$missing"
if [ "$(id -u)" -ne 0 ]; then
	echo "flamestat: need root to install them: sudo apt-get install$missing" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing >/dev/null
echo "flamestat: packages installed"
