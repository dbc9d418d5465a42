/* SPDX-License-Identifier: MIT */
/*
 * Opening a sampling session's events (sample/sample-internal.h): each
 * event's attribute, opened on every thread and CPU slot through the
 * one fallback ladder (lib/sys/perf.h); on each CPU the first trigger
 * owns the ring buffer and the others send their records there; a dummy
 * carries the side band when the first event cannot; location events
 * open through lib/attach, now or at the command's exec stop.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "sample/sample-internal.h"
#include "events/evlist-internal.h"
#include "sys/perf.h"

/* Registers copied for DWARF unwinding: what libdwfl's x86_64 and
 * aarch64 backends need (perf's register numbering). */
#if defined(__x86_64__)
#define REC_REGS_MASK 0xff01ffull /* ax..ip, r8..r15 */
#elif defined(__aarch64__)
#define REC_REGS_MASK ((1ull << 33) - 1) /* x0..x30, sp, pc */
#else
#define REC_REGS_MASK 0ull
#endif

uint64_t hpm_record__default_period(const struct hpm_event *ev)
{
	const struct perf_event_attr *a = hpm_event__attr(ev);

	switch (hpm_event__kind(ev)) {
	case HPM_EV_GENERIC_HW:
		return 1000003;
	case HPM_EV_GENERIC_CACHE:
	case HPM_EV_RAW:
	case HPM_EV_PMU:
	case HPM_EV_NATIVE:
		return 100003;
	case HPM_EV_SOFTWARE:
		if (a->config == PERF_COUNT_SW_CPU_CLOCK || a->config == PERF_COUNT_SW_TASK_CLOCK)
			return 250007;
		return 1;
	default:
		return 1;
	}
}

static size_t group_size(const struct hpm_record *r, size_t leader)
{
	size_t n = 0;
	for (size_t i = 0; i < r->nr_ev; i++)
		n += r->list->ev[i].leader == leader;
	return n;
}

/* Events the kernel counts hit by hit through its software-event path,
 * where a sample that carries its period is taken at every hit. */
static bool counts_every_hit(const struct perf_event_attr *a)
{
	if (a->type == PERF_TYPE_BREAKPOINT || a->type == PERF_TYPE_TRACEPOINT)
		return true;
	return a->type == PERF_TYPE_SOFTWARE && a->config != PERF_COUNT_SW_CPU_CLOCK &&
	       a->config != PERF_COUNT_SW_TASK_CLOCK;
}

/* Event @ev's call chains, as perf takes its record terms: call-graph=
 * fp|dwarf|no wins over -g/--call-graph; stack-size= sets the bytes a
 * dwarf chain copies (rounded up to 8 bytes, as perf does). "lbr" stays
 * HPM_CALLCHAIN_NONE here and hpm_record__open() refuses it. */
static enum hpm_callchain event_callchain(const struct hpm_record *r,
					  const struct hpm_event *ev, uint32_t *stack)
{
	enum hpm_callchain m = r->o.callchain;

	if (!strcmp(ev->call_graph, "fp"))
		m = HPM_CALLCHAIN_FP;
	else if (!strcmp(ev->call_graph, "dwarf"))
		m = HPM_CALLCHAIN_DWARF;
	else if (ev->call_graph[0])
		m = HPM_CALLCHAIN_NONE;
	*stack = r->o.stack_bytes;
	if (ev->stack_size)
		*stack = ev->stack_size > 65528 ? 65528 : (ev->stack_size + 7) & ~7u;
	return m;
}

/* The attribute event @i is opened with: the event's own, sampling as its
 * terms say (period=, freq=, call-graph=, stack-size=, time=), else as the
 * session's options say. */
