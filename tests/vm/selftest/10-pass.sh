#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Harness self-test: a passing test passes.
# vm: name=selftest
exit 0
