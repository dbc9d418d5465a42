/* SPDX-License-Identifier: MIT */
/*
 * hpmon merge of stat files: the table of every rank's counts, filled one
 * file at a time (each file is read, parsed, copied into the table and
 * freed before the next: memory grows with the table, ranks x columns,
 * not with the files), and the figures over the ranks.
 *
 * Room: tools/hpmon/merge/ owns hpmon merge; may use report, output.
 * Ownership: the table owns every string and array in it; merge_table__release
 * frees them. Paths given to merge_table__add are borrowed for the call.
 */
#ifndef HPMON_TOOL_MERGE_H
#define HPMON_TOOL_MERGE_H

#include <stdbool.h>
#include <stddef.h>

/* A column: an event's count, or a metric. */
struct merge_col {
	char *name;
	char *unit;
	bool metric;            /* a metric: a ratio per rank, no total */
};

/* A rank's file. */
struct merge_row {
	unsigned rank;
	char *host;             /* "" when the file has none */
	char *file;
	double *v;              /* nv values (NaN: not counted); columns past nv: none */
	size_t nv;
	int exit_status;        /* -1 when the file has none */
};

struct merge_table {
	struct merge_col *cols;
	size_t nr_cols, cap_cols;
	struct merge_row *rows;   /* in rank order after merge_table__finish */
	size_t nr_rows, cap_rows;
	unsigned size;            /* the job's size the files give (the largest), 0: none */
	bool sizes_differ;
	char *job;                /* the first file's job id, or NULL */
	bool jobs_differ;
};

/* The figures of one column over the ranks that have it. */
struct merge_stat {
	size_t n;                 /* ranks with a value */
	double total, mean, min, max;
	unsigned min_rank, max_rank;
	double imbalance;         /* (max - mean) / max, as LIKWID and Score-P; 0 when max is 0 */
};

/* Read stat's JSON file @path into the table, or the output of
 * hpmon merge --json (its rows: merging as a tree). 0, or -errno after printing
 * why, naming the file (not stat's JSON, no rank, a rank seen before ...). */
int merge_table__add(struct merge_table *t, const char *path);

/* Sort the rows by rank. 0, or -EEXIST after naming two files of one rank. */
int merge_table__finish(struct merge_table *t);

/* The figures of column @c. */
void merge_table__stat(const struct merge_table *t, size_t c, struct merge_stat *s);

/* The ranks expected (the size, else the largest rank + 1) that have no
 * file, as ranges "2, 5-7" into @buf (cut with "..." when long); the
 * number of such ranks. */
size_t merge_table__missing(const struct merge_table *t, char *buf, size_t len);

void merge_table__release(struct merge_table *t);

#endif
