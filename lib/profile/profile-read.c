/* SPDX-License-Identifier: MIT */
/*
 * Reading profiles (include/hpmon/profile.h, docs/profile-format.md): the
 * file, its header and its chunks; profile-records.c reads the records.
 *
 * The input is untrusted: every length is checked against what is left,
 * every count against a fixed limit, before anything is allocated or
 * copied. A chunk that is cut or fails its checksum ends the records, and
 * the status says where and why; nothing before it is lost.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "core/file-internal.h"
#include "profile/perfdata-internal.h"
#include "profile/profile-reader-internal.h"


const char *hpm_mode__str(enum hpm_mode m)
{
	switch (m) {
	case HPM_MODE_KERNEL: return "kernel";
	case HPM_MODE_USER: return "user";
	case HPM_MODE_HV: return "hypervisor";
	case HPM_MODE_GUEST_KERNEL: return "guest-kernel";
	case HPM_MODE_GUEST_USER: return "guest-user";
	default: return "unknown";
	}
}

/* ---- the header ---- */

/* Keep a header string; returns its offset in p->strings or -1. */
static long keep_str(struct hpm_profile *p, const char *s)
{
	size_t n = strlen(s) + 1;
	if (p->str_len + n > p->str_cap) {
		size_t nc = p->str_cap ? p->str_cap * 2 : 1024;
		while (nc < p->str_len + n)
			nc *= 2;
		char *v = realloc(p->strings, nc);
		if (!v)
			return -1;
		p->strings = v;
		p->str_cap = nc;
	}
	memcpy(p->strings + p->str_len, s, n);
	p->str_len += n;
	return (long)(p->str_len - n);
}

/* Offsets are kept while parsing (the string area moves as it grows). */
struct meta_offs {
	long command, host, arch, cpu_model, kernel, job;
	long *ev_name;
};

