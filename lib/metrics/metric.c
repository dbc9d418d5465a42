/* SPDX-License-Identifier: MIT */
/*
 * Metric sets: metrics read from metric files (data/metrics-*.txt, the
 * user's --metrics-file, --metric) and generated from the typical costs of
 * events (data/costs-*.txt). The file format (docs/metrics.md):
 *
 *   metric NAME
 *       formula  EXPRESSION          (a line ending in '\' continues)
 *       unit     TEXT
 *       desc     ONE LINE
 *       group    NAME [NAME...]
 *       form     ratio | percent | per-second | per-kinst | value
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/data-internal.h"
#include "events/evlist-internal.h"
#include "metrics/metric-internal.h"

#define MAX_METRICS 4096
#define MAX_FILE (1u << 20)
#define MAX_LINE 8192
#define MAX_NAME 63

static const char *const context_names[] = {
	"duration_time", "interval_time", "num_cpus", "cpu_hz",
};

bool hpm_metric__is_context(const char *name)
{
	for (size_t i = 0; i < sizeof(context_names) / sizeof(context_names[0]); i++)
		if (!strcmp(name, context_names[i]))
			return true;
	return false;
}

static const char *const form_names[] = {
	[HPM_FORM_RATIO] = "ratio", [HPM_FORM_PERCENT] = "percent",
	[HPM_FORM_PER_SECOND] = "per-second", [HPM_FORM_PER_KINST] = "per-kinst",
	[HPM_FORM_VALUE] = "value",
};

const char *hpm_metric_form__str(enum hpm_metric_form f)
{
	return (unsigned)f < sizeof(form_names) / sizeof(form_names[0]) ? form_names[f] : "?";
}

/* ---- metrics ---- */

static void metric_free(struct hpm_metric *m)
{
	if (!m)
		return;
	free(m->name);
	free(m->formula);
	free(m->unit);
	free(m->desc);
	free(m->groups);
	free(m->origin);
	hpm_expr__free(m->expr);
	free(m);
}

const char *hpm_metric__name(const struct hpm_metric *m) { return m->name; }
const char *hpm_metric__formula(const struct hpm_metric *m) { return m->formula; }
const char *hpm_metric__unit(const struct hpm_metric *m) { return m->unit; }
const char *hpm_metric__desc(const struct hpm_metric *m) { return m->desc; }
const char *hpm_metric__groups(const struct hpm_metric *m) { return m->groups; }
enum hpm_metric_form hpm_metric__form(const struct hpm_metric *m) { return m->form; }
const char *hpm_metric__origin(const struct hpm_metric *m) { return m->origin; }
const struct hpm_expr *hpm_metric__expr(const struct hpm_metric *m) { return m->expr; }

bool hpm_metric__in_group(const struct hpm_metric *m, const char *group)
{
	size_t n = strlen(group);
	for (const char *p = m->groups; *p;) {
		size_t w = strcspn(p, " ");
		if (w == n && !strncmp(p, group, n))
			return true;
		p += w;
		while (*p == ' ')
			p++;
	}
	return false;
}

const char *hpm_metric__shown_unit(const struct hpm_metric *m)
{
	if (m->unit[0])
		return m->unit;
	switch (m->form) {
	case HPM_FORM_PERCENT: return "%";
	case HPM_FORM_PER_SECOND: return "/sec";
	case HPM_FORM_PER_KINST: return "per 1k insn";
	default: return "";
	}
}

/* The expression text with the form applied. */
static char *apply_form(const char *formula, enum hpm_metric_form f)
{
	char *s = NULL;
	int n;
	switch (f) {
	case HPM_FORM_PERCENT: n = asprintf(&s, "(%s) * 100", formula); break;
	case HPM_FORM_PER_SECOND: n = asprintf(&s, "(%s) / duration_time", formula); break;
	case HPM_FORM_PER_KINST: n = asprintf(&s, "(%s) / (instructions / 1000)", formula); break;
	default: n = asprintf(&s, "%s", formula); break;
	}
	return n < 0 ? NULL : s;
}

