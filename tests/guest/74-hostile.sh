#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Hostile user stacks (tests/workloads/hostile.c), 64-bit and 32-bit
# (compat: i386 4-byte frames on x86-64, AArch32 APCS frames on arm64):
# frame-pointer chains that loop, point into the kernel, at non-canonical,
# unmapped, PROT_NONE or page-crossing memory, are misaligned, very deep,
# rewritten or unmapped by another thread while walked, also from
# kernel-mode samples (around a system call). Every
# sample taken in the hostile window must hold exactly what a correct walk
# records (frames, USER_FAULT, USER_TRUNCATED, COMPAT flags); the 32-bit
# ordinary chain must resolve to main;c_outer;c_middle;c_leaf. The 32-bit
# half runs hostile32 (i386 on x86-64, AArch32 on arm64): a guest without
# it fails. These chains test the frame-pointer walk: the module walks
# with unwind=fp here. The walk with unwind tables (the default on x86-64)
# does not follow them (hostile's code has .eh_frame: its rules find the
# frames from the stack pointer), and the text it gives is checked too.
# timeout: 300
# timeout-long: 1200
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

SECS=$(fs_size 0.6 3)
RACE_SECS=$(fs_size 2 30)	# mutate, remap
MODES64="selfloop cycle down kernel kernelnext kret noncanon unmapped pagecross protnone misaligned zero deep mutate remap sys sysfault"
MODES32="selfloop cycle down kernel kernelnext kret unmapped pagecross protnone misaligned zero deep mutate remap sys sysfault"

# check_samples NAME EXPECT DUMP COMPAT DEPTH: "n bad kernel-mode" for the
# samples of NAME in the hostile window; the first bad ones on stderr.
check_samples() {
	awk -v name="$1" -v compat="$4" -v depth="$5" "$FS_AWK_HEX$FS_AWK_FIELDS"'
	function bit(v, b) { return int(v / b) % 2 }
	# A frame read while another thread stores it on a fresh (zero) page
	# by copy_from_user_nmi() (the first frame of a kernel-mode sample),
	# which may copy byte by byte: each byte is the stored one or still
	# zero. Nonzero (a zero one ends the walk). User-mode samples read
	# whole words, so there the value is exact.
	function torn(got, want,   i, g, w) {
		g = tolower(got); w = tolower(want)
		sub(/^0x/, "", g); sub(/^0x/, "", w)
		while (length(g) < 16) g = "0" g
		while (length(w) < 16) w = "0" w
		if (g == "0000000000000000") return 0
		for (i = 1; i <= 16; i += 2)
			if (substr(g, i, 2) != substr(w, i, 2) && substr(g, i, 2) != "00")
				return 0
		return 1
	}
	FNR == NR {
		if ($1 == "window") { lo = hex($2); hi = hex($3); slo = hex($5); shi = hex($6) }
		if ($1 == "expect") {
			mode = $2
			fields(want)
			if (mode ~ /^nu=/) mode = "exact"
		}
		next
	}
	$1 == "stack" {
		fields(f)
		if (f["comm"] != name) next
		nu = split(f["u"], u, ",")
		ip = hex(u[1])
		if (!((ip >= lo && ip <= hi) || (ip >= slo && ip <= shi))) next
		c = f["count"]
		n += c
		fl = hex(f["flags"])
		fault = bit(fl, 4); trunc = bit(fl, 2); cpt = bit(fl, 8)
		if (!bit(fl, 128)) kmode += c
		ok = cpt == compat && nu == f["nu"] + 0
		if (mode == "exact")
			ok = ok && nu == want["nu"] && fault == want["fault"] &&
			     trunc == want["truncated"] &&
			     (nu < 2 || u[2] == want["u1"]) && (nu < 3 || u[3] == want["u2"])
		else if (mode == "remap")
			ok = ok && ((nu == 2 && !fault && !trunc && (u[2] == want["u1"] ||
				     (!bit(fl, 128) && torn(u[2], want["u1"])))) ||
				    (nu == 1 && !trunc))
		else if (mode == "any")
			ok = ok && nu >= 1 && nu <= depth && (!trunc || nu == depth)
		else
			ok = 0
		if (!ok) {
			bad += c
			if (shown++ < 5) print "#   unexpected: " $0 > "/dev/stderr"
		}
	}
	END { print n + 0, bad + 0, kmode + 0 }' "$2" "$3"
}

# run_mode BINARY PREFIX MODE COMPAT [DEPTH]: run it, dump, check.
run_mode() {
	_bin=$1 _name=$2$3 _mode=$3 _compat=$4 _depth=${5:-127}
	_secs=$SECS
	case $_mode in mutate | remap) _secs=$RACE_SECS ;; esac
	check "reset before $_name" fs_write reset
	if ! wl "$_bin" -m "$_mode" -d "$_depth" "$_secs" >"$FS_TMP/$_name.exp"; then
		not_ok "$_bin -m $_mode exited with status $?"
		return
	fi
	if ! /opt/workloads/snapdump >"$FS_TMP/$_name.dump"; then
		not_ok "$_name: snapdump: $(head -n 1 "$FS_TMP/$_name.dump")"
		return
	fi
	# shellcheck disable=SC2046 # three numbers
	set -- $(check_samples "$_name" "$FS_TMP/$_name.exp" "$FS_TMP/$_name.dump" "$_compat" "$_depth")
	log "$_name: $(sed -n 's/^expect //p' "$FS_TMP/$_name.exp"): $1 samples in the window, $3 from kernel mode"
	expect_ge "$_name: samples in the hostile window" "$1" 10
	expect_eq "$_name: samples not as a correct walk records them" "$2" 0
	case $_mode in
	sys | sysfault) expect_ge "$_name: kernel-mode samples walked the user stack" "$3" 1 ;;
	esac
}

