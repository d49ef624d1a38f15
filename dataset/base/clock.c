/* clock.c - see clock.h. */
#include "clock.h"

#include <errno.h>
#include <stdlib.h>

int clock_epoch(time_t *t)
{
	const char *sde = getenv("SOURCE_DATE_EPOCH");
	char *end;
	long long v;

	if (!sde || *sde < '0' || *sde > '9')
		return 0;
	errno = 0;
	v = strtoll(sde, &end, 10);
	if (*end || errno || (long long)(time_t)v != v)
		return 0;
	*t = (time_t)v;
	return 1;
}

void clock_utc(time_t t, char *buf, size_t n)
{
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void clock_utc_now(char *buf, size_t n)
{
	time_t t;

	if (!clock_epoch(&t))
		t = time(NULL);
	clock_utc(t, buf, n);
}
