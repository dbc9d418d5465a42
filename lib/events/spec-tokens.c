/* SPDX-License-Identifier: MIT */
/*
 * An event specification's tokens (spec-tokens-internal.h): lists, groups
 * and each event's extent, read as perf's grammar reads them; the syntax
 * errors of the list, in their place.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hpmon/hpmon.h>
#include "events/spec-tokens-internal.h"

/* Where the reader is: what may come next. */
enum {
	ST_ITEM,         /* an event or a group, at the top */
	ST_AFTER_ITEM,   /* ',' or the end */
	ST_MEMBER,       /* an event in a group */
	ST_AFTER_MEMBER, /* ',' or '}' */
	ST_DONE,
};

bool hpm__is_ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.';
}

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

bool hpm__is_wildcard(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] == '*' || s[i] == '?' || s[i] == '[')
			return true;
	return false;
}

int hpm_spec_tokens__init(struct hpm_spec_tokens *t, const char *spec)
{
	static const char punct[] = ":{},";
	size_t n = strlen(spec), k = 0;
	char *s = malloc(n + 1), q = 0;
	size_t *m = malloc((n + 1) * sizeof(*m));

	memset(t, 0, sizeof(*t));
	if (!s || !m) {
		free(s);
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
			if ((k && strchr(punct, s[k - 1])) || (spec[j] && strchr(punct, spec[j]))) {
				i = j - 1;
				continue;
			}
		}
		m[k] = i;
		s[k++] = c;
	}
	m[k] = n;
	s[k] = '\0';
	t->spec = s;
	t->from = m;
	t->state = ST_ITEM;
	return 0;
}

void hpm_spec_tokens__release(struct hpm_spec_tokens *t)
{
	free(t->spec);
	free(t->from);
	t->spec = NULL;
	t->from = NULL;
}

size_t hpm_spec_tokens__written(const struct hpm_spec_tokens *t, size_t pos)
{
	return pos <= strlen(t->spec) ? t->from[pos] : pos;
}

/*
 * Length of the event at @s: up to ',', '{' or '}' outside its terms
 * ('/' ... '/', in which quotes may hold ',' and '/': name='a,b'). In
 * mem:ADDR/LEN the '/' before a digit is the length, not terms; exec: and
 * sw: events have none.
 */
static size_t event_extent(const char *s)
{
	bool mem = !strncmp(s, "mem:", 4);
	/* exec: and sw: name files and functions, with '/' of their own */
	bool terms_done = !strncmp(s, "exec:", 5) || !strncmp(s, "sw:", 3);
	size_t i = 0, n = strlen(s);

	while (s[i] && s[i] != ',' && s[i] != '}' && s[i] != '{') {
		if (s[i] == '/' && !terms_done && !(mem && isdigit((unsigned char)s[i + 1]))) {
			size_t close = hpm__terms_close(s, i + 1, n);
			if (close == n)
				return n;
			i = close + 1;
			terms_done = true;
			continue;
		}
		i++;
	}
	return i;
}

static void skip_space(struct hpm_spec_tokens *t)
{
	while (isspace((unsigned char)t->spec[t->pos]))
		t->pos++;
}

/* Is there a group name at the reader, NAME '{' (perf's group1{a,b})?
 * Its length, else 0. */
static size_t group_name_len(const struct hpm_spec_tokens *t)
{
	const char *s = t->spec + t->pos;
	size_t i = 0;
	while (hpm__is_ident_char(s[i]))
		i++;
	return i && s[i] == '{' ? i : 0;
}

static void token(struct hpm_spec_token *out, enum hpm_spec_token_kind kind, const char *s,
		  size_t len, size_t pos)
{
	out->kind = kind;
	out->s = s;
	out->len = len;
	out->pos = pos;
	out->err = 0;
	out->msg[0] = '\0';
}

