/* SPDX-License-Identifier: MIT */
/* Reading and aggregating a profile for report, annotate and diff (report.h). */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <hpmon/unwind.h>
#include "kcache.h"
#include "report.h"

const char *const rep_key_names[SK_MAX] = { "comm", "pid", "tid", "dso", "sym", "line", "cpu" };

/* ---- a hash table of fixed-width keys to indexes ---- */

#define HT_MAXW 8

struct htab {
	unsigned kw;        /* key words */
	size_t cap, n;      /* cap a power of two */
	uint64_t *keys;     /* [cap * kw] */
	uint32_t *vals;     /* [cap], index + 1; 0 empty */
};

static struct htab *ht_new(unsigned kw)
{
	struct htab *h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	h->kw = kw;
	h->cap = 1024;
	h->keys = calloc(h->cap * kw, sizeof(uint64_t));
	h->vals = calloc(h->cap, sizeof(uint32_t));
	if (!h->keys || !h->vals) {
		free(h->keys);
		free(h->vals);
		free(h);
		return NULL;
	}
	return h;
}

static void ht_free(struct htab *h)
{
	if (!h)
		return;
	free(h->keys);
	free(h->vals);
	free(h);
}

static uint64_t ht_hash(const uint64_t *k, unsigned kw)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;
	for (unsigned i = 0; i < kw; i++) {
		x ^= k[i] + 0x9e3779b97f4a7c15ull + (x << 6) + (x >> 2);
		x *= 0xff51afd7ed558ccdull;
		x ^= x >> 33;
	}
	return x;
}

