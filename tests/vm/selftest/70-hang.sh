#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Harness self-test: a guest that stops reporting (here: the test kills its
# own timeout watcher and sleeps) is stopped by the host after timeout+grace.
# vm: name=selftest-hang smp=1 mem=256 grace=4
# timeout: 2
kill -9 "$(pidof timeout)"
sleep 1000
