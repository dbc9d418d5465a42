/* SPDX-License-Identifier: MIT */
/*
 * Room: lib/events/ owns event syntax to perf_event_attr; may use location, core, runtime, sys.
 *
 * An event specification's second stage (lib/events/spec.c runs them):
 * the terms. An event token (spec-tokens-internal.h) cut where its grammar
 * says: the word before its terms, the terms between its '/'s, one by one
 * (KEY[=VALUE]), and the modifiers after them; modifier letters read into
 * what they ask for. What a word or a term means is the attrs stage's
 * (spec-attrs-internal.h), which is handed these parts; this stage knows
 * no PMU, no event list and no error report: a term or modifier that does
 * not read is said so in what it returns, for the attrs stage to report
 * in its turn.
 *
 * Ownership: the parts point into the text they were cut from, which must
 * outlive them; nothing is allocated.
 */
#ifndef HPM_SPEC_TERMS_INTERNAL_H
#define HPM_SPEC_TERMS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

/* An event as written, cut at its terms. Which of its ':' part a name
 * from its modifiers (SUBSYS:NAME:u, NATIVE:UMASK:u) is the attrs stage's
 * to tell: here, the text without terms is one word. */
struct hpm_spec_event {
	const char *s;
	size_t len;
	size_t pos;      /* offset of s in the specification */
	size_t ident;    /* its leading identifier characters: a PMU's name
			    when '/' follows them */
	size_t open;     /* the '/' that opens its terms, or len: none (the
			    '/' of mem:ADDR/LEN is the length, not terms) */
	size_t close;    /* the '/' that closes them, or len: none does */
	const char *mods; /* after the closing '/', without one ':' */
	size_t mlen;
};

/* @s (@len bytes at offset @pos of the specification) cut into @e. */
void hpm_spec_event__cut(struct hpm_spec_event *e, const char *s, size_t len, size_t pos);

/* One term of "a=1, b ,name='x,y'": KEY[=VALUE]. */
struct hpm_spec_term {
	const char *t;   /* the term, without the spaces around it */
	size_t tlen;     /* 0: an empty term (a,,b) */
	size_t at;       /* offset of t in the terms' text */
	size_t klen;     /* KEY: t's first klen bytes (spaces before '=' cut) */
	const char *v;   /* VALUE (spaces after '=' cut), NULL without '=' */
	size_t vlen;
};

/* The term at *@i of @terms (@len bytes) into @out, and *@i past its ','
 * (a ',' inside quotes is the value's). False at the end. */
bool hpm_spec_terms__next(const char *terms, size_t len, size_t *i, struct hpm_spec_term *out);

/* Modifier letters ("ukp", after ':'), as written: how often each came. */
struct hpm_spec_mods {
	unsigned u, k, h, H, G;
	unsigned p;      /* 'p's in all */
	bool P;          /* a 'P' (maximum precision) came ... */
	unsigned p_after_P; /* ... and so many 'p's after the last one */
	bool D, I, e, S; /* pinned, exclude_idle, exclusive, sample-read */
	size_t bad;      /* offset of the first letter that is none, or len */
};

/* Read @len letters @m into @out (@out->bad says whether they all are
 * modifiers: u k h H G p P D I e S W). */
void hpm_spec_mods__read(const char *m, size_t len, struct hpm_spec_mods *out);
/* Are these @len bytes modifier letters only (and some)? */
bool hpm__is_mods(const char *s, size_t len);

#endif
