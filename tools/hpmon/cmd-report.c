/* SPDX-License-Identifier: MIT */
/*
 * hpmon report: where the samples of a profile are, as prof lists them:
 * samples, percent and cumulative percent per function (or per line,
 * object, thread, CPU ...), call graphs, and per-function ratios of the
 * counts read from groups (docs/hpmon-report.md).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "export.h"
#include "kcache.h"
#include "metric-args.h"
#include "output.h"
#include "report-view.h"

#define MAX_IDS 256
#define MAX_METRIC_ARGS 64

static const char report_usage[] =
	"usage: hpmon report [-i FILE] [options]\n"
	"\n"
	"List where the samples of a profile (hpmon record) are: by default per\n"
	"function, with samples, percent and cumulative percent, and the object.\n"
	"\n"
	"  -i, --input FILE       the profile (default hpmon.prof)\n"
	"  -s, --sort KEYS        comm,pid,tid,dso,sym,line,cpu in any combination\n"
	"      --lines            per source line (DWARF): line,sym,dso\n"
	"      --inline           name the inlined function an address belongs to\n"
	"  -g, --call-graph       inclusive and self percent, callers and callees\n"
	"      --pid PIDS         only these processes\n"
	"      --tid TIDS         only these threads\n"
	"      --comm NAME        only tasks of this name\n"
	"      --dso NAME         only this object (file name or path)\n"
	"      --symbol NAME      only this function\n"
	"  -M, --metrics NAMES    metric groups or metrics (hpmon stat's) per row, from\n"
	"                         the counts of groups read at each sample\n"
	"      --metric 'NAME = FORMULA'  a metric of your own (docs/metrics.md)\n"
	"      --metrics-file FILE  metrics defined in FILE\n"
	"      --percent-limit P  hide rows under P percent\n"
	"      --json | --csv     machine-readable rows\n"
	"      --folded           one line per call stack, for flame graphs\n"
	"      --svg | --html     a flame graph in SVG; a page with a flame graph, the\n"
	"                         functions and the header (one file, works offline)\n"
	"  -o, --output FILE      where --svg or --html goes (default standard output)\n"
	"      --debug-dir DIR    separate debug files (default /usr/lib/debug)\n"
	"      --no-demangle      C++ and Rust names as the symbol table has them\n"
	"      --no-cache         read kernel symbols from kallsyms, keep no copy of them\n"
	"  -h, --help             this help\n"
	"\n"
	"See docs/hpmon-report.md.\n";

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "hpmon report: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nSee 'hpmon report --help'.\n");
	return HPM_EXIT_USAGE;
}

static int parse_ids(const char *s, pid_t *v, size_t *n)
{
	char *end;
	*n = 0;
	while (*s) {
		long x = strtol(s, &end, 10);
		if (end == s || x <= 0 || *n >= MAX_IDS)
			return -1;
		v[(*n)++] = (pid_t)x;
		s = end;
		if (*s == ',')
			s++;
		else if (*s)
			return -1;
	}
	return *n ? 0 : -1;
}

enum { OPT_INLINE = 300, OPT_METRIC, OPT_METRICS_FILE, OPT_NO_CACHE, OPT_SVG, OPT_HTML };
enum picture { PIC_NONE, PIC_SVG, PIC_HTML };

/* --svg, --html (export.h) to @path, or standard output when NULL. */
static int write_picture(const struct rep *r, enum picture pic, const char *path)
{
	struct out_file of;
	FILE *f = stdout;
	if (path) {
		if (out_open(&of, "hpmon report", path, OUT_REPLACE) || !(f = out_stream(&of)))
			return HPM_EXIT_FAIL;
	}
	int rc = pic == PIC_SVG ? export_svg(f, r) : export_html(f, r);
	if (rc) {
		fprintf(stderr, "hpmon report: cannot make the %s: %s\n",
			pic == PIC_SVG ? "SVG" : "page", strerror(-rc));
		if (path)
			out_abort(&of);
		return HPM_EXIT_FAIL;
	}
	return path && out_commit(&of, false) ? HPM_EXIT_FAIL : HPM_EXIT_OK;
}

/* Remember a metric option's value in @v (at most MAX_METRIC_ARGS). */
static int keep_arg(const char **v, size_t *n, const char *arg, const char *opt)
{
	if (*n >= MAX_METRIC_ARGS)
		return usage_error("too many %s options", opt);
	v[(*n)++] = arg;
	return 0;
}
enum { OPT_LINES = 256, OPT_PID, OPT_TID, OPT_COMM, OPT_DSO, OPT_SYMBOL, OPT_JSON, OPT_CSV,
       OPT_FOLDED, OPT_LIMIT, OPT_DEBUG_DIR, OPT_NO_DEMANGLE };

