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
 * group leader is not the slots event.
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
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int seq;
static uint64_t clock_ns = 1000000000000ull; /* 1000 s: any fixed start */

/* the tree's PMUs: their types and whether each goes to the kernel */
static struct {
	uint32_t type;
	int real, slots; /* slots: has events/slots (perf metrics) */
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

static void *real_fn(const char *name)
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

static uint64_t env_u64(const char *name, uint64_t dflt)
{
	const char *s = getenv(name);
	return s && *s ? strtoull(s, NULL, 0) : dflt;
}

static uint64_t duration_ns(void)
{
	return env_u64("FAKE_PMU_DURATION_NS", 1000000000ull);
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
			nr_types++;
		}
		fclose(f);
	}
	closedir(dir);
}

/* 1: fake it; 0: the kernel's; -1: no such PMU here. @slots: the PMU has
 * perf metrics. */
static int fake_type(uint32_t type, uint64_t config, int *slots)
{
	*slots = 0;
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

static void apply_pending_locked(void);
static void epoch_bump(void);

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
	int slots, kind, myseq, lseq = -1;
	long fd;

	memset(a, 0, sizeof(a));
	if (!size)
		size = 64; /* PERF_ATTR_SIZE_VER0, as the kernel reads it */
	memcpy(a, uattr, size < ATTR_MAX ? size : ATTR_MAX);
	pthread_mutex_lock(&lock);
	if (nr_types < 0)
		read_types();
	kind = fake_type(u32_at(a, 0), u64_at(a, 8), &slots);
	myseq = seq++;
	if (group_fd >= 0 && group_fd < MAX_FD && fakes[group_fd]) {
		l = fakes[fakes[group_fd]->leader];
		lseq = l->seq;
	}
	if (kind == 0) {
		pthread_mutex_unlock(&lock);
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
	if (kind < 0 || (group_fd >= 0 && !l) ||
	    (slots && is_metric(a) && (!l || !is_slots(l->attr))) ||
	    (l && l->nr_members >= MAX_GROUP)) {
		int err = kind < 0 ? ENOENT : EINVAL;
		pthread_mutex_unlock(&lock);
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
		pthread_mutex_unlock(&lock);
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
	pthread_mutex_unlock(&lock);
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
		real = (long (*)(long, ...))real_fn("syscall");
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
	pthread_mutex_lock(&lock);
	apply_pending_locked();
	e = fake_of(fd);
	if (e) {
		*handled = 1;
		r = fake_read(e, buf, len);
	}
	pthread_mutex_unlock(&lock);
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
		real = (ssize_t (*)(int, void *, size_t))real_fn("read");
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
		real = (ssize_t (*)(int, void *, size_t, size_t))real_fn("__read_chk");
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
		real = (int (*)(int, unsigned long, ...))real_fn("ioctl");
	if (!fake_of(fd))
		return real(fd, req, arg);
	pthread_mutex_lock(&lock);
	apply_pending_locked();
	e = fake_of(fd);
	if (!e) {
		pthread_mutex_unlock(&lock);
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
	pthread_mutex_unlock(&lock);
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
		real = (int (*)(int))real_fn("close");
	if (fake_of(fd)) {
		pthread_mutex_lock(&lock);
		apply_pending_locked();
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
		pthread_mutex_unlock(&lock);
	}
	return real(fd);
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	static void *(*real)(void *, size_t, int, int, int, off_t);
	if (!real)
		real = (void *(*)(void *, size_t, int, int, int, off_t))real_fn("mmap");
	if (!(flags & MAP_ANONYMOUS) && fake_of(fd))
		return real(NULL, len, prot, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	return real(addr, len, prot, flags, fd, off);
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off);

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return mmap(addr, len, prot, flags, fd, off);
}

/* ---- the clock ---- */

static int clock_faked(clockid_t id)
{
	const char *s = getenv("FAKE_PMU_CLOCK");
	if (s && !strcmp(s, "real"))
		return 0;
	return id == CLOCK_MONOTONIC || id == CLOCK_MONOTONIC_RAW ||
	       id == CLOCK_MONOTONIC_COARSE || id == CLOCK_BOOTTIME;
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
	static int (*real)(clockid_t, struct timespec *);
	if (!real)
		real = (int (*)(clockid_t, struct timespec *))real_fn("clock_gettime");
	if (!clock_faked(id))
		return real(id, ts);
	pthread_mutex_lock(&lock);
	apply_pending_locked();
	ts->tv_sec = (time_t)(clock_ns / 1000000000ull);
	ts->tv_nsec = (long)(clock_ns % 1000000000ull);
	pthread_mutex_unlock(&lock);
	epoch_bump();
	return 0;
}

/*
 * A child was reaped: the workload's time passes, and the counters of the
 * enabled events move on. Once a child: when the tool catches SIGCHLD (perf
 * does, and skips its wait4 when the child has ended before it), the
 * signal moves the clock and the wait of the same child does not again.
 * The handler only counts; the clock moves at the shim's next call.
 */
#define NR_SEEN 64
static _Atomic int pending;
static _Atomic pid_t seen[NR_SEEN]; /* children the signal announced */

static void apply_pending_locked(void)
{
	uint64_t d, num, den;
	int n = atomic_exchange(&pending, 0);

	if (!n)
		return;
	d = duration_ns() * (uint64_t)n;
	running_ratio(&num, &den);
	clock_ns += d;
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

static int clock_real(void)
{
	const char *s = getenv("FAKE_PMU_CLOCK");
	return s && !strcmp(s, "real");
}

/* from the signal handler: @pid has ended */
static void child_ended_signal(pid_t pid)
{
	for (int i = 0; i < NR_SEEN; i++) {
		pid_t none = 0;
		if (atomic_load(&seen[i]) == pid)
			return;
		if (atomic_compare_exchange_strong(&seen[i], &none, pid)) {
			atomic_fetch_add(&pending, 1);
			return;
		}
	}
}

/* from a wait that reaped @pid */
static void child_reaped(pid_t pid)
{
	int announced = 0;
	for (int i = 0; i < NR_SEEN; i++) {
		pid_t p = pid;
		if (atomic_compare_exchange_strong(&seen[i], &p, 0))
			announced = 1;
	}
	if (!announced)
		atomic_fetch_add(&pending, 1);
	if (clock_real())
		atomic_store(&pending, 0);
	pthread_mutex_lock(&lock);
	apply_pending_locked();
	pthread_mutex_unlock(&lock);
}

/* ---- SIGCHLD: the tool's handler, behind the shim's ---- */

static struct sigaction chld_user; /* the tool's SIGCHLD disposition */

static void on_chld(int sig, siginfo_t *si, void *uc)
{
	if (si && (si->si_code == CLD_EXITED || si->si_code == CLD_KILLED ||
		   si->si_code == CLD_DUMPED) && !clock_real())
		child_ended_signal(si->si_pid);
	if (chld_user.sa_flags & SA_SIGINFO)
		chld_user.sa_sigaction(sig, si, uc);
	else if (chld_user.sa_handler != SIG_DFL && chld_user.sa_handler != SIG_IGN)
		chld_user.sa_handler(sig);
}

int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	static int (*real)(int, const struct sigaction *, struct sigaction *);
	struct sigaction mine, prev;
	int rc;

	if (!real)
		real = (int (*)(int, const struct sigaction *, struct sigaction *))real_fn("sigaction");
	if (sig != SIGCHLD || !act || act->sa_handler == SIG_DFL || act->sa_handler == SIG_IGN) {
		rc = real(sig, act, old);
		if (!rc && sig == SIGCHLD && old && old->sa_sigaction == on_chld)
			*old = chld_user;
		if (!rc && sig == SIGCHLD && act)
			chld_user = *act;
		return rc;
	}
	mine = *act;
	mine.sa_flags |= SA_SIGINFO;
	mine.sa_sigaction = on_chld;
	rc = real(sig, &mine, &prev);
	if (rc)
		return rc;
	if (old)
		*old = prev.sa_sigaction == on_chld ? chld_user : prev;
	chld_user = *act;
	return 0;
}

sighandler_t signal(int sig, sighandler_t handler)
{
	struct sigaction sa, old;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sa.sa_flags = SA_RESTART; /* BSD semantics, as glibc's signal() */
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, sig);
	if (sigaction(sig, &sa, &old) < 0)
		return SIG_ERR;
	return old.sa_handler;
}

/*
 * The workload must not end before the tool has read its start time:
 * perf reads it after it lets the child go, and a child quicker than that
 * would end in no time at all. So each tool process shares with its
 * children (a memfd named in $FAKE_PMU_EPOCH, "fd:pid") an epoch, which
 * it moves on at each read of the fake clock, and a count of its threads
 * inside a wait or poll. A direct child of that process, as it ends,
 * waits (at most 2 s) until the epoch has moved past the one it saw at
 * its start, or its parent waits.
 */
static _Atomic uint64_t *epoch;       /* ours: [0] epoch, [1] waiting */
static _Atomic uint64_t *parent_epoch; /* our parent's, if we hold */
static uint64_t parent_epoch0;

static void epoch_bump(void)
{
	if (epoch)
		atomic_fetch_add(&epoch[0], 1);
}

static void waiting(int delta)
{
	if (epoch)
		atomic_fetch_add(&epoch[1], (uint64_t)(int64_t)delta);
}

static void hold_at_exit(void)
{
	struct timespec ts = { 0, 100000 };
	for (int i = 0; i < 20000; i++) {
		if (atomic_load(&parent_epoch[0]) > parent_epoch0 || atomic_load(&parent_epoch[1]))
			return;
		nanosleep(&ts, NULL);
	}
}

__attribute__((constructor)) static void epoch_init(void)
{
	const char *s = getenv("FAKE_PMU_EPOCH");
	char buf[64];
	int fd;
	void *p;

	if (s && strchr(s, ':') && (pid_t)atol(strchr(s, ':') + 1) == getppid()) {
		p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, atoi(s), 0);
		if (p != MAP_FAILED) {
			parent_epoch = p;
			parent_epoch0 = atomic_load(&parent_epoch[0]);
			atexit(hold_at_exit);
		}
	}
	if (clock_real())
		return;
	fd = memfd_create("fake-pmu-epoch", 0); /* inherited across exec */
	if (fd < 0 || ftruncate(fd, 4096) < 0)
		return;
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return;
	epoch = p;
	snprintf(buf, sizeof(buf), "%d:%d", fd, (int)getpid());
	setenv("FAKE_PMU_EPOCH", buf, 1);
}

int poll(struct pollfd *fds, nfds_t n, int timeout)
{
	static int (*real)(struct pollfd *, nfds_t, int);
	if (!real)
		real = (int (*)(struct pollfd *, nfds_t, int))real_fn("poll");
	int r;
	waiting(1);
	r = real(fds, n, timeout);
	waiting(-1);
	return r;
}

/* Did a wait that returned a child reap it (not a stop or continue)? */
static int reaped(const int *status, int options)
{
	if (status)
		return WIFEXITED(*status) || WIFSIGNALED(*status);
	return !(options & (WUNTRACED | WCONTINUED));
}

pid_t wait4(pid_t pid, int *status, int options, struct rusage *ru)
{
	static pid_t (*real)(pid_t, int *, int, struct rusage *);
	pid_t r;
	if (!real)
		real = (pid_t (*)(pid_t, int *, int, struct rusage *))real_fn("wait4");
	waiting(1);
	r = real(pid, status, options, ru);
	waiting(-1);
	if (r > 0 && reaped(status, options))
		child_reaped(r);
	return r;
}

pid_t waitpid(pid_t pid, int *status, int options)
{
	static pid_t (*real)(pid_t, int *, int);
	pid_t r;
	if (!real)
		real = (pid_t (*)(pid_t, int *, int))real_fn("waitpid");
	waiting(1);
	r = real(pid, status, options);
	waiting(-1);
	if (r > 0 && reaped(status, options))
		child_reaped(r);
	return r;
}

pid_t wait(int *status)
{
	return waitpid(-1, status, 0);
}

int waitid(idtype_t idtype, id_t id, siginfo_t *info, int options)
{
	static int (*real)(idtype_t, id_t, siginfo_t *, int);
	int r;
	if (!real)
		real = (int (*)(idtype_t, id_t, siginfo_t *, int))real_fn("waitid");
	waiting(1);
	r = real(idtype, id, info, options);
	waiting(-1);
	/* reaped, unless WNOWAIT left it, or WNOHANG found none */
	if (r == 0 && !(options & WNOWAIT) && info && info->si_pid > 0 &&
	    (info->si_code == CLD_EXITED || info->si_code == CLD_KILLED ||
	     info->si_code == CLD_DUMPED))
		child_reaped(info->si_pid);
	return r;
}
