/* SPDX-License-Identifier: MIT */
/*
 * The event parser's state (events/spec-attrs-internal.h): its errors, the
 * events it appends to the list, and what every event form shares:
 * modifiers and numbers.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events/spec-attrs-internal.h"

int hpm_parser__fail(struct hpm_parser *p, int code, size_t pos, const char *tok,
		size_t toklen, const char *fmt, ...)
{
	struct hpm_parse_error *e = p->err;
	va_list ap;

	if (e->err) /* keep the first, innermost error */
		return e->err;
	e->err = code;
	e->pos = pos;
	if (toklen >= sizeof(e->token))
		toklen = sizeof(e->token) - 1;
	memcpy(e->token, tok ? tok : "", tok ? toklen : 0);
	e->token[tok ? toklen : 0] = '\0';
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return code;
}

int hpm_parser__tidy(const char *spec, char **out, size_t **from)
{
	static const char punct[] = ":{},";
	size_t n = strlen(spec), k = 0;
	char *t = malloc(n + 1), q = 0;
	size_t *m = malloc((n + 1) * sizeof(*m));

	if (!t || !m) {
		free(t);
		free(m);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		char c = spec[i];
		if (q || c == '\'' || c == '"') {
			q = q ? (c == q ? 0 : q) : c; /* quoted text is kept whole */
		} else if (isspace((unsigned char)c)) {
			size_t j = i;
			while (j < n && isspace((unsigned char)spec[j]))
				j++;
			if ((k && strchr(punct, t[k - 1])) || (spec[j] && strchr(punct, spec[j]))) {
				i = j - 1;
				continue;
			}
		}
		m[k] = i;
		t[k++] = c;
	}
	m[k] = n;
	t[k] = '\0';
	*out = t;
	*from = m;
	return 0;
}

struct hpm_event *hpm_parser__append(struct hpm_parser *p, const char *name, size_t len)
{
	struct hpm_evlist *l = p->list;
	struct hpm_event *ev;

	if (l->nr >= HPM_MAX_EVENTS) {
		hpm_parser__fail(p, -HPM_ERR_TOO_MANY, p->pos, name, len,
		     "more than %d events in one list", HPM_MAX_EVENTS);
		return NULL;
	}
	if (l->nr == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 8;
		struct hpm_event *v = realloc(l->ev, cap * sizeof(*v));
		if (!v)
			return NULL;
		l->ev = v;
		l->cap = cap;
	}
	ev = &l->ev[l->nr];
	memset(ev, 0, sizeof(*ev));
	ev->name = strndup(name, len);
	if (!ev->name)
		return NULL;
	ev->attr.size = sizeof(ev->attr);
	ev->scale = 1.0;
	ev->leader = l->nr;
	ev->merge = l->nr;
	ev->nr_copies = 1;
	l->nr++;
	return ev;
}

/* ---- modifiers ---- */

/*
 * Apply modifier letters @m (length @len) as perf does: u/k/h select
 * privilege levels (anything not named is excluded), H/G host/guest,
 * p precise (repeatable), P maximum precision, D pinned, I exclude_idle,
 * e exclusive, S sample-read, W weak group (accepted, no attr effect).
 *
 * Like perf's, modifiers add to what the event already has: a group's
 * modifiers ({faults:k,cache-references}:u) widen each member's own, so
 * faults counts kernel and user; its 'p' raises each member's precise
 * level ({cycles:u,instructions:kp}:p gives instructions pp); its H or G
 * adds to a member's own ({a,b:G}:H counts b in host and guest).
 */
