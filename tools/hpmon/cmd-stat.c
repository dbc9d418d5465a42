/* SPDX-License-Identifier: MIT */
/*
 * hpmon stat: count events for a command, processes, threads or CPUs.
 * Options follow perf stat so that habits and scripts carry over.
 */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <hpmon/session.h>
#include <hpmon/sysinfo.h>
#include "advice.h"
#include "builtin.h"
#include "launch.h"
#include "stat.h"
#include "stat-user.h"

#define MAX_METRIC_ARGS 64
/* How often counts are read to estimate the uncertainty of multiplexed
 * ones (hpm_slices): at least this, more rarely when reading is slow. */
#define SAMPLE_MS 10

struct stat_opts {
	char events[4096];
	bool events_given;
	struct target tg;           /* -p, -t, -a, -C */
	enum stat_agg agg;
	long interval_ms;
	int repeat;
	const char *sep;
	bool json;
	const char *output;
	bool append;
	bool trace;
	bool no_big_num;
	bool no_merge;
	char **argv;
	struct stat_user_opts user; /* exec:, sw:, --regions, --marked: stat-user.c */
	/* metrics */
	const char *mgroups[MAX_METRIC_ARGS];
	size_t nr_mgroups;
	const char *minline[MAX_METRIC_ARGS];
	size_t nr_minline;
	const char *mfiles[MAX_METRIC_ARGS];
	size_t nr_mfiles;
	bool per_second, per_kinst;
};

static const char stat_usage[] =
	"usage: hpmon stat [options] [--] COMMAND [ARGS]\n"
	"       hpmon stat [options] -p PID | -t TID | -a [-C CPUS] [COMMAND]\n"
	"\n"
	"Count events while COMMAND runs (children and threads included), or for\n"
	"existing processes, threads or CPUs until they end or Ctrl-C.\n"
	"\n"
	"  -e, --event EVENTS     events to count, perf syntax: 'cycles,{instructions,branches}:u'\n"
	"  -p, --pid PIDS         count existing processes (comma separated)\n"
	"  -t, --tid TIDS         count existing threads (comma separated)\n"
	"  -a, --all-cpus         count system-wide on every CPU\n"
	"  -C, --cpu CPUS         system-wide on these CPUs only (0,2-3)\n"
	"      --per-thread       break counts down per thread\n"
	"      --per-process      break counts down per process\n"
	"  -A, --per-cpu, --no-aggr  break counts down per CPU (with -a)\n"
	"  -M, --metrics GROUPS   metric groups or metrics to compute: ipc, branch, l1, l2,\n"
	"                         tlb, memory, stalls, topdown, cost, software, ...\n"
	"                         (GROUP:u counts their events in user mode only)\n"
	"      --metric 'NAME = FORMULA'  compute a metric of your own\n"
	"      --metrics-file FILE  metrics defined in FILE (docs/metrics.md)\n"
	"      --per-second       the rate of every event per second\n"
	"      --per-kinst        every event per thousand instructions\n"
	"  -I, --interval-print MS  print the counts of every MS milliseconds\n"
	"  -r, --repeat N         run the command N times; mean and relative error\n"
	"  -x, --field-separator SEP  CSV output as perf stat -x prints it\n"
	"  -j, --json             one JSON object (one per line with -I)\n"
	"  -o, --output FILE      write the counts to FILE instead of stderr\n"
	"      --append           append to the -o FILE\n"
	"      --trace            print thread and process start, exec and exit with counts\n"
	"      --no-big-num       no thousands separators\n"
	"      --no-merge         one line per uncore PMU instance instead of their sum\n"
	STAT_USER_USAGE
	"  -h, --help             this help\n"
	"\n"
	"Exit status: the command's own (128+N if signal N ended it); 127 if it could\n"
	"not be run; 129 for bad options or events; 1 if counting failed.\n"
	"See docs/hpmon-stat.md and docs/event-syntax.md.\n";

static int append_events(struct stat_opts *o, const char *spec)
{
	size_t n = strlen(o->events);
	if (n + strlen(spec) + 2 > sizeof(o->events))
		return -1;
	if (n)
		strcat(o->events, ",");
	strcat(o->events, spec);
	o->events_given = true;
	return 0;
}

/* -C: every CPU must be online; say which are. */
static int check_cpus(struct hpm_ctx *ctx, const struct stat_opts *o)
{
	char path[512], online[256] = "";
	FILE *f;
	snprintf(path, sizeof(path), "%s/devices/system/cpu/online", hpm_ctx__sysfs_root(ctx));
	if ((f = fopen(path, "r"))) {
		if (fgets(online, sizeof(online), f))
			online[strcspn(online, "\n")] = '\0';
		fclose(f);
	}
	for (size_t i = 0; i < o->tg.nr_cpus; i++) {
		snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d",
			 hpm_ctx__sysfs_root(ctx), o->tg.cpus[i]);
		if (access(path, F_OK) != 0) {
			fprintf(stderr, "hpmon stat: CPU %d does not exist here (online CPUs: %s)\n",
				o->tg.cpus[i], online[0] ? online : "unknown");
			return HPM_EXIT_USAGE;
		}
	}
	return 0;
}

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "hpmon stat: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nSee 'hpmon stat --help'.\n");
	return HPM_EXIT_USAGE;
}

