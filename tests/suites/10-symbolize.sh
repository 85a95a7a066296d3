#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The symbolizer (user/sym/: elfsym, demangle, perfmap, ksyms, symbolize) on
# the host: unit tests, ELF files built here (PIE, non-PIE, shared library,
# C++, Rust names, stripped binaries with debug files found by
# .gnu_debuglink and by build-id, a binary replaced by another build, a
# missing file, PLT stubs), the same for aarch64 files and the frame rules
# of AArch64, golden files for kallsyms and perf maps, and one run of it
# all under valgrind. Expected offsets come from nm, readelf and objdump,
# not from the code under test. BLESS=1 rewrites the golden files.
set -u
. "$(dirname "$0")/../lib/common.sh"

FIX=$TOP/tests/fixtures/symbolize
OUT=$BUILD/symbolize
UNIT=$BUILD/unit
TMP=$(mktemp -d "$BUILD/symbolize-tmp.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

if ! log=$("$FIX/build.sh" "$OUT" 2>&1); then
	fail symbolize-fixtures "$(printf '%s' "$log" | tail -n 5 | tr '\n' '|')"
	exit 1
fi
pass symbolize-fixtures
if ! log=$(make -s -C "$TOP/tests/unit" BUILD="$BUILD" -j2 2>&1); then
	fail symbolize-unit-build "$(printf '%s' "$log" | tail -n 5 | tr '\n' '|')"
	exit 1
fi
pass symbolize-unit-build

"$UNIT/symunit" "$FIX" "$OUT" "$TMP" || echo "# symunit exited with $?"

# --- where functions are, from binutils ---

# symaddr FILE SYM: SYM's address (hex, no 0x) from the symbol table.
symaddr() {
	nm "$1" | awk -v s="$2" '$3 == s { print $1; exit }'
}

# symsize FILE SYM: SYM's size in bytes (decimal).
symsize() {
	local s
	s=$(nm -S "$1" | awk -v s="$2" 'NF == 4 && $4 == s { print $2; exit }')
	[ -n "$s" ] && echo $((16#$s))
}

# vaddr2off FILE VADDR_HEX: the file offset the PT_LOAD headers map it to.
vaddr2off() {
	local va=$((16#$2)) off vaddr fsz
	while read -r _ off vaddr _ fsz _; do
		if ((va >= vaddr && va < vaddr + fsz)); then
			printf '0x%x\n' $((va - vaddr + off))
			return 0
		fi
	done < <(readelf -lW "$1" | awk '$1 == "LOAD"')
	return 1
}

# off FILE SYM [DELTA]: file offset of SYM + DELTA, "0x..." ("" if none).
off() {
	local a
	a=$(symaddr "$1" "$2")
	[ -n "$a" ] || return 0
	vaddr2off "$1" "$(printf '%x' $((16#$a + ${3:-0})))"
}

build_id() {
	readelf -n "$1" | sed -n 's/.*Build ID: *//p'
}

# --- queries: q NAME "SYMTEST OPTIONS" "QUERY" "EXPECTED" ---

declare -a QN QO QQ QE
q() {
	QN+=("$1")
	QO+=("$2")
	QQ+=("$3")
	QE+=("$4")
}

# A query whose offset could not be computed is a broken fixture.
need() {
	local name=$1
	shift
	for v in "$@"; do
		if [ -z "$v" ]; then
			fail "$name" "fixture symbol missing (nm/readelf found nothing)"
			return 1
		fi
	done
}

DR="--debug-root $OUT/debugroot"
P=$OUT/fx_pie

# PIE executable
o_leaf=$(off "$P" fx_leaf 2)
o_static=$(off "$P" fx_static_helper 1)
o_middle=$(off "$P" fx_middle)
o_after=$(off "$P" fx_after_dies)
dies_end=$((16#$(symaddr "$P" fx_dies) + $(symsize "$P" fx_dies)))
after=$((16#$(symaddr "$P" fx_after_dies)))
if [ "$dies_end" = "$after" ]; then
	pass fixture-call-at-function-end
else
	fail fixture-call-at-function-end "fx_dies ends at $dies_end, fx_after_dies starts at $after"
fi
need pie "$o_leaf" "$o_static" "$o_middle" "$o_after" &&
{
q pie-leaf "$DR" "user $P $o_leaf" fx_leaf
q pie-local-function "$DR" "user $P $o_static" fx_static_helper
q pie-function-start "$DR" "user $P $o_middle" fx_middle
q pie-return-address-at-function-end "$DR" "user $P $o_after ret" fx_dies
q pie-leaf-at-next-function-start "$DR" "user $P $o_after" fx_after_dies
q pie-return-address-inside "$DR" "user $P $o_leaf ret" fx_leaf
q pie-alias-shorter-name "$DR" "user $P $(off "$P" fx_aliased_impl 1)" fx_alias
q pie-alias-global-over-weak "$DR" "user $P $(off "$P" fx_weak 1)" __fx_strong
q pie-rust-legacy "$DR" "user $P $(off "$P" _ZN4core3fmt5write17h0123456789abcdefE 1)" core::fmt::write
q pie-rust-v0 "$DR" "user $P $(off "$P" _RNvNtCs1234_7mycrate4util3foo 1)" mycrate::util::foo
q pie-rust-v0-semicolon "$DR" "user $P $(off "$P" _RNvMs_NtCs1234_7mycrate4utilINtB4_3BufAhj10_E3len 1)" "<mycrate::util::Buf<[u8: 16]>>::len"
q pie-asm-notype-extends "$DR" "user $P $(off "$P" fx_asm_notype 5)" fx_asm_notype
q pie-asm-sized "$DR" "user $P $(off "$P" fx_asm_sized 1)" fx_asm_sized
o_tag=$(off "$P" fx_tag)
q pie-data-unresolved "$DR" "user $P $o_tag" "fx_pie+$o_tag"
q pie-raw-rust "$DR --raw" "user $P $(off "$P" _ZN4core3fmt5write17h0123456789abcdefE 1)" _ZN4core3fmt5write17h0123456789abcdefE
q pie-addresses "$DR --addresses" "user $P $o_leaf" "fx_pie+$o_leaf"
q pie-sysroot "$DR --sysroot $OUT/sysroot" "user /usr/bin/fx_sys $o_leaf" fx_leaf
}

# Non-PIE executable: addresses are not file offsets here.
N=$OUT/fx_nopie
q nopie-leaf "$DR" "user $N $(off "$N" fx_leaf 2)" fx_leaf
q nopie-local-function "$DR" "user $N $(off "$N" fx_static_helper 1)" fx_static_helper
q nopie-main "$DR" "user $N $(off "$N" main 4)" main

# Shared library, then stripped to .dynsym.
L=$OUT/libfx.so
LS=$OUT/libfx_stripped.so
o_smul=$(off "$L" fxlib_static_mul 1)
q lib-exported "$DR" "user $L $(off "$L" fxlib_add 1)" fxlib_add
q lib-static "$DR" "user $L $o_smul" fxlib_static_mul
q lib-hidden "$DR" "user $L $(off "$L" fxlib_hidden 1)" fxlib_hidden
q lib-stripped-dynsym "$DR" "user $LS $(off "$L" fxlib_apply 3)" fxlib_apply
q lib-stripped-static-unresolved "$DR" "user $LS $o_smul" "libfx_stripped.so+$o_smul"

# C++
C=$OUT/fx_cxx
q cxx-operator "$DR" "user $C $(off "$C" _ZNK4fxns3VecplERKS0_ 1)" "fxns::Vec::operator+"
q cxx-template-int "$DR" "user $C $(off "$C" _ZN4fxns5scaleIiEET_S1_ 1)" "fxns::scale<int>"
q cxx-template-double "$DR" "user $C $(off "$C" _ZN4fxns5scaleIdEET_S1_ 1)" "fxns::scale<double>"
q cxx-virtual-method "$DR" "user $C $(off "$C" _ZN4fxns6Widget4drawEi 1)" "fxns::Widget::draw"
q cxx-overload-int "$DR" "user $C $(off "$C" _ZN4fxns6detail10overloadedEi 1)" "fxns::detail::overloaded"
q cxx-overload-double "$DR" "user $C $(off "$C" _ZN4fxns6detail10overloadedEd 1)" "fxns::detail::overloaded"
q cxx-lambda "$DR" "user $C $(off "$C" _ZZ4mainENKUliE_clEi 1)" "main::{lambda(int)#1}::operator()"
q cxx-raw "$DR --raw" "user $C $(off "$C" _ZNK4fxns3VecplERKS0_ 1)" _ZNK4fxns3VecplERKS0_

# Stripped, symbols in a debug file named by .gnu_debuglink.
for v in a b c nobid; do
	q "debuglink-$v" "$DR" "user $OUT/fx_dl_$v $(off "$OUT/fx_dl_$v.full" fx_middle 1)" fx_middle
done
if [ -z "$(build_id "$OUT/fx_dl_bad")" ] && [ -z "$(build_id "$OUT/fx_dl_nobid")" ]; then
	pass fixture-debuglink-without-build-id
else
	fail fixture-debuglink-without-build-id "fx_dl_bad or fx_dl_nobid has a build-id"
fi
o_bad=$(off "$OUT/fx_dl_bad.full" fx_middle 1)
q debuglink-crc-mismatch-unresolved "$DR" "user $OUT/fx_dl_bad $o_bad" "fx_dl_bad+$o_bad"

# Stripped, debug file found by build-id.
B=$OUT/fx_bid
bid_b=$(build_id "$B")
q build-id-recorded "$DR" "user $B $(off "$B.full" fx_leaf 1) $bid_b" fx_leaf
q build-id-from-file "$DR" "user $B $(off "$B.full" fx_middle 1)" fx_middle
q build-id-no-debug-root "--debug-root $TMP/none" "user $B $(off "$B.full" fx_leaf 1) $bid_b" "fx_bid+$(off "$B.full" fx_leaf 1)"

# fx_repl was replaced (build B) after builds A1 and A2 were recorded.
R=$OUT/fx_repl
bid_a1=$(build_id "$R"_a1.full)
bid_a2=$(build_id "$R"_a2.full)
bid_rb=$(build_id "$R")
o_a1=$(off "$R"_a1.full fx_leaf 1)
o_a2=$(off "$R"_a2.full fx_middle 1)
need replaced "$bid_a1" "$bid_a2" "$bid_rb" "$o_a1" "$o_a2" &&
{
q fixture-replaced-file-differs "$DR" "user $R $o_a1 $bid_rb" '!fx_leaf'
q replaced-no-debug-file-unresolved "$DR" "user $R $o_a1 $bid_a1" "fx_repl+$o_a1"
q replaced-debug-file-by-build-id "$DR" "user $R $o_a2 $bid_a2" fx_middle
q replaced-debug-file-return-address "$DR" "user $R $(off "$R"_a2.full fx_after_dies) ret $bid_a2" fx_dies
q replaced-current-build "$DR" "user $R $(off "$R" fx_variant_pad 1) $bid_rb" fx_variant_pad
q replaced-no-recorded-build-id "$DR" "user $R $(off "$R" fx_variant_pad 1)" fx_variant_pad
q missing-file-debug-by-build-id "$DR" "user /nonexistent/fx_gone $o_a2 $bid_a2" fx_middle
}

# MiniDebugInfo: stripped, its static functions in .gnu_debugdata.
M=$OUT/fx_mini
if [ -z "$(nm "$M" 2>/dev/null)" ] && readelf -SW "$M" | grep -q ' \.gnu_debugdata ' &&
   [ -z "$(nm -D "$M" | awk '$3 == "fx_static_helper"')" ]; then
	pass fixture-minidebuginfo
else
	fail fixture-minidebuginfo "fx_mini has a .symtab, no .gnu_debugdata, or fx_static_helper in .dynsym"
fi
o_mstatic=$(off "$M.full" fx_static_helper 1)
need minidebuginfo "$o_mstatic" &&
{
q minidebuginfo-static "$DR" "user $M $o_mstatic" fx_static_helper
q minidebuginfo-leaf "$DR" "user $M $(off "$M.full" fx_leaf 2)" fx_leaf
q minidebuginfo-return-address "$DR" "user $M $(off "$M.full" fx_after_dies) ret" fx_dies
q minidebuginfo-main "$DR" "user $M $(off "$M.full" main 4)" main
}

# fx_nbid (no build-id) was rebuilt after build A (fx_nbid_a, its inode)
# was recorded: the file at the path is another inode and names nothing.
NB=$OUT/fx_nbid
nb_a="dev=$(stat -c %d "$NB"_a) ino=$(stat -c %i "$NB"_a)"
nb_b="dev=$(stat -c %d "$NB") ino=$(stat -c %i "$NB")"
o_nba=$(off "$NB"_a fx_leaf 1)
o_nbb=$(off "$NB" fx_variant_pad 1)
if [ -z "$(build_id "$NB")" ] && [ "$nb_a" != "$nb_b" ] && ! cmp -s "$NB" "$NB"_a &&
   [ "$o_nba" != "$(off "$NB" fx_leaf 1)" ]; then
	pass fixture-rebuilt-without-build-id
else
	fail fixture-rebuilt-without-build-id "fx_nbid: build-id '$(build_id "$NB")', $nb_b, fx_nbid_a: $nb_a"
fi
need rebuilt-nobid "$o_nba" "$o_nbb" &&
{
q rebuilt-nobid-other-inode-unresolved "$DR" "user $NB $o_nba $nb_a" "fx_nbid+$o_nba"
q rebuilt-nobid-other-inode-return-address "$DR" "user $NB $o_nba ret $nb_a" "fx_nbid+$o_nba"
q rebuilt-nobid-same-inode "$DR" "user $NB $o_nbb $nb_b" fx_variant_pad
q rebuilt-nobid-inode-unknown "$DR" "user $NB $o_nbb" fx_variant_pad
q rebuilt-nobid-sysroot-copies "$DR --sysroot $OUT" "user /fx_nbid_a $o_nba $nb_b" fx_leaf
}

# Missing and deleted files.
q missing-file "$DR" "user /nonexistent/dir/libgone.so 0x1234" "libgone.so+0x1234"
q missing-file-return-address "$DR" "user /nonexistent/dir/libgone.so 0x1234 ret" "libgone.so+0x1234"
q deleted-unverified "$DR" "user $P (deleted) $o_leaf" "fx_pie+$o_leaf"
q deleted-build-id-verified "$DR" "user $P (deleted) $o_leaf $(build_id "$P")" fx_leaf
q relative-path "$DR" "user fx_pie $o_leaf" "fx_pie+$o_leaf"

# The vDSO, from our own (the suite runs on the machine it profiles).
if "$UNIT/symunit" --dump-vdso "$TMP/vdso.so" &&
   vs=$(nm -D --defined-only "$TMP/vdso.so" | awk '$3 ~ /^__vdso_clock_gettime@/ { print $1; exit }') &&
   [ -n "$vs" ]; then
	o_vdso=$(vaddr2off "$TMP/vdso.so" "$(printf '%x' $((16#$vs + 1)))")
	q vdso-local "--local-vdso" "vdso $o_vdso" __vdso_clock_gettime
	q vdso-not-local "" "vdso $o_vdso" "[vdso]+$o_vdso"
	# A 32-bit process's vDSO is not ours: the same offset names nothing
	# (no vdso32.so of this kernel here), or is named from a vdso32.so
	# whose vdso64.so beside it is our vDSO's build.
	q vdso32-not-ours "--local-vdso" "vdso32 $o_vdso" "[vdso]+$o_vdso"
	v32=$TMP/vdso-dir v32bad=$TMP/vdso-dir-other
	mkdir -p "$v32" "$v32bad"
	cp "$TMP/vdso.so" "$v32/vdso64.so"
	cp "$OUT/fx_fp_yes32" "$v32/vdso32.so"
	cp "$OUT/fx_pie" "$v32bad/vdso64.so"
	cp "$OUT/fx_fp_yes32" "$v32bad/vdso32.so"
	o32=$(off "$OUT/fx_fp_yes32" fxfp_caller 1)
	q vdso32-from-kernel-build "--local-vdso --vdso-dir $v32" "vdso32 $o32" fxfp_caller
	q vdso32-other-kernel-build "--local-vdso --vdso-dir $v32bad" "vdso32 $o32" "[vdso]+$o32"
	q vdso32-not-local "--vdso-dir $v32" "vdso32 $o32" "[vdso]+$o32"
	# arm64's names (Debian's linux-image-*-arm64-dbg): vdso.so, the
	# 64-bit one, beside the compat vdso32.so.
	va=$TMP/vdso-dir-arm64
	mkdir -p "$va"
	cp "$TMP/vdso.so" "$va/vdso.so"
	cp "$OUT/fx_fp_yes32" "$va/vdso32.so"
	q vdso32-arm64-names "--local-vdso --vdso-dir $va" "vdso32 $o32" fxfp_caller
else
	skip vdso-local "no __vdso_clock_gettime in this machine's vDSO"
fi

# --- frame rules: where the frame pointer is set up (elfsym_file_cfa()) ---

# eh_rows FILE SYM: "fde" when SYM has an FDE in .eh_frame, then its
# "LOC CFA" rows (readelf; .debug_frame, which the tool does not read,
# left out; an FDE without rows keeps the CIE's CFA, rsp- or esp-based).
eh_rows() {
	local va
	va=$(symaddr "$1" "$2")
	[ -n "$va" ] || return 0
	readelf -wF "$1" | awk -v pc="$va" '
		/^Contents of the / { eh = $4 == ".eh_frame"; cur = 0; next }
		/ FDE / { split($NF, r, /[=.]+/); cur = eh && r[2] == pc; if (cur) print "fde"; next }
		cur && $1 ~ /^[0-9a-f]+$/ && NF > 2 { print $1, $2 }'
}
# fp_at FILE SYM: the first address of SYM where its CFA is rbp- or
# ebp-based (hex, no 0x); "" when none.
fp_at() { eh_rows "$1" "$2" | awk '$2 ~ /^[re]bp/ { print $1; exit }'; }
# vaoff FILE VADDR_HEX: its file offset.
vaoff() { vaddr2off "$1" "$(printf '%x' $((16#$2)))"; }

FY=$OUT/fx_fp_yes FN=$OUT/fx_fp_no FE=$OUT/fx_fp_noeh
FY32=$OUT/fx_fp_yes32 FN32=$OUT/fx_fp_no32
y_body=$(fp_at "$FY" fxfp_caller) y32_body=$(fp_at "$FY32" fxfp_caller)
# The fixtures are what the queries say they are: fxfp_caller has its
# frame pointer set up in the builds with them, never without; fxfp_copy
# never; fx_fp_noeh has no .eh_frame FDE for it.
if [ -n "$y_body" ] && [ -n "$y32_body" ] &&
   [ "$(eh_rows "$FN" fxfp_caller | head -n 1)" = fde ] && [ -z "$(fp_at "$FN" fxfp_caller)" ] &&
   [ "$(eh_rows "$FN32" fxfp_caller | head -n 1)" = fde ] && [ -z "$(fp_at "$FN32" fxfp_caller)" ] &&
   [ "$(eh_rows "$FY" fxfp_copy | head -n 1)" = fde ] && [ -z "$(fp_at "$FY" fxfp_copy)" ] &&
   [ -z "$(eh_rows "$FE" fxfp_caller)" ]; then
	pass fixture-frame-pointers
else
	fail fixture-frame-pointers "readelf -wF: fx_fp_yes '$y_body', fx_fp_yes32 '$y32_body', fx_fp_no '$(eh_rows "$FN" fxfp_caller | tr '\n' ' ')', fx_fp_noeh '$(eh_rows "$FE" fxfp_caller | tr '\n' ' ')'"
fi
need cfa "$y_body" "$y32_body" &&
{
q cfa-fp-body "$DR" "cfa $FY $(vaoff "$FY" "$y_body")" fp
q cfa-fp-body-end "$DR" "cfa $FY $(off "$FY" fxfp_caller $((16#$y_body - 16#$(symaddr "$FY" fxfp_caller) + 3)))" fp
q cfa-fp-entry "$DR" "cfa $FY $(off "$FY" fxfp_caller)" no-fp
q cfa-fp-pushed "$DR" "cfa $FY $(off "$FY" fxfp_caller 1)" no-fp
q cfa-fp-frameless-leaf "$DR" "cfa $FY $(off "$FY" fxfp_copy 4)" no-fp
q cfa-no-fp-body "$DR" "cfa $FN $(off "$FN" fxfp_caller 4)" no-fp
q cfa-stripped "$DR" "cfa $OUT/fx_fp_yes_stripped $(vaoff "$FY" "$y_body")" fp
q cfa-32-fp-body "$DR" "cfa $FY32 $(vaoff "$FY32" "$y32_body")" fp
q cfa-32-fp-entry "$DR" "cfa $FY32 $(off "$FY32" fxfp_caller)" no-fp
q cfa-32-no-fp-body "$DR" "cfa $FN32 $(off "$FN32" fxfp_caller 4)" no-fp
q cfa-no-eh-frame "$DR" "cfa $FE $(off "$FE" fxfp_caller 4)" unknown
q cfa-outside-functions "$DR" "cfa $FY 0x10" unknown
q cfa-missing-file "$DR" "cfa /nonexistent/fx_fp 0x1130" unknown
# The frame rules come from the binary itself: a file replaced since the
# recording (another build-id), or known by a debug file alone, has none.
q cfa-replaced-file "$DR" "cfa $R $o_a1 $bid_a1" unknown
q cfa-debug-file-only "$DR" "cfa /nonexistent/fx_gone $o_a2 $bid_a2" unknown
}

# --- PLT stubs: "function@plt", where objdump puts its own names ---

# plt_at FILE NAME [OBJDUMP]: the address (hex, no 0x) objdump gives the
# stub NAME ("abort@plt"); for NAME .plt, the section's (PLT0's).
plt_at() {
	if [ "$2" = .plt ]; then
		readelf -SW "$1" | sed 's/^ *\[ *[0-9]*\]//' | awk '$1 == ".plt" { print $3; exit }'
		return
	fi
	"${3:-objdump}" -d -j .plt -j .plt.sec -j .plt.got "$1" 2>/dev/null |
		awk -v n="<$2>:" '$2 == n { print $1; exit }'
}
# plt_insn FILE NAME REGEX OBJDUMP: the address of the first instruction of
# the stub NAME that matches REGEX.
plt_insn() {
	"$4" -d --no-show-raw-insn -j .plt "$1" 2>/dev/null |
		awk -v n="<$2>:" -v re="$3" '$2 == n { in_stub = 1; next }
			/^$/ { in_stub = 0 }
			in_stub && $0 ~ re { a = $1; sub(":", "", a); print a; exit }'
}
# plt_off FILE NAME DELTA [OBJDUMP]: the file offset of that address + DELTA.
plt_off() {
	local a
	a=$(plt_at "$1" "$2" "${4:-}")
	[ -n "$a" ] && vaddr2off "$1" "$(printf '%x' $((16#$a + $3)))"
}

PI=$OUT/fx_plt_ibt L32=$OUT/libfx32.so
if readelf -SW "$PI" | grep -q ' \.plt\.sec ' && [ -n "$(plt_at "$PI" abort@plt)" ] &&
   [ -n "$(plt_at "$L" __cxa_finalize@plt)" ] && readelf -SW "$L" | grep -q ' \.plt\.got '; then
	pass fixture-plt-layouts
else
	fail fixture-plt-layouts "no .plt.sec with abort@plt in fx_plt_ibt, or no .plt.got stub in libfx.so"
fi
o_plt0=$(plt_off "$L" .plt 2)
need plt "$(plt_off "$P" abort@plt 2)" "$(plt_off "$L" fxlib_add@plt 4)" "$o_plt0" \
	"$(plt_off "$PI" abort@plt 5)" "$(plt_off "$L32" fxlib_add@plt 2)" \
	"$(plt_off "$C" _ZdlPvm@plt 2)" &&
{
q plt-pie "$DR" "user $P $(plt_off "$P" abort@plt 2)" abort@plt
q plt-lib "$DR" "user $L $(plt_off "$L" fxlib_add@plt 4)" fxlib_add@plt
q plt-lib-plt-got "$DR" "user $L $(plt_off "$L" __cxa_finalize@plt 2)" __cxa_finalize@plt
q plt-plt0-unnamed "$DR" "user $L $o_plt0" "libfx.so+$o_plt0"
q plt-stripped "$DR" "user $LS $(plt_off "$L" fxlib_add@plt 4)" fxlib_add@plt
q plt-ibt-plt-sec "$DR" "user $PI $(plt_off "$PI" abort@plt 5)" abort@plt
q plt-i386 "$DR" "user $L32 $(plt_off "$L32" fxlib_add@plt 2)" fxlib_add@plt
q plt-cxx-demangled "$DR" "user $C $(plt_off "$C" _ZdlPvm@plt 2)" "operator delete@plt"
q plt-raw "$DR --raw" "user $L $(plt_off "$L" fxlib_add@plt 4)" fxlib_add@plt
}

# --- aarch64: the files of Debian's aarch64 GCC (build.sh, a64/) ---

A=$OUT/a64
AOBJDUMP=aarch64-linux-gnu-objdump
# a64_at FILE FUNC REGEX [N]: the address (hex, no 0x) of FUNC's Nth
# (default first) instruction that matches REGEX ("mov x29, sp$").
a64_at() {
	"$AOBJDUMP" -d --no-show-raw-insn --disassemble="$2" "$1" 2>/dev/null |
		awk -v re="$3" -v n="${4:-1}" '/^ +[0-9a-f]+:/ {
			a = $1; sub(":", "", a); $1 = ""
			if ($0 ~ re && --n == 0) { print a; exit } }'
}
# a64_rows FILE SYM: SYM's .eh_frame rows, "LOC CFA X29" (X29: the rule of
# x29, "u" when the FDE has no column for it).
a64_rows() {
	local va
	va=$(symaddr "$1" "$2")
	[ -n "$va" ] || return 0
	readelf -wF "$1" | awk -v pc="$va" '
		/^Contents of the / { eh = $4 == ".eh_frame"; cur = 0; next }
		/ FDE / { split($NF, r, /[=.]+/); cur = eh && r[2] == pc; x = 0; next }
		cur && $1 == "LOC" { for (i = 1; i <= NF; i++) if ($i == "x29") x = i; next }
		cur && $1 ~ /^[0-9a-f]+$/ && NF > 1 { print $1, $2, x ? $x : "u" }'
}
# a64_row FILE SYM HEX: the row in force at HEX.
a64_row() {
	local loc rest r=
	while read -r loc rest; do
		((16#$loc <= 16#$3)) && r="$loc $rest"
	done < <(a64_rows "$1" "$2")
	echo "$r"
}
hexadd() { printf '%x' $((16#$1 + $2)); }

if [ -f "$OUT/a64.missing" ]; then
	fail a64-toolchain "no aarch64 fixtures, $(tr '\n' ' ' < "$OUT/a64.missing")"
elif ! command -v "$AOBJDUMP" > /dev/null; then
	fail a64-toolchain "no $AOBJDUMP (binutils-aarch64-linux-gnu, scripts/deps.list)"
else
	pass a64-toolchain
	AP=$A/fx_pie AL=$A/libfx.so ALS=$A/libfx_stripped.so AB=$A/fx_bid AD=$A/fx_dl
	if [ "$(readelf -h "$AP" | awk '/Machine:/ { print $2 }')" = AArch64 ] &&
	   [ $((16#$(symaddr "$AP" fx_dies) + $(symsize "$AP" fx_dies))) = $((16#$(symaddr "$AP" fx_after_dies))) ]; then
		pass fixture-a64-pie
	else
		fail fixture-a64-pie "a64/fx_pie is no AArch64 file, or fx_dies does not end where fx_after_dies starts"
	fi
	a_leaf=$(off "$AP" fx_leaf 4)
	need a64-names "$a_leaf" "$(off "$AL" fxlib_add 4)" "$(off "$AB.full" fx_leaf 4)" &&
	{
	q a64-pie-leaf "$DR" "user $AP $a_leaf" fx_leaf
	q a64-pie-local-function "$DR" "user $AP $(off "$AP" fx_static_helper 4)" fx_static_helper
	q a64-pie-return-address-at-function-end "$DR" "user $AP $(off "$AP" fx_after_dies) ret" fx_dies
	q a64-pie-main "$DR" "user $AP $(off "$AP" main 8)" main
	# "$x" and "$d" (AArch64's mapping symbols) name nothing.
	q a64-pie-asm-notype-extends "$DR" "user $AP $(off "$AP" fx_asm_notype 20)" fx_asm_notype
	q a64-lib-exported "$DR" "user $AL $(off "$AL" fxlib_add 4)" fxlib_add
	q a64-lib-static "$DR" "user $AL $(off "$AL" fxlib_static_mul 4)" fxlib_static_mul
	q a64-lib-hidden "$DR" "user $AL $(off "$AL" fxlib_hidden 4)" fxlib_hidden
	q a64-lib-stripped-dynsym "$DR" "user $ALS $(off "$AL" fxlib_apply 4)" fxlib_apply
	q a64-build-id-recorded "$DR" "user $AB $(off "$AB.full" fx_leaf 4) $(build_id "$AB")" fx_leaf
	q a64-build-id-from-file "$DR" "user $AB $(off "$AB.full" fx_middle 4)" fx_middle
	q a64-build-id-no-debug-root "--debug-root $TMP/none" "user $AB $(off "$AB.full" fx_leaf 4)" "fx_bid+$(off "$AB.full" fx_leaf 4)"
	q a64-debuglink "$DR" "user $AD $(off "$AD.full" fx_middle 4)" fx_middle
	}

	# PLT stubs: 16 bytes after a PLT0 of 32; 24 with pointer
	# authentication (autia1716) or BTI ("bti c" first, non-PIE).
	APAC=$A/fx_pie_pac ABTI=$A/fx_nopie_bti
	a_plt=$(plt_at "$AP" abort@plt "$AOBJDUMP") a_plt0=$(plt_at "$AP" .plt "$AOBJDUMP")
	a_pac=$(plt_at "$APAC" abort@plt "$AOBJDUMP") a_bti=$(plt_at "$ABTI" abort@plt "$AOBJDUMP")
	b_bti=$(plt_insn "$ABTI" abort@plt 'bti' "$AOBJDUMP")
	if [ -n "$a_plt" ] && [ -n "$a_plt0" ] && [ $((16#$a_plt - 16#$a_plt0)) -ge 32 ] &&
	   readelf -dW "$APAC" | grep -q AARCH64_PAC_PLT &&
	   [ -n "$a_pac" ] && [ -n "$(plt_insn "$APAC" abort@plt autia1716 "$AOBJDUMP")" ] &&
	   [ -n "$a_bti" ] && [ -n "$b_bti" ] && [ $((16#$b_bti)) = $((16#$a_bti)) ]; then
		pass fixture-a64-plt-layouts
	else
		fail fixture-a64-plt-layouts "a64 PLT: abort@plt '$a_plt' after PLT0 '$a_plt0', PAC stub '$a_pac', BTI stub '$a_bti' (not starting with bti c?)"
	fi
	o_aplt0=$(plt_off "$AP" .plt 4 "$AOBJDUMP")
	need a64-plt "$(plt_off "$AP" abort@plt 4 "$AOBJDUMP")" "$(plt_off "$AL" fxlib_add@plt 12 "$AOBJDUMP")" \
		"$o_aplt0" "$(plt_off "$APAC" abort@plt 20 "$AOBJDUMP")" "$(plt_off "$ABTI" abort@plt 0 "$AOBJDUMP")" &&
	{
	q a64-plt-pie "$DR" "user $AP $(plt_off "$AP" abort@plt 4 "$AOBJDUMP")" abort@plt
	q a64-plt-lib "$DR" "user $AL $(plt_off "$AL" fxlib_add@plt 12 "$AOBJDUMP")" fxlib_add@plt
	q a64-plt-stripped "$DR" "user $ALS $(plt_off "$AL" fxlib_add@plt 12 "$AOBJDUMP")" fxlib_add@plt
	q a64-plt-plt0-unnamed "$DR" "user $AP $o_aplt0" "fx_pie+$o_aplt0"
	q a64-plt-pac-24-bytes "$DR" "user $APAC $(plt_off "$APAC" abort@plt 20 "$AOBJDUMP")" abort@plt
	q a64-plt-bti-first "$DR" "user $ABTI $(plt_off "$ABTI" abort@plt 0 "$AOBJDUMP")" abort@plt
	}

	# The frame rules of AArch64 (elfsym_cfi_a64.c), at addresses found
	# in the disassembly, in rows readelf shows as the rule needs them.
	AY=$A/fx_fp_yes AN=$A/fx_fp_no AF=$A/fx_fp_def A2=$A/fx_fp_o2 AA=$A/fx_fp_pac AC=$A/fx_fp_clang
	y_stp=$(a64_at "$AY" fxfp_caller 'stp x29, x30')
	y_set=$(a64_at "$AY" fxfp_caller 'mov x29, sp$')
	y_ldp=$(a64_at "$AY" fxfp_caller 'ldp x29, x30')
	y_ret=$(a64_at "$AY" fxfp_caller '^ ret')
	y_copy=$(a64_at "$AY" fxfp_copy 'mov x29, sp$')
	b_ldp=$(a64_at "$AY" fxfp_big 'ldp x29, x30')
	b_bl=$(a64_at "$AY" fxfp_big '^ bl ')
	y_alloca=$(a64_at "$AY" fxfp_alloca '^ bl ')
	o_stp=$(a64_at "$A2" fxfp_alloca 'stp x29, x30')
	o_set=$(a64_at "$A2" fxfp_alloca 'mov x29, sp$')
	f_caller=$(a64_at "$AF" fxfp_caller '^ bl ') n_caller=$(a64_at "$AN" fxfp_caller '^ bl ')
	p_caller=$(a64_at "$AA" fxfp_caller '^ bl ') p_first=$(a64_at "$AA" fxfp_caller .)
	c_caller=$(a64_at "$AC" fxfp_caller '^ bl ') c_ret=$(a64_at "$AC" fxfp_caller '^ ret')
	# What the rows and the code are: the record stored at the stp,
	# x29 set one instruction later (-O1); at -O2 an instruction or more
	# between them, in a row that saves x29 on an sp-based CFA; x29
	# reloaded before the row that restores it (fxfp_big); no record in
	# a leaf by default nor in -fomit-frame-pointer code; paciasp first
	# with pointer authentication; clang's CFA on x29.
	why=
	[ -n "$y_stp" ] && [ "$y_set" = "$(hexadd "$y_stp" 4)" ] &&
		[ "$(a64_rows "$AY" fxfp_caller | awk '$3 != "u" { print $1; exit }' | sed 's/^0*//')" = "$y_set" ] ||
		why+="fx_fp_yes fxfp_caller: stp '$y_stp', mov x29 '$y_set', rows $(a64_rows "$AY" fxfp_caller | tr '\n' ' '); "
	[ -n "$o_stp" ] && [ -n "$o_set" ] && [ $((16#$o_set - 16#$o_stp)) -gt 4 ] &&
		a64_row "$A2" fxfp_alloca "$(hexadd "$o_stp" 4)" | grep -q ' sp+[0-9]* c-' ||
		why+="fx_fp_o2 fxfp_alloca: stp '$o_stp', mov x29 '$o_set', rows $(a64_rows "$A2" fxfp_alloca | tr '\n' ' '); "
	[ -n "$b_ldp" ] && a64_row "$AY" fxfp_big "$(hexadd "$b_ldp" 4)" | grep -q ' c-' ||
		why+="fx_fp_yes fxfp_big: no row saving x29 after its ldp '$b_ldp'; "
	[ -z "$(a64_rows "$AF" fxfp_copy | awk '$3 != "u"')" ] && [ -n "$(a64_rows "$AF" fxfp_caller | awk '$3 != "u"')" ] &&
		[ -z "$(a64_rows "$AN" fxfp_caller | awk '$3 != "u"')" ] ||
		why+="fx_fp_def/fx_fp_no: x29 saved in fxfp_copy or in fx_fp_no's fxfp_caller, or not in fx_fp_def's; "
	[ "$(a64_at "$AA" fxfp_caller paciasp)" = "$p_first" ] ||
		why+="fx_fp_pac: fxfp_caller does not start with paciasp; "
	a64_row "$AC" fxfp_caller "$c_caller" | grep -q ' x29+' ||
		why+="fx_fp_clang: CFA not on x29 at '$c_caller'; "
	if [ -z "$why" ]; then
		pass fixture-a64-frame-rules
	else
		fail fixture-a64-frame-rules "$why"
	fi
	need cfa-a64 "$y_set" "$y_ldp" "$y_ret" "$y_copy" "$b_ldp" "$b_bl" "$y_alloca" "$o_stp" "$o_set" \
		"$f_caller" "$n_caller" "$p_caller" "$c_caller" "$c_ret" &&
	{
	q cfa-a64-entry "$DR" "cfa $AY $(off "$AY" fxfp_caller)" no-fp
	q cfa-a64-record-stored-x29-not-set "$DR" "cfa $AY $(vaoff "$AY" "$y_set")" no-fp
	q cfa-a64-body "$DR" "cfa $AY $(vaoff "$AY" "$(hexadd "$y_set" 4)")" fp
	q cfa-a64-epilogue-reload "$DR" "cfa $AY $(vaoff "$AY" "$y_ldp")" fp
	q cfa-a64-ret "$DR" "cfa $AY $(vaoff "$AY" "$y_ret")" no-fp
	q cfa-a64-leaf-with-record "$DR" "cfa $AY $(vaoff "$AY" "$(hexadd "$y_copy" 4)")" fp
	q cfa-a64-big-body "$DR" "cfa $AY $(vaoff "$AY" "$b_bl")" fp
	q cfa-a64-big-reloaded-before-cfi "$DR" "cfa $AY $(vaoff "$AY" "$(hexadd "$b_ldp" 4)")" no-fp
	q cfa-a64-alloca-cfa-on-x29 "$DR" "cfa $AY $(vaoff "$AY" "$y_alloca")" fp
	q cfa-a64-o2-scheduled-before-set "$DR" "cfa $A2 $(vaoff "$A2" "$(hexadd "$o_stp" 4)")" no-fp
	q cfa-a64-o2-after-set "$DR" "cfa $A2 $(vaoff "$A2" "$(hexadd "$o_set" 4)")" fp
	q cfa-a64-default-leaf "$DR" "cfa $AF $(off "$AF" fxfp_copy 8)" no-fp
	q cfa-a64-default-caller "$DR" "cfa $AF $(vaoff "$AF" "$f_caller")" fp
	q cfa-a64-no-fp-body "$DR" "cfa $AN $(vaoff "$AN" "$n_caller")" no-fp
	q cfa-a64-pac-entry "$DR" "cfa $AA $(off "$AA" fxfp_caller)" no-fp
	q cfa-a64-pac-body "$DR" "cfa $AA $(vaoff "$AA" "$p_caller")" fp
	q cfa-a64-clang-body "$DR" "cfa $AC $(vaoff "$AC" "$c_caller")" fp
	q cfa-a64-clang-ret-after-reload "$DR" "cfa $AC $(vaoff "$AC" "$c_ret")" no-fp
	q cfa-a64-stripped "$DR" "cfa $A/fx_fp_yes_stripped $(vaoff "$AY" "$(hexadd "$y_set" 4)")" fp
	}
fi

# Run each group of queries with the same options through one symtest.
declare -A seen
for i in "${!QN[@]}"; do
	opts=${QO[$i]}
	[ -n "${seen["x$opts"]+x}" ] && continue
	seen["x$opts"]=1
	idx=()
	for j in "${!QN[@]}"; do
		[ "${QO[$j]}" = "$opts" ] && idx+=("$j")
	done
	for j in "${idx[@]}"; do
		printf '%s\n' "${QQ[$j]}"
	done > "$TMP/q"
	# shellcheck disable=SC2086
	if ! "$UNIT/symtest" $opts < "$TMP/q" > "$TMP/a" 2> "$TMP/err"; then
		for j in "${idx[@]}"; do
			fail "${QN[$j]}" "symtest $opts failed: $(tr '\n' '|' < "$TMP/err")"
		done
		continue
	fi
	mapfile -t got < "$TMP/a"
	k=0
	for j in "${idx[@]}"; do
		want=${QE[$j]}
		g=${got[$k]-}
		k=$((k + 1))
		if [ "${want:0:1}" = "!" ]; then
			if [ "$g" != "${want:1}" ]; then
				pass "${QN[$j]}"
			else
				fail "${QN[$j]}" "${QQ[$j]}: got '$g', must differ"
			fi
		elif [ "$g" = "$want" ]; then
			pass "${QN[$j]}"
		else
			fail "${QN[$j]}" "${QQ[$j]}: got '$g', want '$want'"
		fi
	done
done

# What verbose output says about the files above.
{
	printf 'user %s %s %s\n' "$R" "$o_a1" "$bid_a1"
	printf 'user %s %s %s\n' "$R" "$o_a2" "$bid_a2"
	printf 'user %s 0x10\n' "$LS"
	echo dump
} > "$TMP/q"
# shellcheck disable=SC2086
"$UNIT/symtest" $DR < "$TMP/q" > "$TMP/dump" 2>&1
check dump-replaced-file grep -q "^$R \[$bid_a1\]: file replaced since recording" "$TMP/dump"
check dump-layout-guessed grep -q "^$R \[$bid_a2\]: .* symbols from .*\.build-id/.*(layout guessed)" "$TMP/dump"
check dump-dynsym-only grep -q "^$LS \[-\]: 2 symbols and 2 PLT stubs from $LS\$" "$TMP/dump"
# shellcheck disable=SC2086
printf 'user %s %s %s\ndump\n' "$NB" "$o_nba" "$nb_a" |
	"$UNIT/symtest" $DR > "$TMP/dump-nbid" 2>&1
printf 'user %s %s\ndump\n' "$M" "$o_mstatic" | "$UNIT/symtest" $DR > "$TMP/dump-mini" 2>&1
check dump-minidebuginfo grep -q "^$M \[-\]: [0-9]* symbols and [0-9]* PLT stubs from $M \[.gnu_debugdata\]\$" "$TMP/dump-mini"
check dump-rebuilt-nobid grep -q "^$NB \[-\]: file replaced since recording (another inode at the path, no build-id to compare), not used\$" "$TMP/dump-nbid"

# perf maps are read as perf reads them: regular files owned by the reader
# or root (here: also by the live process's owner, <proc>/<tgid>).
pm=$TMP/pm
mkdir -p "$pm/tmp" "$pm/proc/31" "$pm/proc/32" "$pm/proc/33"
for p in 31 32 33 34; do
	echo "7f0000001000 100 jit_fn_$p" > "$pm/tmp/perf-$p.map"
done
ln -s "$pm/tmp/perf-34.map" "$pm/tmp/perf-35.map"
if [ "$(id -u)" = 0 ] && chown nobody "$pm/tmp/perf-31.map" "$pm/tmp/perf-32.map" "$pm/proc/32" 2>/dev/null; then
	printf 'anon %s %s 0x7f0000001010\n' 31 31 32 32 33 33 35 35 |
		"$UNIT/symtest" --perfmap-dir "$pm/tmp" --proc-root "$pm/proc" > "$TMP/pm.out" 2> "$TMP/pm.err"
	mapfile -t got < "$TMP/pm.out"
	if [ "${got[0]-}" = "[anon]+0x7f0000001010" ] &&
	   grep -q "^symtest: warning: $pm/tmp/perf-31.map: owned by uid $(id -u nobody), not by you, root or process 31's owner; ignored" "$TMP/pm.err"; then
		pass perfmap-other-owner-refused
	else
		fail perfmap-other-owner-refused "got '${got[0]-}', stderr: $(tr '\n' '|' < "$TMP/pm.err")"
	fi
	check perfmap-process-owner [ "${got[1]-}" = jit_fn_32 ]
	check perfmap-own [ "${got[2]-}" = jit_fn_33 ]
	if [ "${got[3]-}" = "[anon]+0x7f0000001010" ] &&
	   grep -q "perf-35.map: a symbolic link, not a regular file; ignored" "$TMP/pm.err"; then
		pass perfmap-symlink-refused
	else
		fail perfmap-symlink-refused "got '${got[3]-}', stderr: $(tr '\n' '|' < "$TMP/pm.err")"
	fi
else
	skip perfmap-owner "not root: cannot give a perf map to another user"
fi

# Golden files: kallsyms and perf maps.
for d in "$FIX"/golden/*/; do
	name=golden-$(basename "$d")
	args=$(sed "s|@FIX@|$FIX|g" "$d/args")
	# shellcheck disable=SC2086
	if ! "$UNIT/symtest" $args < "$d/in" > "$TMP/golden" 2>&1; then
		fail "$name" "symtest failed: $(tail -n 3 "$TMP/golden" | tr '\n' '|')"
	elif [ "${BLESS:-0}" = 1 ]; then
		cp "$TMP/golden" "$d/out"
		pass "$name (blessed)"
	elif diff -u "$d/out" "$TMP/golden" > "$TMP/diff"; then
		pass "$name"
	else
		fail "$name" "$(head -n 12 "$TMP/diff" | tr '\n' '|')"
	fi
done

# Once more under valgrind: no invalid access, no leak.
if command -v valgrind > /dev/null; then
	vg="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect"
	# shellcheck disable=SC2086
	check valgrind-symunit $vg "$UNIT/symunit" "$FIX" "$OUT" "$TMP"
	printf '%s\n' "${QQ[@]}" dump > "$TMP/all"
	# The queries through a pipe, not a seekable file: valgrind runs
	# __libc_freeres() in the symbolizer's probe children too, which
	# closes their copy of stdin and moves the file offset they share
	# with the parent, so its next read came from the wrong place.
	# shellcheck disable=SC2086
	check valgrind-symtest-user sh -c "cat '$TMP/all' | $vg '$UNIT/symtest' $DR --local-vdso"
	# shellcheck disable=SC2086
	check valgrind-symtest-jit $vg "$UNIT/symtest" $(sed "s|@FIX@|$FIX|g" "$FIX/golden/jit/args") < "$FIX/golden/jit/in"
	# shellcheck disable=SC2086
	check valgrind-symtest-kernel $vg "$UNIT/symtest" $(sed "s|@FIX@|$FIX|g" "$FIX/golden/kernel/args") < "$FIX/golden/kernel/in"
else
	skip valgrind "valgrind not installed"
fi
