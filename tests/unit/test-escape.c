// SPDX-License-Identifier: MIT
/*
 * The tool's escaping of names for text and CSV output
 * (tools/hpmon/output/escape.h): control bytes, newlines and bytes that are
 * not UTF-8 become visible escapes, valid UTF-8 stays as it is, the result
 * never holds a byte below 0x20 nor DEL, and a cut copy stays within its
 * buffer. JSON strings hold the same characters as \\u escapes and stay
 * valid UTF-8. The tool is not a library: its two files are compiled into
 * this test.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../tools/hpmon/output/escape.c"
#include "../../tools/hpmon/output/json.c"

struct row {
	int line;
	const char *in, *out;
};

static const struct row rows[] = {
	{ __LINE__, "", "" },
	{ __LINE__, "main", "main" },
	{ __LINE__, "a b/c:1 [x] <y> 'z'", "a b/c:1 [x] <y> 'z'" },
	{ __LINE__, "back\\slash", "back\\\\slash" },
	{ __LINE__, "two\nrows", "two\\nrows" },
	{ __LINE__, "tab\there\rCR", "tab\\there\\rCR" },
	{ __LINE__, "\x1b[2J\x1b]0;title\x07", "\\x1b[2J\\x1b]0;title\\x07" },
	{ __LINE__, "del\x7f", "del\\x7f" },
	{ __LINE__, "\x01\x1f", "\\x01\\x1f" },
	/* valid UTF-8 is kept: 2, 3 and 4 bytes */
	{ __LINE__, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80" },
	/* C1 bytes alone (CSI 0x9b) and as UTF-8 (U+009B) */
	{ __LINE__, "a\x9b" "2Jb", "a\\x9b2Jb" },
	{ __LINE__, "a\xc2\x9b" "2J", "a\\xc2\\x9b2J" },
	{ __LINE__, "\xc2\x80\xc2\x9f\xc2\xa0", "\\xc2\\x80\\xc2\\x9f\xc2\xa0" },
	/* not UTF-8: stray continuation, overlong, surrogate, > U+10FFFF,
	 * cut short by the end or by an ASCII byte */
	{ __LINE__, "\x80", "\\x80" },
	{ __LINE__, "\xc0\xaf", "\\xc0\\xaf" },
	{ __LINE__, "\xe0\x80\x8a", "\\xe0\\x80\\x8a" },
	{ __LINE__, "\xed\xa0\x80", "\\xed\\xa0\\x80" },
	{ __LINE__, "\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80" },
	{ __LINE__, "\xe2\x82", "\\xe2\\x82" },
	{ __LINE__, "\xe2\n", "\\xe2\\n" },
	{ __LINE__, "\xff\xfe", "\\xff\\xfe" },
	/* formatting characters that reorder or break lines */
	{ __LINE__, "abc\xe2\x80\xae" "cba", "abc\\u202ecba" },
	{ __LINE__, "\xe2\x80\xa8\xe2\x81\xa6\xd8\x9c", "\\u2028\\u2066\\u061c" },
	{ __LINE__, "\xe2\x80\x8b", "\xe2\x80\x8b" }, /* zero width space: printable enough */
};

static void test_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];
		const char *got = esc_text(r->in);
		char buf[256];
		if (strcmp(got, r->out)) {
			fprintf(stderr, "line %d: expected '%s', got '%s'\n", r->line, r->out, got);
			fail();
		}
		if (esc_needed(r->in) != (strcmp(r->in, r->out) != 0)) {
			fprintf(stderr, "line %d: esc_needed is wrong\n", r->line);
			fail();
		}
		/* an unchanged string is returned itself: no copy, no limit */
		if (!esc_needed(r->in))
			assert_ptr_equal(got, r->in);
		assert_int_equal(esc_copy(buf, sizeof(buf), r->in), strlen(r->out));
		assert_string_equal(buf, r->out);
		FILE *f = tmpfile();
		assert_non_null(f);
		assert_int_equal(esc_fputs(r->in, f), 0);
		rewind(f);
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);
		buf[n] = '\0';
		fclose(f);
		assert_string_equal(buf, r->out);
	}
	assert_string_equal(esc_text(NULL), "");
	assert_false(esc_needed(NULL));
}

/* Every byte value, alone and after every lead byte: the output has no
 * C0 control nor DEL, and no C1 byte unless it continues a valid character
 * above U+009F. */
