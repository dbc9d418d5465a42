/* SPDX-License-Identifier: MIT */
/*
 * Profile files: what `hpmon record` writes and `hpmon report` reads.
 * The format is hpmon's own and documented in docs/profile-format.md: a
 * header (command, host, time, CPU model, events and their attributes),
 * then a stream of zstd-compressed chunks of records (samples, the mmap
 * records that make the table of loaded objects, comm/fork/exit, lost and
 * throttle records), then an end chunk with the totals and the object
 * table. A file whose writer was killed reads up to its last complete
 * chunk, and the reader says what was cut.
 *
 * The records are plain structs shared by the recorder (record.h hands
 * them out), the writer and the reader.
 *
 * Ownership: a writer borrows its file descriptor (the caller closes it)
 * and writes the meta data out at once; a profile owns the file it opened
 * (hpm_profile__open_mem borrows the caller's buffer, which must outlive
 * it); the records it hands out are valid until the next call, its meta
 * data until it is freed.
 */
#ifndef HPMON_PROFILE_H
#define HPMON_PROFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <hpmon/hpmon.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HPM_PROFILE_VERSION 1

/* Privilege mode of a sample (the kernel's cpumode). */
enum hpm_mode {
	HPM_MODE_UNKNOWN = 0,
	HPM_MODE_KERNEL = 1,
	HPM_MODE_USER = 2,
	HPM_MODE_HV = 3,
	HPM_MODE_GUEST_KERNEL = 4,
	HPM_MODE_GUEST_USER = 5,
};
/* "kernel", "user", ... Never NULL. */
HPM_API const char *hpm_mode__str(enum hpm_mode m);

enum hpm_prec_type {
	HPM_PREC_SAMPLE = 1,
	HPM_PREC_MMAP,       /* an executable mapping: the relocation table */
	HPM_PREC_COMM,       /* a task's name; exec when .exec */
	HPM_PREC_FORK,
	HPM_PREC_EXIT,
	HPM_PREC_LOST,       /* the kernel dropped records (ring buffer full) */
	HPM_PREC_THROTTLE,   /* the kernel throttled an event (too many samples) */
	HPM_PREC_UNTHROTTLE,
	HPM_PREC_READ,       /* a sampling session's reading of a thread's counts */
	HPM_PREC_TIMELINE,   /* a profile's: counts of a thread over an interval */
	/* hpmon merge: a rank of a parallel job, or a task's rank (the
	 * record type 11 of docs/profile-format.md) */
	HPM_PREC_RANK = 11,
};

/* Call-chain entries at or above this value are context markers
 * (PERF_CONTEXT_KERNEL, PERF_CONTEXT_USER ...), as the kernel writes them. */
#define HPM_CHAIN_CONTEXT_MIN ((uint64_t)-4095)

struct hpm_sample {
	uint32_t ev;             /* index of the triggering event in the header */
	uint32_t cpu;
	pid_t pid, tid;
	uint64_t time;           /* perf clock, ns; 0 for an event with time=0 */
	uint64_t ip;
	uint64_t period;         /* events this sample stands for */
	enum hpm_mode mode;
	/* Group read (PERF_SAMPLE_READ): cumulative counts of the triggering
	 * event's group, leader first, in the order of the header's events. */
	uint32_t nr_values;
	const uint64_t *values;
	/* Call chain as the kernel gave it (context markers included), leaf
	 * first; nr 0 without -g. In DWARF mode the kernel's part only (a
	 * sample taken in the kernel), the user part being in the copy. */
	uint32_t nr_chain;
	const uint64_t *chain;
	/* DWARF mode: user registers (PERF_SAMPLE_REGS_USER order) and a
	 * copy of the user stack from the stack pointer up. */
	uint32_t regs_abi;
	uint32_t nr_regs;
	const uint64_t *regs;
	uint32_t stack_len;
	const unsigned char *stack;
	/* The id of the counter that took it (a perf.data file's
	 * PERF_SAMPLE_ID or IDENTIFIER), 0 when not known. perf record opens
	 * a counter per CPU: a group read's counts are that counter's, and
	 * follow from its previous sample, whatever the task's CPU. */
	uint64_t id;
};

#define HPM_BUILD_ID_MAX 20

