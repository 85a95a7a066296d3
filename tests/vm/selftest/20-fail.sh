#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Harness self-test: a non-zero exit fails with its status.
# vm: name=selftest
echo "failing on purpose"
exit 3
