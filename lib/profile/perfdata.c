/* SPDX-License-Identifier: MIT */
/*
 * perf.data: the file header, the attributes and the feature sections
 * (perfdata-internal.h). Each section's offset and size are checked
 * against the file before it is read, each count inside against the
 * section's bytes, so nothing is allocated beyond a multiple of the
 * file's size.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/perfdata-internal.h"

struct sect {
	uint64_t off, size;
};

/* A perf_header_string: u32 length, then that many bytes (NUL-padded).
 * An owned copy (at most PD_MAX_STR bytes kept), or NULL when damaged. */
static char *cur_str(struct pd_cur *c)
{
	uint32_t n = pd_take32(c);
	const unsigned char *s = pd_take(c, n);
	if (!s)
		return NULL;
	size_t k = strnlen((const char *)s, n);
	if (k > PD_MAX_STR)
		k = PD_MAX_STR;
	char *v = malloc(k + 1);
	if (v) {
		memcpy(v, s, k);
		v[k] = '\0';
	}
	return v;
}

int hpm__perfdata_magic(const void *buf, size_t len)
{
	if (len < 8)
		return 0;
	uint64_t m = pd_u64(buf);
	if (m == PD_MAGIC)
		return 1;
	if (m == __builtin_bswap64(PD_MAGIC))
		return -1;
	return 0;
}

static bool sect_ok(const struct hpm_perfdata *pd, struct sect s)
{
	return s.off <= pd->size && s.size <= pd->size - s.off;
}

static struct sect sect_at(const unsigned char *p)
{
	return (struct sect){ pd_u64(p), pd_u64(p + 8) };
}

static int keep_str(struct hpm_perfdata *pd, char *s, const char **dst)
{
	if (!s)
		return -EBADMSG;
	if (pd->nr_strs == sizeof(pd->strs) / sizeof(pd->strs[0])) {
		free(s);
		return 0;
	}
	pd->strs[pd->nr_strs++] = s;
	*dst = s;
	return 0;
}

/* HEADER_CMDLINE: a string list, joined by spaces, the words that fit in
 * PD_MAX_STR bytes. */
static int read_cmdline(struct hpm_perfdata *pd, struct pd_cur *c)
{
	uint32_t nr = pd_take32(c);
	size_t len = 0, cap = 256;
	char *out = malloc(cap);
	if (!out)
		return -ENOMEM;
	out[0] = '\0';
	for (uint32_t i = 0; i < nr && !c->bad; i++) {
		char *w = cur_str(c);
		if (!w)
			break;
		size_t k = strlen(w);
		if (len + !!len + k > PD_MAX_STR) { /* a profile's strings: 4096 bytes at most */
			free(w);
			break;
		}
		if (len + k + 2 > cap) {
			char *v = realloc(out, len + k + 2);
			if (!v) {
				free(w);
				free(out);
				return -ENOMEM;
			}
			out = v;
			cap = len + k + 2;
		}
		if (len)
			out[len++] = ' ';
		memcpy(out + len, w, k + 1);
		len += k;
		free(w);
	}
	if (c->bad) {
		free(out);
		return -EBADMSG;
	}
	return keep_str(pd, out, &pd->meta.command);
}

/* HEADER_EVENT_DESC: the events' names, in the order of the attributes. */
static int read_event_desc(struct hpm_perfdata *pd, struct pd_cur *c)
{
	uint32_t nr = pd_take32(c), asz = pd_take32(c);
	if (c->bad || asz < PD_ATTR_MIN || asz > PD_ATTR_MAX)
		return -EBADMSG;
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t nids;
		char *name;
		if (!pd_take(c, asz))
			return -EBADMSG;
		nids = pd_take32(c);
		name = cur_str(c);
		if (!name || !pd_take(c, (uint64_t)nids * 8)) {
			free(name);
			return -EBADMSG;
		}
		if (i < pd->meta.nr_events && name[0]) {
			free(pd->names[i]);
			pd->names[i] = name;
		} else {
			free(name);
		}
	}
	return 0;
}

