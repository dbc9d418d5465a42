// SPDX-License-Identifier: MIT
/*
 * A PMU that counts the same for every tool, for the parity harness
 * (tests/parity/README.md): preloaded (LD_PRELOAD) into perf and into
 * hpmon, it answers perf_event_open itself for the hardware types, so that
 * two tools that open the same perf_event_attr read the same count.
 *
 * Which opens are faked: PERF_TYPE_HARDWARE, PERF_TYPE_HW_CACHE,
 * PERF_TYPE_RAW, and every type named by a PMU under $FAKE_PMU_SYSFS
 * (default /sys/bus/event_source/devices, the machine's tree inside the
 * harness) except software, tracepoint, breakpoint, kprobe and uprobe,
 * which go to the kernel. With FAKE_PMU_SOFTWARE=1 software events are
 * faked too. A type that is neither fails with ENOENT, as the kernel says
 * of a PMU it does not have.
 *
 * The count of an event is a hash of its type, config, config1, config2,
 * config3 and exclude bits into [1e6, 1e10): nothing else (not the task,
 * the CPU or the group) changes it. Counters advance only while the fake
 * clock does: CLOCK_MONOTONIC (and MONOTONIC_RAW, _COARSE, BOOTTIME)
 * stands still, and moves on by exactly $FAKE_PMU_DURATION_NS (default
 * 1e9) each time a wait4/waitpid/waitid/wait reaps a child. An event that
 * is enabled across that wait gains its count, and time_enabled gains the
 * duration; time_running gains duration * $FAKE_PMU_RUNNING (a ratio N/M
 * or a decimal, default 1: no multiplexing), and the count the same
 * fraction of its hash. So a tool that reads before the workload has
 * ended reads 0, one that reads after reads the hash, and both tools'
 * duration_time (perf's rdclock, hpmon's now_ns) is the fixed duration.
 * FAKE_PMU_CLOCK=real leaves the clock alone. $FAKE_PMU_COUNTS
 * ("TYPE:CONFIG=COUNT,...") sets the counts of some events instead, where a
 * test wants them in proportion (a slots event far above the rest).
 *
 * read() honours read_format exactly (GROUP, TOTAL_TIME_ENABLED,
 * TOTAL_TIME_RUNNING, ID, LOST); a group read lists the leader, then the
 * members in the order they were opened, as the kernel does. ioctl knows
 * ENABLE, DISABLE (with PERF_IOC_FLAG_GROUP), RESET, ID, and accepts
 * SET_OUTPUT, SET_FILTER, PERIOD, REFRESH, PAUSE_OUTPUT. A fake event's
 * file descriptor is a non-blocking eventfd, so close, fcntl and poll work
 * unchanged (it never polls readable); mmap of it gives an anonymous
 * zeroed area, a ring buffer that stays empty. As the kernel, the shim
 * refuses (EINVAL) a topdown metric event (event 0, umask 0x80-0x87) whose
 * group leader is not the slots event, and an event of a PMU with a
 * cpumask (uncore, cstate, RAPL) for a task or for no CPU.
 *
 * Every open is logged, one "key=value" line per field of the attr, to
 * the file $FAKE_PMU_LOG names (appended; one block per open, a blank line
 * after it): the tool, its sequence number, the arguments, the group
 * leader (by sequence number), whether it was faked, the result, then all
 * of perf_event_attr's fields up to config3, decoded from the bytes the
 * tool passed, whatever the headers this file is built with.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <linux/perf_event.h>
#include "fake-pmu/fake-pmu.h"

#define ATTR_MAX 136 /* up to config3 (PERF_ATTR_SIZE_VER8) */
#define MAX_FD 65536
#define MAX_TYPES 256
#define MAX_GROUP 64

/* The ioctls by number, whatever the headers know. */
#define IOC_ENABLE _IO('$', 0)
#define IOC_DISABLE _IO('$', 1)
#define IOC_REFRESH _IO('$', 2)
#define IOC_RESET _IO('$', 3)
#define IOC_PERIOD _IOW('$', 4, uint64_t)
#define IOC_SET_OUTPUT _IO('$', 5)
#define IOC_SET_FILTER _IOW('$', 6, char *)
#define IOC_ID _IOR('$', 7, uint64_t *)
#define IOC_SET_BPF _IOW('$', 8, uint32_t)
#define IOC_PAUSE_OUTPUT _IOW('$', 9, uint32_t)
#define IOC_FLAG_GROUP 1u

