/* SPDX-License-Identifier: MIT */
/*
 * Pictures of a loaded report (report/report.h), for report --svg and
 * --html (docs/hpmon-report.md, "Pictures"): a static flame graph in SVG
 * (export-svg.c), and one self-contained HTML page (export-html.c) built
 * from the sources in html/, which the build compiles in (html_assets,
 * cmake/embed-html.cmake).
 *
 * Ownership: both borrow the rep and the stream (the caller opens it,
 * through output.c, and commits or aborts it). The rep must have been
 * loaded with callgraph and folded set (and all_stacks for the page, so
 * that every event can weight it). Both return 0, or -errno (a memory
 * failure; write errors are the stream's, found by out_commit).
 */
#ifndef HPMON_TOOL_EXPORT_H
#define HPMON_TOOL_EXPORT_H

#include <stdio.h>

struct rep;

struct html_asset {
	const char *name;  /* "page.html", "app.js", "style.css" */
	const char *text;
};
extern const struct html_asset html_assets[];

int export_svg(FILE *f, const struct rep *r);
int export_html(FILE *f, const struct rep *r);

#endif
