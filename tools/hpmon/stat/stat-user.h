/* SPDX-License-Identifier: MIT */
/*
 * hpmon stat and what the program defines: location events (exec:),
 * software counters (sw:), their mask (--enable/--disable), marked
 * counting (--marked) and regions (--regions). The stat command's files
 * (stat-cmd.h) call these at fixed points of a run; everything about
 * user-defined events is here.
 *
 *   stat_parse_opts: stat_user_option() for OPT_USER_* (STAT_USER_LONGOPTS)
 *   after parsing:   stat_user_check()         (exit 129 on error)
 *   at the end:      stat_user_free()
 *   before forking:  stat_user_before_start()  (the markers area, environment)
 *   session options: stat_user_session_opts()
 *   after child_go:  stat_user_started()       (locations at the exec)
 *   an event failed: stat_user_reason()        (the library's one sentence)
 *   before freeing the session: stat_user_finished()
 *   after printing:  stat_user_print()         (regions, marked summary)
 *
 * Room: tools/hpmon/stat/ owns hpmon stat; may use counting, launch, output.
 * Ownership: the state is stat's (struct stat_out); the context, event
 * list and session are borrowed and outlive every call here.
 */
#ifndef HPMON_TOOL_STAT_USER_H
#define HPMON_TOOL_STAT_USER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct hpm_ctx;
struct hpm_evlist;
struct hpm_session;
struct hpm_session_opts;
struct stat_out;

enum {
	OPT_USER_REGIONS = 0x200,
	OPT_USER_MARKED,
	OPT_USER_ENABLE,
	OPT_USER_DISABLE,
};

/* Entries for getopt_long's table. */
#define STAT_USER_LONGOPTS                                                \
	{ "regions", no_argument, NULL, OPT_USER_REGIONS },               \
	{ "marked", no_argument, NULL, OPT_USER_MARKED },                 \
	{ "enable", required_argument, NULL, OPT_USER_ENABLE },           \
	{ "disable", required_argument, NULL, OPT_USER_DISABLE }

/* Lines for the usage text. */
#define STAT_USER_USAGE                                                                       \
	"      --regions          per region (hpm_region_begin/end) and thread: calls and counts\n" \
	"      --marked           count only while the program's threads are marked (hpm_mark)\n" \
	"      --enable NAMES     software counters that start enabled; all others start off\n" \
	"      --disable NAMES    software counters that start disabled (comma separated)\n"

/* The options, as parse_opts() collects them (plain data: nothing to free). */
struct stat_user_opts {
	bool regions, marked;
	const char *enable, *disable;  /* comma-separated counter names */
};

/* An OPT_USER_* option into @uo. 0, or HPM_EXIT_USAGE. */
int stat_user_option(struct stat_user_opts *uo, int opt, const char *arg);

struct stat_user;

/*
 * After the event list is parsed: check the options against it and the
 * command (NULL without one), and the location events against the
 * program the command runs, so that a missing function or line is
 * reported before anything starts. 0 and *@out to free with
 * stat_user_free(), or HPM_EXIT_USAGE / HPM_EXIT_FAIL after printing why.
 */
int stat_user_check(const struct stat_user_opts *uo, struct hpm_ctx *ctx,
		    struct hpm_evlist *list, char *const *argv, bool attach,
		    struct stat_user **out);
void stat_user_free(struct stat_user *u);

/*
 * Before each start of the command: a fresh markers area when the run
 * needs one, named in hpmon's environment so that the command inherits
 * it. 0, or HPM_EXIT_FAIL after printing why.
 */
int stat_user_before_start(struct stat_user *u);

/* Fill what the session needs to know about the above. */
void stat_user_session_opts(struct stat_user *u, struct hpm_session_opts *so, bool launched);

/* The command was let go to exec: place the location events now. */
void stat_user_started(struct stat_user *u, struct hpm_session *s);

/* Why event @idx could not be counted, when the library says it better
 * than the error code (copied into @buf), else false. */
bool stat_user_reason(struct hpm_session *s, size_t idx, char *buf, size_t len);

/* The run is over, before its session is freed: keep what printing needs
 * from it (how locations were counted, thread names), and say once when
 * exec: events went to uprobes because breakpoints do not fire here. */
void stat_user_finished(struct stat_user *u, struct hpm_ctx *ctx, struct hpm_session *s);

/* After the counts: how locations were counted, the regions table and
 * notes about marked counting. */
void stat_user_print(struct stat_user *u, const struct stat_out *out);

#endif