/* ---- sets ---- */

struct hpm_metricset *hpm_metricset__new(struct hpm_ctx *ctx,
					 const struct hpm_metricset_opts *o);

void hpm_metricset__free(struct hpm_metricset *ms)
{
	if (!ms)
		return;
	for (size_t i = 0; i < ms->nr; i++)
		metric_free(ms->m[i]);
	free(ms->m);
	free(ms);
}

const char *hpm_metricset__family(const struct hpm_metricset *ms) { return ms->fam.name; }
size_t hpm_metricset__count(const struct hpm_metricset *ms) { return ms->nr; }
size_t hpm_metricset__nr_files(const struct hpm_metricset *ms) { return ms->nr_files; }

const char *hpm_metricset__file(const struct hpm_metricset *ms, size_t i)
{
	return i < ms->nr_files ? ms->files[i] : NULL;
}

const struct hpm_metric *hpm_metricset__metric(const struct hpm_metricset *ms, size_t i)
{
	return i < ms->nr ? ms->m[i] : NULL;
}

const struct hpm_metric *hpm_metricset__find(const struct hpm_metricset *ms,
					     const char *name)
{
	for (size_t i = 0; i < ms->nr; i++)
		if (!strcmp(ms->m[i]->name, name))
			return ms->m[i];
	return NULL;
}

bool hpm_metricset__is_group(const struct hpm_metricset *ms, const char *name)
{
	for (size_t i = 0; i < ms->nr; i++)
		if (hpm_metric__in_group(ms->m[i], name))
			return true;
	return false;
}

/* Add @m (taken), replacing a metric of the same name in place. */
static int set_put(struct hpm_metricset *ms, struct hpm_metric *m)
{
	for (size_t i = 0; i < ms->nr; i++)
		if (!strcmp(ms->m[i]->name, m->name)) {
			metric_free(ms->m[i]);
			ms->m[i] = m;
			return 0;
		}
	if (ms->nr >= MAX_METRICS) {
		metric_free(m);
		return -HPM_ERR_TOO_MANY;
	}
	if (ms->nr == ms->cap) {
		size_t cap = ms->cap ? ms->cap * 2 : 64;
		struct hpm_metric **v = realloc(ms->m, cap * sizeof(*v));
		if (!v) {
			metric_free(m);
			return -ENOMEM;
		}
		ms->m = v;
		ms->cap = cap;
	}
	ms->m[ms->nr++] = m;
	return 0;
}

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
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '.')
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

enum { K_FORMULA, K_UNIT, K_DESC, K_GROUP, K_FORM };

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
	char *full = apply_form(m->formula, m->form);
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
	return m->unit && m->desc && m->groups ? 0 : -ENOMEM;
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
		metric_free(m);
		return rc;
	}
	rc = complete(m, &xe);
	if (rc) {
		if (rc != -ENOMEM)
			rc = perr(p, p->formula_line, p->formula_off + xe.pos, xe.token,
				  "formula of %s, column %zu: %s", m->name, xe.pos + 1, xe.msg);
		metric_free(m);
		return rc;
	}
	struct hpm_metric **v = realloc(p->pending, (p->nr_pending + 1) * sizeof(*v));
	if (!v) {
		metric_free(m);
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
	for (size_t i = 0; i < p->nr_pending; i++)
		if (!strcmp(p->pending[i]->name, name))
			return perr(p, line, off, name, "metric %s is defined twice in this file",
				    name);
	if (p->nr_pending >= MAX_METRICS)
		return perr(p, line, off, name, "more than %d metrics", MAX_METRICS);
	m = calloc(1, sizeof(*m));
	snprintf(origin, sizeof(origin), "%s:%u", p->origin, line);
	if (!m || !(m->name = strdup(name)) || !(m->origin = strdup(origin))) {
		metric_free(m);
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
		[K_GROUP] = "group", [K_FORM] = "form",
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
			    "unknown keyword '%s' (metric, formula, unit, desc, group, form)", key);
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
		char g[256];
		if (!norm_groups(val, g, sizeof(g)))
			return perr(p, line, val_off, val,
				    "groups of %s: names of letters, digits, '_', '-' and '.' expected",
				    m->name);
		return set_str(&m->groups, g);
	}
	case K_FORM:
		for (size_t f = 0; f < sizeof(form_names) / sizeof(form_names[0]); f++)
			if (!strcmp(val, form_names[f])) {
				m->form = (enum hpm_metric_form)f;
				return 0;
			}
		return perr(p, line, val_off, val,
			    "form of %s must be ratio, percent, per-second, per-kinst or value, not '%s'",
			    m->name, val);
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
		if (!val[0] || strpbrk(val, " \t"))
			return perr(p, line, off, key, "write 'metric NAME' (one name)");
		return start_metric(p, line, off, val);
	}
	return attribute(p, line, off, off + (size_t)(val - key), key, val);
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
		const char *hash = memchr(l, '#', len);
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

