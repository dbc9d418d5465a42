/* SPDX-License-Identifier: MIT */
/*
 * hpmon merge of profiles: the profiles of a job's ranks (record -o
 * 'prof.%r' under mpirun or srun) into one profile whose records say each
 * task's rank (docs/profile-format.md, "Merged profiles"). The inputs are
 * read one at a time, each through the profile reader and copied through
 * the profile writer: memory holds one input, the writer's buffers, and
 * the merged file's tables (a task id per task, a row per rank).
 *
 * Room: tools/hpmon/merge/ owns hpmon merge; may use report, output.
 * Ownership: the paths are borrowed for the call.
 */
#ifndef HPMON_TOOL_MERGE_PROF_H
#define HPMON_TOOL_MERGE_PROF_H

#include <stdbool.h>

/* Whether @path starts as a profile (hpmon's or perf.data), by its first
 * bytes: 1 when it does, 0 when it does not or cannot be opened (the stat
 * merge then says why), -EINVAL when it is not a regular file (a FIFO, a
 * device, a directory: opened without blocking, never read). */
int merge_prof__sniff(const char *path);

/*
 * Merge the profiles @files (@n) into @out. A file that is not readable,
 * not a profile or damaged (cut, a bad chunk) is skipped with a warning
 * naming it and the damage; a file without a rank, a perf.data file, or
 * one whose events or architecture differ from the first's is refused:
 * nothing is written. Returns the tool's exit status: 0; 1 when the
 * merge was refused or failed, or when a file was skipped or ranks are
 * missing (the merged file is written then, and the ranks named).
 */
int merge_prof(const char *out, char **files, int n, bool quiet);

#endif
