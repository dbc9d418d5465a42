/* SPDX-License-Identifier: MIT */
/*
 * An event of the vendor's table written bare (spec-attrs-internal.h):
 * INST_RETIRED.ANY, inst_retired.any:u, UNC_M_CAS_COUNT.RD. perf 6.1 adds
 * the model's table to the PMUs' aliases, so such a name is an alias of
 * every PMU its table line names: written as PMU/NAME/mods on each, it
 * becomes one event per uncore box (uncore_imc_0 ...) and one per core
 * PMU of a hybrid CPU whose table lists it for both, as perf opens them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events/spec-attrs-internal.h"
#include "events/spec-terms-internal.h"
#include "events/vendor-internal.h"

static int set_name(struct hpm_event *ev, const char *s, size_t len)
{
	char *n = strndup(s, len);

	if (!n)
		return -ENOMEM;
	free(ev->name);
	ev->name = n;
	return 0;
}

/* Event @idx as PMU/NAME/mods on PMU @pmu (a box prefix expands). */
static int on_pmu(struct hpm_resolver *p, size_t idx, const char *pmu, const char *name,
		  size_t nlen, const char *mods, size_t mlen, size_t pos)
{
	struct hpm_spec_event e;
	char *text = NULL;
	int n, rc;

	n = asprintf(&text, "%s/%.*s/%.*s", pmu, (int)nlen, name, (int)mlen, mods ? mods : "");
	if (n < 0)
		return -ENOMEM;
	hpm_spec_event__cut(&e, text, (size_t)n, pos);
	rc = set_name(&p->list->ev[idx], text, (size_t)n);
	if (!rc)
		rc = hpm_resolver__pmu_event(p, idx, &e);
	free(text);
	return rc;
}

/* The sysfs PMUs a table line of PMU @tpmu stands for: "cpu", every core
 * PMU (perf: a PMU named cpu, or each Arm core PMU); any other name
 * itself (its boxes expand later). */
static unsigned targets(struct hpm_resolver *p, const char *tpmu, const char **out, unsigned max)
{
	struct hpm_evlist *l = p->list;
	uint32_t type;
	unsigned n = 0, cores;

	if (strcmp(tpmu, "cpu")) {
		out[0] = tpmu;
		return 1;
	}
	if (hpm_pmu__type(l->ctx, "cpu", &type) == 0) {
		out[0] = "cpu";
		return 1;
	}
	cores = hpm_evlist__cores(l);
	for (unsigned k = 0; k < cores && n < max; k++)
		out[n++] = l->core[k].name;
	return n;
}

int hpm_resolver__vendor_event(struct hpm_resolver *p, size_t idx, const char *s, size_t len,
			       size_t nlen, size_t pos)
{
	struct hpm_evlist *l = p->list;
	const struct hpm_vendor_event *v;
	const char *pmus[HPM_MAX_CORE_PMUS];
	const char *mods = nlen < len ? s + nlen + 1 : NULL;
	size_t mlen = nlen < len ? len - nlen - 1 : 0;
	char name[128], *written = NULL;
	size_t nr, n = 0;
	int rc;

	if (nlen >= sizeof(name))
		return -ENOENT;
	memcpy(name, s, nlen);
	name[nlen] = '\0';
	if (hpm__vendor_event(l->ctx, name, &v, &nr))
		return -ENOENT;
	/* the PMUs, in the order of the list's core PMUs for a hybrid name */
	if (nr > 1) {
		unsigned cores = hpm_evlist__cores(l);
		for (unsigned k = 0; k < cores && n < HPM_MAX_CORE_PMUS; k++)
			for (size_t i = 0; i < nr; i++)
				if (!strcmp(v[i].pmu, l->core[k].name))
					pmus[n++] = v[i].pmu;
		if (p->flags & HPM_EVLIST_MAIN_CORE && n > 1)
			n = 1;
	}
	if (!n)
		n = targets(p, v[0].pmu, pmus, HPM_MAX_CORE_PMUS);
	if (!n && !strcmp(v[0].pmu, "cpu"))
		return hpm_resolver__fail(p, -HPM_ERR_UNKNOWN_PMU, pos, s, nlen,
					  "event %s counts on the processor's own PMU, and sysfs "
					  "shows none here (a virtual machine without PMU "
					  "passthrough?)", v[0].name);
	if (!n)
		return hpm_resolver__fail(p, -HPM_ERR_UNKNOWN_PMU, pos, s, nlen,
					  "event %s counts on PMU %s, which this machine does "
					  "not show", v[0].name, v[0].pmu);
	if (!(written = strndup(s, len)))
		return -ENOMEM;
	rc = on_pmu(p, idx, pmus[0], s, nlen, mods, mlen, pos);
	/* the merged line of uncore boxes is named as written */
	for (size_t i = idx; !rc && i < l->nr; i++)
		if (l->ev[i].merged_name) {
			free(l->ev[i].merged_name);
			if (!(l->ev[i].merged_name = strdup(written)))
				rc = -ENOMEM;
		}
	if (n == 1 && !rc && l->nr == idx + 1) {
		/* one PMU, one box: the event keeps the name it is written with */
		rc = set_name(&l->ev[idx], written, len);
		goto out;
	}
	/* a hybrid name: one event per core PMU, each named PMU/NAME/ */
	for (unsigned k = 1; k < n && !rc; k++) {
		struct hpm_event *ev = hpm_resolver__append(p, "", 0);
		if (!ev) {
			rc = p->err->err ? p->err->err : -ENOMEM;
			break;
		}
		size_t at = (size_t)(ev - l->ev);
		ev->leader = p->in_group ? l->ev[idx].leader : at;
		ev->merge = at;
		rc = on_pmu(p, at, pmus[k], s, nlen, mods, mlen, pos);
		ev = &l->ev[at];
		ev->copy = k;
		ev->nr_copies = (unsigned)n;
	}
	if (!rc && n > 1) {
		l->ev[idx].copy = 0;
		l->ev[idx].nr_copies = (unsigned)n;
	}
out:
	free(written);
	return rc;
}
