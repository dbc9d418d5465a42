/* SPDX-License-Identifier: MIT */
/*
 * hpmon stat: count events for a command, processes, threads or CPUs.
 * Options follow perf stat so that habits and scripts carry over.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/advice.h"
#include "builtin.h"
#include "output/output.h"
#include "output/outname.h"
#include "stat/stat-cmd.h"
#include "stat/stat-mux.h"

/* ---- the command ---- */

/* -o FILE (output.h: 0600, no symlink, replaced only when complete), else
 * standard error, which hpmon.c checks at the end. */
static FILE *open_output(const struct stat_opts *o, struct out_file *of)
{
	if (!o->output)
		return stderr;
	if (out_open(of, "hpmon stat", o->output, o->append ? OUT_APPEND : OUT_REPLACE))
		return NULL;
	FILE *f = out_stream(of);
	/* -I streams: the file is at its name from the first interval on */
	if (f && o->interval_ms && out_publish(of))
		f = NULL;
	if (!f)
		out_abort(of);
	return f;
}

/* "NAME" and the comma-separated @ids (@nr) into @buf, ",..." at the end
 * of what does not fit. */
static void join_ids(char *buf, size_t len, const char *name, const int *ids, size_t nr)
{
	size_t at = (size_t)snprintf(buf, len, "%s ", name);
	for (size_t i = 0; i < nr && at < len; i++) {
		char one[16];
		int n = snprintf(one, sizeof(one), "%s%d", i ? "," : "", ids[i]);
		if (at + (size_t)n + 4 >= len) { /* room for ",..." */
			snprintf(buf + at, len - at, ",...");
			return;
		}
		memcpy(buf + at, one, (size_t)n + 1);
		at += (size_t)n;
	}
}

/* What was counted when it is not the command alone (-p, -t, -a, -C; a
 * command after them only says how long): "process id 12,34", "thread
 * id 5", "system wide", "CPU(s) 0,2". "" for a command. */
static void describe_target(const struct stat_opts *o, char *buf, size_t len)
{
	if (o->tg.system && !o->tg.nr_cpus) {
		snprintf(buf, len, "system wide");
	} else if (o->tg.system) {
		join_ids(buf, len, "CPU(s)", o->tg.cpus, o->tg.nr_cpus);
	} else if (o->tg.nr_ids) {
		int ids[TARGET_MAX_IDS];
		for (size_t i = 0; i < o->tg.nr_ids; i++)
			ids[i] = (int)o->tg.ids[i];
		join_ids(buf, len, o->tg.by_tid ? "thread id" : "process id", ids, o->tg.nr_ids);
	} else {
		buf[0] = '\0';
	}
}

