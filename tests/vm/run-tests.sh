#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs guest tests: builds what they need, boots one guest per distinct
# boot configuration, and prints "PASS label/test" or "FAIL label/test: why"
# for tests/run.
#
#   tests/vm/run-tests.sh [options] [TEST...]
#     TEST           tests/guest/NN-name.sh paths or NN-name names
#                    (default: every tests/guest/[0-9]*.sh)
#     --out DIR      logs and artifacts (default tests/build/vm); each boot
#                    configuration gets DIR/LABEL/ with console.log,
#                    channel.log, tests/NAME.{out,dmesg}, artifacts/NAME/
#     --no-build     use the module, tool and workloads as they are
#     --accel A      auto (default), kvm, tcg or tcg-single
#
# A test's boot configuration comes from its header, e.g.
#   # vm: name=hotplug smp=4 mem=2048 append="maxcpus=2" icount=1
# (all optional; name labels the boot, default "guest"; smp 2, mem 1024;
# also accel=tcg or accel=tcg-single; grace=S, the time the host gives a test past its
# timeout before it stops the guest, default 60; bootlimit=S, the time it
# gives the guest to boot and between tests, default 180; a guest that
# hangs before its /init reports in is booted twice, see boot.sh).
# rootfs="PKG..." boots a Debian rootfs with these packages (or "base")
# instead of the busybox initramfs (tests/vm/rootfs.sh); prepare=SCRIPT
# (path from the top of the tree) runs on a copy of its tree first (see
# rootfs.sh image -x); bare=1 leaves the module and the tool of the build
# tree out of the guest.
# Tests with the same vm line share one boot, in file name order.
# "# timeout: S" is the test's time limit in the guest (default 120);
# "# dmesg-allow: ERE" exempts matching kernel lines from the bad patterns.
# FLAMESTAT_ARCH=arm64: arm64 guests (tests/vm/lib.sh), built by
# tests/arm64/build.sh (after tests/arm64/setup.sh); rootfs= tests boot
# arm64 Debian trees there (tests/vm/rootfs.sh).
set -u
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

out="$BUILD/vm" build=1 accel=${FLAMESTAT_ACCEL:-auto}
tests=()
while [ $# -gt 0 ]; do
	case "$1" in
	--out) out=$2; shift ;;
	--no-build) build=0 ;;
	--accel) accel=$2; shift ;;
	-h | --help) sed -n '3,33p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) vm_die "run-tests: unknown option $1" ;;
	*)
		t=$1
		[ -f "$t" ] || t="$TOP/tests/guest/${1%.sh}.sh"
		[ -f "$t" ] || vm_die "run-tests: no guest test '$1'"
		tests+=("$(cd "$(dirname "$t")" && pwd)/$(basename "$t")") ;;
	esac
	shift
done
if [ ${#tests[@]} -eq 0 ]; then
	for t in "$TOP"/tests/guest/[0-9]*.sh; do
		[ -f "$t" ] && tests+=("$t")
	done
fi
mkdir -p "$out"

# build NAME LOG CMD...: run a build step, its output in LOG.
build() {
	local name=$1 log=$2
	shift 2
	if "$@" >"$log" 2>&1; then
		return 0
	fi
	echo "FAIL guest/$name: $* failed (log: $log)"
	tail -n 30 "$log" | sed 's/^/    /'
	return 1
}

if [ $build = 1 ] && [ "$FS_VM_ARCH" = arm64 ]; then
	vm_msg "building the module, the tool and the workloads for arm64 (tests/arm64/build.sh)"
	"$TOP/tests/arm64/build.sh" --suite "$FS_VM_ARM64_SUITE" >"$out/build-arm64.log" 2>&1
	brc=$?
	# Its FAIL lines are ours; the tool may fail alone, as below.
	grep '^FAIL ' "$out/build-arm64.log"
	[ $brc = 0 ] || exit 1
elif [ $build = 1 ]; then
	vm_msg "building the module, the tool and the workloads"
	build build-module "$out/build-module.log" make -C "$TOP" module || exit 1
	if ! make -C "$TOP" tool >"$out/build-tool.log" 2>&1; then
		# The guest tests of the module run without it; the ones that
		# need the tool fail on their own.
		vm_msg "user/flamestat did not build (log: $out/build-tool.log); the guest gets no tool"
	fi
	build build-workloads "$out/build-workloads.log" \
		make -j2 -C "$TOP/tests/workloads" O="$BUILD/workloads" || exit 1
fi

# parse_vm LINE: sets vm_name vm_smp vm_mem vm_append vm_icount vm_accel
# from 'key=value key="value with spaces"'.
parse_vm() {
	local s=$1 k v
	vm_name=guest vm_smp=2 vm_mem=1024 vm_append="" vm_icount=0 vm_accel=$accel vm_grace=60
	vm_bootlimit=180
	vm_rootfs="" vm_prepare="" vm_bare=0
	while [[ $s =~ ^[[:space:]]*([a-z]+)=(\"([^\"]*)\"|([^[:space:]\"]*))(.*)$ ]]; do
		k=${BASH_REMATCH[1]}
		v=${BASH_REMATCH[3]}${BASH_REMATCH[4]}
		s=${BASH_REMATCH[5]}
		case "$k" in
		name) vm_name=$v ;;
		smp) vm_smp=$v ;;
		mem) vm_mem=$v ;;
		append) vm_append=$v ;;
		icount) vm_icount=$v ;;
		accel) vm_accel=$v ;;
		grace) vm_grace=$v ;;
		bootlimit) vm_bootlimit=$v ;;
		rootfs) vm_rootfs=$v ;;
		prepare) vm_prepare=$v ;;
		bare) vm_bare=$v ;;
		*) return 1 ;;
		esac
	done
	[[ $s =~ ^[[:space:]]*$ ]] && [[ $vm_name =~ ^[A-Za-z0-9_.-]+$ ]]
}

