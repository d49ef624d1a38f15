/* clock.h - the one clock of reproducible outputs: SOURCE_DATE_EPOCH.
 *
 * Owns: reading and validating SOURCE_DATE_EPOCH
 * (reproducible-builds.org/specs/source-date-epoch) and the UTC ISO-8601
 * form every stored or printed time takes.  Must not: fall back on its
 * own; what a missing epoch means (now, 0, the store's newest ingest) is
 * the caller's rule.
 */
#ifndef HR_CLOCK_H
#define HR_CLOCK_H

#include <stddef.h>
#include <time.h>

/* 1 and *t = its value when SOURCE_DATE_EPOCH is set to a decimal integer
 * >= 0 that time_t holds; 0 (and *t untouched) when it is unset, empty or
 * anything else. */
int clock_epoch(time_t *t);

/* t as "YYYY-MM-DDTHH:MM:SSZ" (UTC) into buf[n], n >= 21. */
void clock_utc(time_t t, char *buf, size_t n);

/* clock_utc of SOURCE_DATE_EPOCH when clock_epoch has one, else of the
 * current time. */
void clock_utc_now(char *buf, size_t n);

#endif
