/* SPDX-License-Identifier: MIT */
/*
 * hpmon top's frame (top.h): the source read, the rows it has filtered,
 * each row's columns (events, metrics) computed from its counts in the
 * frame (or since the start with -c), sorted, and the per-CPU line.
 */
#include <errno.h>
#include <poll.h>
#include <math.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <hpmon/metric.h>
#include <hpmon/sysacct.h>
#include "launch/launch.h"
#include "top/top.h"

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int top_open_acct(struct top *t, size_t *bad)
{
	struct hpm_sysacct_opts ao = { .sz = sizeof(ao), .cpus = t->o->nr_cpus ? t->o->cpus : NULL,
				       .nr_cpus = t->o->nr_cpus, .cgroups = true };
	*bad = SIZE_MAX;
	t->acct = hpm_sysacct__new(t->list, &ao);
	if (!t->acct)
		return -errno;
	int rc = hpm_sysacct__open(t->acct);
	if (!rc)
		rc = hpm_sysacct__enable(t->acct);
	if (rc) {
		*bad = hpm_sysacct__failed_event(t->acct);
		hpm_sysacct__free(t->acct);
		t->acct = NULL;
		return rc;
	}
	/* its counts start now: the first frame's interval, and -c's */
	t->last_ns = t->start_ns = mono_ns();
	return 0;
}

/* After a frame: a fresh accounting when the old one keeps too many
 * tasks, and rows whose totals start from its zero. */
static int renew(struct top *t)
{
	size_t bad;
	hpm_sysacct__free(t->acct);
	t->acct = NULL;
	int rc = top_open_acct(t, &bad);
	if (rc)
		return rc;
	size_t nr_ev = t->rows.nr_ev;
	enum sysrows_by by = t->rows.by;
	sysrows_release(&t->rows);
	sysrows_init(&t->rows, by, nr_ev);
	free(t->cpu_prev);
	free(t->cpus);
	t->cpu_prev = NULL;
	t->cpus = NULL;
	t->nr_cpus = 0;
	/* the lines name rows that are gone: none until the next frame */
	t->nr_lines = 0;
	t->nr_tasks = 0;
	t->nr_idle = 0;
	return 0;
}

int top_regroup(struct top *t, enum sysrows_by by)
{
	size_t nr_ev = t->rows.nr_ev;
	int rc;

	/* the lines name rows of the old kind: none until rebuilt below */
	t->nr_lines = 0;
	t->nr_tasks = 0;
	t->nr_idle = 0;
	sysrows_release(&t->rows);
	sysrows_init(&t->rows, by, nr_ev);
	t->o->by = by;
	/* the new rows' totals since counting began, read now: the next
	 * frame's changes are from here, and so are the CPUs' and its
	 * interval, so that it is a frame like any other */
	if (t->acct) {
		if ((rc = hpm_sysacct__sync(t->acct)) || (rc = sysrows_update(&t->rows, t->acct)))
			return rc;
		for (size_t c = 0; t->cpu_prev && c < t->nr_cpus; c++)
			for (size_t i = 0; i < t->nr_ev; i++)
				t->cpu_prev[c * t->nr_ev + i] = hpm_sysacct__cpu_count(t->acct, c, i);
	} else if ((rc = top_user_update(t->user, &t->rows))) {
		return rc;
	}
	/* nothing changed since this read: without -c no row is shown until
	 * the next frame, with -c the totals so far are */
	for (size_t r = 0; r < t->rows.nr; r++)
		memset(t->rows.row[r].d, 0, nr_ev * sizeof(uint64_t));
	t->last_ns = mono_ns();
	return top_refilter(t);
}

