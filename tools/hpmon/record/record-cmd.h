/* SPDX-License-Identifier: MIT */
/*
 * hpmon record's files: cmd-record.c (options, the run, the drain loop),
 * record-profile.c (the profile's header, the summary), record-timeline.c
 * (the session's READ records made TIMELINE records of the profile).
 *
 * Room: tools/hpmon/record/ owns hpmon record; may use cache, launch, output.
 * Ownership: the options are the command's; the functions borrow them,
 * the session and the list during the call. record_start_profile owns
 * @fd from the call on (closed on failure).
 */
#ifndef HPMON_TOOL_RECORD_CMD_H
#define HPMON_TOOL_RECORD_CMD_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include <hpmon/record.h>
#include <hpmon/sysinfo.h>
#include "launch/launch.h"
#include "output/attr-dump.h"

struct record_opts {
	char events[4096];
	bool events_given;
	uint64_t period, freq;
	bool random_period;
	bool no_cache;
	uint64_t seed;
	enum hpm_callchain callchain;
	uint32_t stack_bytes;
	struct target tg;           /* -p, -t, -a, -C */
	const char *output;         /* -o, templates expanded (outname.h) */
	char output_name[PATH_MAX];
	uint32_t mmap_pages;
	bool force;
	bool quiet;
	int verbose;                /* -v: how many; -vv prints each open */
	struct attr_dump vv;        /* -vv */
	bool stop_on_error;         /* --on-error=stop */
	uint64_t timeline_ns;       /* --timeline-interval, 0: none */
	bool timeline_given;
	bool timeline_poll;         /* --timeline-mode poll */
	char **argv;
};

/* The profile's header from the session as opened, into a writer on @fd;
 * NULL (said on stderr) on failure. */
struct hpm_profile_writer *record_start_profile(const struct record_opts *o,
						struct hpm_record *rec, struct hpm_evlist *list,
						const struct hpm_sysinfo *si, int fd);
/* What was written and lost, on stderr. */
void record_summary(const struct record_opts *o, struct hpm_ctx *ctx, struct hpm_record *rec,
		    struct hpm_evlist *list, uint64_t bytes);

/* record-timeline.c: READ records into the profile as TIMELINE records. */
struct rec_timeline;
struct hpm_profile_writer;
struct rec_timeline *rec_timeline__new(void);
void rec_timeline__free(struct rec_timeline *t);
/* Write @r's counts since the thread's previous reading on that CPU
 * (nothing when none changed), rounded to HPM_TIMELINE_BITS with the
 * rest carried (the final reading exact), with the span's start; a final
 * reading without a time gets the last time seen. 0, or -errno (the
 * writer's, or -ENOMEM). */
int rec_timeline__add(struct rec_timeline *t, struct hpm_profile_writer *w,
		      const struct hpm_read_rec *r);
/* A record @p was written: a sample's time is the final readings' time
 * when they have none, and the first one the start of the threads that
 * were there from the start. With @spans (the session keeps a timeline),
 * a FORK says when a thread started, a sample when it ran on its CPU.
 * 0 or -ENOMEM. */
int rec_timeline__note(struct rec_timeline *t, const struct hpm_prec *p, bool spans);

#endif
