/* SPDX-License-Identifier: MIT */
/*
 * An event cut into its parts (spec-terms-internal.h): the word, the terms
 * one by one, the modifier letters.
 */
#include <ctype.h>
#include <string.h>

#include "events/spec-terms-internal.h"
#include "events/spec-tokens-internal.h"

void hpm_spec_event__cut(struct hpm_spec_event *e, const char *s, size_t len, size_t pos)
{
	bool mem = !strncmp(s, "mem:", 4);

	memset(e, 0, sizeof(*e));
	e->s = s;
	e->len = len;
	e->pos = pos;
	while (e->ident < len && hpm__is_ident_char(s[e->ident]))
		e->ident++;
	/* exec: and sw: name files and functions, with '/' of their own */
	e->open = len;
	if (strncmp(s, "exec:", 5) && strncmp(s, "sw:", 3))
		for (size_t i = 0; i < len; i++)
			if (s[i] == '/' && !(mem && i + 1 < len && isdigit((unsigned char)s[i + 1]))) {
				e->open = i;
				break;
			}
	e->close = e->open < len ? hpm__terms_close(s, e->open + 1, len) : len;
	if (e->close < len) {
		e->mods = s + e->close + 1;
		e->mlen = len - e->close - 1;
		if (e->mlen && *e->mods == ':') {
			e->mods++;
			e->mlen--;
		}
	}
}

/* End of the term that starts at @i: the next ',' outside quotes. */
static size_t term_end(const char *terms, size_t i, size_t len)
{
	char q = 0;
	for (; i < len; i++) {
		if (q) {
			if (terms[i] == q)
				q = 0;
		} else if (terms[i] == '\'' || terms[i] == '"') {
			q = terms[i];
		} else if (terms[i] == ',') {
			break;
		}
	}
	return i;
}

bool hpm_spec_terms__next(const char *terms, size_t len, size_t *i, struct hpm_spec_term *out)
{
	if (*i >= len)
		return false;
	size_t j = term_end(terms, *i, len), a = *i, b = j;
	/* as perf: event=0x3c, umask=0x1 */
	while (a < b && isspace((unsigned char)terms[a]))
		a++;
	while (b > a && isspace((unsigned char)terms[b - 1]))
		b--;
	*i = j + 1;
	out->t = terms + a;
	out->tlen = b - a;
	out->at = a;
	/* KEY[=VALUE]: as perf, spaces around '=' are not part of the key or
	 * the value (event = 0x3c) */
	const char *eq = memchr(out->t, '=', out->tlen);
	out->klen = eq ? (size_t)(eq - out->t) : out->tlen;
	out->v = eq ? eq + 1 : NULL;
	out->vlen = eq ? out->tlen - out->klen - 1 : 0;
	while (out->klen && isspace((unsigned char)out->t[out->klen - 1]))
		out->klen--;
	while (out->vlen && isspace((unsigned char)*out->v)) {
		out->v++;
		out->vlen--;
	}
	return true;
}

void hpm_spec_mods__read(const char *m, size_t len, struct hpm_spec_mods *out)
{
	memset(out, 0, sizeof(*out));
	out->bad = len;
	for (size_t i = 0; i < len; i++) {
		switch (m[i]) {
		case 'u': out->u++; break;
		case 'k': out->k++; break;
		case 'h': out->h++; break;
		case 'H': out->H++; break;
		case 'G': out->G++; break;
		case 'p': out->p++; out->p_after_P++; break;
		case 'P': out->P = true; out->p_after_P = 0; break;
		case 'D': out->D = true; break;
		case 'I': out->I = true; break;
		case 'e': out->e = true; break;
		case 'S': out->S = true; break;
		case 'W': break;
		default:
			out->bad = i;
			return;
		}
	}
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
