/* SPDX-License-Identifier: MIT */
/*
 * hpmon record: sample events while a command runs (or for processes,
 * threads or CPUs) and write a profile (docs/hpmon-record.md,
 * docs/profile-format.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <hpmon/record.h>
#include <hpmon/sysinfo.h>
#include "output/advice.h"
#include "output/attr-dump.h"
#include "builtin.h"
#include "cache/cachedir.h"
#include "cache/kcache.h"
#include "launch/launch.h"
#include "output/output.h"
#include "output/outname.h"
#include "launch/proctree.h"
#include "record/record-cmd.h"



static const char record_usage[] =
	"usage: hpmon record [options] [--] COMMAND [ARGS]\n"
	"       hpmon record [options] -p PID | -t TID | -a [-C CPUS] [COMMAND]\n"
	"\n"
	"Sample events on counter overflow while COMMAND runs (children and threads\n"
	"included), or for existing processes, threads or CPUs until they end or\n"
	"Ctrl-C, and write a profile for 'hpmon report'.\n"
	"\n"
	"  -e, --event EVENTS     events that trigger samples (perf syntax); a group\n"
	"                         '{cycles,instructions}' samples on its leader and\n"
	"                         reads the members at each sample; exec:FUNC samples\n"
	"                         every call of FUNC (docs/location-events.md)\n"
	"  -c, --count PERIOD     sample every PERIOD events (default: a prime per event)\n"
	"  -F, --freq HZ          sample HZ times a second instead\n"
	"      --random-period    vary each period by up to +-1/8 as the run goes\n"
	"      --seed N           seed of --random-period\n"
	"  -g                     record call chains (frame pointers)\n"
	"      --call-graph MODE  fp, or dwarf[,BYTES] (user stack copies); an event's\n"
	"                         call-graph=, stack-size=, time=0, period=, freq=\n"
	"                         terms win for that event ('cycles/call-graph=no/')\n"
	"  -p, --pid PIDS         existing processes (comma separated)\n"
	"  -t, --tid TIDS         existing threads\n"
	"  -a, --all-cpus         system-wide on every CPU\n"
	"  -C, --cpu CPUS         system-wide on these CPUs (0,2-3)\n"
	"  -o, --output FILE      the profile (default hpmon.prof; an existing one is\n"
	"                         moved to FILE.old once the command runs)\n"
	"      --on-error WHAT    when the profile cannot be written (a full disk):\n"
	"                         continue (default: the command runs to its end,\n"
	"                         unrecorded) or stop (it gets SIGTERM)\n"
	"  -m, --mmap-pages N     ring buffer pages per CPU, a power of two (default 128)\n"
	"      --timeline-interval MS  read every event per thread each MS ms of its\n"
	"                         running time, for report --timeline (default 10; 0: off)\n"
	"      --timeline-mode M  auto (default: per thread where the kernel can, Linux\n"
	"                         6.12, else poll) or poll: hpmon reads the whole\n"
	"                         process every MS ms of wall time\n"
	"      --force            sample even above the kernel's sample-rate limit\n"
	"      --no-cache         do not keep the kernel's symbols for later reports\n"
	"  -q, --quiet            no summary on stderr\n"
	"  -v, --verbose          -vv: print each perf_event_attr and open, as perf -vv\n"
	"  -h, --help             this help\n"
	"\n"
	"Exit status: the command's own; 127 if it could not be run; 129 for bad\n"
	"options; 1 if recording failed (or the profile could not be written and the\n"
	"command exited 0). See docs/hpmon-record.md.\n";

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "hpmon record: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nSee 'hpmon record --help'.\n");
	return HPM_EXIT_USAGE;
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 0);
	if (errno || end == s || *end || s[0] == '-')
		return -1;
	*v = x;
	return 0;
}

static int parse_callgraph(struct record_opts *o, const char *arg)
{
	if (!strcmp(arg, "fp")) {
		o->callchain = HPM_CALLCHAIN_FP;
		return 0;
	}
	if (!strncmp(arg, "dwarf", 5) && (arg[5] == '\0' || arg[5] == ',')) {
		uint64_t n = 8192;
		if (arg[5] == ',' && (parse_u64(arg + 6, &n) || n < 8 || n > 65528))
			return -1;
		o->callchain = HPM_CALLCHAIN_DWARF;
		o->stack_bytes = (uint32_t)n;
		return 0;
	}
	return -1;
}

enum { OPT_RANDOM = 256, OPT_SEED, OPT_CALLGRAPH, OPT_FORCE, OPT_NO_CACHE, OPT_ON_ERROR,
       OPT_TIMELINE, OPT_TIMELINE_MODE };

static int parse_opts(int argc, char **argv, struct record_opts *o)
{
	static const struct option longopts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "count", required_argument, NULL, 'c' },
		{ "freq", required_argument, NULL, 'F' },
		{ "random-period", no_argument, NULL, OPT_RANDOM },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "call-graph", required_argument, NULL, OPT_CALLGRAPH },
		{ "pid", required_argument, NULL, 'p' },
		{ "tid", required_argument, NULL, 't' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "output", required_argument, NULL, 'o' },
		{ "mmap-pages", required_argument, NULL, 'm' },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "no-cache", no_argument, NULL, OPT_NO_CACHE },
		{ "on-error", required_argument, NULL, OPT_ON_ERROR },
		{ "timeline-interval", required_argument, NULL, OPT_TIMELINE },
		{ "timeline-mode", required_argument, NULL, OPT_TIMELINE_MODE },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *why;
	int c;
	uint64_t v;

	o->output = "hpmon.prof";
	o->timeline_ns = 10000000;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+e:c:F:gp:t:aC:o:m:qvh", longopts, NULL)) != -1) {
		switch (c) {
		case 'e': {
			size_t len = strlen(o->events);
			if (len + strlen(optarg) + 2 > sizeof(o->events))
				return usage_error("event list too long: '%s'", optarg);
			snprintf(o->events + len, sizeof(o->events) - len, "%s%s", len ? "," : "",
				 optarg);
			o->events_given = true;
			break;
		}
		case 'c':
			if (parse_u64(optarg, &o->period) || !o->period)
				return usage_error("-c takes a period of 1 or more events, not '%s'", optarg);
			break;
		case 'F':
			if (parse_u64(optarg, &o->freq) || !o->freq)
				return usage_error("-F takes samples a second (1 or more), not '%s'", optarg);
			break;
		case OPT_RANDOM: o->random_period = true; break;
		case OPT_SEED:
			if (parse_u64(optarg, &o->seed))
				return usage_error("--seed takes a number, not '%s'", optarg);
			break;
		case 'g': o->callchain = HPM_CALLCHAIN_FP; break;
		case OPT_CALLGRAPH:
			if (parse_callgraph(o, optarg))
				return usage_error("--call-graph takes fp or dwarf[,BYTES], not '%s'", optarg);
			break;
		case 'p':
		case 't':
		case 'a':
		case 'C':
			if (target_option(&o->tg, c, optarg, &why) < 0)
				return usage_error(why, optarg);
			break;
		case 'o': o->output = optarg; break;
		case 'm':
			if (parse_u64(optarg, &v) || !v || (v & (v - 1)) || v > 65536)
				return usage_error("-m takes a power of two of pages, not '%s'", optarg);
			o->mmap_pages = (uint32_t)v;
			break;
		case OPT_FORCE: o->force = true; break;
		case OPT_NO_CACHE: o->no_cache = true; break;
		case OPT_ON_ERROR:
			if (strcmp(optarg, "stop") && strcmp(optarg, "continue"))
				return usage_error("--on-error takes stop or continue, not '%s'", optarg);
			o->stop_on_error = !strcmp(optarg, "stop");
			break;
		case OPT_TIMELINE:
			if (parse_u64(optarg, &v) || v > 60000)
				return usage_error("--timeline-interval takes milliseconds from 0 (off) to "
						   "60000, not '%s'", optarg);
			o->timeline_ns = v * 1000000;
			o->timeline_given = true;
			break;
		case OPT_TIMELINE_MODE:
			if (strcmp(optarg, "auto") && strcmp(optarg, "poll"))
				return usage_error("--timeline-mode takes auto or poll, not '%s'", optarg);
			o->timeline_poll = !strcmp(optarg, "poll");
			break;
		case 'q': o->quiet = true; break;
		case 'v': o->verbose++; break;
		case 'h':
			fputs(record_usage, stdout);
			return -1;
		default:
			if (optopt && strchr("ecFptCom", optopt))
				return usage_error("option '%s' needs a value", argv[optind - 1]);
			return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	o->argv = argv + optind;
	if (!*o->argv)
		o->argv = NULL;
	if (o->period && o->freq)
		return usage_error("%s", "-c and -F exclude each other");
	why = target_check(&o->tg, o->argv != NULL);
	if (why)
		return usage_error(why, "record");
	if (o->argv && o->tg.nr_ids)
		return usage_error("%s", "-p/-t and a COMMAND exclude each other (with -a, the "
				   "COMMAND says how long to record)");
	if (outname_expand("hpmon record", o->output, o->output_name, sizeof(o->output_name)))
		return advice_usage_end("record");
	o->output = o->output_name;
	return 0;
}

/* ---- defaults and limits ---- */

