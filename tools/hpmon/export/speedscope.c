/* SPDX-License-Identifier: MIT */
/*
 * `hpmon report --speedscope`: speedscope's file format (docs/formats.md):
 * one "sampled" profile per thread and event, its samples in time order,
 * each a stack of frames (root first) weighted by its period (a run of
 * samples of one stack as one entry), over one shared list of frames,
 * one per function.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "export/export-internal.h"
#include "output/json.h"

#define SPEEDSCOPE_SCHEMA "https://www.speedscope.app/file-format-schema.json"

/* thread, then event, then time: each profile's samples in a run */
static int cmp_prof(const void *a, const void *b, void *arg)
{
	const struct xsamp *v = arg;
	const struct xsamp *p = &v[*(const size_t *)a], *q = &v[*(const size_t *)b];
	if (p->thread != q->thread)
		return p->thread < q->thread ? -1 : 1;
	if (p->ev != q->ev)
		return p->ev < q->ev ? -1 : 1;
	if (p->time != q->time)
		return p->time < q->time ? -1 : 1;
	return (*(const size_t *)a > *(const size_t *)b) - (*(const size_t *)a < *(const size_t *)b);
}

static void write_frames(struct json *j, struct export *x, struct rep *r, uint32_t *frame_of)
{
	uint32_t nr = 0;
	json_obj_open(j, "shared");
	json_arr_open(j, "frames");
	for (size_t i = 0; i < x->nr_nodes; i++) {
		uint32_t sym = x->nodes[i].id;
		if (frame_of[sym] != UINT32_MAX)
			continue;
		frame_of[sym] = nr++;
		const char *file;
		unsigned line;
		json_obj_open(j, NULL);
		json_str(j, "name", x_sym_name(r, sym));
		if (x_sym_source(r, sym, &file, &line)) {
			json_str(j, "file", file);
			json_u64(j, "line", line);
		} else {
			json_str(j, "file", r->dsos[r->syms[sym].dso].path);
		}
		json_obj_close(j);
	}
	json_arr_close(j);
	json_obj_close(j);
}

/* Consecutive samples of one stack are one entry weighing their sum, as
 * speedscope merges them when it loads a file: the same picture, and a
 * hot loop costs one entry (a crafted file repeating a deep chain too).
 * The entries go to @m (room for @n). */
static size_t merge_runs(struct export *x, const size_t *ord, size_t n, struct xsamp *m)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		const struct xsamp *s = &x->samps[ord[i]];
		if (k && m[k - 1].node == s->node)
			m[k - 1].period += s->period;
		else
			m[k++] = *s;
	}
	return k;
}

static void write_profile(struct json *j, struct export *x, struct rep *r, const size_t *ord,
			  size_t n, const uint32_t *frame_of, uint32_t *fr, struct xsamp *m)
{
	const struct xsamp *first = &x->samps[ord[0]];
	const struct xthread *t = &x->threads[first->thread];
	char name[512];
	uint64_t total = 0;
	size_t k = merge_runs(x, ord, n, m);

	for (size_t i = 0; i < k; i++)
		total += m[i].period;
	snprintf(name, sizeof(name), "%s [%d] %s", x_thread_name(x, r, first->thread), (int)t->tid,
		 r->meta.events[first->ev].name);
	json_obj_open(j, NULL);
	json_str(j, "type", "sampled");
	json_str(j, "name", name);
	json_str(j, "unit", strcmp(x_unit(r, first->ev), "nanoseconds") ? "none" : "nanoseconds");
	json_u64(j, "startValue", 0);
	json_u64(j, "endValue", total);
	json_arr_open(j, "samples");
	for (size_t i = 0; i < k; i++) {
		size_t nf = x_frames(x, m[i].node, fr, x->nr_nodes + 1);
		json_arr_open(j, NULL);
		for (size_t f = 0; f < nf; f++)
			json_u64(j, NULL, frame_of[fr[f]]);
		json_arr_close(j);
	}
	json_arr_close(j);
	json_arr_open(j, "weights");
	for (size_t i = 0; i < k; i++)
		json_u64(j, NULL, m[i].period);
	json_arr_close(j);
	json_obj_close(j);
}

int speedscope_write(struct export *x, struct rep *r, FILE *f)
{
	struct json j;
	size_t *ord = malloc((x->nr_samps + 1) * sizeof(*ord));
	uint32_t *frame_of = malloc((r->nr_syms + 1) * sizeof(*frame_of));
	uint32_t *fr = malloc((x->nr_nodes + 1) * sizeof(*fr));
	struct xsamp *m = malloc((x->nr_samps + 1) * sizeof(*m));
	char title[512];

	if (!ord || !frame_of || !fr || !m) {
		free(ord);
		free(frame_of);
		free(fr);
		free(m);
		fprintf(stderr, "hpmon report: out of memory writing the speedscope profile\n");
		return -ENOMEM;
	}
	memset(frame_of, 0xff, (r->nr_syms + 1) * sizeof(*frame_of));
	for (size_t i = 0; i < x->nr_samps; i++)
		ord[i] = i;
	qsort_r(ord, x->nr_samps, sizeof(*ord), cmp_prof, x->samps);

	json_init(&j, f, false);
	json_obj_open(&j, NULL);
	json_str(&j, "$schema", SPEEDSCOPE_SCHEMA);
	write_frames(&j, x, r, frame_of);
	json_arr_open(&j, "profiles");
	for (size_t i = 0, end; i < x->nr_samps; i = end) {
		const struct xsamp *s = &x->samps[ord[i]];
		for (end = i + 1; end < x->nr_samps; end++) {
			const struct xsamp *e = &x->samps[ord[end]];
			if (e->thread != s->thread || e->ev != s->ev)
				break;
		}
		write_profile(&j, x, r, ord + i, end - i, frame_of, fr, m);
	}
	json_arr_close(&j);
	snprintf(title, sizeof(title), "%s", r->meta.command ? r->meta.command : r->o.input);
	json_str(&j, "name", title);
	json_u64(&j, "activeProfileIndex", 0);
	json_str(&j, "exporter", "hpmon report --speedscope");
	json_obj_close(&j);
	json_end(&j);
	free(ord);
	free(frame_of);
	free(fr);
	free(m);
	return 0;
}
