/* SPDX-License-Identifier: MIT */
/*
 * The PMUs one written event stands for (spec-attrs-internal.h): a generic event on a hybrid CPU
 * becomes one event per core PMU, a PMU named without its instance number
 * one event per uncore box, and a group holding such events one group per
 * core PMU, as perf opens them.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "events/spec-attrs-internal.h"

struct cores_find {
	const struct hpm_ctx *ctx;
	struct hpm_core_pmu *core;
	unsigned nr;
};

static int cores_cb(const char *name, void *arg)
{
	struct cores_find *cf = arg;
	uint32_t type;

	if (!hpm_pmu__is_core(cf->ctx, name))
		return 1; /* core PMUs come first: the rest are not */
	if (cf->nr == HPM_MAX_CORE_PMUS || strlen(name) >= HPM_PMU_NAME_MAX ||
	    hpm_pmu__type(cf->ctx, name, &type))
		return 0;
	struct hpm_core_pmu *c = &cf->core[cf->nr++];
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->type = type;
	hpm_pmu__cpus(cf->ctx, name, c->cpus, sizeof(c->cpus));
	return 0;
}

/* The core PMUs of @ctx, the one of type PERF_TYPE_RAW (the kernel's
 * default for hardware events: cpu_core) first. */
static unsigned read_cores(const struct hpm_ctx *ctx, struct hpm_core_pmu *core)
{
	struct cores_find cf = { .ctx = ctx, .core = core };

	hpm_pmu__foreach(ctx, cores_cb, &cf);
	for (unsigned i = 1; i < cf.nr; i++)
		if (core[i].type == PERF_TYPE_RAW) {
			struct hpm_core_pmu main = core[i];
			memmove(&core[1], &core[0], i * sizeof(core[0]));
			core[0] = main;
			break;
		}
	return cf.nr;
}

unsigned hpm_evlist__cores(struct hpm_evlist *l)
{
	if (!l->cores_known) {
		l->nr_cores = read_cores(l->ctx, l->core);
		l->cores_known = true;
	}
	return l->nr_cores;
}

void hpm__attr_main_core(struct hpm_ctx *ctx, struct perf_event_attr *a)
{
	struct hpm_core_pmu core[HPM_MAX_CORE_PMUS];

	if ((a->type != PERF_TYPE_HARDWARE && a->type != PERF_TYPE_HW_CACHE) || a->config >> 32)
		return;
	if (read_cores(ctx, core) > 1)
		a->config |= (uint64_t)core[0].type << 32;
}

/* A generic hardware or cache event not yet aimed at a PMU. */
static bool generic_unaimed(const struct hpm_event *ev)
{
	return (ev->kind == HPM_EV_GENERIC_HW || ev->kind == HPM_EV_GENERIC_CACHE) &&
	       (ev->attr.type == PERF_TYPE_HARDWARE || ev->attr.type == PERF_TYPE_HW_CACHE) &&
	       !(ev->attr.config >> 32);
}

/*
 * On a machine with several core PMUs, event @idx (generic, as written)
 * becomes one event per core PMU, consecutive from @idx, as perf opens it:
 * each aimed at its PMU by the extended hardware type and named
 * "PMU/NAME/". With HPM_EVLIST_MAIN_CORE only the main core PMU's.
 */
int hpm_resolver__expand_generic(struct hpm_resolver *p, size_t idx)
{
	struct hpm_evlist *l = p->list;
	char *names[HPM_MAX_CORE_PMUS] = { 0 };
	unsigned n;
	int rc = 0;

	/* the PMU list only for the events it concerns */
	if (!generic_unaimed(&l->ev[idx]) || (n = hpm_evlist__cores(l)) < 2)
		return 0;
	if (p->flags & HPM_EVLIST_MAIN_CORE)
		n = 1;
	for (unsigned k = 0; k < n; k++)
		if (asprintf(&names[k], "%s/%s/", l->core[k].name, l->ev[idx].name) < 0) {
			names[k] = NULL;
			rc = -ENOMEM;
		}
	for (unsigned k = 1; k < n && !rc; k++) {
		struct hpm_event tmpl = l->ev[idx];
		struct hpm_event *ev = hpm_resolver__append(p, "", 0);
		if (!ev) {
			rc = p->err->err ? p->err->err : -ENOMEM;
			break;
		}
		free(ev->name);
		size_t self = (size_t)(ev - l->ev);
		*ev = tmpl;
		ev->name = names[k];
		names[k] = NULL;
		ev->leader = p->in_group ? tmpl.leader : self;
		ev->merge = self;
	}
	for (unsigned k = 0; k < n && !rc; k++) {
		struct hpm_event *ev = &l->ev[idx + k];
		ev->attr.config = (ev->attr.config & 0xffffffffull) | (uint64_t)l->core[k].type << 32;
		snprintf(ev->pmu, sizeof(ev->pmu), "%s", l->core[k].name);
		snprintf(ev->cpus, sizeof(ev->cpus), "%s", l->core[k].cpus);
		ev->copy = k;
		ev->nr_copies = n;
		if (k == 0) {
			free(ev->name);
			ev->name = names[0];
			names[0] = NULL;
		}
	}
	for (unsigned k = 0; k < n; k++)
		free(names[k]);
	return rc;
}

