/* SPDX-License-Identifier: MIT */
/*
 * The timeline of a sampling session (hpm_record_opts.timeline_ns,
 * docs/hpmon-record.md "Timeline"): every group's counts read per thread
 * at an interval, and at each thread's end.
 *
 * How: each group gets one more member, a cpu-clock timer that samples
 * every timeline_ns of the thread's running time and reads the whole
 * group (PERF_SAMPLE_READ, PERF_FORMAT_GROUP). With inherit, since Linux
 * 6.12, each thread's copy of the group reads that thread's own counts,
 * so a reading costs one sample record and no system call, and nothing
 * while the thread sleeps. A thread's last counts come from the kernel
 * at its exit: with inherit_stat every event writes a PERF_RECORD_READ
 * of the thread's final count; the first thread's, whose events hpmon
 * opened itself, are what reading the timers at the end gives, less what
 * the other threads reported (hpm_record__read_final).
 *
 * The timers are counted past the session's events in r->ids (ev >=
 * nr_ev), so that their samples find them; they never reach the caller
 * as samples.
 *
 * Before 6.12 the kernel refuses the timers: record-timeline-poll.c
 * then reads the groups from the reader instead (r->tl_poll, decided
 * before the events open), and this file only finds the groups.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "sample/sample-internal.h"
#include "events/evlist-internal.h"
#include "sys/perf.h"

/* Group @leader's members, leader first: how many, or 0 when they are not
 * the events that follow it (a READ record names its events from the
 * first on). */
static size_t group_members(const struct hpm_record *r, size_t leader)
{
	size_t n = 0;
	for (size_t i = 0; i < r->nr_ev; i++)
		if (r->list->ev[i].leader == leader && i != leader + n++)
			return 0;
	return n;
}

static int *tl_fdp(const struct hpm_record *r, size_t k, size_t t, size_t c)
{
	return &r->tl_fd[(k * r->nr_thr + t) * r->nr_cpu + c];
}

void hpm__record_timeline_close(struct hpm_record *r)
{
	for (size_t i = 0; r->tl_fd && i < r->nr_tl * r->nr_thr * r->nr_cpu; i++)
		if (r->tl_fd[i] >= 0)
			close(r->tl_fd[i]);
	free(r->tl_fd);
	free(r->tl_leader);
	free(r->tl_exited);
	free(r->tl_last_tid);
	r->tl_last_tid = NULL;
	r->tl_fd = NULL;
	r->tl_leader = NULL;
	r->tl_exited = NULL;
	r->nr_tl = 0;
	r->tl_on = false;
}

/* Whether group @i gets a timer: a trigger that is no location. */
static bool timed(const struct hpm_record *r, size_t i)
{
	const struct hpm_event *ev = &r->list->ev[i];
	return ev->leader == i && r->trigger[i] && ev->kind != HPM_EV_LOCATION &&
	       group_members(r, i) > 0;
}

static int open_timer(struct hpm_record *r, size_t k, size_t t, size_t c)
{
	size_t leader = r->tl_leader[k];
	int group_fd = *hpm__record_fdp(r, leader, t, c);
	struct perf_event_attr a = r->tl_attr;

	if (group_fd < 0)
		return 0; /* not on this CPU, or that thread ended */
	/* what the group counts: its leader's privilege levels, as opened */
	a.exclude_user = r->attr[leader].exclude_user;
	a.exclude_kernel = r->attr[leader].exclude_kernel;
	a.exclude_hv = r->attr[leader].exclude_hv;
	int fd = hpm__record_perf_open(r, &a, r->thr[t], r->cpu[c], group_fd, HPM_FALLBACK_USER,
				       NULL);
	if (fd == -ESRCH && r->o.target == HPM_TARGET_PIDS)
		return 0;
	if (fd < 0)
		return fd;
	*tl_fdp(r, k, t, c) = fd;
	if (r->buf_fd[c] >= 0 && ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->buf_fd[c]))
		return -errno;
	return 0;
}

