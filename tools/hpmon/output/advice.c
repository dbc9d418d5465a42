/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>

#include <hpmon/event.h>
#include <hpmon/sysinfo.h>
#include "output/advice.h"
#include "output/exit.h"

/* Said wherever CAP_PERFMON is offered as a fix: with it, whoever may run
 * hpmon can sample other users' processes and copy their stacks
 * (--call-graph dwarf), so it belongs to a group, not to everyone. */
#define CAP_WARNING " (it lets all who run hpmon read other users' memory: " \
		    "give it to one group, see docs/hpmon-stat.md \"Privileges\")"

int advice_paranoid(struct hpm_ctx *ctx)
{
	char path[512];
	FILE *f;
	int v = 99;

	snprintf(path, sizeof(path), "%s/sys/kernel/perf_event_paranoid",
		 hpm_ctx__procfs_root(ctx));
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 99;
		fclose(f);
	}
	return v;
}

int advice_no_core_pmu(struct hpm_ctx *ctx)
{
	char core[64];

	/* the library's list, read once: this is asked for every event
	 * that fails */
	return hpm_pmu__core_name(ctx, core, sizeof(core)) != 0;
}

static int is_hw(const struct hpm_event *ev)
{
	const struct perf_event_attr *a = hpm_event__attr(ev);
	return a->type == PERF_TYPE_HARDWARE || a->type == PERF_TYPE_HW_CACHE ||
	       a->type == PERF_TYPE_RAW || hpm_event__kind(ev) == HPM_EV_NATIVE;
}

/* An event of a PMU that counts the machine, not tasks (msr, power ...). */
static int is_uncore(struct hpm_ctx *ctx, const struct hpm_event *ev)
{
	char path[512];
	const char *pmu = hpm_event__pmu(ev);
	if (hpm_event__kind(ev) != HPM_EV_PMU || hpm_event__attr(ev)->type < PERF_TYPE_MAX ||
	    !strncmp(pmu, "cpu", 3))
		return 0;
	snprintf(path, sizeof(path), "%s/bus/event_source/devices/%s/cpus",
		 hpm_ctx__sysfs_root(ctx), pmu);
	return access(path, F_OK) != 0; /* Arm core PMUs list their CPUs */
}

