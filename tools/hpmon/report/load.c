/* SPDX-License-Identifier: MIT */
/* One pass over a profile into a report's tables (report/report.h). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report-internal.h"

static int sideband(struct rep *r, const struct hpm_prec *p)
{
	r->last_comm = 0; /* names may change */
	if (++r->sb_gen == 0) /* and mappings: the memo of the last sample is stale */
		r->sb_gen = 1;
	switch (p->type) {
	case HPM_PREC_MMAP:
		return addrspace__mmap(r, &p->mmap);
	case HPM_PREC_COMM:
		return addrspace__comm(r, &p->comm);
	case HPM_PREC_FORK:
		return addrspace__fork(r, &p->task);
	case HPM_PREC_LOST:
		if (p->lost.ev == UINT32_MAX || p->lost.ev < r->nr_ev) {
			r->lost += p->lost.count;
			if (r->o.sink && r->o.sink->lost)
				r->o.sink->lost(r->o.sink->arg, r, &p->lost);
		}
		return 0;
	case HPM_PREC_THROTTLE:
		r->throttled++;
		return 0;
	case HPM_PREC_RANK:
		return ranks__record(r, &p->rank);
	default:
		return 0;
	}
}

static int open_profile(struct rep *r)
{
	return rep_open(r->o.input, &r->prof);
}

int rep_open(const char *path, struct hpm_profile **out)
{
	int rc = hpm_profile__open(path, out);
	if (rc) {
		if (rc == -EBADMSG)
			fprintf(stderr, "hpmon: '%s' is not an hpmon profile or a perf.data file, "
				"or its header is damaged\n", path);
		else if (rc == -EPROTONOSUPPORT)
			fprintf(stderr, "hpmon: '%s' is a perf.data file of a machine of the other byte "
				"order, which hpmon does not read: convert it there (hpmon convert -i "
				"FILE -o FILE.prof) or read it with perf\n", path);
		else if (rc == -EOPNOTSUPP)
			fprintf(stderr, "hpmon: '%s' is a perf.data stream (perf record -o -), which hpmon "
				"does not read: write it to a file (perf inject -o FILE.data < STREAM)\n",
				path);
		else if (rc == -EPROTO)
			fprintf(stderr, "hpmon: '%s' is a profile of a newer hpmon (format version "
				"above %d)\n", path, HPM_PROFILE_VERSION);
		else
			fprintf(stderr, "hpmon: cannot read '%s': %s\n", path, hpm_strerror(rc));
		return -1;
	}
	return 0;
}

/* What the memory cap (report-internal.h) changed, on stderr: the
 * report is still right in its totals, less detailed where it says. */
static void cap_notes(const struct rep *r)
{
	if (!r->cap_early && !r->cap_samples && !r->cap_records)
		return;
	fprintf(stderr, "hpmon: warning: '%s' asks for more memory than its size justifies "
		"(cap %llu MiB: %llu MiB + %d x its %llu bytes of records):\n", r->o.input,
		(unsigned long long)((REP_MEM_BASE + REP_MEM_PER_RAW * r->st.raw_bytes) >> 20),
		(unsigned long long)(REP_MEM_BASE >> 20), REP_MEM_PER_RAW,
		(unsigned long long)r->st.raw_bytes);
	if (r->cap_early)
		fprintf(stderr, "hpmon:   %llu samples without a known mapping were placed before "
			"the end of the file (a mapping recorded later was not seen)\n",
			(unsigned long long)r->cap_early);
	if (r->cap_samples)
		fprintf(stderr, "hpmon:   %llu samples are counted in \"" REP_CAPPED_NAME "\" "
			"rows or symbols, or by symbol without their address\n",
			(unsigned long long)r->cap_samples);
	if (r->cap_records)
		fprintf(stderr, "hpmon:   %llu records or details (mappings, names, group counts, "
			"call-graph edges) were left out\n", (unsigned long long)r->cap_records);
}

