/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the markers area as hpmon reads it. The measured
 * program writes the area, so to hpmon its contents are untrusted input:
 * each input is written over an area (header and thread slots, as a
 * buggy or hostile program could), then everything hpmon reads from it is
 * read. Built by fuzz/CMakeLists.txt, run by scripts/fuzz.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <hpmon/counters.h>
#include <hpmon/marker.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
static int fuzz_one(const uint8_t *data, size_t size);

static struct hpm_markers *m;
static unsigned char *area;
static size_t area_len;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct hpm_markers_opts o = { .sz = sizeof(o), .max_threads = 4, .regions = true };
	(void)argc;
	(void)argv;
	m = hpm_markers__new(&o);
	if (!m)
		abort();
	area_len = (size_t)lseek(hpm_markers__fd(m), 0, SEEK_END);
	area = mmap(NULL, area_len, PROT_READ | PROT_WRITE, MAP_SHARED, hpm_markers__fd(m), 0);
	if (area == MAP_FAILED)
		abort();
	return 0;
}

static int fuzz_one(const uint8_t *data, size_t size)
{
	struct hpm_markers_thread t;
	struct hpm_region_stats st;
	struct hpm_count c;
	uint64_t v;

	/* the input, repeated over the whole area */
	if (!size)
		return 0;
	for (size_t off = 0; off < area_len; off += size)
		memcpy(area + off, data, size < area_len - off ? size : area_len - off);

	size_t nt = hpm_markers__nr_threads(m);
	if (nt > 4)
		abort();
	(void)hpm_markers__lost_threads(m);
	for (size_t i = 0; i < nt + 1; i++)
		(void)hpm_markers__thread(m, i, &t);
	for (size_t k = 0; k < hpm_markers__nr_counters(m) + 1; k++) {
		const char *name = hpm_markers__counter_name(m, k);
		if (name && strlen(name) >= HPM_MARKER_NAME_MAX)
			abort();
		hpm_markers__counter(m, name ? name : "x", SIZE_MAX, &v);
		hpm_markers__counter(m, name ? name : "x", 0, &v);
		(void)hpm_markers__counter_tid(m, name ? name : "x", 1, 1);
	}
	size_t ne = hpm_markers__nr_events(m);
	if (ne > HPM_MARKERS_MAX_EVENTS)
		abort();
	for (size_t i = 0; i < 12; i++)
		(void)hpm_markers__event_of(m, i);
	for (size_t r = 0; r < hpm_markers__nr_regions(m) + 1; r++) {
		const char *name = hpm_markers__region_name(m, r);
		if (name && strlen(name) >= HPM_MARKER_NAME_MAX)
			abort();
		hpm_markers__region(m, r, SIZE_MAX, &st);
		hpm_markers__region(m, r, 0, &st);
	}
	for (size_t e = 0; e < ne + 1; e++) {
		hpm_markers__marked(m, e, SIZE_MAX, &c);
		hpm_markers__marked_tid(m, e, 1, 2, &c);
	}
	return 0;
}

#include "fuzz-cpu.h"
