/* SPDX-License-Identifier: MIT */
/*
 * hpmon diff A B: per function, the samples of two profiles, their
 * difference and ratio, largest change first: did the tuning work, and did
 * it hurt something else (docs/hpmon-diff.md). A or B may be one rank of
 * a merged profile, FILE:RANK: the outlier against a rank that is not.
 * --html draws the same rows beside B's flame graph coloured by the
 * change (picture-diff.c).
 */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin.h"
#include "output/advice.h"
#include "output/escape.h"
#include "cache/cachedir.h"
#include "output/json.h"
#include "output/output.h"
#include "pictures/picture.h"
#include "report/report-view.h"

static const char diff_usage[] =
	"usage: hpmon diff [--json | --html [-o FILE]] [--percent-limit P] [--no-demangle]\n"
	"                  [filters] A B\n"
	"\n"
	"Compare two profiles function by function (matched by name and object):\n"
	"samples and percent in each, the change in samples and in percentage\n"
	"points, and the ratio B/A, largest change first. The first triggering\n"
	"event of each profile is compared. A or B may be FILE:RANK, one rank of a\n"
	"merged profile (hpmon merge): 'hpmon diff job.prof:0 job.prof:3'.\n"
	"\n"
	"      --json          the rows as JSON\n"
	"      --html          one page (works offline): B's flame graph, each frame\n"
	"                      red where its share grew from A, blue where it shrank,\n"
	"                      and the rows\n"
	"  -o, --output FILE   write there (mode 0600), not to standard output\n"
	"      --no-cache      read every object, keep no copy of its symbols\n"
	"\n"
	"Filters, applied to both profiles (lists split at commas, as perf's):\n"
	"  -C, --comm NAMES    only tasks of these names\n"
	"      --pid PIDS      only these processes\n"
	"      --tid TIDS      only these threads\n"
	"      --rank RANKS    only these ranks of merged profiles (0,2,5-7)\n"
	"  -d, --dso NAMES     only these objects (file name or path)\n"
	"  -S, --sym NAMES     only these functions (--symbol, --symbols)\n";


static int cmp_drow(const void *x, const void *y)
{
	const struct diff_row *p = x, *q = y;
	double u = fabs(p->pb - p->pa), v = fabs(q->pb - q->pa);
	if (u != v)
		return u > v ? -1 : 1;
	int c = strcmp(p->sym, q->sym);
	return c ? c : strcmp(p->dso, q->dso);
}

/* One row of either profile, before rows of the same function meet. */
struct side_row {
	const char *sym, *dso;
	uint64_t samples;
	double percent;
	int side;                 /* 0 A, 1 B */
	size_t order;             /* its place in its profile: sums add up in it */
};

static int cmp_side_row(const void *x, const void *y)
{
	const struct side_row *p = x, *q = y;
	int c = strcmp(p->sym, q->sym);
	if (!c)
		c = strcmp(p->dso, q->dso);
	if (!c)
		c = p->side - q->side;
	if (!c)
		c = p->order < q->order ? -1 : p->order > q->order;
	return c;
}

/*
 * The rows of A and B matched by (symbol, object): both sorted together
 * by that name, so equal names sit side by side (O(n log n); a search per
 * row was quadratic, minutes for 200k rows). Into @out (room for every
 * row); the number of functions.
 */
