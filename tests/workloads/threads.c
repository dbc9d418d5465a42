// SPDX-License-Identifier: MIT
/*
 * threads T P N: T threads and P child processes, each touching a known
 * number of fresh pages, so that per-thread and per-process page faults
 * are known.
 *
 *   worker i (thread,  i = 0..T-1) touches (i + 1) * N pages
 *   child j  (process, j = 0..P-1) touches (T + j + 1) * N pages
 *
 * The workers are named "worker-I" and the children "child-J". The main
 * thread touches none. Everything runs in a fixed order, so that the same
 * thread pays for the same first-time faults (code pages, stacks) in every
 * run: with address-space randomisation off (setarch -R) the page faults
 * of each thread and process are then the same in every run, except for
 * the work, and two runs with different N differ by exactly the shares.
 *
 *   1. the children, one after the other: fork, touch, _exit, reaped;
 *   2. the workers: each is created only after the previous one has done
 *      its work, so all of them are alive together at the end;
 *   3. the workers exit one after the other, in creation order.
 *
 * At the end the main thread prints one line per task to stdout:
 *   main 0 PID PID 0
 *   worker I PID TID PAGES
 *   child J PID PID PAGES
 */
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_TASKS 64

struct worker {
	pthread_t thread;
	int index;
	long pages;
	pid_t tid;
	sem_t done;     /* posted by the worker when its pages are touched */
	sem_t may_exit; /* posted by main when the worker may return */
};

static int touch_pages(long n)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p;

	if (n <= 0)
		return 0;
	p = mmap(NULL, (size_t)n * (size_t)page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	madvise(p, (size_t)n * (size_t)page, MADV_NOHUGEPAGE);
	for (long i = 0; i < n; i++)
		((volatile char *)p)[i * page] = 1;
	return munmap(p, (size_t)n * (size_t)page);
}

static void *work(void *arg)
{
	struct worker *w = arg;
	char name[16];

	snprintf(name, sizeof(name), "worker-%d", w->index);
	prctl(PR_SET_NAME, name);
	w->tid = gettid();
	if (touch_pages(w->pages))
		perror("threads: mmap");
	sem_post(&w->done);
	sem_wait(&w->may_exit);
	return NULL;
}

static pid_t run_child(int index, long pages)
{
	char name[16];
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	snprintf(name, sizeof(name), "child-%d", index);
	prctl(PR_SET_NAME, name);
	_exit(touch_pages(pages) ? 1 : 0);
}

static long parse(const char *s, long max)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*end || v < 0 || v > max) {
		fprintf(stderr, "threads: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	static struct worker workers[MAX_TASKS];
	static pid_t children[MAX_TASKS];
	long nthreads, nchildren, n;
	int status, ret = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: threads THREADS CHILDREN PAGES\n");
		return 2;
	}
	nthreads = parse(argv[1], MAX_TASKS);
	nchildren = parse(argv[2], MAX_TASKS);
	n = parse(argv[3], 1L << 16);

	for (int j = 0; j < nchildren; j++) {
		children[j] = run_child(j, (nthreads + j + 1) * n);
		if (children[j] < 0 || waitpid(children[j], &status, 0) < 0 ||
		    !WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "threads: child %d failed\n", j);
			ret = 1;
		}
	}
	for (int i = 0; i < nthreads; i++) {
		struct worker *w = &workers[i];

		w->index = i;
		w->pages = (i + 1) * n;
		sem_init(&w->done, 0, 0);
		sem_init(&w->may_exit, 0, 0);
		if (pthread_create(&w->thread, NULL, work, w)) {
			fprintf(stderr, "threads: cannot create thread %d\n", i);
			return 1;
		}
		sem_wait(&w->done);
	}
	for (int i = 0; i < nthreads; i++) {
		sem_post(&workers[i].may_exit);
		pthread_join(workers[i].thread, NULL);
	}

	printf("main 0 %d %d 0\n", getpid(), getpid());
	for (int i = 0; i < nthreads; i++)
		printf("worker %d %d %d %ld\n", i, getpid(), workers[i].tid,
		       workers[i].pages);
	for (int j = 0; j < nchildren; j++)
		printf("child %d %d %d %ld\n", j, children[j], children[j],
		       (nthreads + j + 1) * n);
	return ret;
}
