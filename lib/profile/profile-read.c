/* SPDX-License-Identifier: MIT */
/*
 * Reading profiles (include/hpmon/profile.h, docs/profile-format.md).
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
#include "profile/profile-internal.h"

struct dec {
	uint64_t time, ip, period;
	pid_t pid, tid;
	uint32_t cpu, ev;
	enum hpm_mode mode;
	uint64_t *chain;         /* the previous sample's chain */
	uint32_t nr_chain;
	uint64_t *vals;          /* [ev * max_group + k] */
};

struct hpm_profile {
	struct hpm_perfdata *pd; /* a perf.data file: it answers instead */
	const unsigned char *data;
	size_t size;
	void *map;               /* when opened from a path */
	size_t map_len;
	struct hpm_profile_meta meta;
	struct hpm_profile_event *events;
	char *strings;           /* the header's strings, NUL-separated */
	size_t str_len, str_cap;
	uint32_t max_group;
	unsigned skip;           /* HPM_PROFILE_SKIP_* */
	size_t pos;              /* next chunk header */
	bool done;
	struct hpm_profile_status st;
	ZSTD_DCtx *zd;           /* made once, for every chunk */
	unsigned char *raw;      /* the current chunk, decompressed */
	size_t raw_len, raw_cap, rpos;
	uint32_t left;           /* records left in the chunk */
	struct dec d;
	uint64_t *chain, *vals_out, *regs;
	unsigned char *stack;
	char str[PROF_MAX_STR + 1];
};

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

/* ---- a bounded cursor ---- */

struct cur {
	const unsigned char *p, *end;
	bool bad;
};

static uint64_t get_var(struct cur *c)
{
	uint64_t v = 0;
	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (c->p >= c->end) {
			c->bad = true;
			return 0;
		}
		unsigned char b = *c->p++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	c->bad = true;
	return 0;
}

/* Past a varint without its value. */
static void skip_var(struct cur *c)
{
	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (c->p >= c->end) {
			c->bad = true;
			return;
		}
		if (!(*c->p++ & 0x80))
			return;
	}
	c->bad = true;
}

/* Past @n varints, as strict as skip_var (at most 10 bytes each), eight
 * bytes at a time while the last of them is further on: a call chain of a
 * flat listing is skipped, not decoded. */
static void skip_vars(struct cur *c, uint64_t n)
{
	unsigned run = 0; /* continuation bytes of the varint under way */

	while (n && c->end - c->p >= 8) {
		uint64_t w;
		memcpy(&w, c->p, 8);
		w = le64toh(w);
		uint64_t t = ~w & 0x8080808080808080ull; /* last bytes of varints */
		/* one bit a byte at most: their count without a popcount call */
		unsigned k = (unsigned)(((t >> 7) * 0x0101010101010101ull) >> 56);
		if (k >= n)
			break;
		if (!t) {
			run += 8;
		} else {
			/* only the run before the first end can be too long */
			if (run + (unsigned)__builtin_ctzll(t) / 8 > 9)
				run = 10;
			else
				run = 7 - (63 - (unsigned)__builtin_clzll(t)) / 8;
		}
		if (run > 9) {
			c->bad = true;
			return;
		}
		c->p += 8;
		n -= k;
	}
	while (n) {
		if (c->p >= c->end) {
			c->bad = true;
			return;
		}
		if (*c->p++ & 0x80) {
			if (++run > 9) {
				c->bad = true;
				return;
			}
		} else {
			run = 0;
			n--;
		}
	}
}

static unsigned get_byte(struct cur *c)
{
	if (c->p >= c->end) {
		c->bad = true;
		return 0;
	}
	return *c->p++;
}

static const unsigned char *get_bytes(struct cur *c, uint64_t n)
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

