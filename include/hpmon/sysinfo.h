/* SPDX-License-Identifier: MIT */
/*
 * What this machine allows for performance monitoring: CPU, kernel, the
 * perf_event sysctls, the caller's capabilities, tracefs, rdpmc and every
 * PMU with its counters. `hpmon diag` prints these facts and the fixes for
 * what is missing.
 *
 * Facts come from files under the context's roots (procfs, sysfs,
 * tracefs), so a test can read a recorded tree of another machine. A few
 * facts can only be learnt by asking the running machine (CPUID, opening
 * a counter); those are gathered only when the caller's flags allow it.
 *
 * Ownership: hpm_sysinfo__read returns facts the caller owns and frees
 * with hpm_sysinfo__free; they do not refer to the context, which may go
 * first. hpm_sysinfo__probe borrows its attribute for the call only.
 */
#ifndef HPMON_SYSINFO_H
#define HPMON_SYSINFO_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>
#include <hpmon/hpmon.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An integer fact that could not be read. */
#define HPM_SYSINFO_UNKNOWN INT32_MIN

enum hpm_tristate { HPM_UNKNOWN = -1, HPM_NO = 0, HPM_YES = 1 };

/*
 * Hardware breakpoints, as measured on this host: a breakpoint of the
 * kind on a known place of the library's own (a function it calls, a
 * variable it writes), the place used a few times, the count read. Some
 * hosts open breakpoints and never count them (perf's mem:ADDR:x counts 0
 * there too); hpmon then counts exec: events with uprobes and refuses
 * mem: events and ':bp', saying why.
 */
enum hpm_bp_kind { HPM_BP_EXEC, HPM_BP_DATA };
struct hpm_bp_fact {
	enum hpm_tristate fires;  /* YES: every use counted; NO: opened, and
				     counted fewer; UNKNOWN: not measured or
				     could not be opened (err) */
	int err;                  /* 0, or -errno of the breakpoint's open */
	unsigned counted, used;   /* what the probe counted of its uses */
};

/* Where a PMU's counter count came from. */
enum hpm_counters_source {
	HPM_COUNTERS_NONE,    /* not a counting PMU (software, tracepoint ...) */
	HPM_COUNTERS_UNKNOWN, /* a counting PMU, but nothing said how many */
	HPM_COUNTERS_CAPS,    /* sysfs caps/ of the PMU */
	HPM_COUNTERS_CPUID,   /* x86 CPUID leaf 0xa of the running CPU */
	HPM_COUNTERS_PROBED,  /* opened counters until one more did not fit */
};

/* "none", "unknown", "caps", "cpuid", "probed". */
HPM_API const char *hpm_counters_source__str(enum hpm_counters_source s);

struct hpm_pmu_info {
	char name[64];        /* sysfs name: "cpu", "armv8_pmuv3_0", "msr" */
	int type;             /* perf_event_attr.type, -1 if unreadable */
	bool core;            /* counts the CPUs' own events */
	char cpus[64];        /* core PMU's "cpus" file ("0-3"), or "" */
	char caps_name[32];   /* caps/pmu_name ("skylake"), or "" */
	int max_precise;      /* caps/max_precise, or HPM_SYSINFO_UNKNOWN */
	int nr_aliases;       /* files in events/ (excluding .scale/.unit) */
	/* General-purpose counters, and fixed ones (x86 fixed counters, the
	 * arm cycle counter); HPM_SYSINFO_UNKNOWN when not known. */
	int nr_general;
	int nr_fixed;
	enum hpm_counters_source source;
	int probe_err;        /* 0, or -errno: why the probe could not run */
};

/*
 * The facts. Allocated by hpm_sysinfo__read and owned by the caller, who
 * frees it with hpm_sysinfo__free. Fields are only ever appended: never
 * allocate, embed or copy this struct yourself.
 */
