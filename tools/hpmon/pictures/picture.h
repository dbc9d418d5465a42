/* SPDX-License-Identifier: MIT */
/*
 * Pictures of a loaded report (report/report.h), for report --svg and
 * --html and diff --html (docs/hpmon-report.md, "Pictures"): a static
 * flame graph in SVG (picture-svg.c), and self-contained HTML pages
 * (report's: picture-html.c; diff's: picture-diff.c; a stat -I file's
 * charts: picture-timeline.c; what they share: picture-page.c, the
 * annotate data: picture-anno.c, the stack chart's: picture-stack.c) built from the sources in html/, which
 * the build compiles in (html_assets, cmake/embed-html.cmake). This is
 * the folder's interface, for report and diff; what its files share is
 * in pictures-internal.h.
 *
 * Room: tools/hpmon/pictures/ owns the SVG and the report and diff pages; may use timeline, report, output.
 * Ownership: the exports borrow the reps, the trees, the timeline and the
 * stream (the caller opens it, through output.c, and commits or aborts
 * it). For --svg the rep must have been loaded with callgraph and folded
 * set; for a page with the sink of a struct ptrees (ptrees_init), which
 * the caller owns, keeps until the page is written and frees with
 * ptrees_free. They return 0, or -errno (a memory failure; write errors
 * are the stream's, found by out_commit).
 */
#ifndef HPMON_TOOL_PICTURE_H
#define HPMON_TOOL_PICTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "report/report.h"

struct htab;

/* picture-tree.c: the page's trees (report --html, diff --html), one per
 * event, made from every sample the report layer accounts, through its
 * sink (report.h, struct rep_sink): node 0 the root, its children the
 * tasks' names (what: comm id | FLAME_COMM; with by_thread, the tid in
 * bits 32-62 too), then the frames (what: a
 * symbol index), each node with its samples and period (inclusive),
 * those where it was the leaf (self), and the counts read from groups at
 * them (dv). While the load runs a node holds its own samples alone (as
 * self, and its counts read); ptrees_finish makes them inclusive. Each
 * sample's leaf and period are also kept per time bin (pbin), for the
 * page's ranges. Past the memory cap a sample stays in the deepest node
 * there was room for, and its time is left out. */
struct ptree_node {
	uint64_t what;
	uint32_t parent, kid, next, depth;
	uint64_t samples, self_n;
	double period, self_p;
};
struct ptree {
	struct ptree_node *n;
	size_t nr, cap;
	double *dv;           /* [nr][nr_ev]: counts read at the node's samples */
	size_t cap_dv;
};
struct pbin {
	uint32_t ev, node;
	uint64_t tk;          /* time >> shift */
	uint64_t n;
	double p;
};
/* One sample as the stack chart keeps it: its time, its event and its
 * leaf (a node of the event's tree). */
struct psample {
	uint64_t t;
	uint32_t ev, node;
};
/* The stack chart's samples, at most: past it, every other one kept is
 * dropped and one in twice as many kept from then on (stride). */
#define PTREES_MAX_SAMPLES (1u << 20)
struct ptrees {
	struct rep_sink sink;
	bool by_thread;       /* the tasks' nodes per thread (comm and tid), with
				 each sample kept for the stack chart (report
				 --html); else per name (diff --html) */
	uint32_t nr_ev;
	struct ptree *t;      /* [nr_ev]; an event without samples: nr 0 */
	struct htab *h;       /* (ev, parent, what) -> node */
	struct pbin *b;
	size_t nr_b, cap_b;
	struct htab *hb;      /* (ev << 32 | node, tk) -> bin */
	unsigned shift;
	uint64_t tmin, tmax;  /* of the samples' times */
	bool any_time;
	int err;              /* -ENOMEM: the trees are not to be used */
	bool summed;          /* ptrees_finish: samples, period, dv inclusive */
	struct psample *smp;  /* with by_thread: the samples, as they came */
	size_t nr_smp, cap_smp;
	uint64_t smp_left;    /* samples not kept: the stride's, or past the memory cap */
	uint64_t smp_seen;    /* samples offered */
	uint32_t stride;      /* one in stride kept (0 before the first) */
	bool last_ok;         /* the previous sample's leaf, for a run of */
	uint32_t last_ev, last_leaf; /* samples with its frames */
	uint64_t last_task;
	uint32_t *path_node;  /* the previous sample's nodes from its task down */
	uint32_t *path_sym;   /* and their symbols ([0]: the task's node) */
	size_t path_n, path_cap;
};
/* Set @o's sink (and callgraph) to build @p during rep_load; @p must
 * outlive the load. */
void ptrees_init(struct ptrees *p, struct rep_opts *o);
void ptrees_free(struct ptrees *p);

int export_svg(FILE *f, const struct rep *r);
/* report --html: the page of @r, whose load built @p (ptrees_init). With
 * r->metrics, each function's and each frame's metrics too; with @t (or
 * NULL), the timeline's lanes. */
struct timeline;
int export_html(FILE *f, struct rep *r, struct ptrees *p, const struct timeline *t);
/* picture-timeline.c: report --html of a `stat -I --json` file @path: its
 * timeline's charts alone. 0, or -errno with the reason in @why when the
 * file cannot be read as one (timeline__from_stat_json). */
int export_html_stat(FILE *f, const char *path, char *why, size_t len);
#define PAGE_TIMELINE_BINS 600  /* the timeline's bins in a page, at most */

/* diff --html: B's flame tree, each frame with A's share of the same
 * stack, and the rows diff prints (@rows, @n, in its order). */
struct diff_row {
	const char *sym, *dso;
	uint64_t a, b;
	double pa, pb;
};
struct diff_side {
	const char *path;     /* as given */
	struct rep *r;
	struct ptrees *p;
};
int export_html_diff(FILE *f, const struct diff_side *a, const struct diff_side *b,
		     const struct diff_row *rows, size_t n);

#endif
