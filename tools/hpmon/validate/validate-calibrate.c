/* SPDX-License-Identifier: MIT */
/*
 * hpmon validate --calibrate: this machine's costs of the events of the
 * `cost` metrics, by microbenchmark, where data/costs-*.txt holds typical
 * ones. perfex estimated where the cycles went with typical latencies;
 * this measures them here.
 *
 * A latency is the time of one hop of a random pointer chase whose buffer
 * fits the level measured and not the one before: half the level's size.
 * A cost is the extra over going one level less far, as the costs files
 * define it: an L1 miss costs the L2's latency minus the L1's. A page walk
 * is a chase over one line in each of 4096 pages minus a chase over as
 * many lines packed together; a misprediction, the loop on random bits
 * minus the loop on fixed ones, per miss (half the iterations).
 *
 * Time is counted in cycles (cycles:u around each run) where cycles can be
 * counted, else in thread CPU time (not wall time: a busy machine does not
 * lengthen it) converted to cycles at the CPU's clock from /proc/cpuinfo.
 * Each figure is the median over repeats of the difference between 2n and
 * n hops, so that everything but the hops cancels.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

#include <hpmon/hpmon.h>
#include <hpmon/counters.h>
#include "output/advice.h"
#include "output/exit.h"
#include "counting/costs-file.h"
#include "output/json.h"
#include "output/output.h"
#include "validate/validate.h"

#define MAX_REP 16

struct clock {
	struct hpm_eventset *cycles; /* NULL: thread CPU time */
	double mhz;                  /* for CPU time; 0 when unknown */
};

/* Cycles (or nanoseconds) of one run of @units. */
static double once(struct clock *ck, void (*run)(struct vstate *, uint64_t), struct vstate *st,
		   uint64_t units)
{
	if (ck->cycles) {
		struct hpm_count c;
		if (hpm_eventset__start(ck->cycles))
			return -1;
		run(st, units);
		if (hpm_eventset__stop(ck->cycles) || hpm_eventset__read(ck->cycles, &c))
			return -1;
		return (double)c.value;
	}
	struct timespec a, b;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	run(st, units);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	return (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Cycles (or ns) per unit: the median over @rep of (t(2n) - t(n)) / n. */
static double per_unit(struct clock *ck, void (*run)(struct vstate *, uint64_t),
		       struct vstate *st, uint64_t n, int rep)
{
	double v[MAX_REP];
	(void)once(ck, run, st, n); /* warm */
	for (int i = 0; i < rep; i++)
		v[i] = (once(ck, run, st, 2 * n) - once(ck, run, st, n)) / (double)n;
	qsort(v, (size_t)rep, sizeof(v[0]), cmp_dbl);
	return v[rep / 2];
}

/* The latency of a chase over @bytes of packed lines. */
static double chase(struct clock *ck, size_t bytes, uint64_t hops, int rep, int *err)
{
	struct vstate st = { 0 };
	int rc = vchase__setup(&st, bytes / 64, 64, false);
	if (rc) {
		*err = rc;
		return 0;
	}
	double v = per_unit(ck, vchase__run, &st, hops, rep);
	vchase__free(&st);
	return v;
}

/* The CPU's clock in MHz from /proc/cpuinfo ("cpu MHz"), or 0. */
static double cpu_mhz(struct hpm_ctx *ctx)
{
	char path[PATH_MAX], line[256];
	double mhz = 0;
	snprintf(path, sizeof(path), "%s/cpuinfo", hpm_ctx__procfs_root(ctx));
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "cpu MHz", 7)) {
			const char *c = strchr(line, ':');
			if (c)
				mhz = strtod(c + 1, NULL);
			break;
		}
	fclose(f);
	return mhz;
}

struct cost {
	const char *cause, *event, *desc;
	double cycles;
	char how[128];
};

/* mkdir -p, each new folder 0700 (the XDG base directories' rule). */
static int mkdir_p(const char *dir)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s", dir);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0700) && errno != EEXIST)
			return -1;
		*s = '/';
	}
	return mkdir(p, 0700) && errno != EEXIST ? -1 : 0;
}