int hpm_metricset__add_text(struct hpm_metricset *ms, const char *text,
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
	metric_free(p.cur);
	for (size_t i = 0; i < p.nr_pending; i++) {
		if (rc) {
			metric_free(p.pending[i]);
			continue;
		}
		int r = set_put(ms, p.pending[i]);
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

int hpm_metricset__add_file(struct hpm_metricset *ms, const char *path,
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
	f = fopen(path, "re");
	if (!f) {
		rc = -errno;
		err->err = rc;
		snprintf(err->msg, sizeof(err->msg), "%s: %s", path, strerror(-rc));
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
	rc = hpm_metricset__add_text(ms, text, path, err);
	free(text);
	return rc;
}

int hpm_metricset__add_inline(struct hpm_metricset *ms, const char *def,
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
		metric_free(m);
		return -ENOMEM;
	}
	if (!valid_name(m->name)) {
		err->pos = (size_t)(b - def);
		snprintf(err->token, sizeof(err->token), "%.*s", (int)n, b);
		snprintf(err->msg, sizeof(err->msg),
			 "--metric: '%.*s' is not a metric name (letters, digits, '_' and '.', "
			 "not a keyword, function or context value)", (int)n, b);
		metric_free(m);
		return err->err;
	}
	rc = complete(m, err);
	if (rc) {
		char msg[sizeof(err->msg)];
		err->pos += (size_t)(eq + 1 - def);
		snprintf(msg, sizeof(msg), "--metric %s: %s", m->name, err->msg);
		memcpy(err->msg, msg, sizeof(msg));
		metric_free(m);
		return rc;
	}
	memset(err, 0, sizeof(*err));
	return set_put(ms, m);
}

/* ---- references ---- */

static int leaves_walk(const struct hpm_metricset *ms, const struct hpm_expr *e,
		       const char **names, size_t max, size_t *n,
		       const struct hpm_expr **stack, unsigned depth)
{
	for (unsigned i = 0; i < depth; i++)
		if (stack[i] == e)
			return -HPM_ERR_SYNTAX;
	if (depth > HPM_METRIC_MAX_CHAIN)
		return -HPM_ERR_SYNTAX;
	stack[depth] = e;
	for (size_t r = 0; r < hpm_expr__nr_refs(e); r++) {
		const char *name = hpm_expr__ref(e, r);
		const struct hpm_metric *sub;
		if (hpm_metric__is_context(name))
			continue;
		sub = hpm_metricset__find(ms, name);
		if (sub) {
			int rc = leaves_walk(ms, sub->expr, names, max, n, stack, depth + 1);
			if (rc)
				return rc;
			continue;
		}
		bool seen = false;
		for (size_t k = 0; k < *n && !seen; k++)
			seen = !strcmp(names[k], name);
		if (seen)
			continue;
		if (*n >= max)
			return -E2BIG;
		names[(*n)++] = name;
	}
	return 0;
}

int hpm_metricset__leaves(const struct hpm_metricset *ms, const struct hpm_metric *m,
			  const char **names, size_t max)
{
	const struct hpm_expr *stack[HPM_METRIC_MAX_CHAIN + 2];
	size_t n = 0;
	int rc = leaves_walk(ms, m->expr, names, max, &n, stack, 0);
	return rc ? rc : (int)n;
}

int hpm_metricset__check(const struct hpm_metricset *ms, const struct hpm_metric *m,
			 struct hpm_parse_error *err)
{
	const char *names[HPM_EXPR_MAX_INPUTS];
	struct hpm_parse_error local;
	int n;

	if (!err)
		err = &local;
	memset(err, 0, sizeof(*err));
	n = hpm_metricset__leaves(ms, m, names, HPM_EXPR_MAX_INPUTS);
	if (n < 0) {
		err->err = n == -E2BIG ? -HPM_ERR_TOO_MANY : n;
		snprintf(err->msg, sizeof(err->msg), "%s: %s", m->name,
			 n == -E2BIG ? "counts more than 32 events"
				     : "refers to itself through other metrics, or too deeply");
		return err->err;
	}
	for (int i = 0; i < n; i++) {
		struct hpm_evlist *l = NULL;
		struct hpm_parse_error pe;
		int rc = hpm_evlist__parse(ms->ctx, names[i], &l, &pe);
		hpm_evlist__free(l);
		if (rc) {
			err->err = rc;
			snprintf(err->token, sizeof(err->token), "%s", names[i]);
			snprintf(err->msg, sizeof(err->msg), "%s: event '%s': %s", m->name, names[i],
				 pe.msg);
			snprintf(err->suggest, sizeof(err->suggest), "%s", pe.suggest);
			return rc;
		}
	}
	return 0;
}

/* ---- the shipped files ---- */

static int add_data_file(struct hpm_metricset *ms, const char *file)
{
	const char *text = hpm_data__get(file);
	char origin[64];
	struct hpm_parse_error e;

	if (!text)
		return 0;
	snprintf(origin, sizeof(origin), "data/%s", file);
	if (ms->nr_files < sizeof(ms->files) / sizeof(ms->files[0]))
		snprintf(ms->files[ms->nr_files++], sizeof(ms->files[0]), "%s", file);
	return hpm_metricset__add_text(ms, text, origin, &e);
}

struct cost {
	char cause[48];
	char event[96];
	double cycles;
	char desc[160];
	char origin[64];
};

/* Read costs-FAMILY.txt of the chain, most generic first; later ones
 * replace a cause's line. */
static int load_costs(struct hpm_metricset *ms, struct cost **out, size_t *nr)
{
	struct cost *v = NULL;
	size_t n = 0;

	for (unsigned c = ms->fam.nr_chain + 1; c-- > 0;) {
		char file[64];
		/* generic first, even on a software-only machine */
		const char *fam = c == ms->fam.nr_chain ? "generic" : ms->fam.chain[c];
		if (c < ms->fam.nr_chain && !strcmp(fam, "generic"))
			continue;
		snprintf(file, sizeof(file), "costs-%s.txt", fam);
		const char *text = hpm_data__get(file);
		struct hpm_data_line line = { 0 };
		size_t pos = 0;
		if (!text)
			continue;
		if (ms->nr_files < sizeof(ms->files) / sizeof(ms->files[0]))
			snprintf(ms->files[ms->nr_files++], sizeof(ms->files[0]), "%s", file);
		while (hpm_data__next(text, &pos, 4, &line)) {
			if (line.nr < 3)
				continue;
			size_t k;
			for (k = 0; k < n; k++)
				if (!strcmp(v[k].cause, line.field[0]))
					break;
			if (k == n) {
				struct cost *nv = realloc(v, (n + 1) * sizeof(*v));
				if (!nv) {
					free(v);
					return -ENOMEM;
				}
				v = nv;
				n++;
			}
			snprintf(v[k].cause, sizeof(v[k].cause), "%s", line.field[0]);
			snprintf(v[k].event, sizeof(v[k].event), "%s", line.field[1]);
			v[k].cycles = strtod(line.field[2], NULL);
			snprintf(v[k].desc, sizeof(v[k].desc), "%s", line.nr > 3 ? line.field[3] : "");
			snprintf(v[k].origin, sizeof(v[k].origin), "data/%s:%u", file, line.lineno);
		}
	}
	*out = v;
	*nr = n;
	return 0;
}

/*
 * perfex's estimate: each cause's count times its typical cost, as a share
 * of the cycles, assuming no overlap; what remains is "other".
 */
static int add_costs(struct hpm_metricset *ms)
{
	struct cost *c = NULL;
	size_t n = 0, len = 0;
	char *text = NULL;
	FILE *f;
	int rc = load_costs(ms, &c, &n);

	if (rc || !n) {
		free(c);
		return rc;
	}
	f = open_memstream(&text, &len);
	if (!f) {
		free(c);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		fprintf(f,
			"metric cost.%s\n formula %s * %.17g / PAPI_TOT_CYC\n form percent\n"
			" unit %% of cycles (est.)\n group cost\n desc %s: %g cycles each, "
			"estimated (%s)\n",
			c[i].cause, c[i].event, c[i].cycles, c[i].desc, c[i].cycles, c[i].origin);
	fprintf(f, "metric cost.other\n formula 1");
	for (size_t i = 0; i < n; i++)
		fprintf(f, " - %s * %.17g / PAPI_TOT_CYC", c[i].event, c[i].cycles);
	fprintf(f, "\n form percent\n unit %% of cycles (est.)\n group cost\n"
		   " desc What the estimates above leave: computing, and overlap of "
		   "the causes (negative when they overlap more than they leave)\n");
	fclose(f);
	struct hpm_parse_error e;
	rc = text ? hpm_metricset__add_text(ms, text, "data/costs", &e) : -ENOMEM;
	free(text);
	free(c);
	return rc;
}

struct hpm_metricset *hpm_metricset__new(struct hpm_ctx *ctx,
					 const struct hpm_metricset_opts *o)
{
	struct hpm_metricset *ms;
	int rc;

	if (!ctx || (o && o->sz < offsetof(struct hpm_metricset_opts, no_builtin))) {
		errno = EINVAL;
		return NULL;
	}
	ms = calloc(1, sizeof(*ms));
	if (!ms)
		return NULL;
	ms->ctx = ctx;
	if (o && o->family)
		rc = hpm_family__get(o->family, &ms->fam);
	else
		rc = hpm_family__detect_into(ctx, &ms->fam);
	if (rc) {
		free(ms);
		errno = rc == -ENOENT ? EINVAL : -rc;
		return NULL;
	}
	if (o && o->sz >= sizeof(*o) && o->no_builtin)
		return ms;
	/* software, then generic (even without a core PMU, so that hardware
	 * metrics say why they cannot be computed), then the family's own */
	rc = add_data_file(ms, "metrics-software.txt");
	if (!rc)
		rc = add_data_file(ms, "metrics-generic.txt");
	for (unsigned c = ms->fam.nr_chain; c-- > 0 && !rc;) {
		char file[64];
		if (!strcmp(ms->fam.chain[c], "software") || !strcmp(ms->fam.chain[c], "generic"))
			continue;
		snprintf(file, sizeof(file), "metrics-%s.txt", ms->fam.chain[c]);
		rc = add_data_file(ms, file);
	}
	if (!rc)
		rc = add_costs(ms);
	if (rc) {
		hpm_metricset__free(ms);
		errno = rc == -ENOMEM ? ENOMEM : EINVAL;
		return NULL;
	}
	return ms;
}