static void test_no_control_survives(void **state)
{
	(void)state;
	for (unsigned a = 1; a < 256; a++)
		for (unsigned b = 0; b < 256; b++) {
			char in[4] = { (char)a, (char)b, 'x', 0 };
			const unsigned char *o = (const unsigned char *)esc_text(in);
			for (size_t k = 0; o[k]; k++) {
				assert_true(o[k] >= 0x20 && o[k] != 0x7f);
				if (o[k] >= 0x80 && o[k] <= 0x9f) {
					/* only inside a kept character: after a lead byte */
					assert_true(k > 0 && o[k - 1] >= 0xc2 && !(o[k - 1] == 0xc2));
				}
			}
		}
}

/* The rotating buffers: ESC_RING results can be held at once. */
static void test_ring(void **state)
{
	(void)state;
	const char *held[ESC_RING];
	char in[ESC_RING][8];
	for (int i = 0; i < ESC_RING; i++) {
		snprintf(in[i], sizeof(in[i]), "\n%d", i);
		held[i] = esc_text(in[i]);
	}
	for (int i = 0; i < ESC_RING; i++) {
		char want[8];
		snprintf(want, sizeof(want), "\\n%d", i);
		assert_string_equal(held[i], want);
	}
}

/* A copy that does not fit is cut on a whole escape and ends in "...";
 * hostile names of any length stay within ESC_MAX. */
static void test_cut(void **state)
{
	(void)state;
	char buf[10];
	assert_int_equal(esc_copy(buf, sizeof(buf), "abcdefghi"), 9);
	assert_string_equal(buf, "abcdefghi");
	assert_int_equal(esc_copy(buf, sizeof(buf), "abcdefghij"), 9);
	assert_string_equal(buf, "abcdef...");
	esc_copy(buf, sizeof(buf), "abcd\x1b" "efgh");
	assert_string_equal(buf, "abcd...");
	esc_copy(buf, 3, "\x1b");
	assert_string_equal(buf, "");
	esc_copy(buf, 1, "abc");
	assert_string_equal(buf, "");

	size_t n = 3 * ESC_MAX;
	char *big = malloc(n + 1);
	assert_non_null(big);
	memset(big, 0x1b, n);
	big[n] = '\0';
	const char *e = esc_text(big);
	assert_true(strlen(e) < ESC_MAX);
	assert_string_equal(e + strlen(e) - 3, "...");
	assert_int_equal(strncmp(e, "\\x1b\\x1b", 8), 0);
	/* and unlimited when clean */
	memset(big, 'a', n);
	assert_ptr_equal(esc_text(big), big);
	free(big);
}

static void test_csv(void **state)
{
	(void)state;
	assert_string_equal(esc_csv("main", ","), "main");
	assert_string_equal(esc_csv("a,b", ","), "\"a,b\"");
	assert_string_equal(esc_csv("a,b", ";"), "a,b");
	assert_string_equal(esc_csv("say \"hi\"", ","), "\"say \"\"hi\"\"\"");
	/* a newline never starts a record: escaped, so no quotes needed */
	assert_string_equal(esc_csv("two\nrows", ","), "two\\nrows");
	assert_string_equal(esc_csv("x\x1b,y", ","), "\"x\\x1b,y\"");
	assert_string_equal(esc_csv("a::b", "::"), "\"a::b\"");
	assert_string_equal(esc_csv("a:b", "::"), "a:b");
	/* cut inside the quotes, which still close */
	char *big = malloc(2 * ESC_MAX);
	assert_non_null(big);
	memset(big, '"', 2 * ESC_MAX - 1);
	big[2 * ESC_MAX - 1] = '\0';
	const char *e = esc_csv(big, ",");
	size_t n = strlen(e);
	assert_true(n < ESC_MAX);
	assert_string_equal(e + n - 4, "...\"");
	free(big);
}

/* JSON: control and formatting characters as \\uXXXX, a byte that is not
 * UTF-8 as the lone surrogate Python's surrogateescape reads back as it. */
static void test_json(void **state)
{
	(void)state;
	char buf[512];
	FILE *f = tmpfile();
	assert_non_null(f);
	struct json j;
	json_init(&j, f, false);
	json_str(&j, NULL, "a\x1b[2J\nb\t\"q\"\\ \xff\x80 \xc2\x9b \xe2\x80\xae \x7f caf\xc3\xa9 \xf0\x9f\x98\x80");
	fflush(f);
	rewind(f);
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	assert_string_equal(buf, "\"a\\u001b[2J\\nb\\t\\\"q\\\"\\\\ \\udcff\\udc80 \\u009b \\u202e \\u007f "
				 "caf\xc3\xa9 \xf0\x9f\x98\x80\"");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_no_control_survives),
		cmocka_unit_test(test_ring),
		cmocka_unit_test(test_cut),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_json),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