static void make_attr(struct hpm_record *r, size_t i)
{
	const struct hpm_event *ev = &r->list->ev[i];
	struct perf_event_attr *a = &r->attr[i];
	bool leader = ev->leader == i;
	bool grouped = group_size(r, ev->leader) > 1;
	uint32_t stack;

	*a = ev->attr;
	a->size = sizeof(*a);
	a->disabled = leader;
	a->inherit = r->o.target != HPM_TARGET_CPUS;
	a->enable_on_exec = leader && r->o.target == HPM_TARGET_EXEC;
	a->read_format = grouped ? PERF_FORMAT_GROUP | PERF_FORMAT_ID : PERF_FORMAT_ID;
	/* the timeline: each inherited thread's final counts at its exit
	 * (PERF_RECORD_READ), as perf record -s asks */
	if (r->o.timeline_ns && r->o.target != HPM_TARGET_CPUS && ev->kind != HPM_EV_LOCATION &&
	    !r->tl_poll)
		a->inherit_stat = 1;
	hpm__record_timeline_clock(r, a);
	/* how many records the event could not write (lost samples), read at
	 * the end; every event of a group alike, as perf opens them */
	if (r->format_lost != 0)
		a->read_format |= PERF_FORMAT_LOST;
	r->cg[i] = HPM_CALLCHAIN_NONE;
	if (!leader) {
		/* a member counts; its leader's samples read it */
		a->sample_period = 0;
		a->freq = 0;
		a->sample_type = 0;
		r->trigger[i] = false;
		return;
	}
	r->trigger[i] = true;
	bool fixed = ev->kind == HPM_EV_BREAKPOINT || ev->kind == HPM_EV_TRACEPOINT ||
		     ev->kind == HPM_EV_LOCATION;
	if (ev->rate_given) {
		/* period= or freq=: already in the attr */
	} else if (r->o.period) {
		a->sample_period = r->o.period;
		a->freq = 0;
	} else if (r->o.freq && !fixed) {
		a->sample_freq = r->o.freq;
		a->freq = 1;
	} else if (!a->sample_period) {
		a->sample_period = hpm_record__default_period(ev);
		a->freq = 0;
	}
	a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	if (ev->has_time && !ev->time)
		a->sample_type &= ~(uint64_t)PERF_SAMPLE_TIME; /* time=0 */
	if (grouped)
		a->sample_type |= PERF_SAMPLE_READ;
	r->cg[i] = event_callchain(r, ev, &stack);
	if (r->cg[i] == HPM_CALLCHAIN_FP)
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
	if (r->cg[i] == HPM_CALLCHAIN_DWARF) {
		/* the kernel's own chain, then the user stack copied for
		 * unwinding: the kernel does not walk the user part, which
		 * the copy gives (perf's dwarf mode) */
		a->sample_type |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
				  PERF_SAMPLE_STACK_USER;
		a->exclude_callchain_user = 1;
		a->sample_regs_user = REC_REGS_MASK;
		a->sample_stack_user = stack;
	}
	/* A fixed period is known from the attr, and asking the kernel to put
	 * it in every sample would make it sample a software, breakpoint or
	 * tracepoint event at every hit, whatever the period
	 * (perf_swevent_event): so the period is in the sample only in
	 * frequency mode, and with --random-period for events whose period the
	 * kernel keeps (which are the ones that get jittered). */
	if (!a->freq && !(r->o.random_period && !counts_every_hit(a)))
		a->sample_type &= ~(uint64_t)PERF_SAMPLE_PERIOD;
	a->sample_id_all = 1;
	a->watermark = 1;
	a->wakeup_watermark = (uint32_t)(r->data_len / 4);
}

static int open_fd(struct hpm_record *r, size_t i, size_t t, size_t c, bool sideband)
{
	const struct hpm_event *ev = &r->list->ev[i];
	struct perf_event_attr a = r->attr[i];
	int group_fd = -1;

	if (ev->leader != i) {
		group_fd = *hpm__record_fdp(r, ev->leader, t, c);
		if (group_fd < 0)
			return -EINVAL;
	}
	if (sideband) {
		a.mmap = a.mmap2 = a.comm = a.comm_exec = a.task = 1;
		a.build_id = 1;
	}
	/* Host only is perf's default, not the user's choice: PMUs that
	 * cannot tell guest from host refuse it. Kernel sampling that
	 * paranoid forbids becomes user only, as perf does, unless the user
	 * chose. Build ids in MMAP2 need Linux 5.12, inherit with
	 * PERF_SAMPLE_READ Linux 6.12. */
	unsigned allow = HPM_FALLBACK_BUILD_ID | HPM_FALLBACK_INHERIT, did;
	if (!ev->explicit_gh)
		allow |= HPM_FALLBACK_GUEST;
	if (!ev->explicit_priv)
		allow |= HPM_FALLBACK_USER;
	int fd = hpm__record_perf_open(r, &a, r->thr[t], r->cpu[c], group_fd, allow, &did);
	if (fd == -EINVAL && r->format_lost < 0 && (a.read_format & PERF_FORMAT_LOST)) {
		/* before Linux 6.0: no count of lost samples per event */
		a.read_format &= ~(uint64_t)PERF_FORMAT_LOST;
		fd = hpm__record_perf_open(r, &a, r->thr[t], r->cpu[c], group_fd, allow, &did);
		if (fd >= 0) {
			r->format_lost = 0;
			for (size_t k = 0; k < r->nr_ev; k++)
				r->attr[k].read_format &= ~(uint64_t)PERF_FORMAT_LOST;
		}
	} else if (fd >= 0 && r->format_lost < 0) {
		r->format_lost = (a.read_format & PERF_FORMAT_LOST) != 0;
	}
	/* the event's attribute, as the other threads and CPUs open it and
	 * the profile describes it */
	if (did & HPM_FALLBACK_USER) {
		r->attr[i].exclude_kernel = r->attr[i].exclude_hv = 1;
		r->user_only[i] = true;
	}
	if (did & HPM_FALLBACK_GUEST)
		r->attr[i].exclude_guest = 0;
	if (did & HPM_FALLBACK_INHERIT) {
		r->group_no_inherit = true;
		for (size_t k = 0; k < r->nr_ev; k++)
			if (r->list->ev[k].leader == ev->leader)
				r->attr[k].inherit = 0;
	}
	return fd;
}

