/* SPDX-License-Identifier: MIT */
/* Printing a loaded profile (report-view.h): text, CSV, JSON, folded stacks.
 * Every name from the profile goes through escape.h in text, CSV and folded
 * output; JSON escapes by its own rules. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <hpmon/metric.h>

#include "output/escape.h"
#include "output/json.h"
#include "report/report-view.h"

static double pct(double part, double total)
{
	return total > 0 ? 100.0 * part / total : 0.0;
}

/* Group members whose ratio to their leader is shown (CPI and the like). */
static bool is_member(const struct rep *r, uint32_t e)
{
	const struct hpm_profile_event *ev = &r->meta.events[e];
	return r->have_groups && ev->leader != e && ev->leader < r->nr_ev;
}

static void ratio_name(const struct rep *r, uint32_t e, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", r->meta.events[r->meta.events[e].leader].name,
		 r->meta.events[e].name);
}

static double row_ratio(const struct rep_row *row, const struct rep *r, uint32_t e)
{
	double m = row->delta[e], l = row->delta[r->meta.events[e].leader];
	return m > 0 ? l / m : 0.0;
}

/* The selected metrics' values for @row into @v (rep_metrics_count of
 * them); NULL when no metric is selected (@v NULL). */
static struct hpm_value *row_metrics(const struct rep *r, const struct rep_row *row,
				     struct hpm_value *v)
{
	if (!v)
		return NULL;
	rep_metrics_eval(r, row, v);
	return v;
}

static int metric_width(const struct rep *r, size_t i)
{
	int n = (int)strlen(esc_text(rep_metrics_name(r->metrics, i)));
	return n > 10 ? n : 10;
}

/* Samples lost while recording, as a share of all taken (perf's "lost
 * N %"): the written ones are the end record's count. */
static double lost_share(const struct rep *r)
{
	double taken = (double)r->lost_samples + (double)r->st.totals.samples;
	return taken > 0 ? 100.0 * (double)r->lost_samples / taken : 0.0;
}

static void print_lost(FILE *f, const struct rep *r, const char *prefix)
{
	if (r->lost_samples)
		fprintf(f, "%s warning: %" PRIu64 " samples lost while recording, %.1f %% of %" PRIu64
			" taken (the ring buffers were full)\n", prefix, r->lost_samples, lost_share(r),
			r->lost_samples + r->st.totals.samples);
	else if (r->lost)
		fprintf(f, "%s warning: the kernel dropped %" PRIu64 " records while recording "
			"(ring buffers full)\n", prefix, r->lost);
}

/* "# rank 3 of 4, job 1234"; a merge: "# merged: 4 ranks of 4 on 2 hosts, job 1234" */
static void print_job(FILE *f, const struct rep *r, const char *prefix)
{
	const struct hpm_profile_meta *m = &r->meta;

	fprintf(f, "%s", prefix);
	if (m->merged) {
		size_t hosts = 0;
		for (size_t i = 0; i < r->nr_ranks; i++) { /* ranks are few: quadratic is fine */
			size_t k = 0;
			while (k < i && r->ranks[k].host != r->ranks[i].host)
				k++;
			hosts += k == i;
		}
		fprintf(f, " merged: %zu rank%s", r->nr_ranks, r->nr_ranks == 1 ? "" : "s");
		if (m->job_size)
			fprintf(f, " of %" PRIu32, m->job_size);
		fprintf(f, " on %zu host%s%s", hosts, hosts == 1 ? "" : "s",
			m->job && m->job[0] ? "," : "");
	}
	if (m->has_rank)
		fprintf(f, " rank %" PRIu32, m->rank);
	if (m->has_rank && m->job_size)
		fprintf(f, " of %" PRIu32, m->job_size);
	if (m->job && m->job[0])
		fprintf(f, "%s job %s", m->has_rank ? "," : "", esc_text(m->job));
	fputc('\n', f);
}