int hpm__record_timeline_open(struct hpm_record *r)
{
	if (!r->o.timeline_ns || r->o.target == HPM_TARGET_CPUS)
		return 0;
	for (size_t i = 0; i < r->nr_ev; i++)
		r->nr_tl += timed(r, i);
	if (!r->nr_tl)
		return 0;
	size_t per = r->nr_thr * r->nr_cpu;
	r->tl_leader = calloc(r->nr_tl, sizeof(*r->tl_leader));
	r->tl_fd = malloc(r->nr_tl * per * sizeof(int));
	r->tl_exited = calloc(r->nr_ev * per, sizeof(uint64_t));
	r->tl_last_tid = calloc(r->nr_ev * per, sizeof(pid_t));
	if (!r->tl_leader || !r->tl_fd || !r->tl_exited || !r->tl_last_tid) {
		hpm__record_timeline_close(r);
		return -ENOMEM;
	}
	for (size_t i = 0; i < r->nr_tl * per; i++)
		r->tl_fd[i] = -1;
	for (size_t i = 0, k = 0; i < r->nr_ev; i++)
		if (timed(r, i))
			r->tl_leader[k++] = (uint32_t)i;
	if (r->tl_poll) { /* before Linux 6.12: record-timeline-poll.c */
		hpm__record_timeline_poll_start(r);
		return 0;
	}
	r->tl_attr = (struct perf_event_attr){
		.size = sizeof(r->tl_attr), .type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK, .sample_period = r->o.timeline_ns,
		.inherit = 1,
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			       PERF_SAMPLE_CPU | PERF_SAMPLE_READ,
		.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED |
			       PERF_FORMAT_TOTAL_TIME_RUNNING,
		.sample_id_all = 1, .watermark = 1,
		.wakeup_watermark = (uint32_t)(r->data_len / 4),
	};
	for (size_t k = 0; k < r->nr_tl; k++)
		for (size_t t = 0; t < r->nr_thr; t++)
			for (size_t c = 0; c < r->nr_cpu; c++) {
				int rc = open_timer(r, k, t, c);
				if (rc == -ENOMEM)
					return rc;
				if (rc) {
					/* before Linux 6.12 (no PERF_SAMPLE_READ with
					 * inherit): the session samples on, without */
					hpm__record_timeline_close(r);
					return 0;
				}
			}
	r->tl_on = true;
	return 0;
}

int hpm__record_timeline_tick(struct hpm_record *r, size_t ev, uint64_t enabled,
			      uint64_t running, struct hpm_prec *out)
{
	size_t k = ev - r->nr_ev;
	if (k >= r->nr_tl)
		return -1;
	const struct hpm_sample s = out->sample; /* out is a union */
	uint32_t leader = r->tl_leader[k];
	size_t n = group_members(r, leader);
	/* the group, then the timer: a group member is never the timer */
	if (s.nr_values != n + 1)
		return -1;
	out->type = HPM_PREC_READ;
	out->read = (struct hpm_read_rec){
		.pid = s.pid, .tid = s.tid, .cpu = s.cpu, .time = s.time, .ev = leader,
		.enabled = enabled, .running = running, .nr_values = (uint32_t)n,
		.values = s.values,
	};
	return 0;
}

/* The entries of a READ record's values at @w[@at] (@nr of them, @stride
 * words each: value, id, lost): the events they name, all with @group
 * in their read format; false when one is not the session's. */
static bool read_entries(const struct hpm_record *r, const uint64_t *w, size_t at, size_t nr,
			 size_t stride, bool group)
{
	for (size_t j = 0; j < nr; j++) {
		const struct rec_id *e = hpm__record_lookup(r, w[at + j * stride + 1]);
		if (!e || e->ev >= r->nr_ev ||
		    !!(r->attr[e->ev].read_format & PERF_FORMAT_GROUP) != group)
			return false;
	}
	return true;
}

