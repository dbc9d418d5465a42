/* SPDX-License-Identifier: MIT */
/*
 * A perf_event_attr as text, as perf -vv prints it (hpmon/event.h:
 * hpm_attr__format, hpm_attr__format_open), so that the attrs hpmon opens
 * and perf's can be compared line by line. perf 6.1 prints each field
 * that is not zero, by its name and in the order of
 * util/perf_event_attr_fprintf.c, between two lines of 60 '-'
 * (util/evsel.c, display_attr), then one line per perf_event_open call.
 * The names, the order, the flags' names and the formats are perf's;
 * the code is hpmon's. Bits of a flags field that perf 6.1 has no name
 * for are left out, as perf leaves them out.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <hpmon/event.h>

/* Text appended to a caller's buffer; @need counts what the whole takes. */
struct out {
	char *buf;
	size_t len, need;
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct out *o, const char *fmt, ...)
{
	size_t room = o->need < o->len ? o->len - o->need : 0;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(room ? o->buf + o->need : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->need += (size_t)n;
}

struct bit_name {
	uint64_t bit;
	const char *name;
};

#define B(prefix, n) { prefix##n, #n }

static const struct bit_name sample_type_names[] = {
	B(PERF_SAMPLE_, IP), B(PERF_SAMPLE_, TID), B(PERF_SAMPLE_, TIME),
	B(PERF_SAMPLE_, ADDR), B(PERF_SAMPLE_, READ), B(PERF_SAMPLE_, CALLCHAIN),
	B(PERF_SAMPLE_, ID), B(PERF_SAMPLE_, CPU), B(PERF_SAMPLE_, PERIOD),
	B(PERF_SAMPLE_, STREAM_ID), B(PERF_SAMPLE_, RAW), B(PERF_SAMPLE_, BRANCH_STACK),
	B(PERF_SAMPLE_, REGS_USER), B(PERF_SAMPLE_, STACK_USER), B(PERF_SAMPLE_, IDENTIFIER),
	B(PERF_SAMPLE_, REGS_INTR), B(PERF_SAMPLE_, DATA_SRC), B(PERF_SAMPLE_, WEIGHT),
	B(PERF_SAMPLE_, PHYS_ADDR), B(PERF_SAMPLE_, AUX), B(PERF_SAMPLE_, CGROUP),
	B(PERF_SAMPLE_, DATA_PAGE_SIZE), B(PERF_SAMPLE_, CODE_PAGE_SIZE),
	B(PERF_SAMPLE_, WEIGHT_STRUCT), { 0, NULL },
};

static const struct bit_name branch_type_names[] = {
	B(PERF_SAMPLE_BRANCH_, USER), B(PERF_SAMPLE_BRANCH_, KERNEL), B(PERF_SAMPLE_BRANCH_, HV),
	B(PERF_SAMPLE_BRANCH_, ANY), B(PERF_SAMPLE_BRANCH_, ANY_CALL),
	B(PERF_SAMPLE_BRANCH_, ANY_RETURN), B(PERF_SAMPLE_BRANCH_, IND_CALL),
	B(PERF_SAMPLE_BRANCH_, ABORT_TX), B(PERF_SAMPLE_BRANCH_, IN_TX),
	B(PERF_SAMPLE_BRANCH_, NO_TX), B(PERF_SAMPLE_BRANCH_, COND),
	B(PERF_SAMPLE_BRANCH_, CALL_STACK), B(PERF_SAMPLE_BRANCH_, IND_JUMP),
	B(PERF_SAMPLE_BRANCH_, CALL), B(PERF_SAMPLE_BRANCH_, NO_FLAGS),
	B(PERF_SAMPLE_BRANCH_, NO_CYCLES), B(PERF_SAMPLE_BRANCH_, TYPE_SAVE),
	B(PERF_SAMPLE_BRANCH_, HW_INDEX), B(PERF_SAMPLE_BRANCH_, PRIV_SAVE), { 0, NULL },
};

static const struct bit_name read_format_names[] = {
	B(PERF_FORMAT_, TOTAL_TIME_ENABLED), B(PERF_FORMAT_, TOTAL_TIME_RUNNING),
	B(PERF_FORMAT_, ID), B(PERF_FORMAT_, GROUP), B(PERF_FORMAT_, LOST), { 0, NULL },
};

#undef B

/* One field's line: its name padded to 32, a space, the value. */
static void field(struct out *o, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void field(struct out *o, const char *name, const char *fmt, ...)
{
	char val[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(val, sizeof(val), fmt, ap);
	va_end(ap);
	put(o, "  %-32s %s\n", name, val);
}

static void bits(struct out *o, const char *name, uint64_t v, const struct bit_name *t)
{
	char val[512];
	size_t n = 0;

	val[0] = '\0';
	for (; t->name; t++)
		if ((v & t->bit) && n < sizeof(val)) {
			int w = snprintf(val + n, sizeof(val) - n, "%s%s", n ? "|" : "", t->name);
			n += w > 0 ? (size_t)w : 0;
		}
	field(o, name, "%s", val);
}

#define U(f)                                                                           \
	do {                                                                           \
		if (a->f)                                                              \
			field(&o, #f, "%" PRIu64, (uint64_t)a->f);                     \
	} while (0)
#define UN(name, f)                                                                    \
	do {                                                                           \
		if (a->f)                                                              \
			field(&o, name, "%" PRIu64, (uint64_t)a->f);                   \
	} while (0)
#define X(name, f)                                                                     \
	do {                                                                           \
		if (a->f)                                                              \
			field(&o, name, "%#" PRIx64, (uint64_t)a->f);                  \
	} while (0)

size_t hpm_attr__format(char *buf, size_t len, const struct perf_event_attr *a)
{
	static const char dashes[] =
		"------------------------------------------------------------";
	struct out o = { .buf = buf, .len = len };

	_Static_assert(sizeof(dashes) == 61, "perf's line is 60 '-'");
	if (buf && len)
		buf[0] = '\0';
	put(&o, "%s\nperf_event_attr:\n", dashes);
	U(type);
	U(size);
	X("config", config);
	UN("{ sample_period, sample_freq }", sample_period);
	if (a->sample_type)
		bits(&o, "sample_type", a->sample_type, sample_type_names);
	if (a->read_format)
		bits(&o, "read_format", a->read_format, read_format_names);
	U(disabled);
	U(inherit);
	U(pinned);
	U(exclusive);
	U(exclude_user);
	U(exclude_kernel);
	U(exclude_hv);
	U(exclude_idle);
	U(mmap);
	U(comm);
	U(freq);
	U(inherit_stat);
	U(enable_on_exec);
	U(task);
	U(watermark);
	U(precise_ip);
	U(mmap_data);
	U(sample_id_all);
	U(exclude_host);
	U(exclude_guest);
	U(exclude_callchain_kernel);
	U(exclude_callchain_user);
	U(mmap2);
	U(comm_exec);
	U(use_clockid);
	U(context_switch);
	U(write_backward);
	U(namespaces);
	U(ksymbol);
	U(bpf_event);
	U(aux_output);
	U(cgroup);
	U(text_poke);
	U(build_id);
	U(inherit_thread);
	U(remove_on_exec);
	U(sigtrap);
	UN("{ wakeup_events, wakeup_watermark }", wakeup_events);
	U(bp_type);
	X("{ bp_addr, config1 }", bp_addr);
	X("{ bp_len, config2 }", bp_len);
	if (a->branch_sample_type)
		bits(&o, "branch_sample_type", a->branch_sample_type, branch_type_names);
	X("sample_regs_user", sample_regs_user);
	U(sample_stack_user);
	if (a->clockid)
		field(&o, "clockid", "%" PRId64, (int64_t)a->clockid);
	X("sample_regs_intr", sample_regs_intr);
	U(aux_watermark);
	U(sample_max_stack);
	U(aux_sample_size);
	U(sig_data);
	put(&o, "%s\n", dashes);
	return o.need;
}

#undef U
#undef UN
#undef X

size_t hpm_attr__format_open(char *buf, size_t len, int pid, int cpu, int group_fd,
			     unsigned long flags, int fd)
{
	struct out o = { .buf = buf, .len = len };

	if (buf && len)
		buf[0] = '\0';
	put(&o, "sys_perf_event_open: pid %d  cpu %d  group_fd %d  flags %#lx", pid, cpu,
	    group_fd, flags);
	if (fd >= 0)
		put(&o, " = %d\n", fd);
	else
		put(&o, "\nsys_perf_event_open failed, error %d\n", fd);
	return o.need;
}