# Group the tests by their vm line, keeping the first-seen order.
declare -A group_tests=()
groups=()
for t in "${tests[@]}"; do
	line=$(vm_test_header "$t" vm "")
	if ! parse_vm "$line"; then
		echo "FAIL guest/$(basename "$t" .sh): cannot parse '# vm: $line'"
		continue
	fi
	# (bash refuses an empty key)
	if [ -z "${group_tests["vm:$line"]+x}" ]; then
		groups+=("$line")
		group_tests["vm:$line"]=""
	fi
	group_tests["vm:$line"]+="$t"$'\n'
done

# report_group LABEL DIR TEST...: PASS/FAIL lines from DIR's channel.log.
report_group() {
	local label=$1 dir=$2 status name rc st bad allow out_f dmesg_f reason
	shift 2
	status=$(cat "$dir/status" 2>/dev/null || echo "died before starting")
	rm -rf "$dir/tests"
	mkdir -p "$dir/tests"
	# Split the report into DIR/tests/NAME.out, NAME.dmesg and results.
	tr -d '\r' <"$dir/channel.log" | awk -v d="$dir/tests" '
		/^@@FS BEGIN / { cur = $3; file = d "/" cur ".out"; printf "" > file; print cur > (d "/begun"); next }
		/^@@FS END / { r = $0; sub(/^@@FS END [^ ]* /, "", r); print $3, r > (d "/results"); close(file); file = ""; next }
		/^@@FS DMESG-BEGIN / { file = d "/" $3 ".dmesg"; printf "" > file; next }
		/^@@FS DMESG-END / { close(file); file = ""; next }
		/^@@FS BOOTED/ { print > (d "/booted"); next }
		/^@@FS / { print > (d "/notes"); next }
		file != "" { print > file }'

	# boot: up, and nothing bad logged while booting
	if [ ! -s "$dir/tests/booted" ]; then
		echo "FAIL $label/boot: the guest never reported in ($status)"
		show_console "$dir"
	else
		bad=$(bad_lines "$dir/tests/boot.dmesg" "")
		if [ -n "$bad" ]; then
			echo "FAIL $label/boot: kernel logged: $(head -n 1 <<<"$bad")"
			printf '%s\n' "$bad" | head -n 40 | sed 's/^/    /'
		else
			echo "PASS $label/boot"
		fi
	fi

	local died_in=""
	for t in "$@"; do
		name=$(basename "$t" .sh)
		out_f="$dir/tests/$name.out"
		dmesg_f="$dir/tests/$name.dmesg"
		rc=$(awk -v n="$name" '$1 == n {sub(/^[^ ]* /, ""); print; exit}' "$dir/tests/results" 2>/dev/null)
		if [ -z "$rc" ]; then
			if grep -qx "$name" "$dir/tests/begun" 2>/dev/null; then
				died_in=$name
				echo "FAIL $label/$name: guest $status"
				echo "    --- test output (tail) ---"
				tail -n 30 "$out_f" | sed 's/^/    /'
				show_console "$dir"
			else
				echo "FAIL $label/$name: not run: guest ${status}${died_in:+ (see $label/$died_in)}"
				# Died before any test began: what the console said last,
				# once.
				if [ -z "$died_in" ]; then
					died_in=boot
					show_console "$dir"
				fi
			fi
			continue
		fi
		reason=""
		case "$rc" in
		"rc=0 "* | "rc=0") ;;
		*timeout*) reason="killed at its $(vm_test_header "$t" timeout 120)s timeout" ;;
		*left-module-loaded*) reason="left flamestat loaded (${rc##* })" ;;
		*)
			st=${rc#rc=}
			reason="exit status ${st%% *}" ;;
		esac
		allow=$(vm_test_header "$t" dmesg-allow "")
		bad=$(bad_lines "$dmesg_f" "$allow")
		if [ -n "$bad" ]; then
			reason="${reason:+$reason; }kernel logged: $(head -n 1 <<<"$bad")"
		fi
		if [ -z "$reason" ]; then
			echo "PASS $label/$name ($(sed -n 's/.*secs=\([0-9.]*\).*/\1/p' <<<"$rc")s)"
			continue
		fi
		echo "FAIL $label/$name: $reason"
		echo "    --- test output (failed checks and tail; all in $out_f) ---"
		{ grep '^not ok' "$out_f"; echo "    ..."; tail -n 25 "$out_f"; } | sed 's/^/    /'
		if [ -n "$bad" ]; then
			echo "    --- kernel log from the first bad line ($dmesg_f) ---"
			awk -v s="$(head -n 1 <<<"$bad")" 'f || index($0, s) {f = 1; print}' "$dmesg_f" |
				head -n 60 | sed 's/^/    /'
		fi
	done

	if [ "$status" = "done" ]; then
		bad=$(bad_lines "$dir/tests/final.dmesg" "")
		if [ -n "$bad" ]; then
			echo "FAIL $label/shutdown: kernel logged after the last test: $(head -n 1 <<<"$bad")"
			printf '%s\n' "$bad" | head -n 40 | sed 's/^/    /'
		fi
	fi
}