static int parse_meta(struct hpm_profile *p, const unsigned char *m, size_t len)
{
	struct cur c = { m, m + len, false };
	struct meta_offs o = { -1, -1, -1, -1, -1, -1, NULL };
	size_t cap = 0;
	long ev = -1;
	int rc = -EBADMSG;

	while (c.p < c.end && !c.bad) {
		uint64_t key = get_var(&c);
		if (key & 1) {
			get_str(&c, p->str);
			if (c.bad)
				break;
			long off = keep_str(p, p->str);
			if (off < 0) {
				rc = -ENOMEM;
				goto out;
			}
			switch (key >> 1) {
			case MK_COMMAND: o.command = off; break;
			case MK_HOST: o.host = off; break;
			case MK_ARCH: o.arch = off; break;
			case MK_CPU_MODEL: o.cpu_model = off; break;
			case MK_KERNEL: o.kernel = off; break;
			case MK_JOB: o.job = off; break;
			case MK_EV_NAME:
				if (p->meta.nr_events >= PROF_MAX_EVENTS)
					goto out;
				if (p->meta.nr_events == cap) {
					size_t nc = cap ? cap * 2 : 8;
					struct hpm_profile_event *v = realloc(p->events, nc * sizeof(*v));
					long *nv = v ? realloc(o.ev_name, nc * sizeof(*nv)) : NULL;
					if (v)
						p->events = v;
					if (!v || !nv) {
						rc = -ENOMEM;
						goto out;
					}
					o.ev_name = nv;
					cap = nc;
				}
				ev = (long)p->meta.nr_events++;
				memset(&p->events[ev], 0, sizeof(p->events[ev]));
				p->events[ev].leader = (uint32_t)ev;
				p->events[ev].group_size = 1;
				o.ev_name[ev] = off;
				break;
			default:
				break; /* a newer writer's string: skipped */
			}
			continue;
		}
		uint64_t v = get_var(&c);
		struct hpm_profile_event *e = ev >= 0 ? &p->events[ev] : NULL;
		switch (key >> 1) {
		case MK_START: p->meta.start_unix_ns = v; break;
		case MK_CALLCHAIN: p->meta.callchain = (uint32_t)v; break;
		case MK_PAGE_SIZE: p->meta.page_size = (uint32_t)v; break;
		case MK_RANK:
			p->meta.has_rank = v <= UINT32_MAX;
			p->meta.rank = (uint32_t)v;
			break;
		case MK_JOB_SIZE: p->meta.job_size = v <= UINT32_MAX ? (uint32_t)v : 0; break;
		case MK_MERGED: p->meta.merged = v != 0; break;
		case MK_TIMELINE: p->meta.timeline_ns = v; break;
		case MK_TIMELINE_UNIT:
			c.bad |= !v || v > TL_UNIT_MAX;
			p->tl_unit = v;
			break;
		case MK_TIMELINE_MODE:
			/* a mode of a newer writer reads as the default */
			p->meta.timeline_mode = v == HPM_PROFILE_TL_PROCESS ? HPM_PROFILE_TL_PROCESS
									 : HPM_PROFILE_TL_THREADS;
			break;
		default:
			if (!e || key >> 1 < MK_EV_TYPE)
				break;
			switch (key >> 1) {
			case MK_EV_TYPE: e->type = (uint32_t)v; break;
			case MK_EV_CONFIG: e->config = v; break;
			case MK_EV_CONFIG1: e->config1 = v; break;
			case MK_EV_CONFIG2: e->config2 = v; break;
			case MK_EV_PERIOD: e->period = v; break;
			case MK_EV_FREQ: e->freq = v != 0; break;
			case MK_EV_TRIGGER: e->trigger = v != 0; break;
			case MK_EV_USER_ONLY: e->user_only = v != 0; break;
			case MK_EV_SAMPLE_TYPE: e->sample_type = v; break;
			case MK_EV_LEADER: e->leader = (uint32_t)v; break;
			case MK_EV_GROUP_SIZE: e->group_size = (uint32_t)v; break;
			default: break;
			}
		}
	}
	if (c.bad || !p->meta.nr_events)
		goto out;
	p->max_group = 1;
	for (uint32_t i = 0; i < p->meta.nr_events; i++) {
		struct hpm_profile_event *e = &p->events[i];
		if (e->leader >= p->meta.nr_events || e->group_size < 1 ||
		    e->group_size > p->meta.nr_events)
			goto out;
		if (e->group_size > p->max_group)
			p->max_group = e->group_size;
		e->name = p->strings + o.ev_name[i];
	}
#define S(f) p->meta.f = o.f >= 0 ? p->strings + o.f : ""
	S(command);
	S(host);
	S(arch);
	S(cpu_model);
	S(kernel);
	S(job);
#undef S
	p->meta.sz = sizeof(p->meta);
	p->meta.events = p->events;
	rc = 0;
out:
	free(o.ev_name);
	return rc;
}

static int setup(struct hpm_profile *p)
{
	if (p->size < PROF_HDR_SIZE || memcmp(p->data, PROF_MAGIC, 8))
		return -EBADMSG;
	if (get_le16(p->data + 8) != PROF_MAJOR)
		return -EPROTO;
	uint32_t mlen = get_le32(p->data + 12);
	if (mlen > PROF_META_MAX || mlen > p->size - PROF_HDR_SIZE)
		return -EBADMSG;
	const unsigned char *m = p->data + PROF_HDR_SIZE;
	if (prof_sum(m, mlen) != get_le32(p->data + 16))
		return -EBADMSG;
	p->tl_unit = TL_US;
	p->meta.timeline_mode = HPM_PROFILE_TL_THREADS; /* what files without key 15 mean */
	int rc = parse_meta(p, m, mlen);
	if (rc)
		return rc;
	p->d.vals = calloc((size_t)p->meta.nr_events * p->max_group, sizeof(uint64_t));
	p->d.tl_vals = calloc(p->meta.nr_events ? p->meta.nr_events : 1, sizeof(uint64_t));
	p->vals_out = calloc(p->max_group, sizeof(uint64_t));
	p->d.chain = calloc(PROF_MAX_CHAIN, sizeof(uint64_t));
	p->chain = calloc(PROF_MAX_CHAIN, sizeof(uint64_t));
	p->regs = calloc(PROF_MAX_REGS, sizeof(uint64_t));
	if (!p->d.vals || !p->d.tl_vals || !p->vals_out || !p->d.chain || !p->chain || !p->regs)
		return -ENOMEM;
	p->pos = PROF_HDR_SIZE + mlen;
	p->st.good_bytes = p->pos;
	p->st.file_bytes = p->size;
	return 0;
}

