/* SPDX-License-Identifier: MIT */
/*
 * Resolution of event specifications against recorded sysfs trees
 * (tests/data/sysfs-*, see tests/data/README.md): one row per spec, with
 * the perf_event_attr fields it must produce or the error it must fail
 * with. Every field a row leaves out is expected to be zero, so a row also
 * says what must NOT be set (no stray config1, no exclusion bits ...).
 * Exclusions: as perf, every event counts the host only (exclude_guest)
 * unless its spec says H or G, or has modifiers of its own without u or
 * p (perf 6.1 starts those from exclude_guest 0: cycles:k counts the
 * guest too); rows that do say .gh = 1 and give all their exclusion bits.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <cmocka.h>
#include <linux/hw_breakpoint.h>

#include <hpmon/event.h>

#define SKL "sysfs-intel-skl"
#define ADL "sysfs-intel-adl"
#define ZEN3 "sysfs-amd-zen3"
#define N1 "sysfs-arm-n1"
#define VM "sysfs-x86-vm-nopmu"

static const char *const all_trees[] = { SKL, ADL, ZEN3, N1, VM };
#define NR_TREES (sizeof(all_trees) / sizeof(all_trees[0]))

/* Exclusion bits of a row. */
#define X_U 0x01u
#define X_K 0x02u
#define X_HV 0x04u
#define X_HOST 0x08u
#define X_GUEST 0x10u

/* kind is stored +1 so that 0 means "not checked" */
#define KIND(k) ((k) + 1)

#define RAPL_SCALE 2.3283064365386962890625e-10
#define IMC_SCALE 6.103515625e-5

struct row {
	int line;
	const char *tree;     /* NULL in the generic table: every tree */
	const char *spec;
	int err;              /* 0 or -HPM_ERR_* */
	int err_alt;          /* a second acceptable error, or 0 */
	const char *suggest;  /* substring of err.suggest on failure */
	size_t count;         /* events in the list; 0 means 1 */
	size_t idx;           /* which event the fields below describe */
	size_t leader;
	uint32_t type;
	uint64_t config, config1, config2;
	unsigned excl;        /* X_* bits that must be set, all others clear */
	unsigned precise;
	uint64_t period;      /* sample_period, or sample_freq with .freq */
	int freq;
	uint32_t bp_type;
	uint64_t bp_addr, bp_len;
	int pinned;
	const char *name;     /* hpm_event__name, NULL: not checked */
	const char *pmu;      /* hpm_event__pmu, NULL: not checked */
	const char *unit;     /* NULL means "" */
	double scale;         /* 0 means 1.0 */
	int kind;             /* KIND(HPM_EV_*), 0: not checked */
	int gh;               /* .excl is exact, X_GUEST included */
	const char *cpus;     /* hpm_event__cpus, NULL: not checked */
	size_t merge;         /* MERGE(i): hpm_event__merge_leader is i;
				 0: the event's own index */
	const char *merged;   /* hpm_event__merged_name, NULL: not checked */
};

#define MERGE(i) ((i) + 1)

#define L .line = __LINE__

/*
 * Rows that mean the same on every machine: generic events, tracepoints,
 * breakpoints, modifiers, groups and syntax errors. Run against every tree.
 */
