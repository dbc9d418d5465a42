/* SPDX-License-Identifier: MIT */
/* Processor families, from data/families.txt. */
#include <errno.h>
#include <limits.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hpmon/preset.h>
#include "core/data-internal.h"
#include "events/family-internal.h"
#include "events/pmu-internal.h"

static const char *family_text(void)
{
	return hpm_data__get("families.txt");
}

/* A number field of families.txt; 0 when it is none. */
static int field_int(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);
	return end == s || v < INT_MIN || v > INT_MAX ? 0 : (int)v;
}

static int load(const char *name, struct hpm_family *out)
{
	const char *text = family_text();
	struct hpm_data_line line = { 0 };
	size_t pos = 0;
	bool found = false;

	memset(out, 0, sizeof(*out));
	if (!text)
		return -ENOENT;
	while (hpm_data__next(text, &pos, 5, &line)) {
		if (line.nr >= 3 && !strcmp(line.field[0], "family") &&
		    !strcmp(line.field[1], name)) {
			snprintf(out->name, sizeof(out->name), "%s", name);
			found = true;
			/* parent is kept in chain[1] for the walk below */
			if (strcmp(line.field[2], "-"))
				snprintf(out->chain[1], sizeof(out->chain[1]), "%s", line.field[2]);
		} else if (line.nr >= 4 && !strcmp(line.field[0], "counters") &&
			   !strcmp(line.field[1], name)) {
			out->nr_general = field_int(line.field[2]);
			out->nr_fixed = field_int(line.field[3]);
		}
	}
	return found ? 0 : -ENOENT;
}

int hpm_family__get(const char *name, struct hpm_family *out)
{
	struct hpm_family f;
	int rc;

	if (!name || strlen(name) >= HPM_FAMILY_NAME_MAX)
		return -ENOENT;
	rc = load(name, out);
	if (rc)
		return rc;
	snprintf(out->chain[0], sizeof(out->chain[0]), "%s", name);
	out->nr_chain = 1;
	/* walk the parents: intel -> generic -> software */
	char parent[HPM_FAMILY_NAME_MAX];
	snprintf(parent, sizeof(parent), "%s", out->chain[1]);
	out->chain[1][0] = '\0';
	while (parent[0] && out->nr_chain < HPM_FAMILY_MAX_CHAIN) {
		if (load(parent, &f))
			break;
		snprintf(out->chain[out->nr_chain++], sizeof(out->chain[0]), "%s", parent);
		snprintf(parent, sizeof(parent), "%s", f.chain[1]);
	}
	return 0;
}

static bool rule_matches(const struct hpm_ctx *ctx, const char *core,
			 const struct hpm_data_line *l)
{
	const char *test = l->field[2];
	char path[PATH_MAX], buf[256];

	if (!strcmp(test, "none"))
		return true;
	if (!core[0])
		return false;
	if (!strcmp(test, "core"))
		return true;
	if (!strcmp(test, "name"))
		return l->nr >= 4 && fnmatch(l->field[3], core, 0) == 0;
	if (!strcmp(test, "caps") && l->nr >= 4)
		return hpm__path(path, sizeof(path), ctx->sysfs,
				 "bus/event_source/devices/%s/caps/%s", core, l->field[3]) == 0 &&
		       access(path, F_OK) == 0;
	if (!strcmp(test, "format") && l->nr >= 5)
		return hpm__path(path, sizeof(path), ctx->sysfs,
				 "bus/event_source/devices/%s/format/%s", core, l->field[3]) == 0 &&
		       hpm__read_text(path, buf, sizeof(buf)) > 0 && !strcmp(buf, l->field[4]);
	return false;
}

int hpm_family__detect_into(const struct hpm_ctx *ctx, struct hpm_family *out)
{
	const char *text = family_text();
	struct hpm_data_line line = { 0 };
	char core[HPM_PMU_NAME_MAX] = "";
	size_t pos = 0;

	if (!text)
		return -ENOENT;
	if (hpm_pmu__core_name(ctx, core, sizeof(core)))
		core[0] = '\0';
	while (hpm_data__next(text, &pos, 5, &line))
		if (line.nr >= 3 && !strcmp(line.field[0], "detect") &&
		    rule_matches(ctx, core, &line))
			return hpm_family__get(line.field[1], out);
	return hpm_family__get("software", out);
}

int hpm_family__detect(struct hpm_ctx *ctx, char *buf, size_t len)
{
	struct hpm_family f;
	int rc;

	if (!ctx || !buf || !len)
		return -EINVAL;
	rc = hpm_family__detect_into(ctx, &f);
	if (rc)
		return rc;
	snprintf(buf, len, "%s", f.name);
	return 0;
}

int hpm_family__foreach_fixed(const char *family, hpm_family_fixed_fn fn, void *arg)
{
	const char *text = family_text();
	struct hpm_data_line line = { 0 };
	size_t pos = 0;

	if (!text)
		return 0;
	while (hpm_data__next(text, &pos, HPM_DATA_MAX_FIELDS, &line)) {
		if (line.nr < 4 || strcmp(line.field[0], "fixed") || strcmp(line.field[1], family))
			continue;
		for (size_t i = 3; i < line.nr; i++) {
			int rc = fn(line.field[i], field_int(line.field[2]), arg);
			if (rc)
				return rc;
		}
	}
	return 0;
}
