/* SPDX-License-Identifier: MIT */
/*
 * hpmon diag: what this machine allows for performance monitoring, and
 * for each thing that stands in the way, the fix. The facts come from
 * hpm_sysinfo__read; this file only judges and prints them.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <hpmon/hpmon.h>
#include <hpmon/sysinfo.h>
#include "builtin.h"
#include "output/advice.h"
#include "output/json.h"

#define UNKNOWN HPM_SYSINFO_UNKNOWN
#define MAX_PROBLEMS 16

struct diag_opts {
	bool json;
	bool probe;
};

struct problem {
	char what[320];
	char fix[320];
};

struct problems {
	struct problem p[MAX_PROBLEMS];
	size_t nr;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: hpmon diag [--json] [--no-probe]\n\n"
		"Report what this machine allows for performance monitoring: CPU,\n"
		"PMUs and their counters, perf_event_paranoid, capabilities, NMI\n"
		"watchdog, rdpmc, hypervisor, kernel, tracefs and the uprobes killed\n"
		"hpmons left behind; then each problem\n"
		"found with its fix.\n\n"
		"  --json       print the facts and problems as one JSON object\n"
		"  --no-probe   do not open counters to count them or to test rdpmc\n"
		"  -h, --help   show this help\n");
}

static void add(struct problems *ps, const char *what, const char *fix)
{
	if (ps->nr == MAX_PROBLEMS)
		return;
	snprintf(ps->p[ps->nr].what, sizeof(ps->p[0].what), "%s", what);
	snprintf(ps->p[ps->nr].fix, sizeof(ps->p[0].fix), "%s", fix);
	ps->nr++;
}

static bool privileged(const struct hpm_sysinfo *si)
{
	return si->cap_perfmon == HPM_YES || si->cap_sys_admin == HPM_YES;
}

static const struct hpm_pmu_info *first_core(const struct hpm_sysinfo *si)
{
	for (size_t i = 0; i < si->nr_pmus; i++)
		if (si->pmus[i].core)
			return &si->pmus[i];
	return NULL;
}

/* One sentence: what perf_event_paranoid and the capabilities let the
 * caller do. */
static const char *paranoid_allows(const struct hpm_sysinfo *si)
{
	if (si->perf_event_paranoid == UNKNOWN)
		return "unknown: perf_event_paranoid cannot be read";
	if (privileged(si))
		return si->cap_perfmon == HPM_YES
			       ? "everything: you have CAP_PERFMON"
			       : "everything: you have CAP_SYS_ADMIN";
	if (!si->allow_open)
		return "unprivileged users may not use perf_event_open at all";
	if (si->allow_raw_tp)
		return "everything, including raw tracepoint data";
	if (si->allow_cpu_wide)
		return "your processes and system-wide counting (-a), "
		       "user and kernel mode";
	if (si->allow_kernel)
		return "your own processes, user and kernel mode; "
		       "not system-wide (-a)";
	return "your own processes in user mode only; not kernel mode, "
	       "not system-wide (-a)";
}

