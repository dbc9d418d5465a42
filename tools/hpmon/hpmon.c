/* SPDX-License-Identifier: MIT */
/*
 * hpmon: the command table and global options. Each subcommand lives in
 * its folder's cmd-NAME.c (README.md lists the folders); this file only
 * finds it and hands over a library context.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/auxv.h>
#include <sys/utsname.h>

#include <hpmon/hpmon.h>
#include "builtin.h"
#include "counting/costs-file.h"
#include "help.h"
#include "output/output.h"
#include "output/outname.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv, struct hpm_ctx *ctx);
	const char *summary;
};

static const struct command commands[] = {
	{ "stat", cmd_stat, "count events for a command, processes, threads or CPUs" },
	{ "top", cmd_top, "which tasks of the machine use the events, live or in frames" },
	{ "list", cmd_list, "list the events this machine offers" },
	{ "diag", cmd_diag, "check what this machine allows and how to fix what it does not" },
	{ "record", cmd_record, "sample events on counter overflow into a profile" },
	{ "report", cmd_report, "where the samples are: by function, line, object, thread ..." },
	{ "annotate", cmd_annotate, "samples per instruction of a function, with its source" },
	{ "diff", cmd_diff, "compare two profiles function by function" },
	{ "script", cmd_script, "every sample as text, in perf script's layout" },
	{ "convert", cmd_convert, "a perf.data file (or a profile) to an hpmon profile" },
	{ "serve", cmd_serve, "count system-wide and serve the counts to Prometheus" },
	{ "merge", cmd_merge, "the per-rank stat files of a parallel job as one table" },
	{ "validate", cmd_validate, "check the counters against benchmarks with known counts" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: hpmon [--version] [--help] COMMAND [ARGS]\n\n"
		   "hpmon is a hardware performance monitor for Linux.\n\n"
		   "Commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\nRun 'hpmon COMMAND --help' for a command's options, 'hpmon help COMMAND'\n"
		   "for its manual page.\n"
		   "Environment: HPMON_SYSFS_ROOT, HPMON_PROCFS_ROOT and "
		   "HPMON_TRACEFS_ROOT point hpmon at recorded trees (ignored when\n"
		   "hpmon runs with privileges its caller lacks: file capabilities).\n");
}

/*
 * A setuid or setgid hpmon would give whoever runs it the owner's rights:
 * it runs the command, reads --metrics-file and writes -o as the owner,
 * and counts and samples any process. Refused before anything else is
 * read (options, files, environment). File capabilities (CAP_PERFMON, see
 * docs/hpmon-stat.md "Privileges") keep the real and effective ids equal
 * and are not refused.
 */
static int refuse_setid(void)
{
	uid_t ruid = getuid(), euid = geteuid();
	gid_t rgid = getgid(), egid = getegid();

	if (ruid == euid && rgid == egid)
		return 0;
	fprintf(stderr,
		"hpmon: refusing to run set%s: real %s %u, effective %s %u. A set-id "
		"hpmon would let every user who runs it read the owner's files and "
		"other users' memory. Remove the bit (chmod u-s,g-s on the hpmon "
		"binary); to let a group measure, see 'Privileges' in "
		"docs/hpmon-stat.md\n",
		ruid != euid ? "uid" : "gid", ruid != euid ? "uid" : "gid",
		ruid != euid ? (unsigned)ruid : (unsigned)rgid, ruid != euid ? "uid" : "gid",
		ruid != euid ? (unsigned)euid : (unsigned)egid);
	return 1;
}

/*
 * The roots of sysfs, procfs and tracefs can be pointed at recorded trees,
 * but only when hpmon runs with the caller's own rights: a binary with
 * file capabilities (AT_SECURE) must not read or trust a tree the caller
 * planted. secure_getenv already returns NULL then; the explicit check
 * keeps that true with a libc that does not. A set-id hpmon never gets
 * here (refuse_setid(), first in main), so the ids need no second look.
 */
static const char *env_root(const char *name)
{
	if (getauxval(AT_SECURE)) {
		if (getenv(name)) /* say why the tree is not used */
			fprintf(stderr, "hpmon: %s is ignored: hpmon runs with privileges "
				"its caller lacks (set-id or file capabilities)\n", name);
		return NULL;
	}
	return secure_getenv(name);
}

