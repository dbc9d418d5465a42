/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: what hpmon serve takes from outside and puts into its
 * exposition (tools/hpmon/serve/serve-expo.c, compiled in). The input, split at
 * its first NUL byte, is an HTTP Accept header (from any client) and an
 * event name (from the command line). The Accept parser must not read out
 * of bounds; the series name must be [a-z0-9_] only and start with
 * "hpmon"; the exposition of a snapshot with that event in both formats
 * must hold printable ASCII lines only, one sample line per CPU, and end
 * with "# EOF" in OpenMetrics. Built by fuzz/CMakeLists.txt, run by
 * scripts/fuzz.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../tools/hpmon/serve/serve-expo.c"

static int fuzz_one(const uint8_t *data, size_t size);

static void check_text(const char *t, size_t len, bool om)
{
	if (strlen(t) != len || !len || t[len - 1] != '\n')
		abort();
	for (size_t i = 0; i < len; i++)
		if (t[i] != '\n' && (t[i] < 0x20 || t[i] >= 0x7f))
			abort();
	if (om && (len < 6 || strcmp(t + len - 6, "# EOF\n")))
		abort();
}

static int fuzz_one(const uint8_t *data, size_t size)
{
	char *in = malloc(size + 1);
	if (!in)
		return 0;
	memcpy(in, data, size);
	in[size] = '\0';
	const char *accept = in, *event = in + strlen(in);
	if (event < in + size)
		event++;
	(void)serve_expo_wants_openmetrics(accept);

	struct serve_event ev = { .event = event, .shown = true };
	serve_expo_name(ev.name, sizeof(ev.name), event, (size & 1) ? "seconds" : "");
	if (strncmp(ev.name, "hpmon", 5) || strspn(ev.name, "abcdefghijklmnopqrstuvwxyz0123456789_") !=
						strlen(ev.name))
		abort();
	static char keys[2][32] = { "0", "1" };
	double val[2] = { (double)size, 0.5 }, ratio[2] = { 1, 0.25 };
	bool ok[2] = { true, true };
	struct serve_rows rows = { .label = "cpu", .nr = 2, .key = keys, .val = val,
				   .ratio = ratio, .ok = ok };
	struct serve_metric m = { .metric = event, .unit = accept, .desc = event, .ok = true,
				  .value = 1 };
	serve_expo_name(m.name, sizeof(m.name), event, "");
	struct serve_snap s = { .ev = &ev, .nr_ev = 1, .rows = &rows, .nr_rows = 1,
				.metrics = &m, .nr_metrics = 1 };
	for (int om = 0; om < 2; om++) {
		size_t len = 0;
		char *t = serve_expo(&s, om, &len);
		if (!t)
			abort();
		check_text(t, len, om);
		/* one sample line of the event per CPU */
		size_t lines = 0;
		char want[192];
		snprintf(want, sizeof(want), "\n%s_total{cpu=", ev.name);
		for (const char *p = t; (p = strstr(p, want)); p++)
			lines++;
		if (lines != 2)
			abort();
		free(t);
	}
	free(in);
	return 0;
}

#include "fuzz-cpu.h"
