/* SPDX-License-Identifier: MIT */
/*
 * hpmon annotate: the samples of one function, per instruction, with its
 * disassembly and its source lines interleaved (docs/hpmon-report.md),
 * as annotate.c computes them.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/annotate.h"
#include "builtin.h"
#include "cache/cachedir.h"
#include "output/escape.h"
#include "report/report-view.h"

static const char annotate_usage[] =
	"usage: hpmon annotate [-i FILE] [--dso NAMES] [filters] [--no-source] [--no-demangle]\n"
	"                      SYMBOL\n"
	"\n"
	"Samples of SYMBOL (as report names it; a C++ name may leave out its\n"
	"parameters) per instruction, with the disassembly and the source\n"
	"lines interleaved (where DWARF and the source files are at hand).\n"
	"\n"
	"  -i, --input FILE    the profile (default hpmon.prof)\n"
	"  -d, --dso NAMES     the object, when several have SYMBOL: the one of these\n"
	"                      (comma-separated) with the most samples in it\n"
	"      --comm NAMES    count only the samples of tasks of these names\n"
	"      --pid PIDS      ... of these processes\n"
	"      --tid TIDS      ... of these threads\n"
	"      --no-source     instructions only\n"
	"      --no-demangle   C++ and Rust names as the symbol table has them\n"
	"      --debug-dir DIR separate debug files (default /usr/lib/debug)\n"
	"      --no-cache      read every object, keep no copy of its symbols\n"
	"  -h, --help          this help\n"
	"\n"
	"Lists are split at commas, as perf splits them.\n";

/* A source line for the terminal: tabs to 8-column stops (indentation kept),
 * then escaped like any other text from a file. */
static const char *src_text(const char *t, char *buf, size_t len)
{
	size_t col = 0;
	for (; *t && col + 9 < len; t++)
		if (*t == '\t')
			do
				buf[col++] = ' ';
			while (col % 8);
		else
			buf[col++] = *t;
	buf[col] = '\0';
	return esc_text(buf);
}

enum { OPT_NO_SOURCE = 256, OPT_DEBUG_DIR, OPT_NO_DEMANGLE, OPT_COMM, OPT_PID, OPT_TID,
       OPT_NO_CACHE };

static int annotate(struct rep *r, const char *symbol, const struct rep_list *dsos, bool source)
{
	long sym = anno_find(r, symbol, dsos, r->main_ev);
	if (sym < 0) {
		fprintf(stderr, "hpmon annotate: no samples in a function named '%s'%s\n", esc_text(symbol),
			dsos->nr > 1 ? " in those objects" : dsos->nr ? " in that object" : "");
		return HPM_EXIT_FAIL;
	}
	const struct rep_sym *s = &r->syms[sym];
	struct rep_dso *d = &r->dsos[s->dso];
	struct anno a;
	int rc = anno_load(&a, r, (uint32_t)sym, r->main_ev, source);
	if (rc == -ENOEXEC) {
		fprintf(stderr, "hpmon annotate: '%s' in %s cannot be disassembled (%s)\n",
			esc_text(symbol), esc_text(d->path), d->d ? "its size is unknown" : "the object cannot be read");
		return HPM_EXIT_FAIL;
	}
	if (rc) {
		fprintf(stderr, "hpmon annotate: cannot %s %s in %s\n", rc == -ENOTSUP ? "disassemble" :
			rc == -ENOMEM ? "(out of memory) annotate" : "read the code of", esc_text(symbol),
			esc_text(d->path));
		return HPM_EXIT_FAIL;
	}
	uint64_t all = r->ev_samples[r->main_ev];
	printf("# %s  [%s]  %s: %" PRIu64 " samples of %" PRIu64 " (%.2f%%)\n", esc_text(symbol),
	       esc_text(d->path), esc_text(r->meta.events[r->main_ev].name), a.samples, all,
	       all ? 100.0 * (double)a.samples / (double)all : 0);
	printf("# %8s %7s  %-12s  %s\n", "samples", "percent", "address", "instruction");
	struct anno_src src = { .path = "" };
	const char *last_file = NULL;
	unsigned last_line = 0;
	for (size_t k = 0; k < a.nr; k++) {
		const struct anno_insn *i = &a.v[k];
		if (i->file && (i->line != last_line || i->file != last_file)) {
			const char *t = anno_src_line(&src, i->file, i->line);
			const char *b = strrchr(i->file, '/');
			char tb[2048];
			printf("%30s %s:%u  %s\n", "", esc_text(b ? b + 1 : i->file), i->line,
			       t ? src_text(t, tb, sizeof(tb)) : "");
			last_file = i->file;
			last_line = i->line;
		}
		if (i->samples)
			printf("  %8" PRIu64 " %6.2f%%  %12" PRIx64 ":  %s\n", i->samples,
			       a.samples ? 100.0 * (double)i->samples / (double)a.samples : 0.0, i->addr,
			       anno_text(&a, i));
		else
			printf("  %8s %7s  %12" PRIx64 ":  %s\n", "", "", i->addr, anno_text(&a, i));
	}
	anno_src_free(&src);
	anno_free(&a);
	rep_print_notes(stdout, r, "#");
	return HPM_EXIT_OK;
}

