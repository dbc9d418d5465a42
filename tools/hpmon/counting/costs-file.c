/* SPDX-License-Identifier: MIT */
/*
 * The calibrated costs file of this machine (costs-file.h). The key is the
 * CPU model as the hardware names it: x86 vendor, family and model
 * (GenuineIntel-6-85), arm64 MIDR_EL1 without its revision (arm64-410fd0c0):
 * latencies belong to a core design, not to one chip.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <hpmon/hpmon.h>
#include <hpmon/sysinfo.h>
#include "counting/costs-file.h"

static void model_key(struct hpm_ctx *ctx, char *key, size_t len)
{
	struct hpm_sysinfo *si = hpm_sysinfo__read(ctx, NULL);

	if (si && si->midr)
		snprintf(key, len, "arm64-%08llx",
			 (unsigned long long)(si->midr & ~0xfull) & 0xffffffffull);
	else if (si && si->cpu_family != HPM_SYSINFO_UNKNOWN && si->cpu_vendor[0])
		snprintf(key, len, "%s-%d-%d", si->cpu_vendor, si->cpu_family, si->cpu_model_nr);
	else
		snprintf(key, len, "unknown-cpu");
	hpm_sysinfo__free(si);
	/* a file name: nothing but [A-Za-z0-9-_] */
	for (char *p = key; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_')
			*p = '_';
}

static char data_home[PATH_MAX];

void costs_file_set_data_home(const char *dir)
{
	snprintf(data_home, sizeof(data_home), "%s", dir ? dir : "");
}

int costs_file_path(struct hpm_ctx *ctx, char *buf, size_t len, char *dir, size_t dlen)
{
	const char *home = data_home;
	char key[96];

	if (!home[0])
		return -ENOENT;
	model_key(ctx, key, sizeof(key));
	if (dir)
		snprintf(dir, dlen, "%s/hpmon", home);
	snprintf(buf, len, "%s/hpmon/costs-%s.txt", home, key);
	return 0;
}