static void judge_access(const struct hpm_sysinfo *si, struct problems *ps)
{
	char what[320];
	int p = si->perf_event_paranoid;

	if (p == UNKNOWN) {
		add(ps, "perf_event_paranoid cannot be read: procfs is not mounted, "
			"or the kernel was built without perf events",
		    "mount -t proc proc /proc; a kernel without CONFIG_PERF_EVENTS "
		    "cannot count anything");
		return;
	}
	if (privileged(si))
		return;
	if (!si->allow_open) {
		snprintf(what, sizeof(what),
			 "perf_event_paranoid is %d: unprivileged users may not "
			 "open any counter", p);
		add(ps, what, "sysctl -w kernel.perf_event_paranoid=2 (own processes, "
			      "user mode); or CAP_PERFMON for one group only, as it lets "
			      "them read other users' memory: groupadd perf_users; "
			      "chgrp perf_users HPMON; chmod o-rwx HPMON; setcap "
			      "cap_perfmon,cap_sys_ptrace,cap_syslog=ep HPMON "
			      "(HPMON: $(command -v hpmon); docs/hpmon-diag.md)");
		return;
	}
	if (!si->allow_kernel) {
		snprintf(what, sizeof(what),
			 "perf_event_paranoid is %d: kernel-mode counting (:k) "
			 "needs perf_event_paranoid <= 1; hpmon counts user mode only", p);
		add(ps, what, "sysctl -w kernel.perf_event_paranoid=1, or CAP_PERFMON "
			      "for one group only (docs/hpmon-diag.md: it lets them "
			      "read other users' memory)");
	}
	if (!si->allow_cpu_wide)
		add(ps, "system-wide counting (-a) needs perf_event_paranoid <= 0",
		    "sysctl -w kernel.perf_event_paranoid=0 or CAP_PERFMON for one "
		    "group only (docs/hpmon-diag.md: it lets them read other "
		    "users' memory)");
}

/* "@why: hardware events cannot be counted; ... work", naming only what
 * was measured to work (or not measured) here. */
static const char *no_pmu_what(const struct hpm_sysinfo *si, const char *why, char *buf,
			       size_t len)
{
	snprintf(buf, len, "%s: hardware events cannot be counted; software events%s%s "
		 "work", why, si->bp_exec.fires == HPM_NO || si->bp_exec.err ? "" : ", breakpoints",
		 si->tracefs[0] ? ", tracepoints and uprobes" : "");
	return buf;
}

/* "fire (3 of 3 uses counted)", "do not fire (0 of 3 ...)", or why not. */
static const char *bp_text(const struct hpm_bp_fact *f, char *buf, size_t len)
{
	if (f->fires == HPM_YES)
		snprintf(buf, len, "fire (%u of %u uses counted)", f->counted, f->used);
	else if (f->fires == HPM_NO)
		snprintf(buf, len, "do not fire (%u of %u uses counted)", f->counted, f->used);
	else if (f->err)
		snprintf(buf, len, "cannot be opened: %s", strerror(-f->err));
	else
		snprintf(buf, len, "not probed");
	return buf;
}

/* What a probe of samples found: @yes or @no, or why it was not known. */
static const char *sample_text(const struct hpm_sysinfo *si, enum hpm_tristate t,
			       const char *yes, const char *no, char *buf, size_t len)
{
	if (t == HPM_YES)
		return yes;
	if (t == HPM_NO)
		return no;
	if (si->samples_err == -ENODATA)
		snprintf(buf, len, "unknown: the probe took no sample");
	else if (si->samples_err)
		snprintf(buf, len, "unknown: sampling cannot open: %s", strerror(-si->samples_err));
	else
		snprintf(buf, len, "not probed");
	return buf;
}

/* Samples that lack what call graphs need. */
static void judge_samples(const struct hpm_sysinfo *si, struct problems *ps)
{
	if (si->stack_user == HPM_NO)
		add(ps, "the kernel copies no user stack into samples: record --call-graph dwarf "
			"gets no callers", "use --call-graph fp (programs built with "
			"-fno-omit-frame-pointer), or a kernel with user stack dumps "
			"(CONFIG_HAVE_PERF_USER_STACK_DUMP)");
	if (si->kernel_chains == HPM_NO)
		add(ps, "samples taken in the kernel carry no kernel frame here (a guest's "
			"entry path, or a kernel without frame unwinding): call graphs start "
			"in user space", "none needed for user-space profiles; for kernel ones, "
			"a kernel with CONFIG_UNWINDER_ORC or CONFIG_UNWINDER_FRAME_POINTER");
}

/* Breakpoints that open but never count: exec: goes to uprobes, mem: is
 * refused. */
