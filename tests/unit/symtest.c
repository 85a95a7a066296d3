// SPDX-License-Identifier: GPL-2.0
/* Test driver: reads frame queries on stdin, prints one frame string each. */
#include "lib/util.h"
#include "sym/symbolize.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

/*
 * Queries, one per line (numbers in C syntax: 0x... or decimal):
 *   user PATH [(deleted)] OFFSET [ret] [BUILD-ID-HEX] [dev=N ino=N]
 *   anon TGID NS_TGID ADDR [ret]
 *   vdso OFFSET [ret]
 *   vdso32 OFFSET [ret]     the vDSO of a 32-bit process
 *   kernel ADDR [ret]
 *   kname ADDR [NAME...]    a name given by the module (rest of the line)
 *   unknown ADDR
 *   cfa PATH OFFSET [BUILD-ID-HEX]   elfsym_file_cfa(): fp, no-fp, unknown
 *   cfa-vdso OFFSET                  the same in the vDSO
 *   dump                    symbolizer_dump()
 * Blank lines and lines starting with '#' are skipped.
 */

static const char usage[] =
	"usage: symtest [--sysroot DIR] [--debug-root DIR] [--perfmap-dir DIR]\n"
	"               [--proc-root DIR] [--kallsyms FILE] [--raw] [--addresses]\n"
	"               [--annotate] [--local-vdso] [--vdso-dir DIR] < queries\n";

/* Queries give addresses in hex, other numbers in decimal: C's notation. */
static uint64_t num(const char *s)
{
	unsigned long long v = 0;
	char *end = NULL;

	errno = 0;
	if (s && *s >= '0' && *s <= '9')
		v = strtoull(s, &end, 0);
	if (!s || !end || *end || errno) {
		fs_err("bad number '%s'", s ? s : "(missing)");
		exit(EXIT_USAGE);
	}
	return v;
}

/* Hex build-id into bid; returns its length. */
static size_t parse_bid(const char *hex, unsigned char *bid, size_t max)
{
	size_t n = strlen(hex) / 2;

	if (strlen(hex) % 2 || n > max) {
		fs_err("bad build-id '%s'", hex);
		exit(EXIT_USAGE);
	}
	for (size_t i = 0; i < n; i++) {
		unsigned int b;

		if (sscanf(hex + 2 * i, "%2x", &b) != 1) {
			fs_err("bad build-id '%s'", hex);
			exit(EXIT_USAGE);
		}
		bid[i] = (unsigned char)b;
	}
	return n;
}

/* "kname ADDR NAME...": the name is the rest of the line, spaces and all. */
static const char *kname(struct symbolizer *s, char *args)
{
	char *addr = args + strspn(args, " "), *name;

	name = addr + strcspn(addr, " \n");
	if (*name == ' ')
		*name++ = '\0';
	else
		*name = '\0';
	name[strcspn(name, "\n")] = '\0';
	return symbolize_kernel_named(s, name, num(addr));
}

static const char *cfa_name(enum elfsym_cfa c)
{
	return c == ELFSYM_CFA_FP ? "fp" : c == ELFSYM_CFA_NO_FP ? "no-fp" :
	       "unknown";
}

