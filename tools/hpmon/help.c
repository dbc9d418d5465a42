/* SPDX-License-Identifier: MIT */
/*
 * `hpmon help CMD`: the installed man page through man, or the text built
 * in (help.h says when each).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "output/exit.h"
#include "help.h"

#ifndef HPM_MAN_RELDIR /* the man1 folder from the bin folder, when installed */
#define HPM_MAN_RELDIR "../share/man/man1"
#endif

const char *help_text(const char *name)
{
	for (const struct help_page *p = help_pages; p->name; p++)
		if (!strcmp(p->name, name))
			return p->text;
	return NULL;
}

/*
 * The page installed with this hpmon: PREFIX/share/man/man1/NAME.1 for
 * PREFIX/bin/hpmon (or NAME.1.gz, as distributions compress them), found
 * from the binary's own path so that it is this install's page, not
 * whichever hpmon page MANPATH finds first.
 */
static int installed_page(const char *name, char *buf, size_t len)
{
	static const char *const suffixes[] = { "", ".gz" };
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct stat st;

	if (n <= 0)
		return -ENOENT;
	exe[n] = '\0';
	char *slash = strrchr(exe, '/');
	if (!slash)
		return -ENOENT;
	*slash = '\0';
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		int w = snprintf(buf, len, "%s/%s/%s.1%s", exe, HPM_MAN_RELDIR, name, suffixes[i]);
		if (w < 0 || (size_t)w >= len)
			return -ENAMETOOLONG;
		if (stat(buf, &st) == 0 && S_ISREG(st.st_mode))
			return 0;
	}
	return -ENOENT;
}

int help_show(const char *cmd)
{
	char name[64], path[PATH_MAX];
	int w = snprintf(name, sizeof(name), "hpmon-%s", cmd);
	const char *text = w > 0 && (size_t)w < sizeof(name) ? help_text(name) : NULL;

	if (!text) {
		if (!help_pages[0].name)
			fprintf(stderr, "hpmon help: this hpmon was built without its man pages "
				"(configured with -DHPM_MAN=OFF). 'hpmon %s --help' lists the "
				"options of %s.\n", cmd, cmd);
		else
			fprintf(stderr, "hpmon help: there is no man page of 'hpmon %s' "
				"(no docs/hpmon-%s.md when this hpmon was built). 'hpmon %s "
				"--help' lists its options.\n", cmd, cmd, cmd);
		return HPM_EXIT_FAIL;
	}
	if (installed_page(name, path, sizeof(path)) == 0) {
		char *const argv[] = { (char *)"man", (char *)"-l", path, NULL };

		fflush(stdout);
		execvp("man", argv);
		/* no man here (a minimal system): the text built in is the same page */
	}
	if (fputs(text, stdout) == EOF)
		return HPM_EXIT_FAIL;
	return HPM_EXIT_OK;
}