static size_t match_rows(const struct rep *a, const struct rep *b, struct diff_row *out)
{
	size_t n = a->nr_rows + b->nr_rows, k = 0;
	struct side_row *v = calloc(n + 1, sizeof(*v));
	char buf[64];

	if (!v)
		return SIZE_MAX;
	for (int side = 0; side < 2; side++) {
		const struct rep *r = side ? b : a;
		uint32_t e = r->main_ev;
		double t = r->ev_period[e];
		for (size_t i = 0; i < r->nr_rows; i++) {
			const struct rep_row *row = &r->rows[i];
			/* names of symbols and objects live in the rep: buf is unused */
			v[k++] = (struct side_row){
				.sym = rep_key_text(r, row, SK_SYM, buf, sizeof(buf)),
				.dso = rep_key_text(r, row, SK_DSO, buf, sizeof(buf)),
				.samples = row->samples[e],
				.percent = t > 0 ? 100.0 * row->period[e] / t : 0,
				.side = side,
				.order = i,
			};
		}
	}
	qsort(v, k, sizeof(*v), cmp_side_row);
	size_t m = 0;
	for (size_t i = 0; i < k; i++) {
		struct diff_row *d = &out[m > 0 ? m - 1 : 0];
		if (!m || strcmp(d->sym, v[i].sym) || strcmp(d->dso, v[i].dso)) {
			d = &out[m++];
			d->sym = v[i].sym;
			d->dso = v[i].dso;
		}
		if (v[i].side) {
			d->b += v[i].samples;
			d->pb += v[i].percent;
		} else {
			d->a += v[i].samples;
			d->pa += v[i].percent;
		}
	}
	free(v);
	return m;
}

/* @arg as FILE, or FILE:RANK when no file is named @arg whole: the path
 * into @path and the rank, or -1. */
static long side_spec(const char *arg, char *path, size_t len)
{
	const char *colon = strrchr(arg, ':');
	char *end;

	snprintf(path, len, "%s", arg);
	if (!colon || colon == arg || !colon[1] || access(arg, F_OK) == 0)
		return -1;
	long rank = strtol(colon + 1, &end, 10);
	if (*end || rank < 0 || rank > INT32_MAX || colon[1] == '-' || colon[1] == '+')
		return -1;
	snprintf(path, len, "%.*s", (int)(colon - arg), arg);
	return rank;
}

/* With @p, also the flame trees of the page (ptrees_init). */
static int load(struct rep *r, const char *arg, bool no_demangle, const char *cache,
		const struct rep_filter *f, struct ptrees *p)
{
	char path[4096], bad[16];
	long rank = side_spec(arg, path, sizeof(path));
	struct rep_filter *fr = NULL;

	if (rank >= 0) { /* the filters, and this rank alone */
		if (!(fr = malloc(sizeof(*fr)))) {
			memset(r, 0, sizeof(*r));
			fprintf(stderr, "hpmon diff: out of memory\n");
			return -1;
		}
		*fr = *f;
		fr->rank_lo[0] = fr->rank_hi[0] = (uint32_t)rank;
		fr->nr_ranks = 1;
		f = fr;
	}
	struct rep_opts o = { .input = path, .no_demangle = no_demangle, .cache_dir = cache,
			      .filter = rep_filter__any(f) ? f : NULL };
	rep_parse_sort("sym,dso", o.keys, &o.nr_keys, bad, sizeof(bad));
	if (p)
		ptrees_init(p, &o);
	int rc = rep_load(r, &o);
	if (!rc && rank >= 0 && !rep_has_rank(r, (uint32_t)rank)) {
		fprintf(stderr, "hpmon diff: %s has no rank %ld%s\n", esc_text(path), rank,
			r->meta.merged ? "" : " (it is not a merge of ranks: hpmon merge -o "
			"job.prof prof.*)");
		rc = -1;
	}
	r->o.filter = NULL; /* the copy goes now */
	free(fr);
	return rc;
}

