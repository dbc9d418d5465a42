/* SPDX-License-Identifier: MIT */
/*
 * The tool's one JSON reader, for stat's --json files: hpmon merge reads
 * them, and report --timeline and --html a `stat -I` file's lines
 * (timeline-stat.c). They may come from other machines and are not
 * trusted. The whole text is parsed into a tree at once (one file at a
 * time: merge frees each tree before it reads the next), with bounds:
 * the text at most MJ_MAX_TEXT bytes, nesting at most MJ_MAX_DEPTH, and
 * no more nodes than the text has bytes. Strings are kept unescaped,
 * NUL-terminated (a \u0000 escape is refused).
 *
 * Room: tools/hpmon/output/ owns what the tool says and writes (advice, escaping, JSON, output files and names, exit codes); may use libc only.
 * Ownership: mj_parse returns a tree the caller frees with mj_free; every
 * node and string in it belongs to the tree. mj_get and mj_at return
 * nodes borrowed from it.
 */
#ifndef HPMON_TOOL_JSON_READ_H
#define HPMON_TOOL_JSON_READ_H

#include <stddef.h>

#define MJ_MAX_TEXT (64u << 20)
#define MJ_MAX_DEPTH 64

enum mj_type { MJ_NULL, MJ_BOOL, MJ_NUM, MJ_STR, MJ_ARR, MJ_OBJ };

struct mj {
	enum mj_type type;
	double num;            /* MJ_NUM; MJ_BOOL: 0 or 1 */
	char *str;             /* MJ_STR */
	char *key;             /* the member's name, in an object */
	size_t n;              /* MJ_ARR, MJ_OBJ: members */
	struct mj **kids;
};

/*
 * Parse @text (@len bytes, not NUL-terminated) as one JSON value, with
 * nothing but white space after it. The tree, or NULL with errno
 * (EBADMSG: not JSON, with what and where in @why; ENOMEM; E2BIG: text or
 * nesting over the bounds).
 */
struct mj *mj_parse(const char *text, size_t len, char *why, size_t wlen);

/* The member @key of object @o, or NULL (also when @o is not an object). */
const struct mj *mj_get(const struct mj *o, const char *key);

/* @o's member @key when it is a number / string; NULL otherwise. */
const double *mj_num(const struct mj *o, const char *key);
const char *mj_str(const struct mj *o, const char *key);

void mj_free(struct mj *m);

#endif