int cmd_stat(int argc, char **argv, struct hpm_ctx *ctx)
{
	struct stat_opts *o = stat_opts_new();
	struct stat_report r = { 0 };
	struct stat_out out = { 0 };
	struct out_file of = { .fd = -1 };
	bool printed = false;
	struct hpm_parse_error perr;
	struct hpm_evlist *list = NULL;
	struct stat_run run = { 0 };
	char target[4096];
	double *sum = NULL, *sumsq = NULL;
	double el_sum = 0, el_sumsq = 0;
	int rc;

	if (!o)
		return HPM_EXIT_FAIL;
	rc = stat_parse_opts(argc, argv, o);
	if (rc) {
		free(o);
		return rc < 0 ? HPM_EXIT_OK : rc;
	}
	if (o->output && outname_expand("hpmon stat", o->output, o->output_name,
					sizeof(o->output_name))) {
		free(o);
		return HPM_EXIT_USAGE;
	}
	o->output = o->output ? o->output_name : NULL;
	if (o->tg.nr_cpus && (rc = stat_check_cpus(ctx, o))) {
		free(o);
		return rc;
	}
	if ((o->topdown || o->detailed) && (rc = stat_extra_events(ctx, o))) {
		free(o);
		return rc;
	}
	bool metrics_asked = o->nr_mgroups || o->nr_minline || o->nr_mfiles;
	if (!o->events_given && !metrics_asked)
		stat_append_events(o, count_args_default_events());
	struct stat_metrics_opts mo = {
		.metrics = { .groups = o->mgroups, .nr_groups = o->nr_mgroups,
			     .inline_defs = o->minline, .nr_inline = o->nr_minline,
			     .files = o->mfiles, .nr_files = o->nr_mfiles,
			     .system_wide = o->tg.system || o->tg.nr_cpus,
			     .cpu_list = o->tg.nr_cpus > 0 },
		.per_second = o->per_second, .per_kinst = o->per_kinst, .topdown = o->topdown,
	};
	rc = stat_metrics_setup(ctx, &mo, &run.sm);
	if (rc) {
		free(o);
		return rc;
	}
	memset(&perr, 0, sizeof(perr));
	if (o->events[0])
		rc = hpm_evlist__parse(ctx, o->events, &list, &perr);
	else if (!(list = hpm_evlist__new(ctx)))
		rc = perr.err = -errno;
	if (rc) {
		/* a usage error, or one of the machine or the user's rights
		 * (tracefs closed to the user: docs/hpmon-stat.md, EXIT STATUS) */
		advice_parse_cmd(stderr, "stat", o->events, &perr);
		rc = advice_parse_status(&perr);
		if (rc == HPM_EXIT_USAGE)
			advice_usage_end("stat");
		stat_metrics_free(run.sm);
		free(o);
		return rc;
	}
	rc = stat_metrics_add_events(run.sm, list);
	if (!rc)
		rc = advice_check_breakpoints(ctx, "stat", list);
	if (!rc && !hpm_evlist__count(list)) {
		fprintf(stderr, "hpmon stat: nothing to count: no metric selected has an event "
				"that resolves here\n");
		stat_metrics_explain(run.sm, stderr);
		rc = advice_usage_end("stat");
	}
	if (rc) {
		hpm_evlist__free(list);
		stat_metrics_free(run.sm);
		free(o);
		return rc;
	}
	out.f = open_output(o, &of);
	if (!out.f) {
		hpm_evlist__free(list);
		free(o);
		return HPM_EXIT_FAIL;
	}
	out.fmt = o->json ? FMT_JSON : o->sep ? FMT_CSV : FMT_HUMAN;
	out.sep = o->sep;
	out.big_num = !o->no_big_num;

	r.nr_ev = hpm_evlist__count(list);
	r.ev = calloc(r.nr_ev, sizeof(*r.ev));
	run.prev = calloc(r.nr_ev, sizeof(*run.prev));
	sum = calloc(r.nr_ev, sizeof(double));
	sumsq = calloc(r.nr_ev, sizeof(double));
	if (!r.ev || !run.prev || !sum || !sumsq) {
		rc = HPM_EXIT_FAIL;
		goto out;
	}
	r.agg = o->agg;
	r.argv = o->argv;
	describe_target(o, target, sizeof(target));
	r.target = target;
	r.runs = o->repeat;
	run.o = o;
	run.ctx = ctx;
	run.list = list;
	run.r = &r;
	run.out = &out;
	rc = stat_user_check(&o->user, ctx, list, o->argv, o->tg.nr_ids > 0, &run.user);
	if (rc)
		goto out;
	install_signals();
	if (o->dry_run) {
		rc = stat_dry_run(&run);
		goto out;
	}

	for (int k = 0; k < o->repeat; k++) {
		for (size_t i = 0; i < r.nr_ev; i++) {
			const struct hpm_event *ev = hpm_evlist__event(list, i);
			const struct perf_event_attr *a = hpm_event__attr(ev);
			snprintf(r.ev[i].name, sizeof(r.ev[i].name), "%s", hpm_event__name(ev));
			r.ev[i].clock = hpm_event__is_clock(ev);
			r.ev[i].type = a->type;
			r.ev[i].config = a->type == PERF_TYPE_HARDWARE || a->type == PERF_TYPE_HW_CACHE
						 ? a->config & 0xffffffffull : a->config;
			r.ev[i].pmu = hpm_event__pmu(ev);
			r.ev[i].merge = o->no_merge ? i : hpm_event__merge_leader(ev);
			r.ev[i].leader = hpm_event__leader(ev);
			r.ev[i].merged = 0;
			r.ev[i].hidden = r.ev[i].merge != i;
			if (r.ev[i].hidden) {
				r.ev[r.ev[i].merge].merged++;
				snprintf(r.ev[r.ev[i].merge].name, sizeof(r.ev[i].name), "%s",
					 hpm_event__merged_name(ev));
			}
			r.ev[i].unit = hpm_event__unit(ev);
			r.ev[i].scale = hpm_event__scale(ev);
			r.ev[i].sign = 1;
		}
		rc = stat_metrics_bind(run.sm, list, &r);
		if (rc)
			goto out;
		if (k == 0)
			stat_print_notes(&out, &r);
		rc = o->tg.system && o->agg != AGG_GLOBAL && o->agg != AGG_CPU
			     ? stat_measure_systasks(&run) : stat_measure(&run);
		stat_user_finished(run.user, ctx, run.s);
		hpm_session__free(run.s);
		run.s = NULL;
		if (rc == HPM_EXIT_FAIL || rc == HPM_EXIT_EXEC) {
			if (k == 0 || rc == HPM_EXIT_EXEC)
				goto out;
		}
		for (size_t i = 0; i < r.nr_ev; i++) {
			const struct hpm_count *c = r.ev[i].merged ? &r.ev[i].mc : &r.ev[i].c;
			double v = hpm_count__scaled(c) * r.ev[i].scale;
			sum[i] += v;
			sumsq[i] += v * v;
		}
		el_sum += (double)r.elapsed_ns;
		el_sumsq += (double)r.elapsed_ns * (double)r.elapsed_ns;
		if (got_signal)
			break;
	}
	if (o->repeat > 1) {
		/* perf's figure: the relative standard error of the mean */
		double n = o->repeat;
		for (size_t i = 0; i < r.nr_ev; i++) {
			double mean = sum[i] / n;
			double var = n > 1 ? (sumsq[i] - n * mean * mean) / (n - 1) : 0;
			r.ev[i].mean = mean;
			r.ev[i].rsd_pct = mean > 0 && var > 0 ? 100.0 * sqrt(var / n) / mean : 0;
			/* the uncertainty of the mean: its standard error, in counts */
			r.ev[i].sigma = var > 0 ? sqrt(var / n) / r.ev[i].scale : 0;
			/* report the mean as the count, keeping the last run's times */
			struct hpm_count *c = r.ev[i].merged ? &r.ev[i].mc : &r.ev[i].c;
			if (!c->err && c->running) {
				/* mean >= 0: rounded half up as llround would,
				 * without libm (one object less to load) */
				c->value = (uint64_t)(mean / r.ev[i].scale + 0.5);
				c->enabled = c->running;
			}
			if (r.ev[i].merged)
				r.ev[i].msigma = r.ev[i].sigma;
		}
		double mean = el_sum / n;
		double var = (el_sumsq - n * mean * mean) / (n - 1);
		r.elapsed_ns = (uint64_t)mean;
		r.elapsed_rsd_pct = mean > 0 && var > 0 ? 100.0 * sqrt(var / n) / mean : 0;
	}
	/* -I prints intervals only, as perf does; JSON closes with the totals
	 * and the exit status in one more object (without interval_ns) */
	if (!o->interval_ms || out.fmt == FMT_JSON) {
		stat_prepare(&run);
		stat_print(&out, &r);
	}
	stat_user_print(run.user, &out);
	printed = true;
	if (got_signal && got_signal != SIGINT && !o->argv)
		rc = 128 + got_signal;
out:
	stat_user_free(run.user);
	stat_free_rows(&r);
	free(run.comms);
	free(run.tgids);
	for (size_t k = 0; k < run.nr_prev_rows; k++)
		free(run.prev_rows[k]);
	free(run.prev_rows);
	free(r.ev);
	free(r.cov);
	free(r.metrics);
	hpm_slices__free(run.slices);
	stat_mux__free(run.mux);
	stat_metrics_free(run.sm);
	free(run.prev);
	free(sum);
	free(sumsq);
	hpm_evlist__free(list);
	if (out.f && out.f != stderr) {
		/* counts that could not all be written are a failure (exit 1),
		 * unless the command's own status already says one; a run that
		 * printed nothing leaves the old file as it was */
		if (!printed)
			out_abort(&of);
		else if (out_commit(&of, false) && !rc)
			rc = HPM_EXIT_FAIL;
	}
	free(o);
	return rc;
}
