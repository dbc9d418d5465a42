/* SPDX-License-Identifier: MIT */
/*
 * Room: lib/core/ owns the context, errors, data and CPU lists; may use sys.
 *
 * What tracefs holds beyond its root (which core/ctx.c finds and mounts):
 * the uprobes that hpmon defines, in groups named "hpmon_PID" after the
 * process that defined them (lib/attach/attach.c), and which of them a
 * process that no longer runs left behind: a hpmon killed with SIGKILL
 * cannot remove its own, and a uprobe left behind keeps its file's
 * filesystem busy.
 *
 * Ownership: the context is borrowed for the call; the strings handed to
 * the callback live only until it returns.
 */
#ifndef HPM_TRACEFS_INTERNAL_H
#define HPM_TRACEFS_INTERNAL_H

struct hpm_ctx;

/* One uprobe: @probe is "hpmon_PID/EVENT" (as a "-:" line removes it),
 * @target "PATH:0xOFFSET" as uprobe_events shows it. Non-zero stops. */
typedef int (*hpm_uprobe_fn)(void *arg, const char *probe, int pid, const char *target);

/*
 * Call @fn for every uprobe of the context's tracefs in a group
 * "hpmon_PID" whose process is gone: no process has that pid, or the one
 * that has it now runs another program (its name and its executable are
 * not the caller's) and holds no perf event. When in doubt (procfs
 * unreadable) the process is taken to run. The caller's own group is
 * never listed; other groups never are. Returns fn's non-zero return, 0,
 * or -errno when uprobe_events cannot be read (-ENOENT: no tracefs or no
 * uprobes in this kernel; -EACCES: only root may read it).
 */
int hpm__uprobe_leftovers(const struct hpm_ctx *ctx, hpm_uprobe_fn fn, void *arg);

#endif
