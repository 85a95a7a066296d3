#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make demo`: boots a throwaway QEMU guest, loads the module, profiles
# the chain and syscalls workloads, and leaves flamestat-demo.folded and
# flamestat-demo.svg in the current directory.
#
#   tests/vm/demo.sh [--secs N] [--accel auto|kvm|tcg]
#
# flamestat-demo.folded is what `cat /dev/flamestat` printed, with the
# frames of the demo workloads named from their symbol tables (the raw
# text is in tests/build/demo/artifacts/demo/raw.folded).
set -u
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

secs=5 accel=${FLAMESTAT_ACCEL:-auto}
while [ $# -gt 0 ]; do
	case "$1" in
	--secs) secs=$2; shift ;;
	--accel) accel=$2; shift ;;
	-h | --help) sed -n '3,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) vm_die "demo: unknown argument '$1' (see --help)" ;;
	esac
	shift
done
[[ $secs =~ ^[0-9]+$ ]] || vm_die "demo: --secs takes whole seconds"
dest=$PWD
work="$BUILD/demo"
rm -rf "$work"
mkdir -p "$work"

vm_msg "building the module, the tool and the workloads"
if ! { make -s -C "$TOP" module && make -s -C "$TOP" tool &&
	make -s -j2 -C "$TOP/tests/workloads" O="$BUILD/workloads"; } >"$work/build.log" 2>&1; then
	tail -n 30 "$work/build.log" >&2
	vm_die "demo: build failed (log: $work/build.log)"
fi

# The guest side is an ordinary guest test named "demo".
cp "$TOP/tests/vm/demo-guest.sh" "$work/demo.sh"
sed -i "s/^SECS=.*/SECS=$secs/" "$work/demo.sh"
"$TOP/tests/vm/mkinitramfs.sh" -o "$work/initrd.cpio" "$work/demo.sh" ||
	vm_die "demo: could not build the initramfs"
vm_msg "booting a guest (under TCG this takes 10-20 s, then ${secs}s of profiling)"
"$TOP/tests/vm/boot.sh" -i "$work/initrd.cpio" -o "$work" --accel "$accel"
brc=$?
rm -f "$work/initrd.cpio"
named="$work/artifacts/demo/named.folded"
if [ ! -s "$named" ]; then
	vm_msg "demo: the guest produced no folded stacks ($(cat "$work/status" 2>/dev/null))"
	echo "--- guest report ($work/channel.log) ---" >&2
	tr -d '\r' <"$work/channel.log" | grep -v '^\[' | tail -n 40 >&2
	echo "--- guest console, last 40 lines ($work/console.log) ---" >&2
	tr -d '\r' <"$work/console.log" | tail -n 40 >&2
	exit 1
fi
[ $brc = 0 ] || vm_msg "demo: warning: the guest did not finish cleanly ($(cat "$work/status")); using what it saved"
bad=$(tr -d '\r' <"$work/channel.log" | grep -E -- "$FS_VM_BAD_DMESG" | head -n 5)
[ -z "$bad" ] || { vm_msg "demo: warning: the guest kernel logged:"; echo "$bad" >&2; }

cp "$named" "$dest/flamestat-demo.folded"
vm_msg "folded stacks: $dest/flamestat-demo.folded ($(grep -vc '^#' "$named") stacks, $(awk '!/^#/ {s += $NF} END {print s + 0}' "$named") samples)"
if [ -s "$work/artifacts/demo/report.txt" ]; then
	vm_msg "report (flamestat report of the recording):"
	sed 's/^/    /' "$work/artifacts/demo/report.txt" >&2
fi
if "$TOP/user/flamestat" svg --help >/dev/null 2>&1; then
	if "$TOP/user/flamestat" svg --title "flamestat demo: chain, libwork and syscalls in a QEMU guest" \
		-o "$dest/flamestat-demo.svg" "$dest/flamestat-demo.folded"; then
		vm_msg "flame graph:   $dest/flamestat-demo.svg (open it in a browser)"
	else
		vm_die "demo: user/flamestat svg failed"
	fi
else
	rm -f "$dest/flamestat-demo.svg"
	vm_msg "flame graph:   not drawn: this user/flamestat has no 'svg' subcommand yet"
	exit 1
fi
