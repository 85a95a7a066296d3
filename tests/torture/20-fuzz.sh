#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The tool's parsers under libFuzzer for 10 minutes each (tests/fuzz/run.sh
# --long): binary snapshots, folded stacks, ELF images.
exec "$(dirname "$0")/../fuzz/run.sh" --long