#define FMT_TOTAL_TIME_ENABLED 1u
#define FMT_TOTAL_TIME_RUNNING 2u
#define FMT_ID 4u
#define FMT_GROUP 8u
#define FMT_LOST 16u

struct fake {
	unsigned char attr[ATTR_MAX];
	int leader;            /* fd of the group leader; its own fd if none */
	int members[MAX_GROUP]; /* a leader's members, in open order */
	int nr_members;
	int seq;
	uint64_t id, hash, value, enabled_ns, running_ns;
	int on;
};

static struct fake *fakes[MAX_FD];
pthread_mutex_t fp_lock = PTHREAD_MUTEX_INITIALIZER;
static int seq;

/* the tree's PMUs: their types and whether each goes to the kernel */
static struct {
	uint32_t type;
	int real, slots; /* slots: has events/slots (perf metrics) */
	int uncore;      /* has a cpumask: counts per CPU, for no task */
} types[MAX_TYPES];
static int nr_types = -1;

static uint64_t u64_at(const unsigned char *a, size_t off)
{
	uint64_t v;
	memcpy(&v, a + off, sizeof(v));
	return v;
}

static uint32_t u32_at(const unsigned char *a, size_t off)
{
	uint32_t v;
	memcpy(&v, a + off, sizeof(v));
	return v;
}

static uint16_t u16_at(const unsigned char *a, size_t off)
{
	uint16_t v;
	memcpy(&v, a + off, sizeof(v));
	return v;
}

void *fp_real(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);
	if (!f) {
		static const char msg[] = "fake-pmu: a libc function is missing\n";
		ssize_t w = write(2, msg, sizeof(msg) - 1);
		(void)w;
		abort();
	}
	return f;
}

/* $FAKE_PMU_RUNNING as num/den: "1/2", "0.5", default 1/1. */
static void running_ratio(uint64_t *num, uint64_t *den)
{
	const char *s = getenv("FAKE_PMU_RUNNING");
	*num = 1;
	*den = 1;
	if (!s || !*s)
		return;
	if (strchr(s, '/')) {
		*num = strtoull(s, NULL, 10);
		*den = strtoull(strchr(s, '/') + 1, NULL, 10);
	} else {
		*num = (uint64_t)(strtod(s, NULL) * 1000000.0 + 0.5);
		*den = 1000000;
	}
	if (!*den || *num > *den) {
		*num = 1;
		*den = 1;
	}
}

static void read_types(void)
{
	const char *root = getenv("FAKE_PMU_SYSFS");
	char path[4096], buf[64];
	struct dirent *d;
	DIR *dir;

	nr_types = 0;
	if (!root || !*root)
		root = "/sys/bus/event_source/devices";
	dir = opendir(root);
	if (!dir)
		return;
	while ((d = readdir(dir)) && nr_types < MAX_TYPES) {
		FILE *f;
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/type", root, d->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fgets(buf, sizeof(buf), f)) {
			types[nr_types].type = (uint32_t)strtoul(buf, NULL, 10);
			types[nr_types].real = !strcmp(d->d_name, "software") ||
					       !strcmp(d->d_name, "tracepoint") ||
					       !strcmp(d->d_name, "breakpoint") ||
					       !strcmp(d->d_name, "kprobe") ||
					       !strcmp(d->d_name, "uprobe");
			snprintf(path, sizeof(path), "%s/%s/events/slots", root, d->d_name);
			types[nr_types].slots = access(path, F_OK) == 0;
			snprintf(path, sizeof(path), "%s/%s/cpumask", root, d->d_name);
			types[nr_types].uncore = access(path, F_OK) == 0;
			nr_types++;
		}
		fclose(f);
	}
	closedir(dir);
}

/* 1: fake it; 0: the kernel's; -1: no such PMU here. @slots: the PMU has
 * perf metrics; @uncore: it has a cpumask. */
