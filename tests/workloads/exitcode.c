// SPDX-License-Identifier: MIT
/*
 * exitcode CODE [SIGNAL]: exit with status CODE or, when SIGNAL is given,
 * die of that signal (its default action, whatever the parent set up).
 *
 * It writes "exitcode: CODE" to stdout and "exitcode: stderr" to stderr
 * first, so a test can check that both reach their destination.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static long parse(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*end || v < 0 || v > 255) {
		fprintf(stderr, "exitcode: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

static void die_of(int sig)
{
	struct rlimit no_core = { 0, 0 };
	struct sigaction sa;
	sigset_t set;

	/* A test must not leave core files behind. */
	setrlimit(RLIMIT_CORE, &no_core);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigaction(sig, &sa, NULL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
}

int main(int argc, char **argv)
{
	long code;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: exitcode CODE [SIGNAL]\n");
		return 2;
	}
	code = parse(argv[1]);
	printf("exitcode: %ld\n", code);
	fflush(stdout);
	fprintf(stderr, "exitcode: stderr\n");
	if (argc == 3)
		die_of((int)parse(argv[2]));
	return (int)code;
}
