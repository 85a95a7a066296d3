/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TAP lines for the guest test clients: "ok - ..." or "not ok - ...", the
 * failures counted in tap_failures for the exit status.
 */
#ifndef FLAMESTAT_TESTS_TAP_H
#define FLAMESTAT_TESTS_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

static int tap_failures;

__attribute__((format(printf, 2, 3)))
static void result(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s - ", ok ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	tap_failures += !ok;
}

#endif
