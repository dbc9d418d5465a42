/* SPDX-License-Identifier: MIT */
/*
 * Native event names through libpfm4. libpfm4 keeps its own process-wide
 * tables, initialised once here; hpmon's own state stays in its objects.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <perfmon/pfmlib_perf_event.h>
#include <hpmon/hpmon.h>
#include "events/pfm-internal.h"

static pthread_once_t pfm_once = PTHREAD_ONCE_INIT;
static int pfm_status; /* written once under pfm_once */

static void pfm_init_once(void)
{
	pfm_status = pfm_initialize() == PFM_SUCCESS ? 0 : -HPM_ERR_PFM;
}

int hpm_pfm__init(void)
{
	pthread_once(&pfm_once, pfm_init_once);
	return pfm_status;
}

int hpm_pfm__resolve(const char *name, struct hpm_pfm_enc *out)
{
	struct perf_event_attr a;
	pfm_perf_encode_arg_t arg;
	pfm_event_info_t info;
	pfm_pmu_info_t pinfo;
	int ret;

	if (hpm_pfm__init())
		return -HPM_ERR_PFM;
	memset(&a, 0, sizeof(a));
	memset(&arg, 0, sizeof(arg));
	arg.attr = &a;
	arg.size = sizeof(arg);
	/* Both privilege levels: modifiers in the name (":u") narrow them. */
	ret = pfm_get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3,
					PFM_OS_PERF_EVENT_EXT, &arg);
	if (ret == PFM_ERR_NOTFOUND)
		return -HPM_ERR_UNKNOWN_EVENT;
	if (ret != PFM_SUCCESS)
		return ret == PFM_ERR_ATTR || ret == PFM_ERR_ATTR_VAL ||
		       ret == PFM_ERR_UMASK ? -HPM_ERR_BAD_MODIFIER : -HPM_ERR_PFM;
	memset(out, 0, sizeof(*out));
	out->type = a.type;
	out->config = a.config;
	out->config1 = a.config1;
	out->config2 = a.config2;
	out->exclude_user = a.exclude_user;
	out->exclude_kernel = a.exclude_kernel;
	out->exclude_hv = a.exclude_hv;
	out->precise_ip = a.precise_ip;
	memset(&info, 0, sizeof(info));
	info.size = sizeof(info);
	memset(&pinfo, 0, sizeof(pinfo));
	pinfo.size = sizeof(pinfo);
	if (pfm_get_event_info(arg.idx, PFM_OS_NONE, &info) == PFM_SUCCESS &&
	    pfm_get_pmu_info(info.pmu, &pinfo) == PFM_SUCCESS && pinfo.name)
		snprintf(out->pmu, sizeof(out->pmu), "%s", pinfo.name);
	return 0;
}