static int fake_type(uint32_t type, uint64_t config, int *slots, int *uncore)
{
	*slots = 0;
	*uncore = 0;
	if (type == PERF_TYPE_SOFTWARE)
		return getenv("FAKE_PMU_SOFTWARE") && !strcmp(getenv("FAKE_PMU_SOFTWARE"), "1");
	if (type == PERF_TYPE_TRACEPOINT || type == PERF_TYPE_BREAKPOINT)
		return 0;
	if (type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE) {
		/* hybrid: the PMU's type in config's upper half */
		uint32_t pmu = (uint32_t)(config >> 32);
		for (int i = 0; pmu && i < nr_types; i++)
			if (types[i].type == pmu)
				*slots = types[i].slots;
		return 1;
	}
	for (int i = 0; i < nr_types; i++)
		if (types[i].type == type) {
			*slots = types[i].slots;
			*uncore = types[i].uncore;
			return !types[i].real;
		}
	if (type == PERF_TYPE_RAW)
		return 1;
	return -1;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	/* splitmix64 of the running hash xor the next word */
	uint64_t z = h ^ v;
	z += 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* The count: type, config, config1, config2, config3, exclude bits. */
static uint64_t attr_hash(const unsigned char *a)
{
	uint64_t flags = u64_at(a, 40);
	/* exclude_user..exclude_idle (4-7), exclude_host, exclude_guest (19, 20) */
	uint64_t excl = flags & (0xf0ull | (3ull << 19));
	uint64_t h = 0x68706d6f6eull; /* any fixed seed */
	h = mix(h, u32_at(a, 0));
	h = mix(h, u64_at(a, 8));
	h = mix(h, u64_at(a, 56));
	h = mix(h, u64_at(a, 64));
	h = mix(h, u64_at(a, 128));
	h = mix(h, excl);
	return 1000000ull + h % (10000000000ull - 1000000ull);
}


/* $FAKE_PMU_COUNTS, "TYPE:CONFIG=COUNT[,...]", sets the count of the
 * events of that type and config (any config1, config2, exclude bits). */
static int count_override(const unsigned char *a, uint64_t *count)
{
	const char *s = getenv("FAKE_PMU_COUNTS");
	uint32_t type = u32_at(a, 0);
	uint64_t config = u64_at(a, 8);

	while (s && *s) {
		char *end;
		unsigned long t = strtoul(s, &end, 0);
		unsigned long long c, n;
		if (*end != ':')
			return 0;
		c = strtoull(end + 1, &end, 0);
		if (*end != '=')
			return 0;
		n = (unsigned long long)strtod(end + 1, &end);
		if (t == type && c == config) {
			*count = n;
			return 1;
		}
		s = *end == ',' ? end + 1 : NULL;
	}
	return 0;
}

/* ---- the log ---- */

static const char *const flag_names[] = {
	"disabled", "inherit", "pinned", "exclusive", "exclude_user", "exclude_kernel",
	"exclude_hv", "exclude_idle", "mmap", "comm", "freq", "inherit_stat",
	"enable_on_exec", "task", "watermark", NULL /* precise_ip, 2 bits */, NULL,
	"mmap_data", "sample_id_all", "exclude_host", "exclude_guest",
	"exclude_callchain_kernel", "exclude_callchain_user", "mmap2", "comm_exec",
	"use_clockid", "context_switch", "write_backward", "namespaces", "ksymbol",
	"bpf_event", "aux_output", "cgroup", "text_poke", "build_id", "inherit_thread",
	"remove_on_exec", "sigtrap",
};
#define NR_FLAGS (sizeof(flag_names) / sizeof(flag_names[0]))

struct out {
	char buf[8192];
	size_t len;
};

static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;
	if (o->len >= sizeof(o->buf))
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->len, sizeof(o->buf) - o->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += (size_t)n;
	if (o->len > sizeof(o->buf))
		o->len = sizeof(o->buf);
}