# bad_lines FILE ALLOW_ERE: the lines of FILE matching the bad patterns.
bad_lines() {
	[ -f "$1" ] || return 0
	if [ -n "$2" ]; then
		grep -Ev -- "$FS_VM_BENIGN_DMESG" "$1" | grep -Ev -- "$2" |
			grep -E -- "$FS_VM_BAD_DMESG"
	else
		grep -Ev -- "$FS_VM_BENIGN_DMESG" "$1" | grep -E -- "$FS_VM_BAD_DMESG"
	fi
}

show_console() {
	echo "    --- guest console, last 60 lines ($1/console.log) ---"
	tr -d '\r' <"$1/console.log" | tail -n 60 | sed 's/^/    /'
}

rc=0
declare -A used_names=()
for line in "${groups[@]}"; do
	parse_vm "$line"
	# Two configurations with one name each get their own directory.
	n=$vm_name i=2
	while [ -n "${used_names[$vm_name]+x}" ]; do
		vm_name="$n-$i"
		i=$((i + 1))
	done
	used_names[$vm_name]=1
	mapfile -t gtests < <(printf '%s' "${group_tests["vm:$line"]}")
	dir="$out/$vm_name"
	mkdir -p "$dir"
	opts=(--smp "$vm_smp" --mem "$vm_mem" --accel "$vm_accel" --grace "$vm_grace"
		--boot-timeout "$vm_bootlimit")
	[ -n "$vm_append" ] && opts+=(--append "$vm_append")
	[ "$vm_icount" = 1 ] && opts+=(--icount)
	vm_msg "$vm_name: ${#gtests[@]} test(s): $(for t in "${gtests[@]}"; do printf '%s ' "$(basename "$t" .sh)"; done)"
	mkargs=()
	[ "$vm_bare" = 1 ] && mkargs+=(-M -T)
	if [ -n "$vm_rootfs" ]; then
		mkargs+=(-o "$dir/image")
		[ "$vm_rootfs" = base ] || mkargs+=(-p "$vm_rootfs")
		[ -n "$vm_prepare" ] && mkargs+=(-x "$TOP/$vm_prepare")
		t0=$SECONDS
		if ! "$TOP/tests/vm/rootfs.sh" image "${mkargs[@]}" "${gtests[@]}" >"$dir/rootfs.log" 2>&1; then
			echo "FAIL $vm_name/rootfs: $(tail -n 1 "$dir/rootfs.log") (log: $dir/rootfs.log)"
			tail -n 30 "$dir/rootfs.log" | sed 's/^/    /'
			rm -rf "$dir/image"
			rc=1
			continue
		fi
		echo "PASS $vm_name/rootfs ($((SECONDS - t0))s)"
		"$TOP/tests/vm/boot.sh" --rootfs "$dir/image" -o "$dir" "${opts[@]}"
	else
		if ! "$TOP/tests/vm/mkinitramfs.sh" -o "$dir/initrd.cpio" "${mkargs[@]}" "${gtests[@]}" 2>"$dir/mkinitramfs.log"; then
			echo "FAIL $vm_name/initramfs: $(tail -n 1 "$dir/mkinitramfs.log")"
			rc=1
			continue
		fi
		"$TOP/tests/vm/boot.sh" -i "$dir/initrd.cpio" -o "$dir" "${opts[@]}"
	fi
	report_group "$vm_name" "$dir" "${gtests[@]}" | tee "$dir/report"
	grep -q '^FAIL ' "$dir/report" && rc=1
	rm -rf "$dir/initrd.cpio" "$dir/image"
done
exit $rc
