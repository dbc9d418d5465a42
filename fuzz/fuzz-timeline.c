/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the timeline model's readers
 * (tools/hpmon/timeline/timeline.c) and its sparklines
 * (tools/hpmon/report-cmd/timeline-print.c). The input is read as a file
 * of hpmon stat -I --json (JSON lines from anywhere) and, when it opens
 * as one, as a profile; each timeline made is printed (to /dev/null) and
 * freed, so leaks show up too. Built by fuzz/CMakeLists.txt, run by
 * scripts/fuzz.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../tools/hpmon/output/escape.c"
#include "../tools/hpmon/output/json-read.c"
#include "../tools/hpmon/timeline/timeline.c"
#include "../tools/hpmon/timeline/timeline-stat.c"
#include "../tools/hpmon/report-cmd/timeline-print.c"

/* timeline-print.c's report_timeline opens profiles through the report
 * layer, which is not built in here; it is not called. */
int rep_open(const char *path, struct hpm_profile **out)
{
	(void)path;
	(void)out;
	return -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	char why[320], path[] = "/tmp/hpmon-fuzz-timeline.XXXXXX";
	struct timeline_opts o = { .max_bins = 64, .max_threads = 4 };
	struct timeline *t;

	if (!null && !(null = fopen("/dev/null", "w")))
		return 0;
	int fd = mkstemp(path);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) == (ssize_t)size &&
	    (t = timeline__from_stat_json(path, &o, why, sizeof(why)))) {
		timeline_print(null, t, path, 80, true);
		timeline__free(t);
	}
	close(fd);
	unlink(path);

	struct hpm_profile *p;
	if (hpm_profile__open_mem(data, size, &p) == 0) {
		if ((t = timeline__from_profile(p, &o, why, sizeof(why)))) {
			timeline_print(null, t, "fuzz", 80, false);
			timeline__free(t);
		}
		hpm_profile__free(p);
	}
	return 0;
}
