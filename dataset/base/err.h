/* err.h - the error value every headroom library returns, and the exit codes.
 *
 * Owns: struct hr_err and the process exit codes of the CLI contract.
 * Library code fills an hr_err and returns its code; it never prints.  The
 * command layer prints the message once, prefixed with the command name.
 */
#ifndef HR_ERR_H
#define HR_ERR_H

#include <stdarg.h>

enum hr_exit {
	HR_OK = 0,      /* ran, nothing wrong */
	HR_FAIL = 1,    /* ran, found failures (a check did not pass) */
	HR_USAGE = 2,   /* bad command line */
	HR_INPUT = 3,   /* bad input: archive, JSON, npy, mapping, ... */
	HR_SYSTEM = 4   /* I/O, database or resource failure */
};

struct hr_err {
	int code;         /* one of enum hr_exit; HR_OK when nothing failed */
	char msg[1024];   /* one line naming the file / record / line */
};

/* Clear an error value. */
void hr_err_clear(struct hr_err *e);

/* Set e to (code, formatted message) and return code.  When e already holds
 * an error the first one wins: the root cause is what the user needs. */
int hr_errf(struct hr_err *e, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Prefix the message already in e with "prefix: " (context added by a caller
 * higher up, e.g. the archive name).  Returns e->code. */
int hr_err_prefix(struct hr_err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
