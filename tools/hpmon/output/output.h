/* SPDX-License-Identifier: MIT */
/*
 * The one way the tool creates the files it writes (profiles, stat -o):
 * mode 0600 whatever the umask (a profile may hold copies of the stack),
 * never through a symbolic link, and never an old file cut short by a run
 * that failed. A new file is written beside NAME under a name no one else
 * can have created (O_EXCL) and renamed over NAME only when committed, so
 * that NAME holds either the old file or the whole new one.
 *
 * Room: tools/hpmon/output/ owns what the tool says and writes (advice, escaping, JSON, output files and names, exit codes); may use libc only.
 * Ownership: struct out_file is the caller's (on its stack), and must not
 * move while its stream is open (the stream points at it); @path is
 * borrowed and must outlive it. The messages of failures are printed here,
 * prefixed with the @cmd given to out_open (also borrowed), so that every
 * command words them alike.
 */
#ifndef HPMON_TOOL_OUTPUT_H
#define HPMON_TOOL_OUTPUT_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

enum out_mode {
	OUT_REPLACE,  /* a new file replaces NAME on commit; a symlink at NAME is refused */
	OUT_KEEP_OLD, /* a new file; on commit an existing NAME (a symlink too, itself
		       * and not what it names) is moved to NAME.old first, as perf
		       * record does */
	OUT_APPEND,   /* stat --append: an existing regular file (no symlink), else a
		       * new one */
};

struct out_file {
	const char *cmd;      /* "hpmon stat" */
	const char *path;     /* NAME */
	char tmp[PATH_MAX];   /* the file being written beside NAME; "" when in place */
	enum out_mode mode;
	int fd;               /* -1 once handed over (out_take_fd) or closed */
	FILE *f;              /* out_stream's: it writes fd and closes it */
	int err;              /* the first write error of the stream (errno) */
};

/*
 * Start writing @path. A character device or a FIFO at @path (/dev/null,
 * /dev/full, a pipe) is written in place, opened without blocking; a
 * directory, a socket or (but for OUT_KEEP_OLD) a symlink is refused.
 * 0, or -errno after printing why and what to do.
 */
int out_open(struct out_file *of, const char *cmd, const char *path, enum out_mode mode);

/* The file as a stream (buffered; it owns the descriptor from then on).
 * NULL after printing why. */
FILE *out_stream(struct out_file *of);

/* Hand the descriptor to someone who closes it (the profile writer):
 * out_commit then only renames. */
int out_take_fd(struct out_file *of);

/* Put the new file at NAME now, though writing goes on (record, once the
 * command runs: a recorder killed later leaves the profile so far at
 * NAME). 0, or -errno after printing why. */
int out_publish(struct out_file *of);

/*
 * Finish: flush and close (every write of the stream is checked: an error
 * of any earlier write fails here), then rename the new file into place.
 * 0, or -errno after printing "cannot write NAME: reason"; on failure the
 * new file is removed unless @keep_partial (a profile cut by a full disk
 * still holds what was written before), and NAME is then left as it was.
 */
int out_commit(struct out_file *of, bool keep_partial);

/* Give up: close and remove the new file; NAME is left as it was. */
void out_abort(struct out_file *of);

/*
 * The end of the tool: flush and close standard output, and check that
 * every write to it and to standard error succeeded. Returns @rc, or 1
 * (HPM_EXIT_FAIL) when @rc is 0 and output was lost, after saying so on
 * standard error (when that still works). A command's own non-zero exit
 * status is kept: it already says that something failed.
 */
int out_close_std(int rc);

/*
 * @print(F, @arg) into memory, then all of it to @f in one write, and @f
 * flushed: standard error is unbuffered, and text printed there piece by
 * piece costs a system call per piece (13 for `hpmon stat -e task-clock`).
 * Without the memory, @print writes to @f directly.
 */
void out_at_once(FILE *f, void (*print)(FILE *f, void *arg), void *arg);

#endif
