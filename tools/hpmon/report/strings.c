/* SPDX-License-Identifier: MIT */
/* Interned strings of a report (report/report-internal.h): every name is
 * kept once and known by its id, which rows and keys store. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/report-internal.h"

static void str_key(const char *s, uint64_t k[2])
{
	uint64_t a = 1469598103934665603ull, b = 0x84222325cbf29ce4ull;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		a = (a ^ *p) * 1099511628211ull;
		b = (b ^ *p) * 0x100000001b3ull + 7;
	}
	k[0] = a;
	k[1] = b ^ strlen(s);
}

int rep_strings__init(struct rep *r)
{
	r->h_str = htab__new(2);
	if (!r->h_str)
		return -ENOMEM;
	/* string 0 is "" */
	if (!PUSH(r, strs, nr_strs, cap_strs) || !(r->strs[0] = strdup("")))
		return -ENOMEM;
	r->nr_strs = 1;
	return 0;
}

void rep_strings__free(struct rep *r)
{
	for (size_t i = 0; i < r->nr_strs; i++)
		free(r->strs[i]);
	free(r->strs);
	htab__free(r->h_str);
}

uint32_t rep_intern(struct rep *r, const char *s)
{
	uint64_t k[2];
	str_key(s, k);
	long i = htab__get(r->h_str, k);
	if (i >= 0)
		return (uint32_t)i;
	if (!PUSH(r, strs, nr_strs, cap_strs))
		return 0;
	char *c = strdup(s);
	if (!c || htab__put(r->h_str, k, r->nr_strs)) {
		free(c);
		return 0;
	}
	r->strs[r->nr_strs] = c;
	/* always charged, never refused: callers check the cap before they
	 * intern a name that comes from the file */
	r->mem += rep_cost(sizeof(char *), 2, strlen(s) + 1, 1);
	return (uint32_t)r->nr_strs++;
}

const char *rep_str(const struct rep *r, uint64_t id)
{
	return id < r->nr_strs && r->strs[id] ? r->strs[id] : "";
}