/* HEADER_GROUP_DESC: each group's leader and size. */
static int read_group_desc(struct hpm_perfdata *pd, struct pd_cur *c)
{
	uint32_t nr = pd_take32(c);
	for (uint32_t i = 0; i < nr && !c->bad; i++) {
		free(cur_str(c));
		uint32_t lead = pd_take32(c), n = pd_take32(c);
		if (c->bad)
			break;
		if (!n || lead >= pd->meta.nr_events || n > pd->meta.nr_events - lead)
			return -EBADMSG;
		for (uint32_t k = 0; k < n; k++) {
			pd->events[lead + k].leader = lead;
			pd->events[lead + k].group_size = n;
		}
	}
	return c->bad ? -EBADMSG : 0;
}

static int bid_cmp(const void *a, const void *b)
{
	return strcmp(((const struct pd_bid *)a)->name, ((const struct pd_bid *)b)->name);
}

/* HEADER_BUILD_ID: records of (header, pid, build_id[24], filename), as
 * perf's struct perf_record_header_build_id: the id at byte 12 (after the
 * 8-byte header and the 4-byte pid), its length at byte 32 (id[20]) when
 * PERF_RECORD_MISC_BUILD_ID_SIZE says it is there, the name at 36. */
static int read_build_ids(struct hpm_perfdata *pd, struct pd_cur *c)
{
	size_t cap = (size_t)(c->end - c->p) / 36; /* the smallest record */
	if (!cap)
		return 0;
	pd->bids = calloc(cap, sizeof(*pd->bids));
	pd->bid_names = calloc(cap, sizeof(char *));
	if (!pd->bids || !pd->bid_names)
		return -ENOMEM;
	while (c->end - c->p >= 8 && pd->nr_bids < cap) {
		uint16_t misc = pd_u16(c->p + 4), size = pd_u16(c->p + 6);
		const unsigned char *r = pd_take(c, size);
		if (!r || size < 36)
			return -EBADMSG;
		size_t k = strnlen((const char *)r + 36, size - 36u);
		char *name = malloc(k + 1);
		if (!name)
			return -ENOMEM;
		memcpy(name, r + 36, k);
		name[k] = '\0';
		pd->bid_names[pd->nr_bid_names++] = name;
		struct pd_bid *b = &pd->bids[pd->nr_bids++];
		b->name = name;
		/* PERF_RECORD_MISC_BUILD_ID_SIZE: byte 20 of the id holds its length */
		b->len = misc & (1u << 15) ? r[12 + 20] : HPM_BUILD_ID_MAX;
		if (b->len > HPM_BUILD_ID_MAX)
			b->len = HPM_BUILD_ID_MAX;
		memcpy(b->bid, r + 12, b->len);
	}
	qsort(pd->bids, pd->nr_bids, sizeof(*pd->bids), bid_cmp);
	return 0;
}

const struct pd_bid *hpm__pd_bid_of(const struct hpm_perfdata *pd, const char *name)
{
	struct pd_bid key = { .name = name };
	if (!pd->nr_bids)
		return NULL;
	return bsearch(&key, pd->bids, pd->nr_bids, sizeof(key), bid_cmp);
}

static int read_feature(struct hpm_perfdata *pd, unsigned bit, struct sect s)
{
	struct pd_cur c = { pd->data + s.off, pd->data + s.off + s.size, false };
	switch (bit) {
	case PD_FEAT_HOSTNAME: return keep_str(pd, cur_str(&c), &pd->meta.host);
	case PD_FEAT_OSRELEASE: return keep_str(pd, cur_str(&c), &pd->meta.kernel);
	case PD_FEAT_ARCH: return keep_str(pd, cur_str(&c), &pd->meta.arch);
	case PD_FEAT_CPUDESC: return keep_str(pd, cur_str(&c), &pd->meta.cpu_model);
	case PD_FEAT_CMDLINE: return read_cmdline(pd, &c);
	case PD_FEAT_EVENT_DESC: return read_event_desc(pd, &c);
	case PD_FEAT_GROUP_DESC: return read_group_desc(pd, &c);
	case PD_FEAT_BUILD_ID: return read_build_ids(pd, &c);
	default: return 0; /* not needed for a report */
	}
}

/* The feature sections: a table of sections after the data, one for each
 * bit set in the header's 256-bit map, in bit order. */