static const struct row generic_rows[] = {
	/* generic hardware events */
	{ L, .spec = "cycles", .type = PERF_TYPE_HARDWARE, .config = PERF_COUNT_HW_CPU_CYCLES,
	  .name = "cycles", .kind = KIND(HPM_EV_GENERIC_HW) },
	{ L, .spec = "cpu-cycles", .config = PERF_COUNT_HW_CPU_CYCLES },
	{ L, .spec = "instructions", .config = PERF_COUNT_HW_INSTRUCTIONS },
	{ L, .spec = "cache-references", .config = PERF_COUNT_HW_CACHE_REFERENCES },
	{ L, .spec = "cache-misses", .config = PERF_COUNT_HW_CACHE_MISSES },
	{ L, .spec = "branches", .config = PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ L, .spec = "branch-instructions", .config = PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ L, .spec = "branch-misses", .config = PERF_COUNT_HW_BRANCH_MISSES },
	{ L, .spec = "bus-cycles", .config = PERF_COUNT_HW_BUS_CYCLES },
	{ L, .spec = "stalled-cycles-frontend", .config = PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ L, .spec = "idle-cycles-backend", .config = PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ L, .spec = "ref-cycles", .config = PERF_COUNT_HW_REF_CPU_CYCLES },

	/* generic cache events: unit | op << 8 | result << 16 */
	{ L, .spec = "L1-dcache-loads", .type = PERF_TYPE_HW_CACHE, .config = 0x00000,
	  .kind = KIND(HPM_EV_GENERIC_CACHE) },
	{ L, .spec = "L1-dcache-load-misses", .type = PERF_TYPE_HW_CACHE, .config = 0x10000 },
	{ L, .spec = "l1-dcache-load-misses", .type = PERF_TYPE_HW_CACHE, .config = 0x10000 },
	{ L, .spec = "L1-dcache-misses", .type = PERF_TYPE_HW_CACHE, .config = 0x10000 },
	{ L, .spec = "L1-dcache-stores", .type = PERF_TYPE_HW_CACHE, .config = 0x00100 },
	{ L, .spec = "L1-dcache-prefetch-misses", .type = PERF_TYPE_HW_CACHE, .config = 0x10200 },
	{ L, .spec = "L1-icache-load-misses", .type = PERF_TYPE_HW_CACHE, .config = 0x10001 },
	{ L, .spec = "LLC-loads", .type = PERF_TYPE_HW_CACHE, .config = 0x00002 },
	{ L, .spec = "LLC-load-misses", .type = PERF_TYPE_HW_CACHE, .config = 0x10002 },
	{ L, .spec = "LLC-store-misses", .type = PERF_TYPE_HW_CACHE, .config = 0x10102 },
	{ L, .spec = "dTLB-load-misses", .type = PERF_TYPE_HW_CACHE, .config = 0x10003 },
	{ L, .spec = "iTLB-load-misses", .type = PERF_TYPE_HW_CACHE, .config = 0x10004 },
	{ L, .spec = "branch-load-misses", .type = PERF_TYPE_HW_CACHE, .config = 0x10005 },
	{ L, .spec = "node-loads", .type = PERF_TYPE_HW_CACHE, .config = 0x00006 },
	{ L, .spec = "L1-dcache-load-mises", .err = -HPM_ERR_UNKNOWN_EVENT },

	/* software events */
	{ L, .spec = "cpu-clock", .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_CPU_CLOCK,
	  .pmu = "software", .kind = KIND(HPM_EV_SOFTWARE) },
	{ L, .spec = "task-clock", .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_TASK_CLOCK },
	{ L, .spec = "page-faults", .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_PAGE_FAULTS },
	{ L, .spec = "faults", .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_PAGE_FAULTS },
	{ L, .spec = "context-switches", .type = PERF_TYPE_SOFTWARE,
	  .config = PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ L, .spec = "cs", .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ L, .spec = "cpu-migrations", .type = PERF_TYPE_SOFTWARE,
	  .config = PERF_COUNT_SW_CPU_MIGRATIONS },
	{ L, .spec = "minor-faults", .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ L, .spec = "major-faults", .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ L, .spec = "alignment-faults", .type = PERF_TYPE_SOFTWARE,
	  .config = PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ L, .spec = "emulation-faults", .type = PERF_TYPE_SOFTWARE,
	  .config = PERF_COUNT_SW_EMULATION_FAULTS },
	{ L, .spec = "dummy", .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_DUMMY },
	{ L, .spec = "bpf-output", .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_BPF_OUTPUT },

	/* modifiers: u/k/h keep what they name and exclude the rest */
	{ L, .spec = "cycles:u", .excl = X_K | X_HV, .name = "cycles:u" },
	{ L, .gh = 1, .spec = "cycles:k", .excl = X_U | X_HV },
	{ L, .gh = 1, .spec = "cycles:h", .excl = X_U | X_K },
	{ L, .spec = "cycles:uk", .excl = X_HV },
	{ L, .spec = "cycles:ku", .excl = X_HV },
	{ L, .spec = "cycles:ukh" },
	{ L, .spec = "instructions:H", .config = 1, .excl = X_GUEST, .gh = 1 },
	{ L, .spec = "instructions:G", .config = 1, .excl = X_HOST, .gh = 1 },
	{ L, .spec = "instructions:GH", .config = 1, .gh = 1 },
	{ L, .spec = "instructions:uG", .config = 1, .excl = X_K | X_HV | X_HOST, .gh = 1 },
	{ L, .spec = "cycles:p", .precise = 1 },
	{ L, .spec = "cycles:pp", .precise = 2 },
	{ L, .spec = "cycles:ppp", .precise = 3 },
	{ L, .spec = "cycles:upp", .excl = X_K | X_HV, .precise = 2 },
	{ L, .spec = "cycles:ppk", .excl = X_U | X_HV, .precise = 2 },
	{ L, .gh = 1, .spec = "cycles:D", .pinned = 1 },
	{ L, .spec = "task-clock:u", .type = PERF_TYPE_SOFTWARE, .config = 1, .excl = X_K | X_HV },
	{ L, .gh = 1, .spec = "L1-dcache-load-misses:k", .type = PERF_TYPE_HW_CACHE,
	  .config = 0x10000,
	  .excl = X_U | X_HV },
	{ L, .spec = "cycles:pppp", .err = -HPM_ERR_BAD_MODIFIER },
	{ L, .spec = "cycles:q", .err = -HPM_ERR_BAD_MODIFIER },
	{ L, .spec = "cycles:uq", .err = -HPM_ERR_BAD_MODIFIER },
	{ L, .spec = "cycles:uu", .err = -HPM_ERR_BAD_MODIFIER },
	{ L, .spec = "cycles:", .err = -HPM_ERR_BAD_MODIFIER, .err_alt = -HPM_ERR_SYNTAX },

	/* tracepoints, from tests/data/tracefs */
	{ L, .spec = "sched:sched_switch", .type = PERF_TYPE_TRACEPOINT, .config = 372,
	  .period = 1, .pmu = "tracepoint", .kind = KIND(HPM_EV_TRACEPOINT) },
	{ L, .spec = "syscalls:sys_enter_openat", .type = PERF_TYPE_TRACEPOINT, .config = 782,
	  .period = 1 },
	{ L, .spec = "raw_syscalls:sys_exit", .type = PERF_TYPE_TRACEPOINT, .config = 442,
	  .period = 1 },
	/* named as perf names it: SUBSYS:NAME, without the modifiers */
	{ L, .gh = 1, .spec = "sched:sched_switch:k", .type = PERF_TYPE_TRACEPOINT, .config = 372,
	  .period = 1, .excl = X_U | X_HV, .name = "sched:sched_switch" },
	{ L, .spec = "sched:sched_switch:u", .type = PERF_TYPE_TRACEPOINT, .config = 372,
	  .period = 1, .excl = X_K | X_HV, .name = "sched:sched_switch" },
	{ L, .spec = "sched:sched_switch", .type = PERF_TYPE_TRACEPOINT, .config = 372,
	  .period = 1, .name = "sched:sched_switch" },
	{ L, .spec = "sched:no_such_event", .err = -HPM_ERR_UNKNOWN_EVENT },
	{ L, .spec = "nosuchsys:sched_switch", .err = -HPM_ERR_UNKNOWN_EVENT },
	{ L, .spec = "sched:../sched_switch", .err = -HPM_ERR_UNKNOWN_EVENT,
	  .err_alt = -HPM_ERR_SYNTAX },

	/* hardware breakpoints: mem:ADDR[/LEN][:ACCESS] */
	{ L, .spec = "mem:0x1000:x", .type = PERF_TYPE_BREAKPOINT, .bp_type = HW_BREAKPOINT_X,
	  .bp_addr = 0x1000, .bp_len = sizeof(long), .period = 1, .pmu = "breakpoint",
	  .kind = KIND(HPM_EV_BREAKPOINT) },
	{ L, .spec = "mem:0x2000/4:rw", .type = PERF_TYPE_BREAKPOINT,
	  .bp_type = HW_BREAKPOINT_R | HW_BREAKPOINT_W, .bp_addr = 0x2000, .bp_len = 4, .period = 1 },
	{ L, .spec = "mem:0x2000/8:w", .type = PERF_TYPE_BREAKPOINT, .bp_type = HW_BREAKPOINT_W,
	  .bp_addr = 0x2000, .bp_len = 8, .period = 1 },
	{ L, .spec = "mem:0x3000:r", .type = PERF_TYPE_BREAKPOINT, .bp_type = HW_BREAKPOINT_R,
	  .bp_addr = 0x3000, .bp_len = 4, .period = 1 },
	{ L, .spec = "mem:4096", .type = PERF_TYPE_BREAKPOINT,
	  .bp_type = HW_BREAKPOINT_R | HW_BREAKPOINT_W, .bp_addr = 0x1000, .bp_len = 4, .period = 1 },
	{ L, .spec = "mem:0x1000:x:u", .type = PERF_TYPE_BREAKPOINT, .bp_type = HW_BREAKPOINT_X,
	  .bp_addr = 0x1000, .bp_len = sizeof(long), .period = 1, .excl = X_K | X_HV },
	{ L, .spec = "mem:0x1000/3:w", .err = -HPM_ERR_BAD_VALUE },
	{ L, .spec = "mem:0x1000:q", .err = -HPM_ERR_BAD_MODIFIER, .err_alt = -HPM_ERR_SYNTAX },
	{ L, .spec = "mem:0x1000:rx", .err = -HPM_ERR_BAD_MODIFIER, .err_alt = -HPM_ERR_SYNTAX },
	{ L, .spec = "mem:zz", .err = -HPM_ERR_BAD_VALUE, .err_alt = -HPM_ERR_SYNTAX },

	/* groups: leader indices, group modifiers add to every member's own
	 * (test-perf-syntax.c holds perf's cases of widening and of :D/:e) */
	{ L, .spec = "{cycles,instructions}", .count = 2, .idx = 1, .leader = 0,
	  .config = PERF_COUNT_HW_INSTRUCTIONS },
	{ L, .spec = "{cycles,instructions}:u", .count = 2, .idx = 1, .leader = 0,
	  .config = PERF_COUNT_HW_INSTRUCTIONS, .excl = X_K | X_HV },
	{ L, .spec = "{cycles,instructions}:u", .count = 2, .idx = 0, .leader = 0,
	  .excl = X_K | X_HV },
	{ L, .spec = "cycles,{instructions,branches}", .count = 3, .idx = 2, .leader = 1,
	  .config = PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ L, .spec = "cycles,{instructions,branches}", .count = 3, .idx = 1, .leader = 1,
	  .config = PERF_COUNT_HW_INSTRUCTIONS },
	{ L, .spec = "{cycles,instructions},{branches,branch-misses}", .count = 4, .idx = 3,
	  .leader = 2, .config = PERF_COUNT_HW_BRANCH_MISSES },
	{ L, .spec = "{cycles}", .count = 1 },
	{ L, .spec = "cycles,instructions", .count = 2, .idx = 1, .leader = 1,
	  .config = PERF_COUNT_HW_INSTRUCTIONS },
	{ L, .gh = 1, .spec = "cycles:u,instructions:k", .count = 2, .idx = 1, .leader = 1,
	  .config = PERF_COUNT_HW_INSTRUCTIONS, .excl = X_U | X_HV },
	{ L, .spec = "{cycles:u,task-clock}", .count = 2, .idx = 1, .leader = 0,
	  .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_TASK_CLOCK },
	{ L, .spec = "{task-clock,sched:sched_switch,mem:0x1000:x}", .count = 3, .idx = 2,
	  .leader = 0, .type = PERF_TYPE_BREAKPOINT, .bp_type = HW_BREAKPOINT_X, .bp_addr = 0x1000,
	  .bp_len = sizeof(long), .period = 1 },

	/* syntax errors */
	{ L, .spec = "", .err = -HPM_ERR_SYNTAX },
	{ L, .spec = " ", .err = -HPM_ERR_SYNTAX },
	{ L, .spec = ",", .err = -HPM_ERR_SYNTAX },
	{ L, .spec = "cycles,", .err = -HPM_ERR_SYNTAX },
	{ L, .spec = ",cycles", .err = -HPM_ERR_SYNTAX },
	{ L, .spec = "cycles,,instructions", .err = -HPM_ERR_SYNTAX },
	{ L, .spec = "{cycles,instructions", .err = -HPM_ERR_SYNTAX },
	{ L, .spec = "cycles,instructions}", .err = -HPM_ERR_SYNTAX },
	{ L, .spec = "{}", .err = -HPM_ERR_SYNTAX },
	{ L, .spec = "{cycles,}", .err = -HPM_ERR_SYNTAX },
	{ L, .spec = "{{cycles}}", .err = -HPM_ERR_SYNTAX },
	{ L, .spec = "{cycles}{instructions}", .err = -HPM_ERR_SYNTAX },
	{ L, .spec = "cycles instructions", .err = -HPM_ERR_SYNTAX,
	  .err_alt = -HPM_ERR_UNKNOWN_EVENT },

	/* unknown events come with the close names */
	{ L, .spec = "cyclez", .err = -HPM_ERR_UNKNOWN_EVENT, .suggest = "cycles" },
	{ L, .spec = "instrucions", .err = -HPM_ERR_UNKNOWN_EVENT, .suggest = "instructions" },
	{ L, .spec = "task-clok", .err = -HPM_ERR_UNKNOWN_EVENT, .suggest = "task-clock" },
	{ L, .spec = "cyclez:u", .err = -HPM_ERR_UNKNOWN_EVENT, .suggest = "cycles" },
	{ L, .spec = "{cycles,instrucions}", .err = -HPM_ERR_UNKNOWN_EVENT,
	  .suggest = "instructions" },
	{ L, .spec = "nosuchpmu/event=1/", .err = -HPM_ERR_UNKNOWN_PMU },
};