int hpm_profile__open_mem(const void *buf, size_t len, struct hpm_profile **out)
{
	struct hpm_profile *p = calloc(1, sizeof(*p));
	int rc;

	*out = NULL;
	if (!p)
		return -ENOMEM;
	p->data = buf;
	p->size = len;
	if (hpm__perfdata_magic(buf, len))
		rc = hpm__perfdata_open(buf, len, &p->pd);
	else
		rc = setup(p);
	if (rc) {
		hpm_profile__free(p);
		return rc;
	}
	*out = p;
	return 0;
}

int hpm_profile__open(const char *path, struct hpm_profile **out)
{
	struct stat sb;
	void *map = NULL;
	int fd, rc;

	*out = NULL;
	fd = hpm__open_input(path, 0, NULL); /* a FIFO would block the open */
	if (fd < 0)
		return fd;
	if (fstat(fd, &sb)) {
		rc = -errno;
		close(fd);
		return rc;
	}
	if (sb.st_size > 0) {
		map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map == MAP_FAILED) {
			rc = -errno;
			close(fd);
			return rc;
		}
	}
	close(fd);
	rc = hpm_profile__open_mem(map ? map : "", map ? (size_t)sb.st_size : 0, out);
	if (rc) {
		if (map)
			munmap(map, (size_t)sb.st_size);
		return rc;
	}
	(*out)->map = map;
	(*out)->map_len = (size_t)sb.st_size;
	return 0;
}

void hpm_profile__free(struct hpm_profile *p)
{
	if (!p)
		return;
	if (p->map)
		munmap(p->map, p->map_len);
	hpm__perfdata_free(p->pd);
	free(p->events);
	free(p->strings);
	ZSTD_freeDCtx(p->zd);
	free(p->raw);
	free(p->d.chain);
	free(p->d.vals);
	free(p->d.tl_vals);
	free(p->chain);
	free(p->vals_out);
	free(p->regs);
	free(p->stack);
	free(p);
}

const struct hpm_profile_meta *hpm_profile__meta(const struct hpm_profile *p)
{
	return p->pd ? &p->pd->meta : &p->meta;
}

void hpm_profile__skip(struct hpm_profile *p, unsigned what)
{
	p->skip = what & (HPM_PROFILE_SKIP_CHAINS | HPM_PROFILE_SKIP_STACKS);
	if (p->pd)
		p->pd->skip = p->skip;
}

const struct hpm_profile_status *hpm_profile__status(const struct hpm_profile *p)
{
	return p->pd ? &p->pd->st : &p->st;
}

const char *hpm_profile__format(const struct hpm_profile *p)
{
	return p->pd ? "perf.data" : "hpmon";
}

size_t hpm_profile__rectypes(const struct hpm_profile *p, struct hpm_profile_rectype *out,
			     size_t max)
{
	return p->pd ? hpm__perfdata_rectypes(p->pd, out, max) : 0;
}

/* ---- chunks ---- */

void profile__stop(struct hpm_profile *p, bool truncated, const char *fmt, uint64_t a, uint64_t b)
{
	p->done = true;
	if (truncated)
		p->st.truncated = true;
	else
		p->st.corrupt = true;
	snprintf(p->st.what, sizeof(p->st.what), fmt, a, b);
}

static void reset_dec(struct hpm_profile *p)
{
	struct dec *d = &p->d;
	memset(d->vals, 0, (size_t)p->meta.nr_events * p->max_group * sizeof(uint64_t));
	if (d->tl_vals)
		memset(d->tl_vals, 0, (size_t)p->meta.nr_events * sizeof(uint64_t));
	d->tl_pid = d->tl_tid = 0;
	d->tl_cpu = d->tl_ev = 0;
	d->tl_enabled = 0;
	d->tl_time = d->tl_enabled_us = 0;
	d->time = d->ip = d->period = 0;
	d->pid = d->tid = 0;
	d->cpu = d->ev = 0;
	d->mode = HPM_MODE_UNKNOWN;
	d->nr_chain = 0;
}

static void read_totals(struct hpm_profile *p);

