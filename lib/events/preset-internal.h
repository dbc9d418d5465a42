/* SPDX-License-Identifier: MIT */
/* Room: lib/events/ owns event syntax to perf_event_attr; may use location, core, runtime, sys. */
/* PAPI presets for the event specification's attrs stage
 * (lib/events/spec-attrs-forms.c). */
/* Ownership: expansions are values in the caller's storage. */
#ifndef HPM_PRESET_INTERNAL_H
#define HPM_PRESET_INTERNAL_H

#include <stddef.h>
#include <hpmon/preset.h>
#include "core/ctx-internal.h"

#define HPM_PRESET_MAX_TERMS 8

struct hpm_preset_term {
	char spec[224];  /* event spec with the preset's modifiers appended */
	char name[256];  /* the event's name: "PAPI_X:u" or "PAPI_X:u(+TERM)" */
	int sign;        /* +1 or -1 */
};

struct hpm_preset_expansion {
	unsigned nr;
	struct hpm_preset_term term[HPM_PRESET_MAX_TERMS];
	char msg[256];   /* on failure: why */
	char suggest[192];
};

/*
 * Expand @s (@len bytes: "PAPI_NAME" or "PAPI_NAME:MODS") into its terms.
 * Returns 0; -ENOENT when @s does not start with "PAPI_"; or
 * -HPM_ERR_UNKNOWN_EVENT with @out->msg (and suggestions) when it names no
 * preset or one without a mapping here.
 */
int hpm_preset__expand(struct hpm_ctx *ctx, const char *s, size_t len,
		       struct hpm_preset_expansion *out);

#endif
