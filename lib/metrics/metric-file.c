/* SPDX-License-Identifier: MIT */
/*
 * Metric files into a metric set: data/metrics-*.txt, the user's
 * --metrics-file, --metric. The file format (docs/metrics.md):
 *
 *   metric NAME
 *       formula  EXPRESSION          (a line ending in '\' continues)
 *       unit     TEXT
 *       desc     ONE LINE
 *       group    NAME [NAME...]
 *       form     ratio | percent | per-second | per-kinst | value
 *       scale    NUMBER              (the value is the formula times it)
 *       pmu      NAME                (the vendor's PMU of a hybrid model)
 *       constraint NO_NMI_WATCHDOG | NO_GROUP_EVENTS | NO_GROUP_EVENTS_NMI
 *                | NO_GROUP_EVENTS_SMT   (how perf groups its events)
 *
 * The vendors' tables (docs/vendor-tables.md) are in this format, with
 * perf's expression syntax in their formulas: a '#' directly followed by
 * a letter, after a blank or '(', is perf's literal (#SMT_on), not a
 * comment.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/data-internal.h"
#include "core/file-internal.h"
#include "events/evlist-internal.h"
#include "metrics/metric-internal.h"

/* Bounds (perf 6.1's tables: 80 KiB files, formulas of 1304 characters,
 * names of 67). */
#define MAX_FILE (1u << 20)
#define MAX_LINE 16384
#define MAX_NAME 127
#define MAX_GROUPS 1024

/* ---- the file parser ---- */

struct mparse {
	struct hpm_metricset *ms;
	const char *origin;
	const char *text;
	struct hpm_parse_error *err;
	struct hpm_metric **pending; /* added only when the whole file parses */
	size_t nr_pending;
	struct hpm_metric *cur;
	unsigned cur_line;
	unsigned formula_line;
	size_t formula_off;          /* where the formula starts in the text */
	unsigned have;               /* attributes seen, 1 << keyword */
};

