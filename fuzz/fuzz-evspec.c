/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: an event specification, resolved against a recorded
 * Skylake sysfs tree (with its uncore, msr and power PMUs, four uncore_cbox
 * instances), a recorded Alder Lake tree (hybrid: cpu_core and cpu_atom)
 * and this machine's own /sys. Everything is freed, so leaks show up too.
 * Built by fuzz/CMakeLists.txt, run by scripts/fuzz.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <hpmon/event.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
static int fuzz_one(const uint8_t *data, size_t size);

/* Specs longer than this say nothing new and only slow the search down. */
#define MAX_SPEC 4096

static struct hpm_ctx *recorded, *hybrid, *real;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct hpm_ctx_opts o = {
		.sz = sizeof(o),
		.sysfs_root = HPM_TEST_DATA "/sysfs-intel-skl",
		.procfs_root = "/proc",
		.tracefs_root = HPM_TEST_DATA "/tracefs",
	};

	(void)argc;
	(void)argv;
	recorded = hpm_ctx__new(&o);
	o.sysfs_root = HPM_TEST_DATA "/sysfs-intel-adl";
	hybrid = hpm_ctx__new(&o);
	real = hpm_ctx__new(NULL);
	if (!recorded || !hybrid || !real)
		abort();
	return 0;
}

/* Touch everything a caller could read from a resolved list. */
static void walk(const struct hpm_evlist *list)
{
	char buf[96];
	size_t n = hpm_evlist__count(list);

	for (size_t i = 0; i < n; i++) {
		const struct hpm_event *ev = hpm_evlist__event(list, i);
		const struct perf_event_attr *a = hpm_event__attr(ev);

		if (hpm_event__leader(ev) > i || strlen(hpm_event__name(ev)) > MAX_SPEC + 64 ||
		    a->size == 0)
			abort();
		/* a merged set's first event leads the set and is one of it */
		size_t m = hpm_event__merge_leader(ev);
		if (m > i || hpm_event__merge_leader(hpm_evlist__event(list, m)) != m ||
		    strlen(hpm_event__merged_name(ev)) > MAX_SPEC)
			abort();
		(void)hpm_event__on_cpu(ev, 0);
		(void)strlen(hpm_event__pmu(ev));
		(void)strlen(hpm_event__unit(ev));
		(void)hpm_event__scale(ev);
		(void)hpm_event__kind(ev);
		(void)hpm_event__is_clock(ev);
		(void)hpm_event__describe(ev, buf, sizeof(buf));
		(void)hpm_event__describe(ev, buf, 1);
	}
	if (hpm_evlist__event(list, n))
		abort();
}

static void one(struct hpm_ctx *ctx, const char *spec)
{
	struct hpm_evlist *list = NULL;
	struct hpm_parse_error err;
	int rc = hpm_evlist__parse(ctx, spec, &list, &err);

	if (rc == 0) {
		walk(list);
		/* appending the same spec again must work and double the list */
		size_t n = hpm_evlist__count(list);
		if (hpm_evlist__add(list, spec, NULL) == 0 && hpm_evlist__count(list) != 2 * n)
			abort();
		hpm_evlist__free(list);
		return;
	}
	/* a failure leaves no list and a NUL-terminated, positioned error */
	if (list || rc != err.err || err.pos > strlen(spec) ||
	    !memchr(err.msg, 0, sizeof(err.msg)) || !memchr(err.token, 0, sizeof(err.token)) ||
	    !memchr(err.suggest, 0, sizeof(err.suggest)))
		abort();
	(void)strlen(hpm_strerror(rc));
}

static int fuzz_one(const uint8_t *data, size_t size)
{
	char *spec;

	if (size > MAX_SPEC)
		return 0;
	spec = malloc(size + 1);
	if (!spec)
		return 0;
	memcpy(spec, data, size);
	spec[size] = '\0';
	one(recorded, spec);
	one(hybrid, spec);
	one(real, spec);
	free(spec);
	return 0;
}

#include "fuzz-cpu.h"