/* Objects the profile names that are not regular files (a FIFO, a
 * device): refused unread, and said here, where the reason is known. */
static void refused_notes(const struct rep *r)
{
	for (size_t i = 0; i < r->nr_dsos; i++)
		if (r->dsos[i].open_err == -HPM_ERR_NOT_REGULAR || r->dsos[i].open_err == -EISDIR)
			fprintf(stderr, "hpmon: warning: '%s', named by the profile, is %s: not read "
				"(its samples are shown by offset)\n", r->dsos[i].path,
				r->dsos[i].open_err == -EISDIR ? "a directory"
							       : "not a regular file (a FIFO, device or socket)");
}

/* perf.data: an AUX area trace is read past, and said so (`hpmon convert`
 * lists every type read past). */
static void perfdata_notes(const struct rep *r)
{
	struct hpm_profile_rectype t[64];
	size_t n = hpm_profile__rectypes(r->prof, t, 64);
	if (n > 64)
		n = 64;
	for (size_t i = 0; i < n; i++) {
		if (!t[i].used && !strcmp(t[i].name, "AUXTRACE_INFO"))
			fprintf(stderr, "hpmon: note: '%s' holds an AUX area trace (Intel PT, CoreSight "
				"...): hpmon does not decode it; its samples are reported\n", r->o.input);
	}
}

int rep_load(struct rep *r, const struct rep_opts *o)
{
	struct hpm_prec p;
	int rc;

	memset(r, 0, sizeof(*r));
	r->o = *o;
	if (rep_strings__init(r) || addrspace__init(r) || aggregate__init(r) || ranks__init(r))
		goto nomem;

	if (open_profile(r))
		return -1;
	r->meta = *hpm_profile__meta(r->prof);
	r->live = hpm_profile__status(r->prof);
	if (ranks__start(r))
		goto nomem;
	if (!o->callgraph) /* a flat listing: call chains are not decoded */
		hpm_profile__skip(r->prof, HPM_PROFILE_SKIP_CHAINS | HPM_PROFILE_SKIP_STACKS);
	r->nr_ev = r->meta.nr_events;
	for (r->main_ev = 0; r->main_ev < r->nr_ev && !r->meta.events[r->main_ev].trigger;)
		r->main_ev++;
	if (r->main_ev == r->nr_ev)
		r->main_ev = 0;
	r->ev_samples = calloc(r->nr_ev, sizeof(uint64_t));
	r->ev_period = calloc(r->nr_ev, sizeof(double));
	r->ev_read = calloc(r->nr_ev, sizeof(bool));
	r->xdelta = calloc(r->nr_ev, sizeof(double));
	r->taken = calloc(r->nr_ev, sizeof(uint64_t));
	if (!r->ev_samples || !r->ev_period || !r->ev_read || !r->xdelta || !r->taken)
		goto nomem;
	/* kallsyms is read only when the first kernel sample comes (aggregate__sample),
	 * on a second thread while the rest of the file is decoded */
	/* one pass; a sample whose mapping is not known yet waits for the end */
	while ((rc = hpm_profile__next(r->prof, &p)) > 0) {
		if (p.type == HPM_PREC_SAMPLE) {
			if (!r->first_time)
				r->first_time = p.sample.time;
			if (p.sample.ev >= r->nr_ev)
				continue;
			aggregate__sample(r, &p.sample, true);
			/* a run of the same address (a breakpoint's, a tight
			 * loop's) is added at once; not for a sink, which sees
			 * every sample with its own time */
			uint64_t until = r->o.sink ? 0 : aggregate__repeat_until(r, &p.sample);
			uint32_t n = until ? hpm_profile__repeats(r->prof, until, UINT32_MAX) : 0;
			if (n)
				aggregate__repeat(r, &p.sample, n);
		} else if (sideband(r, &p)) {
			goto nomem;
		}
	}
	if (rc < 0)
		goto nomem;
	aggregate__flush(r);
	if (r->ksym_thread_up) { /* no kernel sample needed it */
		pthread_join(r->ksym_thread, NULL);
		r->ksym_thread_up = false;
	}
	r->st = *hpm_profile__status(r->prof);
	r->live = NULL;
	cap_notes(r);
	refused_notes(r);
	perfdata_notes(r);
	if (r->st.complete) {
		r->lost_samples = r->st.totals.lost_samples;
		if (r->st.totals.throttled > r->throttled)
			r->throttled = r->st.totals.throttled;
	}
	return 0;
nomem:
	fprintf(stderr, "hpmon: out of memory reading '%s'\n", o->input);
	return -1;
}

