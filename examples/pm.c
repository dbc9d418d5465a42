// SPDX-License-Identifier: MIT
/*
 * pm: the instrumentation API of CPPMon (start_pm, stop_pm, save_pm) and of
 * libcpc (bind an event set, take samples, release), written on libhpmon's
 * event sets. Runs on its own, without the hpmon tool:
 *
 *   examples/pm [EVENTS]        default: page-faults,task-clock,instructions:u
 *
 * It counts a loop that touches fresh memory in three steps and prints the
 * counts of each step, scaled if the kernel multiplexed them. Events this
 * machine lacks (instructions in a VM without a PMU) are left out with a
 * note: the set is opened from those that open.
 *
 * Build: cc pm.c $(pkg-config --cflags --libs libhpmon)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <hpmon/counters.h>

/* ---- start_pm / stop_pm / save_pm on an event set ---- */

static struct hpm_eventset *pm;

/* Start measuring @events (perf's syntax). 0 or -errno. */
static int start_pm(struct hpm_ctx *ctx, const char *events)
{
	struct hpm_parse_error err;
	pm = hpm_eventset__new(ctx, events, NULL, &err);
	if (!pm) {
		fprintf(stderr, "pm: %s\n", err.msg[0] ? err.msg : hpm_strerror(err.err));
		return err.err ? err.err : -errno;
	}
	return hpm_eventset__start(pm);
}

/* The counts so far, like libcpc's cpc_take_sample(). */
static int sample_pm(struct hpm_count *out)
{
	return hpm_eventset__read(pm, out);
}

static int stop_pm(void)
{
	return hpm_eventset__stop(pm);
}

/* Append the counts to @file, one "event count running%" line each. */
static int save_pm(const char *file, const char *label)
{
	size_t n = hpm_eventset__count(pm);
	struct hpm_count *c = calloc(n, sizeof(*c));
	FILE *f = fopen(file, "a");
	int rc = c && f ? sample_pm(c) : -errno;
	for (size_t i = 0; !rc && i < n; i++)
		fprintf(f, "%s %s %.0f %.1f%%\n", label, hpm_eventset__name(pm, i),
			hpm_count__scaled(&c[i]), hpm_count__pct_running(&c[i]));
	if (f)
		fclose(f);
	free(c);
	return rc;
}

static void release_pm(void)
{
	hpm_eventset__free(pm);
	pm = NULL;
}

/* ---- the work ---- */

static void touch(long pages)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, (size_t)pages * (size_t)page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return;
	for (long i = 0; i < pages; i++)
		p[i * page] = (char)i;
	munmap(p, (size_t)pages * (size_t)page);
}

/* Drop from @spec the events that do not open here, with a note. */
static void keep_what_opens(struct hpm_ctx *ctx, char *spec)
{
	char out[1024] = "", *save, *copy = strdup(spec);
	for (char *ev = strtok_r(copy, ",", &save); ev; ev = strtok_r(NULL, ",", &save)) {
		struct hpm_eventset *es = hpm_eventset__new(ctx, ev, NULL, NULL);
		if (!es) {
			printf("# %s: %s, left out\n", ev, strerror(errno));
			continue;
		}
		hpm_eventset__free(es);
		snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%s", out[0] ? "," : "", ev);
	}
	strcpy(spec, out);
	free(copy);
}

int main(int argc, char **argv)
{
	char spec[1024];
	struct hpm_ctx *ctx = hpm_ctx__new(NULL);
	struct hpm_count c[16];
	const char *file = "pm.out";

	snprintf(spec, sizeof(spec), "%s", argc > 1 ? argv[1] : "page-faults,task-clock,instructions:u");
	if (!ctx)
		return 1;
	keep_what_opens(ctx, spec);
	if (!spec[0] || start_pm(ctx, spec)) {
		hpm_ctx__free(ctx);
		return 1;
	}
	remove(file);
	for (int step = 1; step <= 3; step++) {
		char label[16];
		touch(100L * step);
		snprintf(label, sizeof(label), "step%d", step);
		if (save_pm(file, label))
			return 1;
	}
	stop_pm();
	if (sample_pm(c))
		return 1;
	printf("after 3 steps (%s per read):\n", hpm_eventset__rdpmc(pm, 0) ? "rdpmc" : "read(2)");
	for (size_t i = 0; i < hpm_eventset__count(pm) && i < 16; i++)
		printf("  %-20s %15.0f  (%.1f%% running)\n", hpm_eventset__name(pm, i),
		       hpm_count__scaled(&c[i]), hpm_count__pct_running(&c[i]));
	printf("each step's counts are in %s\n", file);
	release_pm();
	hpm_ctx__free(ctx);
	return 0;
}