static void log_open(const unsigned char *a, uint32_t size, long pid, long cpu, long group_fd,
		     unsigned long flags, int myseq, int leader_seq, int faked, long result,
		     uint64_t count)
{
	const char *path = getenv("FAKE_PMU_LOG");
	uint64_t f = u64_at(a, 40);
	struct out o = { .len = 0 };
	int fd;

	if (!path || !*path)
		return;
	put(&o, "open=%d\ntool=%s\n", myseq, program_invocation_short_name);
	put(&o, "pid=%ld\ncpu=%ld\ngroup_fd=%ld\nflags=0x%lx\n", pid, cpu, group_fd, flags);
	if (leader_seq < 0)
		put(&o, "leader=self\n");
	else
		put(&o, "leader=%d\n", leader_seq);
	put(&o, "faked=%d\n", faked);
	if (result < 0)
		put(&o, "result=%s\n", strerrorname_np((int)-result) ?: "error");
	else
		put(&o, "result=ok\n");
	if (faked && result >= 0)
		put(&o, "count=%llu\n", (unsigned long long)count);
	put(&o, "type=%u\nsize=%u\nconfig=0x%llx\n", u32_at(a, 0), size,
	    (unsigned long long)u64_at(a, 8));
	put(&o, "sample_period=%llu\nsample_type=0x%llx\nread_format=0x%llx\n",
	    (unsigned long long)u64_at(a, 16), (unsigned long long)u64_at(a, 24),
	    (unsigned long long)u64_at(a, 32));
	for (size_t i = 0; i < NR_FLAGS; i++) {
		if (i == 15) {
			put(&o, "precise_ip=%llu\n", (unsigned long long)((f >> 15) & 3));
			continue;
		}
		if (flag_names[i])
			put(&o, "%s=%llu\n", flag_names[i], (unsigned long long)((f >> i) & 1));
	}
	put(&o, "flags_reserved=0x%llx\n", (unsigned long long)(f >> NR_FLAGS));
	put(&o, "wakeup_events=%u\nbp_type=%u\n", u32_at(a, 48), u32_at(a, 52));
	put(&o, "config1=0x%llx\nconfig2=0x%llx\nbranch_sample_type=0x%llx\n",
	    (unsigned long long)u64_at(a, 56), (unsigned long long)u64_at(a, 64),
	    (unsigned long long)u64_at(a, 72));
	put(&o, "sample_regs_user=0x%llx\nsample_stack_user=%u\nclockid=%d\n",
	    (unsigned long long)u64_at(a, 80), u32_at(a, 88), (int)u32_at(a, 92));
	put(&o, "sample_regs_intr=0x%llx\naux_watermark=%u\nsample_max_stack=%u\n",
	    (unsigned long long)u64_at(a, 96), u32_at(a, 104), u16_at(a, 108));
	put(&o, "aux_sample_size=%u\nsig_data=0x%llx\nconfig3=0x%llx\n\n", u32_at(a, 112),
	    (unsigned long long)u64_at(a, 120), (unsigned long long)u64_at(a, 128));
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	/* one write a block: the tools and their children share the file */
	if (write(fd, o.buf, o.len) < 0) {
		/* nothing to do: the log is for the harness */
	}
	close(fd);
}

/* ---- perf_event_open ---- */

static int is_slots(const unsigned char *a)
{
	return (u64_at(a, 8) & 0xffff) == 0x0400;
}

static int is_metric(const unsigned char *a)
{
	uint64_t c = u64_at(a, 8) & 0xffff;
	return (c & 0xff) == 0 && c >= 0x8000 && c <= 0x8700;
}

static long fake_open(const void *uattr, long pid, long cpu, long group_fd,
		      unsigned long flags, long (*real)(long, ...))
{
	unsigned char a[ATTR_MAX];
	uint32_t size = u32_at(uattr, 4);
	struct fake *e, *l = NULL;
	int slots, uncore, kind, myseq, lseq = -1;
	long fd;

	memset(a, 0, sizeof(a));
	if (!size)
		size = 64; /* PERF_ATTR_SIZE_VER0, as the kernel reads it */
	memcpy(a, uattr, size < ATTR_MAX ? size : ATTR_MAX);
	pthread_mutex_lock(&fp_lock);
	if (nr_types < 0)
		read_types();
	kind = fake_type(u32_at(a, 0), u64_at(a, 8), &slots, &uncore);
	myseq = seq++;
	if (group_fd >= 0 && group_fd < MAX_FD && fakes[group_fd]) {
		l = fakes[fakes[group_fd]->leader];
		lseq = l->seq;
	}
	if (kind == 0) {
		pthread_mutex_unlock(&fp_lock);
		if (group_fd >= 0 && l) {
			/* a kernel event cannot join a fake group */
			log_open(a, size, pid, cpu, group_fd, flags, myseq, lseq, 0, -EINVAL, 0);
			errno = EINVAL;
			return -1;
		}
		fd = real(SYS_perf_event_open, uattr, pid, cpu, group_fd, flags);
		log_open(a, size, pid, cpu, group_fd, flags, myseq, lseq, 0,
			 fd < 0 ? -errno : fd, 0);
		return fd;
	}
	if (kind < 0 || (group_fd >= 0 && !l) || (uncore && (cpu < 0 || pid != -1)) ||
	    (slots && is_metric(a) && (!l || !is_slots(l->attr))) ||
	    (l && l->nr_members >= MAX_GROUP)) {
		int err = kind < 0 ? ENOENT : EINVAL;
		pthread_mutex_unlock(&fp_lock);
		log_open(a, size, pid, cpu, group_fd, flags, myseq, lseq, 1, -err, 0);
		errno = err;
		return -1;
	}
	e = calloc(1, sizeof(*e));
	fd = e ? eventfd(0, EFD_NONBLOCK | ((flags & PERF_FLAG_FD_CLOEXEC) ? EFD_CLOEXEC : 0)) : -1;
	if (fd < 0 || fd >= MAX_FD) {
		int err = fd < 0 ? errno : EMFILE;
		if (fd >= 0)
			close(fd);
		free(e);
		pthread_mutex_unlock(&fp_lock);
		errno = err;
		return -1;
	}
	memcpy(e->attr, a, sizeof(a));
	e->seq = myseq;
	e->id = 1000 + (uint64_t)myseq;
	if (!count_override(a, &e->hash))
		e->hash = attr_hash(a);
	e->on = !(u64_at(a, 40) & 1) || (u64_at(a, 40) & (1ull << 12)); /* enable_on_exec */
	e->leader = l ? (int)group_fd : (int)fd;
	if (l) {
		e->leader = fakes[group_fd]->leader;
		l->members[l->nr_members++] = (int)fd;
	}
	fakes[fd] = e;
	pthread_mutex_unlock(&fp_lock);
	log_open(a, size, pid, cpu, group_fd, flags, myseq, lseq, 1, fd, e->hash);
	return fd;
}