static bool hw_samples_here(void)
{
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_HARDWARE,
				     .config = PERF_COUNT_HW_CPU_CYCLES, .sample_period = 1000003,
				     .disabled = 1 };
	return hpm_sysinfo__probe(&a, 0, -1, HPM_PROBE_USER_ONLY, NULL) == 0;
}

/*
 * Samples a second that @a asks for, as far as it can be known: exact for
 * clocks (ns), a ceiling for cycles and instructions (4 GHz, 4 per cycle
 * would be more, but cycles are what is sampled by default), else 0.
 */
static double expected_rate(const struct perf_event_attr *a)
{
	if (a->freq)
		return (double)a->sample_freq;
	if (!a->sample_period)
		return 0;
	if (a->type == PERF_TYPE_SOFTWARE &&
	    (a->config == PERF_COUNT_SW_CPU_CLOCK || a->config == PERF_COUNT_SW_TASK_CLOCK))
		return 1e9 / (double)a->sample_period;
	if (a->type == PERF_TYPE_HARDWARE && (a->config == PERF_COUNT_HW_CPU_CYCLES ||
					     a->config == PERF_COUNT_HW_INSTRUCTIONS ||
					     a->config == PERF_COUNT_HW_REF_CPU_CYCLES))
		return 4e9 / (double)a->sample_period;
	return 0;
}