/* A syntax error at @pos (the word @s, @len bytes): the last token. */
static void __attribute__((format(printf, 7, 8)))
error(struct hpm_spec_tokens *t, struct hpm_spec_token *out, int code, size_t pos,
      const char *s, size_t len, const char *fmt, ...)
{
	va_list ap;

	token(out, HPM_TOK_ERROR, s, len, pos);
	out->err = code;
	va_start(ap, fmt);
	vsnprintf(out->msg, sizeof(out->msg), fmt, ap);
	va_end(ap);
	t->state = ST_DONE;
}

/* The event at the reader, or the error that none is there. */
static void event(struct hpm_spec_tokens *t, struct hpm_spec_token *out, int next)
{
	const char *s = t->spec + t->pos;
	size_t len = event_extent(s);

	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	if (len == 0) {
		error(t, out, -HPM_ERR_SYNTAX, t->pos, s, s[0] ? 1 : 0,
		      "expected an event name%s%.1s%s", s[0] ? " before '" : "", s,
		      s[0] ? "'" : "");
		return;
	}
	token(out, HPM_TOK_EVENT, s, len, t->pos);
	t->pos += event_extent(s);
	t->state = next;
}

void hpm_spec_tokens__next(struct hpm_spec_tokens *t, struct hpm_spec_token *out)
{
	const char *spec = t->spec;

	for (;;) {
		switch (t->state) {
		case ST_ITEM: {
			skip_space(t);
			if (!spec[t->pos]) {
				error(t, out, -HPM_ERR_SYNTAX, t->pos, "", 0, "%s",
				      t->pos ? "expected an event after ','"
					     : "empty event specification");
				return;
			}
			size_t glen = group_name_len(t), gpos = t->pos;
			if (spec[t->pos] == '{' || glen) {
				if (glen >= HPM_SPEC_GROUP_MAX) {
					error(t, out, -HPM_ERR_SYNTAX, gpos, spec + gpos, glen,
					      "group name '%.*s' is longer than %zu characters",
					      (int)glen, spec + gpos, (size_t)HPM_SPEC_GROUP_MAX - 1);
					return;
				}
				token(out, HPM_TOK_GROUP, spec + gpos, glen, gpos);
				t->pos += glen;
				t->open = t->pos++;
				t->state = ST_MEMBER;
				return;
			}
			if (spec[t->pos] == '}') {
				error(t, out, -HPM_ERR_SYNTAX, t->pos, "}", 1,
				      "'}' without a matching '{'");
				return;
			}
			event(t, out, ST_AFTER_ITEM);
			return;
		}
		case ST_AFTER_ITEM:
			skip_space(t);
			if (!spec[t->pos]) {
				t->state = ST_DONE;
				continue;
			}
			if (spec[t->pos] != ',') {
				error(t, out, -HPM_ERR_SYNTAX, t->pos, spec + t->pos, 1,
				      "unexpected '%c' after an event (separate events with ',')",
				      spec[t->pos]);
				return;
			}
			t->pos++;
			t->state = ST_ITEM;
			continue;
		case ST_MEMBER:
			skip_space(t);
			event(t, out, ST_AFTER_MEMBER);
			return;
		case ST_AFTER_MEMBER: {
			skip_space(t);
			char c = spec[t->pos];
			if (c == ',') {
				t->pos++;
				t->state = ST_MEMBER;
				continue;
			}
			if (c == '{') {
				error(t, out, -HPM_ERR_SYNTAX, t->pos, "{", 1,
				      "groups cannot be nested");
				return;
			}
			if (c != '}') {
				error(t, out, -HPM_ERR_SYNTAX, t->open, "{", 1,
				      "'{' at offset %zu is never closed", t->open);
				return;
			}
			t->pos++; /* '}' */
			token(out, HPM_TOK_GROUP_END, NULL, 0, t->pos);
			if (spec[t->pos] == ':') {
				const char *m = spec + ++t->pos;
				size_t mlen = 0;
				while (m[mlen] && m[mlen] != ',' && !isspace((unsigned char)m[mlen]))
					mlen++;
				token(out, HPM_TOK_GROUP_END, m, mlen, t->pos);
				t->pos += mlen;
			}
			t->state = ST_AFTER_ITEM;
			return;
		}
		default:
			token(out, HPM_TOK_END, NULL, 0, t->pos);
			return;
		}
	}
}
