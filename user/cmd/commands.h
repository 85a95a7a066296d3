/* SPDX-License-Identifier: GPL-2.0 */
/* The subcommands main.c dispatches to; one file per subcommand. */
#ifndef FLAMESTAT_COMMANDS_H
#define FLAMESTAT_COMMANDS_H

/* Each takes argv with argv[0] = the subcommand name; returns an exit status. */
int do_record(int argc, char **argv);
int do_report(int argc, char **argv);
int do_status(int argc, char **argv);
int do_svg(int argc, char **argv);
int do_diff(int argc, char **argv);
int do_fold(int argc, char **argv);

#endif
