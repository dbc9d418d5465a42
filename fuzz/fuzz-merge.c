/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: hpmon merge's reading of stat files, which come from
 * other machines. The input is parsed by the JSON reader
 * (tools/hpmon/output/json-read.c) and, when it parses, written to a file and
 * added to a merge table (merge-table.c) whose figures and missing ranks
 * are then computed. Everything is freed, so leaks show up too. Built by
 * fuzz/CMakeLists.txt, run by scripts/fuzz.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../tools/hpmon/output/json-read.c"
#include "../tools/hpmon/merge/merge-table.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char why[160], path[] = "/tmp/hpmon-fuzz-merge.XXXXXX", miss[128];
	struct mj *m = mj_parse((const char *)data, size, why, sizeof(why));

	if (!m)
		return 0;
	mj_free(m);
	int fd = mkstemp(path);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) == (ssize_t)size) {
		struct merge_table t = { 0 };
		FILE *saved = stderr;
		stderr = fopen("/dev/null", "w"); /* merge's messages are not the point */
		if (!merge_table__add(&t, path) && !merge_table__finish(&t)) {
			struct merge_stat s;
			for (size_t c = 0; c < t.nr_cols; c++)
				merge_table__stat(&t, c, &s);
			merge_table__missing(&t, miss, sizeof(miss));
		}
		if (stderr)
			fclose(stderr);
		stderr = saved;
		merge_table__release(&t);
	}
	close(fd);
	unlink(path);
	return 0;
}
