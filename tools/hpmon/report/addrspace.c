/* SPDX-License-Identifier: MIT */
/*
 * The address-space model of a report (report/report-internal.h): the
 * processes of the profile, their names and mappings over time (from the
 * side-band records), the objects mapped, and each distinct address
 * resolved once to a symbol and line of its object, of kallsyms or of a
 * JIT map.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <hpmon/symcache.h>
#include <hpmon/unwind.h>
#include "cache/kcache.h"
#include "report/report-internal.h"

/* ---- processes and their mappings ---- */

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
	long i = htab__get(r->h_proc, &k);
	if (i >= 0) {
		r->last_proc = (size_t)i;
		return &v[i];
	}
	if (!create)
		return NULL;
	v = vec__grow(r->procs, &r->cap_procs, r->nr_procs, sizeof(*v));
	if (!v)
		return NULL;
	r->procs = v;
	if (htab__put(r->h_proc, &k, r->nr_procs))
		return NULL;
	struct rep_proc *p = &v[r->nr_procs++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->parent = -1;
	return p;
}

/* The object (@path, @kind, @pid, build-id), made when new; when @charge,
 * a new one must fit under the memory cap. UINT32_MAX when it cannot. */
static uint32_t dso_get(struct rep *r, const char *path, enum dso_kind kind, pid_t pid,
			const uint8_t *bid, uint8_t bid_len, bool charge)
{
	uint64_t k[4] = { rep_intern(r, path), (uint64_t)kind, (uint32_t)pid, 0 };
	for (unsigned i = 0; i < bid_len && i < 8; i++)
		k[3] = k[3] << 8 | bid[i];
	long i = htab__get(r->h_dso, k);
	if (i >= 0)
		return (uint32_t)i;
	if (charge && !rep_charge(r, rep_cost(sizeof(struct rep_dso), 4, strlen(path) + 1, 1)))
		return UINT32_MAX;
	if (!PUSH(r, dsos, nr_dsos, cap_dsos) || htab__put(r->h_dso, k, r->nr_dsos))
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

/* Side-band records are few in a real profile: each is charged what it
 * may add (a process, a mapping, an object and its name), new or not.
 * Past the cap it is left out, and its samples fall to "[unknown]". */
static bool sideband_room(struct rep *r, size_t name_len)
{
	if (rep_charge(r, rep_cost(sizeof(struct rep_proc), 1, 0, 0) +
			  rep_cost(sizeof(struct rep_map), 0, 0, 0) +
			  rep_cost(sizeof(struct rep_dso), 4, 2 * (name_len + 1), 2)))
		return true;
	r->cap_records++;
	return false;
}

int addrspace__mmap(struct rep *r, const struct hpm_mmap_rec *m)
{
	if (!sideband_room(r, strlen(m->filename)))
		return 0;
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
			       m->build_id_len, false);
	if (dso == UINT32_MAX)
		return -ENOMEM;
	struct rep_map *v = vec__grow(p->maps, &p->cap, p->nr, sizeof(*v));
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

const struct rep_map *addrspace__find_map(struct rep *r, pid_t pid, uint64_t ip,
					  uint64_t time)
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

uint32_t addrspace__comm_of(struct rep *r, pid_t tid, pid_t pid)
{
	if (tid == 0)
		return rep_intern(r, "swapper"); /* the idle task: no comm record */
	if (r->last_comm && r->last_tid == tid)
		return r->last_comm;
	uint64_t k = (uint32_t)tid;
	long i = htab__get(r->h_comm, &k);
	if (i >= 0) {
		r->last_tid = tid;
		r->last_comm = (uint32_t)i;
		return (uint32_t)i;
	}
	struct rep_proc *p = proc_get(r, pid, false);
	return p && p->comm ? p->comm : rep_intern(r, "[unknown]");
}

/* ---- side-band records ---- */

int addrspace__comm(struct rep *r, const struct hpm_comm_rec *cr)
{
	if (!sideband_room(r, strlen(cr->comm)))
		return 0;
	uint32_t c = rep_intern(r, cr->comm);
	uint64_t k = (uint32_t)cr->tid;
	if (!c || htab__put(r->h_comm, &k, c))
		return -ENOMEM;
	if (cr->exec)
		on_exec(r, cr->pid, cr->time);
	if (cr->pid == cr->tid) {
		struct rep_proc *pr = proc_get(r, cr->pid, true);
		if (!pr)
			return -ENOMEM;
		pr->comm = c;
	}
	return 0;
}

int addrspace__fork(struct rep *r, const struct hpm_task_rec *t)
{
	/* a new thread shares its process's mappings; a new process starts
	 * with its parent's */
	if (t->pid == t->ppid || !sideband_room(r, 0))
		return 0;
	struct rep_proc *pr = proc_get(r, t->pid, true);
	if (!pr)
		return -ENOMEM;
	if (!pr->nr)
		pr->parent = t->ppid;
	uint64_t k = (uint32_t)t->ptid;
	long c = htab__get(r->h_comm, &k);
	if (c >= 0) {
		uint64_t k2 = (uint32_t)t->tid;
		if (htab__get(r->h_comm, &k2) < 0 && htab__put(r->h_comm, &k2, (size_t)c))
			return -ENOMEM;
		if (!pr->comm)
			pr->comm = (uint32_t)c;
	}
	return 0;
}

/* ---- resolving addresses ---- */

static uint32_t sym_get(struct rep *r, uint32_t dso, const char *name, uint64_t start,
			uint64_t size, bool resolved)
{
	uint64_t k[2] = { dso, rep_intern(r, name) };
	long i = htab__get(r->h_sym, k);
	if (i >= 0)
		return (uint32_t)i;
	if (strcmp(name, REP_CAPPED_NAME) &&
	    !rep_charge(r, rep_cost(sizeof(struct rep_sym), 2, 0, 0)))
		/* past the memory cap: the object's one symbol for the rest */
		return sym_get(r, dso, REP_CAPPED_NAME, 0, 0, false);
	if (!PUSH(r, syms, nr_syms, cap_syms) || htab__put(r->h_sym, k, r->nr_syms))
		return UINT32_MAX;
	r->syms[r->nr_syms] = (struct rep_sym){ .name = rep_str(r, k[1]), .dso = dso,
						 .start = start, .size = size, .resolved = resolved };
	return (uint32_t)r->nr_syms++;
}

static uint32_t line_get(struct rep *r, const char *file, unsigned line)
{
	uint64_t k[2] = { rep_intern(r, file), line };
	long i = htab__get(r->h_line, k);
	if (i >= 0)
		return (uint32_t)i;
	if (!PUSH(r, lines, nr_lines, cap_lines) || htab__put(r->h_line, k, r->nr_lines))
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
		objcache__opened(r, d);
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

struct hpm_dso *rep_dso_open(struct rep *r, struct rep_dso *d)
{
	if (!d->tried)
		open_dso(r, d);
	return d->kind == DK_FILE || d->kind == DK_VDSO ? d->d : NULL;
}

bool rep_dso_has_symbols(const struct rep_dso *d)
{
	return objcache__has_symbols(d);
}

/*
 * What file offset (vdso: offset in the vdso) @off of @d is, with the
 * parts @flags asks for: from the object's symbol cache, else read from
 * the object (kept for the cache, with the parts the cache's entry had
 * too, so that none is lost). False when the object cannot be read.
 */
static bool file_answer(struct rep *r, struct rep_dso *d, uint64_t off, unsigned flags,
			struct hpm_symcache_entry *e)
{
	const unsigned dwarf = HPM_SYM_LINES | HPM_SYM_INLINE;
	unsigned have = 0;
	struct hpm_symbol s;

	if (d->kind == DK_FILE && objcache__lookup(r, d, off, flags, e, &have))
		return true;
	if (!rep_dso_open(r, d))
		return false;
	memset(e, 0, sizeof(*e));
	e->off = off;
	e->flags = flags | (have & dwarf);
	if (hpm_dso__offset_to_addr(d->d, off, &e->addr))
		e->addr = off;
	int rc = hpm_dso__lookup(d->d, e->addr, e->flags, &s);
	if (!rc) {
		e->name = s.name;
		e->start = s.start;
		e->size = s.size;
		e->inl = s.nr_inline ? s.inl[0].name : NULL;
	}
	if (s.file && s.line) {
		e->file = s.file;
		e->line = s.line;
	}
	if (rc == 0 || rc == -ENOENT)
		objcache__add(r, d, e);
	/* what was asked, no more */
	e->flags = flags;
	if (!(flags & HPM_SYM_INLINE))
		e->inl = NULL;
	if (!(flags & HPM_SYM_LINES)) {
		e->file = NULL;
		e->line = 0;
	}
	return true;
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
	long i = htab__get(r->h_loc, k);
	if (i >= 0)
		return (uint32_t)i;
	struct rep_dso *d = &r->dsos[dso];
	struct rep_loc l = { .dso = dso, .addr = off };
	char buf[PATH_MAX + 64];
	const char *name = NULL;
	uint64_t start = 0, size = 0;
	bool resolved = false;

	struct hpm_symcache_entry e;
	if (!d->tried && d->kind != DK_FILE && d->kind != DK_VDSO)
		open_dso(r, d); /* a JIT map */
	unsigned flags = (r->o.lines ? HPM_SYM_LINES : 0) | (r->o.inlines ? HPM_SYM_INLINE : 0) |
			 (r->o.no_demangle ? 0 : HPM_SYM_DEMANGLE);
	if ((d->kind == DK_FILE || d->kind == DK_VDSO) && file_answer(r, d, off, flags, &e)) {
		l.addr = e.addr;
		if (e.name) {
			name = e.name;
			start = e.start;
			size = e.size;
			resolved = true;
			if (e.inl) {
				/* the innermost function whose code this is */
				snprintf(buf, sizeof(buf), "%s (inlined in %s)", e.inl, e.name);
				name = buf;
			}
		}
		if (e.file && e.line)
			l.line = line_get(r, e.file, e.line);
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
	/* past the memory cap, this address is not kept on its own: it counts
	 * for its symbol (annotate loses its instruction), or for the
	 * object's "[memory cap]" when it has none */
	bool room = rep_charge(r, rep_cost(sizeof(struct rep_loc), 2, 8 * r->nr_ev, 1));
	if (!room) {
		if (!name) {
			name = REP_CAPPED_NAME;
			start = size = 0;
		}
		l.line = 0;
		l.capped = true;
		l.addr = start;
		k[1] = 1ull << 63 | sym_get(r, dso, name, start, size, resolved);
		i = htab__get(r->h_loc, k);
		if (i >= 0)
			return (uint32_t)i;
	}
	if (!name) {
		/* shown by object and offset */
		snprintf(buf, sizeof(buf), "%s+0x%llx", d->kind == DK_UNKNOWN ? "[unknown]" : d->base,
			 (unsigned long long)(d->kind == DK_FILE ? off : l.addr));
		name = buf;
	}
	l.sym = room ? sym_get(r, dso, name, start, size, resolved) : (uint32_t)k[1];
	if (l.sym == UINT32_MAX)
		return UINT32_MAX;
	l.count = calloc(r->nr_ev, sizeof(uint64_t));
	if (!l.count || !PUSH(r, locs, nr_locs, cap_locs) || htab__put(r->h_loc, k, r->nr_locs)) {
		free(l.count);
		return UINT32_MAX;
	}
	r->locs[r->nr_locs] = l;
	return (uint32_t)r->nr_locs++;
}

static uint32_t kernel_dso(struct rep *r)
{
	return dso_get(r, "[kernel.kallsyms]", DK_KERNEL, 0, NULL, 0, false);
}

uint32_t addrspace__resolve_in(struct rep *r, pid_t pid, uint64_t ip, enum hpm_mode mode,
			       const struct rep_map *m)
{
	if (rep_kernel_mode(mode)) {
		if (r->kernel_dso == UINT32_MAX)
			r->kernel_dso = kernel_dso(r);
		return r->kernel_dso == UINT32_MAX ? UINT32_MAX : loc_get(r, r->kernel_dso, ip);
	}
	if (!m) {
		char path[64];
		snprintf(path, sizeof(path), "[unknown]");
		uint32_t d = dso_get(r, path, DK_UNKNOWN, 0, NULL, 0, false);
		if (d == UINT32_MAX)
			return d;
		/* a JIT map may still know it (one object per process: charged) */
		uint32_t j = dso_get(r, "//anon", DK_ANON, pid, NULL, 0, true);
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

uint32_t addrspace__resolve(struct rep *r, pid_t pid, uint64_t ip, enum hpm_mode mode,
			    uint64_t time)
{
	return addrspace__resolve_in(r, pid, ip, mode,
				     rep_kernel_mode(mode) ? NULL
							   : addrspace__find_map(r, pid, ip, time));
}

bool addrspace__kallsyms_start(struct rep *r)
{
	r->ksym_thread_up = !pthread_create(&r->ksym_thread, NULL, load_kallsyms, r);
	return r->ksym_thread_up;
}

/* The kernel's form: a PERF_CONTEXT_USER marker, then the addresses. */
bool addrspace__unwind(struct rep *r, const struct hpm_sample *s, struct hpm_sample *out,
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
	/* the kernel's part first (up to half the room), as perf shows it */
	size_t k = 0;
	while (k < s->nr_chain && k < UNWIND_MAX / 2 && s->chain[k] != (uint64_t)-512)
		k++;
	if (k) /* a sample without a kernel part may have no chain at all */
		memcpy(chain, s->chain, k * sizeof(*chain));
	int n = hpm_unwinder__unwind(p->unw, s, chain + k + 1, UNWIND_MAX - k - 1);
	if (n <= 0)
		return false;
	chain[k] = (uint64_t)-512; /* PERF_CONTEXT_USER */
	*out = *s;
	out->chain = chain;
	out->nr_chain = (uint32_t)(k + 1 + (size_t)n);
	return true;
}

/* ---- the tables ---- */

int addrspace__init(struct rep *r)
{
	r->kernel_dso = UINT32_MAX;
	r->h_dso = htab__new(4);
	r->h_loc = htab__new(2);
	r->h_sym = htab__new(2);
	r->h_line = htab__new(2);
	r->h_proc = htab__new(1);
	r->h_comm = htab__new(1);
	if (!r->h_dso || !r->h_loc || !r->h_sym || !r->h_line || !r->h_proc || !r->h_comm)
		return -ENOMEM;
	/* line 0 is "no line" */
	if (!PUSH(r, lines, nr_lines, cap_lines))
		return -ENOMEM;
	r->lines[r->nr_lines++] = (struct rep_line){ "", 0 };
	return 0;
}

void addrspace__free(struct rep *r)
{
	if (r->ksym_thread_up)
		pthread_join(r->ksym_thread, NULL);
	r->ksym_thread_up = false;
	objcache__save(r);
	struct rep_proc *procs = r->procs;
	for (size_t i = 0; i < r->nr_procs; i++) {
		free(procs[i].maps);
		hpm_unwinder__free(procs[i].unw);
	}
	free(r->procs);
	for (size_t i = 0; i < r->nr_dsos; i++) {
		objcache__release(&r->dsos[i]);
		hpm_dso__free(r->dsos[i].d);
		hpm_jitmap__free(r->dsos[i].jit);
		free(r->dsos[i].path);
	}
	for (size_t i = 0; i < r->nr_locs; i++)
		free(r->locs[i].count);
	free(r->dsos);
	free(r->locs);
	free(r->syms);
	free(r->lines);
	htab__free(r->h_dso);
	htab__free(r->h_loc);
	htab__free(r->h_sym);
	htab__free(r->h_line);
	htab__free(r->h_proc);
	htab__free(r->h_comm);
	hpm_kallsyms__free(r->kallsyms);
}
