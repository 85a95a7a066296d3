#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Harness self-test: a kernel line matched by dmesg-allow does not fail.
# vm: name=selftest
# dmesg-allow: selftest-allowed
echo "<4>WARNING: selftest-allowed" >/dev/kmsg
exit 0
