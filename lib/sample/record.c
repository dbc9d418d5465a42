/* SPDX-License-Identifier: MIT */
/*
 * Sampling sessions (include/hpmon/record.h).
 *
 * Every event is opened once per CPU (and per thread for PIDS/TIDS
 * targets). On each CPU the first file descriptor owns a ring buffer and
 * the others send their records there (PERF_EVENT_IOC_SET_OUTPUT), as
 * the kernel allows only between events of one CPU. Inherited per-task
 * events can be mapped this way, unlike events opened on "any CPU".
 *
 * The reader copies records out of the buffers and hands them to the
 * caller, who encodes them into the profile's chunks; the kernel keeps
 * writing into the free part meanwhile. The measured program never waits
 * for the reader: a full buffer makes the kernel drop records and count
 * them in LOST records, which are passed on.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <hpmon/record.h>
#include "sample/record-order-internal.h"
#include "attach/attach-internal.h"
#include "location/location-internal.h"
#include "events/evlist-internal.h"
#include "core/cpus-internal.h"
#include "symbols/symbols-internal.h"
#include "sys/perf.h"
#include "sys/ring.h"

#define REC_DEFAULT_PAGES 128
#define REC_MAX_CHAIN 1024
/* Time order across buffers (record-order.c): a round's records go out
 * once a round at least this much older vouches for them; the queue's
 * memory is capped at this many times the buffers' size (at least the
 * minimum), beyond which the oldest records go out early. */
#define REC_ORDER_GAP_NS 10000000ull
#define REC_ORDER_BUF_FACTOR 8
#define REC_ORDER_MIN_BYTES (64u << 20)

/* Registers copied for DWARF unwinding: what libdwfl's x86_64 and
 * aarch64 backends need (perf's register numbering). */
#if defined(__x86_64__)
#define REC_REGS_MASK 0xff01ffull /* ax..ip, r8..r15 */
#elif defined(__aarch64__)
#define REC_REGS_MASK ((1ull << 33) - 1) /* x0..x30, sp, pc */
#else
#define REC_REGS_MASK 0ull
#endif

struct rec_id {
	uint64_t id;
	uint32_t ev;
};

/* A record made from procfs for processes that exist already. */
struct rec_synth {
	struct hpm_prec p;
	char *str;
};

struct hpm_record {
	struct hpm_evlist *list;
	struct hpm_ctx *ctx;
	struct hpm_record_opts o;
	size_t nr_ev, nr_thr, nr_cpu;
	pid_t *thr;              /* per thread slot: pid/tid, or -1 */
	int *cpu;                /* per CPU slot */
	int *fd;                 /* [(ev * nr_thr + thr) * nr_cpu + cpu] */
	struct perf_event_attr *attr; /* [nr_ev] as opened */
	bool *trigger, *user_only;
	bool group_no_inherit;
	size_t failed;
	struct hpm_loc_attach *loc; /* location events (exec:), or NULL */
	int *sb_fd;              /* [thr * nr_cpu + cpu]: side-band dummies when the
				    first event is a location, else -1 */
	enum hpm_loc_chain *chain_fix; /* [nr_ev] hpm_record__entry_chain() */
	int epfd;
	struct hpm_ring *ring;   /* [nr_cpu] mapped ring buffers */
	int *buf_fd;             /* [nr_cpu] */
	size_t data_len;
	struct rec_id *ids;
	size_t nr_ids;
	struct rec_synth *synth;
	size_t nr_synth, synth_done;
	bool opened, enabled;
	uint64_t rand_state;
	struct hpm_record_stats st;
	unsigned char *scratch;  /* one record that wrapped around */
	uint64_t *vals;          /* group values of one sample */
	size_t vals_cap;
	struct hpm_order *order; /* records read, until their time is safe */
	bool disabled;           /* the next drain is the last: flush all */
	bool order_logged;
};

static int *fdp(const struct hpm_record *r, size_t ev, size_t thr, size_t cpu)
{
	return &r->fd[(ev * r->nr_thr + thr) * r->nr_cpu + cpu];
}

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

static int setup_cpus(struct hpm_record *r)
{
	if (r->o.cpus && r->o.nr_cpus) {
		r->cpu = malloc(r->o.nr_cpus * sizeof(int));
		if (!r->cpu)
			return -ENOMEM;
		memcpy(r->cpu, r->o.cpus, r->o.nr_cpus * sizeof(int));
		r->nr_cpu = r->o.nr_cpus;
		return 0;
	}
	return hpm__online_cpus(r->ctx, &r->cpu, &r->nr_cpu);
}