/* A string of at most PROF_MAX_STR bytes into @buf (NUL-terminated). */
static void get_str(struct cur *c, char *buf)
{
	uint64_t n = get_var(c);
	const unsigned char *p;
	if (n > PROF_MAX_STR || !(p = get_bytes(c, n))) {
		c->bad = true;
		buf[0] = '\0';
		return;
	}
	memcpy(buf, p, n);
	buf[n] = '\0';
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
	int rc = parse_meta(p, m, mlen);
	if (rc)
		return rc;
	p->d.vals = calloc((size_t)p->meta.nr_events * p->max_group, sizeof(uint64_t));
	p->vals_out = calloc(p->max_group, sizeof(uint64_t));
	p->d.chain = calloc(PROF_MAX_CHAIN, sizeof(uint64_t));
	p->chain = calloc(PROF_MAX_CHAIN, sizeof(uint64_t));
	p->regs = calloc(PROF_MAX_REGS, sizeof(uint64_t));
	if (!p->d.vals || !p->vals_out || !p->d.chain || !p->chain || !p->regs)
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

static void stop(struct hpm_profile *p, bool truncated, const char *fmt, uint64_t a, uint64_t b)
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
	d->time = d->ip = d->period = 0;
	d->pid = d->tid = 0;
	d->cpu = d->ev = 0;
	d->mode = HPM_MODE_UNKNOWN;
	d->nr_chain = 0;
}

static void read_totals(struct hpm_profile *p);

