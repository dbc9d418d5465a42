// SPDX-License-Identifier: MIT
/*
 * mpi-pages N [KILL DIR]: an MPI program whose rank r touches N * (r + 1)
 * fresh anonymous pages, one write per page: a known, rank-dependent
 * number of minor page faults (as tests/workloads/pages.c), and so a known
 * imbalance. The ranks meet at a barrier after touching.
 *
 * MPI_Init faults a number of pages that varies from run to run (its
 * threads, its shared memory), so the pages are touched by a child forked
 * before MPI_Init, named "toucher", which does nothing else: its own
 * count (stat --per-process) differs between N and 0 by exactly
 * N * (r + 1). The rank tells it r through a pipe.
 *
 * With KILL and DIR, rank KILL then waits until every other rank's
 * DIR/stat.R.json exists (written by its hpmon once it exits), or its
 * profile DIR/prof.R ends with its end chunk (hpmon record writes it
 * last), and kills its parent, the hpmon that measures it, with SIGKILL:
 * a rank whose measurement dies, while the others' files are complete.
 */
#include <fcntl.h>
#include <mpi.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

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

/* @path is a whole profile: its last bytes hold the end chunk's header
 * (docs/profile-format.md: magic "HCHK", kind 2), then a short payload */
static int profile_whole(const char *path)
{
	unsigned char b[256];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	off_t end;
	ssize_t n = 0;

	if (fd < 0)
		return 0;
	end = lseek(fd, 0, SEEK_END);
	if (end > 0)
		n = pread(fd, b, sizeof(b), end > (off_t)sizeof(b) ? end - (off_t)sizeof(b) : 0);
	close(fd);
	for (ssize_t i = 0; i + 5 <= n; i++)
		if (!memcmp(b + i, "HCHK", 4) && b[i + 4] == 2)
			return 1;
	return 0;
}

/* every rank but @self has its file in @dir; waits at most 100 s */
static void wait_for_others(const char *dir, int self, int size)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	for (int tries = 0; tries < 10000; tries++) {
		int have = 0;
		for (int r = 0; r < size; r++) {
			char path[4096], prof[4096];
			snprintf(path, sizeof(path), "%s/stat.%d.json", dir, r);
			snprintf(prof, sizeof(prof), "%s/prof.%d", dir, r);
			have += r != self && (access(path, F_OK) == 0 || profile_whole(prof));
		}
		if (have == size - 1)
			return;
		nanosleep(&ts, NULL);
	}
}

int main(int argc, char **argv)
{
	int rank, size;
	char *end;

	if (argc != 2 && argc != 4) {
		fprintf(stderr, "usage: mpi-pages N [KILL DIR]\n");
		return 2;
	}
	long n = strtol(argv[1], &end, 10);
	if (*end || n < 0 || n > 1000000) {
		fprintf(stderr, "mpi-pages: bad N '%s'\n", argv[1]);
		return 2;
	}
	long kill_rank = argc == 4 ? strtol(argv[2], &end, 10) : -1;
	if (argc == 4 && *end) {
		fprintf(stderr, "mpi-pages: bad KILL '%s'\n", argv[2]);
		return 2;
	}
	int fds[2];
	if (pipe(fds)) {
		perror("mpi-pages: pipe");
		return 1;
	}
	pid_t child = fork();
	if (child < 0) {
		perror("mpi-pages: fork");
		return 1;
	}
	if (!child) {
		long m = 0;
		close(fds[1]);
		prctl(PR_SET_NAME, "toucher");
		if (read(fds[0], &m, sizeof(m)) != (ssize_t)sizeof(m))
			_exit(1);
		_exit(touch_pages(m) ? 1 : 0);
	}
	close(fds[0]);
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	long m = n * (rank + 1);
	int st = 0, rc = write(fds[1], &m, sizeof(m)) != (ssize_t)sizeof(m);
	close(fds[1]);
	if (waitpid(child, &st, 0) != child || !WIFEXITED(st) || WEXITSTATUS(st))
		rc = 1;
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	if (rank == kill_rank) {
		wait_for_others(argv[3], rank, size);
		kill(getppid(), SIGKILL);
	}
	return rc;
}
