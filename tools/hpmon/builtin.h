/* SPDX-License-Identifier: MIT */
/*
 * The hpmon subcommands. Each lives in its own cmd-NAME.c, takes the
 * arguments after its name (argv[0] is the command name) and returns the
 * process exit status. Registered in the table in hpmon.c.
 * Ownership: a command borrows the context for its run; hpmon.c frees it.
 */
#ifndef HPMON_TOOL_BUILTIN_H
#define HPMON_TOOL_BUILTIN_H

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

/* Exit codes of the tool itself (a measured command's own status passes
 * through unchanged, perf-style). */
enum hpm_exit {
	HPM_EXIT_OK = 0,
	HPM_EXIT_FAIL = 1,    /* measurement failed (open, read ...) */
	HPM_EXIT_USAGE = 129, /* bad option or argument, as perf does */
	HPM_EXIT_EXEC = 127,  /* command not found / not executable */
};

#endif
