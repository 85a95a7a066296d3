#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Harness self-test: never runs (the guest was stopped): reported as not run.
# vm: name=selftest-hang smp=1 mem=256 grace=4
exit 0
