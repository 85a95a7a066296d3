#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The Debian packages end to end (make check-deb): built, lintian clean,
# installed with apt in a Debian rootfs where DKMS builds the module, then
# used and removed in a QEMU guest booted from it. See tests/deb/run.sh.
exec "$(dirname "$0")/../deb/run.sh"