enum { OPT_PER_THREAD = 256, OPT_PER_PROCESS, OPT_TRACE, OPT_APPEND, OPT_NO_BIG,
       OPT_METRIC, OPT_METRICS_FILE, OPT_PER_SECOND, OPT_PER_KINST, OPT_NO_MERGE };

/* Remember a metric option's value in @v. */
static int keep_arg(const char **v, size_t *n, const char *arg, const char *opt)
{
	if (*n >= MAX_METRIC_ARGS)
		return usage_error("too many %s options", opt);
	v[(*n)++] = arg;
	return 0;
}

static int parse_opts(int argc, char **argv, struct stat_opts *o)
{
	static const struct option longopts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "pid", required_argument, NULL, 'p' },
		{ "tid", required_argument, NULL, 't' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "per-cpu", no_argument, NULL, 'A' },
		{ "no-aggr", no_argument, NULL, 'A' },
		{ "per-thread", no_argument, NULL, OPT_PER_THREAD },
		{ "per-process", no_argument, NULL, OPT_PER_PROCESS },
		{ "interval-print", required_argument, NULL, 'I' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "field-separator", required_argument, NULL, 'x' },
		{ "json", no_argument, NULL, 'j' },
		{ "output", required_argument, NULL, 'o' },
		{ "append", no_argument, NULL, OPT_APPEND },
		{ "trace", no_argument, NULL, OPT_TRACE },
		{ "no-big-num", no_argument, NULL, OPT_NO_BIG },
		{ "no-merge", no_argument, NULL, OPT_NO_MERGE },
		{ "metrics", required_argument, NULL, 'M' },
		{ "metric-groups", required_argument, NULL, 'M' },
		{ "metric", required_argument, NULL, OPT_METRIC },
		{ "metrics-file", required_argument, NULL, OPT_METRICS_FILE },
		{ "per-second", no_argument, NULL, OPT_PER_SECOND },
		{ "per-kinst", no_argument, NULL, OPT_PER_KINST },
		STAT_USER_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *why;
	int c;
	char *end;

	o->repeat = 1;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+e:p:t:aC:AI:r:x:jo:hM:", longopts, NULL)) != -1) {
		switch (c) {
		case 'e':
			if (append_events(o, optarg))
				return usage_error("event list too long: '%s'", optarg);
			break;
		case 'p':
		case 't':
		case 'a':
		case 'C':
			if (target_option(&o->tg, c, optarg, &why) < 0)
				return usage_error(why, optarg);
			break;
		case 'A': o->agg = AGG_CPU; break;
		case OPT_PER_THREAD: o->agg = AGG_THREAD; break;
		case OPT_PER_PROCESS: o->agg = AGG_PROCESS; break;
		case 'I':
			o->interval_ms = strtol(optarg, &end, 10);
			if (*end || o->interval_ms < 10 || o->interval_ms > 3600000)
				return usage_error("-I takes milliseconds from 10 to 3600000, not '%s'",
						   optarg);
			break;
		case 'r':
			o->repeat = (int)strtol(optarg, &end, 10);
			if (*end || o->repeat < 1 || o->repeat > 100000)
				return usage_error("-r takes a run count from 1, not '%s'", optarg);
			break;
		case 'x': o->sep = optarg; break;
		case 'j': o->json = true; break;
		case 'o': o->output = optarg; break;
		case OPT_APPEND: o->append = true; break;
		case OPT_TRACE: o->trace = true; break;
		case OPT_NO_BIG: o->no_big_num = true; break;
		case OPT_NO_MERGE: o->no_merge = true; break;
		case 'M':
			if (keep_arg(o->mgroups, &o->nr_mgroups, optarg, "-M"))
				return HPM_EXIT_USAGE;
			break;
		case OPT_METRIC:
			if (keep_arg(o->minline, &o->nr_minline, optarg, "--metric"))
				return HPM_EXIT_USAGE;
			break;
		case OPT_METRICS_FILE:
			if (keep_arg(o->mfiles, &o->nr_mfiles, optarg, "--metrics-file"))
				return HPM_EXIT_USAGE;
			break;
		case OPT_PER_SECOND: o->per_second = true; break;
		case OPT_PER_KINST: o->per_kinst = true; break;
		case OPT_USER_REGIONS:
		case OPT_USER_MARKED:
		case OPT_USER_ENABLE:
		case OPT_USER_DISABLE:
			if (stat_user_option(&o->user, c, optarg))
				return HPM_EXIT_USAGE;
			break;
		case 'h':
			fputs(stat_usage, stdout);
			return -1;
		case ':':
			return usage_error("option '%s' needs a value", argv[optind - 1]);
		default:
			return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	o->argv = argv + optind;
	if (!*o->argv)
		o->argv = NULL;
	if (o->sep && o->json)
		return usage_error("%s", "-x and --json exclude each other");
	if (o->tg.system && o->tg.nr_ids)
		return usage_error("%s", "-a/-C and -p/-t exclude each other");
	if (!o->argv && !o->tg.system && !o->tg.nr_ids)
		return usage_error("%s", "nothing to count: give a COMMAND, -p PID, -t TID or -a");
	if (o->agg == AGG_CPU && !o->tg.system)
		return usage_error("%s", "-A/--per-cpu needs -a or -C");
	if ((o->agg == AGG_THREAD || o->agg == AGG_PROCESS) && o->tg.system)
		return usage_error("%s", "--per-thread/--per-process need a command, -p or -t");
	if (o->repeat > 1 && !o->argv)
		return usage_error("%s", "-r needs a COMMAND to repeat");
	if (o->repeat > 1 && o->interval_ms)
		return usage_error("%s", "-r and -I exclude each other");
	if (o->trace && (!o->argv || o->tg.nr_ids || o->tg.system))
		return usage_error("%s", "--trace follows a launched COMMAND only");
	return 0;
}