static int write_costs(const char *path, const char *dir, const struct cost *c, size_t n,
		       const struct clock *ck)
{
	struct out_file of;
	time_t now = time(NULL);
	struct tm tm;
	char day[16] = "";

	if (dir && mkdir_p(dir)) {
		fprintf(stderr, "hpmon validate: cannot create %s: %s\n", dir, strerror(errno));
		return -errno;
	}
	if (localtime_r(&now, &tm))
		strftime(day, sizeof(day), "%Y-%m-%d", &tm);
	if (out_open(&of, "hpmon validate", path, OUT_REPLACE))
		return -EIO;
	FILE *f = out_stream(&of);
	if (!f) {
		out_abort(&of);
		return -EIO;
	}
	fprintf(f, "# Costs of events measured on this machine by 'hpmon validate --calibrate'\n"
		   "# on %s, in %s. `-M cost` uses them in place of the typical costs of\n"
		   "# data/costs-*.txt (the causes not here keep theirs). docs/hpmon-validate.md\n"
		   "#\n# CAUSE         EVENT          CYCLES  DESCRIPTION\n",
		day, ck->cycles ? "cycles counted with cycles:u"
				: "thread CPU time at the clock of /proc/cpuinfo");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%-15s %-14s %-7.1f %s (%s)\n", c[i].cause, c[i].event, c[i].cycles,
			c[i].desc, c[i].how);
	return out_commit(&of, false) ? -EIO : 0;
}

