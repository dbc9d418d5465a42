/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: location events and software counters in event
 * specifications (exec:..., sw:...). Each input is parsed as a list with
 * hpm_evlist__parse, and its exec: part also on its own; specifications
 * that parse are resolved against this fuzzer's own executable (symbols,
 * DWARF lines, its libraries) as `hpmon stat` checks them before a run.
 * Built by fuzz/CMakeLists.txt, run by scripts/fuzz.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <hpmon/session.h>
#include "location/location-internal.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
static int fuzz_one(const uint8_t *data, size_t size);

#define MAX_SPEC 1024

static struct hpm_ctx *ctx;
static char self[PATH_MAX];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	ctx = hpm_ctx__new(NULL);
	if (!ctx || !realpath("/proc/self/exe", self))
		abort();
	return 0;
}

static int fuzz_one(const uint8_t *data, size_t size)
{
	char spec[MAX_SPEC + 8], msg[256];
	struct hpm_parse_error err;
	struct hpm_evlist *list = NULL;
	struct hpm_location loc;
	size_t pos = 0;

	if (size > MAX_SPEC)
		return 0;
	memcpy(spec, data, size);
	spec[size] = '\0';
	if (strlen(spec) != size)
		return 0;
	if (hpm_evlist__parse(ctx, spec, &list, &err) == 0) {
		for (size_t i = 0; i < hpm_evlist__count(list); i++)
			(void)strlen(hpm_event__pmu(hpm_evlist__event(list, i)));
		/* resolution reads ELF and DWARF: each input at most once */
		(void)hpm_evlist__check_locations(list, self, NULL, &err);
		hpm_evlist__free(list);
	} else if (err.pos > size || !err.msg[0]) {
		abort();
	}
	/* the location parser alone, on "exec:" + the input */
	char exec[MAX_SPEC + 8] = "exec:";
	memcpy(exec + 5, spec, size + 1);
	if (hpm__loc_parse(exec, size + 5, &loc, &pos, msg, sizeof(msg)) == 0) {
		if (loc.kind == HPM_LOC_LINE && (loc.line == 0 || !loc.file[0]))
			abort();
		if (loc.kind == HPM_LOC_FUNC && !loc.func[0])
			abort();
	} else if (pos > size + 5 || !msg[0]) {
		abort();
	}
	return 0;
}

#include "fuzz-cpu.h"