int hpm_parser__mods(struct hpm_parser *p, struct hpm_event *ev, const char *m,
		      size_t len, size_t pos)
{
	struct perf_event_attr *a = &ev->attr;
	/* the levels already chosen (by the event's own modifiers) */
	bool priv = ev->explicit_priv, gh = ev->explicit_gh;
	unsigned eu = priv && a->exclude_user, ek = priv && a->exclude_kernel;
	unsigned eh = priv && a->exclude_hv;
	unsigned eH = gh && a->exclude_host, eG = gh && a->exclude_guest;
	unsigned pr = a->precise_ip, seen_p = 0;
	int u = 0, k = 0, h = 0, H = 0, G = 0;

	if (len == 0)
		return hpm_parser__fail(p, -HPM_ERR_BAD_MODIFIER, pos, m, 0,
			    "empty modifier after ':' (valid: u k h H G p pp ppp P D I e S W)");
	for (size_t i = 0; i < len; i++) {
		switch (m[i]) {
		case 'u': u++; break;
		case 'k': k++; break;
		case 'h': h++; break;
		case 'H': H++; break;
		case 'G': G++; break;
		case 'p': pr++; seen_p++; break;
		case 'P': pr = 3; break;
		case 'D': a->pinned = 1; break;
		case 'I': a->exclude_idle = 1; break;
		case 'e': a->exclusive = 1; break;
		case 'S': a->sample_type |= PERF_SAMPLE_READ; break;
		case 'W': break;
		default:
			return hpm_parser__fail(p, -HPM_ERR_BAD_MODIFIER, pos + i, m, len,
				    "unknown modifier '%c' in ':%.*s' (valid: u k h H G p pp ppp P D I e S W)",
				    m[i], (int)len, m);
		}
	}
	if (seen_p > 3)
		return hpm_parser__fail(p, -HPM_ERR_BAD_MODIFIER, pos, m, len,
			    "at most three 'p' (precise levels 0-3) in ':%.*s'", (int)len, m);
	if (pr > 3)
		return hpm_parser__fail(p, -HPM_ERR_BAD_MODIFIER, pos, m, len,
			    "':%.*s' raises event '%s' above precise level 3 (its own modifiers "
			    "and its group's add up)", (int)len, m, ev->name);
	if (u > 1 || k > 1 || h > 1 || H > 1 || G > 1)
		return hpm_parser__fail(p, -HPM_ERR_BAD_MODIFIER, pos, m, len,
			    "repeated modifier in ':%.*s'", (int)len, m);
	if (u || k || h) {
		if (!priv)
			eu = ek = eh = 1; /* the first level named excludes the others */
		a->exclude_user = eu && !u;
		a->exclude_kernel = ek && !k;
		a->exclude_hv = eh && !h;
		ev->explicit_priv = true;
	}
	if (H || G) {
		/* H: host only, G: guest only, both: either (the default
		 * without them, as perf's, is host only: exclude_guest) */
		if (!gh)
			eH = eG = 1;
		a->exclude_guest = eG && !G;
		a->exclude_host = eH && !H;
		ev->explicit_gh = true;
	}
	a->precise_ip = pr;
	return 0;
}

bool hpm__is_mods(const char *s, size_t len)
{
	if (!len)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!strchr("ukhHGpPDIeSW", s[i]))
			return false;
	return true;
}

/* ---- terms ---- */

size_t hpm__terms_close(const char *s, size_t i, size_t len)
{
	char q = 0;
	for (; i < len && s[i]; i++) {
		if (q) {
			if (s[i] == q)
				q = 0;
		} else if (s[i] == '\'' || s[i] == '"') {
			q = s[i];
		} else if (s[i] == '/') {
			return i;
		}
	}
	return len;
}

/* ---- numbers ---- */

int hpm__parse_u64(const char *s, size_t len, uint64_t *out)
{
	char buf[32], *end;
	if (!len || len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (!isdigit((unsigned char)buf[0]))
		return -1;
	errno = 0;
	/* as perf: 0x... is hex, anything else decimal (010 is ten) */
	if (buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X')) {
		if (!isxdigit((unsigned char)buf[2]))
			return -1; /* "0x", "0x-1", "0x 5": strtoull would take them */
		*out = strtoull(buf + 2, &end, 16);
	}
	else
		*out = strtoull(buf, &end, 10);
	return (*end || errno) ? -1 : 0;
}

int hpm_parser__terms_closed(struct hpm_parser *p, const char *s, size_t len, size_t open,
			     size_t pos, size_t *close, const char **m, size_t *mlen)
{
	*close = hpm__terms_close(s, open + 1, len);
	if (*close == len)
		return hpm_parser__fail(p, -HPM_ERR_SYNTAX, pos + len, s, len,
			    "'%.*s' lacks the '/' that closes its terms", (int)len, s);
	*m = s + *close + 1;
	*mlen = len - *close - 1;
	if (*mlen && **m == ':') {
		(*m)++;
		(*mlen)--;
	}
	return 0;
}

int hpm_parser__rename(struct hpm_event *ev, const char *s, size_t len)
{
	if (strncmp(ev->name, s, len))
		return 0;
	char *n = strndup(s, len);
	if (!n)
		return -ENOMEM;
	free(ev->name);
	ev->name = n;
	return 0;
}