/* Refuse rates the kernel would throttle (or refuse), saying how to go on. */
static int check_rates(struct hpm_record *rec, struct hpm_evlist *list, int max_rate,
		       const struct record_opts *o)
{
	for (size_t i = 0; i < hpm_evlist__count(list); i++) {
		const struct perf_event_attr *a = hpm_record__attr(rec, i);
		const char *name = hpm_event__name(hpm_evlist__event(list, i));
		double rate = hpm_record__trigger(rec, i) ? expected_rate(a) : 0;
		if (max_rate <= 0 || rate <= max_rate)
			continue;
		if (a->freq) {
			fprintf(stderr, "hpmon record: -F %llu for '%s' is above the kernel's limit of "
				"%d samples a second (kernel.perf_event_max_sample_rate), which the "
				"kernel refuses; use -F %d or less, or raise the limit as root: "
				"sysctl -w kernel.perf_event_max_sample_rate=%llu\n",
				(unsigned long long)a->sample_freq, name, max_rate, max_rate,
				(unsigned long long)a->sample_freq);
			return advice_usage_end("record");
		}
		if (o->force)
			continue;
		fprintf(stderr, "hpmon record: a period of %llu for '%s' means up to %.0f samples "
			"a second, above the kernel's limit of %d (kernel.perf_event_max_sample_rate): "
			"the kernel would throttle it and the profile would miss whole intervals.\n"
			"  Use a period of at least %.0f, or --force to sample anyway (throttling is "
			"then reported), or raise the limit as root: "
			"sysctl -w kernel.perf_event_max_sample_rate=N\n",
			(unsigned long long)a->sample_period, name, rate, max_rate,
			(double)a->sample_period * rate / max_rate + 1);
		return advice_usage_end("record");
	}
	return 0;
}

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- writing ---- */

struct rec_run {
	struct hpm_profile_writer *w;
	struct rec_timeline *tl;
	struct hpm_record *rec;
	bool spans;                /* the kernel's per-thread timers: samples give spans */
	int err;
	uint64_t kernel_samples;
	uint64_t chain[1025];      /* a call chain completed by hpm_record__entry_chain */
};

