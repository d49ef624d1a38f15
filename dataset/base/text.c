/* text.c - see text.h. */
#include "text.h"

#include <string.h>

/* Length of the UTF-8 sequence that starts at s[0..n), or 0 when it is not
 * a valid one (RFC 3629 table: the second byte's range depends on the
 * first, which is what rules out overlongs and surrogates). */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t len;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

size_t text_utf8_invalid_at(const void *buf, size_t len)
{
	const unsigned char *s = buf;
	size_t i = 0;

	while (i < len) {
		size_t k;

		/* ASCII runs dominate source code: skip them cheaply. */
		if (s[i] < 0x80) {
			i++;
			continue;
		}
		k = utf8_seq(s + i, len - i);
		if (!k)
			return i;
		i += k;
	}
	return len;
}

void text_line_col(const void *buf, size_t off, size_t *line, size_t *col)
{
	const unsigned char *s = buf;
	size_t l = 1, start = 0;

	for (size_t i = 0; i < off; i++) {
		if (s[i] == '\n') {
			l++;
			start = i + 1;
		}
	}
	*line = l;
	*col = off - start + 1;
}

size_t text_bad_at(const void *buf, size_t len, const char **what)
{
	size_t bad = text_utf8_invalid_at(buf, len);
	const char *nul = memchr(buf, '\0', bad);     /* only before it */

	if (what)
		*what = nul ? "NUL byte" : "not valid UTF-8";
	return nul ? (size_t)(nul - (const char *)buf) : bad;
}

int text_copy(char *dst, size_t n, const char *src, size_t srclen)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t len = srclen;

	if (len > n - 1) {
		len = n - 1;
		/* Back up over continuation bytes (10xxxxxx) to the lead
		 * byte of the character that would be split, and drop it. */
		while (len > 0 && (s[len] & 0xc0) == 0x80)
			len--;
	}
	memcpy(dst, src, len);
	dst[len] = '\0';
	return len != srclen;
}

size_t text_json_nul_escape_at(const void *buf, size_t len)
{
	const char *s = buf;
	int in_string = 0;

	for (size_t i = 0; i < len; i++) {
		if (!in_string) {
			in_string = s[i] == '"';
			continue;
		}
		if (s[i] == '"') {
			in_string = 0;
		} else if (s[i] == '\\' && i + 1 < len) {
			if (s[i + 1] == 'u' && i + 6 <= len &&
			    !memcmp(s + i + 2, "0000", 4))
				return i;
			i++;    /* the escaped character is not a quote */
		}
	}
	return len;
}

size_t text_control_at(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return i;
	return len;
}

const char *text_clip(const char *s, char *buf, size_t n)
{
	static const char ellipsis[] = "\xe2\x80\xa6";   /* U+2026 */
	size_t len = strlen(s), k;

	if (len < n)
		return s;
	text_copy(buf, n - (sizeof(ellipsis) - 1), s, len);
	k = strlen(buf);
	memcpy(buf + k, ellipsis, sizeof(ellipsis));
	return buf;
}