static int add_tid(struct hpm_record *r, pid_t tid, size_t *cap)
{
	if (r->nr_thr == *cap) {
		size_t nc = *cap ? *cap * 2 : 16;
		pid_t *v = realloc(r->thr, nc * sizeof(*v));
		if (!v)
			return -ENOMEM;
		r->thr = v;
		*cap = nc;
	}
	r->thr[r->nr_thr++] = tid;
	return 0;
}

static int setup_threads(struct hpm_record *r)
{
	size_t cap = 0;
	int rc = 0;

	switch (r->o.target) {
	case HPM_TARGET_EXEC:
		if (r->o.nr_ids != 1)
			return -EINVAL;
		return add_tid(r, r->o.ids[0], &cap);
	case HPM_TARGET_TIDS:
		for (size_t i = 0; i < r->o.nr_ids && !rc; i++)
			rc = add_tid(r, r->o.ids[i], &cap);
		return rc ? rc : r->nr_thr ? 0 : -EINVAL;
	case HPM_TARGET_CPUS:
		return add_tid(r, -1, &cap);
	case HPM_TARGET_PIDS:
		for (size_t i = 0; i < r->o.nr_ids && !rc; i++)
			rc = hpm__add_threads(r->ctx, r->o.ids[i], &r->thr, &r->nr_thr, &cap);
		return rc ? rc : r->nr_thr ? 0 : -ESRCH;
	}
	return -EINVAL;
}