/* Rows for one machine each. */
static const struct row tree_rows[] = {
	/* ---- Skylake ---- */
	{ L, SKL, "cpu/event=0x3c,umask=0x0/", .type = PERF_TYPE_RAW, .config = 0x3c, .pmu = "cpu",
	  .kind = KIND(HPM_EV_PMU), .name = "cpu/event=0x3c,umask=0x0/" },
	{ L, SKL, "cpu/event=0xc0,umask=0x01/", .type = 4, .config = 0x1c0 },
	{ L, SKL, "cpu/event=0x3c,umask=0x0/u", .type = 4, .config = 0x3c, .excl = X_K | X_HV },
	{ L, SKL, "cpu/event=0x3c,umask=0x0/:k", .type = 4, .config = 0x3c, .excl = X_U | X_HV,
	  .gh = 1 },
	{ L, SKL, "cpu/event=0x3c/ppp", .type = 4, .config = 0x3c, .precise = 3 },
	{ L, SKL, "cpu/event=0x3c,edge/", .type = 4, .config = 0x4003c },
	{ L, SKL, "cpu/event=0xc0,inv,cmask=1/", .type = 4, .config = 0x18000c0 },
	{ L, SKL, "cpu/event=0x3c,any=1/", .type = 4, .config = 0x20003c },
	{ L, SKL, "cpu/config=0x5300c0/", .type = 4, .config = 0x5300c0 },
	/* numbers are decimal or 0x hex, as in perf: a leading 0 is not octal */
	{ L, SKL, "cpu/event=010/", .type = 4, .config = 10 },
	{ L, SKL, "cpu/event=0xb7,umask=0x1,offcore_rsp=0x3f84000001/", .type = 4,
	  .config = 0x1b7, .config1 = 0x3f84000001 },
	{ L, SKL, "cpu/event=0xc6,umask=0x1,frontend=0x400106/", .type = 4, .config = 0x1c6,
	  .config1 = 0x400106 },
	/* aliases from cpu/events/ */
	{ L, SKL, "cpu/cpu-cycles/", .type = 4, .config = 0x3c, .pmu = "cpu" },
	{ L, SKL, "cpu/instructions/", .type = 4, .config = 0xc0 },
	/* generic names as terms, as perf: the sysfs alias of the canonical name */
	{ L, SKL, "cpu/cycles/", .type = 4, .config = 0x3c, .pmu = "cpu" },
	{ L, SKL, "cpu/branches,period=1000/u", .type = 4, .config = 0xc4, .period = 1000,
	  .excl = X_K | X_HV },
	{ L, SKL, "cpu/cache-misses/", .type = 4, .config = 0x412e },
	{ L, SKL, "cpu/ref-cycles/", .type = 4, .config = 0x300 },
	{ L, SKL, "cpu/mem-loads/", .type = 4, .config = 0x1cd, .config1 = 3 },
	{ L, SKL, "cpu/mem-loads,ldlat=50/", .type = 4, .config = 0x1cd, .config1 = 50 },
	{ L, SKL, "cpu/mem-loads/pp", .type = 4, .config = 0x1cd, .config1 = 3, .precise = 2 },
	{ L, SKL, "cpu/mem-stores/", .type = 4, .config = 0x82d0 },
	{ L, SKL, "cpu/topdown-total-slots/", .type = 4, .config = 0x20003c, .scale = 2 },
	{ L, SKL, "cpu/topdown-recovery-bubbles/", .type = 4, .config = 0x120010d, .scale = 2 },
	{ L, SKL, "cpu/cpu-cycles,cmask=2/", .type = 4, .config = 0x200003c },
	{ L, SKL, "cpu/event=0xcd,umask=0x1,ldlat=3/", .type = 4, .config = 0x1cd, .config1 = 3 },
	/* terms that are not fields */
	{ L, SKL, "cpu/event=0x3c,name=mycycles/", .type = 4, .config = 0x3c, .name = "mycycles" },
	{ L, SKL, "cpu/event=0x3c,period=100000/", .type = 4, .config = 0x3c, .period = 100000 },
	{ L, SKL, "cpu/cpu-cycles,period=1000/u", .type = 4, .config = 0x3c, .period = 1000,
	  .excl = X_K | X_HV },
	{ L, SKL, "cpu/event=0x3c,freq=4000/", .type = 4, .config = 0x3c, .period = 4000,
	  .freq = 1 },
	{ L, SKL, "{cpu/event=0x3c,name=a/,cpu/event=0xc0,name=b/}", .count = 2, .idx = 1,
	  .leader = 0, .type = 4, .config = 0xc0, .name = "b" },
	/* raw */
	{ L, SKL, "r3c", .type = PERF_TYPE_RAW, .config = 0x3c, .kind = KIND(HPM_EV_RAW) },
	{ L, SKL, "r1a8", .type = PERF_TYPE_RAW, .config = 0x1a8 },
	{ L, SKL, "r5300c0", .type = PERF_TYPE_RAW, .config = 0x5300c0 },
	{ L, SKL, "rffffffffffffffff", .type = PERF_TYPE_RAW, .config = UINT64_MAX },
	{ L, SKL, "r3c:u", .type = PERF_TYPE_RAW, .config = 0x3c, .excl = X_K | X_HV },
	{ L, SKL, "r3c:pp", .type = PERF_TYPE_RAW, .config = 0x3c, .precise = 2 },
	{ L, SKL, "{r3c,rc0}", .count = 2, .idx = 1, .leader = 0, .type = PERF_TYPE_RAW,
	  .config = 0xc0 },
	{ L, SKL, "r10000000000000000", .err = -HPM_ERR_BAD_VALUE,
	  .err_alt = -HPM_ERR_UNKNOWN_EVENT },
	/* msr, power: scale and unit from sysfs */
	{ L, SKL, "msr/tsc/", .type = 10, .config = 0, .pmu = "msr" },
	{ L, SKL, "msr/aperf/", .type = 10, .config = 1 },
	{ L, SKL, "msr/smi/", .type = 10, .config = 4 },
	{ L, SKL, "msr/cpu_thermal_margin/", .type = 10, .config = 7, .unit = "C" },
	{ L, SKL, "msr/event=0xffffffffffffffff/", .type = 10, .config = UINT64_MAX },
	{ L, SKL, "tsc", .type = 10, .config = 0, .pmu = "msr" },
	{ L, SKL, "power/energy-pkg/", .type = 13, .config = 2, .pmu = "power",
	  .unit = "Joules", .scale = RAPL_SCALE },
	{ L, SKL, "power/energy-psys/", .type = 13, .config = 5, .unit = "Joules",
	  .scale = RAPL_SCALE },
	{ L, SKL, "{power/energy-pkg/,power/energy-cores/}", .count = 2, .idx = 1, .leader = 0,
	  .type = 13, .config = 1, .unit = "Joules", .scale = RAPL_SCALE },
	{ L, SKL, "energy-ram", .type = 13, .config = 3, .unit = "Joules", .scale = RAPL_SCALE },
	/* uncore */
	{ L, SKL, "uncore_imc/data_reads/", .type = 19, .config = 1, .pmu = "uncore_imc",
	  .unit = "MiB", .scale = IMC_SCALE },
	{ L, SKL, "uncore_imc/data_writes/", .type = 19, .config = 2, .unit = "MiB",
	  .scale = IMC_SCALE },
	{ L, SKL, "uncore_cbox_0/clockticks/", .type = 14, .config = 0xff,
	  .pmu = "uncore_cbox_0" },
	{ L, SKL, "uncore_cbox_3/event=0x22,umask=0x41/", .type = 17, .config = 0x4122 },
	{ L, SKL, "uncore_cbox_1/event=0x22,cmask=31/", .type = 15, .config = 0x1f000022 },
	{ L, SKL, "uncore_cbox_1/event=0x22,cmask=32/", .err = -HPM_ERR_BAD_VALUE },
	{ L, SKL, "uncore_imc/event=0x100/", .err = -HPM_ERR_BAD_VALUE },
	/* probes */
	{ L, SKL, "kprobe/retprobe/", .type = 8, .config = 1 },
	{ L, SKL, "uprobe/ref_ctr_offset=0x10/", .type = 9, .config = 0x1000000000 },
	/* errors */
	{ L, SKL, "cpu/event=0x100/", .err = -HPM_ERR_BAD_VALUE },
	{ L, SKL, "cpu/umask=0x100/", .err = -HPM_ERR_BAD_VALUE },
	{ L, SKL, "cpu/edge=2/", .err = -HPM_ERR_BAD_VALUE },
	{ L, SKL, "cpu/ldlat=0x10000,event=0xcd/", .err = -HPM_ERR_BAD_VALUE },
	{ L, SKL, "cpu/event=0xzz/", .err = -HPM_ERR_BAD_VALUE },
	{ L, SKL, "cpu/event=/", .err = -HPM_ERR_BAD_VALUE, .err_alt = -HPM_ERR_SYNTAX },
	{ L, SKL, "cpu/event=-1/", .err = -HPM_ERR_BAD_VALUE, .err_alt = -HPM_ERR_SYNTAX },
	{ L, SKL, "cpu/event=0x10000000000000000/", .err = -HPM_ERR_BAD_VALUE },
	{ L, SKL, "cpu/event=0x3c", .err = -HPM_ERR_SYNTAX },
	{ L, SKL, "cpu/event=0x3c,foo=1/", .err = -HPM_ERR_UNKNOWN_TERM },
	{ L, SKL, "cpu/evnt=0x3c/", .err = -HPM_ERR_UNKNOWN_TERM, .suggest = "event" },
	{ L, SKL, "cpu/in_tx=1/", .err = -HPM_ERR_UNKNOWN_TERM },
	{ L, SKL, "cpu/event=0x3c/q", .err = -HPM_ERR_BAD_MODIFIER },
	{ L, SKL, "cpuu/event=0x3c/", .err = -HPM_ERR_UNKNOWN_PMU, .suggest = "cpu" },
	{ L, SKL, "cpu/cpu-cyclez/", .err = -HPM_ERR_UNKNOWN_EVENT, .err_alt = -HPM_ERR_UNKNOWN_TERM,
	  .suggest = "cpu-cycles" },
	{ L, SKL, "msr/tcs/", .err = -HPM_ERR_UNKNOWN_EVENT, .err_alt = -HPM_ERR_UNKNOWN_TERM,
	  .suggest = "tsc" },
	{ L, SKL, "power/energy-pgk/", .err = -HPM_ERR_UNKNOWN_EVENT,
	  .err_alt = -HPM_ERR_UNKNOWN_TERM, .suggest = "energy-pkg" },
	{ L, SKL, "mem-lods", .err = -HPM_ERR_UNKNOWN_EVENT, .suggest = "mem-loads" },
	{ L, SKL, "msr/tsc/,cpu/event=0x3c", .err = -HPM_ERR_SYNTAX },

	/* ---- Alder Lake hybrid ---- */
	{ L, ADL, "cpu_core/event=0x3c,umask=0x0/", .type = 4, .config = 0x3c, .pmu = "cpu_core" },
	{ L, ADL, "cpu_atom/event=0x3c,umask=0x0/", .type = 10, .config = 0x3c, .pmu = "cpu_atom" },
	{ L, ADL, "cpu_core/cpu-cycles/", .type = 4, .config = 0x3c },
	{ L, ADL, "cpu_atom/instructions/u", .type = 10, .config = 0xc0, .excl = X_K | X_HV },
	{ L, ADL, "cpu_core/mem-loads/", .type = 4, .config = 0x1cd, .config1 = 3 },
	{ L, ADL, "cpu_atom/mem-loads/", .type = 10, .config = 0x5d0, .config1 = 3 },
	{ L, ADL, "cpu_core/slots/", .type = 4, .config = 0x400 },
	{ L, ADL, "cpu_core/topdown-retiring/", .type = 4, .config = 0x8000 },
	{ L, ADL, "cpu_atom/topdown-retiring/", .type = 10, .config = 0xc2 },
	{ L, ADL, "{cpu_core/slots/,cpu_core/topdown-retiring/,cpu_core/topdown-bad-spec/}",
	  .count = 3, .idx = 2, .leader = 0, .type = 4, .config = 0x8100 },
	{ L, ADL, "cpu_core/event=0xc6,frontend=0x11/", .type = 4, .config = 0xc6,
	  .config1 = 0x11 },
	{ L, ADL, "cpu_atom/event=0xc6,frontend=0x11/", .err = -HPM_ERR_UNKNOWN_TERM },
	{ L, ADL, "cpu_core/event=0x3c,any=1/", .err = -HPM_ERR_UNKNOWN_TERM },
	{ L, ADL, "cpu/event=0x3c/", .err = -HPM_ERR_UNKNOWN_PMU, .suggest = "cpu_" },
	{ L, ADL, "msr/tsc/", .type = 11, .config = 0 },
	{ L, ADL, "power/energy-gpu/", .type = 14, .config = 4, .unit = "Joules",
	  .scale = RAPL_SCALE },

	/* a generic event becomes one per core PMU, as perf opens it: the
	 * extended hardware type in config's upper half, perf's names */
	{ L, ADL, "cycles", .count = 2, .idx = 0, .type = PERF_TYPE_HARDWARE,
	  .config = 4ULL << 32, .name = "cpu_core/cycles/", .pmu = "cpu_core", .cpus = "0-15",
	  .kind = KIND(HPM_EV_GENERIC_HW) },
	{ L, ADL, "cycles", .count = 2, .idx = 1, .leader = 1, .type = PERF_TYPE_HARDWARE,
	  .config = 10ULL << 32, .name = "cpu_atom/cycles/", .pmu = "cpu_atom", .cpus = "16-23",
	  .kind = KIND(HPM_EV_GENERIC_HW) },
	{ L, ADL, "instructions:u", .count = 2, .idx = 1, .leader = 1,
	  .config = 1 | 10ULL << 32, .excl = X_K | X_HV, .name = "cpu_atom/instructions:u/" },
	{ L, ADL, "branch-misses:G", .count = 2, .idx = 0, .config = 5 | 4ULL << 32,
	  .excl = X_HOST, .gh = 1, .name = "cpu_core/branch-misses:G/" },
	{ L, ADL, "L1-dcache-load-misses", .count = 2, .idx = 0, .type = PERF_TYPE_HW_CACHE,
	  .config = 0x10000 | 4ULL << 32, .name = "cpu_core/L1-dcache-load-misses/",
	  .kind = KIND(HPM_EV_GENERIC_CACHE) },
	{ L, ADL, "L1-dcache-load-misses", .count = 2, .idx = 1, .leader = 1,
	  .type = PERF_TYPE_HW_CACHE, .config = 0x10000 | 10ULL << 32,
	  .name = "cpu_atom/L1-dcache-load-misses/" },
	/* a group becomes one group per core PMU */
	{ L, ADL, "{cycles,instructions}", .count = 4, .idx = 1, .leader = 0,
	  .config = 1 | 4ULL << 32, .name = "cpu_core/instructions/" },
	{ L, ADL, "{cycles,instructions}", .count = 4, .idx = 2, .leader = 2,
	  .config = 10ULL << 32, .name = "cpu_atom/cycles/" },
	{ L, ADL, "{cycles,instructions}:u", .count = 4, .idx = 3, .leader = 2,
	  .config = 1 | 10ULL << 32, .excl = X_K | X_HV, .name = "cpu_atom/instructions/" },
	{ L, ADL, "cycles,{instructions,branches}", .count = 6, .idx = 4, .leader = 4,
	  .config = 1 | 10ULL << 32, .name = "cpu_atom/instructions/" },
	{ L, ADL, "cycles,{instructions,branches}", .count = 6, .idx = 3, .leader = 2,
	  .config = 4 | 4ULL << 32, .name = "cpu_core/branches/" },
	/* events that are not expanded go with their own PMU's group, or the first */
	{ L, ADL, "{task-clock,cycles}", .count = 3, .idx = 1, .leader = 0,
	  .config = 4ULL << 32, .name = "cpu_core/cycles/" },
	{ L, ADL, "{task-clock,cycles}", .count = 3, .idx = 2, .leader = 2,
	  .config = 10ULL << 32, .name = "cpu_atom/cycles/" },
	{ L, ADL, "{cpu_atom/event=0x3c/,cycles}", .count = 3, .idx = 1, .leader = 1, .type = 10,
	  .config = 0x3c, .name = "cpu_atom/event=0x3c/", .cpus = "16-23" },
	{ L, ADL, "{cpu_atom/event=0x3c/,cycles}", .count = 3, .idx = 2, .leader = 1,
	  .config = 10ULL << 32, .name = "cpu_atom/cycles/" },
	/* what stays one event: PMU events, aliases alone, raw codes, presets */
	{ L, ADL, "cpu_core/cycles/", .type = 4, .config = 0x3c, .cpus = "0-15" },
	{ L, ADL, "cpu_atom/branch-misses/k", .type = 10, .config = 0xc5, .excl = X_U | X_HV,
	  .gh = 1 },
	{ L, ADL, "mem-loads", .count = 1, .kind = KIND(HPM_EV_PMU), .type = 10, .config = 0x5d0,
	  .config1 = 3 },
	{ L, ADL, "r3c", .type = PERF_TYPE_RAW, .config = 0x3c, .pmu = "cpu_core", .cpus = "0-15" },
	{ L, ADL, "PAPI_TOT_CYC", .type = PERF_TYPE_HARDWARE, .config = 4ULL << 32,
	  .pmu = "cpu_core", .name = "PAPI_TOT_CYC" },
	{ L, ADL, "task-clock", .type = PERF_TYPE_SOFTWARE, .config = 1, .cpus = "" },

	/* ---- uncore boxes: uncore_cbox is four PMUs on Skylake ---- */
	{ L, SKL, "uncore_cbox/clockticks/", .count = 4, .idx = 0, .type = 14, .config = 0xff,
	  .name = "uncore_cbox_0/clockticks/", .pmu = "uncore_cbox_0", .cpus = "0",
	  .merge = MERGE(0), .merged = "uncore_cbox/clockticks/", .kind = KIND(HPM_EV_PMU) },
	{ L, SKL, "uncore_cbox/clockticks/", .count = 4, .idx = 3, .leader = 3, .type = 17,
	  .config = 0xff, .name = "uncore_cbox_3/clockticks/", .pmu = "uncore_cbox_3",
	  .merge = MERGE(0), .merged = "uncore_cbox/clockticks/" },
	{ L, SKL, "uncore_cbox/event=0x22,umask=0x41/u", .count = 4, .idx = 2, .leader = 2,
	  .type = 16, .config = 0x4122, .excl = X_K | X_HV,
	  .name = "uncore_cbox_2/event=0x22,umask=0x41/u", .merge = MERGE(0) },
	{ L, SKL, "uncore_cbox/clockticks,name=ticks/", .count = 4, .idx = 1, .leader = 1,
	  .type = 15, .config = 0xff, .name = "ticks", .merge = MERGE(0), .merged = "ticks" },
	{ L, SKL, "cycles,uncore_cbox/clockticks/", .count = 5, .idx = 4, .leader = 4, .type = 17,
	  .config = 0xff, .merge = MERGE(1) },
	{ L, SKL, "cycles,uncore_cbox/clockticks/", .count = 5, .idx = 0, .leader = 0,
	  .merged = "cycles" },
	/* a group becomes one group per box, each merged with its first */
	{ L, SKL, "{uncore_cbox/clockticks/,uncore_cbox/event=0x22/}", .count = 8, .idx = 3,
	  .leader = 2, .type = 15, .config = 0x22, .name = "uncore_cbox_1/event=0x22/",
	  .merge = MERGE(1), .merged = "uncore_cbox/event=0x22/" },
	{ L, SKL, "{uncore_cbox/clockticks/,uncore_cbox/event=0x22/}", .count = 8, .idx = 6,
	  .leader = 6, .type = 17, .config = 0xff, .merge = MERGE(0) },
	/* one instance, or an instance named: one event, not merged */
	{ L, SKL, "uncore_cbox_2/clockticks/", .type = 16, .config = 0xff, .cpus = "0",
	  .name = "uncore_cbox_2/clockticks/", .merged = "uncore_cbox_2/clockticks/" },
	{ L, SKL, "uncore_imc/data_reads/", .type = 19, .config = 1, .unit = "MiB",
	  .scale = IMC_SCALE, .cpus = "0", .name = "uncore_imc/data_reads/" },
	{ L, SKL, "uncore_cbox/clockticks/,uncore_cbox/nosuch/", .err = -HPM_ERR_UNKNOWN_EVENT,
	  .err_alt = -HPM_ERR_UNKNOWN_TERM },
	{ L, SKL, "power/energy-pkg/", .type = 13, .config = 2, .unit = "Joules",
	  .scale = RAPL_SCALE, .cpus = "0" },
	{ L, SKL, "cycles", .config = 0, .cpus = "", .pmu = "cpu" },
	{ L, ZEN3, "amd_l3/event=0x4/", .type = 16, .config = 4, .cpus = "0,8" },

	/* ---- Zen 3 ---- */
	{ L, ZEN3, "cpu/event=0x76/", .type = 4, .config = 0x76 },
	{ L, ZEN3, "cpu/event=0xc0,umask=0x0/k", .type = 4, .config = 0xc0, .excl = X_U | X_HV,
	  .gh = 1 },
	/* event is config:0-7,32-35: bits above 7 go to 32-35 */
	{ L, ZEN3, "cpu/event=0x1d0/", .type = 4, .config = 0x1000000d0 },
	{ L, ZEN3, "cpu/event=0x1ae,umask=0x2/", .type = 4, .config = 0x1000002ae },
	{ L, ZEN3, "cpu/event=0xfff,umask=0xff,cmask=0xff,inv,edge/", .type = 4,
	  .config = 0xfff84ffffull },
	{ L, ZEN3, "cpu/event=0x1000/", .err = -HPM_ERR_BAD_VALUE },
	{ L, ZEN3, "cpu/pc=1/", .err = -HPM_ERR_UNKNOWN_TERM },
	{ L, ZEN3, "cpu/cpu-cycles/", .type = 4, .config = 0x76 },
	{ L, ZEN3, "cpu/cache-references/", .type = 4, .config = 0xff60 },
	{ L, ZEN3, "cpu/cache-misses/", .type = 4, .config = 0x964 },
	{ L, ZEN3, "cpu/stalled-cycles-frontend/", .type = 4, .config = 0xa9 },
	{ L, ZEN3, "cpu/branch-brs/", .type = 4, .config = 0xc4 },
	{ L, ZEN3, "r1000000d0", .type = PERF_TYPE_RAW, .config = 0x1000000d0 },
	/* three ranges: config:0-7,32-35,59-60 */
	{ L, ZEN3, "amd_df/event=0x3fff,umask=0x1/", .type = 15, .config = 0x1800000f000001ffull,
	  .pmu = "amd_df" },
	{ L, ZEN3, "amd_df/event=0x1000/", .type = 15, .config = 0x0800000000000000ull },
	{ L, ZEN3, "amd_df/event=0x4000/", .err = -HPM_ERR_BAD_VALUE },
	{ L, ZEN3, "amd_l3/event=0x4,umask=0xff,enallcores=1,enallslices=1,threadmask=3/",
	  .type = 16, .config = 0x030000000000ff04ull | (1ull << 46) | (1ull << 47) },
	{ L, ZEN3, "amd_l3/event=0x4,sliceid=7,coreid=7/", .type = 16,
	  .config = 0x4 | (7ull << 48) | (7ull << 42) },
	{ L, ZEN3, "amd_l3/event=0x4,threadmask=4/", .err = -HPM_ERR_BAD_VALUE },
	{ L, ZEN3, "ibs_op/cnt_ctl=1/", .type = 11, .config = 1u << 19 },
	{ L, ZEN3, "ibs_fetch/rand_en=1/", .type = 10, .config = 1ull << 57 },
	{ L, ZEN3, "msr/irperf/", .type = 13, .config = 6 },
	{ L, ZEN3, "msr/pperf/", .err = -HPM_ERR_UNKNOWN_EVENT, .err_alt = -HPM_ERR_UNKNOWN_TERM },
	{ L, ZEN3, "power/energy-pkg/", .type = 14, .config = 2, .unit = "Joules",
	  .scale = RAPL_SCALE },
	{ L, ZEN3, "power/energy-cores/", .err = -HPM_ERR_UNKNOWN_EVENT,
	  .err_alt = -HPM_ERR_UNKNOWN_TERM },

	/* ---- Neoverse N1 (ACPI: armv8_pmuv3_0) ---- */
	{ L, N1, "armv8_pmuv3_0/event=0x11/", .type = 10, .config = 0x11, .pmu = "armv8_pmuv3_0" },
	{ L, N1, "armv8_pmuv3/inst_retired/", .type = 10, .config = 0x8, .pmu = "armv8_pmuv3_0",
	  .kind = KIND(HPM_EV_PMU) },
	{ L, N1, "armv8_pmuv3/cpu_cycles/u", .type = 10, .config = 0x11, .excl = X_K | X_HV },
	/* ... on Arm the architected event the kernel maps it to ... */
	{ L, N1, "armv8_pmuv3_0/cycles/", .type = 10, .config = 0x11, .pmu = "armv8_pmuv3_0" },
	{ L, N1, "armv8_pmuv3/instructions/k", .type = 10, .config = 0x8, .excl = X_U | X_HV,
	  .gh = 1 },
	{ L, N1, "armv8_pmuv3/branch-misses/", .type = 10, .config = 0x10 },
	/* ... and without either, the generic event with the PMU's extended type */
	{ L, N1, "armv8_pmuv3/ref-cycles/", .type = PERF_TYPE_HARDWARE,
	  .config = PERF_COUNT_HW_REF_CPU_CYCLES | 10ULL << 32 },
	{ L, N1, "armv8_pmuv3/L1-dcache-load-misses/", .type = PERF_TYPE_HW_CACHE,
	  .config = 0x10000 | 10ULL << 32 },
	{ L, N1, "armv8_pmuv3/task-clock/", .err = -HPM_ERR_UNKNOWN_TERM },
	{ L, N1, "armv8_pmuv3_0/sample_pop/", .type = 10, .config = 0x4000 },
	{ L, N1, "armv8_pmuv3_0/ll_cache_miss_rd/", .type = 10, .config = 0x37 },
	{ L, N1, "armv8_pmuv3_0/event=0x11,long=1/", .type = 10, .config = 0x11, .config1 = 1 },
	{ L, N1, "armv8_pmuv3_0/inst_retired,long,rdpmc/", .type = 10, .config = 0x8,
	  .config1 = 3 },
	{ L, N1, "armv8_pmuv3_0/event=0xffff/", .type = 10, .config = 0xffff },
	{ L, N1, "armv8_pmuv3_0/event=0x10000/", .err = -HPM_ERR_BAD_VALUE },
	{ L, N1, "armv8_pmuv3_0/long=2/", .err = -HPM_ERR_BAD_VALUE },
	{ L, N1, "armv8_pmuv3_0/ld_retired/", .err = -HPM_ERR_UNKNOWN_EVENT,
	  .err_alt = -HPM_ERR_UNKNOWN_TERM },
	{ L, N1, "inst_retired", .type = 10, .config = 0x8, .pmu = "armv8_pmuv3_0" },
	{ L, N1, "inst_retired:k", .type = 10, .config = 0x8, .excl = X_U | X_HV, .gh = 1 },
	{ L, N1, "{cpu_cycles,inst_retired}", .count = 2, .idx = 1, .leader = 0, .type = 10,
	  .config = 0x8 },
	{ L, N1, "inst_retird", .err = -HPM_ERR_UNKNOWN_EVENT, .suggest = "inst_retired" },
	{ L, N1, "armv8_pmuv3/inst_retird/", .err = -HPM_ERR_UNKNOWN_EVENT,
	  .err_alt = -HPM_ERR_UNKNOWN_TERM, .suggest = "inst_retired" },
	{ L, N1, "r11", .type = PERF_TYPE_RAW, .config = 0x11 },
	{ L, N1, "arm_spe_0/ts_enable=1,load_filter=1,min_latency=20/", .type = 11,
	  .config = 0x200000001ull, .config2 = 20, .pmu = "arm_spe_0" },
	{ L, N1, "arm_spe_0/event_filter=0x22/", .type = 11, .config1 = 0x22 },
	{ L, N1, "arm_spe_0/min_latency=4096/", .err = -HPM_ERR_BAD_VALUE },
	{ L, N1, "armv8_pmuv3_1/event=0x11/", .err = -HPM_ERR_UNKNOWN_PMU },
	{ L, N1, "msr/tsc/", .err = -HPM_ERR_UNKNOWN_PMU },

	/* ---- this VM: software PMUs only ---- */
	{ L, VM, "msr/tsc/", .type = 10, .config = 0 },
	{ L, VM, "msr/smi/", .type = 10, .config = 4 },
	{ L, VM, "power/energy-psys/", .type = 9, .config = 5, .unit = "Joules",
	  .scale = RAPL_SCALE },
	{ L, VM, "power/energy-pkg/", .err = -HPM_ERR_UNKNOWN_EVENT,
	  .err_alt = -HPM_ERR_UNKNOWN_TERM },
	{ L, VM, "uprobe/retprobe=1/", .type = 8, .config = 1 },
	{ L, VM, "cpu/event=0x3c/", .err = -HPM_ERR_UNKNOWN_PMU },
	{ L, VM, "kprobe/retprobe/", .err = -HPM_ERR_UNKNOWN_PMU },
};

