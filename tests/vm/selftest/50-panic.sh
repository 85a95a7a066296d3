#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Harness self-test: a kernel panic fails this test with the console tail.
# vm: name=selftest
echo 1 >/proc/sys/kernel/sysrq
echo c >/proc/sysrq-trigger
sleep 100
