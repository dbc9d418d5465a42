/* SPDX-License-Identifier: MIT */
/*
 * Pictures of a loaded report (report/report.h), for report --svg and
 * --html (docs/hpmon-report.md, "Pictures"): a static flame graph in SVG
 * (picture-svg.c), and one self-contained HTML page (picture-html.c) built
 * from the sources in html/, which the build compiles in (html_assets,
 * cmake/embed-html.cmake).
 *
 * Ownership: both borrow the rep and the stream (the caller opens it,
 * through output.c, and commits or aborts it). The rep must have been
 * loaded with callgraph and folded set (and all_stacks for the page, so
 * that every event can weight it). Both return 0, or -errno (a memory
 * failure; write errors are the stream's, found by out_commit).
 */
#ifndef HPMON_TOOL_PICTURE_H
#define HPMON_TOOL_PICTURE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct rep;
struct htab;

/* picture-tree.c: one event's stacks merged by prefix. Node 0 is the root
 * ("all"), its children the tasks' names, then the frames. Names are the
 * rep's. */
#define FLAME_COMM (1ull << 63) /* in what: a comm's string id, not a symbol */
struct flame_node {
	const char *name;
	uint64_t what;        /* symbol index, or comm string id | FLAME_COMM */
	uint32_t kid, next;   /* first child, next sibling; 0: none */
	uint32_t depth;
	uint64_t samples;
	double period;
	double x, w;          /* --svg's layout */
};
struct flame {
	struct flame_node *n;
	size_t nr, cap;
	struct htab *h;       /* (parent, what) -> node */
};
/* 0 or -ENOMEM; either way @t (zeroed by the caller) is then to be freed
 * with flame_free. */
int flame_build(struct flame *t, const struct rep *r, uint32_t ev);
void flame_free(struct flame *t);

struct html_asset {
	const char *name;  /* "page.html", "app.js", "style.css" */
	const char *text;
};
extern const struct html_asset html_assets[];

int export_svg(FILE *f, const struct rep *r);
int export_html(FILE *f, const struct rep *r);

#endif
