#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Self-test of the guest harness: runs the tests of tests/vm/selftest/
# (passing, failing, warning, timing out, leaving the module loaded,
# panicking, hanging, never booting) and checks that run-tests.sh reports each as
# tests/vm/selftest/expected says. Prints the differences; exit 0 if none.
set -u
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

out="$BUILD/vm-selftest"
rm -rf "$out"
mkdir -p "$out"
"$TOP/tests/vm/run-tests.sh" --no-build --out "$out" "$TOP"/tests/vm/selftest/[0-9]*.sh \
	>"$out/report" 2>"$out/progress"
rc=0
while IFS= read -r want; do
	case "$want" in "#"* | "") continue ;; esac
	if ! grep -qF -- "$want" "$out/report"; then
		echo "expected a line starting '$want'"
		rc=1
	fi
done <"$TOP/tests/vm/selftest/expected"
# Every result line must be expected (nothing extra, nothing passing that should not).
grep -E '^(PASS|FAIL) ' "$out/report" | while IFS= read -r got; do
	found=0
	while IFS= read -r want; do
		case "$want" in "#"* | "") continue ;; esac
		case "$got" in "$want"*) found=1 ;; esac
	done <"$TOP/tests/vm/selftest/expected"
	[ $found = 1 ] || { echo "unexpected: $got"; exit 1; }
done || rc=1
# The panic must be shown from the console.
grep -q 'sysrq' "$out/report" || { echo "the panic's console tail is missing from the report"; rc=1; }
# The boot that hung was tried twice, and both say where the vCPUs were.
hb="$out/selftest-boothang"
for f in "$hb/hung-boot/registers.txt" "$hb/registers.txt"; do
	grep -qE '(RIP|PC)=' "$f" 2>/dev/null || { echo "no vCPU registers in $f"; rc=1; }
done
grep -q 'booting it once more' "$out/progress" || { echo "no word of the second boot on stderr"; rc=1; }
if [ $rc != 0 ]; then
	echo "--- run-tests.sh output ($out/report) ---"
	grep -E '^(PASS|FAIL) ' "$out/report"
fi
exit $rc