static char *path_of(const char *tree)
{
	char *p = NULL;
	if (asprintf(&p, "%s/%s", HPM_TEST_DATA, tree) < 0)
		return NULL;
	return p;
}

static struct hpm_ctx *ctx_for(const char *tree)
{
	char *sysfs = path_of(tree), *tracefs = path_of("tracefs");
	struct hpm_ctx_opts o = { .sz = sizeof(o), .sysfs_root = sysfs,
				  .procfs_root = "/proc", .tracefs_root = tracefs };
	struct hpm_ctx *ctx = hpm_ctx__new(&o);
	free(sysfs);
	free(tracefs);
	return ctx;
}

/* Failures are collected, so one run shows every wrong row at once. */
static int nr_bad;

static void bad(const struct row *r, const char *tree, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void bad(const struct row *r, const char *tree, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "test-resolve.c:%d: [%s] '%s': ", r->line, tree, r->spec);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	nr_bad++;
}

#define EXPECT_U64(field, got, want)                                              \
	do {                                                                      \
		if ((uint64_t)(got) != (uint64_t)(want))                          \
			bad(r, tree, "%s is %#llx, expected %#llx", field,        \
			    (unsigned long long)(got), (unsigned long long)(want)); \
	} while (0)

static void check_event(const struct row *r, const char *tree,
			const struct hpm_evlist *list)
{
	const struct hpm_event *ev = hpm_evlist__event(list, r->idx);
	const struct perf_event_attr *a;
	unsigned excl;

	if (!ev) {
		bad(r, tree, "no event %zu in the list", r->idx);
		return;
	}
	a = hpm_event__attr(ev);
	EXPECT_U64("type", a->type, r->type);
	EXPECT_U64("config", a->config, r->config);
	/* for breakpoints config1 and config2 are bp_addr and bp_len (unions) */
	if (a->type != PERF_TYPE_BREAKPOINT) {
		EXPECT_U64("config1", a->config1, r->config1);
		EXPECT_U64("config2", a->config2, r->config2);
	}
	excl = (a->exclude_user ? X_U : 0) | (a->exclude_kernel ? X_K : 0) |
	       (a->exclude_hv ? X_HV : 0) | (a->exclude_host ? X_HOST : 0) |
	       (a->exclude_guest ? X_GUEST : 0);
	unsigned want_excl = r->excl | (r->gh ? 0 : X_GUEST);
	if (excl != want_excl)
		bad(r, tree, "exclusion u/k/hv/host/guest is %u%u%u%u%u, expected %u%u%u%u%u",
		    !!(excl & X_U), !!(excl & X_K), !!(excl & X_HV), !!(excl & X_HOST),
		    !!(excl & X_GUEST), !!(want_excl & X_U), !!(want_excl & X_K),
		    !!(want_excl & X_HV), !!(want_excl & X_HOST), !!(want_excl & X_GUEST));
	EXPECT_U64("precise_ip", a->precise_ip, r->precise);
	EXPECT_U64("freq", a->freq, r->freq);
	EXPECT_U64(r->freq ? "sample_freq" : "sample_period", a->sample_period, r->period);
	EXPECT_U64("pinned", a->pinned, r->pinned);
	if (a->type == PERF_TYPE_BREAKPOINT || r->bp_type) {
		EXPECT_U64("bp_type", a->bp_type, r->bp_type);
		EXPECT_U64("bp_addr", a->bp_addr, r->bp_addr);
		EXPECT_U64("bp_len", a->bp_len, r->bp_len);
	}
	EXPECT_U64("leader", hpm_event__leader(ev), r->leader);
	if (r->name && strcmp(hpm_event__name(ev), r->name))
		bad(r, tree, "name is '%s', expected '%s'", hpm_event__name(ev), r->name);
	if (r->pmu && strcmp(hpm_event__pmu(ev), r->pmu))
		bad(r, tree, "pmu is '%s', expected '%s'", hpm_event__pmu(ev), r->pmu);
	if (strcmp(hpm_event__unit(ev), r->unit ? r->unit : ""))
		bad(r, tree, "unit is '%s', expected '%s'", hpm_event__unit(ev),
		    r->unit ? r->unit : "");
	{
		double want = r->scale ? r->scale : 1.0, got = hpm_event__scale(ev);
		if (fabs(got - want) > want * 1e-12)
			bad(r, tree, "scale is %.17g, expected %.17g", got, want);
	}
	if (r->kind && (int)hpm_event__kind(ev) != r->kind - 1)
		bad(r, tree, "kind is %d, expected %d", (int)hpm_event__kind(ev), r->kind - 1);
	if (r->cpus && strcmp(hpm_event__cpus(ev), r->cpus))
		bad(r, tree, "cpus is '%s', expected '%s'", hpm_event__cpus(ev), r->cpus);
	EXPECT_U64("merge leader", hpm_event__merge_leader(ev), r->merge ? r->merge - 1 : r->idx);
	if (r->merged && strcmp(hpm_event__merged_name(ev), r->merged))
		bad(r, tree, "merged name is '%s', expected '%s'", hpm_event__merged_name(ev),
		    r->merged);
}

