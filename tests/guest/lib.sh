# SPDX-License-Identifier: GPL-2.0
# Helpers for guest tests (busybox sh, sourced as /tests/lib.sh): load and
# unload the module, run workloads, read folded stacks and counters, name
# user frames, and record checks.
#
# A test calls check/expect_* for each property (each prints "ok - ..." or
# "not ok - ..."), die for a failed precondition, and ends with finish,
# which exits 1 when any check failed. On exit the module is unloaded and
# background workloads are killed.

FS_KO=/lib/flamestat/flamestat.ko
FS_DEV=/dev/flamestat
FS_SYSDEV=/sys/class/misc/flamestat
FS_STATS=$FS_SYSDEV/stats
FS_WL=/opt/workloads
FS_SYMS=/etc/flamestat/syms
: "${FS_TEST:=$(basename "$0" .sh)}"
: "${FS_TMP:=/tmp/fs-test/$FS_TEST}"
: "${FS_ARTIFACTS:=/artifacts/$FS_TEST}"
mkdir -p "$FS_TMP" "$FS_ARTIFACTS"
FS_FAILS=0
FS_BG=""
# FS_TORTURE=short|long|debug: the size of the torture tests
# (mkinitramfs.sh); debug is the long size cut to what a KASAN + lockdep
# kernel under TCG runs in about an hour (make torture-debug).
# shellcheck disable=SC2034 # read by the torture tests
FS_TORTURE=short
# shellcheck disable=SC1091 # written by mkinitramfs.sh
[ -f /etc/flamestat/env ] && . /etc/flamestat/env

log() { echo "# $*"; }
ok() { echo "ok - $*"; }
not_ok() {
	echo "not ok - $*"
	FS_FAILS=$((FS_FAILS + 1))
}
die() {
	not_ok "$*"
	exit 1
}
finish() {
	if [ "$FS_FAILS" -gt 0 ]; then
		echo "# $FS_FAILS check(s) failed"
		exit 1
	fi
	exit 0
}

# check DESC CMD...: CMD must succeed; its output is shown when it fails.
# CMD runs in this shell (wl_wait works; variables it sets stay set).
check() {
	_d=$1
	shift
	if "$@" >"$FS_TMP/.check" 2>&1; then
		ok "$_d"
	else
		not_ok "$_d (status $?)"
		tail -n 20 "$FS_TMP/.check" | sed 's/^/#   /'
	fi
}
# check_not DESC CMD...: CMD must fail.
check_not() {
	_d=$1
	shift
	if "$@" >"$FS_TMP/.check" 2>&1; then
		not_ok "$_d"
		tail -n 20 "$FS_TMP/.check" | sed 's/^/#   /'
	else
		ok "$_d"
	fi
}
expect_eq() { # DESC GOT WANT
	if [ "$2" = "$3" ]; then ok "$1 ($2)"; else not_ok "$1: got '$2', want '$3'"; fi
}
expect_ge() { # DESC GOT MIN (integers)
	if [ "$2" -ge "$3" ] 2>/dev/null; then ok "$1 ($2 >= $3)"; else not_ok "$1: got '$2', want >= $3"; fi
}
expect_le() { # DESC GOT MAX (integers)
	if [ "$2" -le "$3" ] 2>/dev/null; then ok "$1 ($2 <= $3)"; else not_ok "$1: got '$2', want <= $3"; fi
}

# Time since boot in milliseconds.
now_ms() { awk '{printf "%d\n", $1 * 1000}' /proc/uptime; }

# ---- the module ----

