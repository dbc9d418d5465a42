/* SPDX-License-Identifier: MIT */
/*
 * hpmon stat: location events, software counters, marks and regions
 * (stat-user.h says where the stat command calls in). The library does the
 * work (lib/location/location.c, lib/count/markers.c); this file decides what a run
 * needs, hands the program hpmon's markers area through the environment
 * and prints what the program published.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hpmon/counters.h>
#include <hpmon/session.h>
#include "output/exit.h"
#include "output/escape.h"
#include "output/advice.h"
#include "output/json.h"
#include "launch/launch.h"
#include "stat/stat-user.h"
#include "stat/stat.h"

struct stat_user {
	bool regions, marked;
	const char *enable, *disable;  /* comma-separated counter names */
	bool want_area;                /* the run needs the markers area */
	bool locations;                /* the list has exec: events */
	bool launched;
	bool bp_noted;                 /* advice_bp_silent said it */
	const struct hpm_evlist *list;
	struct hpm_markers *m;
	/* from the last run's session (stat_user_finished) */
	char **how;                    /* [nr events]: how a location counted */
	struct { int tid; char label[40]; } *names;
	size_t nr_names;
};

void stat_user_free(struct stat_user *u)
{
	if (!u)
		return;
	hpm_markers__free(u->m);
	for (size_t i = 0; u->how && i < hpm_evlist__count(u->list); i++)
		free(u->how[i]);
	free(u->how);
	free(u->names);
	free(u);
}

int stat_user_option(struct stat_user_opts *uo, int opt, const char *arg)
{
	switch (opt) {
	case OPT_USER_REGIONS: uo->regions = true; return 0;
	case OPT_USER_MARKED: uo->marked = true; return 0;
	case OPT_USER_ENABLE: uo->enable = arg; return 0;
	case OPT_USER_DISABLE: uo->disable = arg; return 0;
	}
	return HPM_EXIT_USAGE;
}