int top_columns(struct top *t)
{
	t->nr_cols = t->nr_ev + t->nr_metrics;
	t->cols = calloc(t->nr_cols ? t->nr_cols : 1, sizeof(*t->cols));
	t->total = calloc(t->nr_cols ? t->nr_cols : 1, sizeof(double));
	t->idle = calloc(t->nr_cols ? t->nr_cols : 1, sizeof(double));
	if (!t->cols || !t->total || !t->idle)
		return -ENOMEM;
	t->clock_ev = SIZE_MAX;
	for (size_t i = 0; i < t->nr_ev; i++) {
		const struct hpm_event *ev = hpm_evlist__event(t->list, i);
		struct top_col *c = &t->cols[i];
		c->name = hpm_event__name(ev);
		c->clock = hpm_event__is_clock(ev);
		c->unit = c->clock ? "msec" : hpm_event__unit(ev);
		c->idx = i;
		if (c->clock && t->clock_ev == SIZE_MAX)
			t->clock_ev = i;
		/* a clock as top shows it, %CPU; a count per second, in its
		 * unit where it has one (power/energy-pkg/ Joules/s) */
		if (c->clock)
			snprintf(c->label, sizeof(c->label), t->clock_ev == i ? "%%CPU" : "%s %%CPU",
				 c->name);
		else if (c->unit && c->unit[0])
			snprintf(c->label, sizeof(c->label), "%s %s/s", c->name, c->unit);
		else
			snprintf(c->label, sizeof(c->label), "%s/s", c->name);
		/* the metrics' plan adds the events they need, some of them
		 * already columns: show each name once */
		for (size_t k = 0; k < i && !c->hidden; k++)
			c->hidden = !strcmp(t->cols[k].name, c->name);
	}
	for (size_t m = 0; m < t->nr_metrics; m++) {
		struct top_col *c = &t->cols[t->nr_ev + m];
		c->name = hpm_metric__name(hpm_msel__metric(t->sel, m));
		c->unit = hpm_msel__unit(t->sel, m);
		c->metric = true;
		c->idx = m;
		snprintf(c->label, sizeof(c->label), "%s", c->name);
	}
	return 0;
}

size_t top_col_find(const struct top *t, const char *name)
{
	for (size_t c = 0; c < t->nr_cols; c++)
		if (!strcmp(t->cols[c].name, name) || !strcmp(t->cols[c].label, name))
			return c;
	return SIZE_MAX;
}

void top_user_name(uid_t uid, char *buf, size_t len)
{
	struct passwd pw, *res = NULL;
	char tmp[1024];
	if (uid == (uid_t)-1)
		snprintf(buf, len, "?");
	else if (getpwuid_r(uid, &pw, tmp, sizeof(tmp), &res) == 0 && res)
		snprintf(buf, len, "%s", pw.pw_name);
	else
		snprintf(buf, len, "%u", (unsigned)uid);
}

int top_parse_user(const char *s, uid_t *uid)
{
	struct passwd pw, *res = NULL;
	char tmp[1024], *end;
	if (getpwnam_r(s, &pw, tmp, sizeof(tmp), &res) == 0 && res) {
		*uid = pw.pw_uid;
		return 0;
	}
	long v = strtol(s, &end, 10);
	if (!*s || *end || v < 0)
		return -1;
	*uid = (uid_t)v;
	return 0;
}

const char *top_strerror(int rc)
{
	if (rc == -EOVERFLOW)
		return "more tasks than can be kept (1,048,576, exited ones included): "
		       "without -c hpmon top starts afresh well before";
	return hpm_strerror(rc);
}

void top_fmt(const struct top_col *c, double v, char *buf, size_t len)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (c->metric)
		snprintf(buf, len, "%.3f", v);
	else if (c->clock || v < 999.95)
		snprintf(buf, len, "%.1f", v);
	else
		snprintf(buf, len, "%.0f", v);
}

int top_col_width(const struct top_col *c)
{
	int n = (int)strlen(c->label);
	return n > 12 ? n : 12;
}

