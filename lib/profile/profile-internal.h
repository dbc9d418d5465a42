/* SPDX-License-Identifier: MIT */
/*
 * Room: lib/profile/ owns the profile file, written and read; may use core, sys.
 *
 * The profile file's byte layout, shared by profile-write.c and
 * profile-read.c. docs/profile-format.md is the description for people;
 * this is the one for the compiler.
 * Ownership: layouts only; nothing here allocates.
 */
#ifndef HPM_PROFILE_INTERNAL_H
#define HPM_PROFILE_INTERNAL_H

#include <stdint.h>
#include <string.h>
#include <linux/perf_event.h>
#include <hpmon/profile.h>

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the profile format is little-endian; add byte swapping for this host"
#endif

#define PROF_MAGIC "HPMPROF\0"
#define PROF_MAJOR 1
#define PROF_MINOR 0
#define PROF_MINOR_TIMELINE 2  /* written when the file holds TIMELINE records */
#define PROF_HDR_SIZE 24          /* magic, major, minor, meta_len, meta_sum, 0 */
#define PROF_META_MAX (1u << 20)
#define CHUNK_MAGIC 0x4b484348u   /* "HCHK" */
#define CHUNK_HDR_SIZE 24
#define CHUNK_DATA 1
#define CHUNK_END 2
#define CODEC_NONE 0
#define CODEC_ZSTD 1
#define CHUNK_RAW_MAX (64u << 20) /* a reader refuses larger chunks */

/* Limits a reader enforces on decoded records. */
#define PROF_MAX_CHAIN 4096
#define PROF_MAX_REGS 64
#define PROF_MAX_STACK 65536
#define PROF_MAX_STR 4096
#define PROF_MAX_EVENTS 1024

/* Record tags: the low nibble; the high nibble carries flags. */
enum {
	TAG_SAMPLE = 1, TAG_MMAP, TAG_COMM, TAG_FORK, TAG_EXIT, TAG_LOST,
	TAG_THROTTLE, TAG_UNTHROTTLE, TAG_TOTALS,
	TAG_TIMELINE1 = 10, /* minor 1's TIMELINE, read, no longer written */
	TAG_RANK = 11,      /* hpmon merge's ranks */
	TAG_TIMELINE = 12,  /* since minor 2: times in us, the span's start */
};
#define SF_TASK 0x10    /* pid and tid follow */
#define SF_CPUEV 0x20   /* cpu and event follow */
#define SF_PERIOD 0x40  /* period follows */
#define SF_MODE 0x80    /* mode byte follows */
#define CF_EXEC 0x10    /* COMM: an exec */
#define RF_TASK 0x10    /* RANK: a task of a rank, not the rank itself */
#define PROF_MAX_RANK 0x7fffffffu
/* TIMELINE's flags (both encodings) */
#define TF_FINAL 0x10   /* TIMELINE: the thread's last on that CPU */
#define TF_SAME_TASK 0x20  /* TIMELINE: pid and tid as the chunk's previous TIMELINE */
#define TF_SAME_CPUEV 0x40 /* TIMELINE: cpu and event as the previous */
#define TF_RUN_ALL 0x80    /* TIMELINE: running equals enabled (not multiplexed) */
#define TL_US 1000ull      /* TIMELINE (12): enabled and running in microseconds */
#define TL_UNIT_MAX 1000000000000ull /* a reader refuses a longer time unit */

/* Meta keys: (key << 1) | 1 for a string value, (key << 1) for a number. */
enum {
	MK_COMMAND = 1, MK_HOST, MK_ARCH, MK_CPU_MODEL, MK_KERNEL, MK_START,
	MK_CALLCHAIN, MK_PAGE_SIZE, MK_RANK, MK_JOB_SIZE, MK_JOB, MK_MERGED, MK_TIMELINE,
	MK_TIMELINE_UNIT,   /* TIMELINE (12)'s time unit, ns; absent: TL_US */
	MK_TIMELINE_MODE,   /* hpm_profile_tl_mode; absent: per thread */
	MK_EV_NAME = 16, MK_EV_TYPE, MK_EV_CONFIG, MK_EV_CONFIG1, MK_EV_CONFIG2,
	MK_EV_PERIOD, MK_EV_FREQ, MK_EV_TRIGGER, MK_EV_USER_ONLY,
	MK_EV_SAMPLE_TYPE, MK_EV_LEADER, MK_EV_GROUP_SIZE,
};

static inline uint32_t prof_sum(const unsigned char *p, size_t n)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

static inline uint64_t zz_enc(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static inline int64_t zz_dec(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

static inline void put_le32(unsigned char *p, uint32_t v) { memcpy(p, &v, 4); }
static inline uint32_t get_le32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static inline void put_le16(unsigned char *p, uint16_t v) { memcpy(p, &v, 2); }
static inline uint16_t get_le16(const unsigned char *p) { uint16_t v; memcpy(&v, p, 2); return v; }

#endif
