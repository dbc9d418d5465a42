/* SPDX-License-Identifier: MIT */
/*
 * Between the files of the report layer (report/report.h), bottom-up:
 * strings.c, addrspace.c, chains.c, aggregate.c, load.c; table.h under
 * them all.
 * Each file's functions use only those of the files before it.
 *
 * Room: tools/hpmon/report/ owns the report layer (a profile read into tables, its listings, per-row metrics, a function per instruction); may use counting, cache, output.
 * Ownership: everything lives in the struct rep; each file's __init makes
 * its tables and its __free frees them (and what they hold), which
 * rep_load and rep_free call. Ids and indexes handed out stay valid until
 * then; pointers into the vectors (a struct rep_map, a row) only until
 * the next call that may add to the same vector.
 */
#ifndef HPMON_TOOL_REPORT_INTERNAL_H
#define HPMON_TOOL_REPORT_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include "report/report.h"
#include "report/table.h"

/*
 * The memory cap. A profile is untrusted input, and a record of a few
 * bytes can ask for far more (a sample of a new process, a new address,
 * a 4096-entry call chain repeated by reference): whatever grows with the
 * file is charged here, at an estimate of what it costs with the hash
 * tables' and vectors' slack, against REP_MEM_BASE plus REP_MEM_PER_RAW
 * times the bytes of records decoded so far. Past it, what would be new
 * is folded (the rows, symbols and addresses "[memory cap]") or left out,
 * and counted in r->cap_*; the reader's chunk (up to 64 MiB, the raw size
 * itself) and the program (about 14 MiB) are outside it. So a report
 * stays under 64 MiB plus 4 times the file's uncompressed size
 * (tests/e2e/report-bounds.sh).
 */
#define REP_MEM_BASE (48ull << 20)
#define REP_MEM_PER_RAW 3

static inline uint64_t rep_cap(const struct rep *r)
{
	/* during the pass the bytes read so far, after it the whole file's */
	return REP_MEM_BASE + REP_MEM_PER_RAW * (r->live ? r->live->raw_bytes : r->st.raw_bytes);
}

/* Charge @n bytes: false, and nothing charged, when that would pass the cap. */
static inline bool rep_charge(struct rep *r, uint64_t n)
{
	if (r->mem + n > rep_cap(r))
		return false;
	r->mem += n;
	return true;
}

/*
 * Charge @n bytes of the ranks of a merged profile: its RANK records
 * (ranks.c) and the rows keyed by rank and host alone (aggregate.c).
 * They are the reason a merge exists, so the cap never folds them: they
 * are charged like the rest, so that other detail gives way first, and
 * refused only past an allowance of their own, REP_MEM_RANKS_BASE plus
 * the bytes of records decoded so far. With the cap that keeps report
 * under 64 MiB + 4 x the file's uncompressed size, and a merge's ranks,
 * a few dozen bytes a task and a rank, take far less than its records.
 */
#define REP_MEM_RANKS_BASE (2ull << 20)
static inline bool rep_charge_ranks(struct rep *r, uint64_t n)
{
	uint64_t raw = r->live ? r->live->raw_bytes : r->st.raw_bytes;
	if (r->mem_ranks + n > REP_MEM_RANKS_BASE + raw)
		return false;
	r->mem_ranks += n;
	r->mem += n;
	return true;
}

static inline void rep_uncharge(struct rep *r, uint64_t n)
{
	r->mem = n < r->mem ? r->mem - n : 0;
}

/* An item of @size bytes in a doubling vector, found through a table of
 * @kw-word keys, with @heap bytes more in @mallocs allocations of its own. */
static inline uint64_t rep_cost(size_t size, unsigned kw, size_t heap, unsigned mallocs)
{
	return 2 * (uint64_t)size + 3 * (8 * (uint64_t)kw + 4) + heap + 32 * (uint64_t)mallocs;
}

/* The text of a row's key past the cap, for pid, tid, cpu and line. */
#define REP_KEY_CAPPED UINT64_MAX
#define REP_CAPPED_NAME "[memory cap]"

/* ---- strings.c: interned strings ---- */

/* Make string 0, "". 0 or -ENOMEM. */
int rep_strings__init(struct rep *r);
void rep_strings__free(struct rep *r);
/* The id of string @s (a copy is kept); ids start at 1; 0 on no memory. */
uint32_t rep_intern(struct rep *r, const char *s);

/* ---- addrspace.c: processes, their names and mappings; objects,
 * symbols, lines and resolved addresses ---- */

/* One mapping of a process, live from @time until @dead (its process's
 * exec after it, or UINT64_MAX). */
struct rep_map {
	uint64_t start, end, pgoff, time, dead;
	uint32_t dso;
};

int addrspace__init(struct rep *r);
/* Waits for the kallsyms reader first, when one runs. */
void addrspace__free(struct rep *r);

/* Side-band records. 0 or -ENOMEM. */
int addrspace__mmap(struct rep *r, const struct hpm_mmap_rec *m);
int addrspace__comm(struct rep *r, const struct hpm_comm_rec *c);
int addrspace__fork(struct rep *r, const struct hpm_task_rec *t);

