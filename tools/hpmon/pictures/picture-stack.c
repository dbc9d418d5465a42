/* SPDX-License-Identifier: MIT */
/*
 * The page's "stacks" (pictures-internal.h, page_stacks): the samples the
 * trees kept (struct psample: all of them, or one in "stride" past
 * PTREES_MAX_SAMPLES), in time order,
 * for the stack chart. Per event, one string: base64 of unsigned LEB128
 * numbers, two a sample, or one when its leaf is the previous sample's:
 *
 *   (ticks since the previous sample) << 1 | (same leaf), [leaf]
 *
 * ticks of PAGE_STACK_TICK ns from "t0", the leaf a node of the page's
 * tree of the event (a frame left out of the page stands in its nearest
 * ancestor). A sample of 20 kHz is then 1 byte of time and 0 to 3 of
 * leaf, before base64's third more.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "output/json.h"
#include "pictures/pictures-internal.h"

bool pbuf_uleb(struct pbuf *o, uint64_t v)
{
	if (o->n + 10 > o->cap) {
		size_t c = o->cap ? o->cap * 2 : 4096;
		unsigned char *b = realloc(o->b, c);
		if (!b)
			return false;
		o->b = b;
		o->cap = c;
	}
	do {
		unsigned char c = v & 0x7f;
		v >>= 7;
		o->b[o->n++] = c | (v ? 0x80 : 0);
	} while (v);
	return true;
}

char *pbuf_base64(const unsigned char *in, size_t n)
{
	static const char A[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char *s = malloc((n + 2) / 3 * 4 + 1), *o = s;
	if (!s)
		return NULL;
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0) |
			     (i + 2 < n ? in[i + 2] : 0);
		*o++ = A[v >> 18];
		*o++ = A[(v >> 12) & 63];
		*o++ = i + 1 < n ? A[(v >> 6) & 63] : '=';
		*o++ = i + 2 < n ? A[v & 63] : '=';
	}
	*o = 0;
	return s;
}

static int cmp_smp(const void *x, const void *y)
{
	const struct psample *a = x, *b = y;
	if (a->ev != b->ev)
		return a->ev < b->ev ? -1 : 1;
	return a->t < b->t ? -1 : a->t > b->t;
}

int page_stacks(struct page *pg)
{
	struct ptrees *p = pg->p;
	struct json *j = pg->j;
	if (!p->by_thread || !p->any_time) {
		json_null(j, "stacks");
		return 0;
	}
	if (p->nr_smp)
		qsort(p->smp, p->nr_smp, sizeof(*p->smp), cmp_smp);
	uint64_t t0 = p->nr_smp ? p->smp[0].t / PAGE_STACK_TICK : 0;
	for (size_t i = 0; i < p->nr_smp; i++)
		if (p->smp[i].t / PAGE_STACK_TICK < t0)
			t0 = p->smp[i].t / PAGE_STACK_TICK;
	json_obj_open(j, "stacks");
	json_u64(j, "tick", PAGE_STACK_TICK);
	json_u64(j, "t0", t0 * PAGE_STACK_TICK);
	json_u64(j, "left", p->smp_left);
	json_u64(j, "stride", p->stride ? p->stride : 1);
	json_arr_open(j, "v");
	int rc = 0;
	size_t i = 0;
	for (uint32_t e = 0; e < p->nr_ev; e++) {
		struct pbuf o = { 0 };
		uint64_t prev = t0;
		uint32_t last = UINT32_MAX;
		for (; i < p->nr_smp && p->smp[i].ev == e; i++) {
			const struct psample *s = &p->smp[i];
			uint64_t tk = s->t / PAGE_STACK_TICK;
			uint32_t node = pg->pnode[e] ? pg->pnode[e][s->node] : 0;
			bool same = node == last;
			if (!pbuf_uleb(&o, (tk - prev) << 1 | same) || (!same && !pbuf_uleb(&o, node))) {
				rc = -ENOMEM;
				break;
			}
			prev = tk;
			last = node;
		}
		char *s = rc ? NULL : pbuf_base64(o.b, o.n);
		free(o.b);
		if (!s) {
			rc = -ENOMEM;
			break;
		}
		json_str(j, NULL, s);
		free(s);
	}
	json_arr_close(j);
	json_obj_close(j);
	return rc;
}
