/* test_html.c - html.h's escaping: stored text becomes text in the page,
 * and JSON in a <script> block can neither end it nor open a comment. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../report/html.h"

/* What fn writes for s, as a string the caller frees. */
static char *written(int (*fn)(FILE *, const char *), const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(fn(f, s), 0);
	fclose(f);
	return buf;
}

static void text_escapes_markup_and_quotes(void **state)
{
	char *out = written(html_put_text,
			    "<script>alert('x')</script> & \"q\"");

	(void)state;
	assert_string_equal(out, "&lt;script&gt;alert(&#39;x&#39;)&lt;/script"
			    "&gt; &amp; &quot;q&quot;");
	free(out);
}

static void text_shows_control_characters(void **state)
{
	char *out = written(html_put_text, "a\x1b[2J\r\x7f\tb\nc");

	(void)state;
	assert_string_equal(out, "a\\x1b[2J\\x0d\\x7f\tb\nc");
	free(out);
}

static void text_keeps_utf8(void **state)
{
	char *out = written(html_put_text,
			    "r\xc3\xa9sum\xc3\xa9 \xe2\x80\xa8");

	(void)state;
	assert_string_equal(out, "r\xc3\xa9sum\xc3\xa9 \xe2\x80\xa8");
	free(out);
}

static void script_json_hides_every_less_than(void **state)
{
	char *out = written(html_put_script_json,
			    "{\"c\":\"</script><!-- x\"}");

	(void)state;
	assert_string_equal(out, "{\"c\":\"\\u003c/script>\\u003c!-- x\"}");
	free(out);
}

static void script_json_escapes_line_separators(void **state)
{
	char *out = written(html_put_script_json, "[\"a\xe2\x80\xa8"
			    "b\xe2\x80\xa9" "c\xe2\x80\xa0\"]");

	(void)state;
	/* U+2020 (a dagger) shares the first two bytes and stays */
	assert_string_equal(out, "[\"a\\u2028b\\u2029c\xe2\x80\xa0\"]");
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(text_escapes_markup_and_quotes),
		cmocka_unit_test(text_shows_control_characters),
		cmocka_unit_test(text_keeps_utf8),
		cmocka_unit_test(script_json_hides_every_less_than),
		cmocka_unit_test(script_json_escapes_line_separators),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