# fs_load [PARAM=VALUE...]: insmod, and wait for /dev/flamestat.
fs_load() {
	[ -f "$FS_KO" ] || die "no module at $FS_KO"
	if ! _o=$(insmod "$FS_KO" "$@" 2>&1); then
		echo "$_o" | sed 's/^/#   /'
		dmesg | tail -n 20 | sed 's/^/#   dmesg: /'
		die "insmod flamestat.ko $*"
	fi
	_i=0
	while [ ! -c "$FS_DEV" ] && [ $_i -lt 50 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	[ -c "$FS_DEV" ] || die "$FS_DEV did not appear after insmod"
}

# fs_unload: rmmod; true when the module and its device are gone.
fs_unload() {
	rmmod flamestat || return 1
	[ ! -d /sys/module/flamestat ] && [ ! -e "$FS_DEV" ]
}

fs_loaded() { [ -d /sys/module/flamestat ]; }

# ---- the udev rule (packaging/udev/70-flamestat.rules) ----

# fs_rule_file: where the guest has the rule flamestat ships: where
# `make install` puts it (the initramfs), or where the flamestat-dkms
# package does.
fs_rule_file() {
	for _f in /etc/udev/rules.d/70-flamestat.rules /lib/udev/rules.d/70-flamestat.rules \
		/usr/lib/udev/rules.d/70-flamestat.rules; do
		[ -f "$_f" ] && echo "$_f" && return 0
	done
	return 1
}

# fs_rule_key KEY: the value of KEY=="..." (a match) or KEY="..." (an
# assignment) on the rule's line.
fs_rule_key() {
	_f=$(fs_rule_file) || return 1
	awk -v k="$1" '!/^[[:space:]]*#/ && /KERNEL==/ {
		n = split($0, a, /,[[:space:]]*/)
		for (i = 1; i <= n; i++)
			if (match(a[i], "^[[:space:]]*" k "==?\"")) {
				v = substr(a[i], RLENGTH + 1)
				sub(/".*/, "", v)
				print v
				exit
			}
	}' "$_f"
}

# fs_udev_rule: what udev does with the rule for the device (the busybox
# guests run no udev): when its KERNEL and SUBSYSTEM match the device's,
# the node gets the rule's GROUP and MODE.
fs_udev_rule() {
	_k=$(fs_rule_key KERNEL) _s=$(fs_rule_key SUBSYSTEM)
	_g=$(fs_rule_key GROUP) _m=$(fs_rule_key MODE)
	if [ -z "$_g" ] || [ -z "$_m" ]; then
		echo "no GROUP or MODE in '$(fs_rule_file)'"
		return 1
	fi
	_dev=$(basename "$FS_SYSDEV")
	_sub=$(basename "$(readlink "$FS_SYSDEV/subsystem")")
	if [ "$_k" != "$_dev" ] || [ "$_s" != "$_sub" ]; then
		echo "the rule (KERNEL=='$_k' SUBSYSTEM=='$_s') does not match $_dev in $_sub"
		return 1
	fi
	chgrp "$_g" "$FS_DEV" && chmod "$_m" "$FS_DEV"
}

# fs_write TEXT: write TEXT to the device in one write(2); on failure the
# error (e.g. "Invalid argument") is in $FS_WRITE_ERR.
# shellcheck disable=SC2034 # FS_WRITE_ERR is for the tests
fs_write() {
	FS_WRITE_ERR=""
	if printf '%s' "$1" | dd of="$FS_DEV" bs=4096 conv=notrunc 2>"$FS_TMP/.werr"; then
		return 0
	fi
	FS_WRITE_ERR=$(sed -n 's/.*: //p' "$FS_TMP/.werr" | head -n 1)
	return 1
}

# fs_read FILE: the folded stacks (cat /dev/flamestat) into FILE.
fs_read() { cat "$FS_DEV" >"$1"; }

# fs_stat NAME: one counter of /sys/class/misc/flamestat/stats.
fs_stat() { awk -v k="$1" '$1 == k {print $2; f = 1} END {exit !f}' "$FS_STATS"; }

# fs_wait_sampling PID: until the module samples ("running: yes" in
# flamestat status), at most 30 s, while PID (the recording) lives; 1 if it
# never did. A signal meant for a running recording must not come while
# it starts: a background job of a script inherits SIGINT ignored.
fs_wait_sampling() {
	_w=0
	while [ $_w -lt 300 ]; do
		flamestat status 2>/dev/null | grep -q '^running: *yes' && return 0
		kill -0 "$1" 2>/dev/null || return 1
		sleep 0.1
		_w=$((_w + 1))
	done
	return 1
}

# fs_stats_balance: "samples recorded dropped" from one read of the stats,
# dropped being the sum of every dropped_* counter.
fs_stats_balance() {
	awk '$1 == "samples" {s = $2} $1 == "recorded" {r = $2}
	     $1 ~ /^dropped_/ {d += $2} END {print s + 0, r + 0, d + 0}' "$FS_STATS"
}

# fs_insmod_refused PARAMS...: each argument (one or several parameters)
# is refused by insmod, and nothing is left loaded.
fs_insmod_refused() {
	for _p in "$@"; do
		# shellcheck disable=SC2086 # several parameters
		if insmod "$FS_KO" $_p 2>/dev/null; then
			not_ok "insmod $_p refused"
			rmmod flamestat
		else
			ok "insmod $_p refused"
		fi
	done
	check "nothing loaded" sh -c '! [ -d /sys/module/flamestat ]'
}

# fs_balanced: samples == recorded + dropped, and off-CPU blocks ==
# recorded + dropped, in one read of the stats.
fs_balanced() {
	awk '$1 == "samples" {s = $2} $1 == "recorded" {r = $2}
	     $1 ~ /^dropped_/ {d += $2}
	     $1 == "offcpu_blocks" {ob = $2} $1 == "offcpu_recorded" {orc = $2}
	     $1 ~ /^offcpu_dropped_/ {od += $2}
	     END {exit !(s == r + d && ob == orc + od)}' "$FS_STATS"
}

# fs_size SHORT LONG [DEBUG]: the size for FS_TORTURE; DEBUG defaults to LONG.
fs_size() {
	case $FS_TORTURE in
	long) echo "$2" ;;
	debug) echo "${3:-$2}" ;;
	*) echo "$1" ;;
	esac
}