static int perr(struct mparse *p, unsigned line, size_t off, const char *tok,
		const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int perr(struct mparse *p, unsigned line, size_t off, const char *tok,
		const char *fmt, ...)
{
	struct hpm_parse_error *e = p->err;
	char msg[sizeof(e->msg)];
	va_list ap;

	if (e->err)
		return e->err;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	e->err = -HPM_ERR_SYNTAX;
	e->pos = off;
	snprintf(e->token, sizeof(e->token), "%s", tok ? tok : "");
	snprintf(e->msg, sizeof(e->msg), "%s:%u: %s", p->origin, line, msg);
	return e->err;
}

static bool valid_name(const char *s)
{
	static const char *const reserved[] = { "if", "else", "and", "or", "not", "min", "max", "abs" };
	size_t n = strlen(s);
	if (!n || n > MAX_NAME || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '.' &&
		    /* perf's "power_channel_ppd %" */
		    !(s[i] == ' ' && s[i + 1] == '%' && !s[i + 2]) && !(s[i] == '%' && !s[i + 1]))
			return false;
	for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
		if (!strcmp(s, reserved[i]))
			return false;
	return !hpm_metric__is_context(s);
}

/* "a, b  c" -> "a b c"; false when a word is not a name. */
static bool norm_groups(const char *in, char *out, size_t len)
{
	size_t o = 0;
	out[0] = '\0';
	for (const char *p = in; *p;) {
		while (*p == ' ' || *p == ',' || *p == '\t')
			p++;
		size_t w = strcspn(p, " ,\t");
		if (!w)
			break;
		for (size_t i = 0; i < w; i++)
			if (!isalnum((unsigned char)p[i]) && p[i] != '_' && p[i] != '-' && p[i] != '.')
				return false;
		if (o + w + 2 > len)
			return false;
		if (o)
			out[o++] = ' ';
		memcpy(out + o, p, w);
		o += w;
		out[o] = '\0';
		p += w;
	}
	return o > 0;
}

enum { K_FORMULA, K_UNIT, K_DESC, K_GROUP, K_FORM, K_SCALE, K_PMU, K_CONSTRAINT };

static const char *const constraints[] = {
	"NO_NMI_WATCHDOG", "NO_GROUP_EVENTS", "NO_GROUP_EVENTS_NMI", "NO_GROUP_EVENTS_SMT",
};

static int set_str(char **dst, const char *v)
{
	char *s = strdup(v);
	if (!s)
		return -ENOMEM;
	free(*dst);
	*dst = s;
	return 0;
}

/*
 * Parse @m's formula (errors in @xe, positions in the formula as written)
 * and its expression with the form applied; fill the optional fields.
 */
static int complete(struct hpm_metric *m, struct hpm_parse_error *xe)
{
	struct hpm_expr *x = NULL;
	int rc = hpm_expr__parse(m->formula, &x, xe);

	if (rc)
		return rc;
	hpm_expr__free(x);
	char *full = hpm_metric__apply_form(m->formula, m->form);
	if (full && m->scale != 0 && m->scale != 1) {
		char *scaled = NULL;
		if (asprintf(&scaled, "(%s) * %.17g", full, m->scale) < 0)
			scaled = NULL;
		free(full);
		full = scaled;
	}
	rc = full ? hpm_expr__parse(full, &m->expr, xe) : -ENOMEM;
	free(full);
	if (rc)
		return rc;
	if (!m->unit)
		m->unit = strdup("");
	if (!m->desc)
		m->desc = strdup("");
	if (!m->groups)
		m->groups = strdup("");
	if (!m->pmu)
		m->pmu = strdup("");
	if (!m->constraint)
		m->constraint = strdup("");
	if (m->scale == 0)
		m->scale = 1;
	return m->unit && m->desc && m->groups && m->pmu && m->constraint ? 0 : -ENOMEM;
}

/* Complete the metric being read and keep it. */
static int finish(struct mparse *p)
{
	struct hpm_metric *m = p->cur;
	struct hpm_parse_error xe;
	int rc;

	if (!m)
		return 0;
	p->cur = NULL;
	if (!m->formula) {
		rc = perr(p, p->cur_line, 0, m->name, "metric %s has no formula", m->name);
		hpm_metric__free(m);
		return rc;
	}
	for (size_t i = 0; i < p->nr_pending; i++)
		if (!strcmp(p->pending[i]->name, m->name) &&
		    !strcmp(p->pending[i]->pmu ? p->pending[i]->pmu : "", m->pmu ? m->pmu : "")) {
			rc = perr(p, p->cur_line, 0, m->name, "metric %s is defined twice in this file%s",
				  m->name, m->pmu ? " for this pmu" : "");
			hpm_metric__free(m);
			return rc;
		}
	rc = complete(m, &xe);
	if (rc) {
		if (rc != -ENOMEM)
			rc = perr(p, p->formula_line, p->formula_off + xe.pos, xe.token,
				  "formula of %s, column %zu: %s", m->name, xe.pos + 1, xe.msg);
		hpm_metric__free(m);
		return rc;
	}
	struct hpm_metric **v = realloc(p->pending, (p->nr_pending + 1) * sizeof(*v));
	if (!v) {
		hpm_metric__free(m);
		return -ENOMEM;
	}
	p->pending = v;
	v[p->nr_pending++] = m;
	return 0;
}

static int start_metric(struct mparse *p, unsigned line, size_t off, const char *name)
{
	struct hpm_metric *m;
	char origin[256];
	int rc = finish(p);

	if (rc)
		return rc;
	if (!valid_name(name))
		return perr(p, line, off, name,
			    "'%s' is not a metric name (letters, digits, '_' and '.', not a "
			    "keyword, function or context value)", name);
	if (p->nr_pending >= HPM_METRICSET_MAX)
		return perr(p, line, off, name, "more than %d metrics", HPM_METRICSET_MAX);
	m = calloc(1, sizeof(*m));
	snprintf(origin, sizeof(origin), "%s:%u", p->origin, line);
	if (!m || !(m->name = strdup(name)) || !(m->origin = strdup(origin))) {
		hpm_metric__free(m);
		return -ENOMEM;
	}
	p->cur = m;
	p->cur_line = line;
	p->have = 0;
	return 0;
}

static int attribute(struct mparse *p, unsigned line, size_t off, size_t val_off,
		     const char *key, const char *val)
{
	static const char *const keys[] = {
		[K_FORMULA] = "formula", [K_UNIT] = "unit", [K_DESC] = "desc",
		[K_GROUP] = "group", [K_FORM] = "form", [K_SCALE] = "scale", [K_PMU] = "pmu",
		[K_CONSTRAINT] = "constraint",
	};
	struct hpm_metric *m = p->cur;
	int k;

	for (k = 0; k < (int)(sizeof(keys) / sizeof(keys[0])); k++)
		if (!strcmp(key, keys[k]))
			break;
	if (k == (int)(sizeof(keys) / sizeof(keys[0])) && !strcmp(key, "groups"))
		k = K_GROUP;
	if (k == (int)(sizeof(keys) / sizeof(keys[0])))
		return perr(p, line, off, key,
			    "unknown keyword '%s' (metric, formula, unit, desc, group, form, scale, "
			    "pmu, constraint)", key);
	if (!m)
		return perr(p, line, off, key, "'%s' before the first 'metric NAME' line", key);
	if (p->have & (1u << k))
		return perr(p, line, off, key, "%s of %s given twice", keys[k], m->name);
	p->have |= 1u << k;
	if (!val[0] && k != K_UNIT)
		return perr(p, line, off, key, "%s of %s is empty", keys[k], m->name);
	switch (k) {
	case K_FORMULA:
		p->formula_line = line;
		p->formula_off = val_off;
		return set_str(&m->formula, val);
	case K_UNIT:
		return set_str(&m->unit, val);
	case K_DESC:
		return set_str(&m->desc, val);
	case K_GROUP: {
		char g[MAX_GROUPS];
		if (!norm_groups(val, g, sizeof(g)))
			return perr(p, line, val_off, val,
				    "groups of %s: names of letters, digits, '_', '-' and '.' expected",
				    m->name);
		return set_str(&m->groups, g);
	}
	case K_FORM:
		if (hpm_metric_form__parse(val, &m->form) == 0)
			return 0;
		return perr(p, line, val_off, val,
			    "form of %s must be ratio, percent, per-second, per-kinst or value, not '%s'",
			    m->name, val);
	case K_SCALE: {
		char *end;
		double v = strtod(val, &end);
		if (end != val && !*end && isfinite(v) && v != 0)
			return (m->scale = v), 0;
		return perr(p, line, val_off, val, "scale of %s must be a number other than 0, "
			    "not '%s'", m->name, val);
	}
	case K_PMU:
		for (const char *c = val; *c; c++)
			if (!isalnum((unsigned char)*c) && !strchr("_-,", *c))
				return perr(p, line, val_off, val,
					    "pmu of %s: a PMU name of letters, digits, '_', '-' and ',' expected",
					    m->name);
		return set_str(&m->pmu, val);
	case K_CONSTRAINT:
		for (size_t i = 0; i < sizeof(constraints) / sizeof(constraints[0]); i++)
			if (!strcmp(val, constraints[i]))
				return set_str(&m->constraint, val);
		return perr(p, line, val_off, val,
			    "constraint of %s must be NO_NMI_WATCHDOG, NO_GROUP_EVENTS, "
			    "NO_GROUP_EVENTS_NMI or NO_GROUP_EVENTS_SMT, not '%s'", m->name, val);
	}
	return 0;
}

/* One logical line (continuations joined, comment removed). */
static int parse_line(struct mparse *p, unsigned line, size_t off, char *s)
{
	char *key = s, *val;
	size_t klen;

	while (*key == ' ' || *key == '\t')
		key++;
	if (!*key)
		return 0;
	klen = strcspn(key, " \t");
	val = key + klen;
	if (*val)
		*val++ = '\0';
	while (*val == ' ' || *val == '\t')
		val++;
	for (char *e = val + strlen(val); e > val && (e[-1] == ' ' || e[-1] == '\t');)
		*--e = '\0';
	off += (size_t)(key - s);
	if (!strcmp(key, "metric")) {
		if (!val[0] || (strpbrk(val, " \t") && strcmp(strpbrk(val, " \t"), " %")))
			return perr(p, line, off, key, "write 'metric NAME' (one name)");
		return start_metric(p, line, off, val);
	}
	return attribute(p, line, off, off + (size_t)(val - key), key, val);
}

/* Where the comment of line @l starts, or NULL: a '#', except perf's
 * literal in a formula, a '#' directly followed by a letter or '_' after
 * a blank or '(' that is not the line's first character (#SMT_on). */
static const char *comment(const char *l, size_t len)
{
	size_t first = 0;
	while (first < len && (l[first] == ' ' || l[first] == '\t'))
		first++;
	for (size_t i = 0; i < len; i++) {
		if (l[i] != '#')
			continue;
		if (i > first && i + 1 < len && strchr(" \t(", l[i - 1]) &&
		    (isalpha((unsigned char)l[i + 1]) || l[i + 1] == '_'))
			continue;
		return l + i;
	}
	return NULL;
}

static int parse_text(struct mparse *p)
{
	const char *s = p->text;
	char *buf = malloc(MAX_LINE);
	size_t blen = 0, start_off = 0;
	unsigned line = 0, start_line = 0;
	int rc = 0;

	if (!buf)
		return -ENOMEM;
	for (size_t pos = 0; s[pos] && !rc;) {
		const char *nl = strchr(s + pos, '\n');
		size_t len = nl ? (size_t)(nl - (s + pos)) : strlen(s + pos);
		const char *l = s + pos;
		line++;
		if (!blen) {
			start_line = line;
			start_off = pos;
		}
		pos += len + (nl ? 1 : 0);
		const char *hash = comment(l, len);
		if (hash)
			len = (size_t)(hash - l);
		while (len && (l[len - 1] == '\r' || l[len - 1] == ' ' || l[len - 1] == '\t'))
			len--;
		bool cont = !hash && len && l[len - 1] == '\\';
		if (cont)
			len--;
		while (cont && len && (l[len - 1] == ' ' || l[len - 1] == '\t'))
			len--;
		while (blen && len && (*l == ' ' || *l == '\t')) {
			l++; /* a continued line's indentation */
			len--;
		}
		if (blen + len + 2 > MAX_LINE) {
			rc = perr(p, start_line, start_off, "", "line longer than %d characters",
				  MAX_LINE - 2);
			break;
		}
		for (size_t i = 0; i < len; i++)
			if ((unsigned char)l[i] < 0x20 && l[i] != '\t') {
				rc = perr(p, line, pos, "", "control character in the text");
				break;
			}
		if (rc)
			break;
		memcpy(buf + blen, l, len);
		blen += len;
		if (cont) {
			buf[blen++] = ' ';
			continue;
		}
		buf[blen] = '\0';
		rc = parse_line(p, start_line, start_off, buf);
		blen = 0;
	}
	if (!rc && blen) {
		buf[blen] = '\0';
		rc = parse_line(p, start_line, start_off, buf);
	}
	if (!rc)
		rc = finish(p);
	free(buf);
	return rc;
}

int hpm__metricset_add_text(struct hpm_metricset *ms, const char *text,
			    const char *origin, struct hpm_parse_error *err)
{
	struct hpm_parse_error local;
	struct mparse p = { .ms = ms, .origin = origin ? origin : "metrics", .text = text };
	int rc;

	p.err = err ? err : &local;
	memset(p.err, 0, sizeof(*p.err));
	if (!ms || !text)
		return -EINVAL;
	if (strlen(text) > MAX_FILE)
		return perr(&p, 0, 0, "", "larger than %u bytes", MAX_FILE);
	rc = parse_text(&p);
	hpm_metric__free(p.cur);
	for (size_t i = 0; i < p.nr_pending; i++) {
		if (rc) {
			hpm_metric__free(p.pending[i]);
			continue;
		}
		int r = hpm_metricset__put(ms, p.pending[i]);
		if (r)
			rc = r;
	}
	free(p.pending);
	if (rc && !p.err->err) {
		p.err->err = rc;
		snprintf(p.err->msg, sizeof(p.err->msg), "%s: %s", p.origin, hpm_strerror(rc));
	}
	return rc;
}

int hpm__metricset_add_file(struct hpm_metricset *ms, const char *path,
			    struct hpm_parse_error *err)
{
	struct hpm_parse_error local;
	FILE *f;
	char *text;
	size_t n;
	int rc;

	if (!err)
		err = &local;
	memset(err, 0, sizeof(*err));
	if (!ms || !path)
		return -EINVAL;
	f = hpm__fopen_input(path, MAX_FILE); /* not a FIFO: it would block */
	if (!f) {
		rc = -errno;
		err->err = rc;
		snprintf(err->msg, sizeof(err->msg), "%s: %s", path,
			 rc == -EFBIG ? "larger than 1 MiB" : hpm_strerror(rc));
		return rc;
	}
	text = malloc(MAX_FILE + 2);
	if (!text) {
		fclose(f);
		return -ENOMEM;
	}
	n = fread(text, 1, MAX_FILE + 1, f);
	rc = ferror(f) ? -EIO : 0;
	fclose(f);
	if (!rc && n > MAX_FILE)
		rc = -EFBIG;
	if (rc) {
		err->err = rc;
		snprintf(err->msg, sizeof(err->msg), "%s: %s", path,
			 rc == -EFBIG ? "larger than 1 MiB" : strerror(-rc));
		free(text);
		return rc;
	}
	text[n] = '\0';
	if (memchr(text, '\0', n)) {
		free(text);
		err->err = -HPM_ERR_SYNTAX;
		snprintf(err->msg, sizeof(err->msg), "%s: a NUL byte: not a text file", path);
		return -HPM_ERR_SYNTAX;
	}
	rc = hpm__metricset_add_text(ms, text, path, err);
	free(text);
	return rc;
}

int hpm__metricset_add_inline(struct hpm_metricset *ms, const char *def,
			      struct hpm_parse_error *err)
{
	struct hpm_parse_error local;
	struct hpm_metric *m;
	const char *eq, *b;
	size_t n;
	int rc;

	if (!err)
		err = &local;
	memset(err, 0, sizeof(*err));
	if (!ms || !def)
		return -EINVAL;
	err->err = -HPM_ERR_SYNTAX;
	eq = strchr(def, '=');
	if (!eq || eq[1] == '=') {
		snprintf(err->msg, sizeof(err->msg), "write --metric 'NAME = FORMULA'");
		return err->err;
	}
	for (b = def; isspace((unsigned char)*b); b++)
		;
	n = (size_t)(eq - b);
	while (n && isspace((unsigned char)b[n - 1]))
		n--;
	m = calloc(1, sizeof(*m));
	if (!m || !(m->name = strndup(b, n)) || !(m->formula = strdup(eq + 1)) ||
	    !(m->origin = strdup("--metric")) || !(m->groups = strdup("user")) ||
	    !(m->desc = strdup("defined with --metric"))) {
		hpm_metric__free(m);
		return -ENOMEM;
	}
	if (!valid_name(m->name)) {
		err->pos = (size_t)(b - def);
		snprintf(err->token, sizeof(err->token), "%.*s", (int)n, b);
		snprintf(err->msg, sizeof(err->msg),
			 "--metric: '%.*s' is not a metric name (letters, digits, '_' and '.', "
			 "not a keyword, function or context value)", (int)n, b);
		hpm_metric__free(m);
		return err->err;
	}
	rc = complete(m, err);
	if (rc) {
		char msg[sizeof(err->msg)];
		err->pos += (size_t)(eq + 1 - def);
		snprintf(msg, sizeof(msg), "--metric %s: %s", m->name, err->msg);
		memcpy(err->msg, msg, sizeof(msg));
		hpm_metric__free(m);
		return rc;
	}
	memset(err, 0, sizeof(*err));
	return hpm_metricset__put(ms, m);
}
