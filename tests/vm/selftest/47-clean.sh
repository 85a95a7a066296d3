#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Harness self-test: the previous test's module was unloaded by /init.
# vm: name=selftest
test ! -d /sys/module/flamestat
