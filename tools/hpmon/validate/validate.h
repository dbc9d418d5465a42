/* SPDX-License-Identifier: MIT */
/*
 * hpmon validate: microbenchmarks whose counts are known in advance, and
 * the events each of them checks (docs/hpmon-validate.md).
 *
 * A benchmark does a number of units of work (loop iterations, pages
 * touched, pointer hops, calls ...); a check says how many of an event's
 * counts one unit must give, and how that is known. The judge measures
 * each event around the benchmark in this thread and compares.
 *
 * Room: tools/hpmon/validate/ owns hpmon validate; may use counting, output.
 * Ownership: the tables are static; a vbench's state (buffers) belongs to
 * the struct vstate the judge passes in, set up by ->setup and released by
 * ->teardown.
 */
#ifndef HPMON_TOOL_VALIDATE_H
#define HPMON_TOOL_VALIDATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hpm_ctx;

/* What a benchmark's setup may allocate, and what it learnt. */
struct vstate {
	void *buf;          /* the benchmark's memory */
	size_t len;         /* its size in bytes */
	void *start;        /* where a pointer chase starts */
	uint64_t extra;     /* counts the kernel itself reports beside the
			       answer known in advance (preemptions) */
	char note[96];      /* e.g. "L2 1280 KiB from sysfs" */
};

struct vbench {
	const char *name;
	const char *unit;       /* one unit of work: "iteration", "page" ... */
	uint64_t units;         /* per measured run (the full suite) */
	uint64_t quick_units;   /* with --quick */
	/* The cache level whose size sizes the buffer (1, 2, 3), or 0. */
	int cache_level;
	/* 0 or -errno. @units is the largest run the state must serve. */
	int (*setup)(struct vstate *st, uint64_t units, size_t cache_bytes);
	/* The measured work; it sets vstate.extra where the kernel reports
	 * counts beside the known answer. */
	void (*run)(struct vstate *st, uint64_t units);
	void (*teardown)(struct vstate *st);
};

/* The benchmarks compiled for this architecture (a hardware benchmark
 * needs inline assembly: NULL ->run where it has none). */
const struct vbench *vbench__find(const char *name);
/* Why the hardware benchmarks are missing, or NULL when they exist. */
const char *vbench__arch_missing(void);

struct vcheck {
	const char *what;        /* "instructions" */
	const char *bench;       /* vbench name */
	double per_unit;         /* the answer: counts per unit */
	double alt_per_unit;     /* a second exact answer (another machine
				    model), or 0 */
	double tol;              /* relative tolerance of "within"; 0: the
				    answer is exact */
	bool add_extra;          /* the answer includes vstate.extra */
	const char *model;       /* how the answer is known */
	const char *alt_model;   /* what alt_per_unit stands for */
	const char *events[10];  /* generic, preset and native spellings */
};

extern const struct vcheck vchecks[];
extern const size_t vchecks_nr;

/* V_UNSUPPORTED: the event does not open here; V_NOT_DELIVERED: it opens,
 * but this host does not deliver what it counts (breakpoints that never
 * fire): both the host's lack, never a verdict on hpmon. */
enum verdict { V_EXACT, V_WITHIN, V_BIASED, V_BROKEN, V_UNSUPPORTED, V_NOT_DELIVERED };

struct vjudgement {
	enum verdict v;
	char detail[96];        /* "within 15 %", "biased +0.25 per iteration" */
	double expected;        /* per unit, the mean over repeats */
	double measured;        /* per unit, the mean over repeats */
	double error;           /* relative, or absolute per unit when the
				   answer is 0 */
	bool deterministic;     /* every repeat off the answer by as much */
	bool alt;               /* the second model's answer matched */
};

/* Judge @r repeats of @units units: @val the counts, @exp the answers
 * (the check's per-unit answer times @units, plus what the kernel reported
 * beside it). */
void vjudge(const struct vcheck *c, const char *unit, uint64_t units, const uint64_t *val,
	    const double *exp, int r, struct vjudgement *out);

/* Sizes of this machine's data (or unified) caches by level, 1 to 3,
 * from sysfs under the context's root; where sysfs does not say, typical
 * sizes (32 KiB, 1 MiB, 32 MiB), and size[3] is the last level's. */
void vcache__sizes(struct hpm_ctx *ctx, size_t size[4]);

/* A random pointer chase of @slots slots @stride bytes apart (each on
 * another cache line of its page when @vary_line), and @n hops of it. */
int vchase__setup(struct vstate *st, size_t slots, size_t stride, bool vary_line);
void vchase__run(struct vstate *st, uint64_t n);
void vchase__free(struct vstate *st);

/* hpmon validate --calibrate (validate-calibrate.c): measure this
 * machine's costs into @path (NULL: this CPU model's file). */
int validate_calibrate(struct hpm_ctx *ctx, const char *path, int repeats, bool json);

/* The function the breakpoint check puts its breakpoint on. */
void hpm_validate_target(void);

#endif
