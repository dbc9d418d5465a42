/* SPDX-License-Identifier: MIT */
/*
 * The exports (export.h): the report layer's sink, which hands each
 * sample to its stack and thread (stacks.c) and to the format (pprof sums
 * them, the trace writes them at once, speedscope keeps them); and the
 * dispatch to the format's writer. Past the report's memory cap a sample
 * loses detail, never its count, and export_write says what.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "export/export-internal.h"

/* speedscope's samples: one of the same stack as its thread's and
 * event's previous one adds to it. Past the memory cap a sample of
 * another stack adds to it too (its weight counts, at that stack), but
 * the first of its thread and event, whose number the threads' bound. */
static void keep_sample(struct export *x, struct rep *r, const struct hpm_sample *s,
			uint32_t node, uint32_t th)
{
	uint64_t k[2] = { th, s->ev };
	long i = htab__get(x->h_last, k);

	if (i >= 0 && x->samps[i].node == node) {
		x->samps[i].period += s->period;
		return;
	}
	if (!rep_reserve(r, 2 * sizeof(struct xsamp) + (i < 0 ? 3 * (8 * 2 + 4) : 0)) && i >= 0) {
		x->samps[i].period += s->period;
		x->merged++;
		return;
	}
	if (!x_grow((void **)&x->samps, &x->cap_samps, x->nr_samps + 1, sizeof(*x->samps)) ||
	    htab__put(x->h_last, k, x->nr_samps)) {
		x->dropped++;
		return;
	}
	x->samps[x->nr_samps++] = (struct xsamp){ s->time, s->period, node, th, s->ev, s->cpu };
}

static void sink_sample(void *arg, struct rep *r, const struct rep_xsample *xs)
{
	struct export *x = arg;
	const struct hpm_sample *s = xs->s;
	uint32_t node = x_stack(x, r, xs);
	uint32_t th = x_thread(x, r, s->pid, s->tid, xs->comm);

	if (th == UINT32_MAX) {
		x->dropped++;
		return;
	}
	switch (x->fmt) {
	case EXPORT_PPROF:
		pprof_sample(x, r, xs, node, th);
		break;
	case EXPORT_TRACE_EVENT:
		trace_sample(x, r, xs, node, th);
		break;
	case EXPORT_SPEEDSCOPE:
		keep_sample(x, r, s, node, th);
		break;
	}
}

static void sink_lost(void *arg, struct rep *r, const struct hpm_lost_rec *l)
{
	struct export *x = arg;
	if (x->fmt == EXPORT_TRACE_EVENT)
		trace_lost(x, r, l);
}

struct export *export_new(enum export_fmt fmt, struct rep_opts *o, FILE *f)
{
	struct export *x = calloc(1, sizeof(*x));
	if (!x)
		return NULL;
	x->fmt = fmt;
	x->f = f;
	x->by_loc = fmt == EXPORT_PPROF;
	x->h_node = htab__new(2);
	x->h_thread = htab__new(1);
	x->h_agg = htab__new(1 + PPROF_LABELS);
	x->h_cnt = htab__new(3);
	x->h_last = htab__new(2);
	if (!x->h_node || !x->h_thread || !x->h_agg || !x->h_cnt || !x->h_last) {
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

/* What the memory cap changed, on stderr: the totals stay exact. */
static void cap_notes(const struct export *x)
{
	if (!x->cut && !x->capped_samples && !x->merged && !x->uncounted && !x->dropped)
		return;
	fprintf(stderr, "hpmon report: warning: the profile asks for more memory than its size "
		"justifies; in the export:\n");
	if (x->cut)
		fprintf(stderr, "hpmon report:   %llu samples are placed at their callers (their inner "
			"frames left out)\n", (unsigned long long)x->cut);
	if (x->capped_samples)
		fprintf(stderr, "hpmon report:   %llu samples are of a thread \"[memory cap]\" "
			"(pid and tid -1)\n", (unsigned long long)x->capped_samples);
	if (x->merged)
		fprintf(stderr, "hpmon report:   %llu samples are added to their thread's previous "
			"sample\n", (unsigned long long)x->merged);
	if (x->uncounted)
		fprintf(stderr, "hpmon report:   %llu counts are missing from the counter tracks "
			"(their samples are there)\n", (unsigned long long)x->uncounted);
	if (x->dropped)
		fprintf(stderr, "hpmon report:   %llu samples are left out (out of memory)\n",
			(unsigned long long)x->dropped);
}

int export_write(struct export *x, struct rep *r)
{
	cap_notes(x);
	switch (x->fmt) {
	case EXPORT_PPROF:
		return pprof_write(x, r, x->f);
	case EXPORT_TRACE_EVENT:
		return trace_write(x, r);
	case EXPORT_SPEEDSCOPE:
		return speedscope_write(x, r, x->f);
	}
	return -EINVAL;
}

void export_free(struct export *x)
{
	if (!x)
		return;
	if (x->locked)
		funlockfile(x->f);
	free(x->nodes);
	free(x->threads);
	free(x->samps);
	free(x->akeys);
	free(x->avals);
	free(x->bias);
	free(x->bias_set);
	free(x->ckeys);
	free(x->cvals);
	htab__free(x->h_node);
	htab__free(x->h_thread);
	htab__free(x->h_agg);
	htab__free(x->h_cnt);
	htab__free(x->h_last);
	free(x);
}