static void run_row(const struct row *r, const char *tree)
{
	struct hpm_ctx *ctx = ctx_for(tree);
	struct hpm_parse_error perr;
	struct hpm_evlist *list = (struct hpm_evlist *)&perr; /* must become NULL */
	int rc;

	assert_non_null(ctx);
	memset(&perr, 0x55, sizeof(perr));
	rc = hpm_evlist__parse(ctx, r->spec, &list, &perr);
	if (r->err) {
		if (rc == 0) {
			bad(r, tree, "succeeded, expected %d (%s)", r->err, hpm_strerror(r->err));
			hpm_evlist__free(list);
			goto out;
		}
		if (rc != r->err && (!r->err_alt || rc != r->err_alt))
			bad(r, tree, "returned %d (%s), expected %d (%s): %.*s", rc,
			    hpm_strerror(rc), r->err, hpm_strerror(r->err),
			    (int)sizeof(perr.msg), perr.msg);
		if (list)
			bad(r, tree, "failed but left a list behind");
		if (perr.err != rc)
			bad(r, tree, "err.err is %d, the call returned %d", perr.err, rc);
		if (perr.pos > strlen(r->spec) || !memchr(perr.msg, 0, sizeof(perr.msg)) ||
		    !perr.msg[0] || !memchr(perr.token, 0, sizeof(perr.token)))
			bad(r, tree, "err.pos %zu, err.token or err.msg is not set", perr.pos);
		if (r->suggest && (!memchr(perr.suggest, 0, sizeof(perr.suggest)) ||
				   !strstr(perr.suggest, r->suggest)))
			bad(r, tree, "suggestion '%.*s' does not name '%s' (msg: %.*s)",
			    (int)sizeof(perr.suggest), perr.suggest, r->suggest,
			    (int)sizeof(perr.msg), perr.msg);
	} else if (rc) {
		bad(r, tree, "failed with %d (%s): %.*s", rc, hpm_strerror(rc),
		    (int)sizeof(perr.msg), perr.msg);
	} else {
		size_t want = r->count ? r->count : 1;
		if (hpm_evlist__count(list) != want)
			bad(r, tree, "%zu events, expected %zu", hpm_evlist__count(list), want);
		else
			check_event(r, tree, list);
		hpm_evlist__free(list);
	}
out:
	hpm_ctx__free(ctx);
}