/* --html into @path (NULL or "-": standard output), through output.c. */
static int write_html(const char *path, char **argv, struct rep *a, struct rep *b,
		      struct ptrees *pa, struct ptrees *pb, const struct diff_row *rows, size_t n)
{
	struct out_file of;
	FILE *f = stdout;
	bool file = path && strcmp(path, "-");
	if (file && (out_open(&of, "hpmon diff", path, OUT_REPLACE) || !(f = out_stream(&of))))
		return HPM_EXIT_FAIL;
	struct diff_side sa = { argv[0], a, pa }, sb = { argv[1], b, pb };
	int rc = export_html_diff(f, &sa, &sb, rows, n);
	if (rc)
		fprintf(stderr, "hpmon diff: cannot make the page: %s\n", strerror(-rc));
	if (!file)
		return rc ? HPM_EXIT_FAIL : HPM_EXIT_OK;
	if (rc) {
		out_abort(&of);
		return HPM_EXIT_FAIL;
	}
	return out_commit(&of, false) ? HPM_EXIT_FAIL : HPM_EXIT_OK;
}

int cmd_diff(int argc, char **argv, struct hpm_ctx *ctx)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "html", no_argument, NULL, 'H' },
		{ "output", required_argument, NULL, 'o' },
		{ "percent-limit", required_argument, NULL, 'l' },
		{ "no-demangle", no_argument, NULL, 'n' },
		{ "no-cache", no_argument, NULL, 'N' },
		/* ours, and perf diff's spellings */
		{ "comm", required_argument, NULL, 'C' },
		{ "comms", required_argument, NULL, 'C' },
		{ "pid", required_argument, NULL, 'p' },
		{ "tid", required_argument, NULL, 't' },
		{ "rank", required_argument, NULL, 'r' },
		{ "dso", required_argument, NULL, 'd' },
		{ "dsos", required_argument, NULL, 'd' },
		{ "sym", required_argument, NULL, 'S' },
		{ "symbol", required_argument, NULL, 'S' },
		{ "symbols", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool json = false, html = false, no_demangle = false, no_cache = false;
	const char *output = NULL;
	char cache[4096];
	struct rep_filter filter = { 0 };
	char why[512];
	double limit = 0;
	int c, rc = HPM_EXIT_FAIL;
	char *end;

	(void)ctx;
	optind = 1;
	opterr = 0;
	/* options go anywhere, before A and B or after them (as report's);
	 * "--" ends them, for a profile named "-x" */
	while ((c = getopt_long(argc, argv, ":jo:C:d:S:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'j': json = true; break;
		case 'H': html = true; break;
		case 'o': output = optarg; break;
		case 'n': no_demangle = true; break;
		case 'N': no_cache = true; break;
		case 'C':
		case 'p':
		case 't':
		case 'r':
		case 'd':
		case 'S': {
			enum rep_filter_kind k = c == 'C' ? RF_COMM : c == 'p' ? RF_PID :
						 c == 't' ? RF_TID : c == 'r' ? RF_RANK :
						 c == 'd' ? RF_DSO : RF_SYM;
			if (rep_filter__add(&filter, k, optarg, why, sizeof(why)))
				return advice_usage("diff", "%s", why);
			break;
		}
		case 'l':
			limit = strtod(optarg, &end);
			if (*end || limit < 0)
				return advice_usage("diff", "--percent-limit takes a percentage, not '%s'",
						    optarg);
			break;
		case 'h':
			fputs(diff_usage, stdout);
			return HPM_EXIT_OK;
		case ':':
			return advice_usage("diff", "option '%s' needs a value", argv[optind - 1]);
		default:
			return advice_usage("diff", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind + 2 != argc)
		return optind + 2 < argc
			       ? advice_usage("diff", "give two profiles, A and B: '%s' is a third",
					      argv[optind + 2])
			       : advice_usage("diff", "give two profiles, A and B");
	if (json && html)
		return advice_usage("diff", "give --json or --html, not both");
	if (output && !html)
		return advice_usage("diff", "-o is for --html (the text and --json go to standard "
					    "output)");
	struct rep a, b;
	struct ptrees pa = { 0 }, pb = { 0 };
	struct diff_row *rows = NULL;
	size_t n = 0;
	memset(&b, 0, sizeof(b));
	const char *cdir = no_cache ? NULL : cache_dir(cache, sizeof(cache));
	if (load(&a, argv[optind], no_demangle, cdir, &filter, html ? &pa : NULL)) {
		rep_free(&a);
		ptrees_free(&pa);
		return HPM_EXIT_FAIL;
	}
	if (load(&b, argv[optind + 1], no_demangle, cdir, &filter, html ? &pb : NULL))
		goto out;
	rows = calloc(a.nr_rows + b.nr_rows + 1, sizeof(*rows));
	if (!rows)
		goto out;
	n = match_rows(&a, &b, rows);
	if (n == SIZE_MAX)
		goto out;
	qsort(rows, n, sizeof(*rows), cmp_drow);
	if (html) {
		rc = write_html(output, argv + optind, &a, &b, &pa, &pb, rows, n);
		rep_print_notes(stderr, &a, "hpmon diff: A:");
		rep_print_notes(stderr, &b, "hpmon diff: B:");
		goto out;
	}
	if (json) {
		struct json j;
		json_init(&j, stdout, false);
		json_obj_open(&j, NULL);
		json_str(&j, "a", argv[optind]);
		json_str(&j, "b", argv[optind + 1]);
		json_arr_open(&j, "rows");
		for (size_t i = 0; i < n; i++) {
			json_obj_open(&j, NULL);
			json_str(&j, "sym", rows[i].sym);
			json_str(&j, "dso", rows[i].dso);
			json_u64(&j, "samples_a", rows[i].a);
			json_u64(&j, "samples_b", rows[i].b);
			json_i64(&j, "delta", (int64_t)rows[i].b - (int64_t)rows[i].a);
			json_dbl(&j, "percent_a", rows[i].pa);
			json_dbl(&j, "percent_b", rows[i].pb);
			json_dbl(&j, "delta_points", rows[i].pb - rows[i].pa);
			if (rows[i].a)
				json_dbl(&j, "ratio", (double)rows[i].b / (double)rows[i].a);
			else
				json_null(&j, "ratio");
			json_obj_close(&j);
		}
		json_arr_close(&j);
		json_obj_close(&j);
		json_end(&j);
	} else {
		printf("# A: %s (%s, %" PRIu64 " samples of %s)\n", esc_text(argv[optind]),
		       esc_text(a.meta.command), a.ev_samples[a.main_ev],
		       esc_text(a.meta.events[a.main_ev].name));
		printf("# B: %s (%s, %" PRIu64 " samples of %s)\n", esc_text(argv[optind + 1]),
		       esc_text(b.meta.command), b.ev_samples[b.main_ev],
		       esc_text(b.meta.events[b.main_ev].name));
		printf("# %10s %10s %10s %8s %8s %8s %8s  %s\n", "samples A", "samples B", "delta",
		       "ratio", "% A", "% B", "points", "symbol  dso");
		for (size_t i = 0; i < n; i++) {
			const struct diff_row *d = &rows[i];
			if (fabs(d->pb - d->pa) < limit && d->pa < limit && d->pb < limit)
				continue;
			char ratio[32];
			if (d->a)
				snprintf(ratio, sizeof(ratio), "%.3f", (double)d->b / (double)d->a);
			else
				snprintf(ratio, sizeof(ratio), "new");
			printf("  %10" PRIu64 " %10" PRIu64 " %+10" PRId64 " %8s %7.2f%% %7.2f%% %+8.2f  %s  %s\n",
			       d->a, d->b, (int64_t)d->b - (int64_t)d->a, d->b || d->a ? ratio : "-",
			       d->pa, d->pb, d->pb - d->pa, esc_text(d->sym), esc_text(d->dso));
		}
		rep_print_notes(stdout, &a, "# A:");
		rep_print_notes(stdout, &b, "# B:");
	}
	rc = HPM_EXIT_OK;
out:
	free(rows);
	rep_free(&a);
	rep_free(&b);
	ptrees_free(&pa);
	ptrees_free(&pb);
	return rc;
}
