/* SPDX-License-Identifier: MIT */
/* The sort keys of a report's rows (report/report.h): their names, their
 * text, and the rows' order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report-internal.h"

const char *const rep_key_names[SK_MAX] = { "comm", "pid", "tid", "dso", "sym", "line", "cpu",
					     "rank", "host" };

uint64_t rep_key_value(const struct rep *r, const struct rep_row *row, enum sort_key k)
{
	uint64_t v = row->key[rep_key_word(k)];
	uint32_t hi = (uint32_t)(v >> 32);

	if (v == REP_KEY_CAPPED)
		return v;
	switch (k) {
	case SK_CPU: return (uint32_t)v;
	case SK_RANK: return hi ? hi - 1 : REP_NO_RANK;
	case SK_HOST: return r->by_rank ? (hi ? ranks__host_of_rank(r, hi - 1) : 0) : hi;
	default: return v;
	}
}

const char *rep_key_text(const struct rep *r, const struct rep_row *row, enum sort_key k,
			 char *buf, size_t len)
{
	uint64_t v = rep_key_value(r, row, k);
	if (v == REP_KEY_CAPPED)
		return REP_CAPPED_NAME; /* the row of everything past the memory cap */
	switch (k) {
	case SK_COMM: return rep_str(r, v);
	case SK_PID:
	case SK_TID:
	case SK_CPU:
		snprintf(buf, len, "%llu", (unsigned long long)v);
		return buf;
	case SK_DSO:
		return v < r->nr_dsos ? r->dsos[v].base : "?";
	case SK_SYM:
		return v < r->nr_syms ? r->syms[v].name : "?";
	case SK_RANK:
		if (v == REP_NO_RANK)
			return "-"; /* a task of no rank: the idle task, or not a merge */
		snprintf(buf, len, "%llu", (unsigned long long)v);
		return buf;
	case SK_HOST:
		return v ? rep_str(r, v) : "-";
	case SK_LINE: {
		if (!v || v >= r->nr_lines)
			return "?";
		const char *f = r->lines[v].file, *sl = strrchr(f, '/');
		snprintf(buf, len, "%s:%u", sl ? sl + 1 : f, r->lines[v].line);
		return buf;
	}
	default:
		return "";
	}
}

static const struct rep *sort_rep; /* qsort has no argument pointer */

static int cmp_row(const void *a, const void *b)
{
	const struct rep_row *x = a, *y = b;
	uint32_t e = sort_rep->main_ev;
	if (x->period[e] != y->period[e])
		return x->period[e] > y->period[e] ? -1 : 1;
	for (uint32_t i = 0; i < sort_rep->nr_ev; i++)
		if (x->period[i] != y->period[i])
			return x->period[i] > y->period[i] ? -1 : 1;
	return memcmp(x->key, y->key, sizeof(x->key));
}

void rep_sort_rows(struct rep *r)
{
	r->last_row = 0;
	sort_rep = r;
	if (r->nr_rows > 1) /* an empty profile has no rows array at all */
		qsort(r->rows, r->nr_rows, sizeof(*r->rows), cmp_row);
	sort_rep = NULL;
	/* the table's indexes are stale now */
	htab__free(r->h_row);
	r->h_row = NULL;
}

int rep_parse_sort(const char *s, enum sort_key *keys, size_t *nr, char *bad, size_t len)
{
	char tmp[256];
	snprintf(tmp, sizeof(tmp), "%s", s);
	*nr = 0;
	for (char *save = NULL, *t = strtok_r(tmp, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		size_t k;
		for (k = 0; k < SK_MAX; k++)
			/* perf's names too: symbol, srcline */
			if (!strcmp(t, rep_key_names[k]) || (k == SK_SYM && !strcmp(t, "symbol")) ||
			    (k == SK_LINE && !strcmp(t, "srcline")))
				break;
		if (k == SK_MAX) {
			snprintf(bad, len, "%s", t);
			return -1;
		}
		bool dup = false;
		for (size_t i = 0; i < *nr; i++)
			dup |= keys[i] == (enum sort_key)k;
		if (!dup && *nr < SK_MAX)
			keys[(*nr)++] = (enum sort_key)k;
	}
	if (!*nr) {
		snprintf(bad, len, "(empty)");
		return -1;
	}
	return 0;
}