static int on_record(const struct hpm_prec *p, void *arg)
{
	struct rec_run *run = arg;
	struct hpm_prec fixed;

	if (p->type == HPM_PREC_READ) {
		int rc = rec_timeline__add(run->tl, run->w, &p->read);
		if (rc && !run->err)
			run->err = rc;
		return rc == -EINVAL ? 0 : rc;
	}
	/* the timeline's spans: when threads started, and ran where */
	if (rec_timeline__note(run->tl, p, run->spans) && !run->err)
		run->err = -ENOMEM;
	if (p->type == HPM_PREC_SAMPLE) {
		if (p->sample.mode == HPM_MODE_KERNEL)
			run->kernel_samples++;
	}
	if (p->type == HPM_PREC_SAMPLE &&
	    hpm_record__entry_chain(run->rec, &p->sample, &fixed.sample, run->chain,
				    sizeof(run->chain) / sizeof(run->chain[0]))) {
		fixed.type = HPM_PREC_SAMPLE;
		p = &fixed;
	}
	int rc = hpm_profile_writer__add(run->w, p);
	if (rc && !run->err)
		run->err = rc;
	return rc == -EINVAL ? 0 : rc;
}

/* Drain until the command ends (or Ctrl-C / the targets end). */
static int loop(struct hpm_record *rec, struct rec_run *run, struct child *ch,
		const struct record_opts *o, int *status, bool *reaped)
{
	int rfd = hpm_record__poll_fd(rec);
	uint64_t last_flush = now_ns(CLOCK_MONOTONIC);

	for (;;) {
		struct pollfd p[2];
		nfds_t n = 0;
		if (ch && ch->pidfd >= 0)
			p[n++] = (struct pollfd){ .fd = ch->pidfd, .events = POLLIN };
		p[n++] = (struct pollfd){ .fd = rfd, .events = POLLIN };
		/* a timeline read by hpmon (before Linux 6.12): its readings
		 * are taken in the drain, so wake up when the next one is due */
		int wait_ms = 100;
		uint64_t due = hpm_record__timeline_due(rec), now = now_ns(CLOCK_MONOTONIC);
		if (due)
			wait_ms = due <= now ? 0 : due - now >= 100000000 ? 100
					     : (int)((due - now + 999999) / 1000000);
		int rc = poll(p, n, wait_ms);
		if (rc < 0 && errno != EINTR)
			return -errno;
		rc = hpm_record__drain(rec, on_record, run);
		if (rc < 0)
			return rc;
		uint64_t t = now_ns(CLOCK_MONOTONIC);
		if (t - last_flush > 1000000000ull) {
			/* a killed recorder loses at most the last second */
			if ((rc = hpm_profile_writer__flush(run->w)))
				return rc;
			last_flush = t;
		}
		if (ch) {
			pid_t w = waitpid(ch->pid, status, WNOHANG);
			if (w == ch->pid) {
				*reaped = true;
				return 0;
			}
			if (w < 0 && errno != EINTR)
				return -errno;
			continue;
		}
		if (got_signal)
			return 0;
		bool alive = o->tg.nr_ids == 0;
		for (size_t i = 0; i < o->tg.nr_ids; i++)
			if (kill(o->tg.ids[i], 0) == 0 || errno == EPERM)
				alive = true;
		if (!alive)
			return 0;
	}
}

/*
 * Recording failed while the command runs (a full disk): sampling is off
 * already. The command is never left behind: it runs to its end, which
 * hpmon waits for (--on-error=continue, the default: the user's work is
 * not lost to a profile that could not be kept), or gets SIGTERM first
 * (--on-error=stop, as perf record does, and to the processes the command
 * started too). Returns @err.
 */
static int stop_recording(const struct record_opts *o, struct child *ch, int err, int *status,
			  bool *reaped)
{
	fprintf(stderr, "hpmon record: recording stopped: %s\n", hpm_strerror(err));
	if (!o->argv || *reaped || ch->pid <= 0)
		return err;
	if (o->stop_on_error) {
		fprintf(stderr, "hpmon record: stopping '%s' (--on-error=stop)\n", o->argv[0]);
		proctree_signal(ch->pid, SIGTERM);
	} else {
		fprintf(stderr, "hpmon record: '%s' runs on to its end, unrecorded (--on-error=stop "
			"ends it)\n", o->argv[0]);
	}
	for (;;) {
		pid_t w = waitpid(ch->pid, status, 0);
		if (w == ch->pid) {
			*reaped = true;
			break;
		}
		if (w < 0 && errno != EINTR)
			break;
	}
	return err;
}