#define MAX_INSTANCES 256

struct instances {
	const char *prefix;
	char (*name)[HPM_PMU_NAME_MAX];
	long long num[MAX_INSTANCES];
	unsigned nr;
};

/*
 * Does PMU @name answer to @token, as perf matches uncore PMUs? The token
 * with or without perf's "uncore_" prefix (imc for uncore_imc, cbox for
 * uncore_cbox_0), then nothing or '_' and a number in hex digits
 * (uncore_cbox_10, hisi_sccl1_ddrc_ab23). A token that ends inside the
 * number is no match: pmuname_1 is not pmuname_10. *@num: the number,
 * -1 for none (it sorts first).
 */
static bool instance_match(const char *name, const char *token, long long *num)
{
	size_t n = strlen(token);
	const char *rest;

	if (!strncmp(name, token, n))
		rest = name + n;
	else if (!strncmp(name, "uncore_", 7) && !strncmp(name + 7, token, n))
		rest = name + 7 + n;
	else
		return false;
	if (!*rest) {
		*num = -1;
		return rest != name + n; /* the exact name is not an instance */
	}
	if (rest[0] != '_' || !rest[1] || strlen(rest + 1) > 15)
		return false;
	for (const char *c = rest + 1; *c; c++)
		if (!isxdigit((unsigned char)*c))
			return false;
	*num = strtoll(rest + 1, NULL, 16);
	return true;
}

static int instances_cb(const char *name, void *arg)
{
	struct instances *in = arg;
	long long num;

	if (!instance_match(name, in->prefix, &num) || in->nr == MAX_INSTANCES ||
	    strlen(name) >= HPM_PMU_NAME_MAX)
		return 0;
	/* in number order: uncore_cbox_2 before uncore_cbox_10 */
	unsigned at = in->nr;
	while (at && in->num[at - 1] > num) {
		in->num[at] = in->num[at - 1];
		memcpy(in->name[at], in->name[at - 1], sizeof(in->name[0]));
		at--;
	}
	in->num[at] = num;
	snprintf(in->name[at], sizeof(in->name[0]), "%s", name);
	in->nr++;
	return 0;
}

/*
 * PMU '/' terms '/' [[:]mods]. A PMU named without its instance number
 * or perf's "uncore_" prefix (instance_match) stands for every PMU that
 * answers to it: one event per instance (uncore_cbox and cbox for
 * uncore_cbox_0 ... _3), as perf opens them, merged for display
 * (hpm_event__merge_leader).
 */
