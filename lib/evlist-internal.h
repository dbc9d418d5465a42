/* SPDX-License-Identifier: MIT */
#ifndef HPM_EVLIST_INTERNAL_H
#define HPM_EVLIST_INTERNAL_H

#include <hpmon/event.h>
#include "ctx-internal.h"
#include "pmu-internal.h"

#define HPM_MAX_EVENTS 1024

struct hpm_event {
	char *name;               /* as written, or from name= */
	enum hpm_event_kind kind;
	struct perf_event_attr attr;
	size_t leader;            /* index in the list */
	char pmu[HPM_PMU_NAME_MAX];
	char unit[32];
	double scale;
	bool explicit_priv;       /* the user chose u/k/h: no fallback */
};

struct hpm_evlist {
	struct hpm_ctx *ctx;
	struct hpm_event *ev;
	size_t nr, cap;
};

/* libpfm4 ready (lib/pfm.c; see pfm-internal.h). 0 or -HPM_ERR_PFM. */
int hpm_pfm__init(void);

/* Edit distance between @a and @b (case-insensitive), capped at @cap. */
unsigned hpm__edit_distance(const char *a, const char *b, unsigned cap);

#endif
