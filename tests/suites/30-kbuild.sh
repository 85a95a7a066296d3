#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The module builds with W=1 and no warning against every kernel whose
# headers the project installs (Debian 6.1, 6.12, 6.12 PREEMPT_RT), the
# build-time feature tests pick the right API on each, every function
# other files call has kernel-doc, and checkpatch --strict has nothing to
# say.
source "$(dirname "$0")/../lib/common.sh"

kernels=$(ls -d /lib/modules/*/build 2>/dev/null | sed 's|/lib/modules/\(.*\)/build|\1|' | sort -V)
[ -n "$kernels" ] || fail kbuild-headers "no kernel headers installed (scripts/install-deps.sh)"

# kbuild writes next to the sources: build a private copy per kernel.
build_for() {
	local kver=$1 dir=$BUILD/kbuild/$1
	rm -rf "$dir" && mkdir -p "$dir"
	cp -r "$TOP/Kbuild" "$TOP/kmod" "$dir/"
	find "$dir/kmod" \( -name '*.o' -o -name '*.ko' -o -name '.*.cmd' -o -name '*.mod*' \) -delete
	make -C "/lib/modules/$kver/build" M="$dir" W=1 FLAMESTAT_VERSION=test modules >"$dir/build.log" 2>&1
}

for k in $kernels; do
	if ! build_for "$k"; then
		fail "kbuild-$k" "$(grep -m3 -E 'error|Error' "$BUILD/kbuild/$k/build.log" | tr '\n' '|')"
		continue
	fi
	w=$(grep -E 'warning:' "$BUILD/kbuild/$k/build.log")
	if [ -n "$w" ]; then
		fail "kbuild-$k" "W=1 warnings: $(echo "$w" | head -3 | tr '\n' '|')"
	elif [ ! -f "$BUILD/kbuild/$k/kmod/flamestat.ko" ]; then
		fail "kbuild-$k" "no flamestat.ko produced"
	else
		pass "kbuild-$k"
	fi
done

# The feature tests must see the API each kernel really has.
flags_of() { tr ' ' '\n' < "$BUILD/kbuild/$1/kmod/.main.o.cmd" | grep -o 'FST_HAVE_[A-Z_]*' | sort -u | tr '\n' ' '; }
expect_flags() {
	local k=$1 want=$2 got
	[ -f "$BUILD/kbuild/$k/kmod/.main.o.cmd" ] || return 0
	got=$(flags_of "$k")
	if [ "$got" = "$want" ]; then
		pass "conftest-$k"
	else
		fail "conftest-$k" "feature tests found '$got', expected '$want'"
	fi
}
for k in $kernels; do
	case $k in
	6.1.0-*) expect_flags "$k" "FST_HAVE_FOR_EACH_VMA FST_HAVE_HK_TYPE FST_HAVE_INODE_GET_CTIME FST_HAVE_IN_EXECVE FST_HAVE_MMAP_LOCK FST_HAVE_PERFMON_CAPABLE FST_HAVE_SCHED_SWITCH_PREV_STATE FST_HAVE_TASK_STATE_FIELD FST_HAVE_TRACEPOINT_ITERATOR " ;;
	# Debian 6.12 has the new system workqueue names backported (6.17).
	6.12.*) expect_flags "$k" "FST_HAVE_FOR_EACH_VMA FST_HAVE_HK_TYPE FST_HAVE_INODE_GET_CTIME FST_HAVE_IN_EXECVE FST_HAVE_MMAP_LOCK FST_HAVE_PERFMON_CAPABLE FST_HAVE_SCHED_SWITCH_PREV_STATE FST_HAVE_SYSTEM_DFL_WQ FST_HAVE_TASK_STATE_FIELD FST_HAVE_TRACEPOINT_ITERATOR FST_HAVE_VM_FLAGS_CONST " ;;
	esac
done

# kernel-doc on every function other files call, and nothing for the
# kernel's scripts/kernel-doc to say (scripts/check-kernel-doc.sh).
if out=$("$TOP/scripts/check-kernel-doc.sh" 2>&1); then
	pass kernel-doc
else
	fail kernel-doc "$(echo "$out" | head -6 | tr '\n' '|')"
fi

# kmod/'s includes run one way, down its layers (docs/DESIGN.md).
if out=$("$TOP/scripts/check-kmod-layers.sh" 2>&1); then
	pass kmod-layers
else
	fail kmod-layers "$(echo "$out" | head -6 | tr '\n' '|')"
fi

# checkpatch.pl comes from the kernel source tarball; extract it once.
cp_dir=$FLAMESTAT_CACHE/checkpatch
if [ ! -x "$cp_dir/scripts/checkpatch.pl" ]; then
	src=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n 1)
	if [ -z "$src" ]; then
		fail checkpatch "no /usr/src/linux-source-*.tar.xz (scripts/install-deps.sh installs linux-source-6.1)"
		exit 0
	fi
	mkdir -p "$cp_dir"
	top=$(basename "$src" .tar.xz)
	tar -xJf "$src" -C "$cp_dir" --strip-components=1 \
		"$top/scripts/checkpatch.pl" "$top/scripts/spelling.txt" \
		"$top/scripts/const_structs.checkpatch" || {
		fail checkpatch "cannot extract checkpatch.pl from $src"; exit 0; }
fi
# Ignored, with reasons: BIT_MACRO (BIT() does not exist in a UAPI header
# userspace includes), CAMELCASE (the kernel's own Elf64_Ehdr types),
# MACRO_ARG_REUSE (for_each-style iterator macros reuse their cursor).
out=$(cd "$TOP" && for f in kmod/*.c kmod/*.h kmod/arch/*/*.[ch] kmod/uapi/*.h; do
	case $f in *.mod.c) continue ;; esac
	"$cp_dir/scripts/checkpatch.pl" --no-tree --strict -q --show-types \
		--ignore BIT_MACRO,CAMELCASE,MACRO_ARG_REUSE -f "$f"
done 2>&1)
if echo "$out" | grep -qE '^(ERROR|WARNING|CHECK)'; then
	fail checkpatch "$(echo "$out" | grep -E -A2 '^(ERROR|WARNING|CHECK)' | head -12 | tr '\n' '|')"
else
	pass checkpatch
fi