struct hpm_mmap_rec {
	pid_t pid, tid;
	uint64_t time;
	uint64_t start, len, pgoff;
	uint32_t prot, flags;
	uint8_t build_id_len;    /* 0 when unknown */
	uint8_t build_id[HPM_BUILD_ID_MAX];
	const char *filename;    /* path, or "[vdso]", "//anon" ... */
};

struct hpm_comm_rec {
	pid_t pid, tid;
	uint64_t time;
	bool exec;
	const char *comm;
};

struct hpm_task_rec { /* FORK and EXIT */
	pid_t pid, ppid, tid, ptid;
	uint64_t time;
};

/*
 * RANK, in a profile that hpmon merge made of the profiles of a job's
 * ranks: either a rank and its host (task false), written before the
 * rank's records, or a task of it (task true), written before the first
 * record that names the task. Task ids of different ranks may collide:
 * the merge renumbers one that an earlier rank used, so @pid is the
 * task's id in this file and @orig_pid the one it was recorded with.
 */
struct hpm_rank_rec {
	bool task;
	uint32_t rank;
	pid_t pid, orig_pid;     /* with task */
	const char *host;        /* without task; "" when not known */
};

struct hpm_lost_rec { /* LOST, THROTTLE, UNTHROTTLE */
	uint64_t time;
	uint32_t ev;     /* event index, UINT32_MAX when not known */
	uint64_t count;  /* LOST: records dropped; else 1 */
};

/*
 * READ and TIMELINE (record --timeline-interval): counts of a thread's
 * events on one CPU, read at an interval and at the thread's end.
 * READ, from a sampling session: the thread's own counts on that CPU
 * since it started, as the kernel reads them. TIMELINE, in a profile:
 * the counts since the same thread's previous TIMELINE record of the
 * same events on the same CPU, so that a thread's records add up to its
 * counts.
 */
/* hpmon record rounds each reading's counts down to this many
 * significant bits and carries the rest into the thread's next reading
 * (its last one is exact), so that a thread's readings add up to its
 * counts; the profile writer's encoding is made for such values and
 * stores any value exactly. */
#define HPM_TIMELINE_BITS 12

struct hpm_read_rec {
	pid_t pid, tid;
	uint32_t cpu;
	uint64_t time;           /* when read (perf clock, ns) */
	uint32_t ev;             /* the event of values[0]: a group's leader */
	bool final;              /* the thread's last reading on this CPU (its
				    exit, or the end of the session) */
	uint64_t enabled, running; /* ns the group was enabled and on a
				    counter; both 0 when not known, and in a
				    profile when it was on a counter all along */
	uint32_t nr_values;      /* events ev, ev + 1 ... in the header's order */
	const uint64_t *values;
	/* TIMELINE: when the counts of this reading began (perf clock, ns):
	 * the thread's previous reading on this CPU, or its start; at most
	 * time. 0 when not known (profiles of minor version 1, and READ).
	 * In a profile, times are whole microseconds. */
	uint64_t start;
};

/* One record. Pointers inside point into the producer's buffers and stay
 * valid until its next call. */
struct hpm_prec {
	enum hpm_prec_type type;
	union {
		struct hpm_sample sample;
		struct hpm_mmap_rec mmap;
		struct hpm_comm_rec comm;
		struct hpm_task_rec task;
		struct hpm_lost_rec lost;
		struct hpm_read_rec read; /* READ and TIMELINE */
		struct hpm_rank_rec rank;
	};
};

/* What the header says about each event. */
struct hpm_profile_event {
	const char *name;
	uint32_t type;           /* perf_event_attr.type */
	uint64_t config, config1, config2;
	uint64_t period;         /* sample_period, or the frequency with freq */
	bool freq;
	bool trigger;            /* samples are taken on its overflow */
	bool user_only;          /* samples user mode only (:u, or the kernel
				    part refused by perf_event_paranoid) */
	uint64_t sample_type;    /* PERF_SAMPLE_* */
	uint32_t leader;         /* index of its group's leader */
	uint32_t group_size;     /* members of its group, leader included */
};