static void judge_breakpoints(const struct hpm_sysinfo *si, struct problems *ps)
{
	char what[320], c[64], d[64];

	if (si->bp_exec.fires != HPM_NO && si->bp_data.fires != HPM_NO)
		return;
	snprintf(what, sizeof(what), "hardware breakpoints do not fire on this host (on code: "
		 "%s; on data: %s): hpmon counts exec: events with uprobes (root) and "
		 "refuses mem: events and ':bp'", bp_text(&si->bp_exec, c, sizeof(c)),
		 bp_text(&si->bp_data, d, sizeof(d)));
	add(ps, what, "count code with exec: events (uprobes); for breakpoints, run on bare "
		      "metal or a hypervisor that gives the guest its debug registers");
}

static void judge_pmu(const struct hpm_sysinfo *si, struct problems *ps)
{
	const struct hpm_pmu_info *core = first_core(si);
	char what[320];

	if (!core) {
		if (si->hypervisor == HPM_YES)
			add(ps, no_pmu_what(si, "this machine exposes no hardware PMU (virtual "
					    "machine without PMU passthrough)", what, sizeof(what)),
			    "give the guest a virtual PMU (QEMU/KVM: -cpu host,pmu=on; "
			    "libvirt: <pmu state='on'/>; cloud: an instance type with "
			    "PMU access), or run on bare metal");
		else
			add(ps, no_pmu_what(si, "the kernel offers no hardware PMU", what,
					    sizeof(what)),
			    "use a kernel whose PMU driver knows this CPU (x86: "
			    "CONFIG_CPU_SUP_*; arm64: CONFIG_ARM_PMUV3 and a PMU node "
			    "in the devicetree or ACPI tables)");
		return;
	}
	if (si->nmi_watchdog == 1)
		add(ps, "the NMI watchdog holds one counter",
		    "sysctl -w kernel.nmi_watchdog=0");
	for (size_t i = 0; i < si->nr_pmus; i++) {
		const struct hpm_pmu_info *p = &si->pmus[i];
		if (!p->core || !p->probe_err)
			continue;
		if (p->probe_err == -EACCES || p->probe_err == -EPERM) {
			snprintf(what, sizeof(what),
				 "counters of %s could not be probed: %s", p->name,
				 strerror(-p->probe_err));
			add(ps, what, "sysctl -w kernel.perf_event_paranoid=2 or lower, "
				      "or CAP_PERFMON for one group only (docs/hpmon-diag.md: "
				      "it lets them read other users' memory)");
		} else if (p->probe_err == -EBUSY) {
			snprintf(what, sizeof(what),
				 "no counter of %s is free: another user (a profiler, "
				 "the NMI watchdog, a hypervisor) holds them all", p->name);
			add(ps, what, "stop the other user of the counters; "
				      "sysctl -w kernel.nmi_watchdog=0");
		} else {
			snprintf(what, sizeof(what),
				 "hardware events of %s cannot be opened: %s", p->name,
				 strerror(-p->probe_err));
			add(ps, what, "the PMU driver refuses generic hardware events; "
				      "try the PMU's own events (hpmon list)");
		}
	}
	if (si->rdpmc == HPM_NO && si->rdpmc_err == 0) {
		if (si->rdpmc_sysfs == 0) {
			snprintf(what, sizeof(what),
				 "user-space counter reads (rdpmc) are disabled");
			add(ps, what, "echo 1 > /sys/bus/event_source/devices/cpu/rdpmc "
				      "(cpu_core and cpu_atom on hybrid CPUs)");
		} else if (si->perf_user_access == 0) {
			add(ps, "user-space counter reads are disabled "
				"(kernel.perf_user_access=0)",
			    "sysctl -w kernel.perf_user_access=1");
		}
	}
}

static void judge_tracefs(const struct hpm_sysinfo *si, struct problems *ps)
{
	char what[320];

	if (!si->tracefs[0]) {
		add(ps, "tracefs is not mounted: tracepoints cannot be used",
		    "mount -t tracefs nodev /sys/kernel/tracing");
	} else if (!si->tracefs_readable) {
		snprintf(what, sizeof(what),
			 "tracefs at %s cannot be read by you: tracepoints cannot "
			 "be used", si->tracefs);
		add(ps, what, "run as root, or mount -o remount,mode=755 "
			      "/sys/kernel/tracing");
	}
}

