/* SPDX-License-Identifier: MIT */
/*
 * Launching the measured command, shared by stat and record: the child is
 * forked and waits on a pipe until hpmon has opened its counters, then
 * execs; an exec failure comes back as its errno. Also the tool's signal
 * handling while a command runs, and CPU/pid list parsing.
 *
 * Room: tools/hpmon/launch/ owns launching the measured command, its signals and process tree, and the target options; may use libc only.
 * Ownership: a launched child is the caller's to wait for; lists are
 * parsed into the caller's arrays and struct target holds its ids inline,
 * so nothing here allocates.
 */
#ifndef HPMON_TOOL_LAUNCH_H
#define HPMON_TOOL_LAUNCH_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct child {
	pid_t pid;
	int go_fd;   /* write a byte to let it exec */
	int err_fd;  /* receives errno if exec fails */
	int pidfd;   /* pidfd_open of the child, or -1 */
	void *stack; /* the child's stack until its exec (launch.c) */
	size_t stack_len;
};

/* Start @argv[0] waiting to exec, in hpmon's memory until then (launch.c
 * says why). 0 or -errno. */
int child_start(char **argv, struct child *ch);
/* Let the child exec. 0, or the exec errno (positive) if it failed. */
int child_go(struct child *ch);
/* Give up on a child that has not exec'd: it exits 127; reap it. A
 * second call does nothing. */
void child_abort(struct child *ch);
/* The file execvp would run for @cmd (searching PATH), into @out: false
 * if there is none. For checking a command's program before starting it. */
bool find_program(const char *cmd, char *out, size_t len);

/* The last terminating signal hpmon got (0 if none), and the command's
 * pid, to which it is passed on (see install_signals()). */
extern volatile sig_atomic_t got_signal;
extern volatile sig_atomic_t child_pid;
/*
 * SIGINT, SIGTERM, SIGHUP, SIGQUIT: noted, without SA_RESTART, and passed
 * on to the command (child_pid), except SIGINT and SIGQUIT from the
 * terminal, which the command got too. hpmon then waits for the command,
 * prints what was counted or recorded and exits 128 + the signal, as perf
 * does: a signal sent to hpmon alone ends the measurement.
 *
 * In a process that starts a command, these are the only signal handlers:
 * the command's process shares hpmon's memory until its exec and resets
 * these four alone to their default (child_start() does not ask the
 * kernel which others have a handler). A command that needs another
 * handler must install it here, and have the child reset it too.
 */
void install_signals(void);
/* What hpmon exits with after a command that ended with @status: 128 + the
 * signal hpmon got, if it got one, else @status. */
int exit_status_after_signal(int status);

/* "0,2-3" (with @ranges) or "12,34" into @out. 0, or -1 if malformed. */
int parse_list(const char *arg, int *out, size_t max, size_t *nr, bool ranges);

#define TARGET_MAX_IDS 1024

/* What stat and record measure besides a command: -p, -t, -a, -C. The
 * id arrays are read only up to their counts: target_init() sets the
 * counts alone, and leaves the 8 KiB of arrays untouched. */
struct target {
	size_t nr_ids;
	bool by_tid;                /* -t */
	bool system;                /* -a or -C */
	size_t nr_cpus;
	pid_t ids[TARGET_MAX_IDS];  /* -p or -t */
	int cpus[TARGET_MAX_IDS];   /* -C */
};

/* An empty target (nothing but a command); a zeroed one is empty too. */
void target_init(struct target *t);

/*
 * Option @c with argument @arg into @t: 1 when @c is -p, -t, -a or -C, 0
 * when it is none of them, -1 when @arg is bad (*why: the usage message,
 * a format for @arg).
 */
int target_option(struct target *t, int c, const char *arg, const char **why);

/*
 * The target options' own rules, shared by stat and record: NULL when they
 * hold (@command: a COMMAND was given), else the usage message, a format
 * for the command's verb ("count", "record").
 */
const char *target_check(const struct target *t, bool command);

/*
 * The first id of -p or -t in @t that names no process (-p: no thread
 * group with that id) or no thread (-t) under @procfs, or -1 if all do.
 * For naming the missing one when the kernel says only ESRCH.
 */
pid_t target_missing(const struct target *t, const char *procfs);

/*
 * Say on standard error, for command @cmd ("hpmon stat"), which id of -p
 * or -t the kernel's ESRCH was about (target_missing), or that one of
 * them ended meanwhile when all exist again.
 */
void target_say_missing(const char *cmd, const struct target *t, const char *procfs);

#endif