struct hpm_profile_meta {
	size_t sz;               /* sizeof(struct hpm_profile_meta) */
	const char *command;     /* the command line, words joined by spaces */
	const char *host;
	const char *arch;        /* "x86_64", "aarch64" */
	const char *cpu_model;
	const char *kernel;      /* release */
	uint64_t start_unix_ns;  /* wall clock at the start */
	uint32_t nr_events;
	const struct hpm_profile_event *events;
	uint32_t callchain;      /* 0 none, 1 frame pointers, 2 DWARF */
	uint32_t page_size;
	/* Where the recorder sat in a parallel job (mpirun, srun); optional,
	 * and absent in profiles of older writers (a caller whose sz ends
	 * before these fields writes none of them). */
	bool has_rank;
	uint32_t rank;           /* with has_rank */
	uint32_t job_size;       /* ranks in the job; 0 when not known */
	const char *job;         /* the launcher's job id; NULL or "" when none */
	/* record --timeline-interval: the interval of its TIMELINE records,
	 * ns; 0 when it wrote none (and in profiles of older writers). */
	uint64_t timeline_ns;
	/* A merge of the profiles of a job's ranks (hpmon merge): its
	 * records say each task's rank (HPM_PREC_RANK). Written only when
	 * the caller's sz covers it. */
	bool merged;
	/* How the timeline (timeline_ns) was read: HPM_PROFILE_TL_THREADS or
	 * HPM_PROFILE_TL_PROCESS. Written only when the caller's sz covers
	 * it and there is a timeline; 0 writes nothing, which a reader takes
	 * for HPM_PROFILE_TL_THREADS. Read: never 0 (older files, perf.data
	 * files and files without a timeline read as HPM_PROFILE_TL_THREADS). */
	uint32_t timeline_mode;
};

/* hpm_profile_meta.timeline_mode: what one TIMELINE record holds. */
enum hpm_profile_tl_mode {
	/* one thread's own counts, read by the kernel every interval of its
	 * running time (Linux 6.12+) */
	HPM_PROFILE_TL_THREADS = 1,
	/* the counts of all a target's threads and processes together, read
	 * by the recorder every interval of wall time (before 6.12, or
	 * record --timeline-mode poll): one series per target process */
	HPM_PROFILE_TL_PROCESS = 2,
};

/* The end chunk: what the recorder knew when it finished. */
struct hpm_profile_totals {
	uint64_t samples;        /* written */
	uint64_t lost;           /* records the kernel dropped */
	uint64_t lost_samples;   /* samples it dropped (LOST_SAMPLES) */
	uint64_t throttled;      /* throttle records */
	uint64_t duration_ns;
	int exit_status;         /* the command's, -1 if none */
};

/* ---- writing ---- */

struct hpm_profile_writer_opts {
	size_t sz;               /* sizeof(struct hpm_profile_writer_opts) */
	int level;               /* zstd level, default 3 (1..19) */
	size_t chunk_bytes;      /* raw bytes per chunk, default 1 MiB */
};

struct hpm_profile_writer;

/*
 * Start a profile in @fd (owned from then on, closed by close/free) with
 * the header @meta. Records are encoded in memory; full chunks are
 * compressed and written by a background thread while the next one fills
 * (double buffering), so adding never waits for the disk unless both
 * buffers are full. NULL and errno on failure.
 */
HPM_API struct hpm_profile_writer *
hpm_profile_writer__new(int fd, const struct hpm_profile_meta *meta,
			const struct hpm_profile_writer_opts *opts);
/* Append one record. 0 or -errno (a write error of an earlier chunk;
 * -EINVAL for a record the header's events cannot hold). TIMELINE records
 * are kept (copied) and written at the end of their chunk, sorted by
 * thread, CPU and event; their times are stored to a hundredth of the
 * header's timeline_ns (whole microseconds, at least one), enabled and
 * running to the microsecond (docs/profile-format.md). */
HPM_API int hpm_profile_writer__add(struct hpm_profile_writer *w,
				    const struct hpm_prec *r);
/* Hand the records added so far to the disk as a chunk (and wait until
 * it is written), so that a killed writer loses nothing before this. */
HPM_API int hpm_profile_writer__flush(struct hpm_profile_writer *w);
/* Write the last chunk and the end chunk with @totals (may be NULL), then
 * close the file. Returns 0 or the first error of the whole write. */
HPM_API int hpm_profile_writer__close(struct hpm_profile_writer *w,
				      const struct hpm_profile_totals *totals);
/* Free without an end chunk (the file reads as cut). Accepts NULL. */
HPM_API void hpm_profile_writer__free(struct hpm_profile_writer *w);
/* Bytes written so far (compressed, header included) and raw bytes. */
HPM_API uint64_t hpm_profile_writer__bytes(const struct hpm_profile_writer *w);

