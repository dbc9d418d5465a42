/* SPDX-License-Identifier: MIT */
/*
 * hpmon report: where the samples of a profile are, as prof lists them:
 * samples, percent and cumulative percent per function (or per line,
 * object, thread, CPU ...), call graphs, and per-function ratios of the
 * counts read from groups (docs/hpmon-report.md).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin.h"
#include "export/export.h"
#include "pictures/picture.h"
#include "cache/cachedir.h"
#include "counting/metric-args.h"
#include "output/output.h"
#include "report/report-view.h"
#include "timeline/timeline.h"
#include "report-cmd/timeline-print.h"

static const char report_usage[] =
	"usage: hpmon report [-i FILE] [options]\n"
	"\n"
	"List where the samples of a profile (hpmon record) are: by default per\n"
	"function, with samples, percent and cumulative percent, and the object.\n"
	"\n"
	"  -i, --input FILE       the profile (default hpmon.prof); with --html, also a\n"
	"                         file of hpmon stat -I MS --json -o FILE: its charts\n"
	"  -s, --sort KEYS        comm,pid,tid,dso,sym,line,cpu,rank,host in any\n"
	"                         combination (rank, host: of a merged profile)\n"
	"      --lines            per source line (DWARF): line,sym,dso\n"
	"      --inline           name the inlined function an address belongs to\n"
	"  -g, --call-graph       inclusive and self percent, callers and callees\n"
	"  -c, --comm NAMES       only tasks of these names (comma-separated, as below)\n"
	"      --pid PIDS         only these processes\n"
	"      --tid TIDS         only these threads\n"
	"      --rank RANKS       only these ranks (0,2,5-7) of a merged profile\n"
	"  -d, --dso NAMES        only these objects (file name or path)\n"
	"  -S, --sym NAMES        only these functions (--symbol, --symbols; a C++\n"
	"                         name may leave out its parameters)\n"
	"                         Lists are split at commas, as perf splits them.\n"
	"  -M, --metrics NAMES    metric groups or metrics (hpmon stat's) per row, from\n"
	"                         the counts of groups read at each sample\n"
	"      --metric 'NAME = FORMULA'  a metric of your own (docs/metrics.md)\n"
	"      --metrics-file FILE  metrics defined in FILE\n"
	"      --percent-limit P  hide rows under P percent\n"
	"      --json | --csv     machine-readable rows\n"
	"      --folded           one line per call stack, for flame graphs\n"
	"      --pprof            pprof's profile.proto, gzipped (docs/formats.md)\n"
	"      --trace-event      Trace Event JSON, for ui.perfetto.dev and chrome://tracing\n"
	"      --speedscope       speedscope's JSON, for speedscope.app\n"

	"      --svg | --html     a flame graph in SVG; a page with a flame graph, the\n"
	"                         functions (with -M, their metrics), annotate and the\n"
	"                         header (one file, works offline)\n"
	"      --timeline         counts over time per event and thread, as sparklines;\n"
	"                         -i also takes a file of hpmon stat -I MS --json -o FILE\n"
	"  -o, --output FILE      write there (mode 0600), not to standard output\n"
	"      --debug-dir DIR    separate debug files (default /usr/lib/debug)\n"
	"      --no-demangle      C++ and Rust names as the symbol table has them\n"
	"      --no-cache         read kallsyms and every object, keep no copy of their\n"
	"                         symbols (the kernel's per boot, each object's)\n"
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

enum { OPT_INLINE = 300, OPT_METRIC, OPT_METRICS_FILE, OPT_NO_CACHE, OPT_PPROF, OPT_TRACE_EVENT,
       OPT_SPEEDSCOPE, OPT_SVG, OPT_HTML, OPT_TIMELINE };

/* Where the report goes: standard output, or a new file at @path ("-":
 * standard output) replacing it only once whole (output.c). */
struct report_out {
	struct out_file of;
	FILE *f;
	bool file;
};