/*
 * Does @r's spec hold a generic hardware or cache event (as one core PMU
 * resolves it)? On a hybrid CPU those become one event per core PMU:
 * hybrid_rows check them there.
 */
static bool has_generic_hw(const struct row *r)
{
	struct hpm_ctx *ctx = ctx_for(SKL);
	struct hpm_evlist *list = NULL;
	bool hw = false;

	assert_non_null(ctx);
	if (hpm_evlist__parse(ctx, r->spec, &list, NULL) == 0)
		for (size_t i = 0; i < hpm_evlist__count(list); i++) {
			enum hpm_event_kind k = hpm_event__kind(hpm_evlist__event(list, i));
			hw |= k == HPM_EV_GENERIC_HW || k == HPM_EV_GENERIC_CACHE;
		}
	hpm_evlist__free(list);
	hpm_ctx__free(ctx);
	return hw;
}

static void test_generic_rows(void **state)
{
	size_t ran_hybrid = 0;

	(void)state;
	nr_bad = 0;
	for (size_t t = 0; t < NR_TREES; t++)
		for (size_t i = 0; i < sizeof(generic_rows) / sizeof(generic_rows[0]); i++) {
			if (!strcmp(all_trees[t], ADL) && has_generic_hw(&generic_rows[i]))
				continue;
			ran_hybrid += !strcmp(all_trees[t], ADL);
			run_row(&generic_rows[i], all_trees[t]);
		}
	assert_int_equal(nr_bad, 0);
	/* software, tracepoint, breakpoint and error rows still run there */
	assert_true(ran_hybrid > 50);
}