/* Load the next chunk. True when records are ready. */
static bool next_chunk(struct hpm_profile *p)
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
			stop(p, true, "the file is cut at byte %" PRIu64 ", inside a chunk header "
			     "(%" PRIu64 " bytes of it)", p->size, left);
			return false;
		}
		const unsigned char *h = p->data + p->pos;
		uint32_t raw = get_le32(h + 8), comp = get_le32(h + 12);
		if (get_le32(h) != CHUNK_MAGIC || (h[4] != CHUNK_DATA && h[4] != CHUNK_END) ||
		    h[5] > CODEC_ZSTD || raw > CHUNK_RAW_MAX ||
		    (h[5] == CODEC_NONE && raw != comp)) {
			stop(p, false, "bad chunk header at byte %" PRIu64 " (chunk %" PRIu64 ")",
			     p->pos, p->st.chunks + 1);
			return false;
		}
		if (comp > left - CHUNK_HDR_SIZE) {
			stop(p, true, "the file is cut at byte %" PRIu64 ", inside chunk %" PRIu64,
			     p->size, p->st.chunks + 1);
			return false;
		}
		const unsigned char *payload = h + CHUNK_HDR_SIZE;
		if (prof_sum(payload, comp) != get_le32(h + 20)) {
			stop(p, false, "chunk %" PRIu64 " at byte %" PRIu64 " fails its checksum",
			     p->st.chunks + 1, p->pos);
			return false;
		}
		if (raw > p->raw_cap) {
			unsigned char *v = realloc(p->raw, raw);
			if (!v) {
				stop(p, false, "out of memory for chunk %" PRIu64 " (%" PRIu64 " bytes)",
				     p->st.chunks + 1, raw);
				return false;
			}
			p->raw = v;
			p->raw_cap = raw;
		}
		if (h[5] == CODEC_ZSTD && !p->zd && !(p->zd = ZSTD_createDCtx())) {
			stop(p, false, "out of memory for chunk %" PRIu64 " (%" PRIu64 " bytes)",
			     p->st.chunks + 1, raw);
			return false;
		}
		if (h[5] == CODEC_ZSTD) {
			size_t n = ZSTD_decompressDCtx(p->zd, p->raw, raw, payload, comp);
			if (ZSTD_isError(n) || n != raw) {
				stop(p, false, "chunk %" PRIu64 " at byte %" PRIu64 " does not decompress",
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
		stop(p, false, "the end chunk before byte %" PRIu64 " holds no totals (tag %" PRIu64 ")",
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
		stop(p, false, "the end chunk before byte %" PRIu64 " is damaged (%" PRIu64
		     " bytes)", p->pos, p->raw_len);
		return;
	}
	p->st.complete = true;
	p->st.good_bytes = p->pos;
	p->st.what[0] = '\0';
}

/* ---- records ---- */

static uint64_t get_time(struct hpm_profile *p, struct cur *c)
{
	p->d.time += (uint64_t)zz_dec(get_var(c));
	return p->d.time;
}

static int dec_sample(struct hpm_profile *p, struct cur *c, unsigned tag, struct hpm_sample *s)
{
	struct dec *d = &p->d;

	if (tag & SF_TASK) {
		d->pid = (pid_t)get_var(c);
		d->tid = (pid_t)get_var(c);
	}
	if (tag & SF_CPUEV) {
		d->cpu = (uint32_t)get_var(c);
		d->ev = (uint32_t)get_var(c);
		if (d->ev >= p->meta.nr_events)
			return -1;
	}
	if (tag & SF_PERIOD)
		d->period = get_var(c);
	if (tag & SF_MODE)
		d->mode = (enum hpm_mode)get_byte(c);
	/* field by field: a memset of the whole sample costs more than the
	 * rest of a small sample's decoding */
	s->nr_values = 0;
	s->values = NULL;
	s->nr_chain = 0;
	s->chain = NULL;
	s->regs_abi = 0;
	s->nr_regs = 0;
	s->regs = NULL;
	s->stack_len = 0;
	s->stack = NULL;
	s->pid = d->pid;
	s->tid = d->tid;
	s->cpu = d->cpu;
	s->ev = d->ev;
	s->period = d->period;
	s->mode = d->mode;
	s->time = get_time(p, c);
	d->ip += (uint64_t)zz_dec(get_var(c));
	s->ip = d->ip;
	uint64_t st = p->events[d->ev].sample_type;
	if (st & PERF_SAMPLE_READ) {
		uint64_t n = get_var(c);
		uint64_t *prev = &d->vals[(size_t)d->ev * p->max_group];
		if (n > p->max_group)
			return -1;
		for (uint64_t k = 0; k < n; k++) {
			prev[k] += (uint64_t)zz_dec(get_var(c));
			p->vals_out[k] = prev[k];
		}
		s->nr_values = (uint32_t)n;
		s->values = p->vals_out;
	}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		uint64_t n = get_var(c), keep = get_var(c);
		if (n > PROF_MAX_CHAIN || keep > n || keep > d->nr_chain)
			return -1;
		if (p->skip & HPM_PROFILE_SKIP_CHAINS) {
			skip_vars(c, n - keep);
			d->nr_chain = (uint32_t)n; /* what the next sample may keep */
			goto regs;
		}
		uint64_t prev = s->ip, *out = p->chain;
		for (uint64_t k = 0; k < n - keep; k++) {
			prev += (uint64_t)zz_dec(get_var(c));
			out[k] = prev;
		}
		if (keep)
			memcpy(out + n - keep, d->chain + d->nr_chain - keep, keep * sizeof(uint64_t));
		/* this chain is the next sample's previous one: swap, not copy */
		p->chain = d->chain;
		d->chain = out;
		d->nr_chain = (uint32_t)n;
		s->nr_chain = (uint32_t)n;
		s->chain = out;
	}
regs:
	if (st & PERF_SAMPLE_REGS_USER) {
		uint32_t abi = (uint32_t)get_var(c);
		uint64_t n = get_var(c);
		if (n > PROF_MAX_REGS)
			return -1;
		if (p->skip & HPM_PROFILE_SKIP_STACKS) {
			for (uint64_t k = 0; k < n; k++)
				skip_var(c);
		} else {
			for (uint64_t k = 0; k < n; k++)
				p->regs[k] = get_var(c);
			s->regs_abi = abi;
			s->nr_regs = (uint32_t)n;
			s->regs = p->regs;
		}
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		uint64_t n = get_var(c);
		const unsigned char *b;
		if (n > PROF_MAX_STACK || !(b = get_bytes(c, n)))
			return -1;
		if (!(p->skip & HPM_PROFILE_SKIP_STACKS)) {
			s->stack_len = (uint32_t)n;
			s->stack = b;
		}
	}
	return c->bad ? -1 : 0;
}

static int dec_record(struct hpm_profile *p, struct cur *c, struct hpm_prec *r)
{
	unsigned tag = get_byte(c);

	switch (tag & 0xf) {
	case TAG_SAMPLE:
		r->type = HPM_PREC_SAMPLE;
		return dec_sample(p, c, tag, &r->sample);
	case TAG_MMAP: {
		struct hpm_mmap_rec *m = &r->mmap;
		r->type = HPM_PREC_MMAP;
		memset(m, 0, sizeof(*m));
		m->pid = (pid_t)get_var(c);
		m->tid = (pid_t)get_var(c);
		m->time = get_time(p, c);
		m->start = get_var(c);
		m->len = get_var(c);
		m->pgoff = get_var(c);
		m->prot = (uint32_t)get_var(c);
		m->flags = (uint32_t)get_var(c);
		unsigned n = get_byte(c);
		const unsigned char *b;
		if (n > HPM_BUILD_ID_MAX || !(b = get_bytes(c, n)))
			return -1;
		m->build_id_len = (uint8_t)n;
		memcpy(m->build_id, b, n);
		get_str(c, p->str);
		m->filename = p->str;
		return c->bad ? -1 : 0;
	}
	case TAG_COMM:
		r->type = HPM_PREC_COMM;
		r->comm.exec = tag & CF_EXEC;
		r->comm.pid = (pid_t)get_var(c);
		r->comm.tid = (pid_t)get_var(c);
		r->comm.time = get_time(p, c);
		get_str(c, p->str);
		r->comm.comm = p->str;
		return c->bad ? -1 : 0;
	case TAG_FORK:
	case TAG_EXIT:
		r->type = (tag & 0xf) == TAG_FORK ? HPM_PREC_FORK : HPM_PREC_EXIT;
		r->task.pid = (pid_t)get_var(c);
		r->task.ppid = (pid_t)get_var(c);
		r->task.tid = (pid_t)get_var(c);
		r->task.ptid = (pid_t)get_var(c);
		r->task.time = get_time(p, c);
		return c->bad ? -1 : 0;
	case TAG_LOST:
	case TAG_THROTTLE:
	case TAG_UNTHROTTLE: {
		r->type = (tag & 0xf) == TAG_LOST ? HPM_PREC_LOST :
			  (tag & 0xf) == TAG_THROTTLE ? HPM_PREC_THROTTLE : HPM_PREC_UNTHROTTLE;
		r->lost.time = get_time(p, c);
		uint64_t ev = get_var(c);
		r->lost.ev = ev == 0 || ev > p->meta.nr_events ? UINT32_MAX : (uint32_t)(ev - 1);
		r->lost.count = get_var(c);
		return c->bad ? -1 : 0;
	}
	default:
		return -1;
	}
}

int hpm_profile__next(struct hpm_profile *p, struct hpm_prec *r)
{
	if (p->pd)
		return hpm__perfdata_next(p->pd, r);
	if (!p->left && !next_chunk(p))
		return 0;
	struct cur c = { p->raw + p->rpos, p->raw + p->raw_len, false };
	if (dec_record(p, &c, r)) {
		stop(p, false, "a record of chunk %" PRIu64 " is damaged (at byte %" PRIu64
		     " of the chunk's data)", p->st.chunks, p->rpos);
		p->left = 0;
		return 0;
	}
	p->rpos = (size_t)(c.p - p->raw);
	if (--p->left == 0 && p->rpos != p->raw_len) {
		/* more bytes than records: the rest is not trusted */
		stop(p, false, "chunk %" PRIu64 " has %" PRIu64 " bytes after its last record",
		     p->st.chunks, p->raw_len - p->rpos);
	}
	return 1;
}
