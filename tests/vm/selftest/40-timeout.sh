#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Harness self-test: a test running past its timeout is killed and fails.
# vm: name=selftest
# timeout: 3
sleep 100