/* ---- the default event set ---- */

static bool hw_counts_here(void)
{
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_HARDWARE,
				     .config = PERF_COUNT_HW_INSTRUCTIONS };
	return hpm_sysinfo__probe(&a, 0, -1, HPM_PROBE_USER_ONLY, NULL) == 0;
}

static const char *default_events(void)
{
	static const char sw[] = "task-clock,context-switches,cpu-migrations,page-faults";
	static const char hw[] = "task-clock,context-switches,cpu-migrations,page-faults,"
				 "cycles,instructions,branches,branch-misses";
	return hw_counts_here() ? hw : sw;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- one measurement ---- */

struct run {
	struct stat_opts *o;
	struct hpm_ctx *ctx;
	struct hpm_evlist *list;
	struct hpm_session *s;
	struct stat_report *r;
	const struct stat_out *out;
	uint64_t t0_ns;        /* perf clock of the first trace record */
	struct hpm_count *prev; /* -I: totals at the previous tick */
	struct hpm_count **prev_rows;
	size_t nr_prev_rows;
	uint64_t last_tick_ns;  /* -I: time of the previous line since start */
	/* -p/-t: each opened thread's name and process, read at open time
	 * (a thread that exits takes its /proc entry with it) */
	char (*comms)[16];
	pid_t *tgids;
	/* metrics, and the uncertainty of multiplexed counts */
	struct stat_metrics *sm;
	struct hpm_slices *slices;
	bool sample;            /* some event may be multiplexed: sample it */
	uint64_t sample_ns;     /* how often */
	struct stat_user *user; /* stat-user.c */
};

static void on_task(enum hpm_task_event what, const struct hpm_task *t,
		    uint64_t time_ns, const struct hpm_count *counts, void *arg)
{
	struct run *run = arg;
	if (!run->t0_ns)
		run->t0_ns = time_ns;
	stat_print_trace(run->out, run->r, what, t,
			 (double)(time_ns - run->t0_ns) / 1e9, counts);
}

/* Thread @tid's name, from the context's procfs (tests point it at
 * recorded trees); "" when it cannot be read. */
static void read_comm(const struct hpm_ctx *ctx, pid_t tid, char *buf, size_t len)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%d/comm", hpm_ctx__procfs_root(ctx), (int)tid);
	FILE *f = fopen(path, "r");
	buf[0] = '\0';
	if (f) {
		if (fgets(buf, (int)len, f))
			buf[strcspn(buf, "\n")] = '\0';
		fclose(f);
	}
}

/* Thread @tid's process, from the context's procfs; @tid itself when it
 * cannot be read. */