/* ---- location events (docs/location-events.md) ---- */

static bool has_locations(const struct hpm_evlist *list)
{
	for (size_t i = 0; i < hpm_evlist__count(list); i++)
		if (!strcmp(hpm_event__pmu(hpm_evlist__event(list, i)), "exec"))
			return true;
	return false;
}

/* Check the locations against the command's program before starting it,
 * as stat does: a misspelt function is a usage error, and nothing runs.
 * (A program that cannot be found is left to the exec to report.) */
static int locations_fit(const struct hpm_evlist *list, const char *cmd)
{
	char prog[4096];
	struct hpm_parse_error e;

	if (find_program(cmd, prog, sizeof(prog)) &&
	    hpm_evlist__check_locations(list, prog, getenv("LD_LIBRARY_PATH"), &e)) {
		fprintf(stderr, "hpmon record: %s\n", e.msg);
		int rc = advice_location_status(e.err);
		return rc == HPM_EXIT_USAGE ? advice_usage_end("record") : rc;
	}
	return 0;
}

/* An event the kernel (or the library, for locations) refused. */
static void open_failed(struct hpm_ctx *ctx, struct hpm_evlist *list,
			const struct hpm_record *rec, const struct record_opts *o, int err)
{
	char why[320];
	size_t i = hpm_record__failed_event(rec);
	const struct hpm_event *ev = hpm_evlist__event(list, i);
	const char *m = hpm_record__event_message(rec, i);

	if (m)
		snprintf(why, sizeof(why), "%s", m);
	else
		advice_open(ctx, ev, err, o->tg.system ? ADVICE_SYSTEM : o->tg.nr_ids ? ADVICE_ATTACH
								: ADVICE_COMMAND, why, sizeof(why));
	fprintf(stderr, "hpmon record: cannot sample '%s': %s\n", hpm_event__name(ev), why);
}

