#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# user/flamestat runs in the guest: the initramfs carries its shared
# libraries and dynamic loader.
# timeout: 60
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

command -v flamestat >/dev/null || die "no flamestat in the guest (did user/flamestat build?)"
check "flamestat --version" flamestat --version
log "$(flamestat --version 2>&1)"
check "flamestat --help" flamestat --help
finish