int validate_calibrate(struct hpm_ctx *ctx, const char *path, int repeats, bool json)
{
	struct hpm_eventset_opts eo = { .sz = sizeof(eo) };
	struct clock ck = { 0 };
	size_t cache[4];
	char file[PATH_MAX], dir[PATH_MAX];
	int err = 0;

	if (repeats > MAX_REP)
		repeats = MAX_REP;
	if (!path) {
		if (costs_file_path(ctx, file, sizeof(file), dir, sizeof(dir))) {
			fprintf(stderr, "hpmon validate: no folder for the costs file: neither "
					"XDG_DATA_HOME nor HOME is set; name a file with -o\n");
			return advice_usage_end("validate");
		}
		path = file;
	} else {
		dir[0] = '\0';
	}
	ck.cycles = hpm_eventset__new(ctx, "cycles:u", &eo, NULL);
	if (!ck.cycles) {
		ck.mhz = cpu_mhz(ctx);
		if (ck.mhz <= 0) {
			fprintf(stderr, "hpmon validate: cannot calibrate in cycles: cycles cannot "
					"be counted here and /proc/cpuinfo gives no clock\n");
			return HPM_EXIT_FAIL;
		}
	}
	/* per unit, in cycles or ns */
	double to_cyc = ck.cycles ? 1 : ck.mhz / 1000;
	vcache__sizes(ctx, cache);
	size_t l1 = cache[1], l2 = cache[2], llc = cache[3];
	bool has_l3 = llc > l2;
	size_t mem = llc * 4 < (64u << 20) ? (64u << 20) : llc * 4;
	if (mem > (512u << 20))
		mem = 512u << 20;

	double lat1 = chase(&ck, l1 / 2, 2000000, repeats, &err) * to_cyc;
	double lat2 = chase(&ck, l2 / 2 > 2 * l1 ? l2 / 2 : 4 * l1, 2000000, repeats, &err) *
		      to_cyc;
	double lat3 = has_l3 ? chase(&ck, llc / 2, 1000000, repeats, &err) * to_cyc : lat2;
	double latm = chase(&ck, mem, 500000, repeats, &err) * to_cyc;

	struct vstate st = { 0 };
	double walk = 0, packed = 0, mis = 0;
	if (!err && !(err = vchase__setup(&st, 4096, 4096, true))) {
		walk = per_unit(&ck, vchase__run, &st, 2000000, repeats) * to_cyc;
		vchase__free(&st);
		if (!(err = vchase__setup(&st, 4096, 64, false))) {
			packed = per_unit(&ck, vchase__run, &st, 2000000, repeats) * to_cyc;
			vchase__free(&st);
		}
	}
	const struct vbench *br = vbench__find("branch-random"), *bf = vbench__find("branch-fixed");
	if (!err && br && bf) {
		uint64_t n = 2000000;
		double r = 0, f = 0;
		if (!(err = br->setup(&st, 2 * n, 0))) {
			r = per_unit(&ck, br->run, &st, n, repeats);
			br->teardown(&st);
		}
		if (!err && !(err = bf->setup(&st, 2 * n, 0))) {
			f = per_unit(&ck, bf->run, &st, n, repeats);
			bf->teardown(&st);
		}
		mis = (r - f) / 0.5 * to_cyc;
	}
	hpm_eventset__free(ck.cycles);
	if (err) {
		fprintf(stderr, "hpmon validate: cannot set up a benchmark: %s\n", strerror(-err));
		return HPM_EXIT_FAIL;
	}

	struct cost c[5];
	size_t n = 0;
#define ADD(CAUSE, EVENT, DESC, CYC, ...)                                                \
	do {                                                                             \
		c[n] = (struct cost){ CAUSE, EVENT, DESC, (CYC) < 0 ? 0 : (CYC), "" };   \
		snprintf(c[n].how, sizeof(c[n].how), __VA_ARGS__);                       \
		n++;                                                                     \
	} while (0)
	ADD("l1d_miss", "PAPI_L1_DCM", "L1 data cache misses", lat2 - lat1,
	    "L2 %.1f - L1 %.1f", lat2, lat1);
	if (has_l3)
		ADD("l2_miss", "PAPI_L2_TCM", "L2 misses served by the last level", lat3 - lat2,
		    "LLC %.1f - L2 %.1f", lat3, lat2);
	ADD("llc_miss", "cache-misses", "Last-level cache misses served by memory", latm - lat3,
	    "memory %.1f - %s %.1f", latm, has_l3 ? "LLC" : "L2", lat3);
	ADD("dtlb_miss", "PAPI_TLB_DM", "Data TLB misses (page walks)", walk - packed,
	    "4096 pages %.1f - 4096 packed lines %.1f", walk, packed);
	ADD("branch_miss", "PAPI_BR_MSP", "Mispredicted branches", mis,
	    "random - fixed branch, per miss");
#undef ADD
	if (write_costs(path, dir[0] ? dir : NULL, c, n, &ck))
		return HPM_EXIT_FAIL;

	if (json) {
		struct json j;
		json_init(&j, stdout, true);
		json_obj_open(&j, NULL);
		json_str(&j, "file", path);
		json_str(&j, "clock", ck.cycles ? "cycles" : "cpu-time");
		if (!ck.cycles)
			json_dbl(&j, "mhz", ck.mhz);
		json_arr_open(&j, "costs");
		for (size_t i = 0; i < n; i++) {
			json_obj_open(&j, NULL);
			json_str(&j, "cause", c[i].cause);
			json_str(&j, "event", c[i].event);
			json_dbl(&j, "cycles", c[i].cycles);
			json_str(&j, "how", c[i].how);
			json_obj_close(&j);
		}
		json_arr_close(&j);
		json_obj_close(&j);
		json_end(&j);
		return HPM_EXIT_OK;
	}
	printf("hpmon validate --calibrate: latencies in cycles (%s)\n\n",
	       ck.cycles ? "counted with cycles:u" : "thread CPU time at the clock of /proc/cpuinfo");
	printf("  L1 %.1f   L2 %.1f   %s%.1f   memory %.1f\n\n", lat1, lat2,
	       has_l3 ? "LLC " : "(no L3) ", lat3, latm);
	printf("%-12s %-14s %8s  %s\n", "CAUSE", "EVENT", "CYCLES", "HOW");
	for (size_t i = 0; i < n; i++)
		printf("%-12s %-14s %8.1f  %s\n", c[i].cause, c[i].event, c[i].cycles, c[i].how);
	printf("\nwritten to %s: `-M cost` uses it on this CPU model\n", path);
	return HPM_EXIT_OK;
}