void advice_open(struct hpm_ctx *ctx, const struct hpm_event *ev, int err,
		 int target, char *buf, size_t len)
{
	int system = target == ADVICE_SYSTEM;
	const struct perf_event_attr *a = hpm_event__attr(ev);
	int par;

	switch (-err) {
	case EACCES:
	case EPERM:
		/* read here only: every event that fails asks */
		par = advice_paranoid(ctx);
		if (target == ADVICE_ATTACH && par > 2)
			snprintf(buf, len,
				 "permission denied: perf_event_paranoid is %d, which lets only root "
				 "or CAP_PERFMON count processes: run 'sysctl -w "
				 "kernel.perf_event_paranoid=2' as root to count your own", par);
		else if (target == ADVICE_ATTACH)
			snprintf(buf, len,
				 "permission denied: you may count only processes you could ptrace "
				 "(your own): another user's needs root or CAP_PERFMON" CAP_WARNING);
		else if (system)
			snprintf(buf, len,
				 "permission denied: system-wide counting needs perf_event_paranoid <= 0 "
				 "(it is %d): run 'sysctl -w kernel.perf_event_paranoid=0' as root, "
				 "or give hpmon CAP_PERFMON" CAP_WARNING, par);
		else if (!a->exclude_kernel && !is_uncore(ctx, ev))
			snprintf(buf, len,
				 "permission denied: counting kernel mode needs perf_event_paranoid <= 1 "
				 "(it is %d): add ':u' to count user mode only, or run "
				 "'sysctl -w kernel.perf_event_paranoid=1' as root", par);
		else if (!a->exclude_kernel)
			/* uncore-like PMUs (msr, power ...) cannot filter by mode */
			snprintf(buf, len,
				 "permission denied: PMU %s counts the whole machine, which needs "
				 "perf_event_paranoid <= 0 (it is %d) or CAP_PERFMON" CAP_WARNING,
				 hpm_event__pmu(ev), par);
		else
			snprintf(buf, len,
				 "permission denied (perf_event_paranoid is %d): watching another "
				 "user's process needs CAP_PERFMON" CAP_WARNING
				 " or perf_event_paranoid <= 0", par);
		return;
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		if (is_hw(ev) && advice_no_core_pmu(ctx))
			snprintf(buf, len,
				 "this machine exposes no hardware PMU (a virtual machine without "
				 "PMU passthrough?): software events%s, tracepoints and uprobes "
				 "work; see 'hpmon list' and 'hpmon diag'",
				 hpm_sysinfo__breakpoints(ctx, HPM_BP_EXEC).fires == HPM_YES
					 ? ", breakpoints" : "");
		else if (a->type == PERF_TYPE_BREAKPOINT)
			snprintf(buf, len, "hardware breakpoints are not available here");
		else if (a->precise_ip)
			snprintf(buf, len, "this PMU cannot count the event with precise level %u: "
				 "drop the 'p' modifiers", (unsigned)a->precise_ip);
		else
			snprintf(buf, len, "the PMU does not support this event (%s)", strerror(-err));
		return;
	case EINVAL:
		if (a->type == PERF_TYPE_BREAKPOINT)
			snprintf(buf, len, "the kernel rejected the breakpoint: address, length and "
				 "access type must suit this CPU (x86: length 1, 2, 4 or 8 aligned)");
		else
			snprintf(buf, len, "the kernel rejected the event's settings: a modifier or "
				 "term this PMU does not support (see 'hpmon list')");
		return;
	case ENOSPC:
		snprintf(buf, len, a->type == PERF_TYPE_BREAKPOINT
			 ? "no free hardware breakpoint slot (x86 and arm64 have 4): use fewer mem: events"
			 : "no free counter for this event: use fewer events in the group");
		return;
	case EBUSY:
		snprintf(buf, len, "the PMU is busy: another tool (or the NMI watchdog: "
			 "sysctl -w kernel.nmi_watchdog=0) holds the counters it needs");
		return;
	case EMFILE:
		snprintf(buf, len, "too many open files: raise the limit with 'ulimit -n'");
		return;
	case ESRCH:
		snprintf(buf, len, "no such process or thread");
		return;
	default:
		snprintf(buf, len, "%s", hpm_strerror(err));
	}
}

/* An exec: event whose mechanism hpmon chose: not ':uprobe', ':bp' or a
 * return (always a uprobe). */
static bool mech_chosen(const char *name)
{
	size_t n = strlen(name);
	return !strncmp(name, "exec:", 5) && !strstr(name, "%return") &&
	       !(n > 7 && !strcmp(name + n - 7, ":uprobe")) &&
	       !(n > 3 && !strcmp(name + n - 3, ":bp"));
}

bool advice_bp_silent(struct hpm_ctx *ctx, const char *tool, const struct hpm_evlist *list,
		      const char *const *how)
{
	size_t n = 0;
	for (size_t i = 0; how && i < hpm_evlist__count(list); i++)
		if (how[i] && !strncmp(how[i], "uprobe", 6) &&
		    mech_chosen(hpm_event__name(hpm_evlist__event(list, i))))
			n++;
	if (!n)
		return false;
	struct hpm_bp_fact f = hpm_sysinfo__breakpoints(ctx, HPM_BP_EXEC);
	if (f.fires != HPM_NO)
		return false;
	fprintf(stderr, "hpmon %s: note: hardware breakpoints do not fire on this host (one on "
		"hpmon's own code counted %u of %u uses): %zu exec: event%s counted with "
		"uprobes instead\n", tool, f.counted, f.used, n, n == 1 ? " is" : "s are");
	return true;
}