static bool key_eq(const uint64_t *a, const uint64_t *b, unsigned kw)
{
	for (unsigned i = 0; i < kw; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

static size_t ht_slot(const struct htab *h, const uint64_t *k)
{
	size_t i = (size_t)ht_hash(k, h->kw) & (h->cap - 1);
	while (h->vals[i] && !key_eq(&h->keys[i * h->kw], k, h->kw))
		i = (i + 1) & (h->cap - 1);
	return i;
}

static int ht_grow(struct htab *h)
{
	struct htab n = { .kw = h->kw, .cap = h->cap * 2 };
	n.keys = calloc(n.cap * n.kw, sizeof(uint64_t));
	n.vals = calloc(n.cap, sizeof(uint32_t));
	if (!n.keys || !n.vals) {
		free(n.keys);
		free(n.vals);
		return -ENOMEM;
	}
	for (size_t i = 0; i < h->cap; i++) {
		if (!h->vals[i])
			continue;
		size_t s = ht_slot(&n, &h->keys[i * h->kw]);
		memcpy(&n.keys[s * n.kw], &h->keys[i * h->kw], n.kw * sizeof(uint64_t));
		n.vals[s] = h->vals[i];
	}
	free(h->keys);
	free(h->vals);
	h->keys = n.keys;
	h->vals = n.vals;
	h->cap = n.cap;
	return 0;
}

/* The index stored for @k, or -1. */
static long ht_get(const struct htab *h, const uint64_t *k)
{
	size_t s = ht_slot(h, k);
	return h->vals[s] ? (long)h->vals[s] - 1 : -1;
}

static int ht_put(struct htab *h, const uint64_t *k, size_t idx)
{
	if ((h->n + 1) * 2 > h->cap && ht_grow(h))
		return -ENOMEM;
	size_t s = ht_slot(h, k);
	if (!h->vals[s])
		h->n++;
	memcpy(&h->keys[s * h->kw], k, h->kw * sizeof(uint64_t));
	h->vals[s] = (uint32_t)idx + 1;
	return 0;
}

/* Grow a vector *v of *cap elements of @size to hold one more. */
static void *grow(void *v, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return v;
	size_t nc = *cap ? *cap * 2 : 64;
	void *p = realloc(v, nc * size);
	if (p)
		*cap = nc;
	return p;
}

#define PUSH(r, vec, nr, cap) \
	((r)->vec = grow((r)->vec, &(r)->cap, (r)->nr, sizeof(*(r)->vec)))

/* ---- interned strings ---- */

static void str_key(const char *s, uint64_t k[2])
{
	uint64_t a = 1469598103934665603ull, b = 0x84222325cbf29ce4ull;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		a = (a ^ *p) * 1099511628211ull;
		b = (b ^ *p) * 0x100000001b3ull + 7;
	}
	k[0] = a;
	k[1] = b ^ strlen(s);
}

/* The id of string @s (a copy is kept); ids start at 1; 0 on no memory. */
static uint32_t intern(struct rep *r, const char *s)
{
	uint64_t k[2];
	str_key(s, k);
	long i = ht_get(r->h_str, k);
	if (i >= 0)
		return (uint32_t)i;
	if (!PUSH(r, strs, nr_strs, cap_strs))
		return 0;
	char *c = strdup(s);
	if (!c || ht_put(r->h_str, k, r->nr_strs)) {
		free(c);
		return 0;
	}
	r->strs[r->nr_strs] = c;
	return (uint32_t)r->nr_strs++;
}

const char *rep_str(const struct rep *r, uint64_t id)
{
	return id < r->nr_strs && r->strs[id] ? r->strs[id] : "";
}

/* ---- processes and their mappings ---- */

struct rep_map {
	uint64_t start, end, pgoff, time, dead; /* dead: exec time after it, or ~0 */
	uint32_t dso;
};

struct rep_proc {
	pid_t pid, parent;
	uint32_t comm;
	struct rep_map *maps;
	size_t nr, cap;
	size_t last; /* last map hit */
	struct hpm_unwinder *unw; /* DWARF call chains */
	size_t unw_nr;            /* maps it was made with */
};

static struct rep_proc *proc_get(struct rep *r, pid_t pid, bool create)
{
	uint64_t k = (uint32_t)pid;
	struct rep_proc *v = r->procs;
	if (r->last_proc < r->nr_procs && v[r->last_proc].pid == pid)
		return &v[r->last_proc];
	long i = ht_get(r->h_proc, &k);
	if (i >= 0) {
		r->last_proc = (size_t)i;
		return &v[i];
	}
	if (!create)
		return NULL;
	v = grow(r->procs, &r->cap_procs, r->nr_procs, sizeof(*v));
	if (!v)
		return NULL;
	r->procs = v;
	if (ht_put(r->h_proc, &k, r->nr_procs))
		return NULL;
	struct rep_proc *p = &v[r->nr_procs++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->parent = -1;
	return p;
}

static uint32_t dso_get(struct rep *r, const char *path, enum dso_kind kind, pid_t pid,
			const uint8_t *bid, uint8_t bid_len)
{
	uint64_t k[4] = { intern(r, path), (uint64_t)kind, (uint32_t)pid, 0 };
	for (unsigned i = 0; i < bid_len && i < 8; i++)
		k[3] = k[3] << 8 | bid[i];
	long i = ht_get(r->h_dso, k);
	if (i >= 0)
		return (uint32_t)i;
	if (!PUSH(r, dsos, nr_dsos, cap_dsos) || ht_put(r->h_dso, k, r->nr_dsos))
		return UINT32_MAX;
	struct rep_dso *d = &r->dsos[r->nr_dsos];
	memset(d, 0, sizeof(*d));
	d->path = strdup(path);
	if (!d->path)
		return UINT32_MAX;
	const char *slash = strrchr(d->path, '/');
	d->base = slash && slash[1] ? slash + 1 : d->path;
	d->kind = kind;
	d->pid = pid;
	d->build_id_len = bid_len;
	if (bid_len)
		memcpy(d->build_id, bid, bid_len);
	return (uint32_t)r->nr_dsos++;
}

static int add_map(struct rep *r, const struct hpm_mmap_rec *m)
{
	struct rep_proc *p = proc_get(r, m->pid, true);
	enum dso_kind kind = DK_FILE;
	if (!p)
		return -ENOMEM;
	if (!strcmp(m->filename, "[vdso]"))
		kind = DK_VDSO;
	else if (m->filename[0] != '/' || m->filename[1] == '/' ||
		 !strncmp(m->filename, "/memfd:", 7))
		kind = DK_ANON; /* //anon, [heap], memfd: JIT code, maybe */
	uint32_t dso = dso_get(r, m->filename, kind, kind == DK_ANON ? m->pid : 0, m->build_id,
			       m->build_id_len);
	if (dso == UINT32_MAX)
		return -ENOMEM;
	struct rep_map *v = grow(p->maps, &p->cap, p->nr, sizeof(*v));
	if (!v)
		return -ENOMEM;
	p->maps = v;
	v[p->nr++] = (struct rep_map){ m->start, m->start + m->len, m->pgoff, m->time, UINT64_MAX,
				       dso };
	return 0;
}

static void on_exec(struct rep *r, pid_t pid, uint64_t time)
{
	struct rep_proc *p = proc_get(r, pid, false);
	if (!p)
		return;
	for (size_t i = 0; i < p->nr; i++)
		if (p->maps[i].time <= time && p->maps[i].dead == UINT64_MAX)
			p->maps[i].dead = time;
	p->parent = -1; /* a new program: the parent's mappings are not its own */
}

/* The mapping of @pid (or an ancestor's, for a child that has not mapped
 * anything of its own) that covered @ip at @time. */
static const struct rep_map *find_map(struct rep *r, pid_t pid, uint64_t ip, uint64_t time)
{
	for (int depth = 0; depth < 16; depth++) {
		struct rep_proc *p = proc_get(r, pid, false);
		if (!p)
			return NULL;
		if (p->last < p->nr) {
			const struct rep_map *m = &p->maps[p->last];
			if (ip >= m->start && ip < m->end && time >= m->time && time < m->dead)
				return m;
		}
		const struct rep_map *best = NULL, *early = NULL;
		size_t bi = 0;
		for (size_t i = 0; i < p->nr; i++) {
			const struct rep_map *m = &p->maps[i];
			if (ip < m->start || ip >= m->end || time >= m->dead)
				continue;
			if (m->time <= time && (!best || m->time >= best->time)) {
				best = m;
				bi = i;
			}
			if (!early || m->time < early->time)
				early = m;
		}
		if (best) {
			p->last = bi;
			return best;
		}
		if (early)
			return early; /* records of other CPUs may carry later times */
		pid = p->parent;
		if (pid < 0)
			return NULL;
	}
	return NULL;
}

/* ---- resolving addresses ---- */

static uint32_t sym_get(struct rep *r, uint32_t dso, const char *name, uint64_t start,
			uint64_t size, bool resolved)
{
	uint64_t k[2] = { dso, intern(r, name) };
	long i = ht_get(r->h_sym, k);
	if (i >= 0)
		return (uint32_t)i;
	if (!PUSH(r, syms, nr_syms, cap_syms) || ht_put(r->h_sym, k, r->nr_syms))
		return UINT32_MAX;
	r->syms[r->nr_syms] = (struct rep_sym){ .name = rep_str(r, k[1]), .dso = dso,
						 .start = start, .size = size, .resolved = resolved };
	return (uint32_t)r->nr_syms++;
}

static uint32_t line_get(struct rep *r, const char *file, unsigned line)
{
	uint64_t k[2] = { intern(r, file), line };
	long i = ht_get(r->h_line, k);
	if (i >= 0)
		return (uint32_t)i;
	if (!PUSH(r, lines, nr_lines, cap_lines) || ht_put(r->h_line, k, r->nr_lines))
		return 0;
	r->lines[r->nr_lines] = (struct rep_line){ rep_str(r, k[0]), line };
	return (uint32_t)r->nr_lines++;
}

/*
 * The vdso of the profile's processes, when the profile was taken on this
 * kernel: the vdso is a part of the kernel's image, the same in every
 * process, so this process's own copy (from its [vdso] mapping) is the one
 * they ran. It is put in a memory file to be read like any object. NULL
 * (and errno) on another kernel or architecture.
 */
static struct hpm_dso *open_own_vdso(const struct rep *r)
{
	struct utsname u;
	char line[512];
	unsigned long lo = 0, hi = 0;
	struct hpm_dso *d = NULL;

	if (uname(&u) || !r->meta.kernel || !r->meta.arch || strcmp(r->meta.kernel, u.release) ||
	    strcmp(r->meta.arch, u.machine)) {
		errno = ENOENT;
		return NULL;
	}
	FILE *f = fopen("/proc/self/maps", "re");
	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") && sscanf(line, "%lx-%lx", &lo, &hi) == 2)
			break;
	fclose(f);
	if (!lo || hi <= lo) {
		errno = ENOENT;
		return NULL;
	}
	int fd = (int)syscall(SYS_memfd_create, "vdso", 1u /* MFD_CLOEXEC */);
	if (fd < 0)
		return NULL;
	if (write(fd, (const void *)lo, hi - lo) == (ssize_t)(hi - lo)) {
		char path[64];
		struct hpm_dso_opts o = { .sz = sizeof(o) };
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		d = hpm_dso__open(path, &o);
	}
	int e = errno;
	close(fd);
	errno = e;
	return d;
}

static void open_dso(struct rep *r, struct rep_dso *d)
{
	d->tried = true;
	if (d->kind == DK_FILE) {
		struct hpm_dso_opts o = { .sz = sizeof(o), .debug_dir = r->o.debug_dir,
					  .build_id = d->build_id, .build_id_len = d->build_id_len };
		d->d = hpm_dso__open(d->path, &o);
		d->open_err = d->d ? 0 : -errno;
	} else if (d->kind == DK_VDSO) {
		d->d = open_own_vdso(r);
		d->open_err = d->d ? 0 : -errno;
	} else if (d->kind == DK_ANON) {
		char path[64];
		snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)d->pid);
		d->jit = hpm_jitmap__load(path);
		d->open_err = d->jit ? 0 : -errno;
	}
}

