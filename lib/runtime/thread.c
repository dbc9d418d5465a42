/* SPDX-License-Identifier: MIT */
/*
 * The threads of the measured program (lib/runtime/thread-internal.h).
 *
 * The first call of a thread gives it a state (one TLS pointer), a slot
 * in hpmon's area (or a private block without one), and a key whose
 * destructor publishes what is open when the thread ends. The process's
 * hooks, installed on the first call of the runtime, do the same for the
 * thread that calls exit() and give a forked child a slot of its own.
 *
 * What a thread's regions become at its end is region.c's: the thread's
 * first begin leaves a callback in its state, so this file calls nothing
 * above it (and a program without regions links none of them).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime/thread-internal.h"

__thread uint64_t *hpm__marker_ctr;

static __thread struct hpm_mk_tstate *mk_ts;

static struct {
	pthread_once_t once;
	bool ready;                  /* area below is final (hooks installed) */
	struct hpm_mk_header *area;
	pthread_key_t key;
	bool have_key;
} proc = {
	.once = PTHREAD_ONCE_INIT,
};

static pid_t mk_gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static void thread_end(void *arg);
static void fork_child(void);
static void process_end(void);

static void install_hooks(void)
{
	proc.area = hpm__mk_area();
	proc.have_key = pthread_key_create(&proc.key, thread_end) == 0;
	pthread_atfork(NULL, NULL, fork_child);
	atexit(process_end);
	__atomic_store_n(&proc.ready, true, __ATOMIC_RELEASE);
}

struct hpm_mk_header *hpm__mk_process_area(void)
{
	/* one load on the path of every begin and end */
	if (!__atomic_load_n(&proc.ready, __ATOMIC_ACQUIRE))
		pthread_once(&proc.once, install_hooks);
	return proc.area;
}

void hpm__mk_thread_route(struct hpm_mk_tstate *ts)
{
	const struct hpm_mk_header *a = hpm__mk_area();
	bool to_slot = ts->slot && (!(a->flags & HPM_MK_F_MARKED) || ts->marked);
	hpm__marker_ctr = to_slot ? ts->slot->ctr : ts->priv;
}

static void take_slot(struct hpm_mk_tstate *ts)
{
	struct hpm_mk_header *a = hpm__mk_area();

	ts->need_slot = false;
	ts->slot = NULL;
	if (!a)
		return;
	uint32_t i = __atomic_fetch_add(&a->nr_threads, 1, __ATOMIC_ACQ_REL);
	if (i >= a->max_threads)
		return; /* counted privately; hpmon reports the lost thread */
	struct hpm_mk_thread *t = hpm__mk_slot(a, i);
	t->pid = (int32_t)getpid();
	t->tid = (int32_t)mk_gettid();
	__atomic_store_n(&t->state, HPM_MK_T_ALIVE, __ATOMIC_RELEASE);
	ts->slot = t;
}

static struct hpm_mk_tstate *thread_new(void)
{
	/* malloc + memset, not calloc: every page of the state is touched
	 * now, so no page fault lands later inside a measured region */
	struct hpm_mk_tstate *ts = malloc(sizeof(*ts));
	if (!ts)
		return NULL;
	memset(ts, 0, sizeof(*ts));
	ts->priv = malloc(HPM_MK_MAX_COUNTERS * sizeof(uint64_t));
	if (!ts->priv) {
		free(ts);
		return NULL;
	}
	memset(ts->priv, 0, HPM_MK_MAX_COUNTERS * sizeof(uint64_t));
	hpm__mk_counters_init(&ts->ctr);
	take_slot(ts);
	if (proc.have_key)
		pthread_setspecific(proc.key, ts);
	return ts;
}

struct hpm_mk_tstate *hpm__mk_thread(void)
{
	struct hpm_mk_tstate *ts = mk_ts;
	struct hpm_mk_header *a;

	if (ts && !ts->need_slot)
		return ts;
	a = hpm__mk_process_area();
	if (!ts) {
		ts = mk_ts = thread_new();
		if (!ts)
			return NULL;
	} else {
		take_slot(ts);
	}
	hpm__mk_thread_route(ts);
	/* a thread forked marked counts from the start */
	if (a && ts->slot && ts->marked && (a->flags & HPM_MK_F_MARKED)) {
		hpm__mk_counters_open(&ts->ctr, ts->slot, true);
		__atomic_or_fetch(&ts->slot->flags, HPM_MK_T_MARKED_NOW, __ATOMIC_RELAXED);
	}
	return ts;
}

/* The thread (or, at exit, the process's last thread) ends: publish. */
static void finish_thread(struct hpm_mk_tstate *ts)
{
	struct hpm_mk_header *a = hpm__mk_area();

	if (ts->ended)
		return;
	ts->ended = true;
	if (!a || !ts->slot)
		return;
	if ((a->flags & HPM_MK_F_MARKED) && ts->marked) {
		hpm__mk_counters_enable(&ts->ctr, false);
		hpm__mk_counters_publish_marked(&ts->ctr, ts->slot);
	}
	if (ts->regions_end)
		ts->regions_end(ts, false);
	__atomic_and_fetch(&ts->slot->flags, ~HPM_MK_T_MARKED_NOW, __ATOMIC_RELAXED);
	__atomic_store_n(&ts->slot->state, HPM_MK_T_EXITED, __ATOMIC_RELEASE);
}

static void thread_end(void *arg)
{
	struct hpm_mk_tstate *ts = arg;

	finish_thread(ts);
	hpm__mk_counters_close(&ts->ctr);
	if (mk_ts == ts) {
		/* a destructor that counts after this starts over */
		mk_ts = NULL;
		hpm__marker_ctr = NULL;
	}
	free(ts->priv);
	free(ts);
}

/* exit(): the threads still running end without their destructors; the
 * calling one publishes here. Counting may go on in later exit handlers:
 * increments still land in the slot. */
static void process_end(void)
{
	if (mk_ts)
		finish_thread(mk_ts);
}

/* A forked child: its one thread gets a slot and counters of its own. */
static void fork_child(void)
{
	struct hpm_mk_tstate *ts = mk_ts;
	struct hpm_mk_header *a = hpm__mk_area();

	if (!ts)
		return;
	hpm__mk_counters_close(&ts->ctr);
	if (ts->regions_end)
		ts->regions_end(ts, true);
	ts->ended = false;
	ts->need_slot = true;
	ts->slot = NULL;
	hpm__marker_ctr = NULL; /* the next increment takes the slot */
	if (ts->marked && a && (a->flags & HPM_MK_F_MARKED))
		hpm__mk_thread(); /* marked: count from the first instruction */
}
