/* SPDX-License-Identifier: MIT */
/*
 * What the files of pictures/ share and no other folder sees (picture.h
 * is the folder's interface): the SVG's flame tree (picture-tree.c,
 * drawn by picture-svg.c), the pages' trees as built, the page being
 * written (picture-page.c; its parts in picture-html.c, picture-anno.c,
 * picture-diff.c, picture-timeline.c), and html/'s sources compiled in
 * (html_assets, cmake/embed-html.cmake).
 *
 * Room: tools/hpmon/pictures/ owns the SVG and the report and diff pages; may use timeline, report, output.
 * Ownership: a struct flame, a struct page and their arrays belong to
 * whoever made them (flame_build, page_init) until flame_free, page_free;
 * the page borrows its JSON writer, rep and trees; html_assets are
 * constant.
 */
#ifndef HPMON_TOOL_PICTURES_INTERNAL_H
#define HPMON_TOOL_PICTURES_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "pictures/picture.h"

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

/* The trees made (empty) when no sample came: 0 or -ENOMEM. */
int ptrees_ensure(struct ptrees *p, const struct rep *r);
/* After the load, before the trees are read: made (ptrees_ensure), and
 * each node's samples, period and counts read summed into its ancestors'
 * (inclusive), once. 0, or the trees' error (-ENOMEM). */
int ptrees_finish(struct ptrees *p, const struct rep *r);
/* Coarsen the bins to at most @max_bins over the samples' span, and
 * further until there are at most @budget of them. 0 or -ENOMEM. */
int ptrees_bins(struct ptrees *p, size_t budget, uint64_t max_bins);

struct html_asset {
	const char *name;  /* "page.html", "app.js", "style.css" */
	const char *text;
};
extern const struct html_asset html_assets[];

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
	struct htab *hc;      /* task (comm string id | tid << 32) -> the page's index */
	uint64_t *comms;
	size_t nr_comms, cap_comms;
	uint32_t **pnode;     /* [nr_ev][tree nodes]: the node's index in the page's
				 tree, or its nearest ancestor's that is there */
	uint32_t *nr_pnode;   /* [nr_ev] nodes in the page's tree */
	uint64_t *each;       /* [nr_ev] the period of every sample, or 0 */
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
/* Event @e's tree as a string (docs/hpmon-report.md: trees), pruned;
 * with @reads, its nodes' group counts into the page's "reads" later. */
int page_tree(struct page *pg, uint32_t e);
/* "tree_each": per event, the period of each of its samples when they
 * all have one (the trees then leave it out), else null. */
void page_tree_each(struct page *pg);
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
/* picture-timeline.c: "timeline" (null without @t); with @r, the
 * series of its software events are never scaled. */
void page_timeline(struct json *j, const struct timeline *t, const struct rep *r);
/* picture-stack.c: "stacks", the samples in time order for the stack
 * chart (docs/hpmon-report.md). 0 or -ENOMEM. */
#define PAGE_STACK_TICK 1000  /* ns: the stack chart's time resolution */
int page_stacks(struct page *pg);
/* The page's compact numbers: unsigned LEB128 into a growing buffer
 * (false when out of memory), written as base64 (malloc'd, NUL-ended;
 * NULL when out of memory). */
struct pbuf {
	unsigned char *b;
	size_t n, cap;
};
bool pbuf_uleb(struct pbuf *o, uint64_t v);
char *pbuf_base64(const unsigned char *in, size_t n);

#endif
