// SPDX-License-Identifier: MIT
/*
 * PAPI presets (lib/events/preset.c, data/presets.txt) and processor families
 * (lib/events/family.c, data/families.txt), against the recorded sysfs trees:
 * which family each tree is, which mapping a preset takes there, presets
 * as events (with modifiers, derived ones as groups of their terms), and
 * that every mapping of a family resolves on that family's tree (Intel and
 * AMD natives in child processes with libpfm4 forced to that PMU).
 */
#include <errno.h>
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

#include <hpmon/event.h>
#include <hpmon/preset.h>

#define SKIP_STATUS 77

static struct hpm_ctx *ctx_for(const char *tree)
{
	char sysfs[512];
	struct hpm_ctx_opts o = { .sz = sizeof(o), .sysfs_root = sysfs, .procfs_root = "/proc" };
	snprintf(sysfs, sizeof(sysfs), "%s/%s", HPM_TEST_DATA, tree);
	return hpm_ctx__new(&o);
}

static void test_families(void **state)
{
	static const struct { const char *tree, *family; } rows[] = {
		{ "sysfs-intel-skl", "intel" }, { "sysfs-intel-adl", "intel" },
		{ "sysfs-amd-zen3", "amd" }, { "sysfs-arm-n1", "arm" },
		{ "sysfs-x86-vm-nopmu", "software" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct hpm_ctx *ctx = ctx_for(rows[i].tree);
		char fam[32];
		assert_int_equal(hpm_family__detect(ctx, fam, sizeof(fam)), 0);
		if (strcmp(fam, rows[i].family)) {
			fprintf(stderr, "%s: family %s, expected %s\n", rows[i].tree, fam, rows[i].family);
			fail();
		}
		hpm_ctx__free(ctx);
	}
}

struct prow {
	int line;
	const char *tree, *preset;
	const char *family;   /* expected family of the mapping, "" for none */
	const char *mapping;  /* expected mapping, or substring of why */
	bool derived;
};

#define L .line = __LINE__

static const struct prow prows[] = {
	{ L, "sysfs-arm-n1", "PAPI_TOT_INS", "arm", "inst_retired" },
	{ L, "sysfs-arm-n1", "PAPI_TOT_CYC", "arm", "cpu_cycles" },
	{ L, "sysfs-arm-n1", "PAPI_L1_TCM", "arm", "l1d_cache_refill + l1i_cache_refill", true },
	{ L, "sysfs-arm-n1", "PAPI_L2_TCH", "arm", "l2d_cache - l2d_cache_refill", true },
	{ L, "sysfs-arm-n1", "PAPI_LD_INS", "arm", "counts every L1 data access" },
	{ L, "sysfs-arm-n1", "PAPI_FP_OPS", "", "no mapping on arm processors" },
	{ L, "sysfs-arm-n1", "PAPI_L1_ICA", "arm", "l1i_cache" },
	/* Arm falls back to the generic mapping */
	{ L, "sysfs-arm-n1", "PAPI_L1_LDM", "arm", "do not tell loads from stores" },
	{ L, "sysfs-intel-skl", "PAPI_L1_DCM", "intel", "L1D:REPLACEMENT" },
	{ L, "sysfs-intel-skl", "PAPI_TOT_INS", "generic", "instructions" },
	{ L, "sysfs-intel-skl", "PAPI_BR_TKN", "intel",
	  "BR_INST_RETIRED:CONDITIONAL - BR_INST_RETIRED:NOT_TAKEN", true },
	{ L, "sysfs-amd-zen3", "PAPI_FP_OPS", "amd", "RETIRED_SSE_AVX_FLOPS:ANY" },
	{ L, "sysfs-amd-zen3", "PAPI_BR_MSP", "generic", "branch-misses" },
	{ L, "sysfs-x86-vm-nopmu", "PAPI_TOT_INS", "generic", "instructions" },
	{ L, "sysfs-x86-vm-nopmu", "PAPI_L1_TCM", "generic",
	  "L1-dcache-load-misses + L1-icache-load-misses", true },
	{ L, "sysfs-x86-vm-nopmu", "PAPI_L2_TCM", "", "no mapping on software processors" },
	{ L, "sysfs-x86-vm-nopmu", "PAPI_CA_SNP", "", "no mapping" },
};

static void test_mappings(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(prows) / sizeof(prows[0]); i++) {
		const struct prow *r = &prows[i];
		struct hpm_ctx *ctx = ctx_for(r->tree);
		struct hpm_preset_info p;
		assert_int_equal(hpm_preset__find(ctx, r->preset, &p), 0);
		bool ok = !strcmp(p.family, r->family) && p.derived == r->derived &&
			  (p.mapping[0] ? !strcmp(p.mapping, r->mapping) : !!strstr(p.why, r->mapping)) &&
			  !strcmp(p.name, r->preset) && p.desc[0];
		if (!ok) {
			fprintf(stderr, "test-preset.c:%d: %s on %s: family '%s', mapping '%s', why '%s'\n",
				r->line, r->preset, r->tree, p.family, p.mapping, p.why);
			fail();
		}
		hpm_ctx__free(ctx);
	}
	struct hpm_ctx *ctx = ctx_for("sysfs-arm-n1");
	struct hpm_preset_info p;
	assert_int_equal(hpm_preset__find(ctx, "PAPI_NOPE", &p), -ENOENT);
	hpm_ctx__free(ctx);
}

