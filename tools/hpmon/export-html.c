/* SPDX-License-Identifier: MIT */
/*
 * report --html: one self-contained page (export.h). The page's sources
 * (html/page.html, app.js, style.css, compiled in) are put together here:
 * page.html's @STYLE@, @APP@ and @DATA@ are replaced by the style, the
 * code and the profile's summary as JSON, inside a
 * <script type="application/json">. That summary is what app.js reads
 * (docs/hpmon-report.md): the header's facts, the events, the symbols and
 * their objects, and every stack of every event, flat:
 * [event, comm, samples, period, nr, sym...] one after another.
 *
 * Names come from the profile and may hold anything: json.c escapes them
 * for JSON, and every '<' is then written \u003c, so no name can close the
 * script element or open a comment in it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "json.h"
#include "report/report.h"
#include "report/table.h"

static const char *asset(const char *name)
{
	for (const struct html_asset *a = html_assets; a->name; a++)
		if (!strcmp(a->name, name))
			return a->text;
	return NULL;
}

/* The summary, as JSON, into @f. Comm ids are renumbered from 0. */
static int write_data(FILE *f, const struct rep *r)
{
	struct json j;
	struct htab *h = htab__new(1);
	struct { uint32_t *comms; size_t nr_comms, cap_comms; } cv = { 0 }; /* string ids */
	int rc = 0;

	if (!h)
		return -ENOMEM;
	json_init(&j, f, false);
	json_obj_open(&j, NULL);
	json_u64(&j, "version", 1);
	json_str(&j, "command", r->meta.command);
	json_str(&j, "host", r->meta.host);
	json_str(&j, "arch", r->meta.arch);
	json_str(&j, "cpu", r->meta.cpu_model);
	json_str(&j, "kernel", r->meta.kernel);
	json_bool(&j, "complete", r->st.complete);
	json_u64(&j, "lost", r->lost);
	json_u64(&j, "lost_samples", r->lost_samples);
	json_u64(&j, "throttled", r->throttled);
	json_bool(&j, "chains", r->have_chains);
	json_u64(&j, "capped", r->cap_records);
	json_u64(&j, "main", r->main_ev);
	json_arr_open(&j, "events");
	for (uint32_t i = 0; i < r->nr_ev; i++) {
		json_obj_open(&j, NULL);
		json_str(&j, "name", r->meta.events[i].name);
		json_bool(&j, "trigger", r->meta.events[i].trigger);
		json_u64(&j, "samples", r->ev_samples[i]);
		json_dbl(&j, "period", r->ev_period[i]);
		json_obj_close(&j);
	}
	json_arr_close(&j);
	json_arr_open(&j, "dsos");
	for (size_t i = 0; i < r->nr_dsos; i++)
		json_str(&j, NULL, r->dsos[i].base);
	json_arr_close(&j);
	json_arr_open(&j, "syms");
	for (size_t i = 0; i < r->nr_syms; i++)
		json_str(&j, NULL, r->syms[i].name);
	json_arr_close(&j);
	json_arr_open(&j, "symdso");
	for (size_t i = 0; i < r->nr_syms; i++)
		json_u64(&j, NULL, r->syms[i].dso);
	json_arr_close(&j);
	json_arr_open(&j, "stacks");
	for (size_t i = 0; i < r->nr_stacks; i++) {
		const struct rep_stack *s = &r->stacks[i];
		uint64_t k = s->comm;
		long c = htab__get(h, &k);
		if (c < 0) {
			if (!PUSH(&cv, comms, nr_comms, cap_comms) || htab__put(h, &k, cv.nr_comms)) {
				rc = -ENOMEM;
				break;
			}
			cv.comms[cv.nr_comms] = s->comm;
			c = (long)cv.nr_comms++;
		}
		json_u64(&j, NULL, s->ev);
		json_u64(&j, NULL, (uint64_t)c);
		json_u64(&j, NULL, s->samples);
		json_dbl(&j, NULL, s->period);
		json_u64(&j, NULL, s->nr);
		for (uint32_t n = 0; n < s->nr; n++)
			json_u64(&j, NULL, s->syms[n]);
	}
	json_arr_close(&j);
	json_arr_open(&j, "comms");
	for (size_t i = 0; i < cv.nr_comms; i++)
		json_str(&j, NULL, rep_str(r, cv.comms[i]));
	json_arr_close(&j);
	json_obj_close(&j);
	free(cv.comms);
	htab__free(h);
	return rc;
}

/* @s (JSON) into @f with every '<' as \u003c. */
static void put_json(FILE *f, const char *s, size_t len)
{
	const char *end = s + len;
	while (s < end) {
		const char *lt = memchr(s, '<', (size_t)(end - s));
		size_t n = lt ? (size_t)(lt - s) : (size_t)(end - s);
		fwrite(s, 1, n, f);
		if (!lt)
			break;
		fputs("\\u003c", f);
		s = lt + 1;
	}
}

int export_html(FILE *f, const struct rep *r)
{
	const char *page = asset("page.html"), *app = asset("app.js"), *style = asset("style.css");
	char *data = NULL;
	size_t len = 0;
	if (!page || !app || !style)
		return -ENOENT; /* a build without the page's sources: cannot happen */
	FILE *m = open_memstream(&data, &len);
	if (!m)
		return -errno;
	int rc = write_data(m, r);
	if (fclose(m) && !rc)
		rc = -ENOMEM;
	if (rc) {
		free(data);
		return rc;
	}
	/* page.html with each @NAME@ replaced */
	const char *p = page;
	for (;;) {
		const char *at = strchr(p, '@');
		if (!at) {
			fputs(p, f);
			break;
		}
		fwrite(p, 1, (size_t)(at - p), f);
		if (!strncmp(at, "@STYLE@", 7)) {
			fputs(style, f);
			p = at + 7;
		} else if (!strncmp(at, "@APP@", 5)) {
			fputs(app, f);
			p = at + 5;
		} else if (!strncmp(at, "@DATA@", 6)) {
			put_json(f, data, len);
			p = at + 6;
		} else {
			fputc('@', f);
			p = at + 1;
		}
	}
	free(data);
	return 0;
}