/* $XDG_DATA_HOME, else $HOME/.local/share, as the XDG base directories
 * say, for the calibrated costs; not taken from the environment of a
 * privileged hpmon. */
static void find_data_home(void)
{
	char home[PATH_MAX] = "";
	const char *x = secure_getenv("XDG_DATA_HOME"), *h = secure_getenv("HOME");
	if (x && x[0] == '/')
		snprintf(home, sizeof(home), "%s", x);
	else if (h && h[0] == '/')
		snprintf(home, sizeof(home), "%s/.local/share", h);
	costs_file_set_data_home(home[0] ? home : NULL);
}

/* The first of @vars set into @v (outname.h checks the value). */
static void job_from_env(struct job_value *v, const char *const *vars, bool number)
{
	for (size_t i = 0; vars[i]; i++) {
		const char *s = getenv(vars[i]);
		if (s) {
			job_value_set(v, vars[i], s, number);
			return;
		}
	}
}

/* Where this run sits in a parallel job: the launcher's variables, for
 * -o templates, stat's JSON and the profile's header (outname.h). */
static void find_job(void)
{
	struct job_info j = { .pid = (int)getpid() };
	struct utsname u;

	job_from_env(&j.rank, outname_rank_vars, true);
	job_from_env(&j.size, outname_size_vars, true);
	job_from_env(&j.job, outname_job_vars, false);
	if (uname(&u) == 0)
		job_value_set(&j.host, "the host name", u.nodename, false);
	outname_set_job(&j);
}

/* The library never reads the environment; the tool does, here only. */
static struct hpm_ctx *make_ctx(void)
{
	struct hpm_ctx_opts o = {
		.sz = sizeof(o),
		.sysfs_root = env_root("HPMON_SYSFS_ROOT"),
		.procfs_root = env_root("HPMON_PROCFS_ROOT"),
		.tracefs_root = env_root("HPMON_TRACEFS_ROOT"),
		/* as perf: root gets tracefs mounted when an event needs it */
		.mount_tracefs = true,
		/* as PERF_CPUID: the model whose vendor tables apply */
		.cpuid = secure_getenv("HPMON_CPUID"),
	};
	return hpm_ctx__new(&o);
}

/* @name is no command: say so, with the closest commands, as git does. */
static int no_command(const char *name)
{
	const char *names[sizeof(commands) / sizeof(commands[0])];
	char close[256];

	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		names[i] = commands[i].name;
	hpm_suggest(name, names, sizeof(names) / sizeof(names[0]), close, sizeof(close));
	fprintf(stderr, "hpmon: '%s' is not an hpmon command. See 'hpmon --help'.\n", name);
	if (close[0])
		fprintf(stderr, "  did you mean: %s?\n", close);
	return HPM_EXIT_USAGE;
}

/* "hpmon help stat": stat's man page, as "perf help stat" (help.c) */
static int help_cmd(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, name))
			return out_close_std(help_show(name));
	return no_command(name);
}

int main(int argc, char **argv)
{
	if (refuse_setid())
		return HPM_EXIT_FAIL;
	if (argc < 2) {
		usage(stderr);
		return HPM_EXIT_USAGE;
	}
	const char *name = argv[1];
	if (!strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help")) {
		if (argc > 2 && strcmp(name, "help") == 0)
			return help_cmd(argv[2]);
		usage(stdout);
		return HPM_EXIT_OK;
	}
	if (!strcmp(name, "--version") || !strcmp(name, "-v") || !strcmp(name, "version")) {
		printf("hpmon %s\n", HPM_VERSION_STRING);
		return HPM_EXIT_OK;
	}
	argv++;
	argc--;
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(commands[i].name, name))
			continue;
		find_data_home();
		find_job();
		struct hpm_ctx *ctx = make_ctx();
		if (!ctx) {
			fprintf(stderr, "hpmon: cannot set up: %s\n", strerror(errno));
			return HPM_EXIT_FAIL;
		}
		int rc = commands[i].fn(argc, argv, ctx);
		hpm_ctx__free(ctx);
		/* output cut short (a full disk) is a failure, not a success */
		return out_close_std(rc);
	}
	return no_command(name);
}
