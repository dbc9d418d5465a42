/* SPDX-License-Identifier: MIT */
/*
 * hpmon merge: the per-rank files of a parallel job (stat -o 'stat.%r.json'
 * --json under mpirun or srun) as one table, one row per rank and event,
 * and per event the total, mean, min and max with their ranks, and the
 * imbalance (max - mean) / max, as LIKWID and Score-P report it
 * (docs/hpmon-merge.md). The files are read one at a time (merge.h).
 * Profiles (record -o 'prof.%r') merge into one profile (merge-prof.h);
 * which the files are is told by their content.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "output/advice.h"
#include "output/escape.h"
#include "output/json.h"
#include "merge/merge-prof.h"
#include "merge/merge.h"

static const char merge_usage[] =
	"usage: hpmon merge [--json | -x SEP] FILE...\n"
	"   or: hpmon merge -o OUT.prof [-q] PROFILE...\n"
	"\n"
	"Merge the files of 'hpmon stat --json -o FILE' written by the ranks of a\n"
	"parallel job (-o 'stat.%r.json' under mpirun or srun): every rank's counts\n"
	"and metrics, and per event the total, mean, min and max (with their ranks)\n"
	"and the imbalance (max - mean) / max. Ranks without a file (gaps in\n"
	"0..size-1) are reported, and make the exit status 1. A FILE may be the\n"
	"output of 'hpmon merge --json' too: merges of merges give the same table.\n"
	"\n"
	"Profiles of the ranks ('hpmon record -o prof.%r') merge into one profile,\n"
	"OUT.prof, in which every sample keeps its rank and host: 'hpmon report -i\n"
	"OUT.prof --sort rank,sym', '--rank 3', 'hpmon diff OUT.prof:1 OUT.prof:3'.\n"
	"A damaged or cut profile is skipped with a warning, and its rank reported\n"
	"missing; profiles of other events are refused. Merged profiles merge again.\n"
	"\n"
	"  -o, --output FILE          the merged profile (profiles only)\n"
	"  -q, --quiet                no summary line (profiles)\n"
	"  -j, --json                 one JSON object\n"
	"  -x, --field-separator SEP  CSV lines, fields separated by SEP\n"
	"  -h, --help                 this text\n";

enum merge_fmt { M_HUMAN, M_CSV, M_JSON };

/* Counts as integers when they are; rates and msec with decimals. */
static void fmt_num(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (v == floor(v) && fabs(v) < 1e15)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.3f", v);
}

static void print_human(const struct merge_table *t, const char *missing, size_t nr_missing)
{
	char a[48], b[48], c[48], d[48];

	printf("# hpmon merge: %zu rank%s", t->nr_rows, t->nr_rows == 1 ? "" : "s");
	if (t->size)
		printf(" of %u", t->size);
	if (t->job)
		printf(", job %s", esc_text(t->job));
	printf("\n#   rank %-16s %18s %-6s name\n", "host", "value", "unit");
	for (size_t i = 0; i < t->nr_rows; i++) {
		const struct merge_row *r = &t->rows[i];
		for (size_t k = 0; k < t->nr_cols; k++) {
			fmt_num(a, sizeof(a), k < r->nv ? r->v[k] : NAN);
			printf("%8u %-16s %18s %-6s %s%s\n", r->rank, esc_text(r->host), a,
			       esc_text(t->cols[k].unit), esc_text(t->cols[k].name),
			       t->cols[k].metric ? " (metric)" : "");
		}
	}
	printf("#\n# %16s %16s %16s %8s %16s %8s %9s  name\n", "total", "mean", "min", "(rank)",
	       "max", "(rank)", "imbalance");
	for (size_t k = 0; k < t->nr_cols; k++) {
		struct merge_stat s;
		merge_table__stat(t, k, &s);
		if (!s.n) {
			printf("  %16s %16s %16s %8s %16s %8s %9s  %s\n", "-", "-", "-", "", "-", "",
			       "-", esc_text(t->cols[k].name));
			continue;
		}
		fmt_num(a, sizeof(a), t->cols[k].metric ? NAN : s.total);
		snprintf(b, sizeof(b), "%.2f", s.mean);
		fmt_num(c, sizeof(c), s.min);
		fmt_num(d, sizeof(d), s.max);
		printf("  %16s %16s %16s %8u %16s %8u %8.2f%%  %s%s\n", a, b, c, s.min_rank, d,
		       s.max_rank, 100 * s.imbalance, esc_text(t->cols[k].name),
		       s.n < t->nr_rows ? " (not in every rank)" : "");
	}
	if (nr_missing)
		printf("# missing rank%s %s (of 0-%u): no file; the figures are over the %zu "
		       "ranks merged\n", nr_missing == 1 ? "" : "s", missing,
		       t->size ? t->size - 1 : t->rows[t->nr_rows - 1].rank, t->nr_rows);
}

