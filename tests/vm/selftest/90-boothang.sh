#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Harness self-test: a guest that never reports in (its init is a sleep, so
# to the host it looks like a kernel that hung before /init) is booted a
# second time, then fails its boot with both boots' console and registers kept.
# vm: name=selftest-boothang smp=1 mem=256 bootlimit=12 append="rdinit=/bin/sleep 86400"
exit 0