static void print_header(FILE *f, const struct rep *r, const char *prefix)
{
	fprintf(f, "%s profile of: %s\n", prefix, esc_text(r->meta.command));
	fprintf(f, "%s host %s (%s, %s), kernel %s\n", prefix, esc_text(r->meta.host),
		esc_text(r->meta.arch),
		r->meta.cpu_model[0] ? esc_text(r->meta.cpu_model) : "CPU model unknown",
		esc_text(r->meta.kernel));
	if (r->meta.has_rank || r->meta.merged || (r->meta.job && r->meta.job[0]))
		print_job(f, r, prefix); /* under mpirun, srun */
	for (uint32_t i = 0; i < r->nr_ev; i++) {
		const struct hpm_profile_event *e = &r->meta.events[i];
		if (e->trigger)
			fprintf(f, "%s event %s: %" PRIu64 " samples, %s %" PRIu64 "%s, total %.0f\n",
				prefix, esc_text(e->name), r->ev_samples[i], e->freq ? "frequency" : "period",
				e->period, e->freq ? " Hz" : "", r->ev_period[i]);
		else
			fprintf(f, "%s event %s: read at each sample of %s\n", prefix, esc_text(e->name),
				esc_text(r->meta.events[e->leader].name));
	}
	print_lost(f, r, prefix);
}

/* The notes; @lost: with the lost-sample line (the text report has it in
 * its header). */
static void print_notes(FILE *f, const struct rep *r, const char *prefix, bool lost)
{
	if (!r->st.complete)
		fprintf(f, "%s warning: the profile is incomplete: %s; what comes before "
			"(%" PRIu64 " chunks, %" PRIu64 " of %" PRIu64 " bytes) is reported\n",
			prefix, esc_text(r->st.what), r->st.chunks, r->st.good_bytes, r->st.file_bytes);
	if (lost)
		print_lost(f, r, prefix);
	if (r->throttled)
		fprintf(f, "%s warning: the kernel throttled sampling %" PRIu64 " times: intervals "
			"are missing\n", prefix, r->throttled);
	if (r->filtered)
		fprintf(f, "%s %" PRIu64 " samples left out by the filters\n", prefix, r->filtered);
	/* objects whose samples have no symbol */
	bool any = false;
	for (size_t i = 0; i < r->nr_dsos; i++) {
		const struct rep_dso *d = &r->dsos[i];
		if (!d->nosym)
			continue;
		if (!any)
			fprintf(f, "%s samples without symbols (shown as object+offset):\n", prefix);
		any = true;
		const char *why = "no symbol covers the addresses";
		if (d->kind == DK_UNKNOWN)
			why = "no mapping covers the addresses";
		else if (d->kind == DK_KERNEL)
			why = r->kallsyms ? "not in kallsyms" : "kallsyms unreadable (kptr_restrict?)";
		else if (d->kind == DK_ANON)
			why = d->jit ? "not in the JIT map" : "anonymous memory, no /tmp/perf-PID.map";
		else if (d->kind == DK_VDSO)
			why = "the vdso is not symbolised";
		else if (!d->d && !d->cache)
			why = "the file cannot be read";
		else if (d->d && hpm_dso__build_id_mismatch(d->d))
			why = "the file was rebuilt since (build-id differs) and no debug file has the old one";
		else if (!rep_dso_has_symbols(d))
			why = "the file has no symbol table (stripped) and no debug file was found";
		fprintf(f, "%s   %-30s %8" PRIu64 " of %" PRIu64 " samples: %s\n", prefix, esc_text(d->path),
			d->nosym, d->samples, why);
	}
}

void rep_print_notes(FILE *f, const struct rep *r, const char *prefix)
{
	print_notes(f, r, prefix, true);
}

