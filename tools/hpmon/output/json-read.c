/* SPDX-License-Identifier: MIT */
/*
 * The JSON reader of stat's files (json-read.h): recursive descent over a
 * bounded text, with a depth bound that keeps the recursion small.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/json-read.h"

struct mj_in {
	const char *p, *end, *start;
	char *why;
	size_t wlen;
	int err;            /* first error: EBADMSG, ENOMEM or E2BIG */
};

static void bad(struct mj_in *in, int err, const char *what)
{
	if (in->err)
		return;
	in->err = err;
	snprintf(in->why, in->wlen, "%s at byte %zu", what, (size_t)(in->p - in->start));
}

static void skip_ws(struct mj_in *in)
{
	while (in->p < in->end && strchr(" \t\r\n", *in->p) && *in->p)
		in->p++;
}

static int hex4(struct mj_in *in, unsigned *out)
{
	unsigned v = 0;
	if (in->end - in->p < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		char c = *in->p++;
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

/* UTF-8 of @cp into @o; the bytes written. */
static size_t utf8(unsigned cp, char *o)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | cp >> 12);
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | cp >> 18);
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* A string at in->p (on its '"'), unescaped into a new buffer. An escape
 * never grows the text (\uXXXX: 6 bytes to at most 4), so the raw length
 * bounds the result. */
static char *string(struct mj_in *in)
{
	const char *q = ++in->p;
	while (q < in->end && *q != '"')
		q += *q == '\\' ? 2 : 1;
	if (q >= in->end) {
		bad(in, EBADMSG, "a string without its closing quote");
		return NULL;
	}
	char *s = malloc((size_t)(q - in->p) + 1), *o = s;
	if (!s) {
		bad(in, ENOMEM, "out of memory");
		return NULL;
	}
	while (*in->p != '"') {
		unsigned char c = (unsigned char)*in->p++;
		if (c < 0x20)
			goto fail;
		if (c != '\\') {
			*o++ = (char)c;
			continue;
		}
		c = (unsigned char)*in->p++;
		const char *esc = strchr("\"\\/bfnrt", c);
		if (esc && c) {
			*o++ = "\"\\/\b\f\n\r\t"[esc - "\"\\/bfnrt"];
			continue;
		}
		unsigned cp, lo;
		if (c != 'u' || hex4(in, &cp) || !cp)
			goto fail;
		if (cp >= 0xd800 && cp < 0xdc00) {
			if (in->end - in->p < 6 || in->p[0] != '\\' || in->p[1] != 'u')
				goto fail;
			in->p += 2;
			if (hex4(in, &lo) || lo < 0xdc00 || lo > 0xdfff)
				goto fail;
			cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
		} else if (cp >= 0xdc00 && cp < 0xe000) {
			goto fail;
		}
		o += utf8(cp, o);
	}
	*o = '\0';
	in->p++;
	return s;
fail:
	free(s);
	bad(in, EBADMSG, "a bad character or escape in a string");
	return NULL;
}

static struct mj *node(struct mj_in *in, enum mj_type t)
{
	struct mj *m = calloc(1, sizeof(*m));
	if (!m)
		bad(in, ENOMEM, "out of memory");
	else
		m->type = t;
	return m;
}

static int add_kid(struct mj_in *in, struct mj *m, struct mj *kid, size_t *cap)
{
	if (m->n == *cap) {
		size_t nc = *cap ? *cap * 2 : 4;
		struct mj **k = realloc(m->kids, nc * sizeof(*k));
		if (!k) {
			bad(in, ENOMEM, "out of memory");
			return -1;
		}
		m->kids = k;
		*cap = nc;
	}
	m->kids[m->n++] = kid;
	return 0;
}

static struct mj *value(struct mj_in *in, int depth);

/* An array or object at in->p (on its '[' or '{'). */
static struct mj *container(struct mj_in *in, int depth)
{
	bool obj = *in->p == '{';
	char close = obj ? '}' : ']';
	size_t cap = 0;
	struct mj *m = node(in, obj ? MJ_OBJ : MJ_ARR);

