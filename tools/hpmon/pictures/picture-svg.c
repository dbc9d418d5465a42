/* SPDX-License-Identifier: MIT */
/*
 * report --svg: a static flame graph of the main event's stacks
 * (picture.h), merged into a tree by picture-tree.c. Widths are proportional to the period, siblings in name
 * order, so that the same profile always gives the same file. Each frame
 * is a rect with a <title>: name, samples, percent of the event's total.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "output/escape.h"
#include "pictures/pictures-internal.h"
#include "report/report.h"

#define SVG_W 1200.0
#define PAD 10.0
#define FRAME_H 16
#define TOP 34
#define MIN_W 0.1 /* px: narrower frames are left out (their share stays in the parent) */

static int by_name(const void *a, const void *b, void *base)
{
	const struct flame_node *n = base;
	const struct flame_node *x = &n[*(const uint32_t *)a], *y = &n[*(const uint32_t *)b];
	int c = strcmp(x->name, y->name);
	return c ? c : (x->period < y->period) - (x->period > y->period);
}

/* x and w of every node, children left to right in name order; depth-first
 * with a stack of our own, since chains can be thousands of frames deep. */
static int layout(struct flame *t, uint32_t *maxd)
{
	uint32_t *todo = malloc(t->nr * sizeof(*todo));
	uint32_t *kids = malloc(t->nr * sizeof(*kids));
	size_t top = 0;
	if (!todo || !kids) {
		free(todo);
		free(kids);
		return -ENOMEM;
	}
	t->n[0].x = PAD;
	t->n[0].w = SVG_W - 2 * PAD;
	todo[top++] = 0;
	*maxd = 0;
	while (top) {
		struct flame_node *p = &t->n[todo[--top]];
		if (p->depth > *maxd)
			*maxd = p->depth;
		size_t nk = 0;
		for (uint32_t c = p->kid; c; c = t->n[c].next)
			kids[nk++] = c;
		qsort_r(kids, nk, sizeof(*kids), by_name, t->n);
		double x = p->x;
		for (size_t i = 0; i < nk; i++) {
			struct flame_node *c = &t->n[kids[i]];
			c->x = x;
			c->w = p->period > 0 ? p->w * c->period / p->period : 0;
			x += c->w;
			if (c->w >= MIN_W)
				todo[top++] = kids[i];
			else
				c->w = 0;
		}
	}
	free(todo);
	free(kids);
	return 0;
}

/* @s for XML text and attributes: text-escaped first (no control bytes,
 * valid UTF-8), then the five XML characters as entities. */
static void xml(FILE *f, const char *s)
{
	for (const char *p = esc_text(s); *p; p++) {
		switch (*p) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default: fputc(*p, f);
		}
	}
}

/* A warm colour from the name, so a function has the same one everywhere. */
static void colour(const char *name, int *rgb)
{
	uint32_t h = 2166136261u;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 16777619u;
	rgb[0] = 205 + (int)(h % 50);
	rgb[1] = 80 + (int)((h >> 8) % 140);
	rgb[2] = 40 + (int)((h >> 16) % 50);
}

int export_svg(FILE *f, const struct rep *r)
{
	struct flame t = { 0 };
	uint32_t maxd = 0;
	int rc = flame_build(&t, r, r->main_ev);
	if (!rc)
		rc = layout(&t, &maxd);
	if (rc)
		goto out;
	double total = t.n[0].period;
	int height = TOP + (int)(maxd + 1) * FRAME_H + 2 * (int)PAD;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" "
		"height=\"%d\" viewBox=\"0 0 %.0f %d\" font-family=\"monospace\" font-size=\"11\">\n",
		SVG_W, height, SVG_W, height);
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"#fafafa\"/>\n"
		"<text x=\"%.0f\" y=\"20\" font-size=\"14\">", PAD);
	xml(f, r->meta.events[r->main_ev].name);
	fprintf(f, ": ");
	xml(f, r->meta.command);
	fprintf(f, "</text>\n");
	for (size_t i = 0; i < t.nr; i++) {
		const struct flame_node *n = &t.n[i];
		if (i && n->w <= 0)
			continue;
		/* flame: the root at the bottom */
		double y = TOP + PAD + (double)(maxd - n->depth) * FRAME_H;
		int rgb[3];
		colour(n->name, rgb);
		fprintf(f, "<g><title>");
		xml(f, n->name);
		fprintf(f, " (%" PRIu64 " samples, %.2f%%)</title><rect x=\"%.2f\" y=\"%.0f\" "
			"width=\"%.2f\" height=\"%d\" fill=\"rgb(%d,%d,%d)\" rx=\"2\"/>",
			n->samples, total > 0 ? 100 * n->period / total : 0, n->x, y, n->w, FRAME_H - 1,
			rgb[0], rgb[1], rgb[2]);
		/* the name when it fits, cut to the frame's width (about 7 px a character) */
		size_t fit = n->w > 20 ? (size_t)((n->w - 6) / 7) : 0;
		if (fit >= 3) {
			char buf[256];
			size_t len = strlen(n->name);
			if (fit > sizeof(buf) - 1)
				fit = sizeof(buf) - 1;
			if (len <= fit) {
				snprintf(buf, sizeof(buf), "%s", n->name);
			} else {
				/* cut on a character boundary, then ".." */
				size_t cut = fit - 2;
				while (cut && ((unsigned char)n->name[cut] & 0xc0) == 0x80)
					cut--;
				snprintf(buf, sizeof(buf), "%.*s..", (int)cut, n->name);
			}
			fprintf(f, "<text x=\"%.2f\" y=\"%.0f\">", n->x + 3, y + FRAME_H - 4);
			xml(f, buf);
			fprintf(f, "</text>");
		}
		fprintf(f, "</g>\n");
	}
	fprintf(f, "</svg>\n");
out:
	flame_free(&t);
	return rc;
}