int cmd_annotate(int argc, char **argv, struct hpm_ctx *ctx)
{
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "dso", required_argument, NULL, 'd' },
		{ "dsos", required_argument, NULL, 'd' },  /* perf annotate's spelling */
		{ "comm", required_argument, NULL, OPT_COMM },
		{ "comms", required_argument, NULL, OPT_COMM },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "tid", required_argument, NULL, OPT_TID },
		{ "no-source", no_argument, NULL, OPT_NO_SOURCE },
		{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
		{ "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
		{ "no-cache", no_argument, NULL, OPT_NO_CACHE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rep_opts o = { .input = "hpmon.prof", .lines = true };
	struct rep_filter filter = { 0 }; /* --comm, --pid, --tid: which samples count */
	struct rep_filter pick = { 0 };   /* its --dso list: which object's SYMBOL */
	char why[512];
	bool source = true, no_cache = false;
	char bad[32], cache[4096];
	int c;

	(void)ctx;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:i:d:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'i': o.input = optarg; break;
		case 'd':
		case OPT_COMM:
		case OPT_PID:
		case OPT_TID: {
			enum rep_filter_kind k = c == 'd' ? RF_DSO : c == OPT_COMM ? RF_COMM :
						 c == OPT_PID ? RF_PID : RF_TID;
			if (rep_filter__add(c == 'd' ? &pick : &filter, k, optarg, why, sizeof(why))) {
				fprintf(stderr, "hpmon annotate: %s\nSee 'hpmon annotate --help'.\n", why);
				return HPM_EXIT_USAGE;
			}
			break;
		}
		case OPT_NO_SOURCE: source = false; break;
		case OPT_NO_DEMANGLE: o.no_demangle = true; break;
		case OPT_DEBUG_DIR: o.debug_dir = optarg; break;
		case OPT_NO_CACHE: no_cache = true; break;
		case 'h':
			fputs(annotate_usage, stdout);
			return HPM_EXIT_OK;
		case ':':
			fprintf(stderr, "hpmon annotate: option '%s' needs a value\nSee 'hpmon annotate --help'.\n",
				argv[optind - 1]);
			return HPM_EXIT_USAGE;
		default:
			fprintf(stderr, "hpmon annotate: unknown option '%s'\nSee 'hpmon annotate --help'.\n",
				argv[optind - 1]);
			return HPM_EXIT_USAGE;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "hpmon annotate: give one SYMBOL\nSee 'hpmon annotate --help'.\n");
		return HPM_EXIT_USAGE;
	}
	if (rep_filter__any(&filter))
		o.filter = &filter;
	rep_parse_sort("sym", o.keys, &o.nr_keys, bad, sizeof(bad));
	o.cache_dir = no_cache ? NULL : cache_dir(cache, sizeof(cache));
	struct rep r;
	int rc = HPM_EXIT_FAIL;
	if (!rep_load(&r, &o))
		rc = annotate(&r, argv[optind], &pick.dsos, source);
	rep_free(&r);
	return rc;
}
