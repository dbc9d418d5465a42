/* SPDX-License-Identifier: MIT */
/*
 * The report layer: a profile read into tables, for report, annotate and
 * diff. It reads a profile once (a sample whose mapping is not known yet,
 * because another CPU's buffer was written after it, waits until the
 * end), resolves each distinct address once, and aggregates samples into
 * rows by the sort keys. It measures nothing and prints nothing; the
 * commands and print-report.c (report-view.h) sit above it.
 *
 * The layer's files, bottom-up: table.c (hash table, vectors), strings.c
 * (interned strings), addrspace.c (processes, their mappings and names,
 * objects, symbols: the address-space model), aggregate.c (rows, call
 * graphs, folded stacks, group counts), keys.c (sort keys), filter.c
 * (the filters' lists and tests), ranks.c (a merged profile's ranks and
 * hosts), load.c (the pass over the file).
 * report-internal.h joins them.
 *
 * Room: tools/hpmon/report/ owns the report layer (a profile read into tables, its listings, per-row metrics, a function per instruction); may use counting, cache, output.
 * Ownership: struct rep is the caller's (usually on its stack); rep_load
 * fills it and rep_free frees what it holds. Every string, symbol, row and
 * object it hands out lives as long as the rep, until rep_free; the
 * profile's metadata strings (meta) too, since the profile is kept open.
 */
#ifndef HPMON_TOOL_REPORT_REPORT_H
#define HPMON_TOOL_REPORT_REPORT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <hpmon/profile.h>
#include <hpmon/symbols.h>

/* rank and host: a merged profile's (hpmon merge), or a rank's own */
enum sort_key { SK_COMM, SK_PID, SK_TID, SK_DSO, SK_SYM, SK_LINE, SK_CPU, SK_RANK, SK_HOST,
		SK_MAX };
/* The words of a row's key: rank and host ride in the high half of the
 * CPU's word (a row costs no more than before them): rank + 1 (0: none)
 * when rank is a key, which says the host too, else the host's string
 * id. rep_key_value takes them apart. */
#define REP_KEY_WORDS SK_RANK
static inline unsigned rep_key_word(enum sort_key k) { return k >= SK_RANK ? SK_CPU : k; }

/*
 * The filters (--comm, --pid, --tid, --dso, --sym): each a list, split at
 * commas as perf splits its lists, so a name cannot hold a comma. A
 * sample is kept when it passes every filter given: its task's name is
 * one of the comms, its process one of the pids, and so on. A --sym name
 * is a function's whole name or, for a demangled C++ name, the name
 * without its parameters ("ns::f" for "ns::f(int, int)"). The names point
 * into the arguments given (borrowed: they must outlive the filter).
 */
#define REP_LIST_MAX 256
struct rep_list {
	size_t nr;
	const char *v[REP_LIST_MAX];  /* not NUL-terminated at len */
	size_t len[REP_LIST_MAX];
};

struct rep_filter {
	struct rep_list comms, dsos, syms;
	pid_t pids[REP_LIST_MAX], tids[REP_LIST_MAX];
	size_t nr_pids, nr_tids;
	uint32_t rank_lo[REP_LIST_MAX], rank_hi[REP_LIST_MAX]; /* --rank 0,2-5 */
	size_t nr_ranks;
};

enum rep_filter_kind { RF_COMM, RF_PID, RF_TID, RF_DSO, RF_SYM, RF_RANK };

/* Add the items of @arg ("a,b", borrowed) to the list @k of @f (an option
 * given twice adds to its list). 0; or -EINVAL (an empty item, an id
 * that is not one, a --sym item a comma cut out of a longer name) or
 * -E2BIG (more than REP_LIST_MAX items), with the reason and its fix in
 * @why, for the command to print. */
int rep_filter__add(struct rep_filter *f, enum rep_filter_kind k, const char *arg, char *why,
		    size_t len);
