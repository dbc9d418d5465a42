/* SPDX-License-Identifier: MIT */
#include "output/json.h"
#include "output/escape.h"

#include <math.h>
#include <inttypes.h>

void json_init(struct json *j, FILE *f, bool pretty)
{
	j->f = f;
	j->depth = 0;
	j->first[0] = true;
	j->pretty = pretty;
}

/*
 * A JSON string that holds the exact bytes of @s and shows a terminal no
 * control character: control characters (C0, DEL, C1) and the formatting
 * characters of escape.h as \uXXXX; a byte that is not UTF-8 as the lone
 * surrogate \udcXX (0x80-0xff), which is what Python's "surrogateescape"
 * turns back into the byte, so that the output stays valid UTF-8.
 */
static void put_escaped(FILE *f, const char *s)
{
	size_t n;
	fputc('"', f);
	for (const char *p = s; *p; p += n) {
		uint32_t cp;
		n = esc_utf8(p, &cp);
		if (!n) {
			fprintf(f, "\\u%04x", 0xdc00u | (unsigned char)*p);
			n = 1;
			continue;
		}
		switch (cp) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		default:
			if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || esc_format_char(cp))
				fprintf(f, "\\u%04x", (unsigned)cp);
			else
				fwrite(p, 1, n, f);
		}
	}
	fputc('"', f);
}

/* Comma, indentation and key before a member. */
static void member(struct json *j, const char *key)
{
	if (!j->first[j->depth])
		fputc(',', j->f);
	j->first[j->depth] = false;
	if (j->pretty && j->depth > 0) {
		fputc('\n', j->f);
		for (int i = 0; i < j->depth; i++)
			fputs("  ", j->f);
	}
	if (key) {
		put_escaped(j->f, key);
		fputs(j->pretty ? ": " : ":", j->f);
	}
}

static void open_(struct json *j, const char *key, char c)
{
	member(j, key);
	fputc(c, j->f);
	if (j->depth + 1 < JSON_MAX_DEPTH)
		j->depth++;
	j->first[j->depth] = true;
}

static void close_(struct json *j, char c)
{
	bool empty = j->first[j->depth];
	if (j->depth > 0)
		j->depth--;
	if (j->pretty && !empty) {
		fputc('\n', j->f);
		for (int i = 0; i < j->depth; i++)
			fputs("  ", j->f);
	}
	fputc(c, j->f);
}

void json_obj_open(struct json *j, const char *key) { open_(j, key, '{'); }
void json_obj_close(struct json *j) { close_(j, '}'); }
void json_arr_open(struct json *j, const char *key) { open_(j, key, '['); }
void json_arr_close(struct json *j) { close_(j, ']'); }

void json_str(struct json *j, const char *key, const char *val)
{
	member(j, key);
	if (val)
		put_escaped(j->f, val);
	else
		fputs("null", j->f);
}

void json_u64(struct json *j, const char *key, uint64_t val)
{
	member(j, key);
	fprintf(j->f, "%" PRIu64, val);
}

void json_i64(struct json *j, const char *key, int64_t val)
{
	member(j, key);
	fprintf(j->f, "%" PRId64, val);
}

void json_dbl(struct json *j, const char *key, double val)
{
	member(j, key);
	if (isfinite(val))
		fprintf(j->f, "%.15g", val);
	else
		fputs("null", j->f);
}

void json_bool(struct json *j, const char *key, bool val)
{
	member(j, key);
	fputs(val ? "true" : "false", j->f);
}

void json_null(struct json *j, const char *key)
{
	member(j, key);
	fputs("null", j->f);
}

void json_end(struct json *j)
{
	fputc('\n', j->f);
	fflush(j->f);
}
