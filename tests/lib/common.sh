# SPDX-License-Identifier: GPL-2.0
# Helpers for test suites (sourced). A suite reports each check with
# pass/fail/skip; tests/run counts the lines.

: "${TOP:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
: "${BUILD:=$TOP/tests/build}"
: "${FLAMESTAT_CACHE:=/var/tmp/flamestat-cache}"
mkdir -p "$BUILD" "$FLAMESTAT_CACHE"

pass() { echo "PASS $1"; }
# fail NAME WHY...
fail() { local n=$1; shift; echo "FAIL $n: $*"; }
skip() { local n=$1; shift; echo "SKIP $n: $*"; }

# check NAME CMD...: PASS when CMD succeeds, else FAIL with its output tail.
check() {
	local n=$1 out
	shift
	if out=$("$@" 2>&1); then
		pass "$n"
	else
		fail "$n" "$(printf '%s' "$out" | tail -n 5 | tr '\n' '|')"
	fi
}

# tool_objs: robjs=(), the tool's objects but main's and record's, for test
# programs that bring their own main; TOOL_LDLIBS=(), the libraries they need
# (both from user/Makefile, which builds them).
tool_objs() {
	local d o
	robjs=()
	for d in $(make -s -C "$TOP/user" print-dirs); do
		for o in "$TOP/user/$d"/*.o; do
			[ -e "$o" ] || continue
			case $o in */cmd/main.o|*/cmd/cmd_record.o) ;; *) robjs+=("$o") ;; esac
		done
	done
	# shellcheck disable=SC2034 # for the suites that source this file
	read -ra TOOL_LDLIBS <<<"$(make -s -C "$TOP/user" print-ldlibs)"
}