/* Whether @f (or NULL) filters anything. */
bool rep_filter__any(const struct rep_filter *f);
/* @s is one of the names of @l. */
bool rep_list__has(const struct rep_list *l, const char *s);
/* Function @name is named by one of @l's names (rep_sym_named). */
bool rep_list__names_sym(const struct rep_list *l, const char *name);
/* @given (@n bytes) names function @name: the whole name, or a demangled
 * name without its parameters ("ns::f" for "ns::f(int)"); a function
 * template's also without its return type, as perf shows it ("ns::g<long>"
 * for "long ns::g<long>(long)"). */
bool rep_sym_named(const char *name, const char *given, size_t n);
bool rep_ids__has(const pid_t *v, size_t n, pid_t x);
/* Rank @rank is in @f's --rank list (true when it has none). */
bool rep_filter__has_rank(const struct rep_filter *f, uint32_t rank);

struct rep;

/* A sample as it is accounted, for what reads every sample rather than
 * the rows (the exports, tools/hpmon/export/). Valid during the call. */
struct rep_xsample {
	const struct hpm_sample *s;  /* time, pid, tid, cpu, ev, period */
	uint32_t comm;               /* the task's name (string id) at the sample */
	/* Its frames, leaf first: locs[0] is the sampled address; then the
	 * call chain's (or the DWARF unwinder's) return addresses, each
	 * resolved at its byte before (ips[i] is the address resolved). With
	 * callgraph, else the leaf alone. */
	const uint32_t *locs;
	const uint64_t *ips;
	size_t nr;
	/* The same frames as the previous sample's (a run of samples with
	 * one call chain, resolved once as for the call graph). */
	bool same;
	/* [nr_ev] counts read from its group since the same thread's previous
	 * sample of the event on that CPU (0 for events outside the group);
	 * NULL when the sample read none. */
	const double *delta;
};

/* Called for every sample that passes the filters, and every LOST
 * record, during rep_load (a sample whose mapping is not known yet comes
 * late, out of time order). */
struct rep_sink {
	void (*sample)(void *arg, struct rep *r, const struct rep_xsample *x);
	void (*lost)(void *arg, struct rep *r, const struct hpm_lost_rec *l);
	void *arg;
};

struct rep_opts {
	const char *input;
	enum sort_key keys[SK_MAX];
	size_t nr_keys;
	bool lines;               /* resolve source lines */
	bool inlines;             /* name inlined functions */
	bool no_demangle;         /* C++ and Rust names as in the symbol table */
	bool callgraph;           /* inclusive/self and edges from call chains */
	bool folded;              /* collect stacks for --folded */
	const struct rep_filter *filter; /* borrowed; NULL: every sample */
	bool all_stacks;          /* with folded: every event's stacks, not only
				     the main event's (report --html) */
	const char *debug_dir;    /* NULL: /usr/lib/debug */
	const char *procfs;       /* for kallsyms, default /proc */
	/* where kallsyms of this boot and the objects' symbol caches are
	 * kept (cachedir.h); NULL: neither read nor written */
	const char *cache_dir;
	const struct rep_sink *sink; /* NULL: none */
};

enum dso_kind { DK_FILE, DK_KERNEL, DK_VDSO, DK_ANON, DK_UNKNOWN };

struct rep_dso {
	char *path;
	const char *base;          /* basename of path */
	enum dso_kind kind;
	pid_t pid;                 /* DK_ANON: whose JIT map */
	uint8_t build_id[HPM_BUILD_ID_MAX];
	uint8_t build_id_len;
	/* the object read, once a look-up needed it (rep_dso_open); NULL
	 * while its symbol cache answers */
	struct hpm_dso *d;
	struct hpm_jitmap *jit;
	bool tried;
	int open_err;              /* why it could not be opened */
	struct hpm_symcache *cache;  /* saved answers that hold (objcache.c) */
	struct hpm_symcache *fresh;  /* this report's answers, saved at the end */
	bool cache_tried;
	bool cache_over;             /* past the caches' memory budget: left alone */
	uint64_t samples, nosym;   /* samples in it, and without a symbol */
};