static int map_buffer(struct hpm_record *r, size_t c, int fd)
{
	long page = sysconf(_SC_PAGESIZE);
	int rc = hpm_ring__map(&r->ring[c], fd, (size_t)page, r->data_len);
	if (rc)
		return rc;
	r->buf_fd[c] = fd;
	struct epoll_event e = { .events = EPOLLIN, .data.u64 = c };
	if (epoll_ctl(r->epfd, EPOLL_CTL_ADD, fd, &e) < 0)
		return -errno;
	return 0;
}

static int cmp_id(const void *a, const void *b)
{
	const struct rec_id *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* The ids of every open event (again once the locations open). */
static int collect_ids(struct hpm_record *r)
{
	size_t n = (r->nr_ev + r->nr_tl) * r->nr_thr * r->nr_cpu;
	free(r->ids);
	r->nr_ids = 0;
	r->ids = calloc(n, sizeof(*r->ids));
	if (!r->ids)
		return -ENOMEM;
	for (size_t ev = 0; ev < r->nr_ev; ev++)
		for (size_t t = 0; t < r->nr_thr; t++)
			for (size_t c = 0; c < r->nr_cpu; c++) {
				uint64_t id;
				int f = *hpm__record_fdp(r, ev, t, c);
				if (f >= 0 && ioctl(f, PERF_EVENT_IOC_ID, &id) == 0)
					r->ids[r->nr_ids++] = (struct rec_id){
						id, (uint32_t)ev, (uint32_t)(t * r->nr_cpu + c) };
			}
	for (size_t k = 0; k < r->nr_tl; k++) /* the timers: past the events */
		for (size_t t = 0; t < r->nr_thr; t++)
			for (size_t c = 0; c < r->nr_cpu; c++) {
				uint64_t id;
				int f = r->tl_fd[(k * r->nr_thr + t) * r->nr_cpu + c];
				if (f >= 0 && ioctl(f, PERF_EVENT_IOC_ID, &id) == 0)
					r->ids[r->nr_ids++] = (struct rec_id){
						id, (uint32_t)(r->nr_ev + k), (uint32_t)(t * r->nr_cpu + c) };
			}
	qsort(r->ids, r->nr_ids, sizeof(*r->ids), cmp_id);
	return 0;
}

/* Send trigger @fd's records to CPU @c's buffer; the first makes it. */
static int attach_buffer(struct hpm_record *r, size_t c, int fd)
{
	if (r->buf_fd[c] < 0)
		return map_buffer(r, c, fd);
	return ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->buf_fd[c]) ? -errno : 0;
}

/* Does event @i sample on CPU slot @c? On CPUs, an event opens only on
 * the CPUs of its PMU and of its group leader's (cpu_core's, cpu_atom's). */
static bool cpu_counts(const struct hpm_record *r, size_t i, size_t c)
{
	const struct hpm_event *ev = &r->list->ev[i];
	int cpu = r->cpu[c];

	return cpu < 0 || (hpm__cpu_in_list(ev->cpus, cpu) &&
			   hpm__cpu_in_list(r->list->ev[ev->leader].cpus, cpu));
}

/* Does event @i sample on every CPU slot of the target? */
static bool counts_everywhere(const struct hpm_record *r, size_t i)
{
	for (size_t c = 0; c < r->nr_cpu; c++)
		if (!cpu_counts(r, i, c))
			return false;
	return true;
}