static const char *query(struct symbolizer *s, char *line)
{
	char *save = NULL, *cmd, *a, *b;

	if (!strncmp(line, "kname ", 6))
		return kname(s, line + 6);
	cmd = strtok_r(line, " \t\n", &save);
	a = strtok_r(NULL, " \t\n", &save);
	b = strtok_r(NULL, " \t\n", &save);

	if (!strcmp(cmd, "user")) {
		unsigned char bid[ELFSYM_BUILD_ID_MAX];
		uint64_t dev = 0, ino = 0;
		size_t bid_len = 0;
		const char *out;
		char *t, *path = NULL;
		bool ret = false;

		/* "PATH (deleted)", as the module records unlinked files. */
		if (b && !strcmp(b, "(deleted)")) {
			a = path = xasprintf("%s (deleted)", a);
			b = strtok_r(NULL, " \t\n", &save);
		}
		while ((t = strtok_r(NULL, " \t\n", &save))) {
			if (!strcmp(t, "ret"))
				ret = true;
			else if (!strncmp(t, "dev=", 4))
				dev = num(t + 4);
			else if (!strncmp(t, "ino=", 4))
				ino = num(t + 4);
			else
				bid_len = parse_bid(t, bid, sizeof(bid));
		}
		if (!a)
			return NULL;
		out = symbolize_user(s, symbolize_file_inode(s, a, dev, ino,
							     bid, bid_len),
				     num(b), ret);
		free(path);
		return out;
	}
	if (!strcmp(cmd, "cfa")) {
		unsigned char bid[ELFSYM_BUILD_ID_MAX];
		char *t = strtok_r(NULL, " \t\n", &save);
		size_t bid_len = t ? parse_bid(t, bid, sizeof(bid)) : 0;

		if (!a || !b)
			return NULL;
		return cfa_name(elfsym_file_cfa(symbolize_file(s, a, bid,
							       bid_len),
						num(b)));
	}
	if (!strcmp(cmd, "cfa-vdso"))
		return a ? cfa_name(symbolize_vdso_cfa(s, num(a))) : NULL;
	if (!strcmp(cmd, "anon")) {
		char *addr = strtok_r(NULL, " \t\n", &save);
		char *ret = strtok_r(NULL, " \t\n", &save);

		return symbolize_anon(s, (uint32_t)num(a), (uint32_t)num(b),
				      num(addr), ret && !strcmp(ret, "ret"));
	}
	if (!strcmp(cmd, "vdso"))
		return symbolize_vdso(s, num(a), b && !strcmp(b, "ret"));
	if (!strcmp(cmd, "vdso32"))
		return symbolize_vdso32(s, num(a), b && !strcmp(b, "ret"));
	if (!strcmp(cmd, "kernel"))
		return symbolize_kernel(s, num(a), b && !strcmp(b, "ret"));
	if (!strcmp(cmd, "unknown"))
		return symbolize_unknown(s, num(a));
	return NULL;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "sysroot", required_argument, NULL, 's' },
		{ "debug-root", required_argument, NULL, 'd' },
		{ "perfmap-dir", required_argument, NULL, 'p' },
		{ "proc-root", required_argument, NULL, 'P' },
		{ "kallsyms", required_argument, NULL, 'k' },
		{ "raw", no_argument, NULL, 'r' },
		{ "addresses", no_argument, NULL, 'a' },
		{ "annotate", no_argument, NULL, 'A' },
		{ "local-vdso", no_argument, NULL, 'v' },
		{ "vdso-dir", required_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct symbolize_opts o = { 0 };
	struct symbolizer *s;
	size_t len = 0;
	char *line = NULL;
	int c, rc = EXIT_OK;

	fs_progname = "symtest";
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			o.sysroot = optarg;
			break;
		case 'd':
			o.debug_root = optarg;
			break;
		case 'p':
			o.perfmap_dir = optarg;
			break;
		case 'P':
			o.proc_root = optarg;
			break;
		case 'k':
			o.kallsyms = optarg;
			break;
		case 'r':
			o.raw = true;
			break;
		case 'a':
			o.addresses = true;
			break;
		case 'A':
			o.annotate = true;
			break;
		case 'v':
			o.local_vdso = true;
			break;
		case 'V':
			o.vdso_dir = optarg;
			break;
		default:
			fputs(usage, stderr);
			return EXIT_USAGE;
		}
	}
	s = symbolizer_new(&o);
	while (getline(&line, &len, stdin) > 0) {
		const char *out;

		if (line[0] == '#' || line[strspn(line, " \t\n")] == '\0')
			continue;
		if (!strncmp(line, "dump", 4)) {
			symbolizer_dump(s, stdout);
			continue;
		}
		out = query(s, line);
		if (!out) {
			fs_err("bad query: %s", line);
			rc = EXIT_USAGE;
			break;
		}
		printf("%s\n", out);
	}
	free(line);
	symbolizer_free(s);
	return rc;
}
