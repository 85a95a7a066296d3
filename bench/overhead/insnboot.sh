#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One counted boot for bench-overhead's profile and truth phases: builds
# the insnprof QEMU plugin (insnprof.c), boots the guest image on one vCPU
# under -icount with the plugin on (boot.sh starts QEMU by name, so a
# wrapper ahead in PATH adds it) and fs.bench=MODE on the kernel command
# line, and checks what came back.
#
#   insnboot.sh DIR IMAGE_DIR MODE [PLUGIN_OPTION...]
#
# PLUGIN_OPTION: extra insnprof options (irq=on). Leaves in DIR:
# insnprof.so, insnprof.out, results (the guest's @@BENCH lines), boot.log
# and vm/ (logs; artifacts/overhead/kallsyms). Exits 1, saying why, when
# the guest failed, the plugin saw no marker (QEMU without plugin support:
# insnprof.c knows TCG plugin API versions 1, QEMU 7.x and 8.x, and 3,
# QEMU 9.0 on), the guest reported an error or saved no kallsyms.
set -u
dir=$1 img=$2 mode=$3
shift 3
opts=
for o in "$@"; do opts="$opts,$o"; done
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$dir"
mkdir -p "$dir/bin"

gcc -O2 -Wall -Wextra -Werror -shared -fPIC -fvisibility=hidden \
	-o "$dir/insnprof.so" "$here/insnprof.c" -lpthread || {
	echo "$mode: cannot build the insnprof plugin" >&2; exit 1; }
real=$(command -v qemu-system-x86_64) || { echo "$mode: no qemu-system-x86_64" >&2; exit 1; }
cat >"$dir/bin/qemu-system-x86_64" <<EOF
#!/bin/sh
# Added by bench/overhead/insnboot.sh: the insnprof plugin on guest boots.
case " \$* " in
*" -kernel "*) exec "$real" "\$@" -plugin "$dir/insnprof.so,out=$dir/insnprof.out$opts" ;;
esac
exec "$real" "\$@"
EOF
chmod 755 "$dir/bin/qemu-system-x86_64"

PATH="$dir/bin:$PATH" "$TOP/tests/vm/boot.sh" --rootfs "$img" -o "$dir/vm" --mem 2048 \
	--disk-mb 256 --smp 1 --icount --append "fs.bench=$mode nokaslr norandmaps" >"$dir/boot.log" 2>&1
rc=$?
tr -d '\r' <"$dir/vm/channel.log" | grep -a '^@@BENCH' >"$dir/results"
if [ $rc != 0 ] || ! grep -q '^mark ' "$dir/insnprof.out" 2>/dev/null; then
	tail -n 20 "$dir/boot.log" "$dir/vm/console.log" >&2
	echo "$mode: the guest failed, or the plugin saw no marker (QEMU without plugin support?)" >&2
	exit 1
fi
if grep -q '^@@BENCH-ERROR' "$dir/results"; then
	grep '^@@BENCH-ERROR' "$dir/results" >&2
	exit 1
fi
[ -s "$dir/vm/artifacts/overhead/kallsyms" ] || { echo "$mode: the guest saved no kallsyms" >&2; exit 1; }
exit 0