	if (!m)
		return NULL;
	if (depth >= MJ_MAX_DEPTH) {
		bad(in, E2BIG, "nested too deeply");
		return m;
	}
	in->p++;
	skip_ws(in);
	if (in->p < in->end && *in->p == close) {
		in->p++;
		return m;
	}
	while (!in->err) {
		char *key = NULL;
		skip_ws(in);
		if (obj) {
			if (in->p >= in->end || *in->p != '"') {
				bad(in, EBADMSG, "an object member without a name");
				break;
			}
			if (!(key = string(in)))
				break;
			skip_ws(in);
			if (in->p >= in->end || *in->p != ':') {
				free(key);
				bad(in, EBADMSG, "a member name without ':'");
				break;
			}
			in->p++;
		}
		struct mj *kid = value(in, depth + 1);
		if (kid)
			kid->key = key;
		else
			free(key);
		if (!kid || add_kid(in, m, kid, &cap)) {
			mj_free(kid);
			break;
		}
		skip_ws(in);
		if (in->p < in->end && *in->p == ',') {
			in->p++;
			continue;
		}
		if (in->p < in->end && *in->p == close) {
			in->p++;
			return m;
		}
		bad(in, EBADMSG, obj ? "expected ',' or '}'" : "expected ',' or ']'");
	}
	return m;
}

static struct mj *number(struct mj_in *in)
{
	char buf[64];
	size_t n = 0;
	while (in->p + n < in->end && n < sizeof(buf) - 1 && strchr("+-0123456789.eE", in->p[n]) &&
	       in->p[n])
		n++;
	memcpy(buf, in->p, n);
	buf[n] = '\0';
	char *end;
	double v = n ? strtod(buf, &end) : 0;
	if (!n || *end || !isfinite(v) || buf[0] == '+' || buf[0] == '.') {
		bad(in, EBADMSG, "not a JSON value");
		return NULL;
	}
	in->p += n;
	struct mj *m = node(in, MJ_NUM);
	if (m)
		m->num = v;
	return m;
}

static struct mj *word(struct mj_in *in, const char *w, enum mj_type t, double v)
{
	size_t n = strlen(w);
	if ((size_t)(in->end - in->p) < n || memcmp(in->p, w, n)) {
		bad(in, EBADMSG, "not a JSON value");
		return NULL;
	}
	in->p += n;
	struct mj *m = node(in, t);
	if (m)
		m->num = v;
	return m;
}

static struct mj *value(struct mj_in *in, int depth)
{
	skip_ws(in);
	if (in->p >= in->end) {
		bad(in, EBADMSG, "the text ends where a value should be");
		return NULL;
	}
	switch (*in->p) {
	case '{':
	case '[':
		return container(in, depth);
	case '"': {
		char *s = string(in);
		struct mj *m = s ? node(in, MJ_STR) : NULL;
		if (m)
			m->str = s;
		else
			free(s);
		return m;
	}
	case 't': return word(in, "true", MJ_BOOL, 1);
	case 'f': return word(in, "false", MJ_BOOL, 0);
	case 'n': return word(in, "null", MJ_NULL, 0);
	default: return number(in);
	}
}

struct mj *mj_parse(const char *text, size_t len, char *why, size_t wlen)
{
	struct mj_in in = { text, text + len, text, why, wlen, 0 };

	if (wlen)
		why[0] = '\0';
	if (len > MJ_MAX_TEXT) {
		snprintf(why, wlen, "over %u MiB", MJ_MAX_TEXT >> 20);
		errno = E2BIG;
		return NULL;
	}
	struct mj *m = value(&in, 0);
	skip_ws(&in);
	if (!in.err && in.p != in.end)
		bad(&in, EBADMSG, "more text after the JSON value (one object is expected)");
	if (in.err) {
		mj_free(m);
		errno = in.err;
		return NULL;
	}
	return m;
}

const struct mj *mj_get(const struct mj *o, const char *key)
{
	if (!o || o->type != MJ_OBJ)
		return NULL;
	for (size_t i = 0; i < o->n; i++)
		if (!strcmp(o->kids[i]->key, key))
			return o->kids[i];
	return NULL;
}

const double *mj_num(const struct mj *o, const char *key)
{
	const struct mj *m = mj_get(o, key);
	return m && m->type == MJ_NUM ? &m->num : NULL;
}

const char *mj_str(const struct mj *o, const char *key)
{
	const struct mj *m = mj_get(o, key);
	return m && m->type == MJ_STR ? m->str : NULL;
}

void mj_free(struct mj *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++)
		mj_free(m->kids[i]);
	free(m->kids);
	free(m->str);
	free(m->key);
	free(m);
}
