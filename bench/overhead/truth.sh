#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The ground-truth boot of bench-overhead's truth phase: boots the guest
# image under -icount shift=0 with the insnprof QEMU plugin (insnprof.c,
# irq=on: every instruction counted by address, user ones included, and
# where a timer interrupt would land), and runs each truth workload once
# with no profiler (fs.bench=groundtruth). What it executed is the truth
# the profilers are compared with (truth-report.sh).
#
#   truth.sh WORK IMAGE_DIR
#
# Leaves WORK/groundtruth/: insnprof.out, results (the guest's @@BENCH
# lines), vm/ (logs; artifacts/overhead/kallsyms). Needs a QEMU with TCG
# plugin support (API version 1, QEMU 7.x).
set -u
work=$1 img=$2
here=$(cd "$(dirname "$0")" && pwd)
dir="$work/groundtruth"
rm -rf "$dir"
mkdir -p "$dir/bin"

gcc -O2 -Wall -Wextra -Werror -shared -fPIC -fvisibility=hidden \
	-o "$dir/insnprof.so" "$here/insnprof.c" -lpthread || {
	echo "truth: cannot build the insnprof plugin" >&2; exit 1; }
# boot.sh starts QEMU by name: a wrapper ahead in PATH adds the plugin.
real=$(command -v qemu-system-x86_64) || { echo "truth: no qemu-system-x86_64" >&2; exit 1; }
cat >"$dir/bin/qemu-system-x86_64" <<EOF
#!/bin/sh
# Added by bench/overhead/truth.sh: the insnprof plugin on guest boots.
case " \$* " in
*" -kernel "*) exec "$real" "\$@" -plugin "$dir/insnprof.so,out=$dir/insnprof.out,irq=on" ;;
esac
exec "$real" "\$@"
EOF
chmod 755 "$dir/bin/qemu-system-x86_64"

PATH="$dir/bin:$PATH" "$TOP/tests/vm/boot.sh" --rootfs "$img" -o "$dir/vm" --mem 2048 \
	--disk-mb 256 --smp 1 --icount --append "fs.bench=groundtruth nokaslr" >"$dir/boot.log" 2>&1
rc=$?
tr -d '\r' <"$dir/vm/channel.log" | grep -a '^@@BENCH' >"$dir/results"
if [ $rc != 0 ] || ! grep -q '^mark ' "$dir/insnprof.out" 2>/dev/null; then
	tail -n 20 "$dir/boot.log" "$dir/vm/console.log" >&2
	echo "truth: the guest failed, or the plugin saw no marker (QEMU without plugin support?)" >&2
	exit 1
fi
if grep -q '^@@BENCH-ERROR' "$dir/results"; then
	grep '^@@BENCH-ERROR' "$dir/results" >&2
	exit 1
fi
[ -s "$dir/vm/artifacts/overhead/kallsyms" ] || { echo "truth: the guest saved no kallsyms" >&2; exit 1; }
exit 0