int hpm_resolver__pmu_event(struct hpm_resolver *p, size_t idx, const struct hpm_spec_event *e)
{
	const char *s = e->s;
	size_t len = e->len, pos = e->pos, plen = e->open;
	const char *end = e->close < len ? s + e->close : NULL;
	char pmuname[HPM_PMU_NAME_MAX];
	struct instances in = { .prefix = pmuname };
	char *written = NULL;
	int rc = 0;

	if (!end)
		return hpm_resolver__fail(p, -HPM_ERR_SYNTAX, pos + len, s, len,
			    "'%.*s' lacks the closing '/' (write PMU/terms/)", (int)len, s);
	if (plen == 0 || plen >= sizeof(pmuname))
		return hpm_resolver__fail(p, -HPM_ERR_SYNTAX, pos, s, plen ? plen : 1,
					  "missing PMU name before '/'");
	memcpy(pmuname, s, plen);
	pmuname[plen] = '\0';
	/* a PMU of that very name is the one meant (armv8_pmuv3_0, cpu) */
	uint32_t type;
	if (hpm_pmu__type(p->list->ctx, pmuname, &type) != -HPM_ERR_UNKNOWN_PMU)
		return hpm_resolver__pmu(p, idx, pmuname, e);
	in.name = malloc(MAX_INSTANCES * sizeof(*in.name));
	if (!in.name)
		return -ENOMEM;
	hpm_pmu__foreach(p->list->ctx, instances_cb, &in);
	if (in.nr < 2) {
		/* one PMU answers to the name (imc for uncore_imc), or none */
		rc = hpm_resolver__pmu(p, idx, in.nr ? in.name[0] : pmuname, e);
		goto out;
	}
	for (unsigned k = 0; k < in.nr && !rc; k++) {
		size_t at = idx;
		if (k) {
			struct hpm_event *ev = hpm_resolver__append(p, s, len);
			if (!ev) {
				rc = p->err->err ? p->err->err : -ENOMEM;
				break;
			}
			at = (size_t)(ev - p->list->ev);
			ev->leader = p->in_group ? p->list->ev[idx].leader : at;
			ev->merge = idx;
		}
		rc = hpm_resolver__pmu(p, at, in.name[k], e);
		if (rc)
			break;
		struct hpm_event *ev = &p->list->ev[at];
		/* name= names the merged line; otherwise perf's name of the
		 * instance: uncore_cbox_0/clockticks/ */
		bool named = strlen(ev->name) != len || strncmp(ev->name, s, len);
		if (!written && !(written = strdup(ev->name))) {
			rc = -ENOMEM;
			break;
		}
		if (!(ev->merged_name = strdup(written))) {
			rc = -ENOMEM;
			break;
		}
		if (!named) {
			char *n = NULL;
			if (asprintf(&n, "%s%.*s", in.name[k], (int)(len - plen), s + plen) < 0) {
				rc = -ENOMEM;
				break;
			}
			free(ev->name);
			ev->name = n;
		}
		ev->copy = k;
		ev->nr_copies = in.nr;
	}
out:
	free(written);
	free(in.name);
	return rc;
}

/*
 * A group some of whose events were expanded to several PMUs (hpm_resolver__event)
 * becomes one group per PMU, as perf splits it: copy j holds event j of
 * each expanded one, and the events that were not expanded go with the
 * copy of their own core PMU (cpu_atom/.../ with the cpu_atom copy) or
 * else the first. Events [first, nr) of the list are the group.
 */
int hpm_resolver__split_group(struct hpm_resolver *p, size_t first)
{
	struct hpm_evlist *l = p->list;
	size_t n = l->nr - first, at = 0;
	unsigned copies = 1;
	struct hpm_event *v;
	size_t *item, *slot;

	for (size_t i = first; i < l->nr; i++)
		if (l->ev[i].nr_copies > copies)
			copies = l->ev[i].nr_copies;
	if (copies == 1)
		return 0;
	v = malloc(n * sizeof(*v));
	item = malloc(n * sizeof(*item));
	slot = malloc(n * sizeof(*slot));
	if (!v || !item || !slot) {
		free(v);
		free(item);
		free(slot);
		return -ENOMEM;
	}
	/* item[i]: the first event of the written event event i came from */
	for (size_t i = 0; i < n; i++) {
		const struct hpm_event *ev = &l->ev[first + i];
		item[i] = ev->copy ? item[i - 1] : i;
	}
	for (unsigned j = 0; j < copies; j++) {
		size_t lead = first + at;
		for (size_t i = 0; i < n; i++) {
			const struct hpm_event *ev = &l->ev[first + i];
			bool take;
			if (ev->nr_copies > 1) {
				take = ev->copy == j;
			} else {
				unsigned home = 0;
				for (unsigned c = 1; c < copies; c++)
					for (size_t k = 0; k < n; k++)
						if (l->ev[first + k].nr_copies > 1 &&
						    l->ev[first + k].copy == c &&
						    !strcmp(l->ev[first + k].pmu, ev->pmu))
							home = c;
				take = home == j;
			}
			if (!take)
				continue;
			v[at] = *ev;
			v[at].leader = lead;
			slot[i] = first + at;
			at++;
		}
	}
	/* merged instances point at their first one's new place */
	for (size_t i = 0; i < n; i++) {
		struct hpm_event *ev = &v[slot[i] - first];
		ev->merge = ev->merged_name ? slot[item[i]] : slot[i];
	}
	memcpy(&l->ev[first], v, n * sizeof(*v));
	free(v);
	free(item);
	free(slot);
	return 0;
}