# fs_meminfo KEY: a /proc/meminfo value in kB.
fs_meminfo() { awk -v k="$1:" '$1 == k {print $2}' /proc/meminfo; }

# fs_debug_kernel: true on the flamestat debug kernel (tests/debug-kernel).
fs_debug_kernel() { case "$(uname -r)" in *-flamestat-debug) return 0 ;; esac; return 1; }

# fs_kmemleak_clear / fs_kmemleak_report: with kmemleak (the debug kernel),
# forget older reports, and later print what is unreferenced now (nothing
# when there is no leak). Without kmemleak both do nothing.
FS_KMEMLEAK=/sys/kernel/debug/kmemleak
fs_kmemleak_clear() { [ -w "$FS_KMEMLEAK" ] && echo clear >"$FS_KMEMLEAK"; return 0; }
fs_kmemleak_report() {
	[ -w "$FS_KMEMLEAK" ] || return 0
	# An object must stay unreferenced for 5 s and two scans to count.
	sleep 6
	echo scan >"$FS_KMEMLEAK"
	echo scan >"$FS_KMEMLEAK"
	cat "$FS_KMEMLEAK"
}

# fs_mem_level: "SUnreclaim VmallocUsed Percpu" (kB) after dropping caches.
fs_mem_level() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	echo "$(fs_meminfo SUnreclaim) $(fs_meminfo VmallocUsed) $(fs_meminfo Percpu)"
}

# fs_expect_mem_back S0 V0 P0 S1 V1 P1: memory back to the level S0 V0 P0
# (fs_mem_level before) at S1 V1 P1 (after), and kmemleak (debug kernel)
# finds nothing. KASAN's quarantine (debug kernel) keeps freed objects
# counted as slab until it fills: there, 4 MiB; kmemleak is the leak check.
fs_expect_mem_back() {
	_slab_max=1024
	fs_debug_kernel && _slab_max=4096
	expect_le "SUnreclaim back within $_slab_max kB" "$(($4 - $1))" "$_slab_max"
	expect_le "VmallocUsed back within 1 MiB" "$(($5 - $2))" 1024
	expect_le "Percpu back within 64 KiB" "$(($6 - $3))" 64
	if fs_debug_kernel; then
		check "kmemleak on (debug kernel)" test -w "$FS_KMEMLEAK"
	fi
	_leaks=$(fs_kmemleak_report)
	expect_eq "kmemleak: no unreferenced objects" "$(printf '%s' "$_leaks" | grep -c 'unreferenced object')" 0
	[ -n "$_leaks" ] && printf '%s\n' "$_leaks" | head -n 40 | sed 's/^/#   /'
	return 0
}

