/* SPDX-License-Identifier: MIT */
/*
 * The exports (export.h): the report layer's sink, which hands each
 * sample to its stack and thread (stacks.c) and to the format, or keeps
 * it for the formats that list samples in time; and the dispatch to the
 * format's writer. Past the report's memory cap samples are left out and
 * counted, and export_write says so.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "export/export-internal.h"

static void sink_sample(void *arg, struct rep *r, const struct rep_xsample *xs)
{
	struct export *x = arg;
	const struct hpm_sample *s = xs->s;
	uint32_t node = x_stack(x, r, xs);
	uint32_t th = node ? x_thread(x, r, s->pid, s->tid, xs->comm) : UINT32_MAX;

	if (th == UINT32_MAX) {
		x->dropped++;
		return;
	}
	if (x->fmt == EXPORT_PPROF) {
		pprof_sample(x, r, xs, node, th);
		return;
	}
	if (x->fmt == EXPORT_TRACE_EVENT)
		trace_sample(x, r, xs);
	if (!rep_reserve(r, 2 * sizeof(struct xsamp)) ||
	    !x_grow((void **)&x->samps, &x->cap_samps, x->nr_samps + 1, sizeof(*x->samps))) {
		x->dropped++;
		return;
	}
	x->samps[x->nr_samps++] = (struct xsamp){ s->time, s->period, node, th, s->ev, s->cpu };
}

static void sink_lost(void *arg, struct rep *r, const struct hpm_lost_rec *l)
{
	struct export *x = arg;
	if (x->fmt != EXPORT_TRACE_EVENT || !rep_reserve(r, 2 * sizeof(*l)) ||
	    !x_grow((void **)&x->lost, &x->cap_lost, x->nr_lost + 1, sizeof(*x->lost)))
		return;
	x->lost[x->nr_lost++] = *l;
}

struct export *export_new(enum export_fmt fmt, struct rep_opts *o)
{
	struct export *x = calloc(1, sizeof(*x));
	if (!x)
		return NULL;
	x->fmt = fmt;
	x->by_loc = fmt == EXPORT_PPROF;
	x->h_node = htab__new(2);
	x->h_thread = htab__new(1);
	x->h_agg = htab__new(1 + PPROF_LABELS);
	x->h_cnt = htab__new(3);
	if (!x->h_node || !x->h_thread || !x->h_agg || !x->h_cnt) {
		export_free(x);
		return NULL;
	}
	x->sink = (struct rep_sink){ sink_sample, sink_lost, x };
	o->sink = &x->sink;
	o->callgraph = true; /* the stacks, when the profile has them */
	return x;
}

bool export_binary(enum export_fmt fmt)
{
	return fmt == EXPORT_PPROF;
}

int export_write(struct export *x, struct rep *r, FILE *f)
{
	if (x->dropped)
		fprintf(stderr, "hpmon report: warning: %llu samples are left out of the export: "
			"the profile asks for more memory than its size justifies\n",
			(unsigned long long)x->dropped);
	switch (x->fmt) {
	case EXPORT_PPROF:
		return pprof_write(x, r, f);
	case EXPORT_TRACE_EVENT:
		return trace_write(x, r, f);
	case EXPORT_SPEEDSCOPE:
		return speedscope_write(x, r, f);
	}
	return -EINVAL;
}

void export_free(struct export *x)
{
	if (!x)
		return;
	free(x->nodes);
	free(x->threads);
	free(x->samps);
	free(x->akeys);
	free(x->avals);
	free(x->bias);
	free(x->bias_set);
	free(x->ckeys);
	free(x->cvals);
	free(x->lost);
	htab__free(x->h_node);
	htab__free(x->h_thread);
	htab__free(x->h_agg);
	htab__free(x->h_cnt);
	free(x);
}