struct hpm_sysinfo {
	/* CPU */
	char arch[16];          /* "x86_64", "aarch64"; "" unknown */
	char cpu_vendor[32];    /* "GenuineIntel", "AuthenticAMD", "ARM" ... */
	char cpu_model[128];    /* "Intel(R) Xeon(R) ...", "Neoverse N1" ... */
	int cpu_family, cpu_model_nr, cpu_stepping; /* x86, else UNKNOWN */
	uint64_t midr;          /* arm64 MIDR_EL1, 0 when unknown */
	int nr_cpus_online;     /* UNKNOWN when unreadable */

	/* Kernel */
	char kernel_release[64]; /* "6.18.0" (procfs sys/kernel/osrelease) */
	enum hpm_tristate hypervisor; /* running under a hypervisor */
	char hypervisor_how[48]; /* how it was detected, or its name */
	int perf_event_paranoid;        /* UNKNOWN: no perf_event support */
	int perf_event_max_sample_rate; /* Hz */
	int perf_event_mlock_kb;        /* per-user ring-buffer allowance */
	int nmi_watchdog;               /* 0/1; UNKNOWN when absent */
	int perf_user_access;           /* arm64 user counter access; UNKNOWN
					   when the sysctl does not exist */

	/* The caller */
	enum hpm_tristate cap_perfmon;   /* CAP_PERFMON effective */
	enum hpm_tristate cap_sys_admin; /* CAP_SYS_ADMIN effective */
	/* What perf_event_paranoid and the capabilities allow the caller.
	 * An unknown paranoid level is taken as the kernel default, 2. */
	bool allow_open;       /* perf_event_open at all (paranoid <= 2) */
	bool allow_kernel;     /* counting kernel mode (paranoid <= 1) */
	bool allow_cpu_wide;   /* counting CPUs system-wide (paranoid <= 0) */
	bool allow_raw_tp;     /* raw tracepoint data (paranoid <= -1) */

	/* Tracepoints */
	char tracefs[256];     /* tracefs root, or "" when none is mounted */
	bool tracefs_readable; /* its events/ directory can be listed */

	/* Reading counters from user space */
	int rdpmc_sysfs;           /* x86 cpu/rdpmc: 0 off, 1 own, 2 any;
				      UNKNOWN when absent */
	enum hpm_tristate rdpmc;   /* cap_user_rdpmc of a probe event;
				      UNKNOWN unless HPM_SYSINFO_PROBE_RDPMC */
	int rdpmc_err;             /* 0, or -errno of the probe event */

	/* PMUs, core PMUs first, then by name. */
	size_t nr_pmus;
	struct hpm_pmu_info *pmus;
	int nr_core_pmus;

	/* Uprobes a hpmon that no longer runs left in tracefs (killed with
	 * SIGKILL, it could not remove them; each keeps its file's
	 * filesystem busy). The next hpmon that defines uprobes removes
	 * them. */
	size_t nr_uprobe_leftovers;  /* how many there are */
	struct hpm_uprobe_leftover {
		char probe[64];      /* "hpmon_PID/EVENT": "-:" and this removes it */
		char target[256];    /* "PATH:0xOFFSET" as uprobe_events shows it */
		int pid;             /* the hpmon that defined it */
	} uprobe_leftovers[16];      /* the first 16 of them */
	char uprobe_events[256];     /* the tracefs file they are in, or "" */
	int uprobe_leftovers_err;    /* 0, or -errno: why they could not be
					listed (-EACCES: only root may) */

	/* Hardware breakpoints: whether they fire here (measured only with
	 * HPM_SYSINFO_PROBE_BREAKPOINTS; fires is UNKNOWN otherwise). */
	struct hpm_bp_fact bp_exec;  /* on code (exec:, mem:ADDR:x) */
	struct hpm_bp_fact bp_data;  /* on data (mem:ADDR:r/w/rw) */

	/* What samples carry here (HPM_SYSINFO_PROBE_SAMPLES; UNKNOWN
	 * otherwise, or with samples_err when sampling could not open). */
	enum hpm_tristate stack_user;    /* user stacks copied (DWARF call
					    graphs, record --call-graph dwarf) */
	enum hpm_tristate kernel_chains; /* kernel frames in call chains */
	int samples_err;                 /* 0, or -errno of the sampling event */
	/* Function symbols in the vdso's own symbol table (LIVE only; a vdso
	 * without them is named [vdso] alone in reports, as perf names it);
	 * UNKNOWN when there is no vdso or it cannot be read. */
	int vdso_functions;
};

