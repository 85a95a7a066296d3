#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# flamestat record interrupted: the first SIGINT during sampling ends it and
# the output is written (status 130); a signal once sampling has stopped,
# while the stacks are symbolized and written, aborts: the temporary files
# of the outputs are removed, nothing is put in place, the module is free
# again, and the tool dies of the signal (status 130 for SIGINT, 143 for
# SIGTERM). The writing is held up by a FIFO as -o that is opened but not
# read, and filled beforehand, so record's writes block.
# timeout: 120
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /tests/lib.sh

FS=flamestat
command -v $FS >/dev/null || die "no flamestat tool in the guest"
D=$FS_TMP/abort
rm -rf "$D" && mkdir -p "$D"

# Ctrl-C during sampling: written, status 130.
$FS record -q -d 30 -o "$D/int.folded" -- "$FS_WL/chain" 30 &
pid=$!
check "record: sampling started" fs_wait_sampling $pid
sleep 1
kill -INT $pid
wait $pid
expect_eq "record: SIGINT while sampling: status 130" $? 130
check "record: SIGINT while sampling: output written" test -s "$D/int.folded"

for sig in INT TERM; do
	want=130
	[ $sig = TERM ] && want=143
	rm -f "$D/fifo" "$D/raw.fstat" "$D"/.raw.fstat.*
	mkfifo "$D/fifo"
	# A reader that never reads: record's writes block once the pipe is full.
	# shellcheck disable=SC2217 # it holds the FIFO open, reading nothing
	sleep 60 <"$D/fifo" &
	reader=$!
	# The pipe filled first (64 KiB, its size), so that record's first
	# write blocks however few stacks it has to write.
	head -c 65536 /dev/zero >"$D/fifo"
	$FS record -q -F 4999 --format folded -o "$D/fifo" --raw "$D/raw.fstat" \
		-- "$FS_WL/uniq" 2 2>"$D/$sig.err" &
	pid=$!
	# uniq runs 2 s; then record folds and blocks writing the FIFO.
	sleep 6
	if ! kill -0 $pid 2>/dev/null; then
		wait $pid
		not_ok "record ($sig): still writing after 6 s (exit status $?; the output fit the pipe?)"
		sed 's/^/#   stderr: /' "$D/$sig.err"
		kill $reader 2>/dev/null
		continue
	fi
	check "record ($sig): raw output pending as a temporary file" \
		sh -c "ls -a '$D' | grep -q '^\.raw\.fstat\.'"
	kill -$sig $pid
	wait $pid
	expect_eq "record: SIG$sig while writing: status $want" $? $want
	kill $reader 2>/dev/null
	wait $reader 2>/dev/null
	check_not "record ($sig): no raw output put in place" test -e "$D/raw.fstat"
	check_not "record ($sig): no temporary file left" \
		sh -c "ls -a '$D' | grep -q '^\.raw\.fstat\.'"
	check "record ($sig): says so" grep -q 'interrupted while writing: no output written' "$D/$sig.err"
	# The module was put back before the writing: no session holds it.
	check_not "record ($sig): the module is not held" \
		sh -c "$FS status | grep -q 'held by a flamestat record session'"
done
check "record after the aborts" $FS record -q -d 1 -o "$D/after.folded"
finish
