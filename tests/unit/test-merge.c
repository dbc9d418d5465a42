// SPDX-License-Identifier: MIT
/*
 * hpmon merge's pieces (tools/hpmon/output/json-read.h, merge.h): the JSON
 * reader takes what json.c writes (escapes, UTF-8, numbers) and refuses
 * what is not JSON with the reason, nesting past its bound, and NUL
 * escapes; the table's figures over the ranks (total, mean, min and max
 * with their ranks, imbalance) are as computed by hand; the missing ranks
 * come out as ranges; two files of one rank are refused. The tool is not
 * a library: its files are compiled into this test.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "../../tools/hpmon/output/escape.c"
#include "../../tools/hpmon/output/json.c"
#include "../../tools/hpmon/output/json-read.c"
#include "../../tools/hpmon/merge/merge-table.c"

static struct mj *parse(const char *s, int *err)
{
	char why[160];
	errno = 0;
	struct mj *m = mj_parse(s, strlen(s), why, sizeof(why));
	*err = m ? 0 : errno;
	return m;
}

static void test_json_reads(void **state)
{
	(void)state;
	int err;
	struct mj *m = parse(" {\"a\": [1, -2.5e3, true, null], \"s\": \"x\\ty\\u00e9\\ud83d\\ude00\\\"\","
			     " \"o\": {}} \n", &err);
	assert_non_null(m);
	const struct mj *a = mj_get(m, "a");
	assert_non_null(a);
	assert_int_equal(a->type, MJ_ARR);
	assert_int_equal(a->n, 4);
	assert_true(a->kids[1]->num == -2500);
	assert_int_equal(a->kids[2]->type, MJ_BOOL);
	assert_int_equal(a->kids[3]->type, MJ_NULL);
	assert_string_equal(mj_str(m, "s"), "x\ty\xc3\xa9\xf0\x9f\x98\x80\"");
	assert_null(mj_num(m, "s"));
	assert_null(mj_get(m, "missing"));
	assert_int_equal(mj_get(m, "o")->n, 0);
	mj_free(m);
}

/* What json.c writes (control bytes, quotes, non-finite numbers) reads back. */
static void test_json_roundtrip(void **state)
{
	(void)state;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct json j;
	json_init(&j, f, false);
	json_obj_open(&j, NULL);
	json_str(&j, "name", "a\"b\\c\n\x01\x7f");
	json_dbl(&j, "nan", NAN);
	json_u64(&j, "big", 18446744073709551615ull);
	json_obj_close(&j);
	json_end(&j);
	fclose(f);
	int err;
	struct mj *m = parse(buf, &err);
	assert_non_null(m);
	assert_string_equal(mj_str(m, "name"), "a\"b\\c\n\x01\x7f");
	assert_int_equal(mj_get(m, "nan")->type, MJ_NULL);
	assert_true(*mj_num(m, "big") > 1.8e19);
	mj_free(m);
	free(buf);
}

static void test_json_refuses(void **state)
{
	(void)state;
	static const struct { const char *text; int err; int line; } rows[] = {
		{ "", EBADMSG, __LINE__ },
		{ "{", EBADMSG, __LINE__ },
		{ "{\"a\":1,}", EBADMSG, __LINE__ },
		{ "[1 2]", EBADMSG, __LINE__ },
		{ "{\"a\" 1}", EBADMSG, __LINE__ },
		{ "{1:2}", EBADMSG, __LINE__ },
		{ "\"abc", EBADMSG, __LINE__ },
		{ "\"a\\u0000b\"", EBADMSG, __LINE__ },   /* would cut the string */
		{ "\"\\ud800\"", EBADMSG, __LINE__ },     /* half a surrogate pair */
		{ "\"\\x\"", EBADMSG, __LINE__ },
		{ "\"a\nb\"", EBADMSG, __LINE__ },         /* a raw control byte */
		{ "tru", EBADMSG, __LINE__ },
		{ "1e999", EBADMSG, __LINE__ },
		{ "+1", EBADMSG, __LINE__ },
		{ "{} {}", EBADMSG, __LINE__ },            /* stat -I: one object a line */
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int err;
		struct mj *m = parse(rows[i].text, &err);
		if (m || err != rows[i].err)
			fail_msg("line %d: '%s' gave %s, errno %d", rows[i].line, rows[i].text,
				 m ? "a tree" : "NULL", err);
	}
	/* nesting past MJ_MAX_DEPTH: E2BIG, and no deep recursion */
	char deep[4 * MJ_MAX_DEPTH + 8];
	size_t n = 0;
	for (int i = 0; i < 2 * MJ_MAX_DEPTH; i++)
		deep[n++] = '[';
	deep[n] = '\0';
	int err;
	assert_null(parse(deep, &err));
	assert_int_equal(err, E2BIG);
}

