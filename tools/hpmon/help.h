/* SPDX-License-Identifier: MIT */
/*
 * `hpmon help CMD`: the command's man page, made from docs/hpmon-CMD.md
 * at build time (docs/CMakeLists.txt). Where the page is installed beside
 * this hpmon, man shows it, as `perf help` does; elsewhere (the build
 * tree, a static hpmon in a guest, a machine without man) the page's text
 * rendered at build time is printed, so help needs neither man nor the
 * network.
 *
 * Ownership: help_pages is static, generated data (cmake/embed-man.cmake);
 * help_show borrows its argument.
 */
#ifndef HPMON_TOOL_HELP_H
#define HPMON_TOOL_HELP_H

struct help_page {
	const char *name; /* "hpmon-stat" */
	const char *text; /* the page as man shows it, 80 columns */
};

/* Every page built, in name order, ending with {NULL, NULL}; empty when
 * the build had no man pages (-DHPM_MAN=OFF). */
extern const struct help_page help_pages[];

/* The text of page @name ("hpmon-stat"), or NULL. */
const char *help_text(const char *name);

/*
 * Show the man page of command @cmd ("stat"): through man when the page
 * is installed beside this hpmon and man runs (this process becomes man),
 * else its text on standard output. Returns the exit status: 0, or 1 with
 * a message on stderr when this hpmon has no such page.
 */
int help_show(const char *cmd);

#endif
