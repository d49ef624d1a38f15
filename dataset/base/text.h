/* text.h - byte-level facts about text that comes from outside: is it
 * UTF-8, where is byte N (line and column), does it hold a NUL.
 *
 * Owns: the one UTF-8 validator the readers and the archive loader share,
 * so that "not UTF-8" means the same thing for names, JSON and code.
 * Must not: allocate, print or know any format.
 */
#ifndef HR_TEXT_H
#define HR_TEXT_H

#include <stddef.h>

/* Offset of the first byte of buf[0..len) that is not part of a valid
 * UTF-8 sequence (overlongs, surrogates and code points above U+10FFFF
 * are invalid), or len when all of it is valid. */
size_t text_utf8_invalid_at(const void *buf, size_t len);

/* What readers demand of text they keep (code, configs, JSON records):
 * valid UTF-8 and no NUL byte.  Offset of the first byte that breaks it,
 * or len; *what (when not NULL) names the fault: "NUL byte" or "not
 * valid UTF-8". */
size_t text_bad_at(const void *buf, size_t len, const char **what);

/* Copy src into dst (n bytes, n > 0), NUL-terminated; when src does not
 * fit, it is cut at the last whole UTF-8 character that does, never in
 * the middle of one (a cut name must stay valid text for JSON output and
 * re-ingest).  Returns 1 when src was cut, 0 otherwise.  srclen: the
 * bytes of src to copy (src need not be NUL-terminated). */
int text_copy(char *dst, size_t n, const char *src, size_t srclen);

/* s as a message may echo it: s itself when shorter than n bytes, else
 * its first bytes cut at a whole character plus "…", written into buf
 * (n >= 8).  A key of a megabyte must not push the reason out of a
 * message. */
const char *text_clip(const char *s, char *buf, size_t n);

/* Offset of the first "\u0000" escape inside a JSON string of
 * buf[0..len), or len when there is none.  cJSON decodes that escape into
 * a NUL byte and so silently cuts the string there: readers refuse it. */
size_t text_json_nul_escape_at(const void *buf, size_t len);

/* Offset of the first C0 control character or DEL in s[0..len), or len:
 * such bytes in a name (model, run, hardware) would drive the terminal
 * that prints it. */
size_t text_control_at(const char *s, size_t len);

/* 1-based line and column (in bytes) of offset off in buf. */
void text_line_col(const void *buf, size_t off, size_t *line, size_t *col);

#endif
