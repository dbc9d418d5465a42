/* SPDX-License-Identifier: MIT */
/* hpmon stat's options (stat-cmd.h). */
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/exit.h"
#include "stat/stat-cmd.h"

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
	"      --per-thread       break counts down per thread (with -a: every task)\n"
	"      --per-process      break counts down per process (with -a: every process)\n"
	"      --per-cgroup       with -a: break counts down per cgroup\n"
	"  -A, --per-cpu, --no-aggr  break counts down per CPU (with -a)\n"
	"  -M, --metrics GROUPS   metric groups or metrics to compute: ipc, branch, l1, l2,\n"
	"                         tlb, memory, stalls, topdown, cost, software, ...\n"
	"                         (GROUP:u counts their events in user mode only)\n"
	"      --metric 'NAME = FORMULA'  compute a metric of your own\n"
	"      --metrics-file FILE  metrics defined in FILE (docs/metrics.md)\n"
	"      --per-second       the rate of every event per second\n"
	"      --per-kinst        every event per thousand instructions\n"
	"  -d, --detailed         add perf's cache events (-dd: and TLB's, -ddd: and prefetches)\n"
	"      --topdown          top-down level 1 (and 2) from the CPU's slots events, as perf\n"
	"      --td-level N       with --topdown: the level to print (1 or 2)\n"
	"  -I, --interval-print MS  print the counts of every MS milliseconds\n"
	"  -r, --repeat N         run the command N times; mean and relative error\n"
	"  -x, --field-separator SEP  CSV output as perf stat -x prints it\n"
	"  -j, --json             one JSON object (one per line with -I)\n"
	"  -o, --output FILE      write the counts to FILE instead of stderr\n"
	"      --append           append to the -o FILE\n"
	"      --trace            print thread and process start, exec and exit with counts\n"
	"  -B, --big-num          thousands separators (the default; as perf's -B)\n"
	"      --no-big-num       no thousands separators\n"
	"      --no-merge         one line per uncore PMU instance instead of their sum\n"
	"      --mux WHO          when the hardware events do not fit the counters:\n"
	"                         hpmon (default: sets of groups in turn, in random\n"
	"                         order, for a random 1-7 ms each cycle) or kernel\n"
	"                         (its fixed 4 ms rotation, as perf); docs/metrics.md\n"
	"      --mux-seed N       the random dwells' and order's seed (to repeat a run)\n"
	"  -v, --verbose          -vv: print each perf_event_attr and open, as perf -vv\n"
	"      --dry-run          print each event's perf_event_attr, open nothing, run nothing\n"
	STAT_USER_USAGE
	"  -h, --help             this help\n"
	"\n"
	"Exit status: the command's own (128+N if signal N ended it); 127 if it could\n"
	"not be run; 129 for bad options or events; 1 if counting failed.\n"
	"See docs/hpmon-stat.md and docs/event-syntax.md.\n";

struct stat_opts *stat_opts_new(void)
{
	struct stat_opts *o = malloc(sizeof(*o));
	if (!o)
		return NULL;
	memset(o, 0, offsetof(struct stat_opts, events));
	o->events[0] = '\0';
	target_init(&o->tg);
	return o;
}

int stat_append_events(struct stat_opts *o, const char *spec)
{
	if (count_args_append(o->events, sizeof(o->events), spec))
		return -1;
	o->events_given = true;
	return 0;
}

int stat_check_cpus(struct hpm_ctx *ctx, const struct stat_opts *o)
{
	return count_args_cpus(ctx, "stat", o->tg.cpus, o->tg.nr_cpus);
}

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "hpmon stat: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nSee 'hpmon stat --help'.\n");
	return HPM_EXIT_USAGE;
}

enum { OPT_PER_THREAD = 256, OPT_PER_PROCESS, OPT_PER_CGROUP, OPT_TRACE, OPT_APPEND, OPT_NO_BIG,
       OPT_METRIC, OPT_METRICS_FILE, OPT_PER_SECOND, OPT_PER_KINST, OPT_NO_MERGE,
       OPT_MUX, OPT_MUX_SEED, OPT_DRY_RUN, OPT_TOPDOWN, OPT_TD_LEVEL };

