/* SPDX-License-Identifier: MIT */
/*
 * hpmon serve's exposition: a snapshot as OpenMetrics 1.0.0 text
 * (application/openmetrics-text) or as Prometheus text 0.0.4 (text/plain),
 * for clients that do not ask for OpenMetrics. The two differ in where a
 * counter's "_total" goes (OpenMetrics names the family without it and
 * each sample with it; 0.0.4 names both with it), in the UNIT lines and the
 * closing "# EOF", which only OpenMetrics has.
 *
 * Names, labels and help come from event and metric names the user wrote:
 * names keep [a-z0-9_] only, label values and help keep printable ASCII
 * (anything else becomes '?') with OpenMetrics' escapes, so no input can
 * break a line or the format.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "serve/serve.h"

/* The exposition is held whole: a cap far above any real one (thousands of
 * series) keeps a runaway from eating memory. */
#define EXPO_MAX (64u << 20)

struct sbuf {
	char *p;
	size_t len, cap;
	bool failed;
};

static void sb_grow(struct sbuf *b, size_t more)
{
	if (b->failed)
		return;
	if (more > EXPO_MAX - b->len) {
		b->failed = true;
		return;
	}
	size_t need = b->len + more + 1;
	if (need <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 4096;
	while (cap < need)
		cap *= 2;
	char *p = realloc(b->p, cap);
	if (!p) {
		b->failed = true;
		return;
	}
	b->p = p;
	b->cap = cap;
}

__attribute__((format(printf, 2, 3))) static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	char small[256];
	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->failed = true;
		return;
	}
	sb_grow(b, (size_t)n);
	if (b->failed)
		return;
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

static void sb_putc(struct sbuf *b, char c)
{
	sb_grow(b, 1);
	if (b->failed)
		return;
	b->p[b->len++] = c;
	b->p[b->len] = '\0';
}

/* A label value or help text: printable ASCII, '\\' and '\n' escaped, and
 * '"' escaped in label values; in help (whose 0.0.4 form knows no '\"')
 * a double quote becomes a single one. */
static void sb_text(struct sbuf *b, const char *s, bool label)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '\\')
			sb_printf(b, "\\\\");
		else if (c == '\n')
			sb_printf(b, "\\n");
		else if (c == '"')
			sb_printf(b, label ? "\\\"" : "'");
		else
			sb_putc(b, c >= 0x20 && c < 0x7f ? (char)c : '?');
	}
}

size_t serve_expo_label(char *out, size_t len, const char *val)
{
	size_t n = 0;
	for (; *val; val++) {
		unsigned char c = (unsigned char)*val;
		char esc[3] = { 0 };
		if (c == '\\' || c == '"' || c == '\n') {
			esc[0] = '\\';
			esc[1] = c == '\n' ? 'n' : (char)c;
		} else {
			esc[0] = c >= 0x20 && c < 0x7f ? (char)c : '?';
		}
		size_t el = strlen(esc);
		if (n + el + 1 > len)
			break;
		memcpy(out + n, esc, el);
		n += el;
	}
	out[n] = '\0';
	return n;
}

/* Integers as integers; other values with 15 significant digits (a
 * nanosecond in 11 days of seconds). */
static void sb_num(struct sbuf *b, double v)
{
	if (isnan(v))
		sb_printf(b, "NaN");
	else if (isinf(v))
		sb_printf(b, v > 0 ? "+Inf" : "-Inf");
	else if (v == floor(v) && fabs(v) < 9e15)
		sb_printf(b, "%.0f", v);
	else
		sb_printf(b, "%.15g", v);
}

void serve_expo_name(char *out, size_t len, const char *what, const char *unit)
{
	size_t n = 0;
	int w = snprintf(out, len, "hpmon_");
	if (w < 0 || (size_t)w >= len)
		return;
	n = (size_t)w;
	for (const char *s = what; *s && n + 1 < len; s++) {
		char c = *s;
		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		else if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')))
			c = '_';
		if (c == '_' && out[n - 1] == '_')
			continue;
		out[n++] = c;
	}
	while (n > 5 && out[n - 1] == '_')
		n--;
	out[n] = '\0';
	if (!unit[0])
		return;
	size_t ul = strlen(unit);
	if (n > ul && out[n - ul - 1] == '_' && !strcmp(out + n - ul, unit))
		return;
	snprintf(out + n, len - n, "_%s", unit);
}

/* A family's descriptor lines. */
static void family(struct sbuf *b, bool om, const char *name, bool counter, const char *unit,
		   const char *help)
{
	const char *type = counter ? "counter" : "gauge";
	if (om) {
		sb_printf(b, "# TYPE %s %s\n", name, type);
		if (unit && unit[0])
			sb_printf(b, "# UNIT %s %s\n", name, unit);
		sb_printf(b, "# HELP %s ", name);
	} else {
		sb_printf(b, "# HELP %s%s ", name, counter ? "_total" : "");
	}
	sb_text(b, help, false);
	sb_putc(b, '\n');
	if (!om)
		sb_printf(b, "# TYPE %s%s %s\n", name, counter ? "_total" : "", type);
}

