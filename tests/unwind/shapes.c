// SPDX-License-Identifier: GPL-2.0
/*
 * Code whose call frame information has each shape the unwind table must
 * express, built with gcc -O2 and no frame pointer (tests/suites/13-unwind.sh):
 * CFA = SP + n everywhere, CFA = FP + n after alloca() and a variable-length
 * array, CFA read through a saved pointer where a local is aligned beyond
 * the stack's alignment (gcc's DRAP, with -mincoming-stack-boundary=3),
 * a PLT entry and the outermost frame (_start).
 */
#include <alloca.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) static unsigned long leaf(volatile unsigned char *p,
						     size_t n)
{
	unsigned long s = 0;

	for (size_t i = 0; i < n; i++)
		s += p[i];
	return s;
}

/* alloca: the CFA moves to the frame pointer. */
__attribute__((noinline)) static unsigned long with_alloca(size_t n)
{
	unsigned char *p = alloca(n);

	memset(p, 1, n);
	return leaf(p, n);
}

/* A variable-length array: the same. */
__attribute__((noinline)) static unsigned long with_vla(size_t n)
{
	unsigned char v[n];

	memset(v, 2, n);
	return leaf(v, n) + with_alloca(n);
}

/*
 * A local aligned to 64 bytes: the stack is realigned. Built with
 * -mincoming-stack-boundary=3 (as the kernel's own code is), gcc keeps the
 * old stack pointer in a register (DRAP) saved in the frame, and the CFA
 * is read from there: CFA = *(FP - 8).
 */
__attribute__((noinline)) static unsigned long with_realign(size_t n)
{
	unsigned char a[64] __attribute__((aligned(64)));

	memset(a, 3, sizeof(a));
	return leaf(a, sizeof(a)) + with_vla(n);
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 0) : 100;

	printf("%lu\n", with_realign(n));
	return 0;
}