static int count_cb(const struct hpm_preset_info *p, void *arg)
{
	size_t *n = arg;
	assert_true(!strncmp(p->name, "PAPI_", 5));
	assert_true(p->desc[0] != '\0');
	assert_true(p->mapping[0] || p->why[0]);
	(*n)++;
	return 0;
}

static void test_foreach(void **state)
{
	struct hpm_ctx *ctx = ctx_for("sysfs-arm-n1");
	size_t n = 0;
	(void)state;
	assert_int_equal(hpm_preset__foreach(ctx, count_cb, &n), 0);
	/* PAPI's presets, all of them listed, with or without a mapping */
	assert_true(n >= 100);
	hpm_ctx__free(ctx);
}

struct erow {
	int line;
	const char *tree, *spec;
	int err;                 /* 0 or expected error */
	size_t count;            /* events */
	const char *names;       /* event names, comma separated */
	size_t leader_of_last;
	uint64_t config0;        /* config of the first event */
	int excl_kernel;         /* of every event */
	const char *msg;         /* on error: substring */
};

static const struct erow erows[] = {
	{ L, "sysfs-arm-n1", "PAPI_TOT_INS:u", 0, 1, "PAPI_TOT_INS:u", 0, 0x08, 1 },
	{ L, "sysfs-arm-n1", "PAPI_TOT_CYC", 0, 1, "PAPI_TOT_CYC", 0, 0x11, 0 },
	{ L, "sysfs-arm-n1", "PAPI_L1_TCM:u", 0, 2,
	  "PAPI_L1_TCM:u(+l1d_cache_refill),PAPI_L1_TCM:u(+l1i_cache_refill)", 0, 0x03, 1 },
	{ L, "sysfs-arm-n1", "cycles,PAPI_L2_TCH", 0, 3,
	  "cycles,PAPI_L2_TCH(+l2d_cache),PAPI_L2_TCH(-l2d_cache_refill)", 1, 0, 0 },
	/* inside braces: the terms join the group */
	{ L, "sysfs-arm-n1", "{cycles,PAPI_L1_TCM}:u", 0, 3,
	  "cycles,PAPI_L1_TCM(+l1d_cache_refill),PAPI_L1_TCM(+l1i_cache_refill)", 0, 0, 1 },
	{ L, "sysfs-arm-n1", "PAPI_TOT_IN", -HPM_ERR_UNKNOWN_EVENT, .msg = "no PAPI preset named" },
	{ L, "sysfs-arm-n1", "PAPI_FP_OPS", -HPM_ERR_UNKNOWN_EVENT,
	  .msg = "PAPI_FP_OPS: no mapping on arm processors" },
	{ L, "sysfs-arm-n1", "PAPI_TOT_INS:z", -HPM_ERR_BAD_MODIFIER, .msg = "unknown modifier" },
	{ L, "sysfs-x86-vm-nopmu", "PAPI_TOT_INS", 0, 1, "PAPI_TOT_INS", 0, 1, 0 },
	/* Intel natives need libpfm4 to know the CPU: not so on this tree */
	{ L, "sysfs-intel-skl", "PAPI_TOT_INS:k", 0, 1, "PAPI_TOT_INS:k", 0, 1, 0 },
};