static void test_tree_rows(void **state)
{
	(void)state;
	nr_bad = 0;
	for (size_t i = 0; i < sizeof(tree_rows) / sizeof(tree_rows[0]); i++)
		run_row(&tree_rows[i], tree_rows[i].tree);
	assert_int_equal(nr_bad, 0);
}

/*
 * Every alias every recorded PMU offers must resolve as PMU/alias/ and as
 * the bare alias name: a check of the trees and of the resolver together.
 */
static int alias_failures;

static void check_all_aliases(const char *tree)
{
	char *root = path_of(tree), *devs = NULL;
	struct hpm_ctx *ctx = ctx_for(tree);
	DIR *d;
	struct dirent *pe;

	assert_non_null(ctx);
	assert_true(asprintf(&devs, "%s/bus/event_source/devices", root) > 0);
	d = opendir(devs);
	assert_non_null(d);
	while ((pe = readdir(d))) {
		char *evdir = NULL;
		DIR *e;
		struct dirent *ae;

		if (pe->d_name[0] == '.')
			continue;
		assert_true(asprintf(&evdir, "%s/%s/events", devs, pe->d_name) > 0);
		e = opendir(evdir);
		free(evdir);
		if (!e)
			continue;
		while ((ae = readdir(e))) {
			char *spec = NULL;
			struct hpm_evlist *list = NULL;
			struct hpm_parse_error perr;
			const char *dot = strchr(ae->d_name, '.');
			int rc;

			if (ae->d_name[0] == '.' || dot)
				continue; /* .scale, .unit, .snapshot */
			assert_true(asprintf(&spec, "%s/%s/", pe->d_name, ae->d_name) > 0);
			rc = hpm_evlist__parse(ctx, spec, &list, &perr);
			if (rc) {
				fprintf(stderr, "[%s] '%s' failed: %d %s\n", tree, spec, rc,
					perr.msg);
				alias_failures++;
			} else if (hpm_event__kind(hpm_evlist__event(list, 0)) != HPM_EV_PMU) {
				fprintf(stderr, "[%s] '%s' is not a PMU event\n", tree, spec);
				alias_failures++;
			}
			hpm_evlist__free(list);
			free(spec);
		}
		closedir(e);
	}
	closedir(d);
	free(devs);
	free(root);
	hpm_ctx__free(ctx);
}