fs_load unwind=fp
for m in $MODES64; do
	run_mode hostile hx- "$m" 0
done
if [ -x "$FS_WL/hostile32" ]; then
	compat=1
	for m in $MODES32; do
		run_mode hostile32 h32- "$m" 1
	done
else
	compat=0
	not_ok "the 32-bit (compat) half cannot run: no hostile32 for $(uname -m) (tests/workloads/Makefile)"
fi
artifact "$FS_TMP/hx-mutate.dump"

# The text never shows a user "frame" above user space as a number.
check "reset before the kret text" fs_write reset
wl hostile -m kret "$SECS" >/dev/null || not_ok "hostile -m kret exited with status $?"
fs_read "$FS_TMP/kret.folded"
check "kret: kernel-looking user frames shown as [invalid] in the text" \
	grep -q '^hx-kret;.*\[invalid\]' "$FS_TMP/kret.folded"
# Kernel frames (the _[k] ones) may be numbers for a reader cleared to see
# them; a user frame never is a kernel-looking one (16 hex digits from
# 0xffff; a small unmapped user value such as 0xffffffff from a shell's
# garbage frame is just that).
expect_eq "kret: no user frame shown as a 0xffff... kernel-looking number" "$(awk '{
	sub(/ [0-9]+$/, ""); n = split($0, f, ";")
	for (i = 1; i <= n; i++)
		if (f[i] ~ /^0xffff[0-9a-f]+$/ && length(f[i]) == 18) bad++
} END { print bad + 0 }' "$FS_TMP/kret.folded")" 0
log "kret: kernel frames shown as numbers: $(grep -o '0x[0-9a-f]*_\[k\]' "$FS_TMP/kret.folded" | sort -u | tr '\n' ' ')"
artifact "$FS_TMP/kret.folded"

if [ $compat = 1 ]; then
	# Compat tasks: the snapshot marks the process and the counter counts.
	check "reset" fs_write reset
	wl hostile32 -m chain 1 >/dev/null || not_ok "hostile32 -m chain exited with status $?"
	/opt/workloads/snapdump >"$FS_TMP/chain32.dump" || not_ok "snapdump of the 32-bit chain"
	# Every PROC record h32-chain's stacks name must say COMPAT.
	# A process that is not says which (its tgid and comm against the stacks').
	expect_eq "h32-chain's processes are marked COMPAT" "$(awk "$FS_AWK_FIELDS"'
		$1 == "proc" { fields(f); pf[f["id"]] = f["flags"]; who[f["id"]] = "tgid=" f["tgid"] " comm=" f["comm"] }
		$1 == "stack" && / comm=h32-chain / {
			fields(f)
			if (f["proc"] != "0") {
				ids[f["proc"]] = 1; st[f["proc"]] = f["tgid"]; cnt[f["proc"]] += f["count"]
			}
		}
		END {
			for (id in ids) {
				n++
				if (!(id in pf)) bad = bad " " id ":none"
				else if (pf[id] !~ /^0x[0-9a-f]*[2367abef]$/)
					bad = bad " " id ":flags=" pf[id] " (" who[id] "; its h32-chain stacks: tgid=" st[id] ", " cnt[id] " samples)"
			}
			print n ? (bad ? "not COMPAT:" bad : "COMPAT") : "no stack"
		}' "$FS_TMP/chain32.dump")" COMPAT
	artifact "$FS_TMP/chain32.dump"
	expect_ge "user_compat counted" "$(sed -n 's/.*user_compat=\([0-9]*\).*/\1/p' "$FS_TMP/chain32.dump")" 10
	fs_read "$FS_TMP/chain32.folded"
	fs_symbolize <"$FS_TMP/chain32.folded" >"$FS_TMP/chain32.sym"
	artifact "$FS_TMP/chain32.sym"
	n=$(fs_sum "$FS_TMP/chain32.sym" '^h32-chain;')
	expect_ge "32-bit chain sampled" "$n" 50
	# At least 90% of its samples walk main;c_outer;c_middle;c_leaf.
	expect_ge "32-bit chain: main;c_outer;c_middle;c_leaf (x10 >= 9 x all)" \
		"$(($(fs_sum "$FS_TMP/chain32.sym" '^h32-chain;(.*;)?main;c_outer;c_middle;c_leaf$') * 10))" "$((n * 9))"
fi
check "unload" fs_unload

# The deepest walk the ABI allows: 1024 frames, marked truncated.
fs_load user_depth=1024 unwind=fp
run_mode hostile hx- deep 0 1024
[ $compat = 1 ] && run_mode hostile32 h32- deep 1 1024
check "still balanced" fs_balanced
check "unload" fs_unload

# The default walk, with unwind tables, under the same programs: every
# sample is recorded or counted as dropped, and the text never shows a
# user frame above user space as a number.
fs_load
for m in kret noncanon mutate remap sysfault; do
	wl hostile -m "$m" "$SECS" >/dev/null || not_ok "tables: hostile -m $m exited with status $?"
done
fs_read "$FS_TMP/tables.folded"
artifact "$FS_TMP/tables.folded"
expect_ge "tables: hostile sampled" "$(fs_sum "$FS_TMP/tables.folded" '^hx-')" 100
expect_eq "tables: no user frame shown as a 0xffff... kernel-looking number" "$(awk '{
	sub(/ [0-9]+$/, ""); n = split($0, f, ";")
	for (i = 1; i <= n; i++)
		if (f[i] ~ /^0xffff[0-9a-f]+$/ && length(f[i]) == 18) bad++
} END { print bad + 0 }' "$FS_TMP/tables.folded")" 0
check "tables: still balanced" fs_balanced
check "unload" fs_unload
finish
