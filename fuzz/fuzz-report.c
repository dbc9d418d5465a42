// SPDX-License-Identifier: MIT
/*
 * Fuzz report's reading of a profile (tools/hpmon/report/): any bytes as
 * a profile, aggregated as `hpmon report`, `report --sort pid,comm,tid,cpu
 * -g --folded`, `report --sort host,rank,cpu,sym` (a merged profile's
 * ranks) and `diff` do, with filters (every sample kept or left
 * out: the two add up to the unfiltered total), and exported as `report
 * --pprof`, `--trace-event` or `--speedscope` do (tools/hpmon/export/: one
 * of the three per input, by its size, written to /dev/null). Beyond the
 * reader (fuzz-profile.c), this is
 * where a record of a few bytes can ask for much: the memory cap
 * (report-internal.h) must hold under scripts/fuzz's -rss_limit_mb, and
 * the CPU-time limit (fuzz-cpu.h) must hold too. The input is handed over
 * as a memory file, the way report opens a path. No kallsyms (a procfs
 * that does not exist), no cache; objects the records name are opened as
 * report would (regular files only).
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "export/export.h"
#include "report/report.h"

static int fuzz_one(const uint8_t *data, size_t size);

/* The samples kept (of every event) and, in *@out, those the filters
 * left out; UINT64_MAX when the profile could not be read. */
static uint64_t load(const char *path, const char *sort, bool graph,
		     const struct rep_filter *f, uint64_t *out)
{
	struct rep r;
	struct rep_opts o = { .input = path, .callgraph = graph, .folded = graph,
			      .procfs = "/nonexistent-procfs", .filter = f };
	uint64_t kept = UINT64_MAX;
	char bad[32];

	if (rep_parse_sort(sort, o.keys, &o.nr_keys, bad, sizeof(bad)))
		__builtin_trap();
	if (!rep_load(&r, &o)) {
		char buf[64];
		rep_sort_rows(&r);
		uint64_t n = 0;
		for (size_t i = 0; i < r.nr_rows; i++) {
			for (size_t k = 0; k < o.nr_keys; k++)
				if (!rep_key_text(&r, &r.rows[i], o.keys[k], buf, sizeof(buf)))
					__builtin_trap();
			n += r.rows[i].samples[r.main_ev];
		}
		/* every sample is in a row: filtered or folded, never dropped */
		if (n > r.ev_samples[r.main_ev])
			__builtin_trap();
		kept = 0;
		for (uint32_t e = 0; e < r.nr_ev; e++)
			kept += r.ev_samples[e];
		*out = r.filtered;
	}
	rep_free(&r);
	return kept;
}

static void export_one(const char *path, enum export_fmt fmt)
{
	struct rep r;
	struct rep_opts o = { .input = path, .procfs = "/nonexistent-procfs" };
	char bad[32];
	FILE *f = fopen("/dev/null", "we");

	if (!f)
		return;
	if (rep_parse_sort("sym,dso", o.keys, &o.nr_keys, bad, sizeof(bad)))
		__builtin_trap();
	struct export *x = export_new(fmt, &o, f);
	if (x) {
		if (!rep_load(&r, &o))
			export_write(x, &r);
		rep_free(&r);
		export_free(x);
	}
	fclose(f);
}

static int fuzz_one(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = memfd_create("fuzz-report", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	uint64_t out, out_task, out_place;
	uint64_t all = load(path, "sym,dso", false, NULL, &out);
	load(path, "pid,comm,tid,cpu,line", true, NULL, &out);
	load(path, "host,rank,cpu,sym", false, NULL, &out); /* a merged profile's keys */
	/* a filter on the task, and one on the place */
	static struct rep_filter task, place;
	char why[256];
	if (!task.comms.nr &&
	    (rep_filter__add(&task, RF_COMM, "[unknown],swapper", why, sizeof(why)) ||
	     rep_filter__add(&place, RF_DSO, "[unknown],//anon", why, sizeof(why)) ||
	     rep_filter__add(&place, RF_SYM, "[unknown]", why, sizeof(why))))
		__builtin_trap();
	uint64_t k_task = load(path, "sym,dso", false, &task, &out_task);
	uint64_t k_place = load(path, "comm,sym", true, &place, &out_place);
	if (all != UINT64_MAX && ((k_task != UINT64_MAX && k_task + out_task != all) ||
				  (k_place != UINT64_MAX && k_place + out_place != all)))
		__builtin_trap();
	export_one(path, (enum export_fmt)(size % 3));
	close(fd);
	return 0;
}

#include "fuzz-cpu.h"