static void print_csv(const struct merge_table *t, const char *sep, const char *missing,
		      size_t nr_missing)
{
	char a[48], c[48], d[48];

	for (size_t i = 0; i < t->nr_rows; i++) {
		const struct merge_row *r = &t->rows[i];
		for (size_t k = 0; k < t->nr_cols; k++) {
			fmt_num(a, sizeof(a), k < r->nv ? r->v[k] : NAN);
			printf("rank%s%u%s%s%s", sep, r->rank, sep, esc_csv(r->host, sep), sep);
			printf("%s%s%s%s", esc_csv(t->cols[k].name, sep), sep,
			       esc_csv(t->cols[k].unit, sep), sep);
			printf("%s%s%s\n", t->cols[k].metric ? "metric" : "event", sep, a);
		}
	}
	for (size_t k = 0; k < t->nr_cols; k++) {
		struct merge_stat s;
		merge_table__stat(t, k, &s);
		fmt_num(a, sizeof(a), t->cols[k].metric || !s.n ? NAN : s.total);
		fmt_num(c, sizeof(c), s.n ? s.min : NAN);
		fmt_num(d, sizeof(d), s.n ? s.max : NAN);
		printf("summary%s%s%s%s%s", sep, esc_csv(t->cols[k].name, sep), sep,
		       esc_csv(t->cols[k].unit, sep), sep);
		printf("%s%s%zu%s%s%s%.6f%s", t->cols[k].metric ? "metric" : "event", sep, s.n, sep,
		       a, sep, s.mean, sep);
		printf("%s%s%u%s%s%s%u%s%.6f\n", c, sep, s.min_rank, sep, d, sep, s.max_rank, sep,
		       s.imbalance);
	}
	if (nr_missing)
		printf("missing%s%s\n", sep, esc_csv(missing, sep));
}

static void json_stat(struct json *j, const struct merge_table *t, size_t k)
{
	struct merge_stat s;
	merge_table__stat(t, k, &s);
	json_obj_open(j, NULL);
	json_str(j, "name", t->cols[k].name);
	json_str(j, "unit", t->cols[k].unit);
	json_u64(j, "ranks", s.n);
	if (!s.n) {
		json_obj_close(j);
		return;
	}
	if (!t->cols[k].metric)
		json_dbl(j, "total", s.total);
	json_dbl(j, "mean", s.mean);
	json_dbl(j, "min", s.min);
	json_u64(j, "min_rank", s.min_rank);
	json_dbl(j, "max", s.max);
	json_u64(j, "max_rank", s.max_rank);
	json_dbl(j, "imbalance", s.imbalance);
	json_obj_close(j);
}

static void print_json(const struct merge_table *t)
{
	struct json j;
	unsigned want = t->size ? t->size : t->rows[t->nr_rows - 1].rank + 1;
	size_t r = 0;

	json_init(&j, stdout, false);
	json_obj_open(&j, NULL);
	json_u64(&j, "ranks", t->nr_rows);
	if (t->size)
		json_u64(&j, "size", t->size);
	if (t->job)
		json_str(&j, "job", t->job);
	json_arr_open(&j, "missing");
	for (unsigned k = 0; k < want; k++) { /* rows are in rank order */
		while (r < t->nr_rows && t->rows[r].rank < k)
			r++;
		if (r >= t->nr_rows || t->rows[r].rank != k)
			json_u64(&j, NULL, k);
	}
	json_arr_close(&j);
	json_arr_open(&j, "rows");
	for (size_t i = 0; i < t->nr_rows; i++) {
		const struct merge_row *row = &t->rows[i];
		json_obj_open(&j, NULL);
		json_u64(&j, "rank", row->rank);
		json_str(&j, "host", row->host);
		json_str(&j, "file", row->file);
		if (row->exit_status >= 0)
			json_i64(&j, "exit_status", row->exit_status);
		json_arr_open(&j, "values");
		for (size_t k = 0; k < t->nr_cols; k++) {
			double v = k < row->nv ? row->v[k] : NAN;
			json_obj_open(&j, NULL);
			json_str(&j, "name", t->cols[k].name);
			json_bool(&j, "metric", t->cols[k].metric);
			json_dbl(&j, "value", v); /* NaN: null */
			json_obj_close(&j);
		}
		json_arr_close(&j);
		json_obj_close(&j);
	}
	json_arr_close(&j);
	json_arr_open(&j, "events");
	for (size_t k = 0; k < t->nr_cols; k++)
		if (!t->cols[k].metric)
			json_stat(&j, t, k);
	json_arr_close(&j);
	json_arr_open(&j, "metrics");
	for (size_t k = 0; k < t->nr_cols; k++)
		if (t->cols[k].metric)
			json_stat(&j, t, k);
	json_arr_close(&j);
	json_obj_close(&j);
	json_end(&j);
}

