/* test_text.c - text.h: UTF-8-safe copies and clips, the escaped-NUL and
 * control-character scans. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "../../dataset/base/text.h"

/* "é" is two bytes (c3 a9): a cut after "aé" at 3 bytes of room would
 * split it; the copy keeps "a" only. */
static void copy_never_splits_a_character(void **state)
{
	char buf[4];

	(void)state;
	assert_int_equal(text_copy(buf, sizeof(buf), "a\xc3\xa9\xc3\xa9", 5),
			 1);
	assert_string_equal(buf, "a\xc3\xa9");
	assert_int_equal(text_copy(buf, 3, "a\xc3\xa9", 3), 1);
	assert_string_equal(buf, "a");
	assert_int_equal(text_copy(buf, sizeof(buf), "\xe2\x82\xac\xe2\x82\xac",
				   6), 1);
	assert_string_equal(buf, "\xe2\x82\xac");
}

static void copy_that_fits_is_whole(void **state)
{
	char buf[8];

	(void)state;
	assert_int_equal(text_copy(buf, sizeof(buf), "model-x", 7), 0);
	assert_string_equal(buf, "model-x");
	/* srclen bounds what is copied; that is not a cut. */
	assert_int_equal(text_copy(buf, sizeof(buf), "ab", 1), 0);
	assert_string_equal(buf, "a");
}

static void clip_keeps_short_text_and_marks_a_cut(void **state)
{
	char buf[16], big[100];

	(void)state;
	assert_string_equal(text_clip("fields", buf, sizeof(buf)), "fields");
	memset(big, 'k', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_string_equal(text_clip(big, buf, sizeof(buf)),
			    "kkkkkkkkkkkk\xe2\x80\xa6");
}

static void escaped_nul_is_found_only_inside_strings(void **state)
{
	static const char with[] = "{\"a\": \"x\\u0000y\"}";
	static const char escaped_backslash[] = "{\"a\": \"\\\\u0000\"}";
	static const char other_escape[] = "{\"a\": \"\\u00e9 \\\" \\u0000\"}";

	(void)state;
	assert_int_equal(text_json_nul_escape_at(with, strlen(with)), 8);
	assert_int_equal(text_json_nul_escape_at(escaped_backslash,
						 strlen(escaped_backslash)),
			 strlen(escaped_backslash));
	/* An escaped quote does not end the string. */
	assert_int_equal(text_json_nul_escape_at(other_escape,
						 strlen(other_escape)), 17);
}

static void control_characters_are_found(void **state)
{
	(void)state;
	assert_int_equal(text_control_at("gpt-4o mini", 11), 11);
	assert_int_equal(text_control_at("evil\x1b[2J", 8), 4);
	assert_int_equal(text_control_at("a\x7f", 2), 1);
	assert_int_equal(text_control_at("caf\xc3\xa9", 5), 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(copy_never_splits_a_character),
		cmocka_unit_test(copy_that_fits_is_whole),
		cmocka_unit_test(clip_keeps_short_text_and_marks_a_cut),
		cmocka_unit_test(escaped_nul_is_found_only_inside_strings),
		cmocka_unit_test(control_characters_are_found),
	};
	return cmocka_run_group_tests_name("text", tests, NULL, NULL);
}