bool rep_reserve(struct rep *r, uint64_t bytes)
{
	return rep_charge(r, bytes);
}

void rep_free(struct rep *r)
{
	addrspace__free(r); /* first: it waits for the kallsyms reader */
	aggregate__free(r);
	ranks__free(r);
	rep_strings__free(r);
	free(r->ev_samples);
	free(r->ev_period);
	free(r->ev_read);
	free(r->xdelta);
	free(r->taken);
	hpm_profile__free(r->prof);
	memset(r, 0, sizeof(*r));
}

/* ---- one sample at a time (hpmon script) ---- */

int rep_walk(struct rep *r, const struct rep_opts *o, rep_walk_fn fn, void *arg)
{
	struct hpm_prec p;
	int rc;

	memset(r, 0, sizeof(*r));
	r->o = *o;
	if (rep_strings__init(r) || addrspace__init(r) || aggregate__init(r) || ranks__init(r))
		goto nomem;
	if (open_profile(r))
		return -1;
	r->meta = *hpm_profile__meta(r->prof);
	r->live = hpm_profile__status(r->prof);
	if (ranks__start(r))
		goto nomem;
	if (!o->callgraph)
		hpm_profile__skip(r->prof, HPM_PROFILE_SKIP_CHAINS | HPM_PROFILE_SKIP_STACKS);
	r->nr_ev = r->meta.nr_events;
	while ((rc = hpm_profile__next(r->prof, &p)) > 0) {
		if (p.type == HPM_PREC_SAMPLE) {
			if (p.sample.ev >= r->nr_ev)
				continue;
			const char *comm = rep_str(r, addrspace__comm_of(r, p.sample.tid, p.sample.pid));
			if ((rc = fn(r, &p.sample, comm, arg)))
				return rc;
		} else if (sideband(r, &p)) {
			goto nomem;
		}
	}
	if (rc < 0)
		goto nomem;
	r->st = *hpm_profile__status(r->prof);
	r->live = NULL;
	cap_notes(r);
	refused_notes(r);
	perfdata_notes(r);
	return 0;
nomem:
	fprintf(stderr, "hpmon: out of memory reading '%s'\n", o->input);
	return -1;
}

void rep_frame(struct rep *r, const struct hpm_sample *s, uint64_t ip, enum hpm_mode mode,
	       struct rep_frame *f)
{
	uint32_t l = addrspace__resolve(r, s->pid, ip, mode, s->time);
	memset(f, 0, sizeof(*f));
	f->addr = ip;
	if (l == UINT32_MAX)
		return;
	const struct rep_loc *loc = &r->locs[l];
	const struct rep_sym *sym = &r->syms[loc->sym];
	const struct rep_dso *d = &r->dsos[loc->dso];
	if (d->kind != DK_UNKNOWN)
		f->dso = d->path;
	if (d->kind == DK_FILE || d->kind == DK_VDSO)
		f->addr = loc->addr;
	if (sym->resolved && !loc->capped) {
		f->sym = sym->name;
		f->symoff = loc->addr - sym->start;
	}
}

bool rep_unwind(struct rep *r, const struct hpm_sample *s, struct hpm_sample *out,
		uint64_t *chain)
{
	/* as aggregate__sample: the kernel's part of the chain, then the
	 * user stack unwound from its copy */
	return s->stack_len && s->nr_regs && addrspace__unwind(r, s, out, chain);
}