/* One sample: NAME[_total]{labels} VALUE; @l2 may be NULL. */
static void sample(struct sbuf *b, const char *name, bool counter, const char *l1,
		   const char *v1, const char *l2, const char *v2, double v)
{
	sb_printf(b, "%s%s", name, counter ? "_total" : "");
	if (l1) {
		sb_printf(b, "{%s=\"", l1);
		sb_text(b, v1, true);
		if (l2) {
			sb_printf(b, "\",%s=\"", l2);
			sb_text(b, v2, true);
		}
		sb_printf(b, "\"}");
	}
	sb_putc(b, ' ');
	sb_num(b, v);
	sb_putc(b, '\n');
}

/* One sample whose label text is made already (serve_expo_label). */
static void sample_labels(struct sbuf *b, const char *name, bool counter, const char *labels,
			  double v)
{
	sb_printf(b, "%s%s{%s} ", name, counter ? "_total" : "", labels);
	sb_num(b, v);
	sb_putc(b, '\n');
}

/* Event @i's family per process or cgroup: the series shown, [other]. */
static void set_counters(struct sbuf *b, const struct serve_snap *s, const struct serve_set *set,
			 size_t i, bool om)
{
	const struct serve_event *e = &s->ev[i];
	char name[192], help[512];
	snprintf(name, sizeof(name), "hpmon_%s_%s", set->by, e->name + strlen("hpmon_"));
	snprintf(help, sizeof(help), "%s%s%s, per %s: the %zu most active, [other] the rest",
		 e->event, e->unit[0] ? " in " : "", e->unit, set->by, set->max);
	family(b, om, name, true, e->unit, help);
	for (size_t k = 0; k < set->nr; k++)
		sample_labels(b, name, true, set->s[k].labels, (double)set->s[k].v[i] * e->factor);
	sample_labels(b, name, true, set->other_labels, (double)set->other[i] * e->factor);
}

static void counters(struct sbuf *b, const struct serve_snap *s, bool om)
{
	char help[512];
	for (size_t i = 0; i < s->nr_ev; i++) {
		const struct serve_event *e = &s->ev[i];
		if (!e->shown || e->err)
			continue;
		snprintf(help, sizeof(help), "%s%s%s, counted system-wide, per CPU", e->event,
			 e->unit[0] ? " in " : "", e->unit);
		family(b, om, e->name, true, e->unit, help);
		for (size_t r = 0; r < s->nr_rows; r++) {
			const struct serve_rows *rw = &s->rows[r];
			for (size_t k = 0; k < rw->nr; k++)
				if (rw->ok[k * s->nr_ev + i])
					sample(b, e->name, true, rw->label, rw->key[k], NULL, NULL,
					       rw->val[k * s->nr_ev + i]);
		}
		for (size_t k = 0; k < s->nr_sets; k++)
			set_counters(b, s, &s->sets[k], i, om);
	}
}

static void health(struct sbuf *b, const struct serve_snap *s, bool om)
{
	family(b, om, "hpmon_counted_ratio", false, NULL,
	       "share of the time enabled that the event was on a counter (1: not multiplexed)");
	for (size_t i = 0; i < s->nr_ev; i++) {
		if (!s->ev[i].shown || s->ev[i].err)
			continue;
		for (size_t r = 0; r < s->nr_rows; r++) {
			const struct serve_rows *rw = &s->rows[r];
			for (size_t k = 0; k < rw->nr; k++) {
				if (!rw->ok[k * s->nr_ev + i])
					continue;
				sample(b, "hpmon_counted_ratio", false, "event", s->ev[i].event,
				       s->one_ratio ? NULL : rw->label, rw->key[k],
				       rw->ratio[k * s->nr_ev + i]);
				if (s->one_ratio)
					break; /* the same on every CPU */
			}
		}
	}
	if (s->nr_sets) {
		family(b, om, "hpmon_series_max", false, NULL,
		       "the most series shown per process or cgroup, besides [other], [idle], "
		       "[lost] and [unattributed] (--per-process=N, --per-cgroup=N)");
		for (size_t k = 0; k < s->nr_sets; k++)
			sample(b, "hpmon_series_max", false, "by", s->sets[k].by, NULL, NULL,
			       (double)s->sets[k].max);
		family(b, om, "hpmon_other_rows", false, NULL,
		       "processes or cgroups that grew since the previous scrape and counted in "
		       "[other], having no series of their own");
		for (size_t k = 0; k < s->nr_sets; k++)
			sample(b, "hpmon_other_rows", false, "by", s->sets[k].by, NULL, NULL,
			       (double)s->sets[k].folded);
	}
	family(b, om, "hpmon_event_supported", false, NULL,
	       "1 when the event could be opened here, 0 when not (hpmon serve says why at start)");
	for (size_t i = 0; i < s->nr_ev; i++)
		if (s->ev[i].shown)
			sample(b, "hpmon_event_supported", false, "event", s->ev[i].event, NULL, NULL,
			       s->ev[i].err ? 0 : 1);
	family(b, om, "hpmon_scrapes", true, NULL, "requests for /metrics answered, this one included");
	sample(b, "hpmon_scrapes", true, NULL, NULL, NULL, NULL, (double)s->scrapes);
	family(b, om, "hpmon_rejected_requests", true, NULL,
	       "requests refused: another path, another method, too large");
	sample(b, "hpmon_rejected_requests", true, NULL, NULL, NULL, NULL, (double)s->rejected);
	family(b, om, "hpmon_lost_records", true, NULL, "records the kernel dropped");
	sample(b, "hpmon_lost_records", true, NULL, NULL, NULL, NULL, (double)s->lost);
	family(b, om, "hpmon_start_time_seconds", false, "seconds",
	       "when counting began, Unix time");
	sample(b, "hpmon_start_time_seconds", false, NULL, NULL, NULL, NULL, s->start_time);
}

