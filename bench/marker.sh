#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What software counters, regions and event-set reads cost (bench/user-events.md).
#
#   bench/marker.sh [HPMON]          # build/hpmon by default; N=2000000
#
# Builds a small C program with the markers runtime (gcc -O2) and times,
# in its own loops (CLOCK_MONOTONIC, best of 7 rounds, ns per operation;
# the two reads in 31 alternate rounds, their ratio the median of the
# rounds' ratios):
#   plain        a relaxed load and store of a __thread counter: the floor
#   HPM_COUNT    one software counter increment
#   region       hpm_region_begin + hpm_region_end
#   read(2)      a bare read(2) of a page-faults event opened by hand
#   eventset     hpm_eventset__read of the same event (read(2) path)
# once without hpmon, and once under
#   hpmon stat --regions -e sw:ticks,page-faults
# where the counters are shared with hpmon and each region reads the
# thread's page-faults counter twice (read(2): a software event has no
# counter rdpmc could read).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
hpmon=${1:-$root/build/hpmon}
n=${N:-2000000}
[ -x "$hpmon" ] || { echo "bench/marker.sh: no hpmon at $hpmon (make)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/mbench.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include <hpmon/counters.h>
#include <hpmon/marker.h>
#include <hpmon/region.h>

static __thread uint64_t plain_ctr;
static long n;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* best of 7 rounds of @reps calls of @fn, in ns per call */
static double best(void (*fn)(long), long reps)
{
	double b = 1e30;
	for (int r = 0; r < 7; r++) {
		double t0 = now();
		fn(reps);
		double t = (now() - t0) / (double)reps;
		if (t < b)
			b = t;
	}
	return b;
}

static void plain(long k)
{
	for (long i = 0; i < k; i++)
		__atomic_store_n(&plain_ctr, __atomic_load_n(&plain_ctr, __ATOMIC_RELAXED) + 1,
				 __ATOMIC_RELAXED);
}

static void count(long k)
{
	for (long i = 0; i < k; i++)
		HPM_COUNT(ticks);
}

static void region(long k)
{
	for (long i = 0; i < k; i++) {
		hpm_region_begin("bench");
		hpm_region_end("bench");
	}
}

static int fd = -1;
static struct hpm_eventset *es;

static void bare_read(long k)
{
	uint64_t v[3];
	for (long i = 0; i < k; i++)
		if (read(fd, v, sizeof(v)) != sizeof(v))
			exit(1);
}

static void es_read(long k)
{
	struct hpm_count c;
	for (long i = 0; i < k; i++)
		if (hpm_eventset__read(es, &c))
			exit(1);
}

int main(int argc, char **argv)
{
	n = argc > 1 ? atol(argv[1]) : 2000000;
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
				     .config = PERF_COUNT_SW_PAGE_FAULTS, .exclude_kernel = 1,
				     .exclude_hv = 1,
				     .read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
						    PERF_FORMAT_TOTAL_TIME_RUNNING };
	fd = (int)syscall(__NR_perf_event_open, &a, 0, -1, -1, 0);
	struct hpm_eventset_opts o = { .sz = sizeof(o), .no_rdpmc = true };
	es = hpm_eventset__new_attrs(&a, NULL, 1, &o);
	if (fd < 0 || !es || hpm_eventset__start(es)) {
		perror("perf_event_open");
		return 1;
	}
	double p = best(plain, n), c = best(count, n), r = best(region, n / 10);
	/* the two reads in alternate rounds, so that drift hits both alike;
	 * the median of the rounds' ratios */
	double rd = 1e30, er = 1e30, ratio[31];
	for (int round = 0; round < 31; round++) {
		double x = best(bare_read, n / 100), y = best(es_read, n / 100);
		rd = x < rd ? x : rd;
		er = y < er ? y : er;
		ratio[round] = y / x;
	}
	for (int i = 1; i < 31; i++)
		for (int j = i; j > 0 && ratio[j - 1] > ratio[j]; j--) {
			double t = ratio[j];
			ratio[j] = ratio[j - 1];
			ratio[j - 1] = t;
		}
	printf("  plain      %7.2f ns\n", p);
	printf("  HPM_COUNT  %7.2f ns\n", c);
	printf("  region     %7.1f ns  (%.2f x a bare read(2))\n", r, r / rd);
	printf("  read(2)    %7.1f ns\n", rd);
	printf("  eventset   %7.1f ns  (%+.1f %% against the bare read(2), median of 31 rounds)\n",
	       er, 100.0 * (ratio[15] - 1.0));
	printf("  (ticks counted here: %llu)\n", (unsigned long long)hpm_counter_get("ticks"));
	return 0;
}
EOF
# the sources of libhpmon-rt (lib/sys, lib/runtime), built as the program
gcc -std=gnu11 -O2 -g -D_GNU_SOURCE -I"$root/include" -I"$root/lib" \
	-o "$tmp/mbench" "$tmp/mbench.c" "$root"/lib/sys/*.c "$root"/lib/runtime/*.c -lpthread

echo "machine: $(uname -m), $(nproc) CPUs, $(uname -r); N=$n"
echo "without hpmon:"
"$tmp/mbench" "$n"
echo "under hpmon stat --regions -e sw:ticks,page-faults:"
"$hpmon" stat --regions -e sw:ticks,page-faults:u -o /dev/null -- "$tmp/mbench" "$n"