struct hpm_record *hpm_record__new(struct hpm_evlist *list,
				   const struct hpm_record_opts *opts)
{
	struct hpm_record *r;
	int rc;

	if (!list || !opts || opts->sz < offsetof(struct hpm_record_opts, mmap_pages) +
	    sizeof(opts->mmap_pages) || !list->nr || opts->callchain > HPM_CALLCHAIN_DWARF) {
		errno = EINVAL;
		return NULL;
	}
	if (opts->mmap_pages & (opts->mmap_pages - 1)) {
		errno = EINVAL;
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->epfd = -1;
	r->list = list;
	r->ctx = list->ctx;
	r->o = *opts;
	if (!r->o.mmap_pages)
		r->o.mmap_pages = REC_DEFAULT_PAGES;
	if (!r->o.stack_bytes)
		r->o.stack_bytes = 8192;
	r->o.stack_bytes = (r->o.stack_bytes > 65528 ? 65528 : r->o.stack_bytes) & ~7u;
	r->rand_state = opts->seed ? opts->seed : 0x9e3779b97f4a7c15ull;
	r->nr_ev = list->nr;
	if (opts->sz < offsetof(struct hpm_record_opts, debug_dir) + sizeof(opts->debug_dir)) {
		/* a caller from before location events */
		r->o.stop_at_exec = false;
		r->o.lib_path = r->o.debug_dir = NULL;
	}
	if ((rc = setup_cpus(r)) || (rc = setup_threads(r)))
		goto fail;
	for (size_t i = 0; i < r->nr_ev; i++)
		if (hpm__event_is_location(&list->ev[i]) && !r->loc) {
			r->loc = hpm__loc_attach_new(list, r->o.lib_path, r->o.debug_dir,
						     r->o.target == HPM_TARGET_CPUS);
			if (!r->loc) {
				rc = -errno;
				goto fail;
			}
		}
	/* the options' strings are the caller's: only the attachment keeps them */
	r->o.lib_path = r->o.debug_dir = NULL;
	r->fd = malloc(r->nr_ev * r->nr_thr * r->nr_cpu * sizeof(int));
	r->attr = calloc(r->nr_ev, sizeof(*r->attr));
	r->trigger = calloc(r->nr_ev, sizeof(bool));
	r->user_only = calloc(r->nr_ev, sizeof(bool));
	r->ring = calloc(r->nr_cpu, sizeof(*r->ring));
	r->scratch = malloc(HPM_RING_RECORD_MAX);
	r->buf_fd = malloc(r->nr_cpu * sizeof(int));
	r->sb_fd = malloc(r->nr_thr * r->nr_cpu * sizeof(int));
	r->chain_fix = calloc(r->nr_ev, sizeof(*r->chain_fix));
	/* no fd yet, also for hpm_record__free() if an allocation failed */
	for (size_t i = 0; r->fd && i < r->nr_ev * r->nr_thr * r->nr_cpu; i++)
		r->fd[i] = -1;
	for (size_t c = 0; r->buf_fd && c < r->nr_cpu; c++)
		r->buf_fd[c] = -1;
	for (size_t k = 0; r->sb_fd && k < r->nr_thr * r->nr_cpu; k++)
		r->sb_fd[k] = -1;
	if (!r->fd || !r->attr || !r->trigger || !r->user_only || !r->ring || !r->scratch ||
	    !r->buf_fd ||
	    !r->sb_fd || !r->chain_fix) {
		rc = -ENOMEM;
		goto fail;
	}
	return r;
fail:
	hpm_record__free(r);
	errno = -rc;
	return NULL;
}

void hpm_record__free(struct hpm_record *r)
{
	if (!r)
		return;
	for (size_t c = 0; r->ring && c < r->nr_cpu; c++)
		hpm_ring__unmap(&r->ring[c]);
	if (r->fd)
		for (size_t i = 0; i < r->nr_ev * r->nr_thr * r->nr_cpu; i++)
			if (r->fd[i] >= 0)
				close(r->fd[i]);
	for (size_t k = 0; r->sb_fd && k < r->nr_thr * r->nr_cpu; k++)
		if (r->sb_fd[k] >= 0)
			close(r->sb_fd[k]);
	/* after the events: a uprobe in use cannot be removed */
	hpm__loc_attach_free(r->loc);
	free(r->sb_fd);
	free(r->chain_fix);
	if (r->epfd >= 0)
		close(r->epfd);
	for (size_t i = 0; i < r->nr_synth; i++)
		free(r->synth[i].str);
	free(r->synth);
	free(r->ring);
	free(r->buf_fd);
	free(r->fd);
	free(r->attr);
	free(r->trigger);
	free(r->user_only);
	free(r->thr);
	free(r->cpu);
	free(r->ids);
	free(r->scratch);
	free(r->vals);
	hpm__order_free(r->order);
	free(r);
}

static size_t group_size(const struct hpm_record *r, size_t leader)
{
	size_t n = 0;
	for (size_t i = 0; i < r->nr_ev; i++)
		n += r->list->ev[i].leader == leader;
	return n;
}

/* The attribute event @i is opened with. */
/* Events the kernel counts hit by hit through its software-event path,
 * where a sample that carries its period is taken at every hit. */
static bool counts_every_hit(const struct perf_event_attr *a)
{
	if (a->type == PERF_TYPE_BREAKPOINT || a->type == PERF_TYPE_TRACEPOINT)
		return true;
	return a->type == PERF_TYPE_SOFTWARE && a->config != PERF_COUNT_SW_CPU_CLOCK &&
	       a->config != PERF_COUNT_SW_TASK_CLOCK;
}

static void make_attr(struct hpm_record *r, size_t i)
{
	const struct hpm_event *ev = &r->list->ev[i];
	struct perf_event_attr *a = &r->attr[i];
	bool leader = ev->leader == i;
	bool grouped = group_size(r, ev->leader) > 1;

	*a = ev->attr;
	a->size = sizeof(*a);
	a->disabled = leader;
	a->inherit = r->o.target != HPM_TARGET_CPUS;
	a->enable_on_exec = leader && r->o.target == HPM_TARGET_EXEC;
	a->read_format = grouped ? PERF_FORMAT_GROUP | PERF_FORMAT_ID : PERF_FORMAT_ID;
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
	if (r->o.period) {
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
	if (grouped)
		a->sample_type |= PERF_SAMPLE_READ;
	if (r->o.callchain == HPM_CALLCHAIN_FP)
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
	if (r->o.callchain == HPM_CALLCHAIN_DWARF) {
		a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a->sample_regs_user = REC_REGS_MASK;
		a->sample_stack_user = r->o.stack_bytes;
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
		group_fd = *fdp(r, ev->leader, t, c);
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
	int fd = hpm__perf_open(&a, r->thr[t], r->cpu[c], group_fd, PERF_FLAG_FD_CLOEXEC,
				allow, &did);
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
	size_t n = r->nr_ev * r->nr_thr * r->nr_cpu;
	free(r->ids);
	r->nr_ids = 0;
	r->ids = calloc(n, sizeof(*r->ids));
	if (!r->ids)
		return -ENOMEM;
	for (size_t ev = 0; ev < r->nr_ev; ev++)
		for (size_t t = 0; t < r->nr_thr; t++)
			for (size_t c = 0; c < r->nr_cpu; c++) {
				uint64_t id;
				int f = *fdp(r, ev, t, c);
				if (f >= 0 && ioctl(f, PERF_EVENT_IOC_ID, &id) == 0)
					r->ids[r->nr_ids++] = (struct rec_id){ id, (uint32_t)ev };
			}
	qsort(r->ids, r->nr_ids, sizeof(*r->ids), cmp_id);
	return 0;
}

static int lookup_ev(const struct hpm_record *r, uint64_t id)
{
	size_t lo = 0, hi = r->nr_ids;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (r->ids[mid].id == id)
			return (int)r->ids[mid].ev;
		if (r->ids[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* ---- records of processes that exist already (procfs) ---- */

static struct rec_synth *synth_add(struct hpm_record *r)
{
	struct rec_synth *v = realloc(r->synth, (r->nr_synth + 1) * sizeof(*v));
	if (!v)
		return NULL;
	r->synth = v;
	memset(&v[r->nr_synth], 0, sizeof(*v));
	return &v[r->nr_synth++];
}

/* The build-id of a synthesized mapping's file; each file is read once
 * (system-wide, hundreds of processes map the same libraries). */
static void synth_build_id(struct hpm_record *r, struct hpm_mmap_rec *m)
{
	for (size_t i = r->nr_synth - 1; i-- > 0;) {
		const struct hpm_prec *p = &r->synth[i].p;
		if (p->type == HPM_PREC_MMAP && !strcmp(p->mmap.filename, m->filename)) {
			m->build_id_len = p->mmap.build_id_len;
			memcpy(m->build_id, p->mmap.build_id, sizeof(m->build_id));
			return;
		}
	}
	m->build_id_len = (uint8_t)hpm__elf_build_id(m->filename, m->build_id,
						     sizeof(m->build_id));
}

static int synth_process(struct hpm_record *r, pid_t pid)
{
	char path[PATH_MAX], comm[64] = "";
	char line[PATH_MAX + 256];
	struct rec_synth *s;
	FILE *f;

	if (hpm__path(path, sizeof(path), r->ctx->procfs, "%d/comm", (int)pid))
		return -ENAMETOOLONG;
	if (hpm__read_text(path, comm, sizeof(comm)) < 0)
		return 0; /* gone meanwhile */
	if (!(s = synth_add(r)) || !(s->str = strdup(comm)))
		return -ENOMEM;
	s->p.type = HPM_PREC_COMM;
	s->p.comm = (struct hpm_comm_rec){ .pid = pid, .tid = pid, .comm = s->str };
	if (hpm__path(path, sizeof(path), r->ctx->procfs, "%d/maps", (int)pid))
		return -ENAMETOOLONG;
	if (!(f = fopen(path, "re")))
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi, off;
		char perm[8], name[PATH_MAX] = "";
		int n = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s%n", &lo, &hi, perm, &off, &n) < 4)
			continue;
		if (perm[2] != 'x')
			continue;
		const char *p = line + n;
		while (*p == ' ' || *p == '\t')
			p++;
		snprintf(name, sizeof(name), "%s", p);
		name[strcspn(name, "\n")] = '\0';
		if (!name[0])
			snprintf(name, sizeof(name), "//anon");
		if (!(s = synth_add(r)) || !(s->str = strdup(name))) {
			fclose(f);
			return -ENOMEM;
		}
		s->p.type = HPM_PREC_MMAP;
		struct hpm_mmap_rec *m = &s->p.mmap;
		m->pid = m->tid = pid;
		m->start = lo;
		m->len = hi - lo;
		m->pgoff = off;
		m->prot = 4; /* PROT_EXEC */
		m->filename = s->str;
		if (name[0] == '/')
			synth_build_id(r, m);
	}
	fclose(f);
	return 0;
}

static int synthesize(struct hpm_record *r)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int rc = 0;

	switch (r->o.target) {
	case HPM_TARGET_EXEC:
		return 0; /* the kernel reports the exec and its mappings */
	case HPM_TARGET_PIDS:
	case HPM_TARGET_TIDS:
		for (size_t i = 0; i < r->o.nr_ids && !rc; i++) {
			pid_t pid = r->o.ids[i];
			if (r->o.target == HPM_TARGET_TIDS) {
				char st[4096];
				if (!hpm__path(path, sizeof(path), r->ctx->procfs, "%d/status",
					       (int)pid) &&
				    hpm__read_text(path, st, sizeof(st)) > 0) {
					const char *t = strstr(st, "\nTgid:");
					if (t)
						pid = (pid_t)strtol(t + 6, NULL, 10);
				}
			}
			rc = synth_process(r, pid);
		}
		return rc;
	case HPM_TARGET_CPUS:
		if (hpm__path(path, sizeof(path), r->ctx->procfs, "."))
			return -ENAMETOOLONG;
		if (!(d = opendir(path)))
			return 0;
		while (!rc && (de = readdir(d))) {
			char *end;
			long pid = strtol(de->d_name, &end, 10);
			if (!*end && pid > 0)
				rc = synth_process(r, (pid_t)pid);
		}
		closedir(d);
		return rc;
	}
	return 0;
}

/* ---- opening ---- */

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
			*fdp(r, i, t, c) = fd;
			opened++;
			if (!r->trigger[i])
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
			/* no build ids before Linux 5.12 */
			int fd = hpm__perf_open(&a, r->thr[t], r->cpu[c], -1, PERF_FLAG_FD_CLOEXEC,
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
			int *f = fdp(r, i, t, c);
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
	if (r->o.callchain == HPM_CALLCHAIN_FP)
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
	for (size_t i = 0; i < r->nr_ev; i++)
		make_attr(r, i);
	/* the first event carries the side band, unless it opens late (a
	 * location) or not on every CPU (one core type of a hybrid CPU): then
	 * a dummy event does */
	bool own_sideband = (r->loc && hpm__event_is_location(&r->list->ev[0])) ||
			    !counts_everywhere(r, 0);
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
	if ((rc = collect_ids(r)) || (rc = synthesize(r)))
		return rc;
	r->opened = true;
	return 0;
}

size_t hpm_record__failed_event(const struct hpm_record *r) { return r->failed; }

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

const char *hpm_record__event_message(const struct hpm_record *r, size_t idx)
{
	return hpm__loc_attach_message(r->loc, idx);
}

const char *hpm_record__event_how(const struct hpm_record *r, size_t idx)
{
	return hpm__loc_attach_how(r->loc, idx);
}

bool hpm_record__entry_chain(const struct hpm_record *r, const struct hpm_sample *s,
			     struct hpm_sample *out, uint64_t *buf, size_t cap)
{
	enum hpm_loc_chain how = s->ev < r->nr_ev ? r->chain_fix[s->ev] : HPM_LOC_CHAIN_AS_IS;
	uint64_t ret;
	size_t u = 0;

	if (how == HPM_LOC_CHAIN_AS_IS)
		return false;
	*out = *s;
	out->regs_abi = out->nr_regs = 0;
	out->regs = NULL;
	out->stack_len = 0;
	out->stack = NULL;
#if defined(__x86_64__)
	if (s->stack_len < sizeof(ret))
		return true;
	memcpy(&ret, s->stack, sizeof(ret));
#elif defined(__aarch64__)
	if (s->nr_regs < 1)
		return true;
	ret = s->regs[0];
#else
	return true;
#endif
	/* the user part: PERF_CONTEXT_USER, the sampled address, its callers */
	while (u < s->nr_chain && s->chain[u] != (uint64_t)PERF_CONTEXT_USER)
		u++;
	if (u + 1 >= s->nr_chain || s->chain[u + 1] != s->ip || s->nr_chain + 1 > cap)
		return true;
	if (how == HPM_LOC_CHAIN_ADD_MISSING && u + 2 < s->nr_chain && s->chain[u + 2] == ret)
		return true;
	memcpy(buf, s->chain, (u + 2) * sizeof(*buf));
	buf[u + 2] = ret;
	memcpy(buf + u + 3, s->chain + u + 2, (s->nr_chain - u - 2) * sizeof(*buf));
	out->chain = buf;
	out->nr_chain = s->nr_chain + 1;
	return true;
}

static int ioctl_leaders(struct hpm_record *r, unsigned long req)
{
	int err = 0;
	for (size_t i = 0; i < r->nr_ev; i++) {
		if (r->list->ev[i].leader != i)
			continue;
		for (size_t k = 0; k < r->nr_thr * r->nr_cpu; k++) {
			int f = r->fd[i * r->nr_thr * r->nr_cpu + k];
			if (f >= 0 && ioctl(f, req, 0) < 0 && !err)
				err = -errno;
		}
	}
	return err;
}

int hpm_record__enable(struct hpm_record *r)
{
	r->enabled = true;
	r->disabled = false;
	return ioctl_leaders(r, PERF_EVENT_IOC_ENABLE);
}

int hpm_record__disable(struct hpm_record *r)
{
	r->disabled = true; /* nothing comes after what is in the buffers now */
	return ioctl_leaders(r, PERF_EVENT_IOC_DISABLE);
}

bool hpm_record__trigger(const struct hpm_record *r, size_t idx)
{
	return idx < r->nr_ev && r->trigger[idx];
}

bool hpm_record__user_only(const struct hpm_record *r, size_t idx)
{
	return idx < r->nr_ev && r->user_only[idx];
}

const struct perf_event_attr *hpm_record__attr(const struct hpm_record *r, size_t idx)
{
	return idx < r->nr_ev ? &r->attr[idx] : NULL;
}

bool hpm_record__group_no_inherit(const struct hpm_record *r) { return r->group_no_inherit; }
int hpm_record__poll_fd(const struct hpm_record *r) { return r->epfd; }

void hpm_record__stats(const struct hpm_record *r, struct hpm_record_stats *out)
{
	*out = r->st;
}

/* ---- parsing the kernel's records ---- */

struct cursor {
	const unsigned char *p, *end;
	bool bad;
};

static uint64_t take64(struct cursor *c)
{
	uint64_t v = 0;
	if (c->end - c->p < 8) {
		c->bad = true;
		c->p = c->end;
		return 0;
	}
	memcpy(&v, c->p, 8);
	c->p += 8;
	return v;
}

static void take32x2(struct cursor *c, uint32_t *a, uint32_t *b)
{
	uint64_t v = take64(c);
	*a = (uint32_t)v;
	*b = (uint32_t)(v >> 32);
}

static int parse_sample(struct hpm_record *r, const struct perf_event_header *h,
			struct hpm_prec *out)
{
	struct cursor c = { (const unsigned char *)(h + 1), (const unsigned char *)h + h->size, false };
	struct hpm_sample *s = &out->sample;
	uint32_t a, b;
	int ev = lookup_ev(r, take64(&c));

	if (ev < 0)
		return -1;
	const struct perf_event_attr *at = &r->attr[ev];
	memset(s, 0, sizeof(*s));
	out->type = HPM_PREC_SAMPLE;
	s->ev = (uint32_t)ev;
	s->mode = (enum hpm_mode)(h->misc & PERF_RECORD_MISC_CPUMODE_MASK);
	s->ip = take64(&c);
	take32x2(&c, &a, &b);
	s->pid = (pid_t)a;
	s->tid = (pid_t)b;
	s->time = take64(&c);
	take32x2(&c, &a, &b);
	s->cpu = a;
	s->period = at->sample_type & PERF_SAMPLE_PERIOD ? take64(&c) : at->sample_period;
	if (at->sample_type & PERF_SAMPLE_READ) {
		uint64_t nr = take64(&c);
		if (nr > r->nr_ev || (uint64_t)(c.end - c.p) < nr * 16)
			return -1;
		if (nr > r->vals_cap) {
			uint64_t *v = realloc(r->vals, nr * sizeof(*v));
			if (!v)
				return -ENOMEM;
			r->vals = v;
			r->vals_cap = nr;
		}
		for (uint64_t k = 0; k < nr; k++) {
			r->vals[k] = take64(&c);
			take64(&c); /* id: members come in group order */
		}
		s->nr_values = (uint32_t)nr;
		s->values = r->vals;
	}
	if (at->sample_type & PERF_SAMPLE_CALLCHAIN) {
		uint64_t nr = take64(&c);
		if (nr > REC_MAX_CHAIN || (uint64_t)(c.end - c.p) < nr * 8)
			return -1;
		s->nr_chain = (uint32_t)nr;
		s->chain = (const uint64_t *)(const void *)c.p; /* 8-aligned in place */
		c.p += nr * 8;
	}
	if (at->sample_type & PERF_SAMPLE_REGS_USER) {
		uint64_t abi = take64(&c);
		s->regs_abi = (uint32_t)abi;
		if (abi) {
			size_t n = (size_t)__builtin_popcountll(at->sample_regs_user);
			if ((size_t)(c.end - c.p) < n * 8)
				return -1;
			s->nr_regs = (uint32_t)n;
			s->regs = (const uint64_t *)(const void *)c.p;
			c.p += n * 8;
		}
	}
	if (at->sample_type & PERF_SAMPLE_STACK_USER) {
		uint64_t size = take64(&c);
		if (size) {
			if ((uint64_t)(c.end - c.p) < size + 8)
				return -1;
			const unsigned char *data = c.p;
			c.p += size;
			uint64_t dyn = take64(&c);
			s->stack = data;
			s->stack_len = (uint32_t)(dyn < size ? dyn : size);
		}
	}
	return c.bad ? -1 : 0;
}

/* The sample_id trailer of a non-sample record: TID, TIME, CPU, IDENTIFIER. */
static void trailer(const struct perf_event_header *h, uint64_t *time, uint64_t *id)
{
	const unsigned char *end = (const unsigned char *)h + h->size;
	*time = 0;
	*id = 0;
	if (h->size >= sizeof(*h) + 32) {
		memcpy(time, end - 24, 8);
		memcpy(id, end - 8, 8);
	}
}

static int parse_other(struct hpm_record *r, const struct perf_event_header *h,
		       struct hpm_prec *out)
{
	const unsigned char *body = (const unsigned char *)(h + 1);
	size_t blen = h->size - sizeof(*h);
	uint64_t time, id;
	uint32_t w[4];

	trailer(h, &time, &id);
	switch (h->type) {
	case PERF_RECORD_MMAP2: {
		struct hpm_mmap_rec *m = &out->mmap;
		const size_t fixed = 8 + 24 + 24 + 8;
		if (blen < fixed + 1 + 32)
			return -1;
		memset(m, 0, sizeof(*m));
		out->type = HPM_PREC_MMAP;
		memcpy(w, body, 8);
		m->pid = (pid_t)w[0];
		m->tid = (pid_t)w[1];
		memcpy(&m->start, body + 8, 8);
		memcpy(&m->len, body + 16, 8);
		memcpy(&m->pgoff, body + 24, 8);
		if (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			uint8_t n = body[32];
			m->build_id_len = n > HPM_BUILD_ID_MAX ? HPM_BUILD_ID_MAX : n;
			memcpy(m->build_id, body + 36, m->build_id_len);
		}
		memcpy(&m->prot, body + 56, 4);
		memcpy(&m->flags, body + 60, 4);
		m->filename = (const char *)body + fixed;
		if (!memchr(m->filename, '\0', blen - fixed - 32))
			return -1;
		m->time = time;
		return 0;
	}
	case PERF_RECORD_COMM: {
		struct hpm_comm_rec *cm = &out->comm;
		if (blen < 8 + 1 + 32)
			return -1;
		out->type = HPM_PREC_COMM;
		memcpy(w, body, 8);
		cm->pid = (pid_t)w[0];
		cm->tid = (pid_t)w[1];
		cm->comm = (const char *)body + 8;
		if (!memchr(cm->comm, '\0', blen - 8 - 32))
			return -1;
		cm->exec = h->misc & PERF_RECORD_MISC_COMM_EXEC;
		cm->time = time;
		return 0;
	}
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT: {
		struct hpm_task_rec *t = &out->task;
		if (blen < 24)
			return -1;
		out->type = h->type == PERF_RECORD_FORK ? HPM_PREC_FORK : HPM_PREC_EXIT;
		memcpy(w, body, 16);
		t->pid = (pid_t)w[0];
		t->ppid = (pid_t)w[1];
		t->tid = (pid_t)w[2];
		t->ptid = (pid_t)w[3];
		memcpy(&t->time, body + 16, 8);
		return 0;
	}
	case PERF_RECORD_LOST: {
		uint64_t v[2];
		if (blen < 16)
			return -1;
		memcpy(v, body, 16);
		int ev = lookup_ev(r, v[0]);
		out->type = HPM_PREC_LOST;
		out->lost = (struct hpm_lost_rec){ time, ev < 0 ? UINT32_MAX : (uint32_t)ev, v[1] };
		r->st.lost += v[1];
		return 0;
	}
	case PERF_RECORD_LOST_SAMPLES: {
		uint64_t n;
		if (blen < 8)
			return -1;
		memcpy(&n, body, 8);
		int ev = lookup_ev(r, id);
		out->type = HPM_PREC_LOST;
		out->lost = (struct hpm_lost_rec){ time, ev < 0 ? UINT32_MAX : (uint32_t)ev, n };
		r->st.lost_samples += n;
		return 0;
	}
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE: {
		uint64_t v[2];
		if (blen < 16)
			return -1;
		memcpy(v, body, 16);
		int ev = lookup_ev(r, v[1]);
		out->type = h->type == PERF_RECORD_THROTTLE ? HPM_PREC_THROTTLE : HPM_PREC_UNTHROTTLE;
		out->lost = (struct hpm_lost_rec){ v[0], ev < 0 ? UINT32_MAX : (uint32_t)ev, 1 };
		if (h->type == PERF_RECORD_THROTTLE)
			r->st.throttled++;
		return 0;
	}
	default:
		return 1; /* not ours to pass on */
	}
}

static uint64_t next_rand(struct hpm_record *r)
{
	uint64_t x = r->rand_state; /* xorshift64 */
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return r->rand_state = x;
}

/* --random-period: a new period for every trigger, +-1/8 of its base. */
static void jitter_periods(struct hpm_record *r)
{
	for (size_t i = 0; i < r->nr_ev; i++) {
		const struct perf_event_attr *a = &r->attr[i];
		if (!r->trigger[i] || a->freq || !(a->sample_type & PERF_SAMPLE_PERIOD) ||
		    a->sample_period < 16)
			continue;
		uint64_t span = a->sample_period / 4;
		uint64_t p = a->sample_period - span / 2 + next_rand(r) % (span + 1);
		for (size_t k = 0; k < r->nr_thr * r->nr_cpu; k++) {
			int f = r->fd[i * r->nr_thr * r->nr_cpu + k];
			if (f >= 0)
				ioctl(f, PERF_EVENT_IOC_PERIOD, &p);
		}
	}
}

/* Queue every record of buffer @c up to the head read on entry (what the
 * kernel adds meanwhile waits for the next round: record-order.c relies
 * on one head per buffer and round). Returns the number queued or a
 * negative errno (the record that could not be queued is lost). */
static int drain_buffer(struct hpm_record *r, size_t c)
{
	struct hpm_ring *ring = &r->ring[c];
	const struct perf_event_header *h;
	int n = 0, err = 0, rc = 0;

	hpm_ring__read_init(ring);
	while (!err && !(rc = hpm_ring__next(ring, r->scratch, HPM_RING_RECORD_MAX, &h))) {
		struct hpm_prec p;
		int k = h->type == PERF_RECORD_SAMPLE ? parse_sample(r, h, &p) : parse_other(r, h, &p);
		if (k == -ENOMEM || (!k && (k = hpm__order_add(r->order, c, &p)) < 0))
			err = k; /* this record is lost */
		else if (k < 0)
			r->st.bad++;
		else if (k == 0)
			n++;
		hpm_ring__consume(ring);
	}
	if (!err && rc < 0) {
		r->st.bad++;
		hpm_ring__discard(ring); /* cannot resynchronise within a buffer */
	}
	hpm_ring__read_done(ring);
	return err ? err : n;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The caller's callback, behind the queue. */
struct emit {
	struct hpm_record *r;
	hpm_record_fn fn;
	void *arg;
};

static int emit_rec(const struct hpm_prec *p, void *arg)
{
	struct emit *e = arg;
	if (p->type == HPM_PREC_SAMPLE)
		e->r->st.samples++;
	return e->fn(p, e->arg);
}

static int start_order(struct hpm_record *r)
{
	size_t cap = REC_ORDER_MIN_BYTES;
	if (r->data_len && r->nr_cpu <= SIZE_MAX / REC_ORDER_BUF_FACTOR / r->data_len &&
	    REC_ORDER_BUF_FACTOR * r->nr_cpu * r->data_len > cap)
		cap = REC_ORDER_BUF_FACTOR * r->nr_cpu * r->data_len;
	r->order = hpm__order_new(r->nr_cpu, REC_ORDER_GAP_NS, cap);
	return r->order ? 0 : -ENOMEM;
}

/* A drain round: the records of processes that existed before (they
 * describe the start, so they go first), then every buffer into the time
 * queue, then out of it what no buffer can still precede (all of it once
 * the events are disabled). */
int hpm_record__drain(struct hpm_record *r, hpm_record_fn fn, void *arg)
{
	struct emit em = { r, fn, arg };
	int total = 0, rc = 0;

	if (!r->opened)
		return -HPM_ERR_NOT_OPEN;
	if (!r->order && (rc = start_order(r)))
		return rc;
	for (; r->synth_done < r->nr_synth; r->synth_done++) {
		rc = fn(&r->synth[r->synth_done].p, arg);
		if (rc < 0)
			return rc;
		total++;
	}
	hpm__order_begin(r->order, mono_ns());
	for (size_t c = 0; c < r->nr_cpu; c++) {
		if (r->ring[c].base && (rc = drain_buffer(r, c)) < 0)
			return rc; /* a buffer not read: nothing is known safe */
	}
	hpm__order_end(r->order, mono_ns());
	rc = hpm__order_flush(r->order, r->disabled, emit_rec, &em);
	if (rc < 0)
		return rc;
	total += rc;
	if (r->disabled && !r->order_logged) {
		struct hpm_order_stats os;
		hpm__order_stats(r->order, &os);
		if (os.early || os.late)
			hpm__log(r->ctx, HPM_LOG_WARN, "time order: %llu records handed out "
				 "before they were known to be safe (the queue was full), %llu "
				 "read after a later record had been handed out",
				 (unsigned long long)os.early, (unsigned long long)os.late);
		r->order_logged = true;
	}
	if (r->o.random_period)
		jitter_periods(r);
	return total;
}
