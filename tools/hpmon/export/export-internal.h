/* SPDX-License-Identifier: MIT */
/*
 * Between the files of the exports (export.h), bottom-up: pb.c (protobuf
 * and gzip encoding), stacks.c (what every format keeps of the samples:
 * a tree of call stacks, the threads; symbol and event facts), one file
 * per format (pprof.c, trace-event.c, speedscope.c), and export.c on top
 * (the sink that feeds them, and export.h's functions).
 *
 * Room: tools/hpmon/export/ owns report's samples as pprof, trace-event and speedscope; may use report, output.
 * Ownership: everything lives in the struct export and is freed by
 * export_free; node, thread and sample indexes stay valid until then,
 * pointers into the vectors only until the next addition.
 */
#ifndef HPMON_TOOL_EXPORT_INTERNAL_H
#define HPMON_TOOL_EXPORT_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include "export/export.h"
#include "output/json.h"
#include "report/table.h"

/* A frame of a call stack: node i + 1 is nodes[i], 0 the root (no frame). */
struct xnode {
	uint32_t parent;
	uint32_t id;              /* a loc (pprof) or a sym (the others) */
};

/* A sample, for the formats that list them in time. */
struct xsamp {
	uint64_t time;
	uint64_t period;
	uint32_t node;            /* its stack's leaf */
	uint32_t thread;          /* index into threads */
	uint32_t ev, cpu;
};

struct xthread {
	pid_t pid, tid;
	uint32_t comm;            /* the name at its last sample */
};

#define PPROF_LABELS 5        /* pid, tid, cpu, comm, event: the key after the node */

struct export {
	enum export_fmt fmt;
	struct rep_sink sink;
	bool by_loc;              /* frames are locs (pprof), else syms */
	struct xnode *nodes; size_t nr_nodes, cap_nodes;
	struct htab *h_node;
	uint32_t last_node;       /* the previous sample's stack */
	bool last_valid, last_cut;
	struct xthread *threads; size_t nr_threads, cap_threads;
	struct htab *h_thread;
	uint32_t capped_thread;   /* index + 1 of "[memory cap]", 0 none yet */
	/* speedscope: samples, a run of one stack of one thread and event as
	 * one (the last of each (thread, event) found through h_last) */
	struct xsamp *samps; size_t nr_samps, cap_samps;
	struct htab *h_last;
	/* pprof: samples summed by (leaf node, labels), values [nr_ev + 1] each */
	uint64_t *akeys; int64_t *avals; size_t nr_agg, cap_agg;
	struct htab *h_agg;
	uint64_t *bias; uint8_t *bias_set; size_t cap_bias; /* per object: runtime - off */
	/* trace-event: per (pid, event, interval) counts, and the LOST records */
	uint64_t *ckeys; double *cvals; size_t nr_cnt, cap_cnt;
	struct htab *h_cnt;
	FILE *f;                  /* the trace is written as the samples come */
	struct json j;
	bool started;
	bool locked;              /* the stream, by flockfile (trace-event.c) */
	uint64_t t0, t_end;       /* the trace's origin (a 10 ms boundary), last sample */
	/* past the memory cap (export_write says so) */
	uint64_t cut;             /* samples whose stacks lost their inner frames */
	uint64_t capped_samples;  /* of threads past the cap: "[memory cap]" */
	uint64_t merged;          /* speedscope: added to their thread's previous sample */
	uint64_t uncounted;       /* trace: counts missing from the counter tracks */
	uint64_t dropped;         /* left out (no memory at all) */
};

/* ---- stacks.c ---- */

/* Grow @*v (elements of @size, *@cap of them) to hold @need: false when
 * memory runs out (then *@v is unchanged). */
bool x_grow(void **v, size_t *cap, size_t need, size_t size);
/* The stack's leaf node of sample @xs (interned, root first; 0 the root).
 * Past the memory cap, the deepest node of its outer frames there is. */
uint32_t x_stack(struct export *x, struct rep *r, const struct rep_xsample *xs);
/* The index of thread @tid (its comm updated); past the memory cap the
 * one "[memory cap]" thread (pid and tid -1); UINT32_MAX on no memory. */
uint32_t x_thread(struct export *x, struct rep *r, pid_t pid, pid_t tid, uint32_t comm);
uint32_t x_capped_thread(struct export *x);
/* Thread @t's name. */
const char *x_thread_name(const struct export *x, const struct rep *r, uint32_t t);
/* A node's frames root first into @out (room for @max): the number. */
size_t x_frames(const struct export *x, uint32_t node, uint32_t *out, size_t max);
/* Where loc @l is in its object: the file offset (an ELF object), the
 * offset in the vdso, else the runtime address. */
uint64_t x_loc_off(struct rep *r, const struct rep_loc *l);
/* The name of sym @id as report shows it. */
const char *x_sym_name(const struct rep *r, uint32_t id);
/* The unit of event @ev's period: "nanoseconds" (cpu-clock, task-clock)
 * or "count". */
const char *x_unit(const struct rep *r, uint32_t ev);
/* The source file and first line of sym @id, when its object's DWARF
 * says; false otherwise. */
bool x_sym_source(struct rep *r, uint32_t id, const char **file, unsigned *line);

/* ---- the formats ---- */

void pprof_sample(struct export *x, struct rep *r, const struct rep_xsample *xs, uint32_t node,
		  uint32_t thread);
int pprof_write(struct export *x, struct rep *r, FILE *f);
void trace_sample(struct export *x, struct rep *r, const struct rep_xsample *xs, uint32_t node,
		  uint32_t thread);
void trace_lost(struct export *x, struct rep *r, const struct hpm_lost_rec *l);
int trace_write(struct export *x, struct rep *r);
int speedscope_write(struct export *x, struct rep *r, FILE *f);

#endif
