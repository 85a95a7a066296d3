#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Static analysis of the userspace C: gcc -fanalyzer and clang-tidy (with
# the checks chosen in .clang-tidy) must report nothing.
# shellcheck source-path=SCRIPTDIR source=../lib/common.sh
source "$(dirname "$0")/../lib/common.sh"

cd "$TOP/user" || exit 1
make -s gen/assets.c gen/profile.pb-c.h >/dev/null 2>&1 || true
flags=(-std=c11 -D_GNU_SOURCE -I. -I../kmod -Igen -DFLAMESTAT_VERSION='"test"')
# Every source in user/'s folders; gen/ holds the generated assets and
# protoc-c's code, which are not ours to analyze.
srcs=()
for f in */*.c; do
	case $f in gen/*) ;; *) srcs+=("$f") ;; esac
done

# Each file on its own, as many at once as the host has cores (the
# reports are only searched for warnings, so their order does not matter).
jobs=$(nproc)
each() { printf '%s\0' "${srcs[@]}" | xargs -0 -P "$jobs" -I{} "$@" 2>&1; }

out=$(each gcc "${flags[@]}" -fanalyzer -Wall -Wextra -c -o /dev/null {})
if echo "$out" | grep -qE 'warning:|error:'; then
	fail analyzer-user "$(echo "$out" | grep -E 'warning:|error:' | head -5 | tr '\n' '|')"
else
	pass analyzer-user
fi

out=$(for f in "$TOP"/tests/clients/*.c; do
	gcc -std=gnu11 -I"$TOP/kmod" -fanalyzer -Wall -Wextra -c -o /dev/null "$f" 2>&1
done)
if echo "$out" | grep -qE 'warning:|error:'; then
	fail analyzer-clients "$(echo "$out" | grep -E 'warning:|error:' | head -5 | tr '\n' '|')"
else
	pass analyzer-clients
fi

# The module's unwind-table builder as user space builds it (its hostile
# input makes it the one kernel file worth the analyzer), and its checker.
unwind=("$TOP/kmod/ehframe.c" "$TOP/tests/unwind/ehcheck.c")
out=$(for f in "${unwind[@]}"; do
	gcc -std=gnu11 -D_GNU_SOURCE -I"$TOP/kmod" -I"$TOP/tests/unwind" -fanalyzer \
		-Wall -Wextra -c -o /dev/null "$f" 2>&1
	if command -v clang-tidy >/dev/null; then
		clang-tidy --quiet "$f" -- -std=gnu11 -D_GNU_SOURCE -I"$TOP/kmod" \
			-I"$TOP/tests/unwind" 2>/dev/null
	fi
done)
if echo "$out" | grep -qE 'warning:|error:'; then
	fail analyzer-unwind "$(echo "$out" | grep -E 'warning:|error:' | head -5 | tr '\n' '|')"
else
	pass analyzer-unwind
fi

if ! command -v clang-tidy >/dev/null; then
	fail clang-tidy "clang-tidy not installed (scripts/deps.list)"
	exit 0
fi
# One file per run: clang 14 reports false va_list errors across files.
out=$(each sh -c 'clang-tidy --quiet "$@" 2>/dev/null' clang-tidy {} -- "${flags[@]}")
if echo "$out" | grep -qE 'warning:|error:'; then
	fail clang-tidy "$(echo "$out" | grep -E 'warning:|error:' | head -5 | tr '\n' '|')"
else
	pass clang-tidy
fi
