/* SPDX-License-Identifier: MIT */
/*
 * The timeline where the kernel cannot read it per thread
 * (HPM_TIMELINE_POLL, docs/hpmon-record.md "Timeline"): before Linux
 * 6.12 an inherited event cannot have PERF_SAMPLE_READ, so the timers of
 * record-timeline.c are refused. The session then reads each group
 * itself, at the drain that comes once an interval of wall time has
 * passed: read(2) of a group leader (PERF_FORMAT_GROUP) gives the counts
 * of the thread it was opened on plus those of every inherited copy, live
 * or ended (the kernel adds each child's count to its parent event at the
 * child's exit), so a reading is the whole process tree's counts on that
 * CPU so far. The READ records carry the target thread's pid and tid.
 *
 * What it misses against the timers: counts per thread (one series for
 * the whole target), the enabled and running times (the events are
 * opened without them: no multiplexing coverage per reading), and
 * readings while the reader does not run (a starved reader's next
 * reading holds what the missed ones would have). Its readings are
 * timed by the reader's CLOCK_MONOTONIC, so every event is opened with
 * that clock (use_clockid), for the samples to be on the same time line.
 *
 * Which mode: hpm_record_opts.timeline_poll asks for this one; else a
 * cpu-clock timer with inherit and PERF_SAMPLE_READ is opened on the
 * caller once, before any event: EINVAL (the check that Linux 6.12
 * relaxed) means this mode. It is decided before the events' attributes
 * are made, since their clock and inherit_stat depend on it.
 */
#include <errno.h>
#include <time.h>
#include <unistd.h>

#include "sample/sample-internal.h"
#include "sample/record-order-internal.h"
#include "sys/perf.h"

static uint64_t mono_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void hpm__record_timeline_probe(struct hpm_record *r)
{
	r->tl_poll = false;
	if (!r->o.timeline_ns || r->o.target == HPM_TARGET_CPUS)
		return;
	if (r->o.timeline_poll) {
		r->tl_poll = true;
		return;
	}
	/* a timer as record-timeline.c opens them, on this thread, never
	 * enabled: user mode only, which any perf_event_paranoid allows for
	 * one's own threads */
	struct perf_event_attr a = {
		.size = sizeof(a), .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = r->o.timeline_ns, .inherit = 1, .disabled = 1,
		.exclude_kernel = 1, .exclude_hv = 1,
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_READ,
		.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID,
	};
	int fd = hpm__sys_perf_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd >= 0)
		close(fd);
	/* other refusals refuse the timers as well: record-timeline.c then
	 * turns the timeline off, as any event that cannot open */
	r->tl_poll = fd == -EINVAL;
}

void hpm__record_timeline_clock(const struct hpm_record *r, struct perf_event_attr *a)
{
	if (!r->tl_poll)
		return;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
}

void hpm__record_timeline_poll_start(struct hpm_record *r)
{
	r->tl_on = true;
	r->tl_next = mono_now() + r->o.timeline_ns;
}

/* Read group @k's leader on thread slot @t, CPU slot @c into *@out (its
 * values in r->tl_vals): 1 when read, 0 when that descriptor is not
 * there or says what is not expected. */
static int read_group(struct hpm_record *r, size_t k, size_t t, size_t c, struct hpm_prec *out)
{
	uint32_t leader = r->tl_leader[k];
	const struct perf_event_attr *a = &r->attr[leader];
	int f = *hpm__record_fdp(r, leader, t, c);
	uint64_t *w = r->tl_vals;
	const size_t cap = sizeof(r->tl_vals) / sizeof(r->tl_vals[0]);
	size_t stride = 2 + !!(a->read_format & PERF_FORMAT_LOST); /* value, id[, lost] */
	size_t at = 0, n = 1;

	if (f < 0 || r->thr[t] < 0 || !(a->read_format & PERF_FORMAT_ID))
		return 0;
	ssize_t got = read(f, w, cap * sizeof(*w));
	if (got < (ssize_t)(stride * sizeof(*w)))
		return 0;
	size_t words = (size_t)got / sizeof(*w);
	if (a->read_format & PERF_FORMAT_GROUP) {
		n = (size_t)w[0];
		at = 1;
		if (n < 1 || n > r->nr_ev - leader || at + n * stride > words)
			return 0;
	}
	/* the group's events, in their order: the values become the
	 * record's (each one's index is below where it was read) */
	for (size_t j = 0; j < n; j++) {
		const struct rec_id *e = hpm__record_lookup(r, w[at + j * stride + 1]);
		if (!e || e->ev != leader + j)
			return 0;
		w[j] = w[at + j * stride];
	}
	out->type = HPM_PREC_READ;
	out->read = (struct hpm_read_rec){
		.pid = r->thr[t], .tid = r->thr[t], .cpu = (uint32_t)r->cpu[c], .ev = leader,
		.nr_values = (uint32_t)n, .values = w,
	};
	return 1;
}

int hpm__record_timeline_poll(struct hpm_record *r, struct hpm_order *q, uint64_t now)
{
	if (!r->tl_on || !r->tl_poll || now < r->tl_next)
		return 0;
	/* on the interval's grid; a reader that was starved for longer takes
	 * one reading now, which holds the missed ones' counts */
	r->tl_next += r->o.timeline_ns;
	if (r->tl_next <= now)
		r->tl_next = now + r->o.timeline_ns;
	for (size_t k = 0; k < r->nr_tl; k++)
		for (size_t t = 0; t < r->nr_thr; t++)
			for (size_t c = 0; c < r->nr_cpu; c++) {
				struct hpm_prec p;
				if (!read_group(r, k, t, c, &p))
					continue;
				p.read.time = mono_now();
				int rc = hpm__order_add(q, c, &p);
				if (rc < 0)
					return rc;
			}
	return 0;
}

int hpm__record_timeline_poll_final(struct hpm_record *r, hpm_record_fn fn, void *arg)
{
	for (size_t k = 0; k < r->nr_tl; k++)
		for (size_t t = 0; t < r->nr_thr; t++)
			for (size_t c = 0; c < r->nr_cpu; c++) {
				struct hpm_prec p;
				if (!read_group(r, k, t, c, &p))
					continue;
				p.read.final = true; /* time 0: the caller's last */
				int rc = fn(&p, arg);
				if (rc < 0)
					return rc;
			}
	return 0;
}

enum hpm_timeline_mode hpm_record__timeline_mode(const struct hpm_record *r)
{
	if (!r->tl_on)
		return HPM_TIMELINE_OFF;
	return r->tl_poll ? HPM_TIMELINE_POLL : HPM_TIMELINE_TIMERS;
}

uint64_t hpm_record__timeline_due(const struct hpm_record *r)
{
	return r->tl_on && r->tl_poll ? r->tl_next : 0;
}