/* Uprobes of hpmons killed before they could remove them: each keeps
 * its file's filesystem busy (umount fails) until it is removed. */
static void judge_uprobes(const struct hpm_sysinfo *si, struct problems *ps)
{
	char what[320], fix[320];

	if (!si->nr_uprobe_leftovers)
		return;
	snprintf(what, sizeof(what),
		 "%zu uprobe%s left in tracefs by hpmon processes that no longer run (first: "
		 "%s of process %d): %s busy", si->nr_uprobe_leftovers,
		 si->nr_uprobe_leftovers == 1 ? "" : "s", si->uprobe_leftovers[0].probe,
		 si->uprobe_leftovers[0].pid,
		 si->nr_uprobe_leftovers == 1 ? "it keeps its file's filesystem"
					      : "they keep their files' filesystems");
	snprintf(fix, sizeof(fix),
		 "run any hpmon command that uses uprobes (it removes them), or as root "
		 "remove each as 'Uprobes left behind' shows: echo '-:%s' >> %s",
		 si->uprobe_leftovers[0].probe,
		 si->uprobe_events[0] ? si->uprobe_events : "/sys/kernel/tracing/uprobe_events");
	add(ps, what, fix);
}

/* The command that removes leftover @l. */
static void leftover_remove_cmd(const struct hpm_sysinfo *si, const struct hpm_uprobe_leftover *l,
				char *buf, size_t len)
{
	snprintf(buf, len, "echo '-:%s' >> %s", l->probe,
		 si->uprobe_events[0] ? si->uprobe_events : "/sys/kernel/tracing/uprobe_events");
}

static size_t leftovers_listed(const struct hpm_sysinfo *si)
{
	size_t max = sizeof(si->uprobe_leftovers) / sizeof(si->uprobe_leftovers[0]);
	return si->nr_uprobe_leftovers < max ? si->nr_uprobe_leftovers : max;
}

static void print_leftovers(const struct hpm_sysinfo *si)
{
	char cmd[512];

	if (si->uprobe_leftovers_err == -EACCES) {
		printf("%-22s not checked: only root may read uprobe_events\n",
		       "Uprobes left behind:");
		return;
	}
	if (si->uprobe_leftovers_err) {
		printf("%-22s none (%s)\n", "Uprobes left behind:",
		       si->tracefs[0] ? "this kernel has no uprobe_events" : "tracefs is not mounted");
		return;
	}
	printf("%-22s %zu\n", "Uprobes left behind:", si->nr_uprobe_leftovers);
	for (size_t i = 0; i < leftovers_listed(si); i++) {
		const struct hpm_uprobe_leftover *l = &si->uprobe_leftovers[i];
		leftover_remove_cmd(si, l, cmd, sizeof(cmd));
		printf("  %s at %s (hpmon process %d no longer runs)\n    remove: %s\n", l->probe,
		       l->target, l->pid, cmd);
	}
	if (si->nr_uprobe_leftovers > leftovers_listed(si))
		printf("  ... and %zu more\n", si->nr_uprobe_leftovers - leftovers_listed(si));
}

/* "4 general counters + 3 fixed counters (source: probed)" and the like. */
static void counters_text(const struct hpm_pmu_info *p, const char *arch,
			  char *buf, size_t len)
{
	const char *src = hpm_counters_source__str(p->source);

	if (p->source == HPM_COUNTERS_NONE) {
		snprintf(buf, len, "no counters to allocate (source: %s)", src);
		return;
	}
	if (p->nr_general == UNKNOWN) {
		snprintf(buf, len, "counters unknown (source: %s)", src);
		return;
	}
	int n = snprintf(buf, len, "%d general counter%s", p->nr_general,
			 p->nr_general == 1 ? "" : "s");
	if (n < 0 || (size_t)n >= len)
		return;
	if (p->nr_fixed > 0 && !strcmp(arch, "aarch64") && p->nr_fixed == 1)
		n += snprintf(buf + n, len - (size_t)n, " + cycle counter");
	else if (p->nr_fixed > 0)
		n += snprintf(buf + n, len - (size_t)n, " + %d fixed counter%s",
			      p->nr_fixed, p->nr_fixed == 1 ? "" : "s");
	if (n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, " (source: %s)", src);
}