/* Open event @i on every thread and CPU of the target. 0, or -errno with
 * what was opened of it left for hpm_record__free(); -ENODEV when none of
 * the target's CPUs is one of the event's. */
static int open_event(struct hpm_record *r, size_t i, bool sideband)
{
	size_t opened = 0, skipped = 0;

	for (size_t t = 0; t < r->nr_thr; t++) {
		for (size_t c = 0; c < r->nr_cpu; c++) {
			if (!cpu_counts(r, i, c)) {
				skipped++;
				continue;
			}
			int fd = open_fd(r, i, t, c, sideband);
			if (fd == -ESRCH && r->o.target == HPM_TARGET_PIDS)
				break; /* that thread ended meanwhile */
			if (fd < 0)
				return fd;
			*hpm__record_fdp(r, i, t, c) = fd;
			opened++;
			/* a member writes nothing, but with the timeline its READ
			 * records at each thread's exit (inherit_stat) */
			if (!r->trigger[i] && !r->attr[i].inherit_stat)
				continue;
			int rc = attach_buffer(r, c, fd);
			if (rc)
				return rc;
		}
	}
	return !opened && skipped ? -ENODEV : 0;
}

/*
 * The side band (mmap, comm, fork and exit records) when the first event
 * cannot carry it: a location (on a command, locations open at its exec
 * stop, after the exec's own records), or an event of one core type of a
 * hybrid CPU, which does not open on the other type's CPUs. A dummy
 * software event, opened as the first event would be, carries them
 * instead and owns the CPUs' buffers.
 */
static int open_sideband(struct hpm_record *r)
{
	for (size_t t = 0; t < r->nr_thr; t++) {
		for (size_t c = 0; c < r->nr_cpu; c++) {
			struct perf_event_attr a = {
				.size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
				.config = PERF_COUNT_SW_DUMMY,
				.inherit = r->o.target != HPM_TARGET_CPUS,
				.disabled = r->o.target == HPM_TARGET_EXEC,
				.enable_on_exec = r->o.target == HPM_TARGET_EXEC,
				.exclude_kernel = 1, .exclude_hv = 1,
				/* the triggers' sample_id fields, so that every
				 * record of a buffer ends alike */
				.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
					       PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD,
				.sample_id_all = 1, .watermark = 1,
				.wakeup_watermark = (uint32_t)(r->data_len / 4),
				.mmap = 1, .mmap2 = 1, .comm = 1, .comm_exec = 1, .task = 1,
				.build_id = 1,
			};
			hpm__record_timeline_clock(r, &a);
			/* no build ids before Linux 5.12 */
			int fd = hpm__record_perf_open(r, &a, r->thr[t], r->cpu[c], -1,
						       HPM_FALLBACK_BUILD_ID, NULL);
			if (fd == -ESRCH && r->o.target == HPM_TARGET_PIDS)
				break;
			if (fd < 0)
				return fd;
			r->sb_fd[t * r->nr_cpu + c] = fd;
			int rc = attach_buffer(r, c, fd);
			if (rc)
				return rc;
		}
	}
	return 0;
}

/* Close what was opened of event @i (its buffers belong to others). */
static void close_event(struct hpm_record *r, size_t i)
{
	for (size_t t = 0; t < r->nr_thr; t++)
		for (size_t c = 0; c < r->nr_cpu; c++) {
			int *f = hpm__record_fdp(r, i, t, c);
			if (*f >= 0 && *f != r->buf_fd[c])
				close(*f);
			if (*f != r->buf_fd[c])
				*f = -1;
		}
}

/*
 * hpm_loc_open_fn: open location @i (lib/attach/attach.c) for
 * sampling, on a command stopped at its exec or on running targets. Every
 * hit is a sample (period 1); with frame-pointer chains, a location at a
 * function's entry also takes what completes its chain
 * (hpm_record__entry_chain()).
 */
