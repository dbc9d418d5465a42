// SPDX-License-Identifier: MIT
/*
 * Fuzz report's reading of a profile (tools/hpmon/report/): any bytes as
 * a profile, aggregated as `hpmon report`, `report --sort pid,comm,tid,cpu
 * -g --folded` and `diff` do, and exported as `report --pprof`,
 * `--trace-event` or `--speedscope` do (tools/hpmon/export/: one of the
 * three per input, by its size, written to /dev/null). Beyond the reader (fuzz-profile.c), this is
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

static void load(const char *path, const char *sort, bool graph)
{
	struct rep r;
	struct rep_opts o = { .input = path, .callgraph = graph, .folded = graph,
			      .procfs = "/nonexistent-procfs" };
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
	}
	rep_free(&r);
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
	load(path, "sym,dso", false);
	load(path, "pid,comm,tid,cpu,line", true);
	export_one(path, (enum export_fmt)(size % 3));
	close(fd);
	return 0;
}

#include "fuzz-cpu.h"
