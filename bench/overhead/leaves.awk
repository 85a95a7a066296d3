# SPDX-License-Identifier: GPL-2.0
# Leaf functions of folded stacks ("comm;frame;...;leaf COUNT", root
# first): prints "leaf count" for the stacks whose root is comm, the leaf
# without perf's or flamestat's annotations (_[k], _[j], ...), kernel
# aliases under one name.
#
#   awk -v comm=COMM -v aliases=FILE -f leaves.awk FOLDED
#
# aliases: "name canonical" lines (every name of a kernel address with
# several, and the one they are counted under); may be empty.
BEGIN { while ((getline l < aliases) > 0) { split(l, a, " "); canon[a[1]] = a[2] } }
/^#/ { next }
{
	n = $NF; s = $0; sub(/ [0-9]+$/, "", s)
	k = split(s, f, ";")
	if (f[1] != comm) next
	leaf = f[k]
	sub(/_\[[a-z]\]$/, "", leaf)
	if (leaf in canon) leaf = canon[leaf]
	c[leaf] += n
}
END { for (l in c) print l, c[l] }
