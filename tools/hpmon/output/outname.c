/* SPDX-License-Identifier: MIT */
/*
 * Output name templates and the job's identity (outname.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hpmon/profile.h>
#include "output/json.h"
#include "output/outname.h"

/* OpenMPI, MPICH and Intel MPI (PMI), Slurm, and PMIx launchers */
const char *const outname_rank_vars[] = { "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID",
					  "PMIX_RANK", NULL };
const char *const outname_size_vars[] = { "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS",
					  "SLURM_NPROCS", NULL };
const char *const outname_job_vars[] = { "SLURM_JOB_ID", "OMPI_MCA_ess_base_jobid", NULL };

static struct job_info the_job;

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       strchr("._-+:", c);
}

void job_value_set(struct job_value *v, const char *from, const char *text, bool number)
{
	memset(v, 0, sizeof(*v));
	snprintf(v->from, sizeof(v->from), "%s", from);
	size_t n = strlen(text);
	bool ok = n > 0 && n < sizeof(v->text);
	for (size_t i = 0; ok && i < n; i++)
		ok = number ? text[i] >= '0' && text[i] <= '9' : name_char(text[i]);
	if (ok && number) {
		char *end;
		errno = 0;
		long x = strtol(text, &end, 10);
		ok = !errno && !*end && x >= 0 && x <= 0x7fffffff;
	}
	v->bad = !ok;
	snprintf(v->text, sizeof(v->text), "%s", ok ? text : "");
}

void outname_set_job(const struct job_info *j)
{
	the_job = *j;
}

const struct job_info *outname_job(void)
{
	return &the_job;
}

static bool number(const struct job_value *v, unsigned *out)
{
	if (!v->text[0])
		return false;
	*out = (unsigned)strtoul(v->text, NULL, 10); /* checked by job_value_set */
	return true;
}

bool outname_rank(unsigned *rank)
{
	return number(&the_job.rank, rank);
}

bool outname_size(unsigned *size)
{
	return number(&the_job.size, size);
}

void outname_json(struct json *j)
{
	unsigned v;
	if (outname_rank(&v))
		json_u64(j, "rank", v);
	if (outname_size(&v))
		json_u64(j, "size", v);
	if (the_job.host.text[0] && (the_job.rank.text[0] || the_job.job.text[0]))
		json_str(j, "host", the_job.host.text);
	if (the_job.job.text[0])
		json_str(j, "job", the_job.job.text);
}

void outname_profile_meta(struct hpm_profile_meta *m)
{
	unsigned v;
	m->has_rank = outname_rank(&v);
	m->rank = m->has_rank ? v : 0;
	m->job_size = outname_size(&v) ? v : 0;
	m->job = the_job.job.text;
}

static void say_vars(const char *const *vars)
{
	for (size_t i = 0; vars[i]; i++)
		fprintf(stderr, "%s%s", i ? (vars[i + 1] ? ", " : " or ") : "", vars[i]);
}

/* The value of directive @d, or NULL after saying why there is none. */
static const char *value_of(const char *cmd, const char *tmpl, char d, char *pid, size_t plen)
{
	const struct job_value *v = NULL;
	const char *const *vars = NULL;
	const char *what = "";

	switch (d) {
	case 'r': v = &the_job.rank; vars = outname_rank_vars; what = "the rank"; break;
	case 's': v = &the_job.size; vars = outname_size_vars; what = "the job's size"; break;
	case 'j': v = &the_job.job; vars = outname_job_vars; what = "the job id"; break;
	case 'h': v = &the_job.host; what = "the host name"; break;
	case 'p':
		snprintf(pid, plen, "%d", the_job.pid);
		return pid;
	case '%':
		return "%";
	default:
		fprintf(stderr, "%s: '%%%c' in the output name '%s' is not a template directive: "
			"use %%r (rank), %%s (size), %%h (host), %%p (pid), %%j (job id), or %%%% "
			"for a '%%'\n", cmd, d ? d : ' ', tmpl);
		return NULL;
	}
	if (v->text[0])
		return v->text;
	if (v->bad) {
		fprintf(stderr, "%s: %%%c in '%s' needs %s, but %s is not usable in a file name "
			"(a %s): check what the launcher sets\n", cmd, d, tmpl, what, v->from,
			d == 'r' || d == 's' ? "number from 0" : "name of letters, digits and ._-+:");
		return NULL;
	}
	fprintf(stderr, "%s: %%%c in '%s' needs %s, and ", cmd, d, tmpl, what);
	if (vars) {
		fprintf(stderr, "none of ");
		say_vars(vars);
		fprintf(stderr, " is set: run hpmon under the launcher (mpirun, srun), or drop "
			"%%%c\n", d);
	} else {
		fprintf(stderr, "this machine has none\n");
	}
	return NULL;
}

int outname_expand(const char *cmd, const char *tmpl, char *buf, size_t len)
{
	size_t n = 0;
	char pid[24];

	for (const char *p = tmpl; *p; p++) {
		const char *add;
		char one[2] = { *p, 0 };
		if (*p == '%') {
			p++;
			add = value_of(cmd, tmpl, *p, pid, sizeof(pid));
			if (!add)
				return -EINVAL;
		} else {
			add = one;
		}
		size_t k = strlen(add);
		if (k >= len - n) {
			fprintf(stderr, "%s: the output name '%s' is too long once expanded\n", cmd,
				tmpl);
			return -ENAMETOOLONG;
		}
		memcpy(buf + n, add, k);
		n += k;
	}
	if (!len)
		return -ENAMETOOLONG;
	buf[n] = '\0';
	return 0;
}
