#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Which kernel the guest tests run on. On the debug kernel
# (tests/debug-kernel) its checkers must really be on -- KASAN, lockdep,
# atomic-sleep checks, kmemleak, debug objects, the frame-pointer unwinder,
# the lockdown LSM -- or a clean run would prove nothing; on any kernel the
# module must have been built for it.
# timeout: 60
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

log "kernel $(uname -r)"
expect_eq "module built for this kernel" \
	"$(strings "$FS_KO" | sed -n 's/^vermagic=\([^ ]*\).*/\1/p')" "$(uname -r)"
if ! fs_debug_kernel; then
	log "stock kernel: no debug checkers (make check-debug runs these tests on the debug kernel)"
	finish
fi
zcat /proc/config.gz >"$FS_TMP/config" || die "no /proc/config.gz"
for o in KASAN KASAN_VMALLOC PROVE_LOCKING DEBUG_ATOMIC_SLEEP DEBUG_KMEMLEAK \
	DEBUG_OBJECTS_TIMERS DEBUG_OBJECTS_WORK DEBUG_LIST UNWINDER_FRAME_POINTER \
	SECURITY_LOCKDOWN_LSM MODULE_SIG IA32_EMULATION HOTPLUG_CPU DEBUG_PREEMPT; do
	check "CONFIG_$o=y" grep -qx "CONFIG_$o=y" "$FS_TMP/config"
done
# lockdep turns itself off after its first report: debug_locks must be 1.
expect_eq "lockdep running (debug_locks)" \
	"$(awk '$1 == "debug_locks:" {print $2}' /proc/lockdep_stats)" 1
check "kmemleak on" test -w "$FS_KMEMLEAK"
finish
