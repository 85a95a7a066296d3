#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Harness self-test: a test leaving the module loaded fails, and the module
# vm: name=selftest
# is unloaded before the next test.
insmod /lib/flamestat/flamestat.ko autostart=0