/* The name id of thread @tid of process @pid ("swapper", "[unknown]"). */
uint32_t addrspace__comm_of(struct rep *r, pid_t tid, pid_t pid);
/* The mapping of @pid (or an ancestor's, for a child that has not mapped
 * anything of its own) that covered @ip at @time, or NULL. */
const struct rep_map *addrspace__find_map(struct rep *r, pid_t pid, uint64_t ip,
					  uint64_t time);
/* The loc of @ip of @pid in @mode; @m is addrspace__find_map's answer for
 * it (user and unknown modes). UINT32_MAX on no memory. */
uint32_t addrspace__resolve_in(struct rep *r, pid_t pid, uint64_t ip, enum hpm_mode mode,
			       const struct rep_map *m);
/* The same, finding the mapping at @time. */
uint32_t addrspace__resolve(struct rep *r, pid_t pid, uint64_t ip, enum hpm_mode mode,
			    uint64_t time);
/* --call-graph dwarf: sample @s's chain in the kernel's form, as *@out
 * with @chain (UNWIND_MAX entries) for its chain: the kernel part the
 * sample carries (a sample taken in the kernel), then the user part
 * unwound from its registers and stack copy. */
#define UNWIND_MAX 256
bool addrspace__unwind(struct rep *r, const struct hpm_sample *s, struct hpm_sample *out,
		       uint64_t *chain);
/* Start reading kallsyms on a second thread (the kernel takes tens of
 * ms to list them); false when no thread could be started. */
bool addrspace__kallsyms_start(struct rep *r);

/* ---- objcache.c: the objects' symbol caches ---- */

struct hpm_symcache_entry;
/* The answer of @d's cache for (@off, @flags), read at the first call:
 * true and *@e; else false, and in *@have the flags of the entry for
 * @off that did not answer (0 if none). */
bool objcache__lookup(struct rep *r, struct rep_dso *d, uint64_t off, unsigned flags,
		      struct hpm_symcache_entry *e, unsigned *have);
/* @d was just read: may its answers be saved? */
void objcache__opened(struct rep *r, struct rep_dso *d);
/* Keep @e, an answer read from @d, for the cache. */
void objcache__add(struct rep *r, struct rep_dso *d, const struct hpm_symcache_entry *e);
/* At the end of the report: each object's new answers saved. */
void objcache__save(struct rep *r);
void objcache__release(struct rep_dso *d);
bool objcache__has_symbols(const struct rep_dso *d);

static inline bool rep_kernel_mode(enum hpm_mode mode)
{
	return mode == HPM_MODE_KERNEL || mode == HPM_MODE_GUEST_KERNEL || mode == HPM_MODE_HV;
}

/* ---- ranks.c: the ranks of a merged profile ---- */

int ranks__init(struct rep *r);
void ranks__free(struct rep *r);
/* A RANK record. 0 or -ENOMEM. */
int ranks__record(struct rep *r, const struct hpm_rank_rec *k);
/* Once the header is read: a rank's own profile is its one rank. */
int ranks__start(struct rep *r);
/* The string id of the host of @pid's rank, or of rank @rank; 0 when not known. */
uint32_t ranks__host_of(struct rep *r, pid_t pid);
uint32_t ranks__host_of_rank(const struct rep *r, uint32_t rank);

/* ---- chains.c: call chains read (rep_chain_next) and resolved ---- */

/* The sample's frames as locs, leaf first (@leaf, the sampled address),
 * into r->xlocs, and the address each resolved into r->xips: their
 * number (1, the leaf alone, for a corrupt chain; 0 without memory). */
size_t chains__locs(struct rep *r, const struct hpm_sample *s, uint32_t leaf);
/* The same frames as sym ids into r->frames. */
size_t chains__syms(struct rep *r, const struct hpm_sample *s, uint32_t leaf);
/*
 * -g: @n samples like @s (at loc @leaf, of the task named @comm) to the
 * call graph and the folded stacks. Their stack is resolved once and
 * kept; its samples are added when another stack comes (the first run)
 * or at chains__flush (the later ones).
 */
void chains__wait(struct rep *r, const struct hpm_sample *s, uint32_t comm, uint32_t leaf,
		  uint64_t n);
/* The stack the last sample of chains__wait waits in; NULL when none. */
struct rep_cg *chains__last(const struct rep *r);
/* Every stack that waits, added. */
void chains__flush(struct rep *r);
void chains__free(struct rep *r);

/* ---- aggregate.c: rows, call graphs, folded stacks, group counts ---- */

int aggregate__init(struct rep *r);
void aggregate__free(struct rep *r);
/* Account sample @s; when @may_defer, one whose mapping or kernel
 * symbols are not known yet is kept aside for aggregate__flush. */
void aggregate__sample(struct rep *r, const struct hpm_sample *s, bool may_defer);
/* Right after aggregate__sample(@s): the time before which samples that
 * repeat @s (hpm_profile__repeats) go where it went (or wait with it,
 * when it was kept aside), and can be added with aggregate__repeat; 0
 * when they cannot (it carries group counts, or its run of call chains
 * is not the one waiting). */
uint64_t aggregate__repeat_until(const struct rep *r, const struct hpm_sample *s);
/* @n more samples like @s. */
void aggregate__repeat(struct rep *r, const struct hpm_sample *s, uint32_t n);
/* The samples kept aside, now that the whole file is read. */
void aggregate__flush(struct rep *r);

#endif
