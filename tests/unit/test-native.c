/* SPDX-License-Identifier: MIT */
/*
 * libpfm4 native event names (INST_RETIRED:ANY_P) resolved for CPUs we do
 * not have. libpfm4 detects the host PMU once per process, and
 * LIBPFM_FORCE_PMU overrides the detection if set before that; so each
 * forced PMU runs in a child process of its own, which reports its wrong
 * rows on stderr and their number as its exit status (77: that libpfm4
 * build does not know the PMU, e.g. Arm PMUs in an x86 build).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include "skip.h"
#include <perfmon/pfmlib.h>

#include <hpmon/event.h>

#define SKIP_STATUS 77

#define X_U 0x01u
#define X_K 0x02u
#define X_HV 0x04u

struct nrow {
	int line;
	const char *spec;
	int err, err_alt;       /* expected failure, or 0 */
	size_t count, idx, leader;
	uint32_t type;
	uint64_t config, config1;
	unsigned excl;          /* X_U / X_K that must be set (others clear) */
	unsigned precise;
	int generic;            /* resolved as a generic event, not natively */
};

#define L .line = __LINE__

/* Skylake, forced with LIBPFM_FORCE_PMU=skl */
static const struct nrow skl_rows[] = {
	{ L, "INST_RETIRED:ANY_P", .type = PERF_TYPE_RAW, .config = 0xc0 },
	{ L, "CPU_CLK_UNHALTED:THREAD_P", .type = 4, .config = 0x3c },
	{ L, "BR_INST_RETIRED:ALL_BRANCHES", .type = 4, .config = 0xc4 },
	{ L, "skl::BR_INST_RETIRED:ALL_BRANCHES", .type = 4, .config = 0xc4 },
	{ L, "MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=3", .type = 4, .config = 0x1cd,
	  .config1 = 3 },
	{ L, "OFFCORE_RESPONSE_0:DMND_DATA_RD:L3_MISS", .type = 4, .config = 0x1b7,
	  .config1 = 0x3f84000001ull },
	{ L, "INST_RETIRED:ANY_P:u", .type = 4, .config = 0xc0, .excl = X_K },
	{ L, "INST_RETIRED:ANY_P:k", .type = 4, .config = 0xc0, .excl = X_U },
	{ L, "INST_RETIRED:ANY_P:pp", .type = 4, .config = 0xc0, .precise = 2 },
	{ L, "{CPU_CLK_UNHALTED:THREAD_P,INST_RETIRED:ANY_P}", .count = 2, .idx = 1, .leader = 0,
	  .type = 4, .config = 0xc0 },
	{ L, "cycles", .type = PERF_TYPE_HARDWARE, .config = 0, .generic = 1 },
	{ L, "INST_RETIRED:NO_SUCH_UMASK", .err = -HPM_ERR_UNKNOWN_EVENT,
	  .err_alt = -HPM_ERR_BAD_MODIFIER },
	{ L, "NO_SUCH_NATIVE_EVENT", .err = -HPM_ERR_UNKNOWN_EVENT },
};

/* Zen 3, forced with LIBPFM_FORCE_PMU=amd64_fam19h_zen3 */
static const struct nrow zen3_rows[] = {
	{ L, "RETIRED_INSTRUCTIONS", .type = 4, .config = 0xc0 },
	{ L, "CYCLES_NOT_IN_HALT", .type = 4, .config = 0x76 },
	/* event 0x1d0: the high event bits go to config:32-35 */
	{ L, "RETIRED_FUSED_INSTRUCTIONS", .type = 4, .config = 0x1000000d0ull },
	{ L, "RETIRED_SSE_AVX_FLOPS:ANY", .type = 4, .config = 0xf03 },
	{ L, "RETIRED_INSTRUCTIONS:u", .type = 4, .config = 0xc0, .excl = X_K },
};

/* Neoverse N1, forced with LIBPFM_FORCE_PMU=arm_n1 (Arm builds only) */
static const struct nrow n1_rows[] = {
	{ L, "INST_RETIRED", .type = 4, .config = 0x8 },
	{ L, "CPU_CYCLES", .type = 4, .config = 0x11 },
};

/*
 * A native name and the sysfs alias of the same event must agree: the two
 * paths of resolution cross-check each other.
 */