bool top_idle_line(const struct top *t, char *buf, size_t len)
{
	char num[64];
	size_t n;
	if (!t->acct)
		return false;
	if (t->clock_ev != SIZE_MAX && t->nr_cpus)
		n = (size_t)snprintf(buf, len, "idle: %5.1f %% of %zu CPU%s", t->idle[t->clock_ev] /
				     (double)t->nr_cpus, t->nr_cpus, t->nr_cpus == 1 ? "" : "s");
	else
		n = (size_t)snprintf(buf, len, "idle:");
	for (size_t c = 0; c < t->nr_ev && n < len; c++) {
		if (c == t->clock_ev || t->cols[c].hidden)
			continue;
		top_fmt(&t->cols[c], t->idle[c], num, sizeof(num));
		n += (size_t)snprintf(buf + n, len - n, "  %s %s", t->cols[c].label, num);
	}
	return true;
}

void top_frame_free(struct top *t)
{
	free(t->lines);
	free(t->vals);
	free(t->cpus);
	free(t->total);
	free(t->idle);
	free(t->idle_rows);
	free(t->cols);
	free(t->cpu_prev);
	t->lines = NULL;
	t->vals = NULL;
	t->cpus = NULL;
	t->total = NULL;
	t->idle = NULL;
	t->idle_rows = NULL;
	t->cols = NULL;
	t->cpu_prev = NULL;
}

static bool wanted(const struct top *t, const struct sysrow *r)
{
	const struct top_filter *f = &t->o->filter;
	if (f->by_uid && r->uid != f->uid)
		return false;
	if (f->comm[0] && !strstr(r->comm, f->comm) &&
	    !(t->rows.by == SYSROWS_CGROUP && strstr(r->cgroup, f->comm)))
		return false;
	if (f->nr_pids) {
		for (size_t i = 0; i < f->nr_pids; i++)
			if (r->pid == f->pids[i] || r->tid == f->pids[i])
				return true;
		return false;
	}
	return true;
}

/* The idle task of a CPU (pid 0): apart from the ranked rows. */
static bool idle_row(const struct sysrow *r)
{
	return r->pid == 0 && !r->special;
}

/* A row's columns: its counts per second of the frame (since the start
 * with -c), clocks as %CPU; then its metrics. */
static void row_values(const struct top *t, const struct sysrow *r, double *val)
{
	const uint64_t *c = t->o->cumulative ? r->v : r->d;
	double secs = t->o->cumulative ? t->elapsed : t->interval;
	for (size_t i = 0; i < t->nr_ev; i++) {
		const struct hpm_event *e = hpm_evlist__event(t->list, i);
		if (!(secs > 0))
			val[i] = NAN;
		else if (t->cols[i].clock)
			val[i] = 100.0 * (double)c[i] / 1e9 / secs;
		else
			val[i] = (double)c[i] * hpm_event__scale(e) / secs;
	}
	if (!t->nr_metrics)
		return;
	struct hpm_value *in = calloc(t->nr_ev, sizeof(*in));
	struct hpm_value *out = calloc(t->nr_metrics, sizeof(*out));
	if (in && out) {
		for (size_t i = 0; i < t->nr_ev; i++)
			hpm_value__set(&in[i], (double)c[i] * hpm_event__scale(hpm_evlist__event(t->list, i)), 0);
		struct hpm_metric_env env = {
			.sz = sizeof(env), .events = in, .nr_events = t->nr_ev,
			.duration_s = t->interval, .interval_s = t->o->cumulative ? 0 : t->interval,
			.num_cpus = (int)t->nr_cpus,
		};
		hpm_msel__eval(t->sel, &env, out);
		for (size_t m = 0; m < t->nr_metrics; m++)
			val[t->nr_ev + m] = out[m].na ? NAN : out[m].value;
	} else {
		for (size_t m = 0; m < t->nr_metrics; m++)
			val[t->nr_ev + m] = NAN;
	}
	free(in);
	free(out);
}

