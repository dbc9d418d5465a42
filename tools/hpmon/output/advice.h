/* SPDX-License-Identifier: MIT */
/*
 * Turning library errors into advice: the one place where the tool says
 * what went wrong and what to do about it.
 * Room: tools/hpmon/output/ owns what the tool says and writes (advice, escaping, JSON, output files and names, exit codes); may use libc only.
 * Ownership: the advice is written into the caller's buffer; the context,
 * events and errors are borrowed for the call.
 */
#ifndef HPMON_TOOL_ADVICE_H
#define HPMON_TOOL_ADVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct hpm_ctx;
struct hpm_event;
struct hpm_parse_error;

/* What was being counted, for advice_open(). */
enum advice_target {
	ADVICE_COMMAND = 0, /* a command hpmon started */
	ADVICE_SYSTEM = 1,  /* CPUs, system-wide */
	ADVICE_ATTACH = 2,  /* existing processes or threads (-p, -t) */
};

/*
 * One line saying why @ev could not be opened (err = -errno) and what to do,
 * for a target of kind @target (enum advice_target).
 */
void advice_open(struct hpm_ctx *ctx, const struct hpm_event *ev, int err,
		 int target, char *buf, size_t len);

/* Print a parse error of @spec with a caret under the bad spot. */
void advice_parse(FILE *f, const char *spec, const struct hpm_parse_error *e);
/* The same, as command @cmd says it ("hpmon stat: ..."); @cmd NULL: "hpmon: ...". */
void advice_parse_cmd(FILE *f, const char *cmd, const char *spec,
		      const struct hpm_parse_error *e);

/*
 * The exit status of an event or metric specification the library
 * refused (@e, from advice_parse's caller): 1 (HPM_EXIT_FAIL) where the
 * machine or the user's rights are the cause, so that the specification
 * may be right (tracefs closed to the user or not mounted, no memory),
 * as for an event that cannot be opened; else 129 (HPM_EXIT_USAGE).
 */
int advice_parse_status(const struct hpm_parse_error *e);

/*
 * An event specification @spec that command @cmd could not parse, said
 * as stat says it: advice_parse_cmd(), then, when it is a usage error
 * (advice_parse_status), the closing line of advice_usage_end(). Returns
 * the exit status, advice_parse_status(@e).
 */
int advice_parse_usage(const char *cmd, const char *spec, const struct hpm_parse_error *e);

/*
 * A usage error of command @cmd ("stat"), as every command says one: on
 * stderr "hpmon CMD: " and the message (printf's @fmt), then the line
 * "See 'hpmon CMD --help'.". Returns HPM_EXIT_USAGE (129).
 */
int advice_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Only the closing line, after a message of several lines said already. */
int advice_usage_end(const char *cmd);

/*
 * The one line (on stderr, "hpmon TOOL: note: ...") saying that exec:
 * events of @list were counted with uprobes because hardware breakpoints
 * do not fire on this host. @how[i] is how event i is counted, as the
 * session or the record says it (NULL: not a location). Prints nothing
 * when no event was put on a uprobe for that reason. True if it printed.
 */
struct hpm_evlist;
bool advice_bp_silent(struct hpm_ctx *ctx, const char *tool, const struct hpm_evlist *list,
		      const char *const *how);

/*
 * Refuse, before anything runs, the mem: events of @list (hardware
 * breakpoints and watchpoints, which perf_event_open would open and then
 * never count) when breakpoints of their kind do not fire on this host:
 * print why and the alternative ("hpmon TOOL: ..."), and return 1
 * (HPM_EXIT_FAIL). 0 when there is none, or they fire.
 */
int advice_check_breakpoints(struct hpm_ctx *ctx, const char *tool,
			     const struct hpm_evlist *list);

/*
 * The exit status of a location the library refused before anything ran
 * (err = -errno): 1 where the host or the caller lacks what it needs
 * (breakpoints that fire, uprobes, privilege), as for any event that
 * cannot be opened; 129 where the command line is wrong (no such
 * function, more ':bp' than the CPU has breakpoints).
 */
int advice_location_status(int err);

/* perf_event_paranoid, or 99 if it cannot be read. */
int advice_paranoid(struct hpm_ctx *ctx);

/* True when sysfs shows no core (CPU) PMU: a VM without PMU passthrough. */
int advice_no_core_pmu(struct hpm_ctx *ctx);

#endif