int stat_parse_opts(int argc, char **argv, struct stat_opts *o)
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
		{ "per-cgroup", no_argument, NULL, OPT_PER_CGROUP },
		{ "interval-print", required_argument, NULL, 'I' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "field-separator", required_argument, NULL, 'x' },
		{ "json", no_argument, NULL, 'j' },
		{ "output", required_argument, NULL, 'o' },
		{ "append", no_argument, NULL, OPT_APPEND },
		{ "trace", no_argument, NULL, OPT_TRACE },
		{ "big-num", no_argument, NULL, 'B' },
		{ "no-big-num", no_argument, NULL, OPT_NO_BIG },
		{ "no-merge", no_argument, NULL, OPT_NO_MERGE },
		{ "mux", required_argument, NULL, OPT_MUX },
		{ "mux-seed", required_argument, NULL, OPT_MUX_SEED },
		{ "metrics", required_argument, NULL, 'M' },
		{ "metric-groups", required_argument, NULL, 'M' },
		{ "metric", required_argument, NULL, OPT_METRIC },
		{ "metrics-file", required_argument, NULL, OPT_METRICS_FILE },
		{ "per-second", no_argument, NULL, OPT_PER_SECOND },
		{ "per-kinst", no_argument, NULL, OPT_PER_KINST },
		{ "verbose", no_argument, NULL, 'v' },
		{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
		{ "detailed", no_argument, NULL, 'd' },
		{ "topdown", no_argument, NULL, OPT_TOPDOWN },
		{ "td-level", required_argument, NULL, OPT_TD_LEVEL },
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
	/* ':' first: a missing value is ':', told apart from an unknown option */
	while ((c = getopt_long(argc, argv, "+:e:p:t:aC:AI:r:x:jo:hM:Bvd", longopts, NULL)) != -1) {
		switch (c) {
		case 'e':
			if (count_args_event("stat", o->events, sizeof(o->events),
					     argv[optind - 1] == optarg ? argv[optind - 2]
									 : argv[optind - 1],
					     optarg))
				return HPM_EXIT_USAGE;
			o->events_given = true;
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
		case OPT_PER_CGROUP: o->agg = AGG_CGROUP; break;
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
		case 'B': o->no_big_num = false; break; /* the last of -B and --no-big-num wins */
		case OPT_NO_BIG: o->no_big_num = true; break;
		case OPT_NO_MERGE: o->no_merge = true; break;
		case OPT_MUX:
			if (!strcmp(optarg, "kernel"))
				o->mux = MUX_KERNEL;
			else if (!strcmp(optarg, "hpmon"))
				o->mux = MUX_HPMON;
			else
				return usage_error("--mux takes kernel or hpmon, not '%s'", optarg);
			break;
		case OPT_MUX_SEED:
			o->mux_seed = strtoull(optarg, &end, 0);
			if (!optarg[0] || *end || !o->mux_seed)
				return usage_error("--mux-seed takes a number other than 0, not '%s'",
						   optarg);
			break;
		case 'M':
			if (metric_args_keep("stat", o->mgroups, &o->nr_mgroups, optarg, "-M"))
				return HPM_EXIT_USAGE;
			break;
		case OPT_METRIC:
			if (metric_args_keep("stat", o->minline, &o->nr_minline, optarg, "--metric"))
				return HPM_EXIT_USAGE;
			break;
		case OPT_METRICS_FILE:
			if (metric_args_keep("stat", o->mfiles, &o->nr_mfiles, optarg, "--metrics-file"))
				return HPM_EXIT_USAGE;
			break;
		case OPT_PER_SECOND: o->per_second = true; break;
		case OPT_PER_KINST: o->per_kinst = true; break;
		case 'v': o->verbose++; break;
		case OPT_DRY_RUN: o->dry_run = true; break;
		case 'd': o->detailed++; break;
		case OPT_TOPDOWN: o->topdown = true; break;
		case OPT_TD_LEVEL:
			o->td_level = (int)strtol(optarg, &end, 10);
			if (!optarg[0] || *end || o->td_level < 0 || o->td_level > 2)
				return usage_error("--td-level takes 1 or 2 (0: the deepest the "
						   "machine has), not '%s'", optarg);
			break;
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
	why = target_check(&o->tg, o->argv != NULL);
	if (why)
		return usage_error(why, "count");
	if (o->agg == AGG_CPU && !o->tg.system)
		return usage_error("%s", "-A/--per-cpu needs -a or -C");
	if (o->agg == AGG_CGROUP && !o->tg.system)
		return usage_error("%s", "--per-cgroup needs -a or -C");

	if (o->repeat > 1 && !o->argv)
		return usage_error("%s", "-r needs a COMMAND to repeat");
	if (o->repeat > 1 && o->interval_ms)
		return usage_error("%s", "-r and -I exclude each other");
	if (o->td_level && !o->topdown)
		return usage_error("%s", "--td-level needs --topdown");
	if (o->trace && (!o->argv || o->tg.nr_ids || o->tg.system))
		return usage_error("%s", "--trace follows a launched COMMAND only");
	return 0;
}