/* kallsyms: the table this boot's first reader saved, else the kernel's
 * list (tens of ms of the kernel's time to produce), then saved. */
static void *load_kallsyms(void *arg)
{
	struct rep *r = arg;
	r->kallsyms = kcache_load(r->o.procfs, r->o.cache_dir, &r->kallsyms_full);
	return NULL;
}

/* Resolve (dso, off) to a loc: off is a file offset for DK_FILE, else the
 * runtime address. */
static uint32_t loc_get_slow(struct rep *r, uint32_t dso, uint64_t off);

/* Hot loops hit few addresses: a direct-mapped cache before the table. */
static uint32_t loc_get(struct rep *r, uint32_t dso, uint64_t off)
{
	size_t c = (size_t)((off ^ (off >> 12) ^ ((uint64_t)dso * 0x9e3779b1u)) & (LOC_CACHE - 1));
	struct loc_cache *e = &r->loc_cache[c];
	if (e->loc && e->dso == dso && e->off == off)
		return e->loc - 1;
	uint32_t l = loc_get_slow(r, dso, off);
	if (l != UINT32_MAX)
		*e = (struct loc_cache){ off, dso, l + 1 };
	return l;
}

static uint32_t loc_get_slow(struct rep *r, uint32_t dso, uint64_t off)
{
	uint64_t k[2] = { dso, off };
	long i = ht_get(r->h_loc, k);
	if (i >= 0)
		return (uint32_t)i;
	struct rep_dso *d = &r->dsos[dso];
	struct rep_loc l = { .dso = dso, .addr = off };
	char buf[PATH_MAX + 64];
	const char *name = NULL;
	uint64_t start = 0, size = 0;
	bool resolved = false;

	if (!d->tried)
		open_dso(r, d);
	if ((d->kind == DK_FILE || d->kind == DK_VDSO) && d->d) {
		struct hpm_symbol s;
		if (hpm_dso__offset_to_addr(d->d, off, &l.addr))
			l.addr = off;
		unsigned flags = (r->o.lines ? HPM_SYM_LINES : 0) | (r->o.inlines ? HPM_SYM_INLINE : 0);
		if (!hpm_dso__lookup(d->d, l.addr, flags, &s)) {
			name = s.name;
			start = s.start;
			size = s.size;
			resolved = true;
			if (s.nr_inline) {
				/* the innermost function whose code this is */
				snprintf(buf, sizeof(buf), "%s (inlined in %s)", s.inl[0].name, s.name);
				name = buf;
			} else if (strchr(name, '@')) {
				/* __libc_start_main@@GLIBC_2.34: the version is noise here */
				snprintf(buf, sizeof(buf), "%.*s", (int)strcspn(name, "@"), name);
				name = buf;
			}
		}
		if (s.file && s.line)
			l.line = line_get(r, s.file, s.line);
	} else if (d->kind == DK_KERNEL) {
		if (!r->kallsyms_tried) {
			if (r->ksym_thread_up) {
				pthread_join(r->ksym_thread, NULL);
				r->ksym_thread_up = false;
			} else {
				load_kallsyms(r);
			}
			r->kallsyms_tried = true;
		}
		if (r->kallsyms && !r->kallsyms_full && !hpm_kallsyms__covers(r->kallsyms, off)) {
			/* outside the saved core kernel: a module's, BPF ... */
			struct hpm_kallsyms *full = kcache_read(r->o.procfs);
			r->kallsyms_full = true;
			if (full) {
				hpm_kallsyms__free(r->kallsyms);
				r->kallsyms = full;
			}
		}
		if (r->kallsyms && (name = hpm_kallsyms__lookup(r->kallsyms, off, &start)))
			resolved = true;
	} else if (d->kind == DK_ANON && d->jit) {
		if ((name = hpm_jitmap__lookup(d->jit, off, &start)))
			resolved = true;
	}
	if (!name) {
		/* shown by object and offset */
		snprintf(buf, sizeof(buf), "%s+0x%llx", d->kind == DK_UNKNOWN ? "[unknown]" : d->base,
			 (unsigned long long)(d->kind == DK_FILE ? off : l.addr));
		name = buf;
	}
	l.sym = sym_get(r, dso, name, start, size, resolved);
	if (l.sym == UINT32_MAX)
		return UINT32_MAX;
	l.count = calloc(r->nr_ev, sizeof(uint64_t));
	if (!l.count || !PUSH(r, locs, nr_locs, cap_locs) || ht_put(r->h_loc, k, r->nr_locs)) {
		free(l.count);
		return UINT32_MAX;
	}
	r->locs[r->nr_locs] = l;
	return (uint32_t)r->nr_locs++;
}