int hpm__record_timeline_exit(struct hpm_record *r, const struct perf_event_header *h,
			      uint64_t time, uint64_t id, struct hpm_prec *out)
{
	const uint64_t *w = (const uint64_t *)(const void *)(h + 1); /* 8-aligned */
	size_t words = (h->size - sizeof(*h)) / 8;
	/* every event's read format is the same but for GROUP (the timers'
	 * never come here: they do not ask for these records) */
	const uint64_t fmt = r->attr[0].read_format;
	size_t times = !!(fmt & PERF_FORMAT_TOTAL_TIME_ENABLED) + !!(fmt & PERF_FORMAT_TOTAL_TIME_RUNNING);
	size_t stride = 2 + !!(fmt & PERF_FORMAT_LOST), at, nr;
	uint32_t ids[2];

	(void)id;
	if (!r->tl_on || r->tl_poll)
		return 1;
	if (words < 2 + stride)
		return -1;
	/* A group's: nr, the times, then value, id (and lost) of each. At a
	 * thread's exit a member writes the whole group, its leader (left
	 * alone by then) itself again: what one thread's event on one CPU
	 * reported already is not taken twice. Else one value. */
	nr = (size_t)w[1];
	at = 2 + times;
	if (nr < 1 || nr > r->nr_ev || at + nr * stride > words ||
	    !read_entries(r, w, at, nr, stride, true)) {
		nr = 1;
		at = 1;
		if (at + times + stride > words || !read_entries(r, w, at + times, 1, stride, false))
			return 1;
	}
	memcpy(ids, w, 8);
	size_t n = 0, slot = 0;
	uint32_t first = 0;
	for (size_t j = 0; j < nr; j++) {
		uint64_t value = w[at + j * (nr == 1 && at == 1 ? 0 : stride)];
		const struct rec_id *e = hpm__record_lookup(r, w[at + j * stride + 1 + (at == 1 ? times : 0)]);
		size_t k = (e->ev * r->nr_thr + e->slot / r->nr_cpu) * r->nr_cpu + e->slot % r->nr_cpu;
		if (r->tl_last_tid[k] == (pid_t)ids[1])
			continue; /* reported already (a thread id reused at once is taken for it) */
		if (n && (e->ev != first + n || e->slot != slot))
			break; /* events of one group are in its order: not expected */
		if (!n) {
			first = e->ev;
			slot = e->slot;
		}
		r->tl_last_tid[k] = (pid_t)ids[1];
		r->tl_exited[k] += value;
		r->tl_vals[n++] = value;
	}
	if (!n)
		return 1;
	out->type = HPM_PREC_READ;
	out->read = (struct hpm_read_rec){
		.pid = (pid_t)ids[0], .tid = (pid_t)ids[1], .cpu = (uint32_t)r->cpu[slot % r->nr_cpu],
		/* a member has no sample_id trailer: no time (the caller's last
		 * one); a leader's follows its values */
		.time = words > at + nr * stride + (at == 1 ? times : 0) ? time : 0,
		.ev = first, .final = true, .nr_values = (uint32_t)n, .values = r->tl_vals,
	};
	return 0;
}

bool hpm_record__timeline(const struct hpm_record *r)
{
	return r->tl_on;
}

int hpm_record__read_final(struct hpm_record *r, hpm_record_fn fn, void *arg)
{
	if (r->tl_on && r->tl_poll)
		return hpm__record_timeline_poll_final(r, fn, arg);
	if (!r->tl_on || r->o.target != HPM_TARGET_EXEC)
		return 0;
	for (size_t k = 0; k < r->nr_tl; k++) {
		uint32_t leader = r->tl_leader[k];
		size_t n = group_members(r, leader);
		/* nr, enabled, running, then (value, id) for the group and the timer */
		size_t words = 3 + 2 * (n + 1);
		if (words > sizeof(r->tl_vals) / sizeof(r->tl_vals[0]))
			continue;
		for (size_t t = 0; t < r->nr_thr; t++)
			for (size_t c = 0; c < r->nr_cpu; c++) {
				int f = *tl_fdp(r, k, t, c);
				uint64_t *v = r->tl_vals;
				if (f < 0 || read(f, v, words * 8) != (ssize_t)(words * 8) || v[0] != n + 1)
					continue;
				/* everything the group counted on this CPU, less what
				 * the threads that ended reported: the first thread's */
				for (size_t j = 0; j < n; j++) {
					uint64_t all = v[3 + 2 * j];
					uint64_t gone = r->tl_exited[((leader + j) * r->nr_thr + t) *
								     r->nr_cpu + c];
					v[j] = all > gone ? all - gone : 0;
				}
				struct hpm_prec p = { .type = HPM_PREC_READ };
				p.read = (struct hpm_read_rec){
					.pid = r->thr[t], .tid = r->thr[t], .cpu = (uint32_t)r->cpu[c],
					.ev = leader, .final = true, .nr_values = (uint32_t)n,
					.values = v,
				};
				int rc = fn(&p, arg);
				if (rc < 0)
					return rc;
			}
	}
	return 0;
}