struct rep_loc {               /* one distinct resolved address (32 bytes:
				      there may be millions) */
	uint32_t dso;
	uint32_t capped : 1;       /* stands for every address of its symbol
				      (or object) met past the memory cap */
	uint32_t row : 31;         /* its row + 1 when rows are keyed by the
				      place alone (dso, sym, line); 0 not yet */
	uint64_t addr;             /* link-time address (DK_FILE), else runtime */
	uint32_t sym;              /* index into syms */
	uint32_t line;             /* index into lines, 0 = none */
	uint64_t *count;           /* [nr_ev] samples (annotate) */
};

struct rep_sym {
	const char *name;
	uint32_t dso;
	uint64_t start, size;      /* link-time, when known */
	bool resolved;             /* a real symbol, not dso+offset */
	double incl, self;         /* -g, of the main event's period */
};

struct rep_line {
	const char *file;
	unsigned line;
};

struct rep_row {
	uint64_t key[REP_KEY_WORDS];     /* rep_key_word(sort key) */
	uint64_t *samples;         /* [nr_ev] */
	double *period;            /* [nr_ev] */
	double *delta;             /* [nr_ev] counts read from groups */
};

struct rep_rank {              /* a rank of a merged profile (ranks.c) */
	uint32_t rank;
	uint32_t host;             /* string id, 0 when not known */
};

struct rep_edge {
	uint32_t caller, callee;
	double period;
};

struct rep_stack {
	uint32_t comm;
	uint32_t ev;               /* the event whose samples these are */
	uint32_t *syms;            /* root first */
	uint32_t nr;
	uint64_t samples;
	double period;
};

/* -g: a stack that waits to be added to the call graph, with the samples
 * that had it (chains.c, chains__wait); xlast: the sink's last stack */
struct rep_cg {
	uint64_t *chain; uint32_t nr_chain, cap;
	uint32_t gen, comm, leaf, ev;
	pid_t pid;
	uint64_t ip;
	enum hpm_mode mode;
	size_t n;                  /* frames: in .frames (xlast: in rep.xlocs) */
	uint32_t *frames;          /* sym ids, leaf first */
	double w;                  /* period of its samples */
	uint64_t nr_samples;       /* 0: none waits */
	uint64_t cost;             /* bytes it holds (chains.c, CG_WAIT_MAX) */
};

struct htab;
struct deferred;
struct rep_memo;
struct rep_metrics;

#define LOC_CACHE 4096
struct loc_cache { uint64_t off; uint32_t dso, loc; /* loc + 1, 0 empty */ };