int cmd_report(int argc, char **argv, struct hpm_ctx *ctx)
{
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "sort", required_argument, NULL, 's' },
		{ "lines", no_argument, NULL, OPT_LINES },
		{ "inline", no_argument, NULL, OPT_INLINE },
		{ "call-graph", no_argument, NULL, 'g' },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "tid", required_argument, NULL, OPT_TID },
		{ "comm", required_argument, NULL, OPT_COMM },
		{ "dso", required_argument, NULL, OPT_DSO },
		{ "symbol", required_argument, NULL, OPT_SYMBOL },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "csv", no_argument, NULL, OPT_CSV },
		{ "folded", no_argument, NULL, OPT_FOLDED },
		{ "svg", no_argument, NULL, OPT_SVG },
		{ "html", no_argument, NULL, OPT_HTML },
		{ "output", required_argument, NULL, 'o' },
		{ "metrics", required_argument, NULL, 'M' },
		{ "metric", required_argument, NULL, OPT_METRIC },
		{ "metrics-file", required_argument, NULL, OPT_METRICS_FILE },
		{ "percent-limit", required_argument, NULL, OPT_LIMIT },
		{ "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
		{ "no-cache", no_argument, NULL, OPT_NO_CACHE },
		{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rep_opts o = { .input = "hpmon.prof" };
	pid_t pids[MAX_IDS], tids[MAX_IDS];
	enum rep_fmt fmt = REP_TEXT;
	const char *sort = NULL, *out = NULL;
	enum picture pic = PIC_NONE;
	const char *mgroups[MAX_METRIC_ARGS], *minline[MAX_METRIC_ARGS], *mfiles[MAX_METRIC_ARGS];
	struct metric_args mo = { .groups = mgroups, .inline_defs = minline, .files = mfiles };
	double min_pct = 0;
	char cache[4096];
	bool no_cache = false;
	char bad[64], *end;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+i:s:gM:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'i': o.input = optarg; break;
		case 's': sort = optarg; break;
		case OPT_LINES: o.lines = true; break;
		case OPT_INLINE: o.inlines = true; break;
		case OPT_NO_DEMANGLE: o.no_demangle = true; break;
		case 'g': o.callgraph = true; break;
		case OPT_PID:
			if (parse_ids(optarg, pids, &o.nr_pids))
				return usage_error("'%s' is not a list of process ids", optarg);
			o.pids = pids;
			break;
		case OPT_TID:
			if (parse_ids(optarg, tids, &o.nr_tids))
				return usage_error("'%s' is not a list of thread ids", optarg);
			o.tids = tids;
			break;
		case OPT_COMM: o.comm = optarg; break;
		case OPT_DSO: o.dso = optarg; break;
		case OPT_SYMBOL: o.symbol = optarg; break;
		case OPT_JSON: fmt = REP_JSON; break;
		case OPT_CSV: fmt = REP_CSV; break;
		case OPT_FOLDED: fmt = REP_FOLDED; break;
		case OPT_SVG: pic = PIC_SVG; break;
		case OPT_HTML: pic = PIC_HTML; break;
		case 'o': out = optarg; break;
		case OPT_LIMIT:
			min_pct = strtod(optarg, &end);
			if (*end || min_pct < 0 || min_pct > 100)
				return usage_error("--percent-limit takes a percentage, not '%s'", optarg);
			break;
		case OPT_DEBUG_DIR: o.debug_dir = optarg; break;
		case OPT_NO_CACHE: no_cache = true; break;
		case 'M':
			if (keep_arg(mgroups, &mo.nr_groups, optarg, "-M"))
				return HPM_EXIT_USAGE;
			break;
		case OPT_METRIC:
			if (keep_arg(minline, &mo.nr_inline, optarg, "--metric"))
				return HPM_EXIT_USAGE;
			break;
		case OPT_METRICS_FILE:
			if (keep_arg(mfiles, &mo.nr_files, optarg, "--metrics-file"))
				return HPM_EXIT_USAGE;
			break;
		case 'h':
			fputs(report_usage, stdout);
			return HPM_EXIT_OK;
		default:
			if (optopt)
				return usage_error("option '%s' needs a value", argv[optind - 1]);
			return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s' (the profile is given with -i)",
				   argv[optind]);
	if (sort) {
		if (rep_parse_sort(sort, o.keys, &o.nr_keys, bad, sizeof(bad)))
			return usage_error("unknown sort key '%s': use comm, pid, tid, dso, sym, line, cpu",
					   bad);
	} else if (o.lines) {
		rep_parse_sort("line,sym,dso", o.keys, &o.nr_keys, bad, sizeof(bad));
	} else {
		rep_parse_sort("sym,dso", o.keys, &o.nr_keys, bad, sizeof(bad));
	}
	for (size_t i = 0; i < o.nr_keys; i++)
		if (o.keys[i] == SK_LINE)
			o.lines = true;
	if (out && !pic)
		return usage_error("%s", "-o is for --svg and --html; other listings go to standard output");
	if (pic && (fmt != REP_TEXT || metric_args_any(&mo)))
		return usage_error("%s", "--svg and --html take no --json, --csv, --folded or metrics");
	if (fmt == REP_FOLDED || pic) {
		o.callgraph = true;
		o.folded = true;
		o.all_stacks = pic == PIC_HTML;
	}

	o.procfs = hpm_ctx__procfs_root(ctx);
	o.cache_dir = no_cache ? NULL : kcache_dir(cache, sizeof(cache));
	struct rep r;
	if (rep_load(&r, &o)) {
		rep_free(&r);
		return HPM_EXIT_FAIL;
	}
	if (metric_args_any(&mo)) {
		if (fmt == REP_FOLDED) {
			rep_free(&r);
			return usage_error("%s", "metrics are not shown in folded stacks");
		}
		int mrc = rep_metrics_setup(ctx, &mo, &r);
		if (mrc) {
			rep_free(&r);
			return mrc;
		}
	}
	if (o.callgraph && !r.have_chains && fmt != REP_FOLDED)
		fprintf(stderr, "hpmon report: note: the profile has no call chains (record with -g); "
			"inclusive equals self\n");
	if (pic) {
		int prc = write_picture(&r, pic, out);
		rep_print_notes(stderr, &r, "hpmon report:");
		if (!prc && !r.st.complete && !r.st.chunks)
			prc = HPM_EXIT_FAIL;
		rep_free(&r);
		return prc;
	}
	rep_sort_rows(&r);
	rep_print(stdout, &r, fmt, o.callgraph && fmt != REP_FOLDED, min_pct);
	int rc = r.st.complete || r.st.chunks ? HPM_EXIT_OK : HPM_EXIT_FAIL;
	rep_metrics_free(r.metrics);
	rep_free(&r);
	return rc;
}
