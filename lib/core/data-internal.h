/* SPDX-License-Identifier: MIT */
/*
 * Room: lib/core/ owns the context, errors, data and CPU lists; may use sys.
 *
 * The text files of data/, compiled into the library (cmake/embed-data.cmake)
 * so the tool needs no installed data directory. Lines are read through a
 * tokenizing iterator: '#' starts a comment, blank lines are skipped, fields
 * are separated by white space, and the last field may hold spaces
 * (the description).
 *
 * Ownership: the texts are static and live as long as the program; a
 * line's fields point into its own buf, so they are valid until the next
 * call with that line.
 */
#ifndef HPM_DATA_INTERNAL_H
#define HPM_DATA_INTERNAL_H

#include <stddef.h>

struct hpm_data_file {
	const char *name; /* file name within data/, e.g. "generic-events.txt" */
	const char *text; /* NUL-terminated contents */
};
extern const struct hpm_data_file hpm_data_files[]; /* NULL-terminated */

/* The text of data/@name, or NULL. */
const char *hpm_data__get(const char *name);

#define HPM_DATA_MAX_FIELDS 8
struct hpm_data_line {
	const char *field[HPM_DATA_MAX_FIELDS];
	size_t nr;       /* fields found */
	unsigned lineno; /* 1-based */
	char buf[512];   /* storage the fields point into */
};

/*
 * Iterate over the lines of @text: *pos starts at 0. Splits into at most
 * @max fields (the last takes the rest of the line). Returns 1 with @line
 * filled, 0 at the end.
 */
int hpm_data__next(const char *text, size_t *pos, size_t max,
		   struct hpm_data_line *line);

#endif
