/* SPDX-License-Identifier: MIT */
/*
 * The markers area, from the program's side (lib/runtime/area-internal.h):
 * finding and mapping hpmon's area, and the tables of names in it. Without
 * an area the process names its counters in a table of its own, so a
 * counter has a slot either way.
 *
 * The area is looked for once, on the first call of the runtime, in
 * HPMON_MARKERS=<fd>: the runtime runs inside the program, on the
 * program's behalf, and has no context object to be given. It stays
 * mapped to the end of the process.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "runtime/area-internal.h"

static struct {
	pthread_once_t once;
	pthread_mutex_t lock;
	struct hpm_mk_header *area;
	struct hpm_mk_name names[HPM_MK_MAX_COUNTERS]; /* without an area */
	uint32_t nr_names;
} mk = {
	.once = PTHREAD_ONCE_INIT,
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.nr_names = HPM_MK_FIRST_COUNTER,
};

void hpm__mk_lock(bool on)
{
	if (on)
		pthread_mutex_lock(&mk.lock);
	else
		pthread_mutex_unlock(&mk.lock);
}

/* hpmon's area from HPMON_MARKERS=<fd>, if it is one this runtime reads. */
static void attach_area(void)
{
	const char *env = getenv(HPM_MK_ENV);
	struct hpm_mk_header *h;
	struct stat st;
	char *end;
	long fd;

	if (!env || !*env)
		return;
	fd = strtol(env, &end, 10);
	if (*end || fd < 0 || fd > 1 << 20 || fstat((int)fd, &st) || !S_ISREG(st.st_mode) ||
	    (size_t)st.st_size < sizeof(*h))
		return;
	h = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, (int)fd, 0);
	if (h == MAP_FAILED)
		return;
	if (h->magic != HPM_MK_MAGIC || h->version != HPM_MK_VERSION ||
	    h->header_size != sizeof(*h) || h->thread_size != sizeof(struct hpm_mk_thread) ||
	    h->total_size != (uint64_t)st.st_size ||
	    h->total_size < h->header_size + (uint64_t)h->max_threads * h->thread_size) {
		munmap(h, (size_t)st.st_size);
		return;
	}
	mk.area = h;
}

struct hpm_mk_header *hpm__mk_area(void)
{
	pthread_once(&mk.once, attach_area);
	return mk.area;
}

int hpm__mk_name_index(struct hpm_mk_name *names, uint32_t *nr, uint32_t first,
		       uint32_t max, const char *name, bool add, uint32_t enabled)
{
	uint32_t n = __atomic_load_n(nr, __ATOMIC_ACQUIRE);
	size_t len = strlen(name);

	if (!len || len >= HPM_MARKER_NAME_MAX)
		return -1;
	for (uint32_t i = first; i < n && i < max; i++)
		if (__atomic_load_n(&names[i].state, __ATOMIC_ACQUIRE) == HPM_MK_NAME_READY &&
		    !strcmp(names[i].name, name))
			return (int)i;
	if (!add)
		return -1;
	/* Processes sharing the area may add the same name at once: then it
	 * has two entries, and readers sum them. */
	uint32_t i = __atomic_fetch_add(nr, 1, __ATOMIC_ACQ_REL);
	if (i >= max)
		return -1;
	memcpy(names[i].name, name, len + 1);
	names[i].enabled = enabled;
	__atomic_store_n(&names[i].state, HPM_MK_NAME_READY, __ATOMIC_RELEASE);
	return (int)i;
}

int hpm__mk_counter_index(const char *name, bool add)
{
	struct hpm_mk_header *a = hpm__mk_area();

	if (a)
		return hpm__mk_name_index(a->counters, &a->nr_counters, HPM_MK_FIRST_COUNTER,
					  HPM_MK_MAX_COUNTERS, name, add, a->default_enabled);
	return hpm__mk_name_index(mk.names, &mk.nr_names, HPM_MK_FIRST_COUNTER,
				  HPM_MK_MAX_COUNTERS, name, add, 1);
}

bool hpm__mk_counter_default(uint32_t c)
{
	struct hpm_mk_header *a = hpm__mk_area();

	return a && c < HPM_MK_MAX_COUNTERS ? a->counters[c].enabled != 0 : true;
}