static int read_features(struct hpm_perfdata *pd, struct sect data)
{
	const unsigned char *bits = pd->data + 72;
	uint64_t at = data.off + data.size;
	unsigned n = 0;

	for (unsigned b = 0; b < 256; b++)
		n += (bits[b / 8] >> (b % 8)) & 1;
	if (!n)
		return 0;
	if (at > pd->size || (uint64_t)n * 16 > pd->size - at)
		return 0; /* no table (a file perf did not finish): names stay generic */
	const unsigned char *t = pd->data + at;
	for (unsigned b = 0, i = 0; b < 256; b++) {
		if (!((bits[b / 8] >> (b % 8)) & 1))
			continue;
		struct sect s = sect_at(t + 16 * i++);
		if (!sect_ok(pd, s))
			return -EBADMSG;
		int rc = read_feature(pd, b, s);
		if (rc)
			return rc;
	}
	return 0;
}

static int id_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct pd_id *)a)->id, y = ((const struct pd_id *)b)->id;
	return x < y ? -1 : x > y;
}

int hpm__pd_add_id(struct hpm_perfdata *pd, uint64_t id, uint32_t ev)
{
	if (pd->nr_ids == pd->cap_ids) {
		size_t nc = pd->cap_ids ? pd->cap_ids * 2 : 16;
		struct pd_id *v = realloc(pd->ids, nc * sizeof(*v));
		if (!v)
			return -ENOMEM;
		pd->ids = v;
		pd->cap_ids = nc;
	}
	pd->ids[pd->nr_ids++] = (struct pd_id){ id, ev };
	return 0;
}

void hpm__pd_sort_ids(struct hpm_perfdata *pd)
{
	if (pd->nr_ids > 1)
		qsort(pd->ids, pd->nr_ids, sizeof(*pd->ids), id_cmp);
}

