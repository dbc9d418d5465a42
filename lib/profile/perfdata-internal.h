/* SPDX-License-Identifier: MIT */
/*
 * Room: lib/profile/ owns the profile file, written and read; may use core, sys.
 *
 * Reading perf.data files (perf record's own format) as profiles: the
 * same meta data and the same records (struct hpm_prec) that the hpmon
 * profile reader hands out, so that everything that reads a profile reads
 * perf.data too. profile-read.c detects the magic and hands the buffer
 * here. perfdata.c reads the header, the attributes and the feature
 * sections; perfdata-rec.c the records of the data section.
 *
 * The layout is the one tools/perf/Documentation/perf.data-file-format.txt
 * and the kernel's include/uapi/linux/perf_event.h document. The input is
 * untrusted: every size and count is checked against what is left of the
 * file (or of the record) before anything is read or allocated, so memory
 * is bounded by a multiple of the file's size plus fixed buffers.
 *
 * Ownership: a struct hpm_perfdata borrows the caller's buffer (which
 * must outlive it) and owns everything else; the records it hands out
 * are valid until the next call.
 */
#ifndef HPM_PERFDATA_INTERNAL_H
#define HPM_PERFDATA_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>
#include <zstd.h>
#include <hpmon/profile.h>

#define PD_MAGIC 0x32454c4946524550ull   /* "PERFILE2" read as a native u64 */
#define PD_HDR_SIZE 104                   /* struct perf_header */
#define PD_ATTR_MIN 64                    /* PERF_ATTR_SIZE_VER0 */
#define PD_ATTR_MAX 4096
#define PD_MAX_EVENTS 1024                /* as PROF_MAX_EVENTS */
#define PD_MAX_CHAIN 4096                 /* frames kept of a call chain */
#define PD_MAX_STACK 65536                /* bytes kept of a user stack copy */
#define PD_MAX_STR 4096
#define PD_ZBUF (1u << 20)                /* decompressed records in hand */
#define PD_NR_TYPES 128                   /* record types counted */
#define PD_ROUND_MAX (64u << 20)          /* bytes of records sorted at once */

/* perf's own record types (perf.data-file-format.txt), past the kernel's. */
enum {
	PD_HEADER_ATTR = 64, PD_HEADER_EVENT_TYPE, PD_HEADER_TRACING_DATA,
	PD_HEADER_BUILD_ID, PD_FINISHED_ROUND, PD_ID_INDEX, PD_AUXTRACE_INFO,
	PD_AUXTRACE, PD_AUXTRACE_ERROR, PD_THREAD_MAP, PD_CPU_MAP, PD_STAT_CONFIG,
	PD_STAT, PD_STAT_ROUND, PD_EVENT_UPDATE, PD_TIME_CONV, PD_HEADER_FEATURE,
	PD_COMPRESSED, PD_FINISHED_INIT,
};

/* Feature bits of the header's bitmap. */
enum {
	PD_FEAT_BUILD_ID = 2, PD_FEAT_HOSTNAME, PD_FEAT_OSRELEASE, PD_FEAT_VERSION,
	PD_FEAT_ARCH, PD_FEAT_NRCPUS, PD_FEAT_CPUDESC, PD_FEAT_CPUID,
	PD_FEAT_TOTAL_MEM, PD_FEAT_CMDLINE, PD_FEAT_EVENT_DESC,
	PD_FEAT_GROUP_DESC = 17, PD_FEAT_COMPRESSED = 28,
};

struct pd_id {          /* a sample id and the attribute it belongs to */
	uint64_t id;
	uint32_t ev;
};

struct pd_ent {         /* a record of the round in hand */
	uint64_t time;
	size_t seq, off;
	uint32_t len;
};

struct pd_bid {         /* a build-id the header gives for a file name */
	const char *name;   /* in pd->strs */
	uint8_t len;
	uint8_t bid[HPM_BUILD_ID_MAX];
};

struct hpm_perfdata {
	const unsigned char *data;
	size_t size;
	struct hpm_profile_meta meta;
	struct hpm_profile_event *events;
	struct perf_event_attr *attrs;   /* [nr_events], zero-filled past their size */
	char **names;                    /* [nr_events]: owned event names */
	char *strs[8];                   /* owned header strings */
	unsigned nr_strs;
	struct pd_id *ids;               /* sorted by id */
	size_t nr_ids, cap_ids;
	struct pd_bid *bids;             /* sorted by name */
	size_t nr_bids;
	char **bid_names;                /* owned names of bids */
	size_t nr_bid_names;
	uint64_t id_type;                /* sample_type that locates ids (attr 0's) */
	unsigned skip;                   /* HPM_PROFILE_SKIP_* */

