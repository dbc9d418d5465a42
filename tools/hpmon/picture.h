/* SPDX-License-Identifier: MIT */
/*
 * Pictures of a loaded report (report/report.h), for report --svg and
 * --html and diff --html (docs/hpmon-report.md, "Pictures"): a static
 * flame graph in SVG (picture-svg.c), and self-contained HTML pages
 * (report's: picture-html.c; diff's: picture-diff.c; a stat -I file's
 * charts: picture-timeline.c; what they share: picture-page.c, and the
 * annotate data: picture-anno.c) built from the sources in html/, which
 * the build compiles in (html_assets, cmake/embed-html.cmake).
 *
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

/* picture-tree.c: the page's trees (report --html, diff --html), one per
 * event, made from every sample the report layer accounts, through its
 * sink (report.h, struct rep_sink): node 0 the root, its children the
 * tasks' names (what: comm id | FLAME_COMM), then the frames (what: a
 * symbol index), each node with its samples and period (inclusive),
 * those where it was the leaf (self), and the counts read from groups at
 * them (dv). Each sample's leaf and period are also kept per time bin
 * (pbin), for the page's ranges. Past the memory cap a sample stays in
 * the deepest node there was room for, and its time is left out. */
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
struct ptrees {
	struct rep_sink sink;
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
	bool last_ok;         /* the previous sample's leaf, for a run of */
	uint32_t last_ev, last_comm, last_leaf; /* samples with its frames */
};
/* Set @o's sink (and callgraph) to build @p during rep_load; @p must
 * outlive the load. */
void ptrees_init(struct ptrees *p, struct rep_opts *o);
/* The trees made (empty) when no sample came: 0 or -ENOMEM. */
int ptrees_ensure(struct ptrees *p, const struct rep *r);
/* Coarsen the bins to at most @max_bins over the samples' span, and
 * further until there are at most @budget of them. 0 or -ENOMEM. */
int ptrees_bins(struct ptrees *p, size_t budget, uint64_t max_bins);
void ptrees_free(struct ptrees *p);

struct html_asset {
	const char *name;  /* "page.html", "app.js", "style.css" */
	const char *text;
};
extern const struct html_asset html_assets[];

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

/* What the files of the page share (picture-html.c, picture-anno.c,
 * picture-diff.c): one page's JSON being written. */
struct json;
struct page {
	struct json *j;
	struct rep *r;
	struct ptrees *p;
	uint32_t *local;      /* [nr_syms]: the symbol's index in the page + 1 */
	uint32_t *syms;       /* the page's symbols, as rep indexes */
	size_t nr_syms, cap_syms;
	struct htab *hc;      /* comm string id -> the page's index */
	uint32_t *comms;
	size_t nr_comms, cap_comms;
	uint32_t **pnode;     /* [nr_ev][tree nodes]: the node's index in the page's
				 tree, or its nearest ancestor's that is there */
	uint32_t *nr_pnode;   /* [nr_ev] nodes in the page's tree */
};
/* picture-page.c */
#define PAGE_PRUNE 200000.0  /* frames under 1/PAGE_PRUNE of the total are left out */
int page_init(struct page *pg, struct json *j, struct rep *r, struct ptrees *p);
/* page_init, then the page's data object opened on @f (json_init) with its
 * version, @mode ("report", "diff") and, when page_init succeeded, the
 * header. Returns page_init's result; the object is open either way. */
int page_begin(struct page *pg, struct json *j, FILE *f, struct rep *r, struct ptrees *p,
	       const char *mode);
void page_free(struct page *pg);
long page_sym(struct page *pg, uint32_t sym);
/* The header's facts, as members of the open object. */
void page_header(struct page *pg);
/* Event @e's tree as an array (docs/hpmon-report.md: trees), pruned;
 * with @reads, its nodes' group counts into the page's "reads" later. */
int page_tree(struct page *pg, uint32_t e);
/* The page's nodes of event @e in order, as indexes into its tree
 * (malloc'd, for the caller to free); NULL when out of memory. */
uint32_t *page_order(const struct page *pg, uint32_t e);
/* The members every page ends with: syms, symdso, comms, bins. */
int page_tail(struct page *pg);
/* The page: html/page.html with @STYLE@, @APP@ and @DATA@ (@data, JSON,
 * every '<' written \u003c) filled in. */
int page_assemble(FILE *f, const char *data, size_t len);
/* picture-anno.c: "annotate", the top ANNO_TOP functions of the main
 * event, per source line and hottest instructions. */
#define ANNO_TOP 50
int page_annotate(struct page *pg);
/* picture-timeline.c: "timeline" (null without @t). */
void page_timeline(struct json *j, const struct timeline *t);

#endif
