/* SPDX-License-Identifier: MIT */
/*
 * Room: lib/core/ owns the context, errors, data and CPU lists; may use sys.
 *
 * "Did you mean": the names closest to a word the user got wrong, for an
 * error message. The caller offers every candidate it knows (PMU names,
 * aliases, presets, metrics); the picker keeps the three closest.
 *
 * Ownership: a picker lives on the caller's stack and holds no memory; it
 * borrows the word, which must outlive it, and copies the candidates it
 * keeps (names longer than HPM_SUGGEST_NAME_MAX - 1 are cut).
 */
#ifndef HPM_SUGGEST_INTERNAL_H
#define HPM_SUGGEST_INTERNAL_H

#include <stddef.h>

#define HPM_SUGGEST_MAX 3
#define HPM_SUGGEST_NAME_MAX 64

/* Which names count as close besides those a few edits away. Each caller
 * keeps the rule its messages have always followed. */
enum hpm_suggest_part {
	/* by edit distance only */
	HPM_SUGGEST_WHOLE,
	/* also a name that contains the word (of 3 characters or more) */
	HPM_SUGGEST_IN_NAME,
	/* also a name that contains the word or is contained in it, in any
	 * case (the word of 3 characters or more) */
	HPM_SUGGEST_OVERLAP,
};

struct hpm_suggest {
	const char *word;
	unsigned cap;                 /* names this far away or further are not kept */
	enum hpm_suggest_part part;
	char best[HPM_SUGGEST_MAX][HPM_SUGGEST_NAME_MAX]; /* closest first, "" unused */
	unsigned dist[HPM_SUGGEST_MAX];
};

/*
 * Edit distance between @a and @b, case-insensitive (optimal string
 * alignment: insert, delete, substitute, transpose two neighbours), or
 * @cap when it is @cap or more (and for names over 64 characters).
 */
unsigned hpm_suggest__distance(const char *a, const char *b, unsigned cap);

/* Start a picker for @word: names @cap edits away or further are too far. */
void hpm_suggest__init(struct hpm_suggest *s, const char *word, unsigned cap,
		       enum hpm_suggest_part part);

/* Offer candidate @name: kept when close enough and closer than one kept
 * (ties keep the one offered first; a name offered twice is kept once). */
void hpm_suggest__offer(struct hpm_suggest *s, const char *name);

/* The names kept, closest first, as "a, b, c" into @buf ("" for none). */
void hpm_suggest__format(const struct hpm_suggest *s, char *buf, size_t len);

#endif