bool profile__next_chunk(struct hpm_profile *p)
{
	while (!p->done) {
		size_t left = p->size - p->pos;
		if (!left) {
			p->done = true;
			snprintf(p->st.what, sizeof(p->st.what),
				 "the file ends after %" PRIu64 " chunks without its end "
				 "record: the recorder did not finish (killed?)", p->st.chunks);
			p->st.truncated = true;
			return false;
		}
		if (left < CHUNK_HDR_SIZE) {
			profile__stop(p, true, "the file is cut at byte %" PRIu64 ", inside a chunk header "
			              "(%" PRIu64 " bytes of it)", p->size, left);
			return false;
		}
		const unsigned char *h = p->data + p->pos;
		uint32_t raw = get_le32(h + 8), comp = get_le32(h + 12);
		if (get_le32(h) != CHUNK_MAGIC || (h[4] != CHUNK_DATA && h[4] != CHUNK_END) ||
		    h[5] > CODEC_ZSTD || raw > CHUNK_RAW_MAX ||
		    (h[5] == CODEC_NONE && raw != comp)) {
			profile__stop(p, false, "bad chunk header at byte %" PRIu64 " (chunk %" PRIu64 ")",
			              p->pos, p->st.chunks + 1);
			return false;
		}
		if (comp > left - CHUNK_HDR_SIZE) {
			profile__stop(p, true, "the file is cut at byte %" PRIu64 ", inside chunk %" PRIu64,
			              p->size, p->st.chunks + 1);
			return false;
		}
		const unsigned char *payload = h + CHUNK_HDR_SIZE;
		if (prof_sum(payload, comp) != get_le32(h + 20)) {
			profile__stop(p, false, "chunk %" PRIu64 " at byte %" PRIu64 " fails its checksum",
			              p->st.chunks + 1, p->pos);
			return false;
		}
		if (raw > p->raw_cap) {
			unsigned char *v = realloc(p->raw, raw);
			if (!v) {
				profile__stop(p, false, "out of memory for chunk %" PRIu64 " (%" PRIu64 " bytes)",
				              p->st.chunks + 1, raw);
				return false;
			}
			p->raw = v;
			p->raw_cap = raw;
		}
		if (h[5] == CODEC_ZSTD && !p->zd && !(p->zd = ZSTD_createDCtx())) {
			profile__stop(p, false, "out of memory for chunk %" PRIu64 " (%" PRIu64 " bytes)",
			              p->st.chunks + 1, raw);
			return false;
		}
		if (h[5] == CODEC_ZSTD) {
			size_t n = ZSTD_decompressDCtx(p->zd, p->raw, raw, payload, comp);
			if (ZSTD_isError(n) || n != raw) {
				profile__stop(p, false, "chunk %" PRIu64 " at byte %" PRIu64 " does not decompress",
				              p->st.chunks + 1, p->pos);
				return false;
			}
		} else if (raw) {
			memcpy(p->raw, payload, raw);
		}
		p->pos += CHUNK_HDR_SIZE + comp;
		p->st.raw_bytes += raw;
		p->raw_len = raw;
		p->rpos = 0;
		p->left = get_le32(h + 16);
		reset_dec(p);
		if (h[4] == CHUNK_END) {
			read_totals(p);
			return false;
		}
		p->st.chunks++;
		p->st.good_bytes = p->pos;
		if (p->left)
			return true;
	}
	return false;
}

static void read_totals(struct hpm_profile *p)
{
	struct cur c = { p->raw, p->raw + p->raw_len, false };
	struct hpm_profile_totals *t = &p->st.totals;

	p->done = true;
	unsigned tag = get_byte(&c);
	if (tag != TAG_TOTALS) {
		profile__stop(p, false, "the end chunk before byte %" PRIu64 " holds no totals (tag %" PRIu64 ")",
		              p->pos, tag);
		return;
	}
	t->samples = get_var(&c);
	t->lost = get_var(&c);
	t->lost_samples = get_var(&c);
	t->throttled = get_var(&c);
	t->duration_ns = get_var(&c);
	t->exit_status = (int)zz_dec(get_var(&c));
	if (c.bad) {
		memset(t, 0, sizeof(*t));
		profile__stop(p, false, "the end chunk before byte %" PRIu64 " is damaged (%" PRIu64
		              " bytes)", p->pos, p->raw_len);
		return;
	}
	p->st.complete = true;
	p->st.good_bytes = p->pos;
	p->st.what[0] = '\0';
}
