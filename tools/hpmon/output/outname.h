/* SPDX-License-Identifier: MIT */
/*
 * Where a run of hpmon sits in a parallel job, and the output names that
 * say so: `stat -o 'stat.%r.json'`, `record -o 'prof.%h.%r'` under mpirun
 * or srun. hpmon.c reads the launcher's variables (the tool reads the
 * environment there only) and hands them over with outname_set_job; the
 * commands expand their -o templates and write the values into stat's
 * JSON and the profile's header.
 *
 * Room: tools/hpmon/output/ owns what the tool says and writes (advice, escaping, JSON, output files and names, exit codes); may use libc only.
 * Ownership: outname_set_job copies what it is given; outname_job returns
 * a pointer to that copy, valid until the program ends. Expansions are
 * written into the caller's buffer.
 */
#ifndef HPMON_TOOL_OUTNAME_H
#define HPMON_TOOL_OUTNAME_H

#include <stdbool.h>
#include <stddef.h>

/* One value of the job: the text, and the variable it came from. */
struct job_value {
	char text[256];       /* "" when none of the variables was set */
	char from[64];        /* the variable that gave it, for messages */
	bool bad;             /* set, but not usable in a file name */
};

struct job_info {
	struct job_value rank, size, host, job;
	int pid;              /* hpmon's own (the measured command's parent) */
};

/* The variables looked at, in order, for each value (for messages and
 * hpmon.c): the first one set wins. */
extern const char *const outname_rank_vars[];
extern const char *const outname_size_vars[];
extern const char *const outname_job_vars[];

/* Set a value from a variable (hpmon.c): checked here (rank and size are
 * decimal numbers, host and job letters, digits and ._-+:), so that a
 * value never puts a '/' or a space into a file name. */
void job_value_set(struct job_value *v, const char *from, const char *text, bool number);

/* Record the job (hpmon.c). */
void outname_set_job(const struct job_info *j);

/* The job as hpmon.c found it (all values empty when it was not set). */
const struct job_info *outname_job(void);

/* rank and size as numbers; false when not known. */
bool outname_rank(unsigned *rank);
bool outname_size(unsigned *size);

struct hpm_profile_meta;
struct json;

/* The job's rank, size, host and job id as members of stat's JSON object
 * (each only when known; the host only under a launcher). */
void outname_json(struct json *j);

/* The job's rank, size and id into a profile's header (@m borrows the
 * strings of outname_job). */
void outname_profile_meta(struct hpm_profile_meta *m);

/*
 * Expand the template @tmpl into @buf: %r rank, %s size, %h host, %p pid,
 * %j job id, %% a '%'. A name without '%' is copied as it is. 0, or
 * -EINVAL after printing, prefixed with @cmd, which directive needs which
 * variables and that none is set (or what is wrong with its value);
 * -ENAMETOOLONG when the result does not fit.
 */
int outname_expand(const char *cmd, const char *tmpl, char *buf, size_t len);

#endif
