/* err.c - see err.h. */
#include "err.h"

#include <stdio.h>
#include <string.h>

void hr_err_clear(struct hr_err *e)
{
	e->code = HR_OK;
	e->msg[0] = '\0';
}

int hr_errf(struct hr_err *e, int code, const char *fmt, ...)
{
	va_list ap;

	if (e->code != HR_OK)
		return e->code;
	e->code = code;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return code;
}

int hr_err_prefix(struct hr_err *e, const char *fmt, ...)
{
	char prefix[512];
	size_t pl, ml;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	pl = strlen(prefix);
	ml = strlen(e->msg);
	/* Keep the prefix whole; the tail of the old message may be cut. */
	if (pl + 2 + ml >= sizeof(e->msg))
		ml = sizeof(e->msg) - pl - 3;
	memmove(e->msg + pl + 2, e->msg, ml);
	e->msg[pl + 2 + ml] = '\0';
	memcpy(e->msg, prefix, pl);
	e->msg[pl] = ':';
	e->msg[pl + 1] = ' ';
	return e->code;
}