static void print_text(FILE *f, struct rep *r, double min_pct)
{
	const struct rep_opts *o = &r->o;
	char buf[512];
	double cum = 0, total = r->ev_period[r->main_ev];

	size_t nm = rep_metrics_count(r->metrics);
	struct hpm_value *mv = nm ? calloc(nm, sizeof(*mv)) : NULL;

	print_header(f, r, "#");
	for (size_t m = 0; m < nm; m++) {
		const char *unit = rep_metrics_unit(r->metrics, m);
		fprintf(f, "# metric %s = %s%s%s%s\n", esc_text(rep_metrics_name(r->metrics, m)),
			esc_text(rep_metrics_formula(r->metrics, m)), unit[0] ? " (" : "", esc_text(unit),
			unit[0] ? ")" : "");
	}
	fprintf(f, "#\n#");
	for (uint32_t e = 0; e < r->nr_ev; e++)
		if (r->meta.events[e].trigger)
			fprintf(f, " %10s %7s", r->nr_ev > 1 ? esc_text(r->meta.events[e].name) : "samples",
				"percent");
	fprintf(f, " %7s", "cum%");
	for (uint32_t e = 0; e < r->nr_ev; e++)
		if (is_member(r, e)) {
			ratio_name(r, e, buf, sizeof(buf));
			fprintf(f, " %12s", esc_text(buf));
		}
	for (size_t m = 0; m < nm; m++)
		fprintf(f, " %*s", metric_width(r, m), esc_text(rep_metrics_name(r->metrics, m)));
	for (size_t i = 0; i < o->nr_keys; i++)
		fprintf(f, "  %s", o->keys[i] == SK_SYM ? "symbol" : rep_key_names[o->keys[i]]);
	fprintf(f, "\n");
	for (size_t i = 0; i < r->nr_rows; i++) {
		const struct rep_row *row = &r->rows[i];
		double p = pct(row->period[r->main_ev], total);
		cum += p;
		if (p < min_pct && row->period[r->main_ev] > 0)
			continue;
		fprintf(f, " ");
		for (uint32_t e = 0; e < r->nr_ev; e++)
			if (r->meta.events[e].trigger)
				fprintf(f, " %10" PRIu64 " %6.2f%%", row->samples[e],
					pct(row->period[e], r->ev_period[e]));
		fprintf(f, " %6.2f%%", cum);
		for (uint32_t e = 0; e < r->nr_ev; e++)
			if (is_member(r, e) && row->delta[e] > 0)
				fprintf(f, " %12.3f", row_ratio(row, r, e));
			else if (is_member(r, e))
				fprintf(f, " %12s", "-");
		const struct hpm_value *v = row_metrics(r, row, mv);
		for (size_t m = 0; v && m < nm; m++)
			if (v[m].na)
				fprintf(f, " %*s", metric_width(r, m), "n/a");
			else
				fprintf(f, " %*.3f", metric_width(r, m), v[m].value);
		for (size_t k = 0; k < o->nr_keys; k++)
			fprintf(f, "  %s", esc_text(rep_key_text(r, row, o->keys[k], buf, sizeof(buf))));
		fprintf(f, "\n");
	}
	free(mv);
}

static int cmp_incl(const void *a, const void *b, void *arg)
{
	const struct rep *r = arg;
	const uint32_t *x = a, *y = b;
	double u = r->syms[*x].incl, v = r->syms[*y].incl;
	if (u != v)
		return u > v ? -1 : 1;
	/* equal shares by name, as each one's callers and callees */
	const char *nu = r->syms[*x].name, *nv = r->syms[*y].name;
	int c = strcmp(nu ? nu : "", nv ? nv : "");
	return c ? c : (*x > *y) - (*x < *y);
}

/* Each symbol's edges as its caller (or its callee), by share: the edges
 * of symbol i are e[start[i]] .. e[start[i + 1] - 1], the largest period
 * first, equal ones by the name at the edge's other end (then by index),
 * so that the main callers and callees come first, in the same order in
 * every run. Looking them up per symbol made the call graph's printing
 * quadratic (80 % of report -g on a compiler's profile). */
struct edge_index {
	uint32_t *start, *e;
};

struct edge_order {
	const struct rep *r;
	bool by_caller;       /* the edges of a caller: ordered by callee */
};

static int cmp_edge(const void *a, const void *b, void *arg)
{
	const struct edge_order *o = arg;
	const struct rep_edge *x = &o->r->edges[*(const uint32_t *)a];
	const struct rep_edge *y = &o->r->edges[*(const uint32_t *)b];
	if (x->period != y->period)
		return x->period > y->period ? -1 : 1;
	uint32_t u = o->by_caller ? x->callee : x->caller, v = o->by_caller ? y->callee : y->caller;
	const char *nu = o->r->syms[u].name, *nv = o->r->syms[v].name;
	int c = strcmp(nu ? nu : "", nv ? nv : "");
	return c ? c : (u > v) - (u < v);
}

static int edge_index(const struct rep *r, bool by_caller, struct edge_index *x)
{
	x->start = calloc(r->nr_syms + 1, sizeof(*x->start));
	x->e = malloc(r->nr_edges * sizeof(*x->e) + 1);
	if (!x->start || !x->e) {
		free(x->start);
		free(x->e);
		return -1;
	}
	for (size_t e = 0; e < r->nr_edges; e++)
		x->start[(by_caller ? r->edges[e].caller : r->edges[e].callee) + 1]++;
	for (size_t i = 0; i < r->nr_syms; i++)
		x->start[i + 1] += x->start[i];
	/* each edge at its symbol's next free place, which moves start[i]
	 * to where i + 1 begins; then back one place */
	for (size_t e = 0; e < r->nr_edges; e++)
		x->e[x->start[by_caller ? r->edges[e].caller : r->edges[e].callee]++] = (uint32_t)e;
	for (size_t i = r->nr_syms; i > 0; i--)
		x->start[i] = x->start[i - 1];
	x->start[0] = 0;
	struct edge_order o = { r, by_caller };
	for (size_t i = 0; i < r->nr_syms; i++)
		if (x->start[i + 1] - x->start[i] > 1)
			qsort_r(x->e + x->start[i], x->start[i + 1] - x->start[i], sizeof(*x->e),
				cmp_edge, &o);
	return 0;
}

