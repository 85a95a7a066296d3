# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154 # WORK, img, ERRORS, DOC, BENCH_TEST: the caller's
# Host-side helpers of the benchmarks that boot the Debian rootfs guest
# (bench/overhead.sh, bench/offcpu.sh), sourced after tests/vm/lib.sh.
# The caller sets: WORK (its work directory), img (the guest image,
# tests/vm/rootfs.sh image -o), ERRORS (a file collecting what could not
# be measured), DOC (docs/PERFORMANCE.md), BENCH_TEST (the name of the
# generated guest test, without .sh), and defines say MESSAGE.

# boot PHASE [boot.sh options]: runs the guest; its @@BENCH lines go to
# $WORK/PHASE/results, printed as they come. norandmaps: every process of
# the guest at the same addresses from init on (see guest.sh's main).
boot() {
	local phase=$1 dir="$WORK/$1" rc
	shift
	rm -rf "$dir"
	mkdir -p "$dir"
	"$TOP/tests/vm/boot.sh" --rootfs "$img" -o "$dir/vm" --mem 2048 --disk-mb 256 \
		--append "fs.bench=$phase norandmaps" "$@" >"$dir/boot.log" 2>&1 &
	local guest=$!
	# Progress as it comes; tail ends by itself once the guest is gone.
	tail -n +1 -F --pid="$guest" "$dir/vm/channel.log" 2>/dev/null |
		grep --line-buffered -a '^# bench: \|^@@BENCH-ERROR' | sed -u "s/^/  $phase: /" >&2
	wait "$guest"
	rc=$?
	tr -d '\r' <"$dir/vm/channel.log" | grep -a '^@@BENCH' >"$dir/results"
	# A failed guest or configuration is reported (and fails the run at
	# the end), but what the others measured is still written out.
	if [ $rc != 0 ] || ! grep -aq "^@@FS END $BENCH_TEST rc=0" "$dir/vm/channel.log"; then
		tr -d '\r' <"$dir/vm/channel.log" | grep -av '^\[' | tail -n 30 >&2
		say "the $phase guest failed ($(cat "$dir/vm/status" 2>/dev/null); logs in $dir/vm)"
		echo "the $phase guest failed: $(cat "$dir/vm/status" 2>/dev/null)" >>"$ERRORS"
	fi
	if grep -q '^@@BENCH-ERROR' "$dir/results"; then
		grep '^@@BENCH-ERROR' "$dir/results" >&2
		grep '^@@BENCH-ERROR' "$dir/results" | sed "s/^@@BENCH-ERROR /$phase: /" >>"$ERRORS"
	fi
}
# measured_on: the header of a report.
measured_on() {
	local guest=""
	[ "$FS_VM_ARCH" = x86_64 ] || guest=" ($FS_VM_ARCH guest: -M virt -cpu max, TCG)"
	echo "Measured $(date -u +%Y-%m-%d) on $(uname -m)$guest, $(nproc) host cores,"
	echo "$("$FS_VM_QEMU" --version | head -n 1 | sed 's/ Copyright.*//'),"
	echo "guest kernel $(cat "$img/kver"), flamestat $(cat "$TOP/VERSION") ($(git -C "$TOP" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$TOP" diff --quiet HEAD -- kmod user 2>/dev/null || echo ", modified")),"
}

# errors_of REGEX: the configurations that could not be measured, of the
# phases REGEX matches (grep -E), as a Markdown section.
errors_of() {
	grep -E "$1" "$ERRORS" >"$ERRORS.part"
	if [ -s "$ERRORS.part" ]; then
		echo
		echo "## Could not be measured"
		echo
		sed 's/^/- /' "$ERRORS.part"
	fi
}

# to_doc NAME REPORT: REPORT replaces what is between DOC's NAME markers.
to_doc() {
	if [ -f "$DOC" ] && grep -q "^<!-- $1:begin" "$DOC" && grep -q "^<!-- $1:end" "$DOC"; then
		awk -v rep="$2" -v name="$1" '
			index($0, "<!-- " name ":begin") == 1 { while ((getline l < rep) > 0) print l; skip = 1; next }
			index($0, "<!-- " name ":end") == 1 { skip = 0; next }
			!skip' "$DOC" >"$DOC.tmp" && mv "$DOC.tmp" "$DOC"
		say "updated the $1 tables in $DOC"
	else
		say "$DOC has no $1 markers: tables left in $2"
	fi
}
