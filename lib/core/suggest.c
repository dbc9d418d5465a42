/* SPDX-License-Identifier: MIT */
/* The closest names to a mistyped one (core/suggest-internal.h). */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <hpmon/hpmon.h>

#include "core/suggest-internal.h"

unsigned hpm_suggest__distance(const char *a, const char *b, unsigned cap)
{
	/* three rows: the transposition looks two rows back */
	size_t n = strlen(a), m = strlen(b);
	unsigned d[3][65];

	if (m > 64 || n > 64)
		return cap;
	for (size_t j = 0; j <= m; j++)
		d[0][j] = (unsigned)j;
	for (size_t i = 1; i <= n; i++) {
		unsigned *cur = d[i % 3], *prev = d[(i - 1) % 3], *pp = d[(i + 1) % 3];
		unsigned best;
		cur[0] = (unsigned)i;
		best = cur[0];
		for (size_t j = 1; j <= m; j++) {
			int ca = tolower((unsigned char)a[i - 1]), cb = tolower((unsigned char)b[j - 1]);
			unsigned v = prev[j - 1] + (ca != cb);
			if (prev[j] + 1 < v)
				v = prev[j] + 1;
			if (cur[j - 1] + 1 < v)
				v = cur[j - 1] + 1;
			if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == cb && pp[j - 2] + 1 < v)
				v = pp[j - 2] + 1;
			cur[j] = v;
			if (v < best)
				best = v;
		}
		/* no cell of the row is under the cap: the rest cannot be */
		if (best >= cap)
			return cap;
	}
	return d[n % 3][m] < cap ? d[n % 3][m] : cap;
}

void hpm_suggest__init(struct hpm_suggest *s, const char *word, unsigned cap,
		       enum hpm_suggest_part part)
{
	memset(s, 0, sizeof(*s));
	s->word = word;
	s->cap = cap;
	s->part = part;
}

/* Does @name share enough of the word to be offered whatever its distance? */
static bool overlaps(const struct hpm_suggest *s, const char *name)
{
	if (strlen(s->word) < 3)
		return false;
	switch (s->part) {
	case HPM_SUGGEST_IN_NAME:
		return strstr(name, s->word) != NULL;
	case HPM_SUGGEST_OVERLAP:
		return strcasestr(name, s->word) || strcasestr(s->word, name);
	case HPM_SUGGEST_WHOLE:
		break;
	}
	return false;
}

void hpm_suggest__offer(struct hpm_suggest *s, const char *name)
{
	unsigned d = hpm_suggest__distance(s->word, name, s->cap);

	if (d >= s->cap && s->cap && overlaps(s, name))
		d = s->cap - 1; /* close, though not the closest */
	if (d >= s->cap)
		return;
	for (int i = 0; i < HPM_SUGGEST_MAX; i++) {
		if (s->best[i][0] && !strcmp(s->best[i], name))
			return;
		if (!s->best[i][0] || d < s->dist[i]) {
			for (int k = HPM_SUGGEST_MAX - 1; k > i; k--) {
				memcpy(s->best[k], s->best[k - 1], sizeof(s->best[k]));
				s->dist[k] = s->dist[k - 1];
			}
			snprintf(s->best[i], sizeof(s->best[i]), "%s", name);
			s->dist[i] = d;
			return;
		}
	}
}

void hpm_suggest__format(const struct hpm_suggest *s, char *buf, size_t len)
{
	size_t off = 0;

	if (!len)
		return;
	buf[0] = '\0';
	for (int i = 0; i < HPM_SUGGEST_MAX && s->best[i][0] && off < len; i++) {
		int n = snprintf(buf + off, len - off, "%s%s", i ? ", " : "", s->best[i]);
		if (n < 0)
			break;
		off += (size_t)n;
	}
}

void hpm_suggest(const char *word, const char *const *names, size_t nr, char *buf, size_t len)
{
	struct hpm_suggest s;
	size_t n = strlen(word);

	/* the cap the event parser uses for the names of PMU terms */
	hpm_suggest__init(&s, word, n <= 4 ? 2 : (unsigned)(n / 3 + 1), HPM_SUGGEST_OVERLAP);
	for (size_t i = 0; i < nr; i++)
		hpm_suggest__offer(&s, names[i]);
	hpm_suggest__format(&s, buf, len);
}
