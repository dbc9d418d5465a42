/* SPDX-License-Identifier: MIT */
/*
 * Room: lib/events/ owns event syntax to perf_event_attr; may use location, core, runtime, sys.
 *
 * An event specification's first stage (lib/events/spec.c runs them):
 * the tokens. perf's grammar of lists and groups, nothing more:
 *
 *   list  := item (',' item)*
 *   item  := [NAME] '{' event (',' event)* '}' [':' mods] | event
 *
 * Each event's extent is found here (up to ',', '{' or '}' outside its
 * terms), not what it means: cutting an event into its parts is the terms
 * stage's (spec-terms-internal.h), resolving them the attrs stage's
 * (spec-attrs-internal.h). A syntax error is a token too, given in its
 * place, so that errors come in the order the specification is read. And
 * the lexical helpers every stage shares: identifier characters, the '/'
 * that closes terms, numbers as perf reads them, globs.
 *
 * Ownership: struct hpm_spec_tokens owns a tidied copy of the
 * specification and the map of its offsets; a token points into the copy
 * and lives as long as it (hpm_spec_tokens__release).
 */
#ifndef HPM_SPEC_TOKENS_INTERNAL_H
#define HPM_SPEC_TOKENS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A group's name, with its terminating NUL (struct hpm_event's group). */
#define HPM_SPEC_GROUP_MAX 64
/* A syntax error's sentence, with its NUL (struct hpm_parse_error's msg). */
#define HPM_SPEC_MSG_MAX 256

enum hpm_spec_token_kind {
	HPM_TOK_END,       /* the specification is read */
	HPM_TOK_EVENT,     /* an event: s, len (without trailing spaces) at pos */
	HPM_TOK_GROUP,     /* a group opens: its name s, len (0: none) at pos */
	HPM_TOK_GROUP_END, /* the group closes: its modifiers s, len at pos
			      (s NULL: none) */
	HPM_TOK_ERROR,     /* a syntax error at pos: err, the word s, len, msg;
			      nothing follows it */
};

struct hpm_spec_token {
	enum hpm_spec_token_kind kind;
	const char *s;
	size_t len;
	size_t pos;        /* offset in the tidied specification */
	int err;
	char msg[HPM_SPEC_MSG_MAX];
};

struct hpm_spec_tokens {
	char *spec;        /* the specification tidied (hpm_spec_tokens__init) */
	size_t *from;      /* [strlen(spec) + 1]: where each byte was written */
	size_t pos;
	int state;
	size_t open;       /* the '{' of the group being read */
};

/*
 * perf's lexer lets spaces stand around the list's punctuation: "faults :u",
 * "faults: u", "{a,b} :u", "g1 {a,b}", "sched : sched_switch". The tokens
 * are read from a copy of @spec without the spaces next to ':', '{', '}'
 * and ',' (quoted text is kept whole), and their offsets are into it;
 * hpm_spec_tokens__written() maps one back to where it was written.
 * 0 or -ENOMEM.
 */
int hpm_spec_tokens__init(struct hpm_spec_tokens *t, const char *spec);
/* The next token into @out; after END or ERROR, END again. */
void hpm_spec_tokens__next(struct hpm_spec_tokens *t, struct hpm_spec_token *out);
/* Offset @pos of the tidied specification in the one written (@pos past
 * its end: @pos). */
size_t hpm_spec_tokens__written(const struct hpm_spec_tokens *t, size_t pos);
void hpm_spec_tokens__release(struct hpm_spec_tokens *t);

/* A character of a name: letters, digits, '_', '-', '.'. */
bool hpm__is_ident_char(char c);
/* The '/' that closes terms opened before offset @i of @s (@len bytes),
 * outside quotes (name='a/b'); @len when there is none. */
size_t hpm__terms_close(const char *s, size_t i, size_t len);
/* A number as perf reads one (0x... hex, else decimal): 0 or -1. */
int hpm__parse_u64(const char *s, size_t len, uint64_t *out);
/* Does the word hold a glob character (* ? [)? */
bool hpm__is_wildcard(const char *s, size_t len);

#endif
