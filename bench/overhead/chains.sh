#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The unwind phase's stack comparison: the leaf-to-main chains of one
# command in two profilers' folded stacks (flamestat's, and perf
# --call-graph dwarf's through stackcollapse-perf.pl --kernel), as
# Markdown: each one's share of the command's samples, the top 10 of
# either, and the largest difference in percentage points.
#
#   chains.sh COMM A.folded B.folded [NAME_A] [NAME_B]
#
# A chain is the user frames from main up to the leaf: kernel frames
# (marked _[k]) are left out, and so are the frames below main (libc's
# start-up, which the two name differently: __libc_start_main_impl or
# __libc_start_main@@GLIBC_2.34). A frame without a symbol is named by its
# file, as stackcollapse-perf.pl names it ("[libc.so.6]"; flamestat says
# "libc.so.6+0x3fb9d"), so that the two name the same frames alike. A
# stack without main is its own chain, "(no main) LEAF", so a broken walk
# counts against its profiler. Then the largest difference on the chains
# that B walked to main (where B broke its stacks, A cannot agree). Prints "max_diff_pp=N" last (the first comparison's, for the
# caller); exits 1 when a file has no sample of COMM.
set -u
comm=$1 a=$2 b=$3 na=${4:-A} nb=${5:-B}

chains() { # FILE: "COUNT<TAB>CHAIN" for COMM's stacks, summed by chain
	awk -v comm="$comm" '
	{
		n = $NF
		line = substr($0, 1, length($0) - length($NF) - 1)
		nf = split(line, f, ";")
		if (f[1] != comm) next
		chain = ""
		hasmain = 0
		for (i = 2; i <= nf; i++) {
			if (f[i] ~ /_\[k\]$/) continue
			if (f[i] ~ /^[^ ]+\+0x[0-9a-f]+$/) f[i] = "[" substr(f[i], 1, index(f[i], "+0x") - 1) "]"
			if (f[i] == "main") { hasmain = 1; chain = "main"; continue }
			if (hasmain) chain = f[i] " <- " chain
		}
		if (!hasmain) {
			# the frame nearest the leaf that is a user frame
			leaf = ""
			for (i = nf; i >= 2; i--)
				if (f[i] !~ /_\[k\]$/) { leaf = f[i]; break }
			chain = "(no main) " (leaf == "" ? "(kernel only)" : leaf)
		}
		sum[chain] += n
	}
	END { for (c in sum) printf "%d\t%s\n", sum[c], c }' "$1"
}

chains "$a" >"${TMPDIR:-/tmp}/chains-a.$$"
chains "$b" >"${TMPDIR:-/tmp}/chains-b.$$"
trap 'rm -f "${TMPDIR:-/tmp}/chains-a.$$" "${TMPDIR:-/tmp}/chains-b.$$"' EXIT
for f in a b; do
	if [ ! -s "${TMPDIR:-/tmp}/chains-$f.$$" ]; then
		echo "chains: no sample of $comm in ${!f}" >&2
		exit 1
	fi
done

awk -F '\t' -v na="$na" -v nb="$nb" '
FNR == 1 { file++ }
file == 1 { A[$2] = $1; all[$2] = 1 }
file == 2 { B[$2] = $1; all[$2] = 1 }
# table(): the top 10 chains, as shares of all stacks; returns the
# largest difference.
function table(   c, n, i, j, x, y, mx, my, d, worst, ta, tb, key, sa, sb) {
	for (c in all) {
		ta += A[c]; tb += B[c]
	}
	n = 0
	for (c in all) {
		sa[c] = ta ? 100 * A[c] / ta : 0
		sb[c] = tb ? 100 * B[c] / tb : 0
		key[++n] = c
	}
	# by the larger of the two shares, largest first
	for (i = 2; i <= n; i++)
		for (j = i; j > 1; j--) {
			x = key[j]; y = key[j - 1]
			mx = sa[x] > sb[x] ? sa[x] : sb[x]
			my = sa[y] > sb[y] ? sa[y] : sb[y]
			if (mx <= my) break
			key[j] = y; key[j - 1] = x
		}
	printf "| chain (leaf <- ... <- main) | %s | %s | difference |\n", na, nb
	print "|---|---|---|---|"
	worst = 0
	for (i = 1; i <= n && i <= 10; i++) {
		c = key[i]
		d = sa[c] - sb[c]
		if (d < 0) d = -d
		if (d > worst) worst = d
		printf "| `%s` | %.2f%% | %.2f%% | %.2f pp |\n", c, sa[c], sb[c], d
	}
	return worst
}
END {
	for (c in all) {
		ta += A[c]; tb += B[c]
		if (c ~ /^\(no main\)/) { nma += A[c]; nmb += B[c] }
	}
	worst = table()
	printf "\nStacks that did not reach main: %s %.2f%%, %s %.2f%%.\n", \
		na, 100 * nma / ta, nb, 100 * nmb / tb
	# Where B broke its stacks, A cannot agree with it: the chains B did
	# walk to main, compared as shares of all stacks.
	for (c in all) {
		if (c ~ /^\(no main\)/ || !B[c]) continue
		nb2++
		d = 100 * A[c] / ta - 100 * B[c] / tb
		if (d < 0) d = -d
		if (d > w2) w2 = d
	}
	if (nmb && nb2)
		printf "On the %d chains that %s walked to main (%.2f%% of its stacks), the largest difference: %.2f pp.\n", \
			nb2, nb, 100 - 100 * nmb / tb, w2
	printf "max_diff_pp=%.2f\n", worst
}' "${TMPDIR:-/tmp}/chains-a.$$" "${TMPDIR:-/tmp}/chains-b.$$"
