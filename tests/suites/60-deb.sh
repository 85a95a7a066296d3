#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The Debian packages (tests/deb/run.sh --no-guest): built, lintian clean,
# and holding what they must. Their end-to-end test (installed with apt in
# a Debian rootfs where DKMS builds the module, then used and removed in a
# QEMU guest booted from it: about 3.5 minutes) is make check-deb's, which
# left make check to keep it within its hour; suite 40-dkms still builds,
# installs and removes the module with DKMS for every installed kernel.
exec "$(dirname "$0")/../deb/run.sh" --no-guest
