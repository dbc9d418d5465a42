/* SPDX-License-Identifier: MIT */
/*
 * The flame tree of one event (picture.h), for --svg and --html: the
 * stacks of the report layer (as --folded lists them) merged by prefix:
 * the root, the task's name, then the frames from the outermost.
 */
#include <errno.h>
#include <stdlib.h>

#include "picture.h"
#include "report/report.h"
#include "report/table.h"

/* The child of @parent for @what (a comm's string id with bit 63, or a
 * symbol), made when new: its index, or 0 when memory ran out. */
static uint32_t child(struct flame *t, uint32_t parent, uint64_t what, const char *name)
{
	uint64_t k[2] = { parent, what };
	long i = htab__get(t->h, k);
	if (i >= 0)
		return (uint32_t)i;
	if (!PUSH(t, n, nr, cap) || htab__put(t->h, k, t->nr))
		return 0;
	t->n[t->nr] = (struct flame_node){ .name = name, .what = what, .next = t->n[parent].kid,
					   .depth = t->n[parent].depth + 1 };
	t->n[parent].kid = (uint32_t)t->nr;
	return (uint32_t)t->nr++;
}

int flame_build(struct flame *t, const struct rep *r, uint32_t ev)
{
	t->h = htab__new(2);
	if (!t->h || !PUSH(t, n, nr, cap))
		return -ENOMEM;
	t->n[t->nr++] = (struct flame_node){ .name = "all" };
	for (size_t i = 0; i < r->nr_stacks; i++) {
		const struct rep_stack *s = &r->stacks[i];
		if (s->ev != ev)
			continue;
		uint32_t at = child(t, 0, s->comm | FLAME_COMM, rep_str(r, s->comm));
		if (!at)
			return -ENOMEM;
		t->n[0].samples += s->samples;
		t->n[0].period += s->period;
		t->n[at].samples += s->samples;
		t->n[at].period += s->period;
		for (uint32_t k = 0; k < s->nr; k++) {
			at = child(t, at, s->syms[k], r->syms[s->syms[k]].name);
			if (!at)
				return -ENOMEM;
			t->n[at].samples += s->samples;
			t->n[at].period += s->period;
		}
	}
	return 0;
}

void flame_free(struct flame *t)
{
	htab__free(t->h);
	free(t->n);
}
