/* SPDX-License-Identifier: MIT */
/*
 * For fuzzers of readers that open a path (the symbol caches, kallsyms,
 * JIT maps): a private directory made once, a file "in" that each input
 * is written to, and a file "out" for what the reader's writer saves.
 * Nothing to free: the directory lives as long as the fuzzer.
 */
#ifndef HPMON_FUZZ_FILE_H
#define HPMON_FUZZ_FILE_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);

static char fuzz_dir[] = "/tmp/hpmon-fuzz.XXXXXX";
static char fuzz_in[4096], fuzz_out[4096];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (!mkdtemp(fuzz_dir))
		abort();
	snprintf(fuzz_in, sizeof(fuzz_in), "%s/in", fuzz_dir);
	snprintf(fuzz_out, sizeof(fuzz_out), "%s/out", fuzz_dir);
	return 0;
}

/* The input as the file fuzz_in, mode 0600, owned by the fuzzer's user. */
static void fuzz_write_in(const uint8_t *data, size_t size)
{
	int fd = open(fuzz_in, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		abort();
	if (size && write(fd, data, size) != (ssize_t)size)
		abort();
	close(fd);
}

#endif