static int line_cmp(const void *x, const void *y, void *arg)
{
	const struct top *t = arg;
	const struct top_line *a = x, *b = y;
	int r = 0;
	if (t->sort_col == SIZE_MAX) {
		const struct sysrow *ra = &t->rows.row[a->row], *rb = &t->rows.row[b->row];
		pid_t ka = t->rows.by == SYSROWS_THREAD ? ra->tid : ra->pid;
		pid_t kb = t->rows.by == SYSROWS_THREAD ? rb->tid : rb->pid;
		r = ka < kb ? -1 : ka > kb;
		if (!r)
			r = ra->cpu < rb->cpu ? -1 : ra->cpu > rb->cpu;
		return t->sort_asc ? r : -r;
	}
	double va = a->val[t->sort_col], vb = b->val[t->sort_col];
	if (isnan(va) || isnan(vb))
		r = isnan(va) - isnan(vb); /* n/a last either way */
	else
		r = va < vb ? -1 : va > vb;
	if (!isnan(va) && !isnan(vb) && !t->sort_asc)
		r = -r;
	return r ? r : (a->row < b->row ? -1 : 1);
}

int top_refilter(struct top *t)
{
	size_t n = t->rows.nr;
	if (n > t->cap_lines) {
		struct top_line *l = realloc(t->lines, n * sizeof(*l));
		if (!l)
			return -ENOMEM;
		t->lines = l;
		size_t *ir = realloc(t->idle_rows, n * sizeof(*ir));
		if (!ir)
			return -ENOMEM;
		t->idle_rows = ir;
		double *v = realloc(t->vals, n * (t->nr_cols ? t->nr_cols : 1) * sizeof(double));
		if (!v)
			return -ENOMEM;
		t->vals = v;
		t->cap_lines = n;
	}
	t->nr_lines = 0;
	t->nr_tasks = 0;
	t->nr_idle = 0;
	for (size_t c = 0; c < t->nr_cols; c++)
		t->total[c] = t->idle[c] = 0;
	for (size_t r = 0; r < n; r++) {
		const struct sysrow *row = &t->rows.row[r];
		if (!sysrows_active(&t->rows, r, !t->o->cumulative))
			continue;
		struct top_line *l = &t->lines[t->nr_lines];
		l->row = r;
		l->val = t->vals + t->nr_lines * t->nr_cols;
		row_values(t, row, l->val);
		for (size_t c = 0; c < t->nr_ev; c++)
			t->total[c] += l->val[c];
		if (idle_row(row)) {
			/* shown apart, unfiltered: the machine's idle time */
			for (size_t c = 0; c < t->nr_ev; c++)
				t->idle[c] += l->val[c];
			t->idle_rows[t->nr_idle++] = r;
			continue;
		}
		t->nr_tasks++;
		if (wanted(t, row))
			t->nr_lines++;
	}
	for (size_t c = t->nr_ev; c < t->nr_cols; c++)
		t->total[c] = t->idle[c] = NAN;
	/* the idle rows by CPU */
	for (size_t i = 1; i < t->nr_idle; i++)
		for (size_t k = i; k > 0 && t->rows.row[t->idle_rows[k - 1]].cpu >
					      t->rows.row[t->idle_rows[k]].cpu; k--) {
			size_t x = t->idle_rows[k];
			t->idle_rows[k] = t->idle_rows[k - 1];
			t->idle_rows[k - 1] = x;
		}
	qsort_r(t->lines, t->nr_lines, sizeof(*t->lines), line_cmp, t);
	return 0;
}