static void edge_index_free(struct edge_index *x)
{
	free(x->start);
	free(x->e);
}

static void print_callgraph(FILE *f, struct rep *r, double min_pct)
{
	double total = r->ev_period[r->main_ev];
	uint32_t *order = malloc(r->nr_syms * sizeof(*order) + 1);
	struct edge_index in, out;
	if (!order || edge_index(r, false, &in)) {
		free(order);
		return;
	}
	if (edge_index(r, true, &out)) {
		edge_index_free(&in);
		free(order);
		return;
	}
	size_t n = 0;
	for (uint32_t i = 0; i < r->nr_syms; i++)
		if (r->syms[i].incl > 0)
			order[n++] = i;
	qsort_r(order, n, sizeof(*order), cmp_incl, r);
	fprintf(f, "\n# call graph of %s: inclusive and self percent, callers (<-) and callees (->)\n",
		esc_text(r->meta.events[r->main_ev].name));
	fprintf(f, "# %9s %8s  %s\n", "inclusive", "self", "symbol");
	for (size_t i = 0; i < n; i++) {
		const struct rep_sym *s = &r->syms[order[i]];
		if (pct(s->incl, total) < min_pct)
			continue;
		/* an object in brackets; [kernel.kallsyms] and [vdso] have theirs */
		const char *base = r->dsos[s->dso].base;
		bool bracketed = base[0] == '[' && base[strlen(base) - 1] == ']';
		fprintf(f, "  %8.2f%% %7.2f%%  %s  %s%s%s\n", pct(s->incl, total),
			pct(s->self, total), esc_text(s->name), bracketed ? "" : "[",
			esc_text(base), bracketed ? "" : "]");
		for (uint32_t k = in.start[order[i]]; k < in.start[order[i] + 1]; k++) {
			const struct rep_edge *e = &r->edges[in.e[k]];
			if (e->caller != order[i])
				fprintf(f, "  %19s <- %6.2f%%  %s\n", "", pct(e->period, total),
					esc_text(r->syms[e->caller].name));
		}
		for (uint32_t k = out.start[order[i]]; k < out.start[order[i] + 1]; k++) {
			const struct rep_edge *e = &r->edges[out.e[k]];
			if (e->callee != order[i])
				fprintf(f, "  %19s -> %6.2f%%  %s\n", "", pct(e->period, total),
					esc_text(r->syms[e->callee].name));
		}
	}
	edge_index_free(&in);
	edge_index_free(&out);
	free(order);
}

static void csv_field(FILE *f, const char *s)
{
	fputs(esc_csv(s, ","), f);
}

static void print_csv(FILE *f, struct rep *r)
{
	const struct rep_opts *o = &r->o;
	char buf[512];
	for (uint32_t e = 0; e < r->nr_ev; e++)
		if (r->meta.events[e].trigger) {
			const char *n = r->meta.events[e].name;
			char col[3][512];
			snprintf(col[0], sizeof(col[0]), "%s_samples", n);
			snprintf(col[1], sizeof(col[1]), "%s_period", n);
			snprintf(col[2], sizeof(col[2]), "%s_percent", n);
			for (int c = 0; c < 3; c++) {
				csv_field(f, col[c]);
				fputc(',', f);
			}
		}
	for (uint32_t e = 0; e < r->nr_ev; e++)
		if (is_member(r, e)) {
			ratio_name(r, e, buf, sizeof(buf));
			csv_field(f, buf);
			fputc(',', f);
		}
	size_t nm = rep_metrics_count(r->metrics);
	struct hpm_value *mv = nm ? calloc(nm, sizeof(*mv)) : NULL;
	for (size_t m = 0; m < nm; m++) {
		csv_field(f, rep_metrics_name(r->metrics, m));
		fputc(',', f);
	}
	for (size_t k = 0; k < o->nr_keys; k++)
		fprintf(f, "%s%s", rep_key_names[o->keys[k]], k + 1 < o->nr_keys ? "," : "\n");
	for (size_t i = 0; i < r->nr_rows; i++) {
		const struct rep_row *row = &r->rows[i];
		for (uint32_t e = 0; e < r->nr_ev; e++)
			if (r->meta.events[e].trigger)
				fprintf(f, "%" PRIu64 ",%.0f,%.4f,", row->samples[e], row->period[e],
					pct(row->period[e], r->ev_period[e]));
		for (uint32_t e = 0; e < r->nr_ev; e++)
			if (is_member(r, e))
				fprintf(f, "%.6f,", row_ratio(row, r, e));
		const struct hpm_value *v = row_metrics(r, row, mv);
		for (size_t m = 0; v && m < nm; m++)
			if (v[m].na)
				fputc(',', f);
			else
				fprintf(f, "%.6f,", v[m].value);
		for (size_t k = 0; k < o->nr_keys; k++) {
			csv_field(f, rep_key_text(r, row, o->keys[k], buf, sizeof(buf)));
			fputc(k + 1 < o->nr_keys ? ',' : '\n', f);
		}
	}
	free(mv);
}