static const char *tristate(enum hpm_tristate t)
{
	return t == HPM_YES ? "yes" : t == HPM_NO ? "no" : "unknown";
}

/* Why rdpmc is not available (si->rdpmc is HPM_NO). */
static const char *rdpmc_why(const struct hpm_sysinfo *si, char *buf, size_t len)
{
	if (si->rdpmc_err == -ENODEV)
		return "no hardware PMU";
	if (si->rdpmc_err) {
		snprintf(buf, len, "a hardware event cannot be opened (%s)",
			 strerror(-si->rdpmc_err));
		return buf;
	}
	return "disabled";
}

static void print_int(const char *label, int v, const char *suffix)
{
	if (v == UNKNOWN)
		printf("%-22s unknown\n", label);
	else
		printf("%-22s %d%s\n", label, v, suffix);
}

static void print_text(const struct hpm_sysinfo *si, const struct problems *ps)
{
	char buf[256];

	if (si->cpu_family != UNKNOWN)
		printf("%-22s %s (%s, family %d model %d stepping %d)\n", "CPU:",
		       si->cpu_model[0] ? si->cpu_model : "unknown", si->cpu_vendor,
		       si->cpu_family, si->cpu_model_nr, si->cpu_stepping);
	else if (si->midr)
		printf("%-22s %s (%s, MIDR 0x%016llx)\n", "CPU:", si->cpu_model,
		       si->cpu_vendor, (unsigned long long)si->midr);
	else
		printf("%-22s %s\n", "CPU:", si->cpu_model[0] ? si->cpu_model : "unknown");
	printf("%-22s %s\n", "Architecture:", si->arch[0] ? si->arch : "unknown");
	print_int("CPUs online:", si->nr_cpus_online, "");
	printf("%-22s %s\n", "Kernel:", si->kernel_release[0] ? si->kernel_release : "unknown");
	if (si->hypervisor == HPM_YES && si->hypervisor_how[0])
		printf("%-22s yes (%s)\n", "Hypervisor:", si->hypervisor_how);
	else
		printf("%-22s %s\n", "Hypervisor:", tristate(si->hypervisor));
	if (si->perf_event_paranoid == UNKNOWN)
		printf("%-22s unknown\n", "perf_event_paranoid:");
	else
		printf("%-22s %d (for you: %s)\n", "perf_event_paranoid:",
		       si->perf_event_paranoid, paranoid_allows(si));
	printf("%-22s CAP_PERFMON %s, CAP_SYS_ADMIN %s\n", "Capabilities:",
	       tristate(si->cap_perfmon), tristate(si->cap_sys_admin));
	print_int("Max sample rate:", si->perf_event_max_sample_rate, " Hz");
	print_int("mlock allowance:", si->perf_event_mlock_kb, " KiB per user");
	if (si->nmi_watchdog == UNKNOWN)
		printf("%-22s not present\n", "NMI watchdog:");
	else
		printf("%-22s %s\n", "NMI watchdog:",
		       si->nmi_watchdog ? "on (holds a counter)" : "off");
	if (si->rdpmc == HPM_YES)
		printf("%-22s available\n", "rdpmc:");
	else if (si->rdpmc == HPM_NO)
		printf("%-22s no: %s\n", "rdpmc:", rdpmc_why(si, buf, sizeof(buf)));
	else if (si->rdpmc_sysfs != UNKNOWN)
		printf("%-22s sysfs rdpmc=%d (not probed)\n", "rdpmc:", si->rdpmc_sysfs);
	else
		printf("%-22s not probed\n", "rdpmc:");
	if (si->perf_user_access != UNKNOWN)
		printf("%-22s %d\n", "perf_user_access:", si->perf_user_access);
	if (!si->tracefs[0])
		printf("%-22s not mounted\n", "tracefs:");
	else
		printf("%-22s %s (%s)\n", "tracefs:", si->tracefs,
		       si->tracefs_readable ? "readable" : "not readable");
	print_leftovers(si);
	printf("%-22s on code: %s; on data: %s\n", "Breakpoints:",
	       bp_text(&si->bp_exec, buf, sizeof(buf) / 2),
	       bp_text(&si->bp_data, buf + sizeof(buf) / 2, sizeof(buf) / 2));
	printf("%-22s %s\n", "Uprobes:", si->uprobe_events[0] ? si->uprobe_events
			: si->tracefs[0] ? "no: the kernel has no uprobe_events"
					 : "no: tracefs is not mounted");
	printf("%-22s %s\n", "User stacks:", sample_text(si, si->stack_user,
		"copied into samples (DWARF call graphs work)",
		"not copied into samples (no DWARF call graphs)", buf, sizeof(buf)));
	printf("%-22s %s\n", "Kernel call chains:", si->kernel_chains == HPM_UNKNOWN &&
	       !si->samples_err && si->stack_user != HPM_UNKNOWN
		       ? "not asked for: perf_event_paranoid keeps you out of the kernel"
		       : sample_text(si, si->kernel_chains, "kernel frames in samples",
				     "no kernel frame in samples taken in the kernel", buf,
				     sizeof(buf)));
	if (si->vdso_functions == UNKNOWN)
		printf("%-22s unknown\n", "vdso symbols:");
	else if (si->vdso_functions == 0)
		printf("%-22s none: its samples are named [vdso] alone (as by perf)\n",
		       "vdso symbols:");
	else
		printf("%-22s %d functions\n", "vdso symbols:", si->vdso_functions);
	printf("%-22s %zu, %d core\n", "PMUs:", si->nr_pmus, si->nr_core_pmus);
	for (size_t i = 0; i < si->nr_pmus; i++) {
		const struct hpm_pmu_info *p = &si->pmus[i];
		counters_text(p, si->arch, buf, sizeof(buf));
		printf("PMU %s (type %d): %s\n", p->name, p->type, buf);
	}

	printf("\nProblems and fixes:\n");
	if (!ps->nr)
		printf("  none found\n");
	for (size_t i = 0; i < ps->nr; i++)
		printf("  - %s\n    fix: %s\n", ps->p[i].what, ps->p[i].fix);
}