static bool valid_names(const char *list)
{
	for (const char *p = list; *p; p++)
		if (!(*p == ',' || *p == '_' || (*p >= '0' && *p <= '9') ||
		      (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
			return false;
	return list[0] != '\0';
}

int stat_user_check(const struct stat_user_opts *uo, struct hpm_ctx *ctx,
		    struct hpm_evlist *list, char *const *argv, bool attach,
		    struct stat_user **out)
{
	struct stat_user *u;
	bool sw = false, locations = false;
	(void)ctx;

	*out = NULL;
	for (size_t i = 0; i < hpm_evlist__count(list); i++) {
		enum hpm_event_kind k = hpm_event__kind(hpm_evlist__event(list, i));
		sw |= k == HPM_EV_SWCOUNTER;
		locations |= k == HPM_EV_LOCATION;
	}
	bool want_area = sw || uo->regions || uo->marked || uo->enable || uo->disable;
	bool launched = argv && !attach;
	if (want_area && !launched) {
		return advice_usage("stat", "software counters, --regions, --marked, --enable and "
					    "--disable need a COMMAND that hpmon starts: the program "
					    "finds hpmon through its environment");
	}
	for (int k = 0; k < 2; k++) {
		const char *names = k ? uo->disable : uo->enable;
		if (names && !valid_names(names))
			return advice_usage("stat", "--%s takes software counter names separated "
						    "by commas (as in HPM_COUNT(NAME)), not '%s'",
					    k ? "disable" : "enable", names);
	}
	if (locations && launched) {
		/* -p and -a resolve when they open */
		char prog[4096];
		struct hpm_parse_error e;
		if (find_program(argv[0], prog, sizeof(prog)) &&
		    hpm_evlist__check_locations(list, prog, getenv("LD_LIBRARY_PATH"), &e)) {
			fprintf(stderr, "hpmon stat: %s\n", e.msg);
			int rc = advice_location_status(e.err);
			return rc == HPM_EXIT_USAGE ? advice_usage_end("stat") : rc;
		}
	}
	u = calloc(1, sizeof(*u));
	if (!u) {
		fprintf(stderr, "hpmon stat: out of memory\n");
		return HPM_EXIT_FAIL;
	}
	u->regions = uo->regions;
	u->marked = uo->marked;
	u->enable = uo->enable;
	u->disable = uo->disable;
	u->want_area = want_area;
	u->locations = locations;
	u->launched = launched;
	u->list = list;
	*out = u;
	return 0;
}

/* Set each counter of the comma-separated @names to @on. */
static int mask_names(struct hpm_markers *m, const char *names, bool on)
{
	char buf[64];
	while (names && *names) {
		size_t n = strcspn(names, ",");
		if (n && n < sizeof(buf)) {
			memcpy(buf, names, n);
			buf[n] = '\0';
			int rc = hpm_markers__mask(m, buf, on);
			if (rc) {
				fprintf(stderr, "hpmon stat: cannot %s counter '%s': %s\n",
					on ? "enable" : "disable", buf, hpm_strerror(rc));
				return rc;
			}
		}
		names += n + (names[n] == ',');
	}
	return 0;
}

int stat_user_before_start(struct stat_user *u)
{
	char env[64];

	if (!u || !u->want_area)
		return 0;
	/* every run (-r) starts from an empty area */
	hpm_markers__free(u->m);
	struct hpm_markers_opts o = { .sz = sizeof(o), .regions = u->regions,
				      .marked = u->marked };
	u->m = hpm_markers__new(&o);
	if (!u->m) {
		fprintf(stderr, "hpmon stat: cannot create the markers area: %s\n",
			strerror(errno));
		return HPM_EXIT_FAIL;
	}
	if (hpm_markers__set_events(u->m, u->list) == -E2BIG && (u->regions || u->marked))
		fprintf(stderr, "hpmon stat: the program counts only the first %d events itself "
			"(regions, --marked); the others are not counted there\n",
			HPM_MARKERS_MAX_EVENTS);
	if (u->enable && (hpm_markers__mask(u->m, NULL, false) || mask_names(u->m, u->enable, true)))
		return HPM_EXIT_FAIL;
	if (u->disable && mask_names(u->m, u->disable, false))
		return HPM_EXIT_FAIL;
	hpm_markers__env(u->m, env, sizeof(env));
	char *eq = strchr(env, '=');
	*eq = '\0';
	setenv(env, eq + 1, 1); /* the command inherits it, and the area's fd */
	return 0;
}

void stat_user_session_opts(struct stat_user *u, struct hpm_session_opts *so, bool launched)
{
	if (!u)
		return;
	so->markers = u->m;
	so->marked = u->marked && u->m;
	so->stop_at_exec = launched && u->locations;
	so->lib_path = getenv("LD_LIBRARY_PATH");
	/* thread names for the regions table */
	if (launched && u->regions)
		so->track_tasks = true;
}

void stat_user_started(struct stat_user *u, struct hpm_session *s)
{
	if (u && u->locations && u->launched)
		hpm_session__complete_exec(s);
}

bool stat_user_reason(struct hpm_session *s, size_t idx, char *buf, size_t len)
{
	const char *m = hpm_session__event_message(s, idx);
	if (!m)
		return false;
	snprintf(buf, len, "%s", m);
	return true;
}

/* ---- printing ---- */

void stat_user_finished(struct stat_user *u, struct hpm_ctx *ctx, struct hpm_session *s)
{
	if (!u || !s)
		return;
	size_t n = u->list ? hpm_evlist__count(u->list) : 0;

	for (size_t i = 0; u->how && i < n; i++)
		free(u->how[i]);
	free(u->how);
	u->how = calloc(n ? n : 1, sizeof(*u->how));
	for (size_t i = 0; u->how && i < n; i++) {
		const char *how = hpm_session__event_how(s, i);
		u->how[i] = how ? strdup(how) : NULL;
	}
	if (!u->bp_noted && u->how)
		u->bp_noted = advice_bp_silent(ctx, "stat", u->list, (const char *const *)u->how);
	free(u->names);
	u->nr_names = 0;
	u->names = calloc(hpm_session__nr_tasks(s) + 1, sizeof(*u->names));
	for (size_t k = 0; u->names && k < hpm_session__nr_tasks(s); k++) {
		const struct hpm_task *task = hpm_session__task(s, k);
		u->names[u->nr_names].tid = task->tid;
		snprintf(u->names[u->nr_names++].label, sizeof(u->names[0].label), "%s-%d",
			 task->comm, (int)task->tid);
	}
}

/* "comm-tid" from the session's tasks, else the tid. */
static void thread_label(const struct stat_user *u, const struct hpm_markers_thread *t,
			 char *buf, size_t len)
{
	for (size_t k = 0; k < u->nr_names; k++)
		if (u->names[k].tid == t->tid) {
			snprintf(buf, len, "%s", u->names[k].label);
			return;
		}
	snprintf(buf, len, "%d", (int)t->tid);
}

static const char *flag_words(unsigned f, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	if (f & HPM_REGION_UNMATCHED)
		n += (size_t)snprintf(buf + n, len - n, " unmatched-end");
	if ((f & HPM_REGION_OPEN_AT_END) && n < len)
		n += (size_t)snprintf(buf + n, len - n, " open-at-end");
	if ((f & HPM_REGION_TOO_DEEP) && n < len)
		n += (size_t)snprintf(buf + n, len - n, " too-deep");
	if ((f & HPM_REGION_NO_COUNTERS) && n < len)
		snprintf(buf + n, len - n, " no-counters");
	return buf;
}

/* The name of region @r unless an earlier entry has the same name. */
static const char *region_once(const struct hpm_markers *m, size_t r)
{
	const char *n = hpm_markers__region_name(m, r);
	for (size_t q = 0; n && q < r; q++) {
		const char *o = hpm_markers__region_name(m, q);
		if (o && !strcmp(o, n))
			return NULL;
	}
	return n;
}

static void big(char *buf, size_t len, uint64_t v, bool sep)
{
	char raw[32];
	int n = snprintf(raw, sizeof(raw), "%llu", (unsigned long long)v), o = 0;
	for (int i = 0; i < n && (size_t)o + 2 < len; i++) {
		if (sep && i && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = raw[i];
	}
	buf[o] = '\0';
}

struct row_ctx {
	const struct stat_out *out;
	const struct hpm_markers *m;
	const struct hpm_evlist *list;
	struct json *j;
};

static const struct hpm_event *program_event(const struct row_ctx *c, size_t e)
{
	for (size_t i = 0; i < hpm_evlist__count(c->list); i++)
		if (hpm_markers__event_of(c->m, i) == (int)e)
			return hpm_evlist__event(c->list, i);
	return NULL;
}

static const char *event_name(const struct row_ctx *c, size_t e)
{
	const struct hpm_event *ev = program_event(c, e);
	return ev ? hpm_event__name(ev) : "?";
}

/* A count as the main table shows it: clocks in msec. */
static void count_text(const struct row_ctx *c, size_t e, const struct hpm_count *v,
		       char *buf, size_t len)
{
	const struct hpm_event *ev = program_event(c, e);
	double x = hpm_count__scaled(v);
	if (ev && hpm_event__is_clock(ev))
		snprintf(buf, len, "%.2f msec", x / 1e6);
	else
		big(buf, len, (uint64_t)(x + 0.5), c->out->big_num);
}

static void region_rows(const struct row_ctx *c, const char *name, const char *thread, int tid,
			const struct hpm_region_stats *st)
{
	const struct stat_out *o = c->out;
	size_t ne = hpm_markers__nr_events(c->m);
	char num[40], flags[96];

	flag_words(st->flags, flags, sizeof(flags));
	if (o->fmt == FMT_JSON) {
		json_obj_open(c->j, NULL);
		json_str(c->j, "region", name);
		if (tid)
			json_i64(c->j, "tid", tid);
		json_str(c->j, "thread", thread);
		json_u64(c->j, "calls", st->calls);
		json_u64(c->j, "max_depth", st->max_depth);
		json_arr_open(c->j, "flags");
		for (char *save = NULL, *w = strtok_r(flags, " ", &save); w;
		     w = strtok_r(NULL, " ", &save))
			json_str(c->j, NULL, w);
		json_arr_close(c->j);
		json_arr_open(c->j, "events");
		for (size_t e = 0; e < ne; e++) {
			json_obj_open(c->j, NULL);
			json_str(c->j, "event", event_name(c, e));
			json_dbl(c->j, "count", hpm_count__scaled(&st->c[e]));
			json_u64(c->j, "raw_count", st->c[e].value);
			json_dbl(c->j, "pct_running", hpm_count__pct_running(&st->c[e]));
			json_obj_close(c->j);
		}
		json_arr_close(c->j);
		json_obj_close(c->j);
		return;
	}
	if (o->fmt == FMT_CSV) {
		/* region,NAME,THREAD,CALLS,COUNT,EVENT,PCT_RUNNING,FLAGS */
		const char *sep = o->sep;
		for (size_t e = 0; e < (ne ? ne : 1); e++) {
			fprintf(o->f, "region%s%s%s%s%s%llu%s", sep, esc_csv(name, sep), sep,
				esc_csv(thread, sep), sep,
				(unsigned long long)st->calls, sep);
			if (ne)
				fprintf(o->f, "%.0f%s%s%s%.2f%s", hpm_count__scaled(&st->c[e]), sep,
					esc_csv(event_name(c, e), sep), sep,
					hpm_count__pct_running(&st->c[e]),
					sep);
			else
				fprintf(o->f, "%s%s%s", sep, sep, sep);
			fprintf(o->f, "%s\n", flags[0] ? flags + 1 : "");
		}
		return;
	}
	big(num, sizeof(num), st->calls, o->big_num);
	if (!ne)
		fprintf(o->f, "  %-20s %-20s %12s%s\n", esc_text(name), esc_text(thread), num, flags);
	for (size_t e = 0; e < ne; e++) {
		char cnt[40];
		count_text(c, e, &st->c[e], cnt, sizeof(cnt));
		fprintf(o->f, "  %-20s %-20s %12s %18s  %s", esc_text(name), esc_text(thread), num,
			cnt, esc_text(event_name(c, e)));
		if (hpm_count__pct_running(&st->c[e]) < 100.0)
			fprintf(o->f, "  (%.2f%%)", hpm_count__pct_running(&st->c[e]));
		fprintf(o->f, "%s\n", e == 0 ? flags : "");
	}
}

static void print_regions(struct stat_user *u, const struct stat_out *o, struct json *j)
{
	const struct hpm_markers *m = u->m;
	struct row_ctx c = { .out = o, .m = m, .list = u->list, .j = j };
	size_t nt = hpm_markers__nr_threads(m);

	if (o->fmt == FMT_HUMAN) {
		fprintf(o->f, "\n Regions (hpm_region_begin/end), per thread:\n\n");
		if (!hpm_markers__nr_regions(m)) {
			fprintf(o->f, "  none: the program began no region\n");
			return;
		}
		fprintf(o->f, "  %-20s %-20s %12s %18s  %s\n", "region", "thread", "calls", "count",
			"event");
	}
	if (j)
		json_arr_open(j, "regions");
	for (size_t r = 0; r < hpm_markers__nr_regions(m); r++) {
		const char *name = region_once(m, r);
		struct hpm_region_stats st;
		size_t threads = 0;
		if (!name)
			continue;
		for (size_t t = 0; t < nt; t++) {
			struct hpm_markers_thread th;
			char label[64];
			if (hpm_markers__thread(m, t, &th) || hpm_markers__region(m, r, t, &st) ||
			    (!st.calls && !st.flags))
				continue;
			thread_label(u, &th, label, sizeof(label));
			region_rows(&c, name, label, th.tid, &st);
			threads++;
		}
		if (threads > 1 && hpm_markers__region(m, r, SIZE_MAX, &st) == 0)
			region_rows(&c, name, "all", 0, &st);
	}
	if (j)
		json_arr_close(j);
	if (o->fmt == FMT_HUMAN)
		fprintf(o->f, "\n  unmatched-end: an end without a begin in its thread; "
			"open-at-end: still open when the thread ended\n");
}

/* Notes that change how the counts read. */
static void print_notes(struct stat_user *u, const struct stat_out *o)
{
	const struct hpm_markers *m = u->m;
	if (o->fmt != FMT_HUMAN)
		return;
	for (size_t i = 0; u->how && i < hpm_evlist__count(u->list); i++)
		if (u->how[i])
			fprintf(o->f, " %s: %s\n",
				esc_text(hpm_event__name(hpm_evlist__event(u->list, i))),
				esc_text(u->how[i]));
	if (!m)
		return;
	if (u->marked) {
		size_t marked_end = 0, failed = 0;
		int err = 0;
		for (size_t t = 0; t < hpm_markers__nr_threads(m); t++) {
			struct hpm_markers_thread th;
			if (hpm_markers__thread(m, t, &th))
				continue;
			marked_end += th.marked_at_end;
			if (th.counters_err) {
				failed++;
				err = th.counters_err;
			}
		}
		fprintf(o->f, " Counted only while the program's threads were marked (hpm_mark).\n");
		if (marked_end)
			fprintf(o->f, " %zu thread(s) were still marked when the process ended without "
				"them: their last marked stretch is not counted\n", marked_end);
		if (failed)
			fprintf(o->f, " %zu thread(s) could not open their counters: %s\n", failed,
				hpm_strerror(err));
	}
	if (hpm_markers__lost_threads(m))
		fprintf(o->f, " %llu thread(s) beyond the markers area's slots were not counted\n",
			(unsigned long long)hpm_markers__lost_threads(m));
}

void stat_user_print(struct stat_user *u, const struct stat_out *out)
{
	if (!u)
		return;
	print_notes(u, out);
	if (!u->regions || !u->m)
		return;
	if (out->fmt == FMT_JSON) {
		struct json j;
		json_init(&j, out->f, false);
		json_obj_open(&j, NULL);
		print_regions(u, out, &j);
		json_obj_close(&j);
		json_end(&j);
		return;
	}
	print_regions(u, out, NULL);
}