struct pair {
	int line;
	const char *native, *sysfs;
};

static const struct pair skl_pairs[] = {
	{ __LINE__, "MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=3", "cpu/mem-loads/" },
	{ __LINE__, "CPU_CLK_UNHALTED:THREAD_P", "cpu/cpu-cycles/" },
	{ __LINE__, "INST_RETIRED:ANY_P", "cpu/instructions/" },
	{ __LINE__, "LONGEST_LAT_CACHE:MISS", "cpu/cache-misses/" },
};

static const struct pair zen3_pairs[] = {
	{ __LINE__, "RETIRED_FUSED_INSTRUCTIONS", "cpu/event=0x1d0/" },
	{ __LINE__, "CYCLES_NOT_IN_HALT", "cpu/cpu-cycles/" },
	{ __LINE__, "RETIRED_BRANCH_INSTRUCTIONS", "cpu/branch-instructions/" },
};

struct target {
	const char *force;      /* LIBPFM_FORCE_PMU */
	const char *probe;      /* an event that exists only if the PMU is known */
	const char *tree;       /* sysfs tree of the same CPU */
	const struct nrow *rows;
	size_t nr_rows;
	const struct pair *pairs;
	size_t nr_pairs;
};

#define ARR(a) (a), (sizeof(a) / sizeof((a)[0]))

/* the cases' names, in targets' order */
static const char *const case_names[] = { "native_skl", "native_zen3", "native_arm_n1" };

static const struct target targets[] = {
	{ "skl", "skl::INST_RETIRED:ANY_P", "sysfs-intel-skl", ARR(skl_rows), ARR(skl_pairs) },
	{ "amd64_fam19h_zen3", "amd64_fam19h_zen3::RETIRED_INSTRUCTIONS", "sysfs-amd-zen3",
	  ARR(zen3_rows), ARR(zen3_pairs) },
	{ "arm_n1", "arm_n1::INST_RETIRED", "sysfs-arm-n1", ARR(n1_rows), NULL, 0 },
};

static int nr_bad;

static void bad(int line, const char *force, const char *spec, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void bad(int line, const char *force, const char *spec, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "test-native.c:%d: [%s] '%s': ", line, force, spec);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	nr_bad++;
}

static struct hpm_ctx *ctx_for(const char *tree)
{
	char *sysfs = NULL;
	struct hpm_ctx_opts o = { .sz = sizeof(o) };
	struct hpm_ctx *ctx;

	if (asprintf(&sysfs, "%s/%s", HPM_TEST_DATA, tree) < 0)
		return NULL;
	o.sysfs_root = sysfs;
	o.procfs_root = "/proc";
	/* a name with ':' that is no native event is looked for as a
	 * tracepoint: the trees hold no tracefs */
	o.tracefs_root = HPM_TEST_DATA "/tracefs";
	ctx = hpm_ctx__new(&o);
	free(sysfs);
	return ctx;
}