/* An integer fact, or null when unknown. */
static void json_fact(struct json *j, const char *key, int v)
{
	if (v == UNKNOWN)
		json_null(j, key);
	else
		json_i64(j, key, v);
}

static void json_tristate(struct json *j, const char *key, enum hpm_tristate t)
{
	if (t == HPM_UNKNOWN)
		json_null(j, key);
	else
		json_bool(j, key, t == HPM_YES);
}

/* A breakpoint fact: {"fires": true|false|null, "counted", "used", "error"} */
static void json_bp(struct json *j, const char *key, const struct hpm_bp_fact *f)
{
	json_obj_open(j, key);
	json_tristate(j, "fires", f->fires);
	json_i64(j, "counted", f->counted);
	json_i64(j, "used", f->used);
	if (f->err)
		json_str(j, "error", strerror(-f->err));
	else
		json_null(j, "error");
	json_obj_close(j);
}

static void print_json(const struct hpm_sysinfo *si, const struct problems *ps)
{
	struct json j;
	char buf[32], why[160];

	json_init(&j, stdout, true);
	json_obj_open(&j, NULL);

	json_obj_open(&j, "cpu");
	json_str(&j, "arch", si->arch);
	json_str(&j, "vendor", si->cpu_vendor);
	json_str(&j, "model", si->cpu_model);
	json_fact(&j, "family", si->cpu_family);
	json_fact(&j, "model_number", si->cpu_model_nr);
	json_fact(&j, "stepping", si->cpu_stepping);
	if (si->midr) {
		snprintf(buf, sizeof(buf), "0x%016llx", (unsigned long long)si->midr);
		json_str(&j, "midr", buf);
	} else {
		json_null(&j, "midr");
	}
	json_fact(&j, "online", si->nr_cpus_online);
	json_obj_close(&j);

	json_obj_open(&j, "kernel");
	json_str(&j, "release", si->kernel_release);
	json_fact(&j, "perf_event_paranoid", si->perf_event_paranoid);
	json_fact(&j, "perf_event_max_sample_rate", si->perf_event_max_sample_rate);
	json_fact(&j, "perf_event_mlock_kb", si->perf_event_mlock_kb);
	json_fact(&j, "nmi_watchdog", si->nmi_watchdog);
	json_fact(&j, "perf_user_access", si->perf_user_access);
	json_obj_close(&j);

	json_obj_open(&j, "hypervisor");
	json_tristate(&j, "detected", si->hypervisor);
	json_str(&j, "how", si->hypervisor_how);
	json_obj_close(&j);

	json_obj_open(&j, "caller");
	json_tristate(&j, "cap_perfmon", si->cap_perfmon);
	json_tristate(&j, "cap_sys_admin", si->cap_sys_admin);
	json_bool(&j, "allow_open", si->allow_open);
	json_bool(&j, "allow_kernel", si->allow_kernel);
	json_bool(&j, "allow_cpu_wide", si->allow_cpu_wide);
	json_bool(&j, "allow_raw_tracepoint", si->allow_raw_tp);
	json_str(&j, "allows", paranoid_allows(si));
	json_obj_close(&j);

	json_obj_open(&j, "tracefs");
	if (si->tracefs[0])
		json_str(&j, "path", si->tracefs);
	else
		json_null(&j, "path");
	json_bool(&j, "readable", si->tracefs_readable);
	json_obj_close(&j);

	json_obj_open(&j, "uprobe_leftovers");
	if (si->uprobe_leftovers_err == 0 || si->uprobe_leftovers_err == -ENOENT)
		json_i64(&j, "count", (int64_t)si->nr_uprobe_leftovers);
	else
		json_null(&j, "count");
	if (si->uprobe_leftovers_err && si->uprobe_leftovers_err != -ENOENT)
		json_str(&j, "why_not_checked", si->uprobe_leftovers_err == -EACCES
			 ? "only root may read uprobe_events" : strerror(-si->uprobe_leftovers_err));
	else
		json_null(&j, "why_not_checked");
	json_arr_open(&j, "probes");
	for (size_t i = 0; i < leftovers_listed(si); i++) {
		const struct hpm_uprobe_leftover *l = &si->uprobe_leftovers[i];
		char cmd[512];
		leftover_remove_cmd(si, l, cmd, sizeof(cmd));
		json_obj_open(&j, NULL);
		json_str(&j, "probe", l->probe);
		json_i64(&j, "pid", l->pid);
		json_str(&j, "target", l->target);
		json_str(&j, "remove", cmd);
		json_obj_close(&j);
	}
	json_arr_close(&j);
	json_obj_close(&j);

	json_obj_open(&j, "breakpoints");
	json_bp(&j, "code", &si->bp_exec);
	json_bp(&j, "data", &si->bp_data);
	json_obj_close(&j);

	json_obj_open(&j, "samples");
	json_tristate(&j, "user_stacks", si->stack_user);
	json_tristate(&j, "kernel_chains", si->kernel_chains);
	if (si->samples_err)
		json_str(&j, "error", si->samples_err == -ENODATA ? "no sample taken"
								  : strerror(-si->samples_err));
	else
		json_null(&j, "error");
	json_obj_close(&j);
	json_obj_open(&j, "uprobes");
	json_str(&j, "uprobe_events", si->uprobe_events[0] ? si->uprobe_events : NULL);
	json_obj_close(&j);
	json_obj_open(&j, "vdso");
	json_fact(&j, "functions", si->vdso_functions);
	json_obj_close(&j);

	json_obj_open(&j, "rdpmc");
	json_tristate(&j, "available", si->rdpmc);
	json_fact(&j, "sysfs", si->rdpmc_sysfs);
	if (si->rdpmc == HPM_NO)
		json_str(&j, "why_not", rdpmc_why(si, why, sizeof(why)));
	else
		json_null(&j, "why_not");
	json_obj_close(&j);

	json_arr_open(&j, "pmus");
	for (size_t i = 0; i < si->nr_pmus; i++) {
		const struct hpm_pmu_info *p = &si->pmus[i];
		json_obj_open(&j, NULL);
		json_str(&j, "name", p->name);
		json_i64(&j, "type", p->type);
		json_bool(&j, "core", p->core);
		json_str(&j, "cpus", p->cpus);
		json_str(&j, "caps_pmu_name", p->caps_name);
		json_i64(&j, "aliases", p->nr_aliases);
		json_fact(&j, "general_counters", p->nr_general);
		json_fact(&j, "fixed_counters", p->nr_fixed);
		json_str(&j, "source", hpm_counters_source__str(p->source));
		if (p->probe_err)
			json_str(&j, "probe_error", strerror(-p->probe_err));
		json_obj_close(&j);
	}
	json_arr_close(&j);

	json_arr_open(&j, "problems");
	for (size_t i = 0; i < ps->nr; i++) {
		json_obj_open(&j, NULL);
		json_str(&j, "problem", ps->p[i].what);
		json_str(&j, "fix", ps->p[i].fix);
		json_obj_close(&j);
	}
	json_arr_close(&j);
	json_obj_close(&j);
	json_end(&j);
}