struct rep {
	struct rep_opts o;
	struct hpm_profile_meta meta;      /* copied strings below stay valid */
	struct hpm_profile *prof;          /* kept open for meta's strings */
	struct hpm_profile_status st;
	uint32_t nr_ev;
	uint32_t main_ev;                  /* first trigger */
	uint64_t *ev_samples;              /* [nr_ev] totals */
	double *ev_period;
	uint64_t lost, lost_samples, throttled, filtered;
	uint64_t first_time;               /* of the file's first timed sample */
	bool have_chains, have_groups;
	bool *ev_read;                     /* [nr_ev] counts read at samples (groups) */
	/* -M, --metric, --metrics-file (report-view.h); NULL: none. Set and
	 * freed by the commands above this layer: rep_free leaves it. */
	struct rep_metrics *metrics;
	/* tables */
	struct rep_dso *dsos; size_t nr_dsos, cap_dsos;
	struct rep_loc *locs; size_t nr_locs, cap_locs;
	struct rep_sym *syms; size_t nr_syms, cap_syms;
	struct rep_line *lines; size_t nr_lines, cap_lines;
	struct rep_row *rows; size_t nr_rows, cap_rows;
	struct rep_edge *edges; size_t nr_edges, cap_edges;
	struct rep_stack *stacks; size_t nr_stacks, cap_stacks;
	struct rep_rank *ranks; size_t nr_ranks, cap_ranks; /* by first mention */
	struct htab *h_rank, *h_task;      /* rank -> ranks[]; task id -> ranks[] */
	pid_t last_task; long last_task_rank; /* rank_index's cache */
	bool by_rank;                      /* rank is a sort key */
	char **strs; size_t nr_strs, cap_strs;
	struct htab *h_str, *h_dso, *h_loc, *h_sym, *h_line, *h_row, *h_edge, *h_stack,
		    *h_proc, *h_comm, *h_prev;
	void *procs; size_t nr_procs, cap_procs, last_proc;
	uint64_t *prev; size_t nr_prev, cap_prev;
	uint64_t last_prev[3]; size_t last_prev_i; /* add_deltas' last (tid, cpu, event) */
	struct hpm_kallsyms *kallsyms;
	uint32_t kernel_dso;               /* [kernel.kallsyms], UINT32_MAX until needed */
	bool kallsyms_tried;
	bool kallsyms_full;                /* read from procfs, not a saved table */
	int objcache_dir;                  /* CACHE/symbols: 0 not checked, 1 the user's, -1 not */
	uint64_t objcache_bytes;           /* of the symbol caches read */
	pthread_t ksym_thread;        /* reads kallsyms during the pass */
	bool ksym_thread_up, ksym_thread_failed;
	uint32_t *stamp; size_t stamp_cap; uint32_t gen;
	uint32_t *frames; size_t frames_cap;
	uint32_t *xlocs; uint64_t *xips; size_t xcap; /* a sample's frames as locs */
	struct rep_cg xlast;                 /* whose frames xlocs holds (n: how many) */
	double *xdelta;                      /* [nr_ev], for the sink */
	uint64_t *taken;                     /* [nr_ev]: the sample in hand's group counts */
	/* -g: the stacks kept, distinct, and the samples that wait in them */
	struct rep_cg *cgs; size_t nr_cgs, cap_cgs;
	size_t cg_last;                      /* the last sample's, index + 1; 0 none */
	size_t cg_new;                       /* the one whose first run waits, the same */
	uint64_t cg_mem;                     /* bytes they hold */
	struct htab *h_cg;
	struct deferred *deferred; size_t nr_deferred, cap_deferred;
	bool last_deferred;                  /* the sample in hand waits, the last of them */
	struct loc_cache loc_cache[LOC_CACHE];
	pid_t last_tid; uint32_t last_comm;  /* comm_of's cache */
	uint32_t filter_comm;                /* the last name the comm filter saw, */
	bool filter_comm_ok;                 /* and its verdict (0: none yet) */
	struct rep_memo *memo;               /* where the last sample went */
	uint32_t sb_gen;                     /* side-band records read, from 1 */
	size_t last_row;                     /* row_get's cache, index + 1 */
	/* The memory cap (report/report-internal.h, rep_charge): what the
	 * tables that grow with the file hold, and what was folded or left
	 * out to stay under it; rep_load says so on stderr. */
	const struct hpm_profile_status *live; /* the reader's, during the pass */
	uint64_t mem;                        /* bytes charged */
	uint64_t mem_ranks;                  /* of which the ranks' (rep_charge_ranks) */
	uint64_t mem_deferred;               /* of which samples waiting */
	uint64_t cap_early;                  /* samples resolved before the end */
	uint64_t cap_samples;                /* samples put in a "[memory cap]" row or symbol */
	uint64_t cap_records;                /* side-band records and details left out */
};

/* Read and aggregate. 0, or prints why to stderr and returns -1; either
 * way @r is then the caller's to free with rep_free. */
int rep_load(struct rep *r, const struct rep_opts *o);
/* Open a profile (hpmon's or perf.data) as rep_load does: 0, or prints
 * why to stderr (naming @path and the fix) and returns -1. */