# ---- folded stacks ----

# fs_sum FILE [ERE]: total count of the lines whose stack matches ERE.
# (ERE goes through the environment: awk -v would eat its backslashes.)
# fs_delta BEFORE AFTER: the folded lines of AFTER less those of BEFORE
# (two reads of the same session): what was counted in between.
fs_delta() {
	awk 'NR == FNR { c = $NF; s = $0; sub(/ [0-9]+$/, "", s); b[s] = c; next }
		{ c = $NF; s = $0; sub(/ [0-9]+$/, "", s); d = c - b[s]; if (d > 0) print s, d }' "$1" "$2"
}

fs_sum() {
	FS_RE="${2:-.}" awk '{n = $NF; s = $0; sub(/ [0-9]+$/, "", s)}
		s ~ ENVIRON["FS_RE"] {t += n} END {print t + 0}' "$1"
}

# fs_user_frames FILE RE: "COUNT FRAME" for every user frame (after comm,
# not _[k]) of the folded lines whose stack matches RE, and last "total
# N": the samples with at least one.
fs_user_frames() {
	FS_RE="$2" awk '{c = $NF; s = $0; sub(/ [0-9]+$/, "", s)
		if (s !~ ENVIRON["FS_RE"]) next
		n = split(s, f, ";"); u = 0
		for (i = 2; i <= n; i++) if (f[i] !~ /_\[k\]$/) { print c, f[i]; u = 1 }
		t += u * c}
		END {print "total", t + 0}' "$1"
}

# An awk function for the programs below: hex("0x1f") or hex("1f") is 31;
# -1 when not hexadecimal. (awk numbers are doubles: exact to 2^53, which
# user addresses are.)
FS_AWK_HEX='
function hex(s,   i, c, v) {
	v = 0
	s = tolower(s)
	sub(/^0x/, "", s)
	for (i = 1; i <= length(s); i++) {
		c = index("0123456789abcdef", substr(s, i, 1))
		if (!c) return -1
		v = v * 16 + c - 1
	}
	return v
}'

# An awk function for snapdump lines ("tag key=value ..."): fields(a)
# empties array a and fills it with this line's key=value pairs.
# shellcheck disable=SC2016 # awk's $i, not the shell's
FS_AWK_FIELDS='
function fields(a,   i, p) {
	split("", a)
	for (i = 2; i <= NF; i++) {
		p = index($i, "=")
		if (p) a[substr($i, 1, p - 1)] = substr($i, p + 1)
	}
}'

# fs_snap_unused_maps DUMP: the MAP records of a snapdump output that no
# user frame of their process's stacks falls in (one per line).
fs_snap_unused_maps() {
	awk "$FS_AWK_HEX$FS_AWK_FIELDS"'
	$1 == "map" { fields(f); n++; mp[n] = f["proc"]; lo[n] = hex(f["start"]); hi[n] = hex(f["end"]); line[n] = $0 }
	$1 == "stack" {
		fields(f)
		if (f["u"] == "-") next
		nu = split(f["u"], u, ",")
		for (i = 1; i <= nu; i++) { nf++; fp[nf] = f["proc"]; fa[nf] = hex(u[i]) }
	}
	END {
		for (m = 1; m <= n; m++) {
			used = 0
			for (i = 1; i <= nf && !used; i++)
				used = fp[i] == mp[m] && fa[i] >= lo[m] && fa[i] < hi[m]
			if (!used) print line[m]
		}
	}' "$1"
}