/* Per CPU: its share of the frame's clock not spent idle. */
static int cpu_line(struct top *t)
{
	size_t nc = hpm_sysacct__nr_cpus(t->acct);
	if (!t->cpus) {
		t->cpus = calloc(nc, sizeof(*t->cpus));
		t->cpu_prev = calloc(nc * (t->nr_ev ? t->nr_ev : 1), sizeof(uint64_t));
		if (!t->cpus || !t->cpu_prev)
			return -ENOMEM;
		t->nr_cpus = nc;
	}
	for (size_t c = 0; c < nc; c++) {
		struct top_cpu *tc = &t->cpus[c];
		uint64_t *prev = t->cpu_prev + c * t->nr_ev;
		tc->cpu = hpm_sysacct__cpu(t->acct, c);
		tc->busy_pct = NAN;
		uint64_t first = hpm_sysacct__cpu_count(t->acct, c, 0);
		tc->first = (double)(t->o->cumulative ? first : first - prev[0]);
		if (t->clock_ev != SIZE_MAX) {
			size_t k = t->clock_ev;
			uint64_t now = hpm_sysacct__cpu_count(t->acct, c, k);
			uint64_t all = t->o->cumulative ? now : now - prev[k];
			uint64_t idle = 0;
			for (size_t r = 0; r < t->rows.nr; r++)
				if (t->rows.row[r].pid == 0 && t->rows.row[r].cpu == tc->cpu)
					idle = t->o->cumulative ? t->rows.row[r].v[k] : t->rows.row[r].d[k];
			if (all)
				tc->busy_pct = 100.0 * (double)(all - (idle < all ? idle : all)) / (double)all;
		}
		for (size_t i = 0; i < t->nr_ev; i++)
			prev[i] = hpm_sysacct__cpu_count(t->acct, c, i);
	}
	return 0;
}

int top_frame(struct top *t)
{
	struct timespec rt;
	uint64_t now = mono_ns();
	int rc;

	clock_gettime(CLOCK_REALTIME, &rt);
	t->now = (double)rt.tv_sec + (double)rt.tv_nsec / 1e9;
	if (t->acct) {
		if ((rc = hpm_sysacct__sync(t->acct)))
			return rc;
		if ((rc = sysrows_update(&t->rows, t->acct)))
			return rc;
		t->lost = hpm_sysacct__lost(t->acct);
		t->unsampled = hpm_sysacct__unsampled(t->acct);
	} else if ((rc = top_user_update(t->user, &t->rows))) {
		return rc;
	}
	/* --user counts from its first frame; the accounting from its opening */
	if (!t->last_ns)
		t->last_ns = t->start_ns = now;
	t->interval = (double)(now - t->last_ns) / 1e9;
	t->last_ns = now;
	t->elapsed = (double)(now - t->start_ns) / 1e9;
	if (t->acct && (rc = cpu_line(t)))
		return rc;
	return top_refilter(t);
}

int top_after_frame(struct top *t)
{
	if (t->acct && !t->o->cumulative && hpm_sysacct__nr_tasks(t->acct) > TOP_RENEW_TASKS)
		return renew(t);
	return 0;
}

int top_wait(struct top *t, double secs, int key_fd)
{
	uint64_t left_ms = (uint64_t)(secs * 1000.0 + 0.5);
	size_t n = t->acct ? hpm_sysacct__nr_fds(t->acct) : 0;
	struct pollfd *p = calloc(n + 1, sizeof(*p));
	struct timespec t0, t1;
	int ok = 0;
	if (!p)
		return -1;
	for (size_t i = 0; i < n; i++)
		p[i] = (struct pollfd){ .fd = hpm_sysacct__fd(t->acct, i), .events = POLLIN };
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &t1);
		uint64_t el = (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000 +
			      (uint64_t)((t1.tv_nsec - t0.tv_nsec) / 1000000);
		if (el >= left_ms)
			break;
		if (got_signal) {
			ok = -1;
			break;
		}
		uint64_t step = left_ms - el < 100 ? left_ms - el : 100;
		p[n] = (struct pollfd){ .fd = key_fd, .events = POLLIN };
		int r = poll(p, n + 1, (int)step);
		/* a key, or a signal such as SIGWINCH (the view redraws) */
		if (key_fd >= 0 && ((r > 0 && (p[n].revents & (POLLIN | POLLHUP))) ||
				    (r < 0 && errno == EINTR && !got_signal))) {
			ok = 1;
			if (t->acct)
				hpm_sysacct__drain(t->acct);
			break;
		}
		if (t->acct)
			hpm_sysacct__drain(t->acct);
	}
	free(p);
	return ok;
}