static pid_t read_tgid(const struct hpm_ctx *ctx, pid_t tid)
{
	char path[PATH_MAX], line[128];
	pid_t tgid = tid;
	snprintf(path, sizeof(path), "%s/%d/status", hpm_ctx__procfs_root(ctx), (int)tid);
	FILE *f = fopen(path, "r");
	if (!f)
		return tid;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

static void remember_threads(struct run *run)
{
	size_t n = hpm_session__nr_threads(run->s);
	free(run->comms);
	free(run->tgids);
	run->comms = calloc(n ? n : 1, sizeof(*run->comms));
	run->tgids = calloc(n ? n : 1, sizeof(*run->tgids));
	if (!run->comms || !run->tgids)
		return;
	for (size_t t = 0; t < n; t++) {
		pid_t tid = hpm_session__thread(run->s, t);
		pid_t pid = read_tgid(run->ctx, tid);
		run->tgids[t] = pid;
		/* per-process rows are named after the process, as perf does */
		read_comm(run->ctx, run->r->agg == AGG_PROCESS ? pid : tid, run->comms[t],
			  sizeof(run->comms[t]));
	}
}

static void free_rows(struct stat_report *r)
{
	for (size_t k = 0; k < r->nr_rows; k++) {
		free(r->rows[k].c);
		free(r->rows[k].absent);
		free(r->rows[k].mc);
		free(r->rows[k].mv);
		free(r->rows[k].per_sec);
		free(r->rows[k].per_kinst);
		free(r->rows[k].dval);
		free(r->rows[k].dc);
	}
	free(r->rows);
	r->rows = NULL;
	r->nr_rows = 0;
}

static struct stat_row *add_row(struct stat_report *r)
{
	struct stat_row *v = realloc(r->rows, (r->nr_rows + 1) * sizeof(*v));
	if (!v)
		return NULL;
	r->rows = v;
	struct stat_row *row = &v[r->nr_rows];
	memset(row, 0, sizeof(*row));
	row->c = calloc(r->nr_ev, sizeof(*row->c));
	row->absent = calloc(r->nr_ev, sizeof(*row->absent));
	if (!row->c || !row->absent) {
		free(row->c);
		free(row->absent);
		return NULL;
	}
	r->nr_rows++;
	return row;
}

static void add_count(struct hpm_count *dst, const struct hpm_count *src)
{
	if (src->err) {
		if (!dst->value && !dst->running)
			dst->err = src->err;
		return;
	}
	dst->err = 0;
	dst->value += src->value;
	dst->enabled += src->enabled;
	dst->running += src->running;
}

/* Breakdown rows for the report, from the session. */
static int collect_rows(struct run *run)
{
	struct stat_report *r = run->r;
	struct hpm_session *s = run->s;
	struct stat_row *row;

	free_rows(r);
	if (r->agg == AGG_CPU) {
		for (size_t k = 0; k < hpm_session__nr_cpus(s); k++) {
			if (!(row = add_row(r)))
				return -ENOMEM;
			row->cpu = hpm_session__cpu(s, k);
			snprintf(row->label, sizeof(row->label), "CPU%d", row->cpu);
			for (size_t i = 0; i < r->nr_ev; i++) {
				hpm_session__read_cpu(s, i, k, &row->c[i]);
				row->absent[i] = !hpm_event__on_cpu(hpm_evlist__event(run->list, i),
								    row->cpu);
			}
		}
		return 0;
	}
	if (r->agg == AGG_GLOBAL)
		return 0;
	if (run->o->argv && !run->o->tg.nr_ids) {
		/* launched command: tasks from the kernel's records */
		for (size_t t = 0; t < hpm_session__nr_tasks(s); t++) {
			const struct hpm_task *task = hpm_session__task(s, t);
			struct hpm_count c;
			row = NULL;
			if (r->agg == AGG_PROCESS)
				for (size_t k = 0; k < r->nr_rows; k++)
					if (r->rows[k].pid == task->pid)
						row = &r->rows[k];
			if (!row) {
				if (!(row = add_row(r)))
					return -ENOMEM;
				row->pid = task->pid;
				row->tid = task->tid;
				snprintf(row->comm, sizeof(row->comm), "%s", task->comm);
				snprintf(row->label, sizeof(row->label), "%s-%d", task->comm,
					 r->agg == AGG_PROCESS ? task->pid : task->tid);
			}
			for (size_t i = 0; i < r->nr_ev; i++) {
				hpm_session__read_task(s, i, t, &c);
				add_count(&row->c[i], &c);
			}
		}
		return 0;
	}
	/* -p / -t: one slot per thread */
	for (size_t t = 0; t < hpm_session__nr_threads(s); t++) {
		pid_t tid = hpm_session__thread(s, t);
		pid_t pid = run->tgids ? run->tgids[t] : tid;
		struct hpm_count c;
		row = NULL;
		if (r->agg == AGG_PROCESS)
			for (size_t k = 0; k < r->nr_rows; k++)
				if (r->rows[k].pid == pid)
					row = &r->rows[k];
		if (!row) {
			if (!(row = add_row(r)))
				return -ENOMEM;
			row->pid = pid;
			row->tid = tid;
			if (run->comms)
				memcpy(row->comm, run->comms[t], sizeof(row->comm));
			snprintf(row->label, sizeof(row->label), "%s-%d", row->comm,
				 r->agg == AGG_PROCESS ? pid : tid);
		}
		for (size_t i = 0; i < r->nr_ev; i++) {
			hpm_session__read_thread(s, i, t, &c);
			add_count(&row->c[i], &c);
		}
	}
	return 0;
}

void stat_merge_instances(struct stat_report *r)
{
	for (size_t h = 0; h < r->nr_ev; h++) {
		struct hpm_count sum = { 0 };
		double var = 0;
		if (!r->ev[h].merged)
			continue;
		for (size_t i = h; i < r->nr_ev; i++)
			if (r->ev[i].merge == h) {
				hpm_count__merge(&sum, &r->ev[i].c);
				var += r->ev[i].sigma * r->ev[i].sigma; /* NaN stays NaN */
			}
		r->ev[h].mc = sum;
		r->ev[h].msigma = sqrt(var);
		for (size_t k = 0; k < r->nr_rows; k++) {
			struct stat_row *row = &r->rows[k];
			struct hpm_count rs = { 0 };
			if (!row->mc && !(row->mc = calloc(r->nr_ev, sizeof(*row->mc))))
				continue;
			for (size_t i = h; i < r->nr_ev; i++)
				if (r->ev[i].merge == h)
					hpm_count__merge(&rs, &row->c[i]);
			row->mc[h] = rs;
		}
	}
}

static void delta(struct hpm_count *d, const struct hpm_count *now, const struct hpm_count *prev)
{
	*d = *now;
	if (now->err)
		return;
	d->value = now->value - prev->value;
	d->enabled = now->enabled - prev->enabled;
	d->running = now->running - prev->running;
}

static void read_totals(struct run *run)
{
	for (size_t i = 0; i < run->r->nr_ev; i++)
		hpm_session__read(run->s, i, &run->r->ev[i].c);
}

/* Read every event once more for the uncertainty estimate (hpm_slices). */
static void sample_counts(struct run *run)
{
	struct hpm_count c;
	if (!run->sample)
		return;
	uint64_t t0 = now_ns();
	for (size_t i = 0; i < run->r->nr_ev; i++)
		if (hpm_session__read(run->s, i, &c) == 0)
			hpm_slices__add(run->slices, i, &c);
	/* keep the reading below 1% of the time */
	uint64_t took = now_ns() - t0;
	if (took * 100 > run->sample_ns)
		run->sample_ns = took * 100;
}

/* Each event's uncertainty, for counts @c read at the end of the slices
 * recorded (the totals, or one interval's deltas). */
static void set_sigmas(struct run *run, const struct hpm_count *now)
{
	struct stat_report *r = run->r;
	for (size_t i = 0; i < r->nr_ev; i++) {
		if (run->sample)
			hpm_slices__add(run->slices, i, &now[i]);
		const struct hpm_count *c = &r->ev[i].c;
		r->ev[i].sigma = run->sample ? hpm_slices__sigma(run->slices, i, c)
					     : (c->running < c->enabled ? NAN : 0);
	}
}

/* Everything computed from the counts before printing. */
static void prepare(struct run *run)
{
	if (run->sm)
		stat_metrics_compute(run->sm, run->r);
}

/* -I: print this interval's deltas and keep the totals for the next. */
static void interval_tick(struct run *run, uint64_t start)
{
	struct stat_report *r = run->r;
	struct hpm_count *now = calloc(r->nr_ev, sizeof(*now));
	uint64_t t = now_ns();

	if (!now)
		return;
	bool changed = t - start > run->last_tick_ns + 1000000;
	for (size_t i = 0; i < r->nr_ev; i++) {
		hpm_session__read(run->s, i, &now[i]);
		changed |= now[i].value != run->prev[i].value;
	}
	if (!changed) {
		free(now);
		return; /* nothing new since the last line, which was < 1 ms ago */
	}
	for (size_t i = 0; i < r->nr_ev; i++) {
		delta(&r->ev[i].c, &now[i], &run->prev[i]);
		run->prev[i] = now[i];
	}
	set_sigmas(run, now);
	hpm_slices__restart(run->slices);
	free(now);
	if (r->agg != AGG_GLOBAL) {
		collect_rows(run);
		if (run->nr_prev_rows < r->nr_rows) {
			/* rows only grow (new threads); keep earlier totals */
			struct hpm_count **v = realloc(run->prev_rows, r->nr_rows * sizeof(*v));
			if (!v)
				return;
			for (size_t k = run->nr_prev_rows; k < r->nr_rows; k++)
				v[k] = calloc(r->nr_ev, sizeof(struct hpm_count));
			run->prev_rows = v;
			run->nr_prev_rows = r->nr_rows;
		}
		for (size_t k = 0; k < r->nr_rows; k++)
			for (size_t i = 0; run->prev_rows[k] && i < r->nr_ev; i++) {
				struct hpm_count cur = r->rows[k].c[i];
				delta(&r->rows[k].c[i], &cur, &run->prev_rows[k][i]);
				run->prev_rows[k][i] = cur;
			}
	}
	stat_merge_instances(r);
	r->interval = true;
	r->ts = (double)(t - start) / 1e9;
	r->interval_ns = (uint64_t)run->o->interval_ms * 1000000ull;
	r->span_ns = t - start - run->last_tick_ns;
	run->last_tick_ns = t - start;
	prepare(run);
	stat_print(run->out, r);
	r->interval = false;
}

static bool targets_alive(const struct stat_opts *o)
{
	for (size_t i = 0; i < o->tg.nr_ids; i++)
		if (kill(o->tg.ids[i], 0) == 0 || errno == EPERM)
			return true;
	return false;
}

/*
 * Wait for the command (or Ctrl-C / the targets' end), draining records
 * and printing intervals. Returns 0 or -errno.
 */
static int wait_loop(struct run *run, struct child *ch, int *status,
		     struct rusage *ru, uint64_t start)
{
	int rbfd = hpm_session__poll_fd(run->s);
	uint64_t next = run->o->interval_ms ? start + (uint64_t)run->o->interval_ms * 1000000ull : 0;
	uint64_t next_sample = run->sample ? start + run->sample_ns : 0;
	bool have_child = ch && ch->pid > 0;

	for (;;) {
		struct pollfd p[2];
		nfds_t n = 0;
		int timeout = -1;

		if (have_child && ch->pidfd >= 0)
			p[n++] = (struct pollfd){ .fd = ch->pidfd, .events = POLLIN };
		if (rbfd >= 0)
			p[n++] = (struct pollfd){ .fd = rbfd, .events = POLLIN };
		if (next) {
			uint64_t t = now_ns();
			timeout = t >= next ? 0 : (int)((next - t + 999999) / 1000000);
		}
		if (next_sample) {
			uint64_t t = now_ns();
			int ts = t >= next_sample ? 0 : (int)((next_sample - t + 999999) / 1000000);
			if (timeout < 0 || ts < timeout)
				timeout = ts;
		}
		if (!have_child || ch->pidfd < 0)
			timeout = timeout < 0 || timeout > 100 ? 100 : timeout;
		int rc = poll(p, n, timeout);
		if (rc < 0 && errno != EINTR)
			return -errno;
		if (rbfd >= 0)
			hpm_session__drain(run->s);
		if (next_sample && now_ns() >= next_sample) {
			sample_counts(run);
			next_sample = now_ns() + run->sample_ns;
		}
		if (next && now_ns() >= next) {
			interval_tick(run, start);
			next += (uint64_t)run->o->interval_ms * 1000000ull;
		}
		if (have_child) {
			pid_t w = wait4(ch->pid, status, WNOHANG, ru);
			if (w == ch->pid)
				return 0;
			if (w < 0 && errno != EINTR)
				return -errno;
			continue; /* Ctrl-C: the command decides; we wait for it */
		}
		if (got_signal)
			return 0;
		if (run->o->tg.nr_ids && !targets_alive(run->o))
			return 0;
	}
}

/* What was counted, for the advice on an event that could not be. */
static int advice_target(const struct stat_opts *o)
{
	return o->tg.system ? ADVICE_SYSTEM : o->tg.nr_ids ? ADVICE_ATTACH : ADVICE_COMMAND;
}

static void finish_events(struct run *run)
{
	struct stat_report *r = run->r;
	for (size_t i = 0; i < r->nr_ev; i++) {
		struct stat_event *e = &r->ev[i];
		const struct hpm_event *ev = hpm_evlist__event(run->list, i);
		e->err = hpm_session__event_error(run->s, i);
		if (e->err == -ENODEV && hpm_event__cpus(ev)[0])
			snprintf(e->reason, sizeof(e->reason),
				 "PMU %s counts on CPUs %s only, and none of them is counted here",
				 hpm_event__pmu(ev), hpm_event__cpus(ev));
		else if (e->err && !stat_user_reason(run->s, i, e->reason, sizeof(e->reason)))
			advice_open(run->ctx, ev, e->err, advice_target(run->o), e->reason,
				    sizeof(e->reason));
		if (hpm_session__event_user_only(run->s, i) && !strstr(e->name, ":u"))
			strncat(e->name, ":u", sizeof(e->name) - strlen(e->name) - 1);
	}
}

static int open_failed(struct run *run, int err)
{
	char why[320];
	const struct hpm_event *ev = hpm_evlist__event(run->list, 0);
	if (!stat_user_reason(run->s, 0, why, sizeof(why)))
		advice_open(run->ctx, ev, err, advice_target(run->o), why, sizeof(why));
	fprintf(stderr, "hpmon stat: cannot count '%s': %s\n", hpm_event__name(ev), why);
	return HPM_EXIT_FAIL;
}

/* Run the measurement once. Returns HPM_EXIT_* or the command's status. */
static int measure(struct run *run)
{
	struct stat_opts *o = run->o;
	struct stat_report *r = run->r;
	struct child ch = { .pid = -1, .go_fd = -1, .err_fd = -1, .pidfd = -1 };
	struct hpm_session_opts so = { .sz = sizeof(so) };
	pid_t ids[TARGET_MAX_IDS];
	int status = 0, rc;
	struct rusage ru = { 0 };
	uint64_t start;

	rc = stat_user_before_start(run->user);
	if (rc)
		return rc;
	if (o->argv) {
		rc = child_start(o->argv, &ch);
		if (rc) {
			fprintf(stderr, "hpmon stat: cannot start '%s': %s\n", o->argv[0], strerror(-rc));
			return HPM_EXIT_FAIL;
		}
	}
	if (o->tg.system) {
		so.target = HPM_TARGET_CPUS;
		so.cpus = o->tg.nr_cpus ? o->tg.cpus : NULL;
		so.nr_cpus = o->tg.nr_cpus;
	} else if (o->tg.nr_ids) {
		so.target = o->tg.by_tid ? HPM_TARGET_TIDS : HPM_TARGET_PIDS;
		memcpy(ids, o->tg.ids, o->tg.nr_ids * sizeof(pid_t));
		so.ids = ids;
		so.nr_ids = o->tg.nr_ids;
	} else {
		so.target = HPM_TARGET_EXEC;
		ids[0] = ch.pid;
		so.ids = ids;
		so.nr_ids = 1;
		so.track_tasks = o->agg == AGG_THREAD || o->agg == AGG_PROCESS || o->trace;
	}
	stat_user_session_opts(run->user, &so, so.target == HPM_TARGET_EXEC);
	run->s = hpm_session__new(run->list, &so);
	if (!run->s) {
		rc = -errno;
		child_abort(&ch);
		if (rc == -ESRCH)
			fprintf(stderr, "hpmon stat: no such process or thread: %d\n", (int)o->tg.ids[0]);
		else
			fprintf(stderr, "hpmon stat: cannot set up counting: %s\n", hpm_strerror(rc));
		return HPM_EXIT_FAIL;
	}
	if (o->trace)
		hpm_session__on_task(run->s, on_task, run);
	rc = hpm_session__open(run->s);
	if (rc) {
		child_abort(&ch);
		return open_failed(run, rc);
	}
	finish_events(run);
	remember_threads(run);
	/* sample the counts when some event may be multiplexed */
	run->sample = false;
	for (size_t i = 0; i < r->nr_ev; i++) {
		uint32_t type = hpm_event__attr(hpm_evlist__event(run->list, i))->type;
		if (!r->ev[i].err && type != PERF_TYPE_SOFTWARE && type != PERF_TYPE_TRACEPOINT)
			run->sample = true;
	}
	hpm_slices__free(run->slices);
	run->slices = run->sample ? hpm_slices__new(r->nr_ev) : NULL;
	run->sample = run->slices != NULL;
	run->sample_ns = SAMPLE_MS * 1000000ull;
	if (so.target != HPM_TARGET_EXEC)
		hpm_session__enable(run->s);
	start = now_ns();
	for (size_t i = 0; i < r->nr_ev; i++)
		memset(&run->prev[i], 0, sizeof(run->prev[i]));
	run->last_tick_ns = 0;
	if (o->argv) {
		int e = child_go(&ch);
		if (e) {
			child_abort(&ch);
			fprintf(stderr, "hpmon stat: cannot run '%s': %s\n", o->argv[0], strerror(e));
			if (e == ENOENT)
				fprintf(stderr, "  check the name, or give its path\n");
			return HPM_EXIT_EXEC;
		}
		stat_user_started(run->user, run->s);
		finish_events(run); /* locations open at the exec */
	}
	rc = wait_loop(run, o->argv ? &ch : NULL, &status, &ru, start);
	r->elapsed_ns = now_ns() - start;
	if (!rc && o->interval_ms)
		interval_tick(run, start); /* the last, partial interval, as perf */
	hpm_session__disable(run->s);
	hpm_session__drain(run->s);
	if (ch.pidfd >= 0)
		close(ch.pidfd);
	child_pid = 0;
	if (rc) {
		fprintf(stderr, "hpmon stat: waiting failed: %s\n", strerror(-rc));
		return HPM_EXIT_FAIL;
	}
	read_totals(run);
	{
		struct hpm_count *now = malloc(r->nr_ev * sizeof(*now));
		for (size_t i = 0; now && i < r->nr_ev; i++)
			now[i] = r->ev[i].c;
		if (now)
			set_sigmas(run, now);
		free(now);
	}
	collect_rows(run);
	stat_merge_instances(r);
	r->lost = hpm_session__lost(run->s);
	r->interrupted = got_signal != 0;
	if (o->argv && !o->tg.nr_ids && !o->tg.system) {
		r->user_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
		r->sys_s = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	}
	if (o->argv) {
		r->have_status = true;
		if (WIFSIGNALED(status)) {
			r->term_signal = WTERMSIG(status);
			r->exit_status = 128 + r->term_signal;
		} else {
			r->exit_status = WEXITSTATUS(status);
		}
		return r->exit_status;
	}
	return got_signal == SIGINT || !got_signal ? HPM_EXIT_OK : 128 + got_signal;
}

/* ---- the command ---- */

static FILE *open_output(const struct stat_opts *o)
{
	if (!o->output)
		return stderr;
	FILE *f = fopen(o->output, o->append ? "a" : "w");
	if (!f)
		fprintf(stderr, "hpmon stat: cannot write '%s': %s\n", o->output, strerror(errno));
	return f;
}

static void describe_target(const struct stat_opts *o, char *buf, size_t len)
{
	if (o->tg.system) {
		if (o->tg.nr_cpus)
			snprintf(buf, len, "CPU(s) %d%s", o->tg.cpus[0], o->tg.nr_cpus > 1 ? ",..." : "");
		else
			snprintf(buf, len, "system wide");
	} else if (o->tg.nr_ids) {
		snprintf(buf, len, "%s id %d%s", o->tg.by_tid ? "thread" : "process", (int)o->tg.ids[0],
			 o->tg.nr_ids > 1 ? ",..." : "");
	} else {
		buf[0] = '\0';
	}
}

int cmd_stat(int argc, char **argv, struct hpm_ctx *ctx)
{
	struct stat_opts *o = calloc(1, sizeof(*o));
	struct stat_report r = { 0 };
	struct stat_out out = { 0 };
	struct hpm_parse_error perr;
	struct hpm_evlist *list = NULL;
	struct run run = { 0 };
	char target[64];
	double *sum = NULL, *sumsq = NULL;
	double el_sum = 0, el_sumsq = 0;
	int rc;

	if (!o)
		return HPM_EXIT_FAIL;
	rc = parse_opts(argc, argv, o);
	if (rc) {
		free(o);
		return rc < 0 ? HPM_EXIT_OK : rc;
	}
	if (o->tg.nr_cpus && (rc = check_cpus(ctx, o))) {
		free(o);
		return rc;
	}
	bool metrics_asked = o->nr_mgroups || o->nr_minline || o->nr_mfiles;
	if (!o->events_given && !metrics_asked)
		append_events(o, default_events());
	struct stat_metrics_opts mo = {
		.metrics = { .groups = o->mgroups, .nr_groups = o->nr_mgroups,
			     .inline_defs = o->minline, .nr_inline = o->nr_minline,
			     .files = o->mfiles, .nr_files = o->nr_mfiles },
		.per_second = o->per_second, .per_kinst = o->per_kinst,
	};
	rc = stat_metrics_setup(ctx, &mo, &run.sm);
	if (rc) {
		free(o);
		return rc;
	}
	if (o->events[0])
		rc = hpm_evlist__parse(ctx, o->events, &list, &perr);
	else if (!(list = hpm_evlist__new(ctx)))
		rc = -errno;
	if (rc) {
		advice_parse(stderr, o->events, &perr);
		stat_metrics_free(run.sm);
		free(o);
		return HPM_EXIT_USAGE;
	}
	rc = stat_metrics_add_events(run.sm, list);
	if (!rc && !hpm_evlist__count(list)) {
		fprintf(stderr, "hpmon stat: nothing to count: no metric selected has an event "
				"that resolves here\n");
		stat_metrics_explain(run.sm, stderr);
		rc = HPM_EXIT_USAGE;
	}
	if (rc) {
		hpm_evlist__free(list);
		stat_metrics_free(run.sm);
		free(o);
		return rc;
	}
	out.f = open_output(o);
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
		rc = measure(&run);
		stat_user_finished(run.user, run.s);
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
				c->value = (uint64_t)llround(mean / r.ev[i].scale);
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
		prepare(&run);
		stat_print(&out, &r);
	}
	stat_user_print(run.user, &out);
	if (got_signal && got_signal != SIGINT && !o->argv)
		rc = 128 + got_signal;
out:
	stat_user_free(run.user);
	free_rows(&r);
	free(run.comms);
	free(run.tgids);
	for (size_t k = 0; k < run.nr_prev_rows; k++)
		free(run.prev_rows[k]);
	free(run.prev_rows);
	free(r.ev);
	free(r.metrics);
	hpm_slices__free(run.slices);
	stat_metrics_free(run.sm);
	free(run.prev);
	free(sum);
	free(sumsq);
	hpm_evlist__free(list);
	if (out.f && out.f != stderr)
		fclose(out.f);
	free(o);
	return rc;
}
