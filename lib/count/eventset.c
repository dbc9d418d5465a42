/* SPDX-License-Identifier: MIT */
/*
 * hpm_eventset__new() (include/hpmon/counters.h): an event set from a spec
 * in perf's syntax. It parses the spec, refuses the events only hpmon can
 * count, and opens the rest with the runtime's constructor
 * (lib/runtime/eventset.c, in libhpmon-rt), which also reads them.
 *
 * Ownership: the event list parsed here is freed before returning; the
 * set owns copies of the events' names.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events/evlist-internal.h"
#include "runtime/eventset-internal.h"

static bool is_program_event(const struct hpm_event *ev)
{
	return hpm__event_is_location(ev) || hpm__event_is_marker(ev);
}

/* @err says that event @ev needs hpmon; -EINVAL. */
static int refuse_program_event(const struct hpm_event *ev, struct hpm_parse_error *err)
{
	memset(err, 0, sizeof(*err));
	err->err = -EINVAL;
	snprintf(err->token, sizeof(err->token), "%s", ev->name);
	snprintf(err->msg, sizeof(err->msg),
		 "'%s' needs hpmon (exec: and sw: events are measured by "
		 "'hpmon stat'), an event set cannot count it", ev->name);
	return -EINVAL;
}

/* An event only a hardware (core) PMU counts. */
static bool is_hardware_event(const struct hpm_event *ev)
{
	uint32_t t = ev->attr.type;
	return t == PERF_TYPE_HARDWARE || t == PERF_TYPE_HW_CACHE || t == PERF_TYPE_RAW ||
	       ev->kind == HPM_EV_NATIVE;
}

/*
 * @err says why event @ev could not be opened (@rc = -errno). The kernel
 * says ENOENT (or EOPNOTSUPP, ENODEV) for a hardware event on a machine
 * with no hardware PMU (a virtual machine without PMU passthrough):
 * "No such file or directory" names neither the cause nor a way on, so
 * the cause is said as hpmon stat says it.
 */
static void explain_open(struct hpm_ctx *ctx, const struct hpm_event *ev, int rc,
			 struct hpm_parse_error *err)
{
	char core[64];
	bool no_pmu = (rc == -ENOENT || rc == -EOPNOTSUPP || rc == -ENODEV) &&
		      is_hardware_event(ev) && hpm_pmu__core_name(ctx, core, sizeof(core)) != 0;

	if (no_pmu)
		snprintf(err->msg, sizeof(err->msg),
			 "cannot open '%s': this machine exposes no hardware PMU (a virtual "
			 "machine without PMU passthrough?): count software events "
			 "(task-clock, page-faults) instead", ev->name);
	else
		snprintf(err->msg, sizeof(err->msg), "cannot open '%s': %s", ev->name,
			 hpm_strerror(rc));
}

struct hpm_eventset *hpm_eventset__new(struct hpm_ctx *ctx, const char *spec,
				       const struct hpm_eventset_opts *opts,
				       struct hpm_parse_error *err)
{
	struct hpm_parse_error local;
	struct hpm_evlist *list = NULL;
	struct hpm_eventset *es = NULL;
	struct perf_event_attr *attrs = NULL;
	const char **names = NULL;
	bool *drop = NULL;
	size_t n, bad = 0;
	int rc;

	if (!err)
		err = &local;
	rc = hpm_evlist__parse(ctx, spec, &list, err);
	if (rc) {
		errno = -rc;
		return NULL;
	}
	n = list->nr;
	attrs = calloc(n, sizeof(*attrs));
	names = calloc(n, sizeof(*names));
	drop = calloc(n, sizeof(*drop));
	if (!attrs || !names || !drop) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const struct hpm_event *ev = &list->ev[i];
		if (is_program_event(ev)) {
			rc = refuse_program_event(ev, err);
			goto out;
		}
		attrs[i] = ev->attr;
		names[i] = ev->name;
		/* :u/:k/:h written by the user: no user-only fallback */
		drop[i] = !ev->explicit_priv;
	}
	es = hpm__eventset_open(attrs, names, drop, n, opts, &bad, &rc);
	if (!es) {
		memset(err, 0, sizeof(*err));
		err->err = rc;
		if (bad < n) {
			snprintf(err->token, sizeof(err->token), "%s", list->ev[bad].name);
			explain_open(ctx, &list->ev[bad], rc, err);
		}
	}
out:
	free(attrs);
	free(names);
	free(drop);
	hpm_evlist__free(list);
	if (!es)
		errno = -rc;
	return es;
}