static void run_nrow(struct hpm_ctx *ctx, const char *force, const struct nrow *r)
{
	struct hpm_evlist *list = NULL;
	struct hpm_parse_error perr;
	int rc = hpm_evlist__parse(ctx, r->spec, &list, &perr);

	if (r->err) {
		if (rc != r->err && (!r->err_alt || rc != r->err_alt))
			bad(r->line, force, r->spec, "returned %d (%s), expected %d (%s)", rc,
			    hpm_strerror(rc), r->err, hpm_strerror(r->err));
		hpm_evlist__free(list);
		return;
	}
	if (rc) {
		bad(r->line, force, r->spec, "failed with %d (%s): %s", rc, hpm_strerror(rc),
		    perr.msg);
		return;
	}
	size_t want = r->count ? r->count : 1;
	const struct hpm_event *ev = hpm_evlist__event(list, r->idx);
	if (hpm_evlist__count(list) != want || !ev) {
		bad(r->line, force, r->spec, "%zu events, expected %zu", hpm_evlist__count(list),
		    want);
		hpm_evlist__free(list);
		return;
	}
	const struct perf_event_attr *a = hpm_event__attr(ev);
	unsigned excl = (a->exclude_user ? X_U : 0) | (a->exclude_kernel ? X_K : 0);
	enum hpm_event_kind want_kind = r->generic ? HPM_EV_GENERIC_HW : HPM_EV_NATIVE;

	if (a->type != r->type || a->config != r->config || a->config1 != r->config1)
		bad(r->line, force, r->spec,
		    "type=%u config=%#llx config1=%#llx, expected type=%u config=%#llx config1=%#llx",
		    a->type, (unsigned long long)a->config, (unsigned long long)a->config1, r->type,
		    (unsigned long long)r->config, (unsigned long long)r->config1);
	/* exclude_hv is libpfm4's per-vendor default: not checked */
	if (excl != r->excl)
		bad(r->line, force, r->spec, "exclude_user/kernel %u%u, expected %u%u",
		    !!(excl & X_U), !!(excl & X_K), !!(r->excl & X_U), !!(r->excl & X_K));
	if (a->precise_ip != r->precise)
		bad(r->line, force, r->spec, "precise_ip %u, expected %u", a->precise_ip,
		    r->precise);
	if (hpm_event__leader(ev) != r->leader)
		bad(r->line, force, r->spec, "leader %zu, expected %zu", hpm_event__leader(ev),
		    r->leader);
	if (hpm_event__kind(ev) != want_kind)
		bad(r->line, force, r->spec, "kind %d, expected %d", (int)hpm_event__kind(ev),
		    (int)want_kind);
	hpm_evlist__free(list);
}

static void run_pair(struct hpm_ctx *ctx, const char *force, const struct pair *pr)
{
	struct hpm_evlist *n = NULL, *s = NULL;
	struct hpm_parse_error perr;

	if (hpm_evlist__parse(ctx, pr->native, &n, &perr)) {
		bad(pr->line, force, pr->native, "failed: %s", perr.msg);
	} else if (hpm_evlist__parse(ctx, pr->sysfs, &s, &perr)) {
		bad(pr->line, force, pr->sysfs, "failed: %s", perr.msg);
	} else {
		const struct perf_event_attr *a = hpm_event__attr(hpm_evlist__event(n, 0));
		const struct perf_event_attr *b = hpm_event__attr(hpm_evlist__event(s, 0));
		if (a->type != b->type || a->config != b->config || a->config1 != b->config1)
			bad(pr->line, force, pr->native,
			    "type=%u config=%#llx config1=%#llx but %s gives type=%u config=%#llx config1=%#llx",
			    a->type, (unsigned long long)a->config, (unsigned long long)a->config1,
			    pr->sysfs, b->type, (unsigned long long)b->config,
			    (unsigned long long)b->config1);
	}
	hpm_evlist__free(n);
	hpm_evlist__free(s);
}

/* In the child: force the PMU, then resolve every row. */
static int child(const struct target *t)
{
	struct hpm_ctx *ctx;

	if (setenv("LIBPFM_FORCE_PMU", t->force, 1))
		return 100;
	/* libpfm4 initialises once; hpmon's own call later finds it done */
	if (pfm_initialize() != PFM_SUCCESS || pfm_find_event(t->probe) < 0)
		return SKIP_STATUS;
	ctx = ctx_for(t->tree);
	if (!ctx)
		return 100;
	for (size_t i = 0; i < t->nr_rows; i++)
		run_nrow(ctx, t->force, &t->rows[i]);
	for (size_t i = 0; i < t->nr_pairs; i++)
		run_pair(ctx, t->force, &t->pairs[i]);
	hpm_ctx__free(ctx);
	return nr_bad > 99 ? 99 : nr_bad;
}

static int run_forced(const struct target *t)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0)
		_exit(child(t));
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static void test_forced(void **state)
{
	const struct target *t = *state;
	int rc = run_forced(t);

	if (rc == SKIP_STATUS) {
		/* named as the case is named in main(), for the count of skips */
		hpm_skip_note(__FILE__, case_names[t - targets],
			      "this machine's libpfm4 does not know PMU %s", t->force);
		skip();
	}
	assert_int_equal(rc, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		{ case_names[0], test_forced, NULL, NULL, (void *)&targets[0] },
		{ case_names[1], test_forced, NULL, NULL, (void *)&targets[1] },
		{ case_names[2], test_forced, NULL, NULL, (void *)&targets[2] },
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