/* A stat file of rank @rank with @pf page faults (negative: not counted). */
static void stat_file(const char *path, int rank, int size, double pf, const char *job)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "{\"command\":[\"x\"],\"rank\":%d,\"size\":%d,\"host\":\"n%d\",", rank, size,
		rank % 2);
	if (job)
		fprintf(f, "\"job\":\"%s\",", job);
	fprintf(f, "\"exit_status\":0,\"events\":[{\"name\":\"page-faults\",\"count\":");
	if (pf < 0)
		fprintf(f, "null");
	else
		fprintf(f, "%.0f", pf);
	fprintf(f, ",\"unit\":\"\"}],\"metrics\":[{\"name\":\"ipc\",\"value\":%g,\"unit\":"
		"\"insn per cycle\"}]}\n", 0.5 + rank);
	fclose(f);
}

static char dir[] = "/tmp/hpmon-test-merge.XXXXXX";

static const char *path_of(int i)
{
	static char p[64];
	snprintf(p, sizeof(p), "%s/s.%d.json", dir, i);
	return p;
}

static void test_table(void **state)
{
	(void)state;
	struct merge_table t = { 0 };
	struct merge_stat s;
	char miss[64];
	/* ranks 5, 0, 2 of 8: 100, 400, 250 page faults */
	static const int ranks[] = { 5, 0, 2 };
	static const double pf[] = { 100, 400, 250 };

	assert_non_null(mkdtemp(dir));
	for (int i = 0; i < 3; i++) {
		stat_file(path_of(i), ranks[i], 8, pf[i], "77");
		assert_int_equal(merge_table__add(&t, path_of(i)), 0);
	}
	assert_int_equal(merge_table__finish(&t), 0);
	assert_int_equal(t.rows[0].rank, 0);
	assert_int_equal(t.rows[2].rank, 5);
	assert_string_equal(t.rows[1].host, "n0");
	assert_string_equal(t.job, "77");
	assert_int_equal(t.size, 8);
	assert_int_equal(t.nr_cols, 2);
	merge_table__stat(&t, 0, &s);
	assert_int_equal(s.n, 3);
	assert_true(s.total == 750);
	assert_true(s.mean == 250);
	assert_true(s.min == 100 && s.min_rank == 5);
	assert_true(s.max == 400 && s.max_rank == 0);
	assert_true(fabs(s.imbalance - (400.0 - 250) / 400) < 1e-12);
	assert_true(t.cols[1].metric);
	merge_table__stat(&t, 1, &s); /* ipc 0.5 + rank */
	assert_true(s.min == 0.5 && s.max == 5.5 && s.max_rank == 5);
	assert_int_equal(merge_table__missing(&t, miss, sizeof(miss)), 5);
	assert_string_equal(miss, "1, 3-4, 6-7");
	merge_table__release(&t);

	/* a rank without a count is left out of the figures; all zero: no
	 * imbalance rather than 0/0 */
	stat_file(path_of(0), 0, 2, 0, NULL);
	stat_file(path_of(1), 1, 2, -1, NULL);
	assert_int_equal(merge_table__add(&t, path_of(0)), 0);
	assert_int_equal(merge_table__add(&t, path_of(1)), 0);
	assert_int_equal(merge_table__finish(&t), 0);
	merge_table__stat(&t, 0, &s);
	assert_int_equal(s.n, 1);
	assert_true(s.imbalance == 0);
	assert_int_equal(merge_table__missing(&t, miss, sizeof(miss)), 0);
	assert_string_equal(miss, "");
	merge_table__release(&t);

	/* two files of one rank */
	stat_file(path_of(1), 0, 2, 5, NULL);
	assert_int_equal(merge_table__add(&t, path_of(0)), 0);
	assert_int_equal(merge_table__add(&t, path_of(1)), 0);
	assert_int_equal(merge_table__finish(&t), -EEXIST);
	merge_table__release(&t);

	/* not stat's JSON, and no rank */
	FILE *f = fopen(path_of(2), "w");
	fprintf(f, "{\"events\":[]}");
	fclose(f);
	assert_int_equal(merge_table__add(&t, path_of(2)), -EINVAL);
	f = fopen(path_of(2), "w");
	fprintf(f, "[1]");
	fclose(f);
	assert_int_equal(merge_table__add(&t, path_of(2)), -EINVAL);
	assert_int_equal(merge_table__add(&t, dir), -EINVAL); /* a directory */
	merge_table__release(&t);
	for (int i = 0; i < 3; i++)
		unlink(path_of(i));
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_reads),
		cmocka_unit_test(test_json_roundtrip),
		cmocka_unit_test(test_json_refuses),
		cmocka_unit_test(test_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