# fs_symbolize < folded > folded: names the user frames "FILE+0xOFF" of
# the workloads from their symbol tables (built on the host); other
# frames stay as they are. Return addresses (all user frames but the
# leaf) are looked up one byte back, inside the call.
fs_symbolize() {
	awk -v dir="$FS_SYMS" "$FS_AWK_HEX"'
	function load(file,   path, line, f) {
		if (file in loaded) return
		loaded[file] = 1
		path = dir "/" file ".syms"
		while ((getline line < path) > 0) {
			split(line, f, " ")
			n = ++nsym[file]
			lo[file, n] = f[1]; hi[file, n] = f[2]; nm[file, n] = f[3]
		}
		close(path)
	}
	function name(frame, leaf,   p, file, off, i) {
		p = index(frame, "+0x")
		if (!p) return frame
		file = substr(frame, 1, p - 1)
		off = hex(substr(frame, p + 3))
		if (off < 0) return frame
		load(file)
		if (!leaf) off--
		for (i = 1; i <= nsym[file]; i++)
			if (off >= lo[file, i] && off < hi[file, i])
				return nm[file, i]
		return frame
	}
	{
		cnt = $NF
		s = $0
		sub(/ [0-9]+$/, "", s)
		nf = split(s, f, ";")
		leaf = 0
		for (i = nf; i > 1; i--)
			if (f[i] !~ /_\[k\]$/) { leaf = i; break }
		out = f[1]
		for (i = 2; i <= nf; i++)
			out = out ";" (i <= leaf ? name(f[i], i == leaf) : f[i])
		print out, cnt
	}'
}

# ---- off-CPU time (mode=offcpu|wall; tests/workloads/offcpu) ----

# fs_load_offcpu PARAM=VALUE...: fs_load, then die unless the module
# measures off-CPU time (its stats have offcpu_blocks): a module without
# it ignores mode= as an unknown parameter and samples CPU time.
fs_load_offcpu() {
	fs_load "$@"
	grep -q '^offcpu_blocks ' "$FS_STATS" ||
		die "the module has no off-CPU support (no offcpu_blocks in $FS_STATS; loaded with $*)"
}

# fs_off_ns FILE COMM FUNC [STATE]: the ns of the folded (symbolized) lines
# of thread COMM whose stack has the frame FUNC (user or kernel), in the
# off-CPU state STATE (S, D or R: the [off-cpu:X] frame, or [off-cpu X])
# when given, else
# in any state. Waker frames (after "--") are not looked at.
fs_off_ns() {
	awk -v c="$2" -v f="$3" -v st="${4:-}" '{ v = $NF; s = $0; sub(/ [0-9]+$/, "", s)
		n = split(s, a, ";"); if (a[1] != c) next
		hit = 0; state = ""
		for (i = 2; i <= n; i++) {
			if (a[i] == "--") break
			if (a[i] == f || a[i] == f "_[k]") hit = 1
			if (a[i] ~ /^\[off-cpu[ :][SDR]\]$/) state = substr(a[i], 10, 1)
		}
		if (hit && state != "" && (st == "" || st == state)) t += v }
		END { printf "%.0f\n", t }' "$1"
}

# fs_truth OUT FUNC KEY: KEY of the workload's line "func FUNC ..." (summed
# over the threads that have one), or of "thread FUNC ..." (its comm).
fs_truth() {
	awk -v f="$2" -v k="$3" '($1 == "func" || $1 == "thread") && $2 == f {
		for (i = 3; i <= NF; i++) if (index($i, k "=") == 1) t += substr($i, length(k) + 2) }
		END { printf "%.0f\n", t }' "$1"
}

# fs_within GOT WANT PCT: |GOT - WANT| <= PCT% of WANT (integers).
fs_within() {
	_d=$(($1 - $2))
	[ $_d -lt 0 ] && _d=$((-_d))
	[ $((_d * 100)) -le $(($2 * $3)) ]
}

# expect_within DESC GOT WANT PCT: a check of fs_within.
expect_within() {
	if fs_within "$2" "$3" "$4"; then
		ok "$1 ($2 vs $3, within $4%)"
	else
		not_ok "$1: got $2, want $3 within $4%"
	fi
}

