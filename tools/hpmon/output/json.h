/* SPDX-License-Identifier: MIT */
/*
 * A minimal streaming JSON writer for the tool's --json outputs. It tracks
 * nesting so callers never place commas by hand; strings are escaped.
 * Non-finite doubles are written as null.
 * Room: tools/hpmon/output/ owns what the tool says and writes (advice, escaping, JSON, output files and names, exit codes); may use libc only.
 * Ownership: the writer borrows @f (the caller opens and closes it) and
 * copies nothing: keys and values are written at once.
 */
#ifndef HPMON_TOOL_JSON_H
#define HPMON_TOOL_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 32

struct json {
	FILE *f;
	int depth;
	bool first[JSON_MAX_DEPTH]; /* no member written yet at this level */
	bool pretty;
};

void json_init(struct json *j, FILE *f, bool pretty);
void json_obj_open(struct json *j, const char *key);   /* key NULL in arrays */
void json_obj_close(struct json *j);
void json_arr_open(struct json *j, const char *key);
void json_arr_close(struct json *j);
void json_str(struct json *j, const char *key, const char *val); /* NULL -> null */
void json_u64(struct json *j, const char *key, uint64_t val);
void json_i64(struct json *j, const char *key, int64_t val);
void json_dbl(struct json *j, const char *key, double val);
void json_bool(struct json *j, const char *key, bool val);
void json_null(struct json *j, const char *key);
/* Ends the top-level value with a newline. */
void json_end(struct json *j);

#endif