long syscall(long nr, ...);

long syscall(long nr, ...)
{
	static long (*real)(long, ...);
	va_list ap;
	long a[6];

	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (!real)
		real = (long (*)(long, ...))fp_real("syscall");
	/* pid, cpu and group_fd are ints: the upper halves of the registers
	 * the caller passed them in are not defined */
	if (nr == SYS_perf_event_open && a[0])
		return fake_open((const void *)a[0], (int)a[1], (int)a[2], (int)a[3],
				 (unsigned long)a[4], real);
	return real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

/* ---- read ---- */

static struct fake *fake_of(int fd)
{
	return fd >= 0 && fd < MAX_FD ? fakes[fd] : NULL;
}

/* Writes @e's read() answer into @buf; the bytes, or -errno. */
static ssize_t fake_read(struct fake *e, void *buf, size_t len)
{
	uint64_t rf = u64_at(e->attr, 32), out[3 + 3 * (MAX_GROUP + 1)];
	size_t n = 0;

	if (rf & FMT_GROUP) {
		struct fake *l = fakes[e->leader];
		out[n++] = 1 + (uint64_t)l->nr_members;
		if (rf & FMT_TOTAL_TIME_ENABLED)
			out[n++] = l->enabled_ns;
		if (rf & FMT_TOTAL_TIME_RUNNING)
			out[n++] = l->running_ns;
		for (int i = -1; i < l->nr_members; i++) {
			struct fake *m = i < 0 ? l : fakes[l->members[i]];
			out[n++] = m->value;
			if (rf & FMT_ID)
				out[n++] = m->id;
			if (rf & FMT_LOST)
				out[n++] = 0;
		}
	} else {
		out[n++] = e->value;
		if (rf & FMT_TOTAL_TIME_ENABLED)
			out[n++] = e->enabled_ns;
		if (rf & FMT_TOTAL_TIME_RUNNING)
			out[n++] = e->running_ns;
		if (rf & FMT_ID)
			out[n++] = e->id;
		if (rf & FMT_LOST)
			out[n++] = 0;
	}
	if (len < n * sizeof(uint64_t))
		return -ENOSPC;
	memcpy(buf, out, n * sizeof(uint64_t));
	return (ssize_t)(n * sizeof(uint64_t));
}

static ssize_t read_or_fake(int fd, void *buf, size_t len, int *handled)
{
	ssize_t r = 0;
	struct fake *e;

	*handled = 0;
	if (!fake_of(fd))
		return 0;
	pthread_mutex_lock(&fp_lock);
	fp_catch_up_locked();
	e = fake_of(fd);
	if (e) {
		*handled = 1;
		r = fake_read(e, buf, len);
	}
	pthread_mutex_unlock(&fp_lock);
	if (r < 0) {
		errno = (int)-r;
		r = -1;
	}
	return r;
}

ssize_t read(int fd, void *buf, size_t len)
{
	static ssize_t (*real)(int, void *, size_t);
	int handled;
	ssize_t r = read_or_fake(fd, buf, len, &handled);
	if (handled)
		return r;
	if (!real)
		real = (ssize_t (*)(int, void *, size_t))fp_real("read");
	return real(fd, buf, len);
}

ssize_t __read_chk(int fd, void *buf, size_t len, size_t buflen);

ssize_t __read_chk(int fd, void *buf, size_t len, size_t buflen)
{
	static ssize_t (*real)(int, void *, size_t, size_t);
	int handled;
	ssize_t r;
	if (len > buflen)
		abort(); /* as glibc's own check */
	r = read_or_fake(fd, buf, len, &handled);
	if (handled)
		return r;
	if (!real)
		real = (ssize_t (*)(int, void *, size_t, size_t))fp_real("__read_chk");
	return real(fd, buf, len, buflen);
}

/* ---- ioctl ---- */

static void set_on(struct fake *e, int on, int group)
{
	e->on = on;
	if (group && e->leader >= 0 && fakes[e->leader] == e)
		for (int i = 0; i < e->nr_members; i++)
			fakes[e->members[i]]->on = on;
}

int ioctl(int fd, unsigned long req, ...);

int ioctl(int fd, unsigned long req, ...)
{
	static int (*real)(int, unsigned long, ...);
	struct fake *e;
	va_list ap;
	void *arg;
	int rc = 0;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!real)
		real = (int (*)(int, unsigned long, ...))fp_real("ioctl");
	if (!fake_of(fd))
		return real(fd, req, arg);
	pthread_mutex_lock(&fp_lock);
	fp_catch_up_locked();
	e = fake_of(fd);
	if (!e) {
		pthread_mutex_unlock(&fp_lock);
		return real(fd, req, arg);
	}
	switch (req) {
	case IOC_ENABLE:
	case IOC_DISABLE:
		set_on(e, req == IOC_ENABLE, ((uintptr_t)arg & IOC_FLAG_GROUP) != 0);
		break;
	case IOC_RESET:
		e->value = 0;
		if ((uintptr_t)arg & IOC_FLAG_GROUP)
			for (int i = 0; fakes[e->leader] == e && i < e->nr_members; i++)
				fakes[e->members[i]]->value = 0;
		break;
	case IOC_ID:
		if (!arg) {
			rc = -EFAULT;
			break;
		}
		memcpy(arg, &e->id, sizeof(e->id));
		break;
	case IOC_REFRESH:
	case IOC_PERIOD:
	case IOC_SET_OUTPUT:
	case IOC_SET_FILTER:
	case IOC_SET_BPF:
	case IOC_PAUSE_OUTPUT:
		break;
	default:
		rc = -ENOTTY;
	}
	pthread_mutex_unlock(&fp_lock);
	if (rc) {
		errno = -rc;
		return -1;
	}
	return 0;
}

