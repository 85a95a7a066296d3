#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Harness self-test: a kernel WARNING during a passing test fails it.
# vm: name=selftest
echo "<4>WARNING: CPU: 0 PID: 1 at selftest-warning" >/dev/kmsg
exit 0