int advice_check_breakpoints(struct hpm_ctx *ctx, const char *tool,
			     const struct hpm_evlist *list)
{
	for (size_t i = 0; i < hpm_evlist__count(list); i++) {
		const struct hpm_event *ev = hpm_evlist__event(list, i);
		const struct perf_event_attr *a = hpm_event__attr(ev);
		const char *name = hpm_event__name(ev);
		if (a->type != PERF_TYPE_BREAKPOINT || !strncmp(name, "exec:", 5))
			continue; /* exec: chose its mechanism (lib/attach) */
		bool code = a->bp_type == HW_BREAKPOINT_X;
		struct hpm_bp_fact f = hpm_sysinfo__breakpoints(ctx, code ? HPM_BP_EXEC
									 : HPM_BP_DATA);
		if (f.fires == HPM_YES)
			continue;
		fprintf(stderr, "hpmon %s: cannot count '%s': ", tool, name);
		if (f.fires == HPM_NO)
			fprintf(stderr, "hardware breakpoints do not fire on this host (one on "
				"hpmon's own %s counted %u of %u uses; perf's mem: events count 0 "
				"here too)", code ? "code" : "data", f.counted, f.used);
		else
			fprintf(stderr, "hardware breakpoints cannot be opened here: %s",
				strerror(f.err ? -f.err : ENODEV));
		if (code)
			fprintf(stderr, "; count code with a uprobe instead: exec:FUNC, "
				"exec:FILE:LINE or exec:OBJECT:0xADDR (a link-time address), "
				"ending in ':uprobe' (docs/event-syntax.md)\n");
		else
			fprintf(stderr, "; no other mechanism counts data accesses here\n");
		return HPM_EXIT_FAIL;
	}
	return 0;
}

int advice_location_status(int err)
{
	switch (-err) {
	case EOPNOTSUPP: case ENODEV: case EACCES: case EPERM:
		return HPM_EXIT_FAIL;
	}
	return HPM_EXIT_USAGE;
}

void advice_parse(FILE *f, const char *spec, const struct hpm_parse_error *e)
{
	advice_parse_cmd(f, NULL, spec, e);
}

void advice_parse_cmd(FILE *f, const char *cmd, const char *spec,
		      const struct hpm_parse_error *e)
{
	fprintf(f, "hpmon%s%s: %s\n", cmd ? " " : "", cmd ? cmd : "",
		e->msg[0] ? e->msg : hpm_strerror(e->err));
	if (spec && strlen(spec) < 200 && e->pos <= strlen(spec)) {
		fprintf(f, "  %s\n  %*s^\n", spec, (int)e->pos, "");
	}
	if (e->suggest[0])
		fprintf(f, "  did you mean: %s?\n", e->suggest);
	if (e->err == -HPM_ERR_UNKNOWN_EVENT || e->err == -HPM_ERR_UNKNOWN_PMU)
		fprintf(f, "  'hpmon list' shows the events of this machine.\n");
	/* the event parser's only errno failures: tracefs out of reach */
	if (e->err == -EACCES)
		fprintf(f, "  run hpmon as root, or let a group use tracepoints: as root, "
			   "'mount -o remount,gid=GROUP,mode=750 /sys/kernel/tracing' (tracefs "
			   "gives every file to that group)\n");
	else if (e->err == -ENODEV)
		fprintf(f, "  run hpmon as root, which mounts tracefs when it needs it, or as "
			   "root: 'mount -t tracefs nodev /sys/kernel/tracing'\n");
	else if (e->err == -ENOENT)
		fprintf(f, "  point HPMON_TRACEFS_ROOT at a tracefs directory, one that holds "
			   "events/ (/sys/kernel/tracing, or a recorded tree)\n");
}

int advice_parse_status(const struct hpm_parse_error *e)
{
	switch (-e->err) {
	case EACCES: case EPERM: case ENODEV: case ENOMEM:
		return HPM_EXIT_FAIL;
	}
	return HPM_EXIT_USAGE;
}

int advice_usage_end(const char *cmd)
{
	fprintf(stderr, "See 'hpmon %s --help'.\n", cmd);
	return HPM_EXIT_USAGE;
}

int advice_usage(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "hpmon %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return advice_usage_end(cmd);
}

int advice_parse_usage(const char *cmd, const char *spec, const struct hpm_parse_error *e)
{
	int rc = advice_parse_status(e);

	advice_parse_cmd(stderr, cmd, spec, e);
	if (rc == HPM_EXIT_USAGE)
		advice_usage_end(cmd);
	return rc;
}
