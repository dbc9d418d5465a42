/* SPDX-License-Identifier: MIT */
#include <string.h>
#include "core/data-internal.h"

const char *hpm_data__get(const char *name)
{
	for (const struct hpm_data_file *f = hpm_data_files; f->name; f++)
		if (!strcmp(f->name, name))
			return f->text;
	return NULL;
}

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

int hpm_data__next(const char *text, size_t *pos, size_t max,
		   struct hpm_data_line *line)
{
	if (max > HPM_DATA_MAX_FIELDS)
		max = HPM_DATA_MAX_FIELDS;
	while (text[*pos]) {
		const char *start = text + *pos;
		const char *nl = strchr(start, '\n');
		size_t len = nl ? (size_t)(nl - start) : strlen(start);
		*pos += len + (nl ? 1 : 0);
		line->lineno++;

		const char *hash = memchr(start, '#', len);
		if (hash)
			len = (size_t)(hash - start);
		if (len >= sizeof(line->buf))
			len = sizeof(line->buf) - 1;
		memcpy(line->buf, start, len);
		line->buf[len] = '\0';

		char *p = line->buf;
		line->nr = 0;
		while (*p && line->nr < max) {
			while (is_space(*p))
				p++;
			if (!*p)
				break;
			line->field[line->nr++] = p;
			if (line->nr == max) {
				/* last field: rest of line, right-trimmed */
				char *e = p + strlen(p);
				while (e > p && is_space(e[-1]))
					*--e = '\0';
				break;
			}
			while (*p && !is_space(*p))
				p++;
			if (*p)
				*p++ = '\0';
		}
		if (line->nr)
			return 1;
	}
	return 0;
}