/* ---- reading ---- */

struct hpm_profile;

/* How a read ended. */
struct hpm_profile_status {
	bool complete;           /* the end chunk was read */
	bool truncated;          /* the file ends inside a chunk or header */
	bool corrupt;            /* a chunk failed its checksum or decoding */
	uint64_t chunks;         /* chunks read in full (perf.data: records) */
	uint64_t good_bytes;     /* offset after the last good chunk */
	uint64_t file_bytes;
	char what[160];          /* one sentence when !complete, else "" */
	struct hpm_profile_totals totals; /* from the end chunk when complete */
	uint64_t raw_bytes;      /* bytes of records decompressed so far: at the
				    end, the file's uncompressed size */
};

/*
 * Open @path and read its header. Returns 0 and *out, or -errno:
 * -EBADMSG when it is not a profile or its header is damaged, -EPROTO for
 * a profile of a newer major version.
 */
HPM_API int hpm_profile__open(const char *path, struct hpm_profile **out);
/* The same over a buffer the caller keeps alive (fuzzing, tests). */
HPM_API int hpm_profile__open_mem(const void *buf, size_t len,
				  struct hpm_profile **out);
HPM_API void hpm_profile__free(struct hpm_profile *p);
HPM_API const struct hpm_profile_meta *hpm_profile__meta(const struct hpm_profile *p);
/*
 * The next record: 1 and *r filled (valid until the next call), 0 at the
 * end of what can be read, or a negative error for memory. A cut or
 * corrupt chunk ends the records (0) and is described by status().
 */
HPM_API int hpm_profile__next(struct hpm_profile *p, struct hpm_prec *r);

#define HPM_PROFILE_SKIP_CHAINS 0x1u  /* samples come without call chains */
#define HPM_PROFILE_SKIP_STACKS 0x2u  /* ... without user registers and stacks */
/*
 * Leave fields of samples that the reader does not need undecoded (they
 * are still checked as strictly): a flat listing reads faster. @what is a
 * set of HPM_PROFILE_SKIP_*; call it before the first hpm_profile__next.
 */
HPM_API void hpm_profile__skip(struct hpm_profile *p, unsigned what);

/*
 * Right after hpm_profile__next handed out a sample: take the records
 * that repeat it, up to @max, and return how many (0 when the last record
 * was no sample). A repeat is a sample of the same event, task, CPU,
 * mode, period and address, at a time not before the previous one's and
 * before @until, with the same call chain (or any, when chains are
 * skipped), and no group counts, registers or stack to hand out (skipped
 * or absent). Their times are not handed out: a listing that adds samples
 * up takes a run of a hot address (a breakpoint's, a tight loop's) at
 * once. The sample of the last hpm_profile__next stays valid.
 */
HPM_API uint32_t hpm_profile__repeats(struct hpm_profile *p, uint64_t until, uint32_t max);

HPM_API const struct hpm_profile_status *hpm_profile__status(const struct hpm_profile *p);

/*
 * perf.data files (perf record's format, "PERFILE2") open here too and read
 * as the same meta data and records (docs/formats.md, "perf.data"):
 * hpm_profile__open and __open_mem recognise them by their magic. One
 * written on a machine of the other byte order is -EPROTONOSUPPORT, one
 * written to a pipe (perf record -o -) -EOPNOTSUPP.
 */
/* "hpmon" or "perf.data": the file's format. */
HPM_API const char *hpm_profile__format(const struct hpm_profile *p);

/* A type of record a perf.data file holds, and what the reader did with it. */
struct hpm_profile_rectype {
	uint32_t type;           /* PERF_RECORD_*, or perf's own (64 and up) */
	const char *name;        /* perf's name ("SAMPLE", "MMAP2" ...), or "?" */
	uint64_t count;          /* records of it read so far */
	bool used;               /* false: read past (not used for a report) */
};
/*
 * The record types met so far in a perf.data file, by type, into @out (at
 * most @max); returns how many there are (0 for an hpmon profile). Types
 * past 127 count together as type UINT32_MAX.
 */
HPM_API size_t hpm_profile__rectypes(const struct hpm_profile *p,
				     struct hpm_profile_rectype *out, size_t max);

#ifdef __cplusplus
}
#endif
#endif
