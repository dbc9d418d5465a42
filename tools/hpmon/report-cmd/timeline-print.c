/* SPDX-License-Identifier: MIT */
/*
 * report --timeline: the timeline model (timeline.h) as sparklines in
 * the terminal, one line per event and thread, with min, max and total
 * per line and a time axis (docs/hpmon-report.md, "Timelines").
 */
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <hpmon/profile.h>
#include "output/escape.h"
#include "report/report.h"
#include "timeline/timeline.h"
#include "report-cmd/timeline-print.h"

/* Eight heights, lowest first; a column that counted nothing is blank. */
static const char *const bars_utf8[8] = { "\u2581", "\u2582", "\u2583", "\u2584",
					  "\u2585", "\u2586", "\u2587", "\u2588" };
static const char *const bars_ascii[8] = { "_", ".", "-", "~", "=", "+", "*", "#" };

#define TLP_LABEL_MAX 28

/* Display columns of @s (escaped text: valid UTF-8): its characters. */
static size_t text_cols(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* @v as a figure: whole numbers whole, others to four digits; with
 * @whole (the counts of a profile's readings, which are whole, but
 * spread over their spans leave fractions in the bins) rounded whole. */
static const char *figure(double v, bool whole, char *buf, size_t len)
{
	if (!isfinite(v))
		snprintf(buf, len, "-");
	else if ((v == floor(v) || whole) && fabs(v) < 1e15)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.4g", v);
	return buf;
}

/* A duration: ns, us, ms or s, three digits. */
static const char *duration(double ns, char *buf, size_t len)
{
	if (ns >= 1e9)
		snprintf(buf, len, "%.3g s", ns / 1e9);
	else if (ns >= 1e6)
		snprintf(buf, len, "%.3g ms", ns / 1e6);
	else if (ns >= 1e3)
		snprintf(buf, len, "%.3g us", ns / 1e3);
	else
		snprintf(buf, len, "%.0f ns", ns);
	return buf;
}

/* Column @c of @s: the sum of its bins (a metric: their mean, of the bins
 * with a value); *@has: whether any bin had a value. */
static double column(const struct timeline_series *s, size_t c, size_t per, size_t nr,
		     bool *has)
{
	double v = 0;
	size_t n = 0;
	for (size_t b = c * per; b < (c + 1) * per && b < nr; b++) {
		if (s->metric && s->coverage[b] <= 0)
			continue;
		v += s->count[b];
		n++;
	}
	*has = n > 0;
	return s->metric && n ? v / (double)n : v;
}

static void series_line(FILE *f, const struct timeline_series *s, enum timeline_source src,
			size_t ncols, size_t per, size_t nr, size_t label_w, bool utf8)
{
	const char *const *bars = utf8 ? bars_utf8 : bars_ascii;
	const char *label = esc_text(s->thread);
	double top = 0, lo = 0;
	char a[32], b[32], c[32];

	for (size_t i = 0; i < ncols; i++) {
		bool has;
		double v = column(s, i, per, nr, &has);
		if (has && v > top)
			top = v;
	}
	fprintf(f, "  %s%*s  ", label, (int)(label_w - text_cols(label)), "");
	for (size_t i = 0; i < ncols; i++) {
		bool has;
		double v = column(s, i, per, nr, &has);
		if (!has || v <= 0 || top <= 0) {
			fputc(' ', f);
			continue;
		}
		/* the line's own scale: its highest column is full */
		int h = (int)ceil(v / top * 8) - 1;
		fputs(bars[h < 0 ? 0 : h > 7 ? 7 : h], f);
	}
	/* min and max of the columns shown, the total of all */
	lo = top;
	for (size_t i = 0; i < ncols; i++) {
		bool has;
		double v = column(s, i, per, nr, &has);
		if (has && v < lo)
			lo = v;
	}
	bool whole = (src == TL_SRC_RECORDS || src == TL_SRC_POLLED) && !s->metric;
	fprintf(f, "  min %s  max %s  %s %s", figure(lo, whole, a, sizeof(a)),
		figure(top, whole, b, sizeof(b)), s->metric ? "mean" : "total",
		figure(s->total, whole, c, sizeof(c)));
	/* multiplexed: how much of the time it was counted */
	double en = 0, cov = 0;
	for (size_t i = 0; i < nr && !s->metric; i++)
		if (s->count[i] > 0 || s->coverage[i] < 1) {
			en += 1;
			cov += s->coverage[i];
		}
	/* migrations make a thread's per-CPU times a little uneven: only a
	 * share under 95 % is multiplexing worth saying */
	if (en > 0 && cov / en < 0.95)
		fprintf(f, "  (counted %.0f %% of the time, scaled)", 100 * cov / en);
	fputc('\n', f);
}

/* The time axis under the lines: 0 on the left, the end on the right,
 * the middle between when there is room. */
static void axis(FILE *f, size_t ncols, double span_ns, size_t label_w)
{
	char row[1024], end[32], mid[32];
	if (ncols >= sizeof(row))
		ncols = sizeof(row) - 1;
	memset(row, ' ', ncols);
	row[ncols] = '\0';
	duration(span_ns, end, sizeof(end));
	duration(span_ns / 2, mid, sizeof(mid));
	size_t le = strlen(end), lm = strlen(mid);
	row[0] = '0';
	if (le + 2 <= ncols)
		memcpy(row + ncols - le, end, le);
	if (ncols >= 2 * (le + lm) + 4)
		memcpy(row + ncols / 2 - lm / 2, mid, lm);
	fprintf(f, "  %*s  %s\n", (int)label_w, "", row);
}

static const char *source_name(const struct timeline *t, char *buf, size_t len)
{
	char iv[32];

	switch (t->source) {
	case TL_SRC_RECORDS:
		return "counts read per thread";
	case TL_SRC_POLLED:
		snprintf(buf, len, "counts of all the command's threads together, read by hpmon "
			 "every %s of wall time", duration((double)t->interval_ns, iv, sizeof(iv)));
		return buf;
	case TL_SRC_SAMPLES:
		return "sample periods by time (the profile has no timeline records)";
	case TL_SRC_STAT:
		return "stat -I intervals";
	}
	return "";
}

int timeline_print(FILE *f, const struct timeline *t, const char *name, unsigned width, bool utf8)
{
	char a[32], b[32];
	size_t label_w = 3;

	for (size_t i = 0; i < t->nr_series; i++) {
		size_t n = text_cols(esc_text(t->series[i].thread));
		if (n > label_w)
			label_w = n > TLP_LABEL_MAX ? TLP_LABEL_MAX : n;
	}
	size_t nr = t->nr_bins;
	/* columns: as many bins as fit, each column the same number of bins */
	size_t want = width > label_w + 60 ? width - label_w - 50 : 10;
	size_t per = nr > want ? (nr + want - 1) / want : 1;
	size_t ncols = nr ? (nr + per - 1) / per : 0;
	double span = (double)nr * (double)t->bin_ns;

	char src[128];
	fprintf(f, "# timeline of '%s': %s\n", esc_text(name), source_name(t, src, sizeof(src)));
	if (!nr || !t->nr_series) {
		fprintf(f, "# nothing was counted\n");
		return 0;
	}
	fprintf(f, "# %s in %zu columns of %s\n", duration(span, a, sizeof(a)), ncols,
		duration((double)per * (double)t->bin_ns, b, sizeof(b)));
	for (size_t i = 0; i < t->nr_series; i++) {
		const struct timeline_series *s = &t->series[i];
		if (i == 0 || strcmp(s->event, t->series[i - 1].event) ||
		    s->metric != t->series[i - 1].metric)
			fprintf(f, "%s%s%s%s\n", esc_text(s->event), s->unit[0] ? " (" : "",
				esc_text(s->unit), s->unit[0] ? ")" : "");
		series_line(f, s, t->source, ncols, per, nr, label_w, utf8);
	}
	axis(f, ncols, (double)ncols * (double)per * (double)t->bin_ns, label_w);
	return ferror(f) ? -EIO : 0;
}

int report_timeline(const char *input, FILE *f)
{
	struct timeline_opts to = { 0 };
	struct timeline *t;
	char why[320] = "";
	unsigned width = 110;
	struct winsize ws;

	if (isatty(fileno(f)) && !ioctl(fileno(f), TIOCGWINSZ, &ws) && ws.ws_col >= 40)
		width = ws.ws_col;
	setlocale(LC_CTYPE, "");
	bool utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
	if (timeline__path_is_stat_json(input)) {
		t = timeline__from_stat_json(input, &to, why, sizeof(why));
	} else {
		struct hpm_profile *p;
		if (rep_open(input, &p))
			return -1;
		t = timeline__from_profile(p, &to, why, sizeof(why));
		const struct hpm_profile_status *st = hpm_profile__status(p);
		if (t && !st->complete)
			fprintf(stderr, "hpmon report: warning: '%s': %s\n", input, st->what);
		hpm_profile__free(p);
	}
	if (!t) {
		fprintf(stderr, "hpmon report: %s\n", why);
		if (errno == EBADMSG)
			fprintf(stderr, "hpmon report: --timeline reads profiles (hpmon record) and the "
				"files of hpmon stat -I MS --json -o FILE\n");
		return -1;
	}
	int rc = timeline_print(f, t, input, width, utf8);
	timeline__free(t);
	return rc ? -1 : 0;
}