# fs_offcpu_balance [FILE]: "blocks recorded dropped" from one read of the
# stats (offcpu_blocks, offcpu_recorded, the sum of every offcpu_dropped_*).
fs_offcpu_balance() {
	awk '$1 == "offcpu_blocks" {b = $2} $1 == "offcpu_recorded" {r = $2}
	     $1 ~ /^offcpu_dropped_/ {d += $2} END {print b + 0, r + 0, d + 0}' "${1:-$FS_STATS}"
}

# expect_offcpu_balanced TAG: offcpu_blocks == offcpu_recorded + dropped,
# the module's off-CPU counters present, blocks seen.
expect_offcpu_balanced() {
	_tag=$1
	cp "$FS_STATS" "$FS_TMP/stats.$$"
	check "$_tag: the stats have offcpu_blocks, offcpu_recorded, offcpu_dropped_short" \
		sh -c "grep -q '^offcpu_blocks ' $FS_TMP/stats.$$ && grep -q '^offcpu_recorded ' $FS_TMP/stats.$$ && grep -q '^offcpu_dropped_short ' $FS_TMP/stats.$$"
	# shellcheck disable=SC2046 # three numbers
	set -- $(fs_offcpu_balance "$FS_TMP/stats.$$")
	log "$_tag: offcpu_blocks $1, recorded $2, dropped $3"
	expect_ge "$_tag: off-CPU blocks counted" "$1" 1
	expect_eq "$_tag: offcpu_blocks == recorded + dropped" "$1" $(($2 + $3))
}

# ---- workloads ----

# wl NAME ARGS...: run a workload in the foreground.
wl() {
	_w=$1
	shift
	"$FS_WL/$_w" "$@"
}

# wl_bg NAME ARGS...: start a workload in the background; $! is its pid.
wl_bg() {
	_w=$1
	shift
	"$FS_WL/$_w" "$@" &
	FS_BG="$FS_BG $!"
}

# wl_wait: wait for the background workloads; false if one failed.
wl_wait() {
	_rc=0
	for _p in $FS_BG; do
		wait "$_p" || _rc=1
	done
	FS_BG=""
	return $_rc
}

# chain_named TAG: chain runs 3 s in this session; >= 90% of its samples
# must be named main;outer;middle;hot_leaf (what the process database
# does to earlier processes must not cost a later one its names).
chain_named() {
	wl_bg chain 3
	check "$1: chain exits 0" wl_wait
	fs_read "$FS_TMP/named.folded"
	grep '^chain;' "$FS_TMP/named.folded" | fs_symbolize >"$FS_TMP/named.sym"
	# Which of chain's stacks were not named, when some are not.
	artifact "$FS_TMP/named.sym" "named-$(echo "$1" | tr -c 'a-zA-Z0-9\n' '_').sym"
	_t=$(fs_sum "$FS_TMP/named.sym" '^chain;')
	_n=$(fs_sum "$FS_TMP/named.sym" '^chain;(.*;)?main;outer;middle;hot_leaf(;[^;]*_\[k\])*$')
	log "$1: chain $_t samples, $_n named"
	expect_ge "$1: chain sampled" "$_t" 300
	expect_ge "$1: chain >= 90% named (x10 vs x9)" $((_n * 10)) $((_t * 9))
}

# ---- unwind tables against unwind_kb (29-unwind-bound, -noroom) ----

# qsort_tables: the bytes of the unwind tables nofp -m qsort needs (nofp's,
# libc's, ld.so's), measured in a session of their own, in u.
qsort_tables() {
	fs_load
	check "nofp -m qsort, to size its tables" wl nofp -m qsort 1
	u=$(fs_stat unwind_bytes)
	log "tables: $(fs_stat unwind_tables), $u bytes"
	expect_ge "libc's table and nofp's built (> 64 KiB)" "$u" 65536
	check "unload" fs_unload
}

