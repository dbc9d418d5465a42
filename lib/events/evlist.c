/* SPDX-License-Identifier: MIT */
/*
 * The event list object and its events' accessors (hpmon/event.h); what
 * fills it from a specification is events/spec.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events/evlist-internal.h"

struct hpm_evlist *hpm_evlist__new(struct hpm_ctx *ctx)
{
	struct hpm_evlist *l;
	if (!ctx) {
		errno = EINVAL;
		return NULL;
	}
	l = calloc(1, sizeof(*l));
	if (l)
		l->ctx = ctx;
	return l;
}

void hpm_evlist__free(struct hpm_evlist *list)
{
	if (!list)
		return;
	for (size_t i = 0; i < list->nr; i++) {
		free(list->ev[i].name);
		free(list->ev[i].merged_name);
	}
	free(list->ev);
	free(list);
}

size_t hpm_evlist__count(const struct hpm_evlist *list) { return list->nr; }

struct hpm_event *hpm_evlist__event(const struct hpm_evlist *list, size_t idx)
{
	return idx < list->nr ? &list->ev[idx] : NULL;
}

const char *hpm_event__name(const struct hpm_event *ev) { return ev->name; }
enum hpm_event_kind hpm_event__kind(const struct hpm_event *ev) { return ev->kind; }
const struct perf_event_attr *hpm_event__attr(const struct hpm_event *ev) { return &ev->attr; }
size_t hpm_event__leader(const struct hpm_event *ev) { return ev->leader; }
const char *hpm_event__pmu(const struct hpm_event *ev) { return ev->pmu; }
const char *hpm_event__unit(const struct hpm_event *ev) { return ev->unit; }
double hpm_event__scale(const struct hpm_event *ev) { return ev->scale; }

size_t hpm_event__merge_leader(const struct hpm_event *ev) { return ev->merge; }
const char *hpm_event__cpus(const struct hpm_event *ev) { return ev->cpus; }
const char *hpm_event__group_name(const struct hpm_event *ev) { return ev->group; }
const char *hpm_event__call_graph(const struct hpm_event *ev) { return ev->call_graph; }
unsigned hpm_event__stack_size(const struct hpm_event *ev) { return ev->stack_size; }
int hpm_event__time(const struct hpm_event *ev) { return ev->has_time ? ev->time : -1; }

const char *hpm_event__merged_name(const struct hpm_event *ev)
{
	return ev->merged_name ? ev->merged_name : ev->name;
}

bool hpm__cpu_in_list(const char *cpus, int cpu)
{
	const char *p = cpus;

	if (!cpus[0])
		return true;
	while (*p) {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo;
		if (end == p)
			return false;
		p = end;
		if (*p == '-') {
			hi = strtol(p + 1, &end, 10);
			if (end == p + 1)
				return false;
			p = end;
		}
		if (cpu >= lo && cpu <= hi)
			return true;
		if (*p != ',')
			return false;
		p++;
	}
	return false;
}

bool hpm_event__on_cpu(const struct hpm_event *ev, int cpu)
{
	return hpm__cpu_in_list(ev->cpus, cpu);
}

bool hpm_event__is_clock(const struct hpm_event *ev)
{
	return ev->attr.type == PERF_TYPE_SOFTWARE &&
	       (ev->attr.config == PERF_COUNT_SW_TASK_CLOCK ||
		ev->attr.config == PERF_COUNT_SW_CPU_CLOCK);
}

int hpm_event__describe(const struct hpm_event *ev, char *buf, size_t len)
{
	const struct perf_event_attr *a = &ev->attr;
	char full[128];
	int n = snprintf(full, sizeof(full), "type=%u,config=%#llx", a->type,
			 (unsigned long long)a->config);
	if (a->config1)
		n += snprintf(full + n, sizeof(full) - (size_t)n, ",config1=%#llx",
			      (unsigned long long)a->config1);
	if (a->config2)
		n += snprintf(full + n, sizeof(full) - (size_t)n, ",config2=%#llx",
			      (unsigned long long)a->config2);
	if (len)
		snprintf(buf, len, "%s", full);
	return n;
}