static void test_every_alias(void **state)
{
	(void)state;
	alias_failures = 0;
	for (size_t t = 0; t < NR_TREES; t++)
		check_all_aliases(all_trees[t]);
	assert_int_equal(alias_failures, 0);
}

/* hpm_evlist__add appends, and a failed add leaves the list as it was. */
static void test_add(void **state)
{
	struct hpm_ctx *ctx = ctx_for(SKL);
	struct hpm_evlist *list = NULL;
	struct hpm_parse_error perr;

	(void)state;
	assert_int_equal(hpm_evlist__parse(ctx, "cycles", &list, &perr), 0);
	assert_int_equal(hpm_evlist__add(list, "{instructions,branches}", &perr), 0);
	assert_int_equal(hpm_evlist__count(list), 3);
	assert_int_equal(hpm_event__leader(hpm_evlist__event(list, 2)), 1);
	assert_int_equal(hpm_evlist__add(list, "task-clock,cyclez", &perr),
			 -HPM_ERR_UNKNOWN_EVENT);
	assert_int_equal(hpm_evlist__count(list), 3);
	assert_int_equal(hpm_evlist__add(list, "task-clock", NULL), 0);
	assert_int_equal(hpm_evlist__count(list), 4);
	assert_null(hpm_evlist__event(list, 4));
	hpm_evlist__free(list);
	hpm_evlist__free(NULL);
	hpm_ctx__free(ctx);
}

static void test_clock_and_describe(void **state)
{
	struct hpm_ctx *ctx = ctx_for(SKL);
	struct hpm_evlist *list = NULL;
	char buf[128];

	(void)state;
	assert_int_equal(hpm_evlist__parse(ctx, "task-clock,cpu-clock,cycles,cpu/mem-loads/",
					   &list, NULL), 0);
	assert_true(hpm_event__is_clock(hpm_evlist__event(list, 0)));
	assert_true(hpm_event__is_clock(hpm_evlist__event(list, 1)));
	assert_false(hpm_event__is_clock(hpm_evlist__event(list, 2)));
	assert_true(hpm_event__describe(hpm_evlist__event(list, 3), buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "type=4"));
	assert_non_null(strstr(buf, "config=0x1cd"));
	assert_non_null(strstr(buf, "config1=0x3"));
	/* snprintf semantics: the full length even when it does not fit */
	assert_int_equal(hpm_event__describe(hpm_evlist__event(list, 3), buf, 4),
			 (int)strlen("type=4,config=0x1cd,config1=0x3"));
	assert_int_equal(strlen(buf), 3);
	hpm_evlist__free(list);
	hpm_ctx__free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_generic_rows),
		cmocka_unit_test(test_tree_rows),
		cmocka_unit_test(test_every_alias),
		cmocka_unit_test(test_add),
		cmocka_unit_test(test_clock_and_describe),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