int rep_open(const char *path, struct hpm_profile **out);
/* The samples one at a time, in the file's order, with the name their
 * task had then: @fn's non-zero return stops the walk and is returned.
 * Nothing is aggregated; rep_frame resolves addresses. Otherwise as
 * rep_load (0 or -1 said on stderr; @r is the caller's to rep_free). */
typedef int (*rep_walk_fn)(struct rep *r, const struct hpm_sample *s, const char *comm,
			   void *arg);
int rep_walk(struct rep *r, const struct rep_opts *o, rep_walk_fn fn, void *arg);
/* Address @ip of sample @s, in @mode, resolved. */
struct rep_frame {
	uint64_t addr;            /* in its object (link-time) for files, else @ip */
	const char *sym;          /* NULL when unknown */
	uint64_t symoff;
	const char *dso;          /* path, "[kernel.kallsyms]" ...; NULL when unknown */
};
void rep_frame(struct rep *r, const struct hpm_sample *s, uint64_t ip, enum hpm_mode mode,
	       struct rep_frame *f);
/* --call-graph dwarf: @s's stack unwound into *@out (chain: UNWIND_MAX
 * entries, 256), in the kernel's form; false when it has none. */
/*
 * A sample's call chain as perf reads it, the one reading report and script
 * share: context markers set the mode of the addresses after them; a
 * marker perf does not know makes the chain corrupt (rep_chain_ok false:
 * only the sampled address counts); a zero return address ends the frames
 * of its part, until the next marker.
 */
struct rep_chain_it {
	uint32_t i;
	enum hpm_mode mode;
	bool started, ended;
};
bool rep_chain_ok(const struct hpm_sample *s);
/* The next frame of the chain into @ip and @mode (it zeroed first). */
bool rep_chain_next(const struct hpm_sample *s, struct rep_chain_it *it, uint64_t *ip,
		    enum hpm_mode *mode);

bool rep_unwind(struct rep *r, const struct hpm_sample *s, struct hpm_sample *out,
		uint64_t *chain);
/* The object @d read (opened at the first need: its symbol cache may have
 * answered every look-up), or NULL when it cannot be: a file or the
 * vdso. */
struct hpm_dso *rep_dso_open(struct rep *r, struct rep_dso *d);
/* Whether object @d has a symbol table (read, or as its cache says). */
bool rep_dso_has_symbols(const struct rep_dso *d);
/* Charge @bytes that grow with the file to the memory cap
 * (report-internal.h), for what the sink keeps: false, and nothing
 * charged, when they do not fit. */
bool rep_reserve(struct rep *r, uint64_t bytes);
/* Everything rep_load made, but r->metrics. */
void rep_free(struct rep *r);
const char *rep_str(const struct rep *r, uint64_t id);
/* A row's key column @k as a number (pid, tid, cpu, rank; REP_KEY_CAPPED
 * in the row past the memory cap), or as text into @buf. */
uint64_t rep_key_value(const struct rep *r, const struct rep_row *row, enum sort_key k);
const char *rep_key_text(const struct rep *r, const struct rep_row *row, enum sort_key k,
			 char *buf, size_t len);
/* The rank of task @pid (a merged profile's), or of the profile (a
 * rank's own); REP_NO_RANK when none. */
#define REP_NO_RANK UINT32_MAX
uint32_t rep_rank_of(struct rep *r, pid_t pid);
/* Whether the profile holds rank @rank. */
bool rep_has_rank(const struct rep *r, uint32_t rank);
/* Sort rows by the main event's period, largest first. */
void rep_sort_rows(struct rep *r);
/* Parse "sym,dso" into keys. -1 on an unknown key (named in @bad). */
int rep_parse_sort(const char *s, enum sort_key *keys, size_t *nr, char *bad, size_t len);
extern const char *const rep_key_names[SK_MAX];

#endif