/*
 * HPM_SYSINFO_LIVE: the context describes the running machine, so facts
 * that no file holds may be asked of it (uname, capget, CPUID, sysconf).
 * Leave it out when the roots point at a recorded tree.
 * HPM_SYSINFO_PROBE_RDPMC: open one hardware event on the calling thread
 * and map its first page to see whether rdpmc works (implies LIVE).
 * HPM_SYSINFO_PROBE_COUNTERS: count each core PMU's counters by opening
 * groups of events on the calling thread until one does not fit, when
 * caps/ does not say (implies LIVE).
 */
#define HPM_SYSINFO_LIVE 0x1u
#define HPM_SYSINFO_PROBE_RDPMC 0x2u
#define HPM_SYSINFO_PROBE_COUNTERS 0x4u
/* HPM_SYSINFO_PROBE_BREAKPOINTS: put a breakpoint on code and one on data
 * of the library's own, use each a few times and read what they counted
 * (bp_exec, bp_data; implies LIVE). */
#define HPM_SYSINFO_PROBE_BREAKPOINTS 0x8u
/* HPM_SYSINFO_PROBE_SAMPLES: sample the calling thread (cpu-clock, 1 ms)
 * while it makes system calls, asking for call chains and user stacks,
 * and look at what the samples hold (stack_user, kernel_chains; implies
 * LIVE). About 30 ms of the thread's CPU time. */
#define HPM_SYSINFO_PROBE_SAMPLES 0x10u

struct hpm_sysinfo_opts {
	size_t sz;      /* sizeof(struct hpm_sysinfo_opts) */
	unsigned flags; /* HPM_SYSINFO_* */
};

/*
 * Gather the facts. A fact that cannot be read is left UNKNOWN (or "")
 * rather than failing the call. NULL and errno set only when memory runs
 * out or the options are malformed. @opts may be NULL (no flags).
 */
HPM_API struct hpm_sysinfo *hpm_sysinfo__read(struct hpm_ctx *ctx,
					      const struct hpm_sysinfo_opts *opts);
/* Accepts NULL. */
HPM_API void hpm_sysinfo__free(struct hpm_sysinfo *si);

/* The PMU called @name, or NULL. */
HPM_API const struct hpm_pmu_info *
hpm_sysinfo__pmu(const struct hpm_sysinfo *si, const char *name);

/*
 * Whether hardware breakpoints of @kind fire on the running machine, as
 * the context measured them (once, at the first need; the library asks
 * the same before it puts an exec: event on a breakpoint). Never fails:
 * what could not be measured is UNKNOWN with its err.
 */
HPM_API struct hpm_bp_fact hpm_sysinfo__breakpoints(const struct hpm_ctx *ctx,
						    enum hpm_bp_kind kind);

/*
 * hpm_sysinfo__probe flags. HPM_PROBE_USER_ONLY: count user mode only
 * (exclude_kernel and exclude_hv set), as when perf_event_paranoid
 * forbids kernel mode. HPM_PROBE_FALLBACK_USER: when the kernel refuses
 * kernel mode (EACCES), try once more user mode only.
 */
#define HPM_PROBE_USER_ONLY 0x1u
#define HPM_PROBE_FALLBACK_USER 0x2u

/*
 * Whether the running machine opens @attr for @pid on @cpu (as
 * perf_event_open(2) takes them, without a group): the event is opened
 * and closed at once. @attr itself is not changed. 0 when it opened, else
 * the -errno of the last attempt (-EINVAL for unknown @flags).
 * *@user_only (may be NULL) says whether the last attempt counted user
 * mode only.
 */
HPM_API int hpm_sysinfo__probe(const struct perf_event_attr *attr, pid_t pid, int cpu,
			       unsigned flags, bool *user_only);

#ifdef __cplusplus
}
#endif
#endif
