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

/* 1-based line and column (in bytes) of offset off in buf. */
void text_line_col(const void *buf, size_t off, size_t *line, size_t *col);

#endif