static int record(struct record_opts *o, struct hpm_ctx *ctx, struct hpm_evlist *list)
{
	struct child ch = { .pid = -1, .go_fd = -1, .err_fd = -1, .pidfd = -1 };
	struct hpm_record_opts ro = { .sz = sizeof(ro) };
	struct hpm_sysinfo *si = hpm_sysinfo__read(ctx, NULL);
	struct hpm_record *rec = NULL;
	struct rec_run *run = calloc(1, sizeof(*run));
	pid_t ids[TARGET_MAX_IDS];
	struct out_file of = { .fd = -1 };
	int status = 0, rc, ret = HPM_EXIT_FAIL, failed = 0;
	bool locations = has_locations(list), reaped = false;
	uint64_t t0;

	if (!run || !(run->tl = rec_timeline__new())) {
		fprintf(stderr, "hpmon record: out of memory\n");
		goto out;
	}
	if (o->freq && si && si->perf_event_max_sample_rate > 0 &&
	    o->freq > (uint64_t)si->perf_event_max_sample_rate) {
		fprintf(stderr, "hpmon record: -F %llu is above the kernel's limit of %d samples a "
			"second (kernel.perf_event_max_sample_rate), which the kernel refuses; use "
			"-F %d or less, or raise the limit as root: "
			"sysctl -w kernel.perf_event_max_sample_rate=%llu\n",
			(unsigned long long)o->freq, si->perf_event_max_sample_rate,
			si->perf_event_max_sample_rate, (unsigned long long)o->freq);
		ret = advice_usage_end("record");
		goto out;
	}
	for (size_t i = 0; si && si->perf_event_max_sample_rate > 0 &&
			   i < hpm_evlist__count(list); i++) {
		/* a freq= term: the kernel refuses it as it refuses -F */
		const struct hpm_event *e = hpm_evlist__event(list, i);
		const struct perf_event_attr *a = hpm_event__attr(e);
		if (!a->freq || a->sample_freq <= (uint64_t)si->perf_event_max_sample_rate)
			continue;
		fprintf(stderr, "hpmon record: freq=%llu of '%s' is above the kernel's limit of %d "
			"samples a second (kernel.perf_event_max_sample_rate), which the kernel "
			"refuses; use freq=%d or less, or raise the limit as root: "
			"sysctl -w kernel.perf_event_max_sample_rate=%llu\n",
			(unsigned long long)a->sample_freq, hpm_event__name(e),
			si->perf_event_max_sample_rate, si->perf_event_max_sample_rate,
			(unsigned long long)a->sample_freq);
		ret = advice_usage_end("record");
		goto out;
	}
	if ((rc = advice_check_breakpoints(ctx, "record", list)) ||
	    (locations && o->argv && !o->tg.system && !o->tg.nr_ids &&
	     (rc = locations_fit(list, o->argv[0])))) {
		ret = rc;
		goto out;
	}
	if (o->argv && (rc = child_start(o->argv, &ch))) {
		fprintf(stderr, "hpmon record: cannot start '%s': %s\n", o->argv[0], strerror(-rc));
		goto out;
	}
	if (o->tg.system) {
		ro.target = HPM_TARGET_CPUS;
		ro.cpus = o->tg.nr_cpus ? o->tg.cpus : NULL;
		ro.nr_cpus = o->tg.nr_cpus;
	} else if (o->tg.nr_ids) {
		ro.target = o->tg.by_tid ? HPM_TARGET_TIDS : HPM_TARGET_PIDS;
		memcpy(ids, o->tg.ids, o->tg.nr_ids * sizeof(pid_t));
		ro.ids = ids;
		ro.nr_ids = o->tg.nr_ids;
	} else {
		ro.target = HPM_TARGET_EXEC;
		ids[0] = ch.pid;
		ro.ids = ids;
		ro.nr_ids = 1;
	}
	ro.period = o->period;
	ro.freq = o->freq;
	ro.random_period = o->random_period;
	ro.seed = o->seed ? o->seed : now_ns(CLOCK_MONOTONIC);
	ro.callchain = o->callchain;
	ro.stack_bytes = o->stack_bytes;
	ro.mmap_pages = o->mmap_pages;
	ro.timeline_ns = o->tg.system ? 0 : o->timeline_ns; /* per thread: not system-wide */
	ro.timeline_poll = o->timeline_poll;
	/* location events: resolved once the command exec'd (or now, in the
	 * processes given), against the program and its libraries */
	ro.stop_at_exec = locations && ro.target == HPM_TARGET_EXEC;
	ro.lib_path = getenv("LD_LIBRARY_PATH");
	rec = hpm_record__new(list, &ro);
	if (!rec) {
		rc = -errno;
		if (rc == -ESRCH && o->tg.nr_ids)
			target_say_missing("hpmon record", &o->tg, hpm_ctx__procfs_root(ctx));
		else
			fprintf(stderr, "hpmon record: cannot set up sampling: %s\n", hpm_strerror(rc));
		goto out;
	}
	run->rec = rec;
	if (o->verbose >= 2)
		hpm_record__on_open(rec, attr_dump_open, &o->vv);
	rc = hpm_record__open(rec);
	if (rc == -ESRCH && o->tg.nr_ids) {
		target_say_missing("hpmon record", &o->tg, hpm_ctx__procfs_root(ctx));
		goto out;
	}
	if (rc) {
		open_failed(ctx, list, rec, o, rc);
		goto out;
	}
	if ((rc = check_rates(rec, list, si ? si->perf_event_max_sample_rate : 0, o))) {
		ret = rc;
		goto out;
	}
	/* written beside the old profile, which stays as it was until the
	 * command runs (output.h) */
	if (out_open(&of, "hpmon record", o->output, OUT_KEEP_OLD))
		goto out;
	run->spans = hpm_record__timeline_mode(rec) == HPM_TIMELINE_TIMERS;
	run->w = record_start_profile(o, rec, list, si, out_take_fd(&of));
	if (!run->w)
		goto out;
	install_signals();
	if (ro.target != HPM_TARGET_EXEC)
		hpm_record__enable(rec);
	t0 = now_ns(CLOCK_MONOTONIC);
	if (o->argv) {
		int e = child_go(&ch);
		if (e) {
			child_abort(&ch);
			fprintf(stderr, "hpmon record: cannot run '%s': %s\n", o->argv[0], strerror(e));
			ret = HPM_EXIT_EXEC;
			goto out;
		}
		/* the command stopped at its exec: the locations open now (it
		 * ended already on -ESRCH, which the loop reports) */
		rc = hpm_record__complete_exec(rec);
		if (rc && rc != -ESRCH) {
			open_failed(ctx, list, rec, o, rc);
			kill(ch.pid, SIGKILL);
			waitpid(ch.pid, NULL, 0);
			goto out;
		}
	}
	/* the recording runs: the profile takes its name (and the old one
	 * becomes NAME.old), so that a recorder killed from here on leaves
	 * what it wrote where it is looked for */
	rc = out_publish(&of);
	if (!rc)
		rc = loop(rec, run, o->argv ? &ch : NULL, o, &status, &reaped);
	hpm_record__disable(rec);
	if (!rc)
		rc = hpm_record__drain(rec, on_record, run);
	if (rc >= 0) /* the first thread's last counts, once its others ended */
		rc = hpm_record__read_final(rec, on_record, run);
	if (rc < 0)
		failed = stop_recording(o, &ch, rc, &status, &reaped);
	child_pid = 0;
	struct hpm_record_stats st;
	hpm_record__stats(rec, &st);
	int exit_status = -1;
	if (o->argv && reaped)
		exit_status = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
	struct hpm_profile_totals tot = {
		.samples = st.samples, .lost = st.lost, .lost_samples = st.lost_samples,
		.throttled = st.throttled, .duration_ns = now_ns(CLOCK_MONOTONIC) - t0,
		.exit_status = exit_status,
	};
	/* after a failure the writer refuses to add to what is cut: the end
	 * record is then missing, which reports name */
	rc = hpm_profile_writer__close(run->w, &tot);
	run->w = NULL;
	if (!failed && (rc || run->err)) {
		failed = rc ? rc : run->err;
		fprintf(stderr, "hpmon record: writing '%s' failed: %s\n", o->output,
			hpm_strerror(failed));
	}
	if (failed) {
		fprintf(stderr, "hpmon record: '%s' holds what was written before the failure: "
			"'hpmon report -i %s' reads it and says it is incomplete\n", o->output,
			o->output);
		/* the command's own failure says more than ours */
		ret = exit_status > 0 ? exit_status : HPM_EXIT_FAIL;
		goto out;
	}
	struct stat sb;
	record_summary(o, ctx, rec, list, stat(o->output, &sb) == 0 ? (uint64_t)sb.st_size : 0);
	if (run->kernel_samples && !o->no_cache) {
		/* reports of this profile then find the kernel's symbols kept */
		char dir[PATH_MAX];
		kcache_ensure(hpm_ctx__procfs_root(ctx), cache_dir(dir, sizeof(dir)));
	}
	ret = o->argv ? exit_status_after_signal(exit_status) : got_signal && got_signal != SIGINT ? 128 + got_signal : 0;
out:
	if (ch.go_fd >= 0)
		child_abort(&ch); /* it never ran: it exits 127 on the closed pipe */
	else if (ch.pidfd >= 0)
		close(ch.pidfd);
	if (run) {
		hpm_profile_writer__free(run->w);
		rec_timeline__free(run->tl);
	}
	out_abort(&of); /* nothing once published: the previous profile stays otherwise */
	free(run);
	hpm_record__free(rec);
	hpm_sysinfo__free(si);
	return ret;
}

int cmd_record(int argc, char **argv, struct hpm_ctx *ctx)
{
	struct record_opts *o = calloc(1, sizeof(*o));
	struct hpm_parse_error perr;
	struct hpm_evlist *list = NULL;
	int rc;

	if (!o)
		return HPM_EXIT_FAIL;
	rc = parse_opts(argc, argv, o);
	if (rc) {
		free(o);
		return rc < 0 ? HPM_EXIT_OK : rc;
	}
	if (!o->events_given) {
		bool hw = hw_samples_here();
		snprintf(o->events, sizeof(o->events), "%s", hw ? "cycles" : "cpu-clock");
		if (!o->quiet)
			fprintf(stderr, "hpmon record: sampling %s%s\n", o->events,
				hw ? "" : " (no hardware PMU here: cycles cannot be sampled)");
	}
	rc = hpm_evlist__parse(ctx, o->events, &list, &perr);
	if (rc) {
		rc = advice_parse_usage("record", o->events, &perr);
		free(o);
		return rc;
	}
	rc = record(o, ctx, list);
	hpm_evlist__free(list);
	free(o);
	return rc;
}