static int open_location(void *owner, size_t i)
{
	struct hpm_record *r = owner;
	struct perf_event_attr *a = &r->attr[i];

	hpm__loc_attach_attr(r->loc, i, a);
	/* a location samples every execution, whatever -c or -F say: its
	 * samples are exact counts of where each one came from */
	a->sample_period = 1;
	a->freq = 0;
	if (r->o.target == HPM_TARGET_EXEC) {
		/* the command exec'd already and waits: sample from now on */
		a->disabled = 0;
		a->enable_on_exec = 0;
	}
	r->chain_fix[i] = HPM_LOC_CHAIN_AS_IS;
	if (r->cg[i] == HPM_CALLCHAIN_FP)
		r->chain_fix[i] = hpm__loc_attach_chain(r->loc, i);
	if (r->chain_fix[i] != HPM_LOC_CHAIN_AS_IS) {
#if defined(__x86_64__)
		a->sample_type |= PERF_SAMPLE_STACK_USER; /* the return address */
		a->sample_stack_user = 8;
#elif defined(__aarch64__)
		a->sample_type |= PERF_SAMPLE_REGS_USER;
		a->sample_regs_user = 1ull << 30; /* the link register */
#else
		r->chain_fix[i] = HPM_LOC_CHAIN_AS_IS;
#endif
	}
	int rc = open_event(r, i, false);
	if (rc) {
		close_event(r, i);
		r->chain_fix[i] = HPM_LOC_CHAIN_AS_IS;
	}
	return rc;
}

/* The first location that cannot sample: it fails the session. */
static int first_location_error(struct hpm_record *r)
{
	for (size_t i = 0; i < r->nr_ev; i++) {
		int err = hpm__loc_attach_is_loc(r->loc, i) ? hpm__loc_attach_err(r->loc, i) : 0;
		if (err) {
			r->failed = i;
			return err;
		}
	}
	return 0;
}

/* Location events: on a command, it is stopped at its exec, where
 * hpm_record__complete_exec() opens them; on running processes and CPUs
 * they open now. */
static int open_locations(struct hpm_record *r)
{
	switch (r->o.target) {
	case HPM_TARGET_EXEC:
		if (r->o.stop_at_exec) {
			hpm__loc_attach_seize(r->loc, r->thr[0]);
			break;
		}
		for (size_t i = 0; i < r->nr_ev; i++)
			hpm__loc_attach_refuse(r->loc, i, -EOPNOTSUPP, "this tool does not stop the "
					       "command at its exec, which locations need "
					       "(hpm_record_opts.stop_at_exec)", false);
		break;
	case HPM_TARGET_PIDS:
	case HPM_TARGET_TIDS:
		hpm__loc_attach_open_now(r->loc, r->thr[0], open_location, r);
		break;
	case HPM_TARGET_CPUS:
		hpm__loc_attach_open_now(r->loc, -1, open_location, r);
		break;
	}
	return first_location_error(r);
}

int hpm_record__open(struct hpm_record *r)
{
	long page = sysconf(_SC_PAGESIZE);
	int rc;

	if (r->opened)
		return -EBUSY;
	r->data_len = (size_t)page * r->o.mmap_pages;
	r->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (r->epfd < 0)
		return -errno;
	hpm__record_timeline_probe(r); /* the events' clock depends on it */
	for (size_t i = 0; i < r->nr_ev; i++) {
		make_attr(r, i);
		if (!strcmp(r->list->ev[i].call_graph, "lbr")) {
			r->failed = i; /* hpm_record__event_message() says why */
			return -EOPNOTSUPP;
		}
	}
	/* the first event carries the side band, unless it opens late (a
	 * location), not on every CPU (one core type of a hybrid CPU), or
	 * without time stamps (time=0: mappings must keep theirs): then a
	 * dummy event does */
	bool own_sideband = (r->loc && hpm__event_is_location(&r->list->ev[0])) ||
			    !counts_everywhere(r, 0) ||
			    !(r->attr[0].sample_type & PERF_SAMPLE_TIME);
	if (own_sideband && (rc = open_sideband(r))) {
		r->failed = 0;
		return rc;
	}
	for (size_t i = 0; i < r->nr_ev; i++) {
		if (hpm__event_is_location(&r->list->ev[i]))
			continue; /* open_locations() */
		if ((rc = open_event(r, i, i == 0 && !own_sideband))) {
			r->failed = i;
			return rc;
		}
	}
	if (r->loc && (rc = open_locations(r)))
		return rc;
	if ((rc = hpm__record_timeline_open(r)))
		return rc;
	if ((rc = collect_ids(r)) || (rc = hpm__record_synthesize(r)))
		return rc;
	r->opened = true;
	return 0;
}

int hpm_record__complete_exec(struct hpm_record *r)
{
	int rc;

	if (!r->loc || !r->opened || r->o.target != HPM_TARGET_EXEC)
		return 0;
	if ((rc = hpm__loc_attach_complete(r->loc, open_location, r)) ||
	    (rc = first_location_error(r)))
		return rc;
	return collect_ids(r);
}
