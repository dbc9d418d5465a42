/* SPDX-License-Identifier: MIT */
/*
 * hpmon: the command table and global options. Each subcommand lives in
 * cmd-NAME.c; this file only finds it and hands over a library context.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hpmon/hpmon.h>
#include "builtin.h"
#include "output.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv, struct hpm_ctx *ctx);
	const char *summary;
};

static const struct command commands[] = {
	{ "stat", cmd_stat, "count events for a command, processes, threads or CPUs" },
	{ "list", cmd_list, "list the events this machine offers" },
	{ "diag", cmd_diag, "check what this machine allows and how to fix what it does not" },
	{ "record", cmd_record, "sample events on counter overflow into a profile" },
	{ "report", cmd_report, "where the samples are: by function, line, object, thread ..." },
	{ "annotate", cmd_annotate, "samples per instruction of a function, with its source" },
	{ "diff", cmd_diff, "compare two profiles function by function" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: hpmon [--version] [--help] COMMAND [ARGS]\n\n"
		   "hpmon is a hardware performance monitor for Linux.\n\n"
		   "Commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\nRun 'hpmon COMMAND --help' for a command's options.\n"
		   "Environment: HPMON_SYSFS_ROOT, HPMON_PROCFS_ROOT and "
		   "HPMON_TRACEFS_ROOT point hpmon at recorded trees.\n");
}

/* The library never reads the environment; the tool does, here only. */
static struct hpm_ctx *make_ctx(void)
{
	struct hpm_ctx_opts o = {
		.sz = sizeof(o),
		.sysfs_root = getenv("HPMON_SYSFS_ROOT"),
		.procfs_root = getenv("HPMON_PROCFS_ROOT"),
		.tracefs_root = getenv("HPMON_TRACEFS_ROOT"),
	};
	return hpm_ctx__new(&o);
}

int main(int argc, char **argv)
{
	char *help_args[3] = { NULL, (char *)"--help", NULL };

	if (argc < 2) {
		usage(stderr);
		return HPM_EXIT_USAGE;
	}
	const char *name = argv[1];
	if (!strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help")) {
		if (argc > 2 && strcmp(name, "help") == 0) {
			/* "hpmon help stat" == "hpmon stat --help" */
			help_args[0] = argv[2];
			argv = help_args;
			argc = 2;
			name = argv[0];
			goto dispatch;
		}
		usage(stdout);
		return HPM_EXIT_OK;
	}
	if (!strcmp(name, "--version") || !strcmp(name, "-v") || !strcmp(name, "version")) {
		printf("hpmon %s\n", HPM_VERSION_STRING);
		return HPM_EXIT_OK;
	}
	argv++;
	argc--;
dispatch:
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(commands[i].name, name))
			continue;
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
	fprintf(stderr, "hpmon: '%s' is not an hpmon command. See 'hpmon --help'.\n", name);
	return HPM_EXIT_USAGE;
}