# libc_copy: a copy of this guest's libc.so.6 in COPY: another file, whose
# table is built rather than taken over, as big as libc's. nofp maps it
# with LD_LIBRARY_PATH=$COPY.
libc_copy() {
	_libc=
	for _f in /lib/x86_64-linux-gnu/libc.so.6 /usr/lib/x86_64-linux-gnu/libc.so.6 \
		/lib/aarch64-linux-gnu/libc.so.6 /usr/lib/aarch64-linux-gnu/libc.so.6; do
		if [ -f "$_f" ]; then
			_libc=$_f
			break
		fi
	done
	[ -n "$_libc" ] || die "no libc.so.6 in this guest"
	COPY=$FS_TMP/libc-copy
	mkdir -p "$COPY"
	cp "$_libc" "$COPY/libc.so.6"
}

# copy_run NAME SECS: nofp -m qsort with the copy of libc (libc_copy) for
# SECS seconds, its samples from the second second on in NAME.sym; sets
# all (samples in nf_cmp) and good (those whole from main).
copy_run() {
	# Exported: an assignment before a function call may outlive the
	# call in POSIX sh.
	export LD_LIBRARY_PATH="$COPY"
	wl_bg nofp -m qsort "$2"
	_pid=$!
	unset LD_LIBRARY_PATH
	sleep 1
	_mapped=$(awk '$6 ~ /libc\.so\.6$/ { print $6; exit }' "/proc/$_pid/maps")
	expect_eq "$1: nofp maps the copy of libc" "$_mapped" "$COPY/libc.so.6"
	sample_window "$1" nofp "$1: nofp -m qsort with the copy" wl_wait
	whole_count "$1" nf_cmp 'nf_sort;(libc\.so\.6\+0x[0-9a-f]+;)+nf_cmp'
}

# ---- stacks whole from main ----

# sample_window NAME COMM MSG CMD...: the samples of COMM taken while CMD
# runs (a check, with MSG; it waits for a workload started before), read
# before and after it, symbolized into NAME.sym, an artifact.
sample_window() {
	_sw=$1 _swc=$2 _swm=$3
	shift 3
	fs_read "$FS_TMP/$_sw.before"
	check "$_swm" "$@"
	fs_read "$FS_TMP/$_sw.after"
	fs_delta "$FS_TMP/$_sw.before" "$FS_TMP/$_sw.after" | grep "^$_swc;" |
		fs_symbolize >"$FS_TMP/$_sw.sym"
	artifact "$FS_TMP/$_sw.sym"
}

# whole_count NAME LEAF RE: of NAME.sym's samples whose user leaf is LEAF
# (kernel frames after it allowed), all; of those, good: the ones whose
# stack from main on is main;RE. Logged, with the three largest stacks.
whole_count() {
	_k='(;[^;]*_\[k\])*$'
	all=$(fs_sum "$FS_TMP/$1.sym" "^[^;]*;(.*;)?$2$_k")
	good=$(fs_sum "$FS_TMP/$1.sym" "^[^;]*;(.*;)?main;$3$_k")
	log "$1: $all samples in $2, $good whole from main"
	sort -t' ' -k2 -n -r "$FS_TMP/$1.sym" | head -n 3 | sed 's/^/#   /'
}

# expect_whole NAME LEAF MIN: after whole_count, at least MIN samples in
# LEAF and >= 99% of them whole from main.
expect_whole() {
	expect_ge "$1: sampled in $2" "$all" "$3"
	expect_ge "$1: >= 99% of them whole from main (x100 vs x99)" \
		$((good * 100)) $((all * 99))
}

# ---- artifacts ----

# artifact FILE [NAME]: FILE comes out of the guest as
# <outdir>/artifacts/<test>/NAME.
artifact() { cp "$1" "$FS_ARTIFACTS/${2:-$(basename "$1")}"; }

fs_cleanup() {
	for _p in $FS_BG; do
		kill -9 "$_p" 2>/dev/null
	done
	fs_loaded && rmmod flamestat 2>/dev/null
	return 0
}
trap fs_cleanup EXIT