int cmd_merge(int argc, char **argv, struct hpm_ctx *ctx)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "field-separator", required_argument, NULL, 'x' },
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum merge_fmt fmt = M_HUMAN;
	const char *sep = NULL, *out = NULL;
	bool quiet = false;
	struct merge_table t = { 0 };
	char missing[512];
	int c, rc = HPM_EXIT_FAIL;

	(void)ctx;
	optind = 1;
	opterr = 0;
	/* options go anywhere, before the files or after them ("--" ends them) */
	while ((c = getopt_long(argc, argv, ":jx:o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'q': quiet = true; break;
		case 'j': fmt = M_JSON; break;
		case 'x':
			if (!optarg[0])
				return advice_usage("merge", "-x needs a separator, not ''");
			sep = optarg;
			fmt = M_CSV;
			break;
		case 'h':
			fputs(merge_usage, stdout);
			return HPM_EXIT_OK;
		case ':':
			return advice_usage("merge", "option '%s' needs a value", argv[optind - 1]);
		default:
			return advice_usage("merge", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (sep && fmt == M_JSON)
		return advice_usage("merge", "-x and --json exclude each other");
	if (optind >= argc)
		return advice_usage("merge", "give the stat files of the ranks, e.g. "
					     "'hpmon merge stat.*.json'");
	int kind = merge_prof__sniff(argv[optind]);
	if (kind < 0) {
		fprintf(stderr, "hpmon merge: cannot read %s: not a regular file\n", argv[optind]);
		return HPM_EXIT_FAIL;
	}
	if (kind) {
		if (!out)
			return advice_usage("merge", "%s is a profile: merging profiles writes one, "
						     "name it with -o (hpmon merge -o job.prof prof.*)",
					    argv[optind]);
		if (sep || fmt == M_JSON)
			return advice_usage("merge", "--json and -x print merged stat files; "
						     "profiles merge into a profile (-o)");
		return merge_prof(out, argv + optind, argc - optind, quiet);
	}
	if (out)
		return advice_usage("merge", "-o writes a merged profile, and %s is not a "
					     "profile: stat files merge into a table on standard output",
				    argv[optind]);
	for (int i = optind; i < argc; i++)
		if (merge_table__add(&t, argv[i]))
			goto out;
	if (merge_table__finish(&t))
		goto out;
	if (t.sizes_differ)
		fprintf(stderr, "hpmon merge: warning: the files give different job sizes; "
			"taking the largest, %u: are they of one job run?\n", t.size);
	if (t.jobs_differ)
		fprintf(stderr, "hpmon merge: warning: the files give different job ids: are "
			"they of one job run?\n");
	size_t nr_missing = merge_table__missing(&t, missing, sizeof(missing));
	switch (fmt) {
	case M_HUMAN: print_human(&t, missing, nr_missing); break;
	case M_CSV: print_csv(&t, sep, missing, nr_missing); break;
	case M_JSON: print_json(&t); break;
	}
	rc = HPM_EXIT_OK;
	if (nr_missing) {
		fprintf(stderr, "hpmon merge: %zu rank%s without a file: %s; the figures are over "
			"the %zu ranks merged\n", nr_missing, nr_missing == 1 ? "" : "s", missing,
			t.nr_rows);
		rc = HPM_EXIT_FAIL;
	}
out:
	merge_table__release(&t);
	return rc;
}