static void metrics(struct sbuf *b, const struct serve_snap *s, bool om)
{
	char help[512];
	for (size_t m = 0; m < s->nr_metrics; m++) {
		const struct serve_metric *sm = &s->metrics[m];
		snprintf(help, sizeof(help), "%s%s%s%s, over the time since the previous scrape",
			 sm->metric, sm->unit[0] ? " (" : "", sm->unit, sm->unit[0] ? ")" : "");
		if (sm->desc && sm->desc[0]) {
			size_t n = strlen(help);
			snprintf(help + n, sizeof(help) - n, ": %s", sm->desc);
		}
		family(b, om, sm->name, false, NULL, help);
		if (sm->ok)
			sample(b, sm->name, false, NULL, NULL, NULL, NULL, sm->value);
	}
	/* per process or cgroup: each series shown, over the same time */
	for (size_t k = 0; k < s->nr_sets; k++) {
		const struct serve_set *set = &s->sets[k];
		for (size_t m = 0; m < s->nr_metrics; m++) {
			const struct serve_metric *sm = &s->metrics[m];
			char name[192];
			snprintf(name, sizeof(name), "hpmon_%s_%s", set->by,
				 sm->name + strlen("hpmon_"));
			snprintf(help, sizeof(help), "%s%s%s%s per %s, over the time since the "
				 "previous scrape", sm->metric, sm->unit[0] ? " (" : "", sm->unit,
				 sm->unit[0] ? ")" : "", set->by);
			family(b, om, name, false, NULL, help);
			for (size_t r = 0; r < set->nr; r++)
				if (!set->s[r].pinned && isfinite(set->s[r].mv[m]))
					sample_labels(b, name, false, set->s[r].labels,
						      set->s[r].mv[m]);
		}
	}
}

/* Is the parameter at @p (up to @e) a q of 0 ("q=0", "q=0.000")? */
static bool q_zero(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	if (e - p < 3 || (p[0] != 'q' && p[0] != 'Q') || p[1] != '=' || p[2] != '0')
		return false;
	for (p += 3; p < e && *p != ' ' && *p != '\t'; p++)
		if (*p != '.' && *p != '0')
			return false;
	return true;
}

bool serve_expo_wants_openmetrics(const char *accept)
{
	static const char om[] = "application/openmetrics-text";
	const size_t ol = sizeof(om) - 1;

	for (const char *p = accept; p && *p;) {
		const char *e = p + strcspn(p, ",");
		while (p < e && (*p == ' ' || *p == '\t'))
			p++;
		const char *t = p + strcspn(p, ";,");   /* end of the media type */
		while (t > p && (t[-1] == ' ' || t[-1] == '\t'))
			t--;
		if ((size_t)(t - p) == ol && !strncasecmp(p, om, ol)) {
			bool refused = false;
			for (const char *q = t; q < e; q++)
				if (*q == ';') {
					const char *qe = q + 1 + strcspn(q + 1, ";,");
					refused |= q_zero(q + 1, qe < e ? qe : e);
				}
			if (!refused)
				return true;
		}
		p = *e ? e + 1 : e;
	}
	return false;
}

char *serve_expo(const struct serve_snap *s, bool openmetrics, size_t *len)
{
	struct sbuf b = { 0 };
	counters(&b, s, openmetrics);
	metrics(&b, s, openmetrics);
	health(&b, s, openmetrics);
	if (openmetrics)
		sb_printf(&b, "# EOF\n");
	if (b.failed || !b.p) {
		free(b.p);
		errno = b.failed && b.len + 1 >= EXPO_MAX ? EFBIG : ENOMEM;
		return NULL;
	}
	*len = b.len;
	return b.p;
}
