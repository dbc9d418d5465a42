/* SPDX-License-Identifier: MIT */
/*
 * The hpmon subcommands. Each lives in its folder's cmd-NAME.c
 * (NAME/cmd-NAME.c; report's in report-cmd/, list's and diag's in host/:
 * README.md), takes the arguments after its name (argv[0] is the command
 * name) and returns the process exit status (output/exit.h). Registered
 * in the table in hpmon.c. Included by hpmon.c and by each cmd-NAME.c for
 * its own entry, by nothing else.
 * Ownership: a command borrows the context for its run; hpmon.c frees it.
 */
#ifndef HPMON_TOOL_BUILTIN_H
#define HPMON_TOOL_BUILTIN_H

#include "output/exit.h" /* what each command returns */

struct hpm_ctx;

int cmd_stat(int argc, char **argv, struct hpm_ctx *ctx);
int cmd_top(int argc, char **argv, struct hpm_ctx *ctx);
int cmd_list(int argc, char **argv, struct hpm_ctx *ctx);
int cmd_diag(int argc, char **argv, struct hpm_ctx *ctx);
int cmd_record(int argc, char **argv, struct hpm_ctx *ctx);
int cmd_report(int argc, char **argv, struct hpm_ctx *ctx);
int cmd_annotate(int argc, char **argv, struct hpm_ctx *ctx);
int cmd_diff(int argc, char **argv, struct hpm_ctx *ctx);
int cmd_script(int argc, char **argv, struct hpm_ctx *ctx);
int cmd_convert(int argc, char **argv, struct hpm_ctx *ctx);
int cmd_serve(int argc, char **argv, struct hpm_ctx *ctx);
int cmd_validate(int argc, char **argv, struct hpm_ctx *ctx);
int cmd_merge(int argc, char **argv, struct hpm_ctx *ctx);

#endif
