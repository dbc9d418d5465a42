/* SPDX-License-Identifier: MIT */
/*
 * The processes below one (proctree.h).
 */
#include <dirent.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launch/proctree.h"

/* Send @sig to @root and every process below it: a shell's children would
 * otherwise run on, orphaned, after the shell ends. From /proc, in
 * passes, so that a child found after its parent is reached too. */
void proctree_signal(pid_t root, int sig)
{
	enum { MAX_TREE = 4096 };
	static pid_t tree[MAX_TREE];
	size_t n = 0;
	bool grew = true;

	tree[n++] = root;
	for (int pass = 0; grew && pass < 8; pass++) {
		DIR *d = opendir("/proc");
		grew = false;
		for (struct dirent *e; d && (e = readdir(d));) {
			char path[64], buf[512];
			long pid = strtol(e->d_name, NULL, 10);
			if (pid <= 0)
				continue;
			snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
			FILE *f = fopen(path, "re");
			if (!f)
				continue;
			size_t len = fread(buf, 1, sizeof(buf) - 1, f);
			fclose(f);
			buf[len] = '\0';
			/* "pid (comm) state ppid": comm may hold spaces and ')' */
			char *close_paren = strrchr(buf, ')');
			char state;
			int ppid;
			if (!close_paren || sscanf(close_paren + 1, " %c %d", &state, &ppid) != 2)
				continue;
			bool known = false, parent = false;
			for (size_t i = 0; i < n; i++) {
				known |= tree[i] == (pid_t)pid;
				parent |= tree[i] == (pid_t)ppid;
			}
			if (parent && !known && n < MAX_TREE) {
				tree[n++] = (pid_t)pid;
				grew = true;
			}
		}
		if (d)
			closedir(d);
	}
	for (size_t i = 0; i < n; i++)
		kill(tree[i], sig);
}