	/* the data section */
	size_t pos, end;
	bool done;
	struct hpm_profile_status st;
	uint64_t first_time, last_time;
	uint64_t counts[PD_NR_TYPES];    /* records seen by type */
	uint64_t other;                  /* records of types past PD_NR_TYPES */
	uint64_t auxtrace;               /* AUXTRACE_INFO records: the trace is not decoded */

	/* COMPRESSED records: one zstd stream across them all */
	ZSTD_DStream *zd;
	const unsigned char *zin;        /* the current record's payload */
	size_t zin_len, zin_pos;
	bool zmore;                      /* the last call filled zbuf: more may come */
	unsigned char *zbuf;             /* decompressed records */
	size_t zlen, zpos;
	bool in_z;                       /* reading from zbuf */

	/* a round (the records between two FINISHED_ROUND), copied and
	 * handed out in time order */
	unsigned char *rbuf;
	size_t rlen, rcap;
	struct pd_ent *ents;
	size_t nr_ents, cap_ents, ei;

	/* what a record hands out */
	uint64_t *chain, *values, *regs;
	unsigned char *stack;
	char str[PD_MAX_STR + 1];
};

/* 1: the buffer starts with perf.data's magic in this machine's byte
 * order; -1: in the other one; 0: not perf.data. */
int hpm__perfdata_magic(const void *buf, size_t len);
/* Read the header of @buf (borrowed). 0 and *out, or -errno: -EBADMSG
 * damaged, -EPROTONOSUPPORT the other byte order, -EOPNOTSUPP pipe mode. */
int hpm__perfdata_open(const unsigned char *buf, size_t len, struct hpm_perfdata **out);
void hpm__perfdata_free(struct hpm_perfdata *pd);
/* As hpm_profile__next. */
int hpm__perfdata_next(struct hpm_perfdata *pd, struct hpm_prec *r);
/* As hpm_profile__rectypes. */
size_t hpm__perfdata_rectypes(const struct hpm_perfdata *pd, struct hpm_profile_rectype *out,
			      size_t max);
/* perf's name of record type @type, or NULL. */
const char *hpm__perfdata_type_name(uint32_t type);

/* perfdata.c, for perfdata-rec.c: the attribute of a sample id (or
 * UINT32_MAX), a build-id the header gives for @name (NULL if none), and
 * an id added from ID_INDEX records. */
uint32_t hpm__pd_ev_of(const struct hpm_perfdata *pd, uint64_t id);
const struct pd_bid *hpm__pd_bid_of(const struct hpm_perfdata *pd, const char *name);
int hpm__pd_add_id(struct hpm_perfdata *pd, uint64_t id, uint32_t ev);
void hpm__pd_sort_ids(struct hpm_perfdata *pd);
/* An event's name changed by an EVENT_UPDATE record. */
int hpm__pd_rename(struct hpm_perfdata *pd, uint32_t ev, const char *name);

static inline uint64_t pd_u64(const unsigned char *p)
{
	uint64_t v;
	__builtin_memcpy(&v, p, 8);
	return v;
}
static inline uint32_t pd_u32(const unsigned char *p)
{
	uint32_t v;
	__builtin_memcpy(&v, p, 4);
	return v;
}

/* A bounded cursor over untrusted bytes: a read past @end marks it bad,
 * yields nothing (0 or NULL) and leaves it at the end, so a caller checks
 * once after a run of reads. The one cursor of the header's sections
 * (perfdata.c) and of the records (perfdata-rec.c). */
struct pd_cur {
	const unsigned char *p, *end;
	bool bad;
};

/* The next @n bytes, or NULL (and bad) when fewer are left. */
static inline const unsigned char *pd_take(struct pd_cur *c, uint64_t n)
{
	if ((uint64_t)(c->end - c->p) < n) {
		c->bad = true;
		c->p = c->end;
		return NULL;
	}
	const unsigned char *p = c->p;
	c->p += n;
	return p;
}

static inline uint64_t pd_take64(struct pd_cur *c)
{
	const unsigned char *p = pd_take(c, 8);
	return p ? pd_u64(p) : 0;
}

static inline uint32_t pd_take32(struct pd_cur *c)
{
	const unsigned char *p = pd_take(c, 4);
	return p ? pd_u32(p) : 0;
}
static inline uint16_t pd_u16(const unsigned char *p)
{
	uint16_t v;
	__builtin_memcpy(&v, p, 2);
	return v;
}

#endif