static void test_as_events(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(erows) / sizeof(erows[0]); i++) {
		const struct erow *r = &erows[i];
		struct hpm_ctx *ctx = ctx_for(r->tree);
		struct hpm_evlist *l = NULL;
		struct hpm_parse_error err;
		char names[512] = "";
		int rc = hpm_evlist__parse(ctx, r->spec, &l, &err);
		if (r->err) {
			if (rc != r->err || !strstr(err.msg, r->msg)) {
				fprintf(stderr, "test-preset.c:%d: '%s': %d '%s'\n", r->line, r->spec, rc,
					err.msg);
				fail();
			}
			if (strstr(r->spec, "PAPI_TOT_IN") && !strstr(r->spec, ":"))
				assert_non_null(strstr(err.suggest, "PAPI_TOT_INS"));
			hpm_ctx__free(ctx);
			continue;
		}
		if (rc) {
			fprintf(stderr, "test-preset.c:%d: '%s': %s\n", r->line, r->spec, err.msg);
			fail();
		}
		for (size_t k = 0; k < hpm_evlist__count(l); k++) {
			const struct hpm_event *ev = hpm_evlist__event(l, k);
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", k ? "," : "",
				 hpm_event__name(ev));
			if (hpm_event__attr(ev)->exclude_kernel != r->excl_kernel) {
				fprintf(stderr, "test-preset.c:%d: '%s' event %zu: exclude_kernel %d\n",
					r->line, r->spec, k, hpm_event__attr(ev)->exclude_kernel);
				fail();
			}
		}
		const struct hpm_event *last = hpm_evlist__event(l, hpm_evlist__count(l) - 1);
		if (hpm_evlist__count(l) != r->count || strcmp(names, r->names) ||
		    hpm_event__leader(last) != r->leader_of_last ||
		    hpm_event__attr(hpm_evlist__event(l, 0))->config != r->config0) {
			fprintf(stderr, "test-preset.c:%d: '%s': %zu events '%s', leader %zu, config %#llx\n",
				r->line, r->spec, hpm_evlist__count(l), names, hpm_event__leader(last),
				(unsigned long long)hpm_event__attr(hpm_evlist__event(l, 0))->config);
			fail();
		}
		hpm_evlist__free(l);
		hpm_ctx__free(ctx);
	}
}

static void test_component(void **state)
{
	char p[64];
	int sign = 0;
	(void)state;
	assert_true(hpm_preset__component("PAPI_L1_TCM:u(+L1-dcache-load-misses)", p, sizeof(p), &sign));
	assert_string_equal(p, "PAPI_L1_TCM:u");
	assert_int_equal(sign, 1);
	assert_true(hpm_preset__component("PAPI_L2_TCH(-l2d_cache_refill)", p, sizeof(p), &sign));
	assert_string_equal(p, "PAPI_L2_TCH");
	assert_int_equal(sign, -1);
	assert_false(hpm_preset__component("PAPI_TOT_INS", p, sizeof(p), &sign));
	assert_false(hpm_preset__component("cycles(+x)", p, sizeof(p), &sign));
	assert_false(hpm_preset__component("PAPI_X(x)", p, sizeof(p), &sign));
	assert_false(hpm_preset__component(NULL, p, sizeof(p), &sign));
}

/* ---- every mapping of a family resolves on its tree ---- */

struct check {
	struct hpm_ctx *ctx;
	const char *family;
	int bad;
};

static int resolve_cb(const struct hpm_preset_info *p, void *arg)
{
	struct check *c = arg;
	struct hpm_evlist *l = NULL;
	struct hpm_parse_error err;

	if (!p->mapping[0])
		return 0;
	if (hpm_evlist__parse(c->ctx, p->name, &l, &err)) {
		fprintf(stderr, "[%s] %s (%s: %s) does not resolve: %s\n", c->family, p->name,
			p->family, p->mapping, err.msg);
		c->bad++;
	}
	hpm_evlist__free(l);
	return 0;
}

/* In a child: force libpfm4's PMU (@force, or none), check every mapping
 * on @tree; exit status = mappings that failed, 77 if libpfm4 lacks it. */
static int check_tree(const char *tree, const char *force, const char *probe)
{
	pid_t pid;
	int st;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		struct check c = { .family = tree };
		if (force)
			setenv("LIBPFM_FORCE_PMU", force, 1);
		c.ctx = ctx_for(tree);
		if (probe) {
			struct hpm_evlist *l = NULL;
			if (hpm_evlist__parse(c.ctx, probe, &l, NULL))
				_exit(SKIP_STATUS);
			hpm_evlist__free(l);
		}
		hpm_preset__foreach(c.ctx, resolve_cb, &c);
		hpm_ctx__free(c.ctx);
		_exit(c.bad > 76 ? 76 : c.bad);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static void test_all_mappings_resolve(void **state)
{
	static const struct { const char *tree, *force, *probe; } t[] = {
		{ "sysfs-arm-n1", NULL, NULL },
		{ "sysfs-x86-vm-nopmu", NULL, NULL },
		{ "sysfs-intel-skl", "skl", "skl::INST_RETIRED:ANY_P" },
		{ "sysfs-amd-zen3", "amd64_fam19h_zen3", "amd64_fam19h_zen3::RETIRED_INSTRUCTIONS" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int rc = check_tree(t[i].tree, t[i].force, t[i].probe);
		if (rc == SKIP_STATUS) {
			fprintf(stderr, "note: this libpfm4 does not know %s: %s not checked\n",
				t[i].force, t[i].tree);
			continue;
		}
		if (rc) {
			fprintf(stderr, "%s: %d preset mappings do not resolve\n", t[i].tree, rc);
			fail();
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_families),
		cmocka_unit_test(test_mappings),
		cmocka_unit_test(test_foreach),
		cmocka_unit_test(test_as_events),
		cmocka_unit_test(test_component),
		cmocka_unit_test(test_all_mappings_resolve),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