uint32_t hpm__pd_ev_of(const struct hpm_perfdata *pd, uint64_t id)
{
	size_t lo = 0, hi = pd->nr_ids;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (pd->ids[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < pd->nr_ids && pd->ids[lo].id == id ? pd->ids[lo].ev : UINT32_MAX;
}

int hpm__pd_rename(struct hpm_perfdata *pd, uint32_t ev, const char *name)
{
	char *v = strdup(name);
	if (!v)
		return -ENOMEM;
	free(pd->names[ev]);
	pd->names[ev] = v;
	pd->events[ev].name = v;
	return 0;
}

/* The attributes section: entries of @esz bytes (the header's attr_size,
 * which perf counts with the section that follows the attribute), each a
 * perf_event_attr and the section of its ids. */
static int read_attrs(struct hpm_perfdata *pd, uint64_t esz, struct sect s)
{
	uint64_t asz = esz - 16, n = s.size / esz;
	if (!n || n > PD_MAX_EVENTS || s.size % esz)
		return -EBADMSG;
	pd->meta.nr_events = (uint32_t)n;
	pd->events = calloc(n, sizeof(*pd->events));
	pd->attrs = calloc(n, sizeof(*pd->attrs));
	pd->names = calloc(n, sizeof(char *));
	if (!pd->events || !pd->attrs || !pd->names)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		const unsigned char *a = pd->data + s.off + i * esz;
		struct perf_event_attr *at = &pd->attrs[i];
		memcpy(at, a, asz < sizeof(*at) ? asz : sizeof(*at));
		struct sect ids = sect_at(a + asz);
		/* sections may overlap: no more ids than the file has words */
		if (!sect_ok(pd, ids) || ids.size % 8 || pd->nr_ids + ids.size / 8 > pd->size / 8)
			return -EBADMSG;
		for (uint64_t k = 0; k < ids.size / 8; k++)
			if (hpm__pd_add_id(pd, pd_u64(pd->data + ids.off + 8 * k), i))
				return -ENOMEM;
		struct hpm_profile_event *e = &pd->events[i];
		e->type = at->type;
		e->config = at->config;
		e->config1 = at->config1;
		e->config2 = at->config2;
		e->period = at->sample_period;
		e->freq = at->freq;
		/* a group member read at its leader's samples has no period;
		 * a dummy only carries side-band records */
		e->trigger = (at->sample_period || at->freq) &&
			     !(at->type == PERF_TYPE_SOFTWARE && at->config == PERF_COUNT_SW_DUMMY);
		e->user_only = at->exclude_kernel;
		e->sample_type = at->sample_type;
		e->leader = i;
		e->group_size = 1;
		if (at->sample_type & PERF_SAMPLE_CALLCHAIN)
			pd->meta.callchain = 1;
		if ((at->sample_type & PERF_SAMPLE_STACK_USER) && at->sample_stack_user)
			pd->meta.callchain = 2;
	}
	hpm__pd_sort_ids(pd);
	pd->id_type = pd->attrs[0].sample_type;
	return 0;
}

/* A name for an event the header does not name (a file perf did not
 * finish has no feature sections): perf's for the generic events. */
static const char *generic_name(const struct perf_event_attr *a)
{
	static const char *const hw[] = {
		"cycles", "instructions", "cache-references", "cache-misses", "branches",
		"branch-misses", "bus-cycles", "stalled-cycles-frontend", "stalled-cycles-backend",
		"ref-cycles",
	};
	static const char *const sw[] = {
		"cpu-clock", "task-clock", "page-faults", "context-switches", "cpu-migrations",
		"minor-faults", "major-faults", "alignment-faults", "emulation-faults", "dummy",
		"bpf-output", "cgroup-switches",
	};
	if (a->type == PERF_TYPE_HARDWARE && a->config < sizeof(hw) / sizeof(hw[0]))
		return hw[a->config];
	if (a->type == PERF_TYPE_SOFTWARE && a->config < sizeof(sw) / sizeof(sw[0]))
		return sw[a->config];
	return "unknown";
}

static int setup(struct hpm_perfdata *pd)
{
	const unsigned char *h = pd->data;
	int rc;

	if (pd->size >= 16 && pd_u64(h + 8) == 16)
		return -EOPNOTSUPP; /* pipe mode: the header is in records */
	if (pd->size < PD_HDR_SIZE || pd_u64(h + 8) < PD_HDR_SIZE)
		return -EBADMSG;
	uint64_t asz = pd_u64(h + 16);
	struct sect attrs = sect_at(h + 24), data = sect_at(h + 40);
	if (asz < PD_ATTR_MIN + 16 || asz > PD_ATTR_MAX || !sect_ok(pd, attrs))
		return -EBADMSG;
	if (data.off > pd->size)
		return -EBADMSG;
	if ((rc = read_attrs(pd, asz, attrs)))
		return rc;
	pd->pos = data.off;
	if (!data.size && pd->size > data.off) {
		/* perf writes the data size when it finishes */
		pd->end = pd->size;
		pd->st.truncated = true;
	} else {
		pd->end = data.size <= pd->size - data.off ? data.off + data.size : pd->size;
		if (data.size > pd->size - data.off) {
			pd->st.truncated = true;
			snprintf(pd->st.what, sizeof(pd->st.what), "the data section is cut at byte "
				 "%zu: %llu bytes of it are missing", pd->size,
				 (unsigned long long)(data.size - (pd->size - data.off)));
		}
		if ((rc = read_features(pd, data)))
			return rc;
	}
	for (uint32_t i = 0; i < pd->meta.nr_events; i++) {
		pd->events[i].name = pd->names[i] ? pd->names[i] : generic_name(&pd->attrs[i]);
	}
#define S(f) if (!pd->meta.f) pd->meta.f = ""
	S(command);
	S(host);
	S(arch);
	S(cpu_model);
	S(kernel);
#undef S
	pd->meta.sz = sizeof(pd->meta);
	pd->meta.timeline_mode = HPM_PROFILE_TL_THREADS; /* it has no hpmon timeline */
	pd->meta.events = pd->events;
	pd->st.file_bytes = pd->size;
	pd->st.good_bytes = pd->pos;
	pd->chain = calloc(PD_MAX_CHAIN, sizeof(uint64_t));
	pd->values = calloc(PD_MAX_EVENTS, sizeof(uint64_t));
	pd->regs = calloc(64, sizeof(uint64_t));
	if (!pd->chain || !pd->values || !pd->regs)
		return -ENOMEM;
	return 0;
}

int hpm__perfdata_open(const unsigned char *buf, size_t len, struct hpm_perfdata **out)
{
	int rc, m = hpm__perfdata_magic(buf, len);
	*out = NULL;
	if (m < 0)
		return -EPROTONOSUPPORT;
	if (!m)
		return -EBADMSG;
	struct hpm_perfdata *pd = calloc(1, sizeof(*pd));
	if (!pd)
		return -ENOMEM;
	pd->data = buf;
	pd->size = len;
	if ((rc = setup(pd))) {
		hpm__perfdata_free(pd);
		return rc;
	}
	*out = pd;
	return 0;
}

void hpm__perfdata_free(struct hpm_perfdata *pd)
{
	if (!pd)
		return;
	for (uint32_t i = 0; pd->names && i < pd->meta.nr_events; i++)
		free(pd->names[i]);
	free(pd->names);
	for (unsigned i = 0; i < pd->nr_strs; i++)
		free(pd->strs[i]);
	for (size_t i = 0; i < pd->nr_bid_names; i++)
		free(pd->bid_names[i]);
	free(pd->bid_names);
	free(pd->bids);
	free(pd->ids);
	free(pd->events);
	free(pd->attrs);
	ZSTD_freeDStream(pd->zd);
	free(pd->rbuf);
	free(pd->ents);
	free(pd->zbuf);
	free(pd->chain);
	free(pd->values);
	free(pd->regs);
	free(pd->stack);
	free(pd);
}

const char *hpm__perfdata_type_name(uint32_t type)
{
	static const char *const names[] = {
		[PERF_RECORD_MMAP] = "MMAP", [PERF_RECORD_LOST] = "LOST",
		[PERF_RECORD_COMM] = "COMM", [PERF_RECORD_EXIT] = "EXIT",
		[PERF_RECORD_THROTTLE] = "THROTTLE", [PERF_RECORD_UNTHROTTLE] = "UNTHROTTLE",
		[PERF_RECORD_FORK] = "FORK", [PERF_RECORD_READ] = "READ",
		[PERF_RECORD_SAMPLE] = "SAMPLE", [PERF_RECORD_MMAP2] = "MMAP2",
		[PERF_RECORD_AUX] = "AUX", [PERF_RECORD_ITRACE_START] = "ITRACE_START",
		[PERF_RECORD_LOST_SAMPLES] = "LOST_SAMPLES", [PERF_RECORD_SWITCH] = "SWITCH",
		[PERF_RECORD_SWITCH_CPU_WIDE] = "SWITCH_CPU_WIDE",
		[PERF_RECORD_NAMESPACES] = "NAMESPACES", [PERF_RECORD_KSYMBOL] = "KSYMBOL",
		[PERF_RECORD_BPF_EVENT] = "BPF_EVENT", [PERF_RECORD_CGROUP] = "CGROUP",
		[PERF_RECORD_TEXT_POKE] = "TEXT_POKE", [21] = "AUX_OUTPUT_HW_ID",
		[PD_HEADER_ATTR] = "HEADER_ATTR", [PD_HEADER_EVENT_TYPE] = "HEADER_EVENT_TYPE",
		[PD_HEADER_TRACING_DATA] = "HEADER_TRACING_DATA",
		[PD_HEADER_BUILD_ID] = "BUILD_ID", [PD_FINISHED_ROUND] = "FINISHED_ROUND",
		[PD_ID_INDEX] = "ID_INDEX", [PD_AUXTRACE_INFO] = "AUXTRACE_INFO",
		[PD_AUXTRACE] = "AUXTRACE", [PD_AUXTRACE_ERROR] = "AUXTRACE_ERROR",
		[PD_THREAD_MAP] = "THREAD_MAP", [PD_CPU_MAP] = "CPU_MAP",
		[PD_STAT_CONFIG] = "STAT_CONFIG", [PD_STAT] = "STAT",
		[PD_STAT_ROUND] = "STAT_ROUND", [PD_EVENT_UPDATE] = "EVENT_UPDATE",
		[PD_TIME_CONV] = "TIME_CONV", [PD_HEADER_FEATURE] = "HEADER_FEATURE",
		[PD_COMPRESSED] = "COMPRESSED", [PD_FINISHED_INIT] = "FINISHED_INIT",
	};
	return type < sizeof(names) / sizeof(names[0]) ? names[type] : NULL;
}
