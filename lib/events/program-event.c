/* SPDX-License-Identifier: MIT */
/*
 * Events counted in the program rather than by a PMU: "exec:" locations
 * (executions of a place in its code, lib/location/ reads their syntax)
 * and "sw:" software counters (HPM_COUNT in the program, lib/runtime/).
 * The parser gives them a kind of their own; the sessions open them late
 * or read them elsewhere.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <linux/hw_breakpoint.h>

#include "events/evlist-internal.h"
#include "location/location-internal.h"
#include <hpmon/marker.h>
#include "core/error-internal.h"


/* sw:NAME, a software counter named like a C identifier. */
static int parse_swcounter(struct hpm_event *ev, const char *s, size_t len, size_t *errpos,
			   char *msg, size_t msglen)
{
	size_t n = len - 3;

	if (!n || n >= HPM_MARKER_NAME_MAX)
		return hpm__parse_fail(errpos, 3, msg, msglen, -HPM_ERR_SYNTAX,
			    "sw: needs the name of a software counter (HPM_COUNT(NAME) "
			    "in the program), at most %d characters",
			    HPM_MARKER_NAME_MAX - 1);
	for (size_t i = 3; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return hpm__parse_fail(errpos, i, msg, msglen, -HPM_ERR_SYNTAX,
				    "'%.*s': a software counter is named like a C "
				    "identifier (HPM_COUNT(NAME)); sw: takes no modifiers",
				    (int)len, s);
	ev->kind = HPM_EV_SWCOUNTER;
	ev->attr.type = PERF_TYPE_SOFTWARE;
	ev->attr.config = PERF_COUNT_SW_DUMMY;
	snprintf(ev->pmu, sizeof(ev->pmu), "sw");
	return 0;
}

int hpm__parse_program_event(struct hpm_event *ev, const char *s, size_t len, bool grouped,
			     size_t *errpos, char *msg, size_t msglen)
{
	struct hpm_location loc;
	int rc;

	if (grouped)
		return hpm__parse_fail(errpos, 0, msg, msglen, -HPM_ERR_SYNTAX,
			    "'%.*s' cannot be in a group: it is not counted by the PMU "
			    "(take it out of the braces)", (int)len, s);
	if (!strncmp(s, "sw:", 3))
		return parse_swcounter(ev, s, len, errpos, msg, msglen);
	/* only the form is checked: a session resolves the place */
	rc = hpm__loc_parse(s, len, &loc, errpos, msg, msglen);
	if (rc)
		return rc;
	/* A placeholder until a session resolves it: an empty breakpoint,
	 * which the kernel refuses (EINVAL), so that a tool opening it as it
	 * is fails instead of counting nothing. */
	ev->kind = HPM_EV_LOCATION;
	ev->attr.type = PERF_TYPE_BREAKPOINT;
	ev->attr.bp_type = HW_BREAKPOINT_EMPTY;
	ev->attr.sample_period = 1;
	ev->explicit_priv = true;
	snprintf(ev->pmu, sizeof(ev->pmu), "exec");
	return 0;
}

bool hpm__event_is_location(const struct hpm_event *ev)
{
	return ev->kind == HPM_EV_LOCATION;
}

bool hpm__event_is_marker(const struct hpm_event *ev)
{
	return ev->kind == HPM_EV_SWCOUNTER;
}
