/* SPDX-License-Identifier: MIT */
/*
 * The tool's exit codes: what every command returns, and what the shared
 * folders return for a command to pass on. A measured command's own
 * status passes through unchanged, perf-style.
 * Room: tools/hpmon/output/ owns what the tool says and writes (advice, escaping, JSON, output files and names, exit codes); may use libc only.
 * Ownership: constants only; nothing is kept.
 */
#ifndef HPMON_TOOL_EXIT_H
#define HPMON_TOOL_EXIT_H

enum hpm_exit {
	HPM_EXIT_OK = 0,
	HPM_EXIT_FAIL = 1,    /* measurement failed (open, read ...) */
	HPM_EXIT_USAGE = 129, /* bad option or argument, as perf does */
	HPM_EXIT_EXEC = 127,  /* command not found / not executable */
};

#endif
