/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <hpmon/hpmon.h>
#include "core/data-internal.h"
#include "events/generic-internal.h"

static const char *const kind_words[] = {
	[HPM_GEN_HW] = "hw", [HPM_GEN_SW] = "sw", [HPM_GEN_UNIT] = "unit",
	[HPM_GEN_OP] = "op", [HPM_GEN_RESULT] = "result",
};

int hpm_generic__foreach(hpm_generic_fn fn, void *arg)
{
	const char *text = hpm_data__get("generic-events.txt");
	struct hpm_data_line line = { 0 };
	size_t pos = 0;

	if (!text)
		return -ENOENT;
	while (hpm_data__next(text, &pos, 4, &line)) {
		struct hpm_generic_entry e = { 0 };
		size_t k;
		if (line.nr < 3)
			continue;
		for (k = 0; k < sizeof(kind_words) / sizeof(kind_words[0]); k++)
			if (!strcmp(line.field[0], kind_words[k]))
				break;
		if (k == sizeof(kind_words) / sizeof(kind_words[0]))
			continue;
		e.kind = (enum hpm_generic_kind)k;
		e.names = line.field[1];
		e.names_len = strlen(line.field[1]);
		e.config = strtoull(line.field[2], NULL, 0);
		e.desc = line.nr > 3 ? line.field[3] : "";
		int rc = fn(&e, arg);
		if (rc)
			return rc;
	}
	return 0;
}

void hpm_generic__canonical(const struct hpm_generic_entry *e, char *buf,
			    size_t len)
{
	const char *bar = memchr(e->names, '|', e->names_len);
	size_t n = bar ? (size_t)(bar - e->names) : e->names_len;
	if (n >= len)
		n = len - 1;
	memcpy(buf, e->names, n);
	buf[n] = '\0';
}

/* Does '|'-list @names contain @word (of length @wlen)? */
static bool names_match(const char *names, const char *word, size_t wlen,
			bool nocase)
{
	const char *p = names;
	while (*p) {
		const char *bar = strchr(p, '|');
		size_t n = bar ? (size_t)(bar - p) : strlen(p);
		if (n == wlen && (nocase ? !strncasecmp(p, word, n) : !strncmp(p, word, n)))
			return true;
		if (!bar)
			break;
		p = bar + 1;
	}
	return false;
}

struct find {
	const char *word;
	size_t len;
	enum hpm_generic_kind kind; /* HW or SW: either; else exactly */
	bool any_plain;
	long found;
	enum hpm_generic_kind found_kind;
};

static int find_cb(const struct hpm_generic_entry *e, void *arg)
{
	struct find *f = arg;
	bool kind_ok = f->any_plain ? (e->kind == HPM_GEN_HW || e->kind == HPM_GEN_SW)
				    : e->kind == f->kind;
	if (!kind_ok)
		return 0;
	if (!names_match(e->names, f->word, f->len, !f->any_plain))
		return 0;
	f->found = (long)e->config;
	f->found_kind = e->kind;
	return 1;
}

static long find(const char *word, size_t len, enum hpm_generic_kind kind,
		 bool plain, enum hpm_generic_kind *kind_out)
{
	struct find f = { .word = word, .len = len, .kind = kind,
			  .any_plain = plain, .found = -1 };
	hpm_generic__foreach(find_cb, &f);
	if (kind_out)
		*kind_out = f.found_kind;
	return f.found;
}

/*
 * Cache names are UNIT-OP-RESULT, UNIT-OP or UNIT-RESULT, where UNIT may
 * itself contain '-' (L1-dcache). Try every split of the dashes.
 */
static int resolve_cache(const char *name, struct perf_event_attr *attr)
{
	size_t n = strlen(name);
	for (size_t i = 1; i < n; i++) {
		if (name[i] != '-')
			continue;
		long unit = find(name, i, HPM_GEN_UNIT, false, NULL);
		if (unit < 0)
			continue;
		const char *rest = name + i + 1;
		const char *dash = strchr(rest, '-');
		long op = -1, res = -1;
		if (dash) {
			op = find(rest, (size_t)(dash - rest), HPM_GEN_OP, false, NULL);
			res = find(dash + 1, strlen(dash + 1), HPM_GEN_RESULT, false, NULL);
			if (op < 0 || res < 0)
				continue;
		} else {
			op = find(rest, strlen(rest), HPM_GEN_OP, false, NULL);
			if (op >= 0) {
				res = PERF_COUNT_HW_CACHE_RESULT_ACCESS;
			} else {
				res = find(rest, strlen(rest), HPM_GEN_RESULT, false, NULL);
				if (res < 0)
					continue;
				op = PERF_COUNT_HW_CACHE_OP_READ;
			}
		}
		attr->type = PERF_TYPE_HW_CACHE;
		attr->config = (uint64_t)unit | ((uint64_t)op << 8) | ((uint64_t)res << 16);
		return 0;
	}
	return -HPM_ERR_UNKNOWN_EVENT;
}

int hpm_generic__resolve(const char *name, struct perf_event_attr *attr)
{
	enum hpm_generic_kind kind;
	long cfg = find(name, strlen(name), HPM_GEN_HW, true, &kind);
	if (cfg >= 0) {
		attr->type = kind == HPM_GEN_HW ? PERF_TYPE_HARDWARE : PERF_TYPE_SOFTWARE;
		attr->config = (uint64_t)cfg;
		return 0;
	}
	return resolve_cache(name, attr);
}