static int parse_args(int argc, char **argv, struct diag_opts *o)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--json")) {
			o->json = true;
		} else if (!strcmp(a, "--no-probe")) {
			o->probe = false;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 1;
		} else {
			advice_usage("diag", "%s '%s'",
				     a[0] == '-' ? "unknown option" : "unexpected argument", a);
			return -1;
		}
	}
	return 0;
}

/* Facts from the running machine only when the roots are the real ones. */
static bool live_machine(const struct hpm_ctx *ctx)
{
	return !strcmp(hpm_ctx__sysfs_root(ctx), "/sys") &&
	       !strcmp(hpm_ctx__procfs_root(ctx), "/proc");
}

int cmd_diag(int argc, char **argv, struct hpm_ctx *ctx)
{
	struct diag_opts o = { .probe = true };
	struct problems ps = { .nr = 0 };
	int rc = parse_args(argc, argv, &o);

	if (rc)
		return rc > 0 ? HPM_EXIT_OK : HPM_EXIT_USAGE;

	struct hpm_sysinfo_opts so = { .sz = sizeof(so) };
	if (live_machine(ctx)) {
		so.flags = HPM_SYSINFO_LIVE;
		if (o.probe)
			so.flags |= HPM_SYSINFO_PROBE_RDPMC | HPM_SYSINFO_PROBE_COUNTERS |
				    HPM_SYSINFO_PROBE_BREAKPOINTS | HPM_SYSINFO_PROBE_SAMPLES;
	}
	struct hpm_sysinfo *si = hpm_sysinfo__read(ctx, &so);
	if (!si) {
		fprintf(stderr, "hpmon diag: %s\n", strerror(errno));
		return HPM_EXIT_FAIL;
	}
	judge_access(si, &ps);
	judge_pmu(si, &ps);
	judge_tracefs(si, &ps);
	judge_uprobes(si, &ps);
	judge_breakpoints(si, &ps);
	judge_samples(si, &ps);
	if (o.json)
		print_json(si, &ps);
	else
		print_text(si, &ps);
	hpm_sysinfo__free(si);
	return HPM_EXIT_OK;
}
