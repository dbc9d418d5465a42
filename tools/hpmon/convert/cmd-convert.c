/* SPDX-License-Identifier: MIT */
/*
 * hpmon convert -i perf.data -o out.prof: a perf.data file (or an hpmon
 * profile) written again as an hpmon profile. The reader hands out the
 * same records for both formats (lib/profile/perfdata*.c), so this is a
 * copy from the reader to the writer; what perf.data held that a profile
 * has no place for is listed on stderr (docs/hpmon-convert.md).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hpmon/profile.h>
#include "builtin.h"
#include "output/output.h"
#include "report/report.h"

static const char convert_usage[] =
	"usage: hpmon convert [-i FILE] -o FILE [-q]\n"
	"\n"
	"Write a perf.data file (perf record's) as an hpmon profile, which\n"
	"hpmon report, annotate, diff and script read (they read perf.data\n"
	"too: converting makes it smaller and faster to read again).\n"
	"\n"
	"  -i, --input FILE   perf.data (default), or an hpmon profile\n"
	"  -o, --output FILE  the profile to write (mode 0600, replaced whole)\n"
	"  -q, --quiet        no summary of the records on stderr\n"
	"  -h, --help         this help\n"
	"\n"
	"See docs/hpmon-convert.md.\n";

/* What was read and what was read past, on stderr. */
static void summary(const char *in, const char *out, struct hpm_profile *p, uint64_t nr)
{
	struct hpm_profile_rectype t[64];
	size_t n = hpm_profile__rectypes(p, t, 64);

	fprintf(stderr, "hpmon convert: %s (%s): %" PRIu64 " records written to %s\n", in,
		hpm_profile__format(p), nr, out);
	if (n > 64)
		n = 64;
	for (int used = 1; used >= 0; used--) {
		bool any = false;
		for (size_t i = 0; i < n; i++) {
			if (t[i].used != (used == 1))
				continue;
			fprintf(stderr, "%s %s %" PRIu64, any ? "," : used ? "  read:" : "  skipped:",
				t[i].name, t[i].count);
			any = true;
		}
		if (any)
			fputc('\n', stderr);
	}
}

static int convert(const char *in, const char *out, bool quiet)
{
	struct hpm_profile *p = NULL;
	struct hpm_profile_writer *w = NULL;
	struct out_file of;
	struct hpm_prec r;
	uint64_t nr = 0;
	int rc;

	if (rep_open(in, &p))
		return HPM_EXIT_FAIL;
	if (out_open(&of, "hpmon convert", out, OUT_REPLACE)) {
		hpm_profile__free(p);
		return HPM_EXIT_FAIL;
	}
	w = hpm_profile_writer__new(out_take_fd(&of), hpm_profile__meta(p), NULL);
	if (!w) {
		fprintf(stderr, "hpmon convert: cannot write '%s': %s\n", out, hpm_strerror(-errno));
		out_abort(&of);
		hpm_profile__free(p);
		return HPM_EXIT_FAIL;
	}
	while ((rc = hpm_profile__next(p, &r)) > 0) {
		if ((rc = hpm_profile_writer__add(w, &r)))
			break;
		nr++;
	}
	const struct hpm_profile_status *st = hpm_profile__status(p);
	struct hpm_profile_totals tot = st->totals;
	if (!st->complete)
		tot.exit_status = -1;
	if (rc < 0) {
		fprintf(stderr, "hpmon convert: %s '%s': %s\n", rc == -ENOMEM ? "out of memory reading"
			: "cannot write", rc == -ENOMEM ? in : out, hpm_strerror(rc));
		hpm_profile_writer__free(w);
		out_abort(&of);
		hpm_profile__free(p);
		return HPM_EXIT_FAIL;
	}
	rc = hpm_profile_writer__close(w, &tot);
	if (rc) {
		fprintf(stderr, "hpmon convert: cannot write '%s': %s\n", out, hpm_strerror(rc));
		out_abort(&of);
		hpm_profile__free(p);
		return HPM_EXIT_FAIL;
	}
	if (out_commit(&of, false)) {
		hpm_profile__free(p);
		return HPM_EXIT_FAIL;
	}
	if (!st->complete)
		fprintf(stderr, "hpmon convert: warning: '%s' %s: %s\n", in,
			st->truncated ? "is cut" : "is damaged", st->what);
	if (!quiet)
		summary(in, out, p, nr);
	hpm_profile__free(p);
	return HPM_EXIT_OK;
}

int cmd_convert(int argc, char **argv, struct hpm_ctx *ctx)
{
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *in = "perf.data", *out = NULL;
	bool quiet = false;
	int c;

	(void)ctx;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:i:o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'i': in = optarg; break;
		case 'o': out = optarg; break;
		case 'q': quiet = true; break;
		case 'h':
			fputs(convert_usage, stdout);
			return HPM_EXIT_OK;
		case ':':
			fprintf(stderr, "hpmon convert: option '%s' needs a value\nSee 'hpmon convert --help'.\n",
				argv[optind - 1]);
			return HPM_EXIT_USAGE;
		default:
			fprintf(stderr, "hpmon convert: unknown option '%s'\nSee 'hpmon convert --help'.\n",
				argv[optind - 1]);
			return HPM_EXIT_USAGE;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "hpmon convert: unexpected argument '%s'\nSee 'hpmon convert --help'.\n",
			argv[optind]);
		return HPM_EXIT_USAGE;
	}
	if (!out) {
		fprintf(stderr, "hpmon convert: give the profile to write: -o FILE\n"
			"See 'hpmon convert --help'.\n");
		return HPM_EXIT_USAGE;
	}
	return convert(in, out, quiet);
}