static uint32_t kernel_dso(struct rep *r)
{
	return dso_get(r, "[kernel.kallsyms]", DK_KERNEL, 0, NULL, 0);
}

static bool user_mode(enum hpm_mode mode)
{
	return mode == HPM_MODE_USER || mode == HPM_MODE_GUEST_USER;
}

static bool kernel_mode(enum hpm_mode mode)
{
	return mode == HPM_MODE_KERNEL || mode == HPM_MODE_GUEST_KERNEL || mode == HPM_MODE_HV;
}

/* The loc of @ip of @pid in @mode; @m is find_map's answer for it (user
 * and unknown modes). */
static uint32_t resolve_in(struct rep *r, pid_t pid, uint64_t ip, enum hpm_mode mode,
			   const struct rep_map *m)
{
	if (kernel_mode(mode)) {
		if (r->kernel_dso == UINT32_MAX)
			r->kernel_dso = kernel_dso(r);
		return r->kernel_dso == UINT32_MAX ? UINT32_MAX : loc_get(r, r->kernel_dso, ip);
	}
	if (!m) {
		char path[64];
		snprintf(path, sizeof(path), "[unknown]");
		uint32_t d = dso_get(r, path, DK_UNKNOWN, 0, NULL, 0);
		if (d == UINT32_MAX)
			return d;
		/* a JIT map may still know it */
		uint32_t j = dso_get(r, "//anon", DK_ANON, pid, NULL, 0);
		if (j != UINT32_MAX) {
			if (!r->dsos[j].tried)
				open_dso(r, &r->dsos[j]);
			if (r->dsos[j].jit && hpm_jitmap__lookup(r->dsos[j].jit, ip, NULL))
				return loc_get(r, j, ip);
		}
		return loc_get(r, d, ip);
	}
	if (r->dsos[m->dso].kind == DK_FILE)
		return loc_get(r, m->dso, ip - m->start + m->pgoff);
	if (r->dsos[m->dso].kind == DK_VDSO)
		return loc_get(r, m->dso, ip - m->start);
	return loc_get(r, m->dso, ip);
}

static uint32_t resolve(struct rep *r, pid_t pid, uint64_t ip, enum hpm_mode mode, uint64_t time)
{
	return resolve_in(r, pid, ip, mode, kernel_mode(mode) ? NULL : find_map(r, pid, ip, time));
}

/* ---- aggregation ---- */