/* ---- close, mmap ---- */

int close(int fd)
{
	static int (*real)(int);
	if (!real)
		real = (int (*)(int))fp_real("close");
	if (fake_of(fd)) {
		pthread_mutex_lock(&fp_lock);
		fp_catch_up_locked();
		struct fake *e = fake_of(fd);
		if (e) {
			struct fake *l = fakes[e->leader];
			if (l == e) {
				/* the members become singletons, as the kernel's */
				for (int i = 0; i < e->nr_members; i++)
					fakes[e->members[i]]->leader = e->members[i];
			} else if (l) {
				int k = 0;
				for (int i = 0; i < l->nr_members; i++)
					if (l->members[i] != fd)
						l->members[k++] = l->members[i];
				l->nr_members = k;
			}
			fakes[fd] = NULL;
			free(e);
		}
		pthread_mutex_unlock(&fp_lock);
	}
	return real(fd);
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	static void *(*real)(void *, size_t, int, int, int, off_t);
	if (!real)
		real = (void *(*)(void *, size_t, int, int, int, off_t))fp_real("mmap");
	if (!(flags & MAP_ANONYMOUS) && fake_of(fd))
		return real(NULL, len, prot, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	return real(addr, len, prot, flags, fd, off);
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off);

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return mmap(addr, len, prot, flags, fd, off);
}

/* ---- the workload's time ---- */

void fp_advance_locked(uint64_t d, int n)
{
	uint64_t num, den;

	running_ratio(&num, &den);
	for (int fd = 0; fd < MAX_FD; fd++) {
		struct fake *e = fakes[fd], *l;
		if (!e)
			continue;
		l = fakes[e->leader];
		if (!e->on || (l && !l->on))
			continue;
		e->enabled_ns += d;
		e->running_ns += (uint64_t)((unsigned __int128)d * num / den);
		e->value += (uint64_t)n * (uint64_t)((unsigned __int128)e->hash * num / den);
	}
}
