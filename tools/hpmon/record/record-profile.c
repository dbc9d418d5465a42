/* SPDX-License-Identifier: MIT */
/*
 * hpmon record: the profile's header, made from the session as opened,
 * and the summary at the end (record-cmd.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <hpmon/profile.h>
#include "output/outname.h"
#include "output/advice.h"
#include "record/record-cmd.h"

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void join_argv(char **argv, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = '\0';
	for (size_t i = 0; argv && argv[i] && n + 1 < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? " " : "", argv[i]);
}

struct hpm_profile_writer *record_start_profile(const struct record_opts *o,
						struct hpm_record *rec, struct hpm_evlist *list,
						const struct hpm_sysinfo *si, int fd)
{
	size_t n = hpm_evlist__count(list);
	struct hpm_profile_event *ev = calloc(n, sizeof(*ev));
	char cmd[4096], target[64];
	struct utsname u;
	struct hpm_profile_writer *w = NULL;

	if (!ev) {
		close(fd);
		return NULL;
	}
	uname(&u);
	if (o->argv && o->tg.system) {
		join_argv(o->argv, target, sizeof(target));
		snprintf(cmd, sizeof(cmd), "[system-wide] %s", target);
	} else if (o->argv) {
		join_argv(o->argv, cmd, sizeof(cmd));
	} else {
		snprintf(target, sizeof(target), o->tg.system ? "[system-wide]" : "[%s %d%s]",
			 o->tg.by_tid ? "thread" : "process", (int)o->tg.ids[0], o->tg.nr_ids > 1 ? ",..." : "");
		snprintf(cmd, sizeof(cmd), "%s", target);
	}
	for (size_t i = 0; i < n; i++) {
		const struct hpm_event *e = hpm_evlist__event(list, i);
		const struct perf_event_attr *a = hpm_record__attr(rec, i);
		size_t gs = 0;
		for (size_t k = 0; k < n; k++)
			gs += hpm_event__leader(hpm_evlist__event(list, k)) == hpm_event__leader(e);
		ev[i] = (struct hpm_profile_event){
			.name = hpm_event__name(e), .type = a->type, .config = a->config,
			.config1 = a->config1, .config2 = a->config2,
			.period = a->freq ? a->sample_freq : a->sample_period, .freq = a->freq,
			.trigger = hpm_record__trigger(rec, i),
			.user_only = hpm_record__user_only(rec, i) || a->exclude_kernel,
			.sample_type = a->sample_type,
			.leader = (uint32_t)hpm_event__leader(e), .group_size = (uint32_t)gs,
		};
	}
	/* the profile's mode: the most any event records (each event's own is
	 * in its sample_type) */
	uint32_t chains = HPM_CALLCHAIN_NONE;
	for (size_t i = 0; i < n; i++)
		if ((uint32_t)hpm_record__callchain(rec, i) > chains)
			chains = (uint32_t)hpm_record__callchain(rec, i);
	struct hpm_profile_meta m = {
		.sz = sizeof(m), .command = cmd, .host = u.nodename, .arch = u.machine,
		.cpu_model = si ? si->cpu_model : "", .kernel = u.release,
		.start_unix_ns = now_ns(CLOCK_REALTIME), .nr_events = (uint32_t)n, .events = ev,
		.callchain = chains, .page_size = (uint32_t)sysconf(_SC_PAGESIZE),
	};
	if (hpm_record__timeline(rec)) {
		m.timeline_ns = o->timeline_ns;
		m.timeline_mode = hpm_record__timeline_mode(rec) == HPM_TIMELINE_POLL
				  ? HPM_PROFILE_TL_PROCESS : HPM_PROFILE_TL_THREADS;
	}
	outname_profile_meta(&m);
	w = hpm_profile_writer__new(fd, &m, NULL);
	if (!w) {
		fprintf(stderr, "hpmon record: cannot start the profile '%s': %s\n", o->output,
			strerror(errno));
		close(fd);
	}
	free(ev);
	return w;
}