static int report_out_open(struct report_out *o, const char *path, int xfmt)
{
	o->f = stdout;
	o->file = path && strcmp(path, "-");
	if (!o->file) {
		if (xfmt >= 0 && export_binary((enum export_fmt)xfmt) && isatty(STDOUT_FILENO))
			return usage_error("%s", "--pprof writes gzipped binary data: give -o FILE, "
					   "or redirect standard output");
		return 0;
	}
	if (out_open(&o->of, "hpmon report", path, OUT_REPLACE))
		return HPM_EXIT_FAIL;
	o->f = out_stream(&o->of);
	return o->f ? 0 : HPM_EXIT_FAIL;
}

/* Commit the file when @rc is success, else leave what was there. */
static int report_out_close(struct report_out *o, int rc)
{
	if (!o->file)
		return rc;
	if (rc) {
		out_abort(&o->of);
		return rc;
	}
	return out_commit(&o->of, false) ? HPM_EXIT_FAIL : rc;
}

enum picture { PIC_NONE, PIC_SVG, PIC_HTML };

/* --svg, --html (picture.h) into @f; the page with the profile's timeline
 * (timeline.h) when it can be made. */
static int write_picture(struct rep *r, enum picture pic, struct ptrees *p, FILE *f)
{
	struct timeline_opts to = { .max_bins = PAGE_TIMELINE_BINS };
	struct timeline *t = NULL;
	char why[512];
	if (pic == PIC_HTML && !(t = timeline__from_rep(r, &to, why, sizeof(why))))
		fprintf(stderr, "hpmon report: note: the page has no timeline: %s\n", why);
	int rc = pic == PIC_SVG ? export_svg(f, r) : export_html(f, r, p, t);
	timeline__free(t);
	if (rc) {
		fprintf(stderr, "hpmon report: cannot make the %s: %s\n",
			pic == PIC_SVG ? "SVG" : "page", strerror(-rc));
		return HPM_EXIT_FAIL;
	}
	return HPM_EXIT_OK;
}