static bool in_list(const pid_t *v, size_t n, pid_t x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

static uint32_t comm_of(struct rep *r, pid_t tid, pid_t pid)
{
	if (tid == 0)
		return intern(r, "swapper"); /* the idle task: no comm record */
	if (r->last_comm && r->last_tid == tid)
		return r->last_comm;
	uint64_t k = (uint32_t)tid;
	long i = ht_get(r->h_comm, &k);
	if (i >= 0) {
		r->last_tid = tid;
		r->last_comm = (uint32_t)i;
		return (uint32_t)i;
	}
	struct rep_proc *p = proc_get(r, pid, false);
	return p && p->comm ? p->comm : intern(r, "[unknown]");
}

static struct rep_row *row_get(struct rep *r, const uint64_t *key)
{
	if (r->last_row && key_eq(r->rows[r->last_row - 1].key, key, SK_MAX))
		return &r->rows[r->last_row - 1];
	long i = ht_get(r->h_row, key);
	if (i >= 0) {
		r->last_row = (size_t)i + 1;
		return &r->rows[i];
	}
	if (!PUSH(r, rows, nr_rows, cap_rows) || ht_put(r->h_row, key, r->nr_rows))
		return NULL;
	struct rep_row *row = &r->rows[r->nr_rows];
	memcpy(row->key, key, sizeof(row->key));
	row->samples = calloc(r->nr_ev, sizeof(uint64_t));
	row->period = calloc(r->nr_ev, sizeof(double));
	row->delta = calloc(r->nr_ev, sizeof(double));
	if (!row->samples || !row->period || !row->delta) {
		free(row->samples);
		free(row->period);
		free(row->delta);
		return NULL;
	}
	r->last_row = ++r->nr_rows;
	return row;
}

/* Counts read from the sample's group since the previous sample of the same
 * (thread, CPU) event instance, added to the row. */
static void add_deltas(struct rep *r, const struct hpm_sample *s, struct rep_row *row)
{
	const struct hpm_profile_event *e = &r->meta.events[s->ev];
	uint64_t k[3] = { (uint32_t)s->tid, s->cpu, s->ev };
	/* samples of one thread on one CPU come in runs: the last one first */
	long i = r->nr_prev && key_eq(k, r->last_prev, 3) ? (long)r->last_prev_i
							   : ht_get(r->h_prev, k);
	uint32_t n = s->nr_values < e->group_size ? s->nr_values : e->group_size;

	if (i < 0) {
		size_t need = (r->nr_prev + 1) * r->nr_ev;
		if (need > r->cap_prev) {
			size_t nc = r->cap_prev ? r->cap_prev * 2 : 64 * r->nr_ev;
			while (nc < need)
				nc *= 2;
			uint64_t *v = realloc(r->prev, nc * sizeof(*v));
			if (!v)
				return;
			r->prev = v;
			r->cap_prev = nc;
		}
		if (ht_put(r->h_prev, k, r->nr_prev))
			return;
		i = (long)r->nr_prev++;
		memset(&r->prev[(size_t)i * r->nr_ev], 0, r->nr_ev * sizeof(uint64_t));
	}
	memcpy(r->last_prev, k, sizeof(k));
	r->last_prev_i = (size_t)i;
	uint64_t *prev = &r->prev[(size_t)i * r->nr_ev];
	/* members follow their leader in list order */
	for (uint32_t m = 0; m < n && s->ev + m < r->nr_ev; m++) {
		uint64_t v = s->values[m];
		uint64_t d = v >= prev[m] ? v - prev[m] : v;
		prev[m] = v;
		row->delta[s->ev + m] += (double)d;
		r->ev_read[s->ev + m] = true;
	}
}

static bool chain_marker(uint64_t ip, enum hpm_mode *mode)
{
	if (ip < HPM_CHAIN_CONTEXT_MIN)
		return false;
	switch ((int64_t)ip) {
	case -128: *mode = HPM_MODE_KERNEL; break;      /* PERF_CONTEXT_KERNEL */
	case -512: *mode = HPM_MODE_USER; break;        /* PERF_CONTEXT_USER */
	case -32: *mode = HPM_MODE_HV; break;           /* PERF_CONTEXT_HV */
	case -2176: *mode = HPM_MODE_GUEST_KERNEL; break;
	case -2560: *mode = HPM_MODE_GUEST_USER; break;
	default: break;
	}
	return true;
}

/* The sample's frames as sym ids, leaf first, into r->frames. */
static size_t chain_syms(struct rep *r, const struct hpm_sample *s, uint32_t leaf)
{
	enum hpm_mode mode = s->mode;
	size_t n = 0;

	if (r->frames_cap < s->nr_chain + 1) {
		uint32_t *v = realloc(r->frames, (s->nr_chain + 1) * sizeof(*v));
		if (!v)
			return 0;
		r->frames = v;
		r->frames_cap = s->nr_chain + 1;
	}
	r->frames[n++] = leaf;
	bool first = true;
	for (uint32_t i = 0; i < s->nr_chain; i++) {
		uint64_t ip = s->chain[i];
		if (chain_marker(ip, &mode))
			continue;
		if (first && ip == s->ip) { /* the sampled address itself */
			first = false;
			continue;
		}
		first = false;
		/* a return address: the call is the byte before it */
		uint32_t l = resolve(r, s->pid, ip - 1, mode, s->time);
		if (l != UINT32_MAX)
			r->frames[n++] = r->locs[l].sym;
	}
	return n;
}

static void add_callgraph(struct rep *r, const struct hpm_sample *s, uint32_t comm, size_t n)
{
	double w = (double)s->period;

	if (r->stamp_cap < r->nr_syms) {
		size_t nc = r->nr_syms * 2;
		uint32_t *v = realloc(r->stamp, nc * sizeof(*v));
		if (!v)
			return;
		memset(v + r->stamp_cap, 0, (nc - r->stamp_cap) * sizeof(*v));
		r->stamp = v;
		r->stamp_cap = nc;
	}
	r->gen++;
	r->syms[r->frames[0]].self += w;
	for (size_t i = 0; i < n; i++) {
		uint32_t sy = r->frames[i];
		if (r->stamp[sy] != r->gen) { /* recursion counts once */
			r->stamp[sy] = r->gen;
			r->syms[sy].incl += w;
		}
		if (i + 1 < n) {
			uint64_t k[2] = { r->frames[i + 1], sy };
			long e = ht_get(r->h_edge, k);
			if (e < 0) {
				if (!PUSH(r, edges, nr_edges, cap_edges) || ht_put(r->h_edge, k, r->nr_edges))
					return;
				e = (long)r->nr_edges++;
				r->edges[e] = (struct rep_edge){ (uint32_t)k[0], sy, 0 };
			}
			r->edges[e].period += w;
		}
	}
	if (!r->o.folded)
		return;
	uint64_t k[3] = { comm, 0, n };
	uint64_t h[2] = { 0, 0 };
	for (size_t i = 0; i < n; i++) {
		h[0] = h[0] * 1000003u + r->frames[i] + 1;
		h[1] = (h[1] ^ (r->frames[i] + 0x9e37u)) * 0x100000001b3ull;
	}
	k[1] = h[0] ^ (h[1] << 1);
	long i = ht_get(r->h_stack, k);
	if (i < 0) {
		if (!PUSH(r, stacks, nr_stacks, cap_stacks) || ht_put(r->h_stack, k, r->nr_stacks))
			return;
		struct rep_stack *st = &r->stacks[r->nr_stacks];
		st->syms = malloc(n * sizeof(uint32_t));
		if (!st->syms)
			return;
		for (size_t j = 0; j < n; j++)
			st->syms[j] = r->frames[n - 1 - j];
		st->nr = (uint32_t)n;
		st->comm = comm;
		st->samples = 0;
		st->period = 0;
		i = (long)r->nr_stacks++;
	}
	r->stacks[i].samples++;
	r->stacks[i].period += w;
}

/* A sample copied aside until the whole file is read (its mapping may be
 * in a record of another CPU's buffer written after it). */
struct deferred {
	struct hpm_sample s;
	uint64_t *chain, *vals;
};

static bool defer(struct rep *r, const struct hpm_sample *s)
{
	struct deferred *v = grow(r->deferred, &r->cap_deferred, r->nr_deferred, sizeof(*v));
	if (!v)
		return false;
	r->deferred = v;
	struct deferred *d = &v[r->nr_deferred];
	d->s = *s;
	d->s.regs = NULL;
	d->s.nr_regs = 0;
	d->s.stack = NULL;
	d->s.stack_len = 0;
	d->chain = s->nr_chain ? malloc(s->nr_chain * sizeof(uint64_t)) : NULL;
	d->vals = s->nr_values ? malloc(s->nr_values * sizeof(uint64_t)) : NULL;
	if ((s->nr_chain && !d->chain) || (s->nr_values && !d->vals)) {
		free(d->chain);
		free(d->vals);
		return false;
	}
	if (s->nr_chain)
		memcpy(d->chain, s->chain, s->nr_chain * sizeof(uint64_t));
	if (s->nr_values)
		memcpy(d->vals, s->values, s->nr_values * sizeof(uint64_t));
	d->s.chain = d->chain;
	d->s.values = d->vals;
	r->nr_deferred++;
	return true;
}

#define UNWIND_MAX 256

/* --call-graph dwarf: the chain unwound from the stack copy, in the
 * kernel's form (a PERF_CONTEXT_USER marker, then the addresses). */
static bool unwind_sample(struct rep *r, const struct hpm_sample *s, struct hpm_sample *out,
			  uint64_t *chain)
{
	struct rep_proc *p = proc_get(r, s->pid, false);
	for (int d = 0; p && !p->nr && p->parent >= 0 && d < 16; d++)
		p = proc_get(r, p->parent, false);
	if (!p || !p->nr)
		return false;
	if (p->unw && p->unw_nr != p->nr) {
		hpm_unwinder__free(p->unw); /* mappings changed: report them anew */
		p->unw = NULL;
	}
	if (!p->unw) {
		struct hpm_unwind_map *m = calloc(p->nr, sizeof(*m));
		size_t n = 0;
		if (!m)
			return false;
		for (size_t i = 0; i < p->nr; i++)
			if (r->dsos[p->maps[i].dso].kind == DK_FILE)
				m[n++] = (struct hpm_unwind_map){ p->maps[i].start, p->maps[i].end,
								  p->maps[i].pgoff,
								  r->dsos[p->maps[i].dso].path };
		p->unw = hpm_unwinder__new(s->pid, m, n);
		p->unw_nr = p->nr;
		free(m);
		if (!p->unw)
			return false;
	}
	int n = hpm_unwinder__unwind(p->unw, s, chain + 1, UNWIND_MAX - 1);
	if (n <= 0)
		return false;
	chain[0] = (uint64_t)-512; /* PERF_CONTEXT_USER */
	*out = *s;
	out->chain = chain;
	out->nr_chain = (uint32_t)n + 1;
	return true;
}

/* Where the previous sample went: the next one at the same address of the
 * same thread, CPU and mode goes to the same place while no side-band
 * record has changed mappings or names, and its time is in the mapping's
 * (find_map's own cache takes the same shortcut). */
struct rep_memo {
	uint32_t gen;                 /* r->sb_gen it holds for; 0: empty */
	pid_t pid, tid;
	uint32_t cpu, comm, loc;
	enum hpm_mode mode;
	uint64_t ip, t0, t1;
	size_t row;
};

static void account(struct rep *r, const struct hpm_sample *s, uint32_t comm, uint32_t li,
		    struct rep_row *row)
{
	const struct rep_opts *o = &r->o;
	struct rep_loc *l = &r->locs[li];
	struct rep_dso *d = &r->dsos[l->dso];

	row->samples[s->ev]++;
	row->period[s->ev] += (double)s->period;
	r->ev_samples[s->ev]++;
	r->ev_period[s->ev] += (double)s->period;
	l->count[s->ev]++;
	d->samples++;
	if (!r->syms[l->sym].resolved)
		d->nosym++;
	if (s->nr_values) {
		r->have_groups = true;
		add_deltas(r, s, row);
	}
	struct hpm_sample unwound;
	uint64_t chain[UNWIND_MAX];
	if (o->callgraph && !s->nr_chain && s->stack_len && s->nr_regs &&
	    user_mode(s->mode) &&
	    unwind_sample(r, s, &unwound, chain))
		s = &unwound;
	if (s->nr_chain > 2 || (s->nr_chain && !s->stack_len))
		r->have_chains = true;
	if (o->callgraph && s->ev == r->main_ev) {
		size_t n = chain_syms(r, s, l->sym);
		if (n)
			add_callgraph(r, s, comm, n);
	}
}

static void add_sample(struct rep *r, const struct hpm_sample *s, bool may_defer)
{
	const struct rep_opts *o = &r->o;
	struct rep_memo *mo = r->memo;

	if (mo->gen == r->sb_gen && mo->ip == s->ip && mo->tid == s->tid && mo->pid == s->pid &&
	    mo->cpu == s->cpu && mo->mode == s->mode && s->time >= mo->t0 && s->time < mo->t1) {
		account(r, s, mo->comm, mo->loc, &r->rows[mo->row]);
		return;
	}

	uint32_t comm = comm_of(r, s->tid, s->pid);
	const struct rep_map *m = NULL;

	/* kernel samples wait for kallsyms, which another thread reads (it
	 * takes the kernel tens of ms to list) while the file is decoded */
	if (kernel_mode(s->mode)) {
		if (may_defer && !r->kallsyms_tried) {
			if (!r->ksym_thread_up && !r->ksym_thread_failed) {
				r->ksym_thread_up = !pthread_create(&r->ksym_thread, NULL,
								    load_kallsyms, r);
				r->ksym_thread_failed = !r->ksym_thread_up;
			}
			if (r->ksym_thread_up && defer(r, s))
				return;
		}
	} else {
		m = find_map(r, s->pid, s->ip, s->time);
		if (!m && may_defer && defer(r, s))
			return;
	}

	if ((o->nr_pids && !in_list(o->pids, o->nr_pids, s->pid)) ||
	    (o->nr_tids && !in_list(o->tids, o->nr_tids, s->tid)) ||
	    (o->comm && strcmp(o->comm, rep_str(r, comm)))) {
		r->filtered++;
		return;
	}
	uint32_t li = resolve_in(r, s->pid, s->ip, s->mode, m);
	if (li == UINT32_MAX)
		return;
	struct rep_loc *l = &r->locs[li];
	struct rep_sym *sy = &r->syms[l->sym];
	struct rep_dso *d = &r->dsos[l->dso];
	if ((o->dso && strcmp(o->dso, d->base) && strcmp(o->dso, d->path)) ||
	    (o->symbol && strcmp(o->symbol, sy->name))) {
		r->filtered++;
		return;
	}
	uint64_t key[SK_MAX] = { 0 };
	for (size_t i = 0; i < o->nr_keys; i++) {
		uint64_t v = 0;
		switch (o->keys[i]) {
		case SK_COMM: v = comm; break;
		case SK_PID: v = (uint32_t)s->pid; break;
		case SK_TID: v = (uint32_t)s->tid; break;
		case SK_DSO: v = l->dso; break;
		case SK_SYM: v = l->sym; break;
		case SK_LINE: v = l->line; break;
		case SK_CPU: v = s->cpu; break;
		default: break;
		}
		key[o->keys[i]] = v;
	}
	struct rep_row *row = row_get(r, key);
	if (!row)
		return;
	if (kernel_mode(s->mode) || m)
		*mo = (struct rep_memo){ r->sb_gen, s->pid, s->tid, s->cpu, comm, li, s->mode, s->ip,
					 m ? m->time : 0, m ? m->dead : UINT64_MAX,
					 (size_t)(row - r->rows) };
	account(r, s, comm, li, row);
}

/* ---- reading ---- */

static int sideband(struct rep *r, const struct hpm_prec *p)
{
	r->last_comm = 0; /* names may change */
	if (++r->sb_gen == 0) /* and mappings: the memo of the last sample is stale */
		r->sb_gen = 1;
	switch (p->type) {
	case HPM_PREC_MMAP:
		return add_map(r, &p->mmap);
	case HPM_PREC_COMM: {
		uint32_t c = intern(r, p->comm.comm);
		uint64_t k = (uint32_t)p->comm.tid;
		if (!c || ht_put(r->h_comm, &k, c))
			return -ENOMEM;
		if (p->comm.exec)
			on_exec(r, p->comm.pid, p->comm.time);
		if (p->comm.pid == p->comm.tid) {
			struct rep_proc *pr = proc_get(r, p->comm.pid, true);
			if (!pr)
				return -ENOMEM;
			pr->comm = c;
		}
		return 0;
	}
	case HPM_PREC_FORK: {
		/* a new thread shares its process's mappings; a new process
		 * starts with its parent's */
		if (p->task.pid == p->task.ppid)
			return 0;
		struct rep_proc *pr = proc_get(r, p->task.pid, true);
		if (!pr)
			return -ENOMEM;
		if (!pr->nr)
			pr->parent = p->task.ppid;
		uint64_t k = (uint32_t)p->task.ptid;
		long c = ht_get(r->h_comm, &k);
		if (c >= 0) {
			uint64_t k2 = (uint32_t)p->task.tid;
			if (ht_get(r->h_comm, &k2) < 0 && ht_put(r->h_comm, &k2, (size_t)c))
				return -ENOMEM;
			if (!pr->comm)
				pr->comm = (uint32_t)c;
		}
		return 0;
	}
	case HPM_PREC_LOST:
		if (p->lost.ev == UINT32_MAX || p->lost.ev < r->nr_ev)
			r->lost += p->lost.count;
		return 0;
	case HPM_PREC_THROTTLE:
		r->throttled++;
		return 0;
	default:
		return 0;
	}
}

static int open_profile(struct rep *r)
{
	int rc = hpm_profile__open(r->o.input, &r->prof);
	if (rc) {
		if (rc == -EBADMSG)
			fprintf(stderr, "hpmon: '%s' is not an hpmon profile, or its header is damaged\n",
				r->o.input);
		else if (rc == -EPROTO)
			fprintf(stderr, "hpmon: '%s' is a profile of a newer hpmon (format version "
				"above %d)\n", r->o.input, HPM_PROFILE_VERSION);
		else
			fprintf(stderr, "hpmon: cannot read '%s': %s\n", r->o.input, hpm_strerror(rc));
		return -1;
	}
	return 0;
}

int rep_load(struct rep *r, const struct rep_opts *o)
{
	struct hpm_prec p;
	int rc;

	memset(r, 0, sizeof(*r));
	r->o = *o;
	r->kernel_dso = UINT32_MAX;
	r->sb_gen = 1;
	r->memo = calloc(1, sizeof(*r->memo)); /* gen 0: empty */
	if (!r->memo)
		goto nomem;
	r->h_str = ht_new(2);
	r->h_dso = ht_new(4);
	r->h_loc = ht_new(2);
	r->h_sym = ht_new(2);
	r->h_line = ht_new(2);
	r->h_row = ht_new(SK_MAX);
	r->h_edge = ht_new(2);
	r->h_stack = ht_new(3);
	r->h_proc = ht_new(1);
	r->h_comm = ht_new(1);
	r->h_prev = ht_new(3);
	if (!r->h_str || !r->h_dso || !r->h_loc || !r->h_sym || !r->h_line || !r->h_row ||
	    !r->h_edge || !r->h_stack || !r->h_proc || !r->h_comm || !r->h_prev)
		goto nomem;
	/* string 0 is "", line 0 is "no line" */
	if (!PUSH(r, strs, nr_strs, cap_strs) || !(r->strs[0] = strdup("")))
		goto nomem;
	r->nr_strs = 1;
	if (!PUSH(r, lines, nr_lines, cap_lines))
		goto nomem;
	r->lines[r->nr_lines++] = (struct rep_line){ "", 0 };

	if (open_profile(r))
		return -1;
	r->meta = *hpm_profile__meta(r->prof);
	if (!o->callgraph) /* a flat listing: call chains are not decoded */
		hpm_profile__skip(r->prof, HPM_PROFILE_SKIP_CHAINS | HPM_PROFILE_SKIP_STACKS);
	r->nr_ev = r->meta.nr_events;
	for (r->main_ev = 0; r->main_ev < r->nr_ev && !r->meta.events[r->main_ev].trigger;)
		r->main_ev++;
	if (r->main_ev == r->nr_ev)
		r->main_ev = 0;
	r->ev_samples = calloc(r->nr_ev, sizeof(uint64_t));
	r->ev_period = calloc(r->nr_ev, sizeof(double));
	r->ev_read = calloc(r->nr_ev, sizeof(bool));
	if (!r->ev_samples || !r->ev_period || !r->ev_read)
		goto nomem;
	/* kallsyms is read only when the first kernel sample comes (add_sample),
	 * on a second thread while the rest of the file is decoded */
	/* one pass; a sample whose mapping is not known yet waits for the end */
	while ((rc = hpm_profile__next(r->prof, &p)) > 0) {
		if (p.type == HPM_PREC_SAMPLE) {
			if (p.sample.ev < r->nr_ev)
				add_sample(r, &p.sample, true);
		} else if (sideband(r, &p)) {
			goto nomem;
		}
	}
	if (rc < 0)
		goto nomem;
	for (size_t i = 0; i < r->nr_deferred; i++)
		add_sample(r, &r->deferred[i].s, false);
	if (r->ksym_thread_up) { /* no kernel sample needed it */
		pthread_join(r->ksym_thread, NULL);
		r->ksym_thread_up = false;
	}
	r->st = *hpm_profile__status(r->prof);
	if (r->st.complete) {
		r->lost_samples = r->st.totals.lost_samples;
		if (r->st.totals.throttled > r->throttled)
			r->throttled = r->st.totals.throttled;
	}
	return 0;
nomem:
	fprintf(stderr, "hpmon: out of memory reading '%s'\n", o->input);
	return -1;
}

void rep_free(struct rep *r)
{
	if (r->ksym_thread_up)
		pthread_join(r->ksym_thread, NULL);
	struct rep_proc *procs = r->procs;
	for (size_t i = 0; i < r->nr_procs; i++) {
		free(procs[i].maps);
		hpm_unwinder__free(procs[i].unw);
	}
	free(r->procs);
	for (size_t i = 0; i < r->nr_dsos; i++) {
		hpm_dso__free(r->dsos[i].d);
		hpm_jitmap__free(r->dsos[i].jit);
		free(r->dsos[i].path);
	}
	for (size_t i = 0; i < r->nr_locs; i++)
		free(r->locs[i].count);
	for (size_t i = 0; i < r->nr_rows; i++) {
		free(r->rows[i].samples);
		free(r->rows[i].period);
		free(r->rows[i].delta);
	}
	for (size_t i = 0; i < r->nr_stacks; i++)
		free(r->stacks[i].syms);
	for (size_t i = 0; i < r->nr_deferred; i++) {
		free(r->deferred[i].chain);
		free(r->deferred[i].vals);
	}
	free(r->deferred);
	for (size_t i = 0; i < r->nr_strs; i++)
		free(r->strs[i]);
	free(r->dsos);
	free(r->locs);
	free(r->syms);
	free(r->lines);
	free(r->rows);
	free(r->edges);
	free(r->stacks);
	free(r->strs);
	free(r->prev);
	free(r->stamp);
	free(r->frames);
	free(r->ev_samples);
	free(r->ev_period);
	free(r->ev_read);
	free(r->memo);
	rep_metrics_free(r->metrics);
	ht_free(r->h_str);
	ht_free(r->h_dso);
	ht_free(r->h_loc);
	ht_free(r->h_sym);
	ht_free(r->h_line);
	ht_free(r->h_row);
	ht_free(r->h_edge);
	ht_free(r->h_stack);
	ht_free(r->h_proc);
	ht_free(r->h_comm);
	ht_free(r->h_prev);
	hpm_kallsyms__free(r->kallsyms);
	hpm_profile__free(r->prof);
	memset(r, 0, sizeof(*r));
}

const char *rep_key_text(const struct rep *r, const struct rep_row *row, enum sort_key k,
			 char *buf, size_t len)
{
	uint64_t v = row->key[k];
	switch (k) {
	case SK_COMM: return rep_str(r, v);
	case SK_PID:
	case SK_TID:
	case SK_CPU:
		snprintf(buf, len, "%llu", (unsigned long long)v);
		return buf;
	case SK_DSO:
		return v < r->nr_dsos ? r->dsos[v].base : "?";
	case SK_SYM:
		return v < r->nr_syms ? r->syms[v].name : "?";
	case SK_LINE: {
		if (!v || v >= r->nr_lines)
			return "?";
		const char *f = r->lines[v].file, *sl = strrchr(f, '/');
		snprintf(buf, len, "%s:%u", sl ? sl + 1 : f, r->lines[v].line);
		return buf;
	}
	default:
		return "";
	}
}

static const struct rep *sort_rep; /* qsort has no argument pointer */

static int cmp_row(const void *a, const void *b)
{
	const struct rep_row *x = a, *y = b;
	uint32_t e = sort_rep->main_ev;
	if (x->period[e] != y->period[e])
		return x->period[e] > y->period[e] ? -1 : 1;
	for (uint32_t i = 0; i < sort_rep->nr_ev; i++)
		if (x->period[i] != y->period[i])
			return x->period[i] > y->period[i] ? -1 : 1;
	return memcmp(x->key, y->key, sizeof(x->key));
}

void rep_sort_rows(struct rep *r)
{
	r->last_row = 0;
	sort_rep = r;
	if (r->nr_rows > 1) /* an empty profile has no rows array at all */
		qsort(r->rows, r->nr_rows, sizeof(*r->rows), cmp_row);
	sort_rep = NULL;
	/* the table's indexes are stale now */
	ht_free(r->h_row);
	r->h_row = NULL;
}

int rep_parse_sort(const char *s, enum sort_key *keys, size_t *nr, char *bad, size_t len)
{
	char tmp[256];
	snprintf(tmp, sizeof(tmp), "%s", s);
	*nr = 0;
	for (char *save = NULL, *t = strtok_r(tmp, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		size_t k;
		for (k = 0; k < SK_MAX; k++)
			if (!strcmp(t, rep_key_names[k]) || (k == SK_SYM && !strcmp(t, "symbol")))
				break;
		if (k == SK_MAX) {
			snprintf(bad, len, "%s", t);
			return -1;
		}
		bool dup = false;
		for (size_t i = 0; i < *nr; i++)
			dup |= keys[i] == (enum sort_key)k;
		if (!dup && *nr < SK_MAX)
			keys[(*nr)++] = (enum sort_key)k;
	}
	if (!*nr) {
		snprintf(bad, len, "(empty)");
		return -1;
	}
	return 0;
}