/* Which way the timeline was read, once: what a polled one misses. */
static void timeline_summary(const struct record_opts *o, struct hpm_record *rec)
{
	double ms = (double)o->timeline_ns / 1e6;

	switch (hpm_record__timeline_mode(rec)) {
	case HPM_TIMELINE_OFF:
		break;
	case HPM_TIMELINE_TIMERS:
		fprintf(stderr, "hpmon record: timeline: every thread read by the kernel every %g ms "
			"of its running time\n", ms);
		break;
	case HPM_TIMELINE_POLL:
		fprintf(stderr, "hpmon record: note: timeline: all threads read together by hpmon "
			"every %g ms of wall time (%s): no lane per thread, no multiplexing "
			"coverage, and no reading while hpmon waits for a CPU\n", ms,
			o->timeline_poll ? "--timeline-mode poll"
					 : "this kernel cannot read each thread's counts; Linux 6.12 can");
		break;
	}
}

void record_summary(const struct record_opts *o, struct hpm_ctx *ctx, struct hpm_record *rec,
		    struct hpm_evlist *list, uint64_t bytes)
{
	struct hpm_record_stats st;
	hpm_record__stats(rec, &st);
	if (!o->quiet) {
		fprintf(stderr, "hpmon record: %llu samples written to %s (%llu bytes, %.1f bytes a "
			"sample)\n", (unsigned long long)st.samples, o->output,
			(unsigned long long)bytes, st.samples ? (double)bytes / (double)st.samples : 0.0);
		if (hpm_record__group_no_inherit(rec))
			fprintf(stderr, "hpmon record: note: this kernel cannot read groups in inherited "
				"tasks (Linux 6.12 can): group reads follow the first thread only\n");
		if (o->timeline_ns && !hpm_record__timeline(rec) && (o->timeline_given || !o->tg.system))
			fprintf(stderr, "hpmon record: note: no timeline: %s\n", o->tg.system
				? "counts per thread are not read system-wide (-a, -C)"
				: "no event could be read at an interval (exec: locations are not; "
				  "or the kernel refused the readings)");
		timeline_summary(o, rec);
		size_t nr = hpm_evlist__count(list);
		const char **how = calloc(nr ? nr : 1, sizeof(*how));
		for (size_t i = 0; i < nr; i++) {
			if (how)
				how[i] = hpm_record__event_how(rec, i);
			if (hpm_record__event_how(rec, i))
				fprintf(stderr, "hpmon record: %s: %s\n",
					hpm_event__name(hpm_evlist__event(list, i)),
					hpm_record__event_how(rec, i));
		}
		advice_bp_silent(ctx, "record", list, how);
		free(how);
		for (size_t i = 0; i < hpm_evlist__count(list); i++)
			if (hpm_record__user_only(rec, i))
				fprintf(stderr, "hpmon record: note: '%s' samples user mode only "
					"(perf_event_paranoid forbids kernel mode)\n",
					hpm_event__name(hpm_evlist__event(list, i)));
	}
	/* never silent about what was lost: samples, and their share of all
	 * that were taken (perf's "lost N %") */
	if (st.lost_samples)
		fprintf(stderr, "hpmon record: warning: %llu samples lost, %.1f %% of %llu taken "
			"(the ring buffers were full): try a larger -m, a longer period, or a "
			"less loaded machine\n", (unsigned long long)st.lost_samples,
			100.0 * (double)st.lost_samples / (double)(st.lost_samples + st.samples),
			(unsigned long long)(st.lost_samples + st.samples));
	else if (st.lost)
		fprintf(stderr, "hpmon record: warning: the kernel dropped %llu records (mappings, "
			"names; no sample): some samples may not be named\n",
			(unsigned long long)st.lost);
	if (st.throttled)
		fprintf(stderr, "hpmon record: warning: the kernel throttled sampling %llu times "
			"(kernel.perf_event_max_sample_rate, kernel.perf_cpu_time_max_percent): "
			"samples are missing from those intervals; use a longer period\n",
			(unsigned long long)st.throttled);
	if (st.bad)
		fprintf(stderr, "hpmon record: warning: %llu records could not be parsed\n",
			(unsigned long long)st.bad);
}
