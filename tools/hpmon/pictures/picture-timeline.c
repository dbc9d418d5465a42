/* SPDX-License-Identifier: MIT */
/*
 * The page's timeline (picture.h, pictures-internal.h): the timeline model
 * (timeline.h) as the page's "timeline" member, for report --html of a
 * profile (its lanes beside the samples' strip) and of a `hpmon stat -I
 * --json` file (the charts alone: export_html_stat).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/json.h"
#include "pictures/pictures-internal.h"
#include "timeline/timeline.h"

/* by enum timeline_source */
static const char *const sources[] = { "records", "polled", "samples", "stat" };

/* Whether the series' event is one of @r's software events (cpu-clock,
 * task-clock, ...): counted whenever the task runs, never scaled. */
static bool software(const struct rep *r, const char *event)
{
	for (uint32_t i = 0; r && i < r->nr_ev; i++)
		if (!strcmp(r->meta.events[i].name, event))
			return r->meta.events[i].type == 1; /* PERF_TYPE_SOFTWARE */
	return false;
}

void page_timeline(struct json *j, const struct timeline *t, const struct rep *r)
{
	if (!t) {
		json_null(j, "timeline");
		return;
	}
	json_obj_open(j, "timeline");
	json_str(j, "source", sources[t->source]);
	json_u64(j, "start", t->start_ns);
	json_u64(j, "width", t->bin_ns);
	json_u64(j, "n", t->nr_bins);
	json_arr_open(j, "series");
	for (size_t i = 0; i < t->nr_series; i++) {
		const struct timeline_series *s = &t->series[i];
		bool scaled = false, sw = software(r, s->event);
		json_obj_open(j, NULL);
		json_str(j, "thread", s->thread);
		json_i64(j, "tid", s->tid);
		json_str(j, "event", s->event);
		json_str(j, "unit", s->unit);
		json_bool(j, "metric", s->metric);
		json_dbl(j, "total", s->total);
		json_arr_open(j, "count");
		for (size_t b = 0; b < t->nr_bins; b++) {
			json_dbl(j, NULL, s->count[b]);
			scaled |= s->coverage[b] < 1 && !sw;
		}
		json_arr_close(j);
		if (scaled) { /* else null: every bin counted all the time */
			json_arr_open(j, "coverage");
			for (size_t b = 0; b < t->nr_bins; b++)
				json_dbl(j, NULL, s->coverage[b]);
			json_arr_close(j);
		} else {
			json_null(j, "coverage");
		}
		json_obj_close(j);
	}
	json_arr_close(j);
	json_obj_close(j);
}

int export_html_stat(FILE *f, const char *path, char *why, size_t len)
{
	struct timeline_opts o = { .max_bins = PAGE_TIMELINE_BINS };
	struct timeline *t = timeline__from_stat_json(path, &o, why, len);
	char *data = NULL;
	size_t dlen = 0;
	if (!t)
		return -errno;
	FILE *m = open_memstream(&data, &dlen);
	if (!m) {
		timeline__free(t);
		return -errno;
	}
	struct json j;
	json_init(&j, m, false);
	json_obj_open(&j, NULL);
	json_u64(&j, "version", 2);
	json_str(&j, "mode", "timeline");
	json_str(&j, "file", path);
	page_timeline(&j, t, NULL);
	json_obj_close(&j);
	int rc = fclose(m) ? -ENOMEM : 0;
	if (!rc)
		rc = page_assemble(f, data, dlen);
	free(data);
	timeline__free(t);
	return rc;
}