enum { OPT_LINES = 256, OPT_PID, OPT_TID, OPT_JSON, OPT_CSV,
       OPT_FOLDED, OPT_LIMIT, OPT_DEBUG_DIR, OPT_NO_DEMANGLE, OPT_RANK };

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
		{ "rank", required_argument, NULL, OPT_RANK },
		/* ours, and perf report's spellings */
		{ "comm", required_argument, NULL, 'c' },
		{ "comms", required_argument, NULL, 'c' },
		{ "dso", required_argument, NULL, 'd' },
		{ "dsos", required_argument, NULL, 'd' },
		{ "sym", required_argument, NULL, 'S' },
		{ "symbol", required_argument, NULL, 'S' },
		{ "symbols", required_argument, NULL, 'S' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "csv", no_argument, NULL, OPT_CSV },
		{ "folded", no_argument, NULL, OPT_FOLDED },
		{ "pprof", no_argument, NULL, OPT_PPROF },
		{ "trace-event", no_argument, NULL, OPT_TRACE_EVENT },
		{ "speedscope", no_argument, NULL, OPT_SPEEDSCOPE },
		{ "svg", no_argument, NULL, OPT_SVG },
		{ "html", no_argument, NULL, OPT_HTML },
		{ "timeline", no_argument, NULL, OPT_TIMELINE },
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
	struct rep_filter filter = { 0 };
	char why[512];
	enum rep_fmt fmt = REP_TEXT;
	const char *sort = NULL;
	enum picture pic = PIC_NONE;
	const char *mgroups[METRIC_ARGS_MAX], *minline[METRIC_ARGS_MAX], *mfiles[METRIC_ARGS_MAX];
	struct metric_args mo = { .groups = mgroups, .inline_defs = minline, .files = mfiles };
	double min_pct = 0;
	char cache[4096];
	bool no_cache = false, timeline = false;
	char bad[64], *end;
	int c, xfmt = -1; /* an export_fmt */
	const char *output = NULL;
	struct report_out out;
	struct export *x = NULL;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:i:s:gM:o:c:d:S:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'i': o.input = optarg; break;
		case 's': sort = optarg; break;
		case OPT_LINES: o.lines = true; break;
		case OPT_INLINE: o.inlines = true; break;
		case OPT_NO_DEMANGLE: o.no_demangle = true; break;
		case 'g': o.callgraph = true; break;
		case 'c':
		case OPT_PID:
		case OPT_TID:
		case OPT_RANK:
		case 'd':
		case 'S': {
			enum rep_filter_kind k = c == 'c' ? RF_COMM : c == OPT_PID ? RF_PID :
						 c == OPT_TID ? RF_TID : c == OPT_RANK ? RF_RANK :
						 c == 'd' ? RF_DSO : RF_SYM;
			if (rep_filter__add(&filter, k, optarg, why, sizeof(why)))
				return usage_error("%s", why);
			o.filter = &filter;
			break;
		}
		case OPT_JSON: fmt = REP_JSON; break;
		case OPT_CSV: fmt = REP_CSV; break;
		case OPT_FOLDED: fmt = REP_FOLDED; break;
		case OPT_PPROF: xfmt = EXPORT_PPROF; break;
		case OPT_TRACE_EVENT: xfmt = EXPORT_TRACE_EVENT; break;
		case OPT_SPEEDSCOPE: xfmt = EXPORT_SPEEDSCOPE; break;
		case 'o': output = optarg; break;
		case OPT_SVG: pic = PIC_SVG; break;
		case OPT_HTML: pic = PIC_HTML; break;
		case OPT_TIMELINE: timeline = true; break;
		case OPT_LIMIT:
			min_pct = strtod(optarg, &end);
			if (*end || min_pct < 0 || min_pct > 100)
				return usage_error("--percent-limit takes a percentage, not '%s'", optarg);
			break;
		case OPT_DEBUG_DIR: o.debug_dir = optarg; break;
		case OPT_NO_CACHE: no_cache = true; break;
		case 'M':
			if (metric_args_keep("report", mgroups, &mo.nr_groups, optarg, "-M"))
				return HPM_EXIT_USAGE;
			break;
		case OPT_METRIC:
			if (metric_args_keep("report", minline, &mo.nr_inline, optarg, "--metric"))
				return HPM_EXIT_USAGE;
			break;
		case OPT_METRICS_FILE:
			if (metric_args_keep("report", mfiles, &mo.nr_files, optarg, "--metrics-file"))
				return HPM_EXIT_USAGE;
			break;
		case 'h':
			fputs(report_usage, stdout);
			return HPM_EXIT_OK;
		case ':':
			return usage_error("option '%s' needs a value", argv[optind - 1]);
		default:
			return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s' (the profile is given with -i)",
				   argv[optind]);
	if (timeline) { /* a format of its own (timeline-print.h), of profiles and stat files */
		if (fmt != REP_TEXT || pic || xfmt >= 0 || metric_args_any(&mo) || sort ||
		    rep_filter__any(&filter) || o.callgraph || o.lines)
			return usage_error("%s", "--timeline is a format of its own: give it with -i "
					   "and -o only");
		int orc = report_out_open(&out, output, -1);
		return orc ? orc : report_out_close(&out, report_timeline(o.input, out.f) ?
							  HPM_EXIT_FAIL : HPM_EXIT_OK);
	}
	if (sort) {
		if (rep_parse_sort(sort, o.keys, &o.nr_keys, bad, sizeof(bad)))
			return usage_error("unknown sort key '%s': use comm, pid, tid, dso, sym, line, cpu, "
					   "rank, host",
					   bad);
	} else if (o.lines) {
		rep_parse_sort("line,sym,dso", o.keys, &o.nr_keys, bad, sizeof(bad));
	} else {
		rep_parse_sort("sym,dso", o.keys, &o.nr_keys, bad, sizeof(bad));
	}
	for (size_t i = 0; i < o.nr_keys; i++)
		if (o.keys[i] == SK_LINE)
			o.lines = true;
	if (pic && (fmt != REP_TEXT || (pic == PIC_SVG && metric_args_any(&mo)) || xfmt >= 0))
		return usage_error("%s", "--svg and --html are formats of their own: give one, without "
				   "--json, --csv, --folded, --pprof, --trace-event, --speedscope (or "
				   "metrics, for --svg)");
	if (fmt == REP_FOLDED || pic == PIC_SVG) {
		o.callgraph = true;
		o.folded = true;
	}
	struct ptrees pt = { 0 };
	if (pic == PIC_HTML) {
		ptrees_init(&pt, &o); /* the page's trees, from every sample */
		pt.by_thread = true;
	}
	if (xfmt >= 0 && (fmt != REP_TEXT || metric_args_any(&mo)))
		return usage_error("%s", "--pprof, --trace-event and --speedscope are formats of their "
				   "own: give one, without --json, --csv, --folded or metrics");
	int orc = report_out_open(&out, output, xfmt);
	if (orc)
		return orc;
	if (xfmt >= 0 && !(x = export_new((enum export_fmt)xfmt, &o, out.f))) {
		fprintf(stderr, "hpmon report: out of memory\n");
		return report_out_close(&out, HPM_EXIT_FAIL);
	}

	if (pic == PIC_HTML && timeline__path_is_stat_json(o.input)) { /* stat -I --json: the charts */
		int src = export_html_stat(out.f, o.input, why, sizeof(why));
		if (src)
			fprintf(stderr, "hpmon report: %s\n", src == -ENOMEM ? "out of memory" : why);
		return report_out_close(&out, src ? HPM_EXIT_FAIL : HPM_EXIT_OK);
	}
	o.procfs = hpm_ctx__procfs_root(ctx);
	o.cache_dir = no_cache ? NULL : cache_dir(cache, sizeof(cache));
	struct rep r;
	if (rep_load(&r, &o)) {
		rep_free(&r);
		ptrees_free(&pt);
		export_free(x);
		return report_out_close(&out, HPM_EXIT_FAIL);
	}
	if (x) {
		int xrc = export_write(x, &r) ? HPM_EXIT_FAIL : HPM_EXIT_OK;
		rep_print_notes(stderr, &r, "hpmon report:");
		if (!xrc && !r.st.complete && !r.st.chunks)
			xrc = HPM_EXIT_FAIL;
		rep_free(&r);
		export_free(x);
		return report_out_close(&out, xrc);
	}
	if (metric_args_any(&mo)) {
		int mrc = fmt == REP_FOLDED ? usage_error("%s", "metrics are not shown in folded stacks")
					    : rep_metrics_setup(ctx, &mo, &r);
		if (mrc) {
			rep_free(&r);
			ptrees_free(&pt);
			return report_out_close(&out, mrc);
		}
	}
	if (o.callgraph && !r.have_chains && fmt != REP_FOLDED)
		fprintf(stderr, "hpmon report: note: the profile has no call chains (record with -g); "
			"inclusive equals self\n");
	if (pic) {
		int prc = write_picture(&r, pic, &pt, out.f);
		rep_print_notes(stderr, &r, "hpmon report:");
		if (!prc && !r.st.complete && !r.st.chunks)
			prc = HPM_EXIT_FAIL;
		rep_metrics_free(r.metrics);
		ptrees_free(&pt);
		rep_free(&r);
		return report_out_close(&out, prc);
	}
	rep_sort_rows(&r);
	rep_print(out.f, &r, fmt, o.callgraph && fmt != REP_FOLDED, min_pct);
	int rc = r.st.complete || r.st.chunks ? HPM_EXIT_OK : HPM_EXIT_FAIL;
	rep_metrics_free(r.metrics);
	rep_free(&r);
	return report_out_close(&out, rc);
}