static void print_json(FILE *f, struct rep *r, bool callgraph)
{
	const struct rep_opts *o = &r->o;
	struct json j;
	char buf[512];

	json_init(&j, f, false);
	json_obj_open(&j, NULL);
	json_str(&j, "command", r->meta.command);
	json_str(&j, "host", r->meta.host);
	json_str(&j, "arch", r->meta.arch);
	json_str(&j, "cpu_model", r->meta.cpu_model);
	if (r->meta.has_rank)
		json_u64(&j, "rank", r->meta.rank);
	if (r->meta.job_size)
		json_u64(&j, "size", r->meta.job_size);
	if (r->meta.job && r->meta.job[0])
		json_str(&j, "job", r->meta.job);
	if (r->meta.merged) { /* hpmon merge's: its ranks, as first met */
		json_arr_open(&j, "ranks");
		for (size_t i = 0; i < r->nr_ranks; i++) {
			json_obj_open(&j, NULL);
			json_u64(&j, "rank", r->ranks[i].rank);
			json_str(&j, "host", rep_str(r, r->ranks[i].host));
			json_obj_close(&j);
		}
		json_arr_close(&j);
	}
	json_bool(&j, "complete", r->st.complete);
	if (!r->st.complete)
		json_str(&j, "incomplete", r->st.what);
	json_u64(&j, "lost", r->lost);
	json_u64(&j, "lost_samples", r->lost_samples);
	json_dbl(&j, "lost_samples_percent", lost_share(r));
	json_u64(&j, "throttled", r->throttled);
	json_arr_open(&j, "events");
	for (uint32_t e = 0; e < r->nr_ev; e++) {
		json_obj_open(&j, NULL);
		json_str(&j, "name", r->meta.events[e].name);
		json_bool(&j, "trigger", r->meta.events[e].trigger);
		json_u64(&j, "samples", r->ev_samples[e]);
		json_dbl(&j, "period", r->ev_period[e]);
		json_obj_close(&j);
	}
	json_arr_close(&j);
	size_t nm = rep_metrics_count(r->metrics);
	struct hpm_value *mv = nm ? calloc(nm, sizeof(*mv)) : NULL;
	if (nm) {
		json_arr_open(&j, "metrics");
		for (size_t m = 0; m < nm; m++) {
			json_obj_open(&j, NULL);
			json_str(&j, "name", rep_metrics_name(r->metrics, m));
			json_str(&j, "formula", rep_metrics_formula(r->metrics, m));
			json_str(&j, "unit", rep_metrics_unit(r->metrics, m));
			json_obj_close(&j);
		}
		json_arr_close(&j);
	}
	json_arr_open(&j, "rows");
	for (size_t i = 0; i < r->nr_rows; i++) {
		const struct rep_row *row = &r->rows[i];
		json_obj_open(&j, NULL);
		for (size_t k = 0; k < o->nr_keys; k++) {
			enum sort_key key = o->keys[k];
			uint64_t v = rep_key_value(r, row, key);
			if (key == SK_RANK && v == REP_NO_RANK)
				json_null(&j, rep_key_names[key]);
			else if (key == SK_PID || key == SK_TID || key == SK_CPU || key == SK_RANK)
				json_u64(&j, rep_key_names[key], v);
			else
				json_str(&j, rep_key_names[key], rep_key_text(r, row, key, buf, sizeof(buf)));
		}
		json_arr_open(&j, "events");
		for (uint32_t e = 0; e < r->nr_ev; e++) {
			json_obj_open(&j, NULL);
			json_str(&j, "name", r->meta.events[e].name);
			if (r->meta.events[e].trigger) {
				json_u64(&j, "samples", row->samples[e]);
				json_dbl(&j, "period", row->period[e]);
				json_dbl(&j, "percent", pct(row->period[e], r->ev_period[e]));
			}
			if (r->have_groups)
				json_dbl(&j, "count", row->delta[e]);
			if (is_member(r, e)) {
				ratio_name(r, e, buf, sizeof(buf));
				json_str(&j, "ratio_name", buf);
				json_dbl(&j, "ratio", row_ratio(row, r, e));
			}
			json_obj_close(&j);
		}
		json_arr_close(&j);
		const struct hpm_value *v = row_metrics(r, row, mv);
		if (v) {
			json_arr_open(&j, "metrics");
			for (size_t m = 0; m < nm; m++) {
				json_obj_open(&j, NULL);
				json_str(&j, "name", rep_metrics_name(r->metrics, m));
				if (v[m].na) {
					json_null(&j, "value");
					json_str(&j, "reason", v[m].reason);
				} else {
					json_dbl(&j, "value", v[m].value);
				}
				json_obj_close(&j);
			}
			json_arr_close(&j);
		}
		json_obj_close(&j);
	}
	json_arr_close(&j);
	free(mv);
	struct edge_index out;
	if (callgraph && !edge_index(r, true, &out)) {
		double total = r->ev_period[r->main_ev];
		json_arr_open(&j, "callgraph");
		for (size_t i = 0; i < r->nr_syms; i++) {
			const struct rep_sym *s = &r->syms[i];
			if (s->incl <= 0)
				continue;
			json_obj_open(&j, NULL);
			json_str(&j, "sym", s->name);
			json_str(&j, "dso", r->dsos[s->dso].base);
			json_dbl(&j, "inclusive", pct(s->incl, total));
			json_dbl(&j, "self", pct(s->self, total));
			json_arr_open(&j, "callees");
			for (uint32_t k = out.start[i]; k < out.start[i + 1]; k++) {
				const struct rep_edge *e = &r->edges[out.e[k]];
				json_obj_open(&j, NULL);
				json_str(&j, "sym", r->syms[e->callee].name);
				json_dbl(&j, "percent", pct(e->period, total));
				json_obj_close(&j);
			}
			json_arr_close(&j);
			json_obj_close(&j);
		}
		json_arr_close(&j);
		edge_index_free(&out);
	}
	json_arr_open(&j, "unresolved");
	for (size_t i = 0; i < r->nr_dsos; i++)
		if (r->dsos[i].nosym) {
			json_obj_open(&j, NULL);
			json_str(&j, "dso", r->dsos[i].path);
			json_u64(&j, "samples", r->dsos[i].nosym);
			json_obj_close(&j);
		}
	json_arr_close(&j);
	json_obj_close(&j);
	json_end(&j);
}

/* Brendan Gregg's folded format: "comm;root;...;leaf count". */
static void print_folded(FILE *f, struct rep *r)
{
	for (size_t i = 0; i < r->nr_stacks; i++) {
		const struct rep_stack *s = &r->stacks[i];
		fputs(esc_text(rep_str(r, s->comm)), f);
		for (uint32_t k = 0; k < s->nr; k++)
			fprintf(f, ";%s", esc_text(r->syms[s->syms[k]].name));
		fprintf(f, " %" PRIu64 "\n", s->samples);
	}
}

void rep_print(FILE *f, struct rep *r, enum rep_fmt fmt, bool callgraph, double min_pct)
{
	switch (fmt) {
	case REP_TEXT:
		print_text(f, r, min_pct);
		if (callgraph)
			print_callgraph(f, r, min_pct);
		fprintf(f, "#\n");
		print_notes(f, r, "#", false);
		break;
	case REP_CSV:
		print_csv(f, r);
		rep_print_notes(stderr, r, "hpmon report:");
		break;
	case REP_JSON:
		print_json(f, r, callgraph);
		break;
	case REP_FOLDED:
		print_folded(f, r);
		rep_print_notes(stderr, r, "hpmon report:");
		break;
	}
}
